//! A span's or an event's fields as the log keeps them, typed, and how each format writes
//! them: quoted and escaped as `Debug` quotes a string in the human format, as `serde_json`
//! escapes one in JSON.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};

/// A span's or an event's fields, in the order recorded; a field recorded again replaces its
/// value.
#[derive(Default)]
pub(super) struct Fields(pub(super) Vec<(&'static str, FieldValue)>);

pub(super) enum FieldValue {
    Str(String),
    /// A string known when the program was built.
    Static(&'static str),
    /// A number written as a string of `.1` hexadecimal digits.
    Hex(u64, usize),
    /// A value written with `Debug` (or `Display`, for the message), unquoted.
    Text(String),
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
}

impl Fields {
    pub(super) fn set(&mut self, field: &Field, value: FieldValue) {
        let name = field.name();
        match self.0.iter_mut().find(|(known, _)| *known == name) {
            Some((_, old)) => *old = value,
            None => self.0.push((name, value)),
        }
    }

    /// The message an event carries, taken out of its fields.
    pub(super) fn take_message(&mut self) -> Option<String> {
        let at = self.0.iter().position(|(name, _)| *name == "message")?;
        match self.0.remove(at).1 {
            FieldValue::Str(text) | FieldValue::Text(text) => Some(text),
            FieldValue::Static(text) => Some(text.to_owned()),
            other => {
                let mut text = String::new();
                other.write_human(&mut text);
                Some(text)
            }
        }
    }

    pub(super) fn write_human(&self, out: &mut String) {
        for (at, (name, value)) in self.0.iter().enumerate() {
            if at > 0 {
                out.push(' ');
            }
            out.push_str(name);
            out.push('=');
            value.write_human(out);
        }
    }

    /// Writes the fields as the members of a JSON object, after `first` members already
    /// written; a field named `skip` is left out (the member the object writes itself).
    pub(super) fn write_json(&self, out: &mut String, mut first: bool, skip: &str) {
        for (name, value) in self.0.iter().filter(|(name, _)| *name != skip) {
            if !first {
                out.push(',');
            }
            first = false;
            json_string(out, name);
            out.push(':');
            match value {
                FieldValue::Str(text) | FieldValue::Text(text) => json_string(out, text),
                FieldValue::Static(text) => json_string(out, text),
                FieldValue::F64(n) if !n.is_finite() => out.push_str("null"),
                // `Debug` keeps the decimal point JSON readers expect of a float.
                FieldValue::F64(n) => {
                    let _ = write!(out, "{n:?}");
                }
                // Integers, booleans and quoted hexadecimal read alike in both formats.
                other => other.write_human(out),
            }
        }
    }
}

/// Writes `text` as a JSON string: quoted, with quotes, backslashes and control characters
/// escaped as `serde_json` escapes them.
pub(super) fn json_string(out: &mut String, text: &str) {
    out.push('"');
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c == '"' || c == '\\' || c < ' ') {
        out.push_str(&rest[..at]);
        let c = rest.as_bytes()[at];
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{c:04x}");
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
}

/// Writes `text` as `{text:?}` writes it. Text of printable ASCII with no quote or backslash,
/// as most is (client text comes escaped already), is copied as it is, with no `Formatter`
/// going through it a character at a time.
fn debug_string(out: &mut String, text: &str) -> std::fmt::Result {
    if text
        .bytes()
        .all(|b| matches!(b, b' '..=b'~') && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(text);
        out.push('"');
        Ok(())
    } else {
        write!(out, "{text:?}")
    }
}

impl FieldValue {
    /// Writes the value as the human format shows it: strings quoted and escaped, the rest
    /// as they print.
    fn write_human(&self, out: &mut String) {
        let _ = match self {
            Self::Str(text) => debug_string(out, text),
            Self::Static(text) => debug_string(out, text),
            Self::Hex(n, width) => write!(out, "\"{n:0width$x}\""),
            Self::Text(text) => {
                out.push_str(text);
                Ok(())
            }
            Self::I64(n) => write!(out, "{n}"),
            Self::U64(n) => write!(out, "{n}"),
            Self::F64(n) => write!(out, "{n}"),
            Self::Bool(b) => write!(out, "{b}"),
        };
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field, FieldValue::Str(value.to_owned()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field, FieldValue::I64(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.set(field, FieldValue::U64(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field, FieldValue::F64(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field, FieldValue::Bool(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.set(field, FieldValue::Text(format!("{value:?}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped_as_serde_json_escapes_them() {
        let text = "quote\" slash\\ line\n\r\t bell\u{7} nul\0 \u{8}\u{c} é /";
        let mut written = String::new();
        json_string(&mut written, text);
        assert_eq!(written, serde_json::to_string(text).unwrap());
    }

    #[test]
    fn strings_are_quoted_as_debug_quotes_them() {
        for text in [
            "deploy",
            "",
            "a \"quote\"",
            "back\\slash",
            "line\n",
            "é",
            "\u{7f}",
            "it's ~",
        ] {
            let mut written = String::new();
            let _ = debug_string(&mut written, text);
            assert_eq!(written, format!("{text:?}"));
        }
    }
}
