//! The log's formatter: a `tracing` layer that writes a line per event and per closing span,
//! in the human format or as JSON lines.
//!
//! A span keeps its fields as typed values (recorded into a [`Fields`] in its extensions) and
//! is formatted once, when a line needs it. `tracing-subscriber`'s formatter formats a span's
//! fields again each time one is recorded, and in JSON parses and writes the whole object
//! again per field: with the eight fields a request records, that was most of the log's cost
//! (`benches/request_log.rs` measures it).
//!
//! ```text
//! 2026-12-04T23:14:16.854412Z  INFO connection{transport="http" peer=127.0.0.1:55020}:request{method="tools/call" id="7" legacy=false target="deploy" round=1 outcome="input_required"}: mcp_runtime::server::trace: close
//! {"timestamp":"2026-12-04T23:14:16.854412Z","level":"INFO","fields":{"message":"close"},"target":"mcp_runtime::server::trace","span":{"method":"tools/call",..,"name":"request"},"spans":[{"transport":"http",..,"name":"connection"},{..,"name":"request"}]}
//! ```

use std::cell::RefCell;

use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use super::LogFormat;
use super::log_fields::{Fields, json_string};
use super::log_request::Request;
use super::log_writer::BatchWriter;

/// Writes the log's lines to a [`BatchWriter`].
#[derive(Clone)]
pub(super) struct LogLayer {
    writer: BatchWriter,
    lines: LineFormat,
    /// The request this thread runs, if any, which lines show in their scope.
    current: fn() -> Option<Request<'static>>,
}

/// How lines are written: their format, and whether the human format is in colour.
#[derive(Clone, Copy)]
pub(super) struct LineFormat {
    pub(super) format: LogFormat,
    pub(super) colours: bool,
}

/// Where the server's request records come from, as a span's metadata says.
pub(super) const TARGET: &str = "mcp_runtime::server::trace";

/// Whether `metadata` is the server's `request` span, for which the access line stands: this
/// layer never records it.
fn is_request_span(metadata: &Metadata<'_>) -> bool {
    metadata.is_span() && metadata.name() == "request" && metadata.target() == TARGET
}

/// What one line says, whatever its format.
pub(super) struct Line<'a> {
    /// When the line's event happened, since the Unix epoch, for its timestamp: written
    /// straight into the line; `None` for now.
    pub(super) time: Option<std::time::Duration>,
    pub(super) level: Level,
    pub(super) target: &'a str,
    pub(super) message: &'a str,
    pub(super) fields: &'a Fields,
}

impl LogLayer {
    pub(super) fn new(writer: BatchWriter, format: LogFormat, colours: bool) -> Self {
        Self {
            writer,
            lines: LineFormat { format, colours },
            current: || None,
        }
    }

    /// Where the layer's lines go.
    pub(super) fn writer(&self) -> &BatchWriter {
        &self.writer
    }

    /// Shows `current()`, the request a thread runs, in the scope of the lines it writes.
    pub(super) fn with_requests(mut self, current: fn() -> Option<Request<'static>>) -> Self {
        self.current = current;
        self
    }

    /// Formats one line into the thread's buffer and hands it to the writer; `request`, the
    /// record of the request the line belongs to, shows as its `request` span.
    pub(super) fn write_line<S>(
        &self,
        level: Level,
        target: &str,
        message: &str,
        fields: &Fields,
        scope: Option<tracing_subscriber::registry::Scope<'_, S>>,
        request: Option<&Request<'_>>,
    ) where
        S: for<'a> LookupSpan<'a>,
    {
        thread_local! {
            static LINE: RefCell<String> = const { RefCell::new(String::new()) };
        }
        LINE.with_borrow_mut(|line| {
            line.clear();
            let parts = Line {
                time: None,
                level,
                target,
                message,
                fields,
            };
            self.lines.write(line, &parts, Spans::Live(scope, request));
            self.writer.push(line);
            if line.capacity() > 64 * 1024 {
                *line = String::new();
            }
        });
    }
}

impl LineFormat {
    /// Appends one line to `line`, with its newline, showing `spans` in its scope.
    pub(super) fn write<S>(&self, line: &mut String, parts: &Line<'_>, spans: Spans<'_, S>)
    where
        S: for<'a> LookupSpan<'a>,
    {
        match self.format {
            LogFormat::Human => self.human(line, parts, spans),
            LogFormat::Json => json(line, parts, spans),
        }
        line.push('\n');
    }

    /// Appends the spans of `scope`, from the root, to `out`, as a line in this format shows
    /// them before a request's: for [`Spans::Written`].
    pub(super) fn write_scope<S>(
        &self,
        out: &mut String,
        scope: tracing_subscriber::registry::Scope<'_, S>,
    ) where
        S: for<'a> LookupSpan<'a>,
    {
        shown_spans(Spans::Live(Some(scope), None), |shown| match self.format {
            LogFormat::Human => human_span(out, shown),
            LogFormat::Json => {
                if !out.is_empty() {
                    out.push(',');
                }
                json_span(out, shown);
            }
        });
    }

    fn human<S>(&self, line: &mut String, parts: &Line<'_>, spans: Spans<'_, S>)
    where
        S: for<'a> LookupSpan<'a>,
    {
        let level = parts.level;
        super::timestamp::write(line, parts.time);
        line.push(' ');
        let colour = match level {
            Level::ERROR => "\x1b[31m",
            Level::WARN => "\x1b[33m",
            Level::INFO => "\x1b[32m",
            Level::DEBUG => "\x1b[34m",
            Level::TRACE => "\x1b[35m",
        };
        // As `{level:>5}` writes it.
        let padded = match level {
            Level::ERROR => "ERROR",
            Level::WARN => " WARN",
            Level::INFO => " INFO",
            Level::DEBUG => "DEBUG",
            Level::TRACE => "TRACE",
        };
        if self.colours {
            line.push_str(colour);
            line.push_str(padded);
            line.push_str("\x1b[0m ");
        } else {
            line.push_str(padded);
            line.push(' ');
        }
        let any = spans.any();
        shown_spans(spans, |shown| human_span(line, shown));
        if any {
            line.push(' ');
        }
        line.push_str(parts.target);
        line.push_str(": ");
        line.push_str(parts.message);
        if !parts.fields.0.is_empty() {
            line.push(' ');
            parts.fields.write_human(line);
        }
    }
}

/// Writes a JSON line straight into `line`, in the order `tracing-subscriber`'s JSON format
/// uses, with no map built on the way.
fn json<S>(line: &mut String, parts: &Line<'_>, spans: Spans<'_, S>)
where
    S: for<'a> LookupSpan<'a>,
{
    // A time has nothing JSON escapes.
    line.push_str("{\"timestamp\":\"");
    super::timestamp::write(line, parts.time);
    line.push('"');
    line.push_str(",\"level\":");
    json_string(line, parts.level.as_str());
    line.push_str(",\"fields\":{\"message\":");
    json_string(line, parts.message);
    parts.fields.write_json(line, false, "message");
    line.push_str("},\"target\":");
    json_string(line, parts.target);
    if spans.any() {
        json_spans(line, spans);
    }
    line.push('}');
}

/// Writes the `span` and `spans` members of a JSON line into `line`. Each span's object is
/// written once, into a buffer the thread keeps, and the last one is copied to `span`.
fn json_spans<S>(line: &mut String, shown: Spans<'_, S>)
where
    S: for<'a> LookupSpan<'a>,
{
    thread_local! {
        static SPANS: RefCell<String> = const { RefCell::new(String::new()) };
    }
    SPANS.with_borrow_mut(|spans| {
        spans.clear();
        spans.push('[');
        let mut last = 0;
        shown_spans(shown, |shown| {
            if spans.len() > 1 {
                spans.push(',');
            }
            last = spans.len();
            json_span(spans, shown);
        });
        spans.push(']');
        if spans.len() > 2 {
            line.push_str(",\"span\":");
            line.push_str(&spans[last..spans.len() - 1]);
        }
        line.push_str(",\"spans\":");
        line.push_str(spans);
        if spans.capacity() > 64 * 1024 {
            *spans = String::new();
        }
    });
}

/// Writes `shown` as the human format shows a span in a line's scope: `name{fields}:`.
fn human_span(line: &mut String, shown: Shown<'_>) {
    match shown {
        Shown::Span(name, fields) => {
            line.push_str(name);
            line.push('{');
            if let Some(fields) = fields {
                fields.write_human(line);
            }
        }
        Shown::Written(spans) => {
            line.push_str(spans);
            return;
        }
        Shown::Request(request) => {
            line.push_str("request{");
            request.write_human(line);
        }
        Shown::Round(request) => {
            line.push_str("round{");
            request.write_round_human(line);
        }
    }
    line.push_str("}:");
}

/// Writes `shown` as a JSON object of the `spans` list: its fields, then its `name`.
fn json_span(spans: &mut String, shown: Shown<'_>) {
    let name = match shown {
        Shown::Written(written) => {
            spans.push_str(written);
            return;
        }
        Shown::Span(name, recorded) => {
            spans.push('{');
            if let Some(recorded) = recorded {
                recorded.write_json(spans, true, "name");
                if recorded.0.iter().any(|(field, _)| *field != "name") {
                    spans.push(',');
                }
            }
            name
        }
        Shown::Request(request) => {
            spans.push('{');
            request.write_json(spans);
            spans.push(',');
            "request"
        }
        Shown::Round(request) => {
            spans.push('{');
            if request.write_round_json(spans) {
                spans.push(',');
            }
            "round"
        }
    };
    spans.push_str("\"name\":");
    json_string(spans, name);
    spans.push('}');
}

/// A span a line shows in its scope.
pub(super) enum Shown<'a> {
    /// A `tracing` span: its name, and its fields if it has any.
    Span(&'a str, Option<&'a Fields>),
    /// Spans written already in the line's format, one after the other, as [`human_span`] or
    /// [`json_span`] (separated by commas) write them, from the root; never a line's last.
    Written(&'a str),
    /// The request the line belongs to.
    Request(&'a Request<'a>),
    /// The round of a legacy call the request runs in process, as the span `round`.
    Round(&'a Request<'a>),
}

/// The spans a line shows in its scope.
pub(super) enum Spans<'a, S> {
    /// Those of a `tracing` scope, if any, and the request the line belongs to, if any,
    /// right after the span it began in (first, when it began in none; last, when that span
    /// is not in the scope).
    Live(
        Option<tracing_subscriber::registry::Scope<'a, S>>,
        Option<&'a Request<'a>>,
    ),
    /// Spans written already in the line's format ([`Shown::Written`]; empty for none), then
    /// the request the line belongs to.
    Written(&'a str, &'a Request<'a>),
}

impl<S> Spans<'_, S> {
    /// Whether the line shows any span.
    fn any(&self) -> bool {
        match self {
            Self::Live(scope, request) => scope.is_some() || request.is_some(),
            Self::Written(..) => true,
        }
    }
}

/// Calls `show` with each span of `spans`, from the root, each request followed by its round
/// when one runs.
pub(super) fn shown_spans<S>(spans: Spans<'_, S>, mut show: impl FnMut(Shown<'_>))
where
    S: for<'a> LookupSpan<'a>,
{
    let (scope, request) = match spans {
        Spans::Live(scope, request) => (scope, request),
        Spans::Written(written, request) => {
            if !written.is_empty() {
                show(Shown::Written(written));
            }
            show_request(request, &mut show);
            return;
        }
    };
    let mut pending = request;
    if let Some(request) = pending.filter(|request| request.parent.is_none()) {
        show_request(request, &mut show);
        pending = None;
    }
    if let Some(scope) = scope {
        from_root(scope, &mut |span| {
            show(Shown::Span(span.name(), span.extensions().get::<Fields>()));
            if let Some(request) = pending.filter(|request| request.follows(&span.id())) {
                show_request(request, &mut show);
                pending = None;
            }
        });
    }
    if let Some(request) = pending {
        show_request(request, &mut show);
    }
}

/// Calls `show` with `request`, and with its round when one runs.
fn show_request(request: &Request<'_>, show: &mut impl FnMut(Shown<'_>)) {
    show(Shown::Request(request));
    if request.in_round() {
        show(Shown::Round(request));
    }
}

/// Calls `show` with each span of `scope`, from the root. `Scope::from_root` would gather
/// them in a list of sixteen places first, copied as it is returned.
fn from_root<S>(
    mut scope: tracing_subscriber::registry::Scope<'_, S>,
    show: &mut impl FnMut(tracing_subscriber::registry::SpanRef<'_, S>),
) where
    S: for<'a> LookupSpan<'a>,
{
    if let Some(span) = scope.next() {
        from_root(scope, show);
        show(span);
    }
}

impl<S> tracing_subscriber::Layer<S> for LogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if is_request_span(metadata) {
            Interest::never()
        } else {
            Interest::always()
        }
    }

    fn enabled(&self, metadata: &Metadata<'_>, _: Context<'_, S>) -> bool {
        !is_request_span(metadata)
    }

    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
        let Some(span) = context.span(id) else { return };
        let mut fields = Fields::default();
        attributes.record(&mut fields);
        span.extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: Context<'_, S>) {
        let Some(span) = context.span(id) else { return };
        if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
            values.record(fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, context: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let message = fields.take_message().unwrap_or_default();
        let metadata = event.metadata();
        let scope = context.event_scope(event);
        let request = (self.current)();
        self.write_line(
            *metadata.level(),
            metadata.target(),
            &message,
            &fields,
            scope,
            request.as_ref(),
        );
    }

    fn on_close(&self, id: Id, context: Context<'_, S>) {
        let Some(span) = context.span(&id) else {
            return;
        };
        let metadata = span.metadata();
        let scope = span.scope();
        let request = (self.current)();
        self.write_line(
            *metadata.level(),
            metadata.target(),
            "close",
            &Fields::default(),
            Some(scope),
            request.as_ref(),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::Value;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::cli::log_writer::tests::Captured;

    /// The lines a request span and an event in it give, in `format`.
    fn lines(format: LogFormat) -> Vec<String> {
        let captured = Captured::default();
        let (writer, thread) =
            BatchWriter::spawn("log-layer-test", captured.clone(), |_: &_, _: &mut _| {}).unwrap();
        let subscriber = tracing_subscriber::registry().with(LogLayer::new(writer, format, false));
        tracing::subscriber::with_default(subscriber, || {
            let connection = tracing::info_span!("connection", transport = "http");
            let _connection = connection.enter();
            let request = tracing::info_span!(
                "request",
                method = "tools/call",
                target = tracing::field::Empty,
                round = tracing::field::Empty
            );
            let entered = request.enter();
            request.record("target", "evil\" outcome=\"complete");
            request.record("round", 2_u64);
            request.record("round", 3_u64);
            tracing::warn!(code = -32602, "refused");
            drop(entered);
            drop(request);
        });
        thread.finish(Duration::from_secs(5));
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn human_lines_carry_the_scope_with_each_field_once_and_client_text_quoted() {
        let lines = lines(LogFormat::Human);
        assert_eq!(lines.len(), 3, "{lines:?}");
        let scope = r#"connection{transport="http"}:request{method="tools/call" target="evil\" outcome=\"complete" round=3}:"#;
        assert!(lines[0].contains(" WARN "), "{}", lines[0]);
        assert!(
            lines[0].ends_with(&format!(
                "{scope} mcp_runtime::cli::log_layer::tests: refused code=-32602"
            )),
            "{}",
            lines[0]
        );
        assert!(lines[1].contains(" INFO "), "{}", lines[1]);
        assert!(
            lines[1].ends_with(&format!(
                "{scope} mcp_runtime::cli::log_layer::tests: close"
            )),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].ends_with(
                r#" INFO connection{transport="http"}: mcp_runtime::cli::log_layer::tests: close"#
            ),
            "{}",
            lines[2]
        );
    }

    #[test]
    fn json_lines_are_objects_with_the_span_and_its_scope() {
        let lines = lines(LogFormat::Json);
        let parsed: Vec<Value> = lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[0]["level"], "WARN");
        assert_eq!(parsed[0]["fields"]["message"], "refused");
        assert_eq!(parsed[0]["fields"]["code"], -32602);
        let request = serde_json::json!({
            "name": "request", "method": "tools/call",
            "target": "evil\" outcome=\"complete", "round": 3,
        });
        assert_eq!(parsed[1]["fields"]["message"], "close");
        assert_eq!(parsed[1]["span"], request);
        assert_eq!(
            parsed[1]["spans"],
            serde_json::json!([{"name": "connection", "transport": "http"}, request])
        );
        assert_eq!(parsed[2]["span"]["name"], "connection");
        assert!(parsed[1]["timestamp"].as_str().unwrap().ends_with('Z'));
    }
}
