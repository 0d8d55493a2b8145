//! A request's [`AccessRecord`] shown as its `request` span in the log's lines, and a round of
//! a legacy call running in process as a `round` span inside it: each field goes from the
//! record straight into the line, in either format, with no list of fields built on the way.

use std::borrow::Cow;
use std::cell::RefCell;

use tracing::span::Id;

use super::log_fields::{debug_string, hex, json_string};
use crate::server::AccessRecord;

/// A request's record, shown as its `request` span, a child of the span it began in.
pub(super) struct Request<'a> {
    record: Cow<'a, AccessRecord>,
    /// The span the request began in; `None` when it began in none.
    pub(super) parent: Option<Id>,
}

impl<'a> Request<'a> {
    /// Shows `record`, borrowed for its own line or a copy for a line written meanwhile.
    pub(super) fn new(record: Cow<'a, AccessRecord>) -> Self {
        let parent = record.parent.id();
        Self { record, parent }
    }

    /// Whether the request shows right after the span `id` in a line's scope.
    pub(super) fn follows(&self, id: &Id) -> bool {
        self.parent.as_ref() == Some(id)
    }

    /// Whether a round of the request's call runs, or the record is a round's: a `round`
    /// span then shows inside the request's, with the round's fields.
    pub(super) fn in_round(&self) -> bool {
        self.record.in_round
    }

    /// Writes the request's fields as the human format shows a span's.
    pub(super) fn write_human(&self, out: &mut String) {
        fields(&self.record, &mut Human(out));
    }

    /// Writes the request's fields as the members of a JSON object.
    pub(super) fn write_json(&self, out: &mut String) {
        fields(&self.record, &mut Json(out));
    }

    /// Writes the round's fields as the human format shows a span's.
    pub(super) fn write_round_human(&self, out: &mut String) {
        let start = out.len();
        round_fields(&self.record, &mut Human(out));
        unseparated(out, start);
    }

    /// Writes the round's fields as the members of a JSON object; says whether there were any.
    pub(super) fn write_round_json(&self, out: &mut String) -> bool {
        let start = out.len();
        round_fields(&self.record, &mut Json(out));
        unseparated(out, start)
    }
}

/// Takes off the separator before the first field written from `start` on, if any was: a
/// round's first field is whichever it knows. Says whether any was.
fn unseparated(out: &mut String, start: usize) -> bool {
    let any = out.len() > start;
    if any {
        out.remove(start);
    }
    any
}

/// A field's name as each format writes it before the value, after a separator (none for a
/// line's first field), and before a quoted value: each a constant, so that a field starts
/// with a copy of known length, which the compiler makes a few moves, not a call.
#[derive(Clone, Copy)]
struct Name {
    /// ` name=`.
    human: &'static str,
    /// ` name="`.
    human_quoted: &'static str,
    /// `,"name":`.
    json: &'static str,
    /// `,"name":"`.
    json_quoted: &'static str,
}

/// The [`Name`] of the field `$name`, after another field; `first` before it, for the field
/// that always comes first.
macro_rules! name {
    ($name:literal) => {
        Name {
            human: concat!(" ", $name, "="),
            human_quoted: concat!(" ", $name, "=\""),
            json: concat!(",\"", $name, "\":"),
            json_quoted: concat!(",\"", $name, "\":\""),
        }
    };
    (first $name:literal) => {
        Name {
            human: concat!($name, "="),
            human_quoted: concat!($name, "=\""),
            json: concat!("\"", $name, "\":"),
            json_quoted: concat!("\"", $name, "\":\""),
        }
    };
}

/// Where a request's fields are written, in one format.
trait Sink {
    /// Starts the field `name` (with its value's opening quote when `quoted`) and returns the
    /// line, for its value.
    fn name(&mut self, name: Name, quoted: bool) -> &mut String;
    /// Writes a string value, quoted and escaped as the format does.
    fn text(&mut self, name: Name, value: &str);

    /// Writes a value that reads alike in both formats: a number.
    fn bare(&mut self, name: Name, value: &str) {
        self.name(name, false).push_str(value);
    }

    /// Writes a boolean, which reads alike in both formats.
    fn flag(&mut self, name: Name, value: bool) {
        let out = self.name(name, false);
        // Two copies of known length rather than one of either.
        if value {
            out.push_str("true");
        } else {
            out.push_str("false");
        }
    }

    /// Writes a small count, which reads alike in both formats: one digit as a character.
    fn count(&mut self, name: Name, value: u32) {
        let out = self.name(name, false);
        match char::from_digit(value, 10) {
            Some(digit) => out.push(digit),
            None => out.push_str(itoa::Buffer::new().format(value)),
        }
    }

    /// Writes a string that both formats quote as it is: printable ASCII with no quote or
    /// backslash.
    fn verbatim(&mut self, name: Name, value: &str) {
        let out = self.name(name, true);
        out.push_str(value);
        out.push('"');
    }
}

/// The human format: `name="text" n=1`, as `Debug` quotes a string.
struct Human<'a>(&'a mut String);

impl Sink for Human<'_> {
    #[inline]
    fn name(&mut self, name: Name, quoted: bool) -> &mut String {
        self.0.push_str(if quoted {
            name.human_quoted
        } else {
            name.human
        });
        self.0
    }

    #[inline]
    fn text(&mut self, name: Name, value: &str) {
        let _ = debug_string(self.name(name, false), value);
    }
}

/// JSON members: `"name":"text","n":1`, as `serde_json` escapes a string.
struct Json<'a>(&'a mut String);

impl Sink for Json<'_> {
    #[inline]
    fn name(&mut self, name: Name, quoted: bool) -> &mut String {
        self.0
            .push_str(if quoted { name.json_quoted } else { name.json });
        self.0
    }

    #[inline]
    fn text(&mut self, name: Name, value: &str) {
        json_string(self.name(name, false), value);
    }
}

/// Writes `record`'s fields into `sink`, in the order the `request` span declares them; those
/// not known are left out, and those of a round, when a round shows apart.
fn fields<S: Sink>(record: &AccessRecord, sink: &mut S) {
    let mut digits = itoa::Buffer::new();
    // Client text, scanned when recorded.
    let verbatim = record.verbatim();
    let client = |sink: &mut S, name, value: &str| {
        if verbatim {
            sink.verbatim(name, value);
        } else {
            sink.text(name, value);
        }
    };
    client(sink, name!(first "method"), record.method());
    client(sink, name!("id"), record.id());
    sink.flag(name!("legacy"), record.legacy);
    if let Some(target) = record.target() {
        client(sink, name!("target"), target);
    }
    if !record.in_round {
        round_fields(record, sink);
    }
    if record.replayed {
        sink.flag(name!("replayed"), true);
    }
    if !record.outcome.is_empty() {
        sink.verbatim(name!("outcome"), record.outcome);
        let micros = record.duration().as_micros();
        sink.bare(
            name!("duration_us"),
            digits.format(u64::try_from(micros).unwrap_or(u64::MAX)),
        );
    }
    if let Some(code) = record.error_code {
        sink.bare(name!("error_code"), digits.format(code));
    }
    // Each on its own: a list of the three, names and all, was built for every line.
    let trace = &record.trace;
    if let Some(value) = &trace.traceparent {
        sink.text(name!("traceparent"), value);
    }
    if let Some(value) = &trace.tracestate {
        sink.text(name!("tracestate"), value);
    }
    if let Some(value) = &trace.baggage {
        sink.text(name!("baggage"), value);
    }
}

/// Writes the fields of `record`'s round into `sink`, in the order the `round` span (and the
/// `request` span) declares them; those not known are left out.
fn round_fields<S: Sink>(record: &AccessRecord, sink: &mut S) {
    let mut digits = itoa::Buffer::new();
    if let Some(round) = record.round {
        sink.count(name!("round"), round);
    }
    if let Some(shape) = record.shape {
        shape_text(sink.name(name!("shape"), false), shape);
    }
    if let Some(flow) = record.flow {
        hex(sink.name(name!("flow"), false), flow, 16);
    }
    if let Some(from) = record.from {
        sink.count(name!("from"), from);
    }
    if let Some(to) = record.to {
        sink.count(name!("to"), to);
    }
    if let Some(answer) = record.answer {
        sink.verbatim(name!("answer"), answer);
    }
    if let Some(bytes) = record.state_bytes {
        sink.bare(name!("state_bytes"), digits.format(bytes));
    }
}

/// Writes `shape` as eight quoted hexadecimal digits, as both formats write it. A server's
/// calls have few shapes, most often one a tool, and a round's line carries its own: the
/// text of the last one written on this thread is kept and copied when the next is the same
/// (about 25 instructions, where writing the digits takes about 120).
fn shape_text(out: &mut String, shape: u32) {
    thread_local! {
        static LAST: RefCell<(u32, String)> = const { RefCell::new((0, String::new())) };
    }
    LAST.with_borrow_mut(|(last, text)| {
        if *last != shape || text.is_empty() {
            *last = shape;
            text.clear();
            hex(text, u64::from(shape), 8);
        }
        out.push_str(text);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::TraceContext;

    /// A request's fields and its round's alone, in both formats, with counts of one digit
    /// and of several (written as a character, or by `itoa`).
    fn written(round: u32, from: u32, to: u32) -> [String; 4] {
        let mut record =
            AccessRecord::start("tools/call", "7", true, false, TraceContext::default());
        record.round = Some(round);
        record.from = Some(from);
        record.to = Some(to);
        record.replayed = true;
        let request = Request::new(Cow::Borrowed(&*record));
        let mut texts: [String; 4] = Default::default();
        request.write_human(&mut texts[0]);
        request.write_json(&mut texts[1]);
        request.write_round_human(&mut texts[2]);
        assert!(request.write_round_json(&mut texts[3]));
        texts
    }

    #[test]
    fn a_shape_reads_as_eight_hexadecimal_digits_whichever_came_before() {
        for shape in [0, 0xab, 0xab, 0xc9c1_713f, 0, u32::MAX, u32::MAX, 7] {
            let mut written = String::from("x");
            shape_text(&mut written, shape);
            assert_eq!(written, format!("x\"{shape:08x}\""));
        }
    }

    #[test]
    fn counts_of_any_width_and_flags_read_as_they_print() {
        for (round, from, to) in [(1, 0, 9), (10, 99, 4_294_967_295)] {
            let [human, json, round_human, round_json] = written(round, from, to);
            let round_text = format!("round={round} from={from} to={to}");
            assert_eq!(
                human,
                format!(r#"method="tools/call" id="7" legacy=false {round_text} replayed=true"#)
            );
            assert_eq!(
                json,
                format!(
                    r#""method":"tools/call","id":"7","legacy":false,"round":{round},"from":{from},"to":{to},"replayed":true"#
                )
            );
            assert_eq!(round_human, round_text);
            assert_eq!(
                round_json,
                format!(r#""round":{round},"from":{from},"to":{to}"#)
            );
        }
    }
}
