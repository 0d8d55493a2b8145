//! The access line: a request's [`AccessRecord`] written by the log's layer as the line its
//! `request` span would give when it closes, with no span made. Also the request context of
//! the other lines written while a request runs.

use std::cell::Cell;

use tracing::Level;
use tracing_subscriber::Registry;
use tracing_subscriber::registry::LookupSpan as _;

use super::log_fields::{FieldValue, Fields};
use super::log_layer::{LogLayer, Request, TARGET};
use crate::server::{AccessLog, AccessRecord, with_current_access};

thread_local! {
    /// The list an access line's fields were last put in, emptied: each request's line
    /// reuses it rather than allocate one (at most [`MAX_REUSED_FIELDS`] places are kept).
    static SPARE_FIELDS: Cell<Vec<(&'static str, FieldValue)>> = const { Cell::new(Vec::new()) };
}

/// The most places a thread keeps in its spare list of fields.
const MAX_REUSED_FIELDS: usize = 32;

impl Request {
    fn of(record: AccessRecord) -> Self {
        let mut fields = SPARE_FIELDS.take();
        fields.reserve(12);
        let mut text = |name, value: String| fields.push((name, FieldValue::Str(value)));
        text("method", record.method);
        text("id", record.id);
        fields.push(("legacy", FieldValue::Bool(record.legacy)));
        if let Some(target) = record.target {
            fields.push(("target", FieldValue::Str(target)));
        }
        if let Some(round) = record.round {
            fields.push(("round", FieldValue::U64(u64::from(round))));
        }
        if let Some(shape) = record.shape {
            fields.push(("shape", FieldValue::Hex(u64::from(shape), 8)));
        }
        if let Some(flow) = record.flow {
            fields.push(("flow", FieldValue::Hex(flow, 16)));
        }
        if let Some(from) = record.from {
            fields.push(("from", FieldValue::U64(u64::from(from))));
        }
        if let Some(to) = record.to {
            fields.push(("to", FieldValue::U64(u64::from(to))));
        }
        if let Some(answer) = record.answer {
            fields.push(("answer", FieldValue::Static(answer)));
        }
        if let Some(bytes) = record.state_bytes {
            fields.push(("state_bytes", FieldValue::U64(bytes as u64)));
        }
        if record.replayed {
            fields.push(("replayed", FieldValue::Bool(true)));
        }
        if !record.outcome.is_empty() {
            fields.push(("outcome", FieldValue::Static(record.outcome)));
            let micros = record.started.elapsed().as_micros();
            fields.push((
                "duration_us",
                FieldValue::U64(u64::try_from(micros).unwrap_or(u64::MAX)),
            ));
        }
        if let Some(code) = record.error_code {
            fields.push(("error_code", FieldValue::I64(code)));
        }
        let trace = record.trace;
        for (name, value) in [
            ("traceparent", trace.traceparent),
            ("tracestate", trace.tracestate),
            ("baggage", trace.baggage),
        ] {
            if let Some(value) = value {
                fields.push((name, FieldValue::Str(value)));
            }
        }
        Self {
            fields: Fields(fields),
            parent: record.parent.id(),
        }
    }
}

/// The request this thread is running, as the lines written meanwhile show it (for
/// [`LogLayer::with_requests`]).
pub(super) fn current_request() -> Option<Request> {
    with_current_access(|record| Request::of(record.clone()))
}

impl AccessLog for LogLayer {
    fn write(&self, record: AccessRecord) {
        let request = Request::of(record);
        tracing::dispatcher::get_default(|dispatch| {
            let registry = dispatch.downcast_ref::<Registry>();
            let scope = request
                .parent
                .as_ref()
                .and_then(|parent| registry?.span(parent))
                .map(|span| span.scope());
            self.write_line(
                Level::INFO,
                TARGET,
                "close",
                &Fields::default(),
                scope,
                Some(&request),
            );
        });
        let mut spare = request.fields.0;
        spare.clear();
        if spare.capacity() <= MAX_REUSED_FIELDS {
            SPARE_FIELDS.set(spare);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::Value;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::cli::LogFormat;
    use crate::cli::log_layer::tests::Captured;
    use crate::cli::log_writer::BatchWriter;

    /// The line a finished round's record gives inside a connection span, in `format` (the
    /// connection's own line, when it closes, is not returned). The record is written twice,
    /// and the second line, written with the list of fields the first left, must say the
    /// same up to its duration.
    fn line(format: LogFormat) -> String {
        let captured = Captured::default();
        let (writer, thread) = BatchWriter::spawn("access-line-test", captured.clone()).unwrap();
        let layer = LogLayer::new(writer, format, false).with_requests(current_request);
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "http");
            let _connection = connection.enter();
            let record = AccessRecord {
                parent: tracing::Span::current(),
                method: "tools/call".into(),
                id: "7".into(),
                legacy: false,
                target: Some(crate::server::escaped("evil\" outcome=\"complete\n")),
                round: Some(2),
                shape: Some(0xab),
                flow: Some(0x0123_4567_89ab_cdef),
                from: Some(0),
                to: Some(1),
                answer: Some("decline"),
                state_bytes: Some(300),
                replayed: false,
                outcome: "input_required",
                error_code: None,
                trace: crate::server::TraceContext::default(),
                started: Instant::now(),
            };
            layer.write(record.clone());
            layer.write(record);
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        // From the level on, with each duration's digits taken out.
        let timeless = |line: &str| {
            let level = line.find("INFO").unwrap_or_else(|| panic!("{line}"));
            let mut parts = line[level..].split("duration_us");
            let mut kept = parts.next().unwrap_or_default().to_owned();
            for part in parts {
                let rest = part
                    .trim_start_matches(|c: char| !c.is_ascii_digit())
                    .trim_start_matches(|c: char| c.is_ascii_digit());
                kept.push_str("duration_us");
                kept.push_str(rest);
            }
            kept
        };
        assert_eq!(timeless(lines[0]), timeless(lines[1]));
        lines[1].to_owned()
    }

    #[test]
    fn a_human_access_line_reads_as_the_request_span_closing_in_its_connection() {
        let line = line(LogFormat::Human);
        let expected = r#" INFO connection{transport="http"}:request{method="tools/call" id="7" legacy=false target="evil\" outcome=\"complete\\n" round=2 shape="000000ab" flow="0123456789abcdef" from=0 to=1 answer="decline" state_bytes=300 outcome="input_required" duration_us="#;
        assert!(line.contains(expected), "{line}");
        assert!(
            line.ends_with("}: mcp_runtime::server::trace: close"),
            "{line}"
        );
    }

    #[test]
    fn a_json_access_line_has_the_request_as_its_span() {
        let line: Value = serde_json::from_str(&line(LogFormat::Json)).unwrap();
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["fields"]["message"], "close");
        assert_eq!(line["target"], TARGET);
        let span = &line["span"];
        assert_eq!(span["name"], "request");
        assert_eq!(span["target"], "evil\" outcome=\"complete\\n");
        assert_eq!(span["round"], 2);
        assert_eq!(span["flow"], "0123456789abcdef");
        assert_eq!(
            (&span["from"], &span["to"]),
            (&Value::from(0), &Value::from(1))
        );
        assert_eq!(span["answer"], "decline");
        assert_eq!(span["outcome"], "input_required");
        assert!(span["duration_us"].is_u64(), "{span}");
        assert_eq!(line["spans"][0]["name"], "connection");
        assert_eq!(line["spans"][1], *span);
    }

    #[test]
    fn lines_written_while_a_request_runs_show_it_after_the_span_it_began_in() {
        let captured = Captured::default();
        let (writer, thread) = BatchWriter::spawn("access-line-test", captured.clone()).unwrap();
        thread_local! {
            static PARENT: std::cell::RefCell<Option<tracing::span::Id>> =
                const { std::cell::RefCell::new(None) };
        }
        let running = || {
            Some(Request {
                fields: Fields(vec![("method", FieldValue::Static("tools/call"))]),
                parent: PARENT.with_borrow(Clone::clone),
            })
        };
        let layer = LogLayer::new(writer, LogFormat::Human, false).with_requests(running);
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "http");
            PARENT.with_borrow_mut(|parent| *parent = connection.id());
            let _connection = connection.enter();
            let round = tracing::info_span!("round", round = 1);
            round.in_scope(|| tracing::warn!("refused"));
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let first = text
            .lines()
            .next()
            .unwrap_or_else(|| panic!("no line: {text}"));
        assert!(
            first.ends_with(
                r#" WARN connection{transport="http"}:request{method="tools/call"}:round{round=1}: mcp_runtime::cli::access_line::tests: refused"#
            ),
            "{text}"
        );
    }
}
