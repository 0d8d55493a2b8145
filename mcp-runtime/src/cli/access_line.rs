//! The access line: a request's [`AccessRecord`] written by the log's writer thread as the
//! line its `request` span would give when it closes, with no span made; a round of a legacy
//! call, recorded in a copy of its request's record, as the line its `round` span inside the
//! request's would give. Also the request context of the other lines written while a request
//! runs.

use std::borrow::Cow;
use std::io::Write;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tracing::Level;
use tracing_subscriber::Registry;

use super::LogFormat;
use super::access_scopes::{KEPT_SCOPES, Scopes};
use super::log_fields::Fields;
use super::log_layer::{Line, LineFormat, LogLayer, Spans, TARGET};
use super::log_request::Request;
use super::log_writer::{BatchWriter, RecordLines, WriterThread};
use crate::server::{AccessLog, AccessRecord, with_current_access};

/// The request this thread is running, as the lines written meanwhile show it (for
/// [`LogLayer::with_requests`]).
pub(super) fn current_request() -> Option<Request<'static>> {
    with_current_access(|record| Request::new(Cow::Owned(record.clone())))
}

/// The log's layer, writing to `out` in `format` from a thread named `name`, which also
/// formats the access lines; with the writer, which counts dropped lines, and its thread.
pub(super) fn spawn(
    name: &str,
    out: impl Write + Send + 'static,
    format: LogFormat,
    colours: bool,
) -> std::io::Result<(LogLayer, BatchWriter, WriterThread)> {
    spawn_keeping(name, out, format, colours, KEPT_SCOPES)
}

/// [`spawn`], keeping at most `kept_scopes` scopes written within a batch.
fn spawn_keeping(
    name: &str,
    out: impl Write + Send + 'static,
    format: LogFormat,
    colours: bool,
    kept_scopes: usize,
) -> std::io::Result<(LogLayer, BatchWriter, WriterThread)> {
    let lines = AccessLines {
        lines: LineFormat { format, colours },
        scopes: Scopes::keeping(kept_scopes),
        clocks: None,
    };
    let (writer, thread) = BatchWriter::spawn(name, out, lines)?;
    let layer = LogLayer::new(writer.clone(), format, colours).with_requests(current_request);
    Ok((layer, writer, thread))
}

/// The writer thread's side of the access lines: their format, and the scopes of the spans
/// the requests began in, each written once for many lines (see [`Scopes`]).
struct AccessLines {
    lines: LineFormat,
    scopes: Scopes,
    /// The monotonic clock and the system clock (since the Unix epoch; `None` before it) read
    /// together, once a batch, when its first record is written: each record's end, read
    /// from the monotonic clock alone, is a time of day from them.
    clocks: Option<(Instant, Option<Duration>)>,
}

impl AccessLines {
    /// The time of day at `ended`, a time the monotonic clock read in this batch or before,
    /// since the Unix epoch; `None` when the system clock reads a time before it.
    fn time_of_day(&mut self, ended: Instant) -> Option<Duration> {
        let (instant, system) = *self.clocks.get_or_insert_with(|| {
            let instant = Instant::now();
            (instant, SystemTime::now().duration_since(UNIX_EPOCH).ok())
        });
        match instant.checked_duration_since(ended) {
            Some(before) => system?.checked_sub(before),
            None => system?.checked_add(ended.duration_since(instant)),
        }
    }
}

impl RecordLines for AccessLines {
    /// Appends the access line of `record`, a request that has ended, to `line`: in the
    /// scope of the span the request began in, stamped with the time it ended.
    fn write(&mut self, record: &AccessRecord, line: &mut String) {
        let request = Request::new(Cow::Borrowed(record));
        // `None` for a system clock before 1970: the time the line is written then, as
        // the formatter that handles such a clock writes it.
        let time = self.time_of_day(record.ended);
        let fields = Fields::default();
        let parts = Line {
            time,
            level: Level::INFO,
            target: TARGET,
            message: "close",
            fields: &fields,
        };
        let Some(id) = &request.parent else {
            return self
                .lines
                .write(line, &parts, Spans::<Registry>::Written("", &request));
        };
        let now = self
            .clocks
            .map_or_else(Instant::now, |(instant, _)| instant);
        let scope = self.scopes.of(&self.lines, record, id, now);
        let spans = Spans::<Registry>::Written(scope, &request);
        self.lines.write(line, &parts, spans);
    }

    fn batch_written(&mut self) {
        self.scopes.batch_written();
        self.clocks = None;
    }
}

impl AccessLog for LogLayer {
    fn write(&self, record: Box<AccessRecord>) -> Option<Box<AccessRecord>> {
        self.writer().push_record(record)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::Value;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::cli::log_writer::tests::Captured;
    use crate::server::{TraceContext, recycle_access};

    const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /// Waits, up to five seconds, until `captured` holds `count` lines.
    fn wait_for_lines(captured: &Captured, count: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while captured
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            < count
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The lines three requests on one thread give, in `format`, with each duration's digits
    /// taken out. The first, a finished round inside a connection span, is handed to the
    /// writer thread, which writes its line and lets go of its span; the connection has ended
    /// meanwhile, so its line follows. The second, a request begun in no span with few
    /// fields, gets the first's record back, emptied, for the third, the same request, to
    /// reuse. So: the first request's line, the connection's, the second's and the third's.
    fn lines(format: LogFormat) -> Vec<String> {
        let captured = Captured::default();
        let (layer, _, thread) =
            spawn("access-line-test", captured.clone(), format, false).unwrap();
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
            record.finish("input_required", None);
            let first: *const AccessRecord = &*record;
            assert!(layer.write(record).is_none());
            drop(entered);
            // The record holds the span until the writer thread is done with it.
            drop(connection);
            wait_for_lines(&captured, 2);
            let ping = || {
                let mut record =
                    AccessRecord::start("ping", "\"a\"", false, true, TraceContext::default());
                record.finish("complete", Some(-32601));
                record
            };
            let spare = layer.write(ping()).expect("the first record, given back");
            assert!(std::ptr::eq(&*spare, first));
            recycle_access(spare);
            let third = ping();
            assert!(std::ptr::eq(&*third, first), "the first record is reused");
            layer.write(third);
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
        assert_eq!(lines.len(), 4, "{text}");
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
        assert!(lines[3].ends_with(second), "{}", lines[3]);
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
        let reused: Value = serde_json::from_str(&lines[3]).unwrap();
        assert_eq!(reused["spans"], line["spans"]);
    }

    /// The lines of a legacy call that ran one round in process, inside a connection span,
    /// in `format`: the round's record handed over as the round ended, then the call's.
    fn round_lines(format: LogFormat) -> Vec<String> {
        let captured = Captured::default();
        let (layer, _, thread) =
            spawn("access-line-test", captured.clone(), format, false).unwrap();
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "stdio");
            let _entered = connection.enter();
            let trace = TraceContext {
                traceparent: Some(TRACEPARENT.into()),
                ..TraceContext::default()
            };
            let mut call = AccessRecord::start("tools/call", "2", true, true, trace);
            call.set_target("deploy", true);
            let mut round = call.clone();
            round.in_round = true;
            round.round = Some(2);
            round.shape = Some(0xab);
            round.flow = Some(0x0123_4567_89ab_cdef);
            round.from = Some(0);
            round.to = Some(1);
            round.answer = Some("decline");
            round.state_bytes = Some(300);
            round.ended = std::time::Instant::now();
            layer.write(round);
            call.finish("complete", None);
            layer.write(call);
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_rounds_line_reads_as_its_round_span_closing_inside_the_request() {
        let lines = round_lines(LogFormat::Human);
        assert_eq!(lines.len(), 3, "{lines:?}");
        let request = format!(
            r#"connection{{transport="stdio"}}:request{{method="tools/call" id="2" legacy=true target="deploy" traceparent="{TRACEPARENT}"}}"#
        );
        let round = format!(
            r#" INFO {request}:round{{round=2 shape="000000ab" flow="0123456789abcdef" from=0 to=1 answer="decline" state_bytes=300}}: mcp_runtime::server::trace: close"#
        );
        assert!(lines[0].ends_with(&round), "{}", lines[0]);
        let call = r#"request{method="tools/call" id="2" legacy=true target="deploy" outcome="complete" duration_us="#;
        assert!(lines[1].contains(call), "{}", lines[1]);
        assert!(!lines[1].contains("round"), "{}", lines[1]);
        assert!(
            lines[2].ends_with("close"),
            "the connection's: {}",
            lines[2]
        );
    }

    #[test]
    fn a_rounds_json_line_has_the_round_as_its_span_inside_the_request() {
        let lines = round_lines(LogFormat::Json);
        let line: Value = serde_json::from_str(&lines[0]).unwrap();
        let round = serde_json::json!({
            "round": 2, "shape": "000000ab", "flow": "0123456789abcdef", "from": 0, "to": 1,
            "answer": "decline", "state_bytes": 300, "name": "round",
        });
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["fields"], serde_json::json!({"message": "close"}));
        assert_eq!(line["target"], TARGET);
        assert_eq!(line["span"], round);
        assert_eq!(
            line["spans"],
            serde_json::json!([
                {"transport": "stdio", "name": "connection"},
                {"method": "tools/call", "id": "2", "legacy": true, "target": "deploy",
                    "traceparent": TRACEPARENT, "name": "request"},
                round,
            ])
        );
        let call: Value = serde_json::from_str(&lines[1]).unwrap();
        assert_eq!(call["span"]["name"], "request");
        assert_eq!(call["span"].get("round"), None, "{call}");
        assert_eq!(call["spans"].as_array().map(Vec::len), Some(2), "{call}");
    }

    /// The lines of requests begun in two connections' spans in turn, in `format`, handed
    /// over together (one batch, as a rule); then, once those are written and both spans
    /// have closed, of a request begun in a third connection's span, whose id may be one of
    /// theirs again. Only the request lines, each with its connection's peer and method.
    fn lines_of_connections(format: LogFormat, kept_scopes: usize) -> Vec<String> {
        let captured = Captured::default();
        let (layer, _, thread) = spawn_keeping(
            "access-line-test",
            captured.clone(),
            format,
            false,
            kept_scopes,
        )
        .unwrap();
        let subscriber = tracing_subscriber::registry().with(layer.clone());
        tracing::subscriber::with_default(subscriber, || {
            let request = |connection: &tracing::Span, method: &str| {
                let _entered = connection.enter();
                let mut record =
                    AccessRecord::start(method, "1", true, false, TraceContext::default());
                record.finish("complete", None);
                layer.write(record);
            };
            let first = tracing::info_span!("connection", transport = "http", peer = "one");
            let second = tracing::info_span!("connection", transport = "http", peer = "two");
            for method in ["a", "b", "c"] {
                request(&first, method);
                request(&second, method);
            }
            drop((first, second));
            wait_for_lines(&captured, 8);
            let third = tracing::info_span!("connection", transport = "http", peer = "three");
            request(&third, "d");
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter(|line| line.contains("mcp_runtime::server::trace"))
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn each_request_line_shows_the_connection_it_began_in() {
        let expected = [
            ("one", "a"),
            ("two", "a"),
            ("one", "b"),
            ("two", "b"),
            ("one", "c"),
            ("two", "c"),
            ("three", "d"),
        ];
        // Each connection's scope kept, or only the first's: the second's written anew.
        for kept_scopes in [KEPT_SCOPES, 1] {
            let lines = lines_of_connections(LogFormat::Human, kept_scopes);
            assert_eq!(lines.len(), expected.len(), "{lines:?}");
            for (line, (peer, method)) in lines.iter().zip(expected) {
                let scope = format!(
                    r#" INFO connection{{transport="http" peer="{peer}"}}:request{{method="{method}" id="1" legacy=false outcome="complete" duration_us="#
                );
                assert!(line.contains(&scope), "{line}");
            }
        }
        let lines = lines_of_connections(LogFormat::Json, 1);
        assert_eq!(lines.len(), expected.len(), "{lines:?}");
        for (line, (peer, method)) in lines.iter().zip(expected) {
            let line: Value = serde_json::from_str(line).unwrap();
            let connection =
                serde_json::json!({"transport": "http", "peer": peer, "name": "connection"});
            assert_eq!(line["spans"][0], connection, "{line}");
            assert_eq!(line["spans"][1], line["span"], "{line}");
            assert_eq!(line["span"]["method"], method, "{line}");
            assert_eq!(line["spans"].as_array().map(Vec::len), Some(2), "{line}");
        }
    }

    /// A record's end, read from the monotonic clock, is written as the time of day it was:
    /// one before the batch is written, and one after (the batch's clocks read before it).
    #[test]
    fn a_records_end_is_its_time_of_day() {
        let mut lines = AccessLines {
            lines: LineFormat {
                format: LogFormat::Human,
                colours: false,
            },
            scopes: Scopes::keeping(KEPT_SCOPES),
            clocks: None,
        };
        let ago = Duration::from_secs(5);
        let now = (
            Instant::now(),
            SystemTime::now().duration_since(UNIX_EPOCH).unwrap(),
        );
        let before = lines.time_of_day(now.0 - ago).unwrap();
        let off = |time: Duration, expected: Duration| time.abs_diff(expected);
        // The clocks are read a moment apart, here and in the batch: far less than a second.
        assert!(
            off(before, now.1 - ago) < Duration::from_secs(1),
            "{before:?}"
        );
        let after = lines.time_of_day(now.0 + ago).unwrap();
        assert!(
            off(after, now.1 + ago) < Duration::from_secs(1),
            "{after:?}"
        );
        // A later batch reads the clocks again.
        lines.batch_written();
        assert!(lines.clocks.is_none());
    }

    #[test]
    fn a_round_without_fields_shows_as_an_empty_round_span() {
        let captured = Captured::default();
        let (layer, _, thread) =
            spawn("access-line-test", captured.clone(), LogFormat::Json, false).unwrap();
        let mut round = AccessRecord::start("tools/call", "2", true, true, TraceContext::default());
        round.in_round = true;
        layer.write(round);
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        let line: Value = serde_json::from_str(text.trim_end()).unwrap();
        assert_eq!(line["span"], serde_json::json!({"name": "round"}), "{text}");
        assert_eq!(line["spans"][0]["name"], "request", "{text}");
    }

    #[test]
    fn lines_written_while_a_request_runs_show_it_after_the_span_it_began_in() {
        let captured = Captured::default();
        let (writer, thread) =
            BatchWriter::spawn("access-line-test", captured.clone(), |_: &_, _: &mut _| {})
                .unwrap();
        thread_local! {
            static PARENT: std::cell::RefCell<tracing::Span> =
                const { std::cell::RefCell::new(tracing::Span::none()) };
            static ROUND: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        let running = || {
            let mut record =
                AccessRecord::start("tools/call", "1", true, false, TraceContext::default());
            record.began_in(PARENT.with_borrow(Clone::clone));
            if ROUND.get() {
                record.legacy = true;
                record.in_round = true;
                record.round = Some(2);
                record.from = Some(1);
            }
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
            // A round of a legacy call on the request's record shows as a span inside it.
            ROUND.set(true);
            tracing::warn!("asked again");
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
        let second = text.lines().nth(1).unwrap_or_else(|| panic!("{text}"));
        assert!(
            second.ends_with(
                r#" WARN connection{transport="http"}:request{method="tools/call" id="1" legacy=true}:round{round=2 from=1}: mcp_runtime::cli::access_line::tests: asked again"#
            ),
            "{text}"
        );
    }
}
