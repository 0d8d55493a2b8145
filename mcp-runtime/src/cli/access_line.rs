//! The access line: a request's [`AccessRecord`] written by the log's layer as the line its
//! `request` span would give when it closes, with no span made. Also the request context of
//! the other lines written while a request runs.

use std::borrow::Cow;

use tracing::Level;
use tracing_subscriber::Registry;
use tracing_subscriber::registry::LookupSpan as _;

use super::log_fields::Fields;
use super::log_layer::{LogLayer, TARGET};
use super::log_request::Request;
use crate::server::{AccessLog, AccessRecord, with_current_access};

/// The request this thread is running, as the lines written meanwhile show it (for
/// [`LogLayer::with_requests`]).
pub(super) fn current_request() -> Option<Request<'static>> {
    with_current_access(|record| Request::new(Cow::Owned(record.clone())))
}

impl AccessLog for LogLayer {
    fn write(&self, record: &AccessRecord) {
        let request = Request::new(Cow::Borrowed(record));
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
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::Value;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::cli::LogFormat;
    use crate::cli::log_layer::tests::Captured;
    use crate::cli::log_writer::BatchWriter;
    use crate::server::{TraceContext, recycle_access};

    const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /// The lines two requests on one thread give, in `format`, with each duration's digits
    /// taken out. The first, a finished round inside a connection span, is then kept for
    /// reuse as `Recorded` keeps it; the connection ends; the second, a request begun in no
    /// span with few fields, reuses the first's record. So: the first request's line, the
    /// connection's, the second request's.
    fn lines(format: LogFormat) -> Vec<String> {
        let captured = Captured::default();
        let (writer, thread) = BatchWriter::spawn("access-line-test", captured.clone()).unwrap();
        let layer = LogLayer::new(writer, format, false).with_requests(current_request);
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "http");
            let entered = connection.enter();
            let trace = TraceContext {
                traceparent: Some(TRACEPARENT.into()),
                ..TraceContext::default()
            };
            let mut record = AccessRecord::start("tools/call", "7", true, false, trace);
            let target = crate::server::escaped("evil\" outcome=\"complete\n");
            record.set_target(&target, false);
            record.round = Some(2);
            record.shape = Some(0xab);
            record.flow = Some(0x0123_4567_89ab_cdef);
            record.from = Some(0);
            record.to = Some(1);
            record.answer = Some("decline");
            record.state_bytes = Some(300);
            record.outcome = "input_required";
            layer.write(&record);
            recycle_access(record);
            drop(entered);
            // The kept record holds the span no more: it closes, and its line is written.
            drop(connection);
            let mut record =
                AccessRecord::start("ping", "\"a\"", false, true, TraceContext::default());
            record.outcome = "complete";
            record.error_code = Some(-32601);
            layer.write(&record);
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        // Each duration written as 0, for the lines to be compared whole.
        let timeless = |line: &str| {
            let mut parts = line.split("duration_us");
            let mut kept = parts.next().unwrap_or_default().to_owned();
            for part in parts {
                let digits = part.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
                let rest = part[digits..].trim_start_matches(|c: char| c.is_ascii_digit());
                kept.push_str("duration_us");
                kept.push_str(&part[..digits]);
                kept.push('0');
                kept.push_str(rest);
            }
            kept
        };
        let lines: Vec<String> = text.lines().map(timeless).collect();
        assert_eq!(lines.len(), 3, "{text}");
        lines
    }

    #[test]
    fn human_access_lines_read_as_request_spans_closing_in_their_scope() {
        let lines = lines(LogFormat::Human);
        let first = r#" INFO connection{transport="http"}:request{method="tools/call" id="7" legacy=false target="evil\" outcome=\"complete\\n" round=2 shape="000000ab" flow="0123456789abcdef" from=0 to=1 answer="decline" state_bytes=300 outcome="input_required" duration_us=0 traceparent="00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}: mcp_runtime::server::trace: close"#;
        assert!(lines[0].ends_with(first), "{}", lines[0]);
        assert!(
            lines[1].ends_with(
                r#" INFO connection{transport="http"}: mcp_runtime::cli::access_line::tests: close"#
            ),
            "{}",
            lines[1]
        );
        let second = r#" INFO request{method="ping" id="\"a\"" legacy=true outcome="complete" duration_us=0 error_code=-32601}: mcp_runtime::server::trace: close"#;
        assert!(lines[2].ends_with(second), "{}", lines[2]);
    }

    #[test]
    fn json_access_lines_have_the_request_as_their_span() {
        let lines = lines(LogFormat::Json);
        let line: Value = serde_json::from_str(&lines[0]).unwrap();
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
        assert_eq!(span["traceparent"], TRACEPARENT);
        assert_eq!(line["spans"][0]["name"], "connection");
        assert_eq!(line["spans"][1], *span);
        let connection: Value = serde_json::from_str(&lines[1]).unwrap();
        assert_eq!(connection["span"]["name"], "connection");
        let line: Value = serde_json::from_str(&lines[2]).unwrap();
        assert_eq!(line["spans"].as_array().map(Vec::len), Some(1), "{line}");
        assert_eq!(
            line["span"],
            serde_json::json!({
                "method": "ping", "id": "\"a\"", "legacy": true, "outcome": "complete",
                "duration_us": 0, "error_code": -32601, "name": "request",
            })
        );
    }

    #[test]
    fn lines_written_while_a_request_runs_show_it_after_the_span_it_began_in() {
        let captured = Captured::default();
        let (writer, thread) = BatchWriter::spawn("access-line-test", captured.clone()).unwrap();
        thread_local! {
            static PARENT: std::cell::RefCell<tracing::Span> =
                const { std::cell::RefCell::new(tracing::Span::none()) };
        }
        let running = || {
            let mut record =
                AccessRecord::start("tools/call", "1", true, false, TraceContext::default());
            record.parent = PARENT.with_borrow(Clone::clone);
            Some(Request::new(Cow::Owned(*record)))
        };
        let layer = LogLayer::new(writer, LogFormat::Human, false).with_requests(running);
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "http");
            PARENT.with_borrow_mut(|parent| *parent = connection.clone());
            let _connection = connection.enter();
            let round = tracing::info_span!("round", round = 1);
            round.in_scope(|| tracing::warn!("refused"));
            PARENT.set(tracing::Span::none());
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let first = text
            .lines()
            .next()
            .unwrap_or_else(|| panic!("no line: {text}"));
        assert!(
            first.ends_with(
                r#" WARN connection{transport="http"}:request{method="tools/call" id="1" legacy=false}:round{round=1}: mcp_runtime::cli::access_line::tests: refused"#
            ),
            "{text}"
        );
    }
}
