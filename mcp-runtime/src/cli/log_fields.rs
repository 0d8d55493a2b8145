//! A span's or an event's fields as the log keeps them, typed, and how each format writes
//! them: quoted and escaped as `Debug` quotes a string in the human format, as `serde_json`
//! escapes one in JSON.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};

use crate::json_text::escapes;

/// A span's or an event's fields, in the order recorded; a field recorded again replaces its
/// value.
#[derive(Default)]
pub(super) struct Fields(pub(super) Vec<(&'static str, FieldValue)>);

pub(super) enum FieldValue {
    Str(String),
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
/// escaped as `serde_json` escapes them. Text with none of them, as nearly all is, is found
/// so by [`escapes`]'s wide compares and copied as it is.
pub(super) fn json_string(out: &mut String, text: &str) {
    out.push('"');
    if !escapes(text) {
        out.push_str(text);
        out.push('"');
        return;
    }
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
pub(super) fn debug_string(out: &mut String, text: &str) -> std::fmt::Result {
    // Without an early exit, which lets the compiler test many bytes at a time.
    let plain = text.bytes().fold(true, |plain, b| {
        plain & matches!(b, b' '..=b'~') & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.push('"');
        out.push_str(text);
        out.push('"');
        Ok(())
    } else {
        write!(out, "{text:?}")
    }
}

/// Lowercase hexadecimal digits.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Each byte's two hexadecimal digits, in order: `000102` to `ff`.
const PAIRS: &str = match std::str::from_utf8(&PAIR_BYTES) {
    Ok(pairs) => pairs,
    Err(_) => panic!("hexadecimal digits are ASCII"),
};

/// The bytes of [`PAIRS`].
const PAIR_BYTES: [u8; 512] = {
    let mut pairs = [0; 512];
    let mut byte = 0;
    while byte < 256 {
        pairs[2 * byte] = DIGITS[byte >> 4];
        pairs[2 * byte + 1] = DIGITS[byte & 0xf];
        byte += 1;
    }
    pairs
};

/// Writes `n` as `width` lowercase hexadecimal digits (at most 16), zero-padded, quoted: two
/// digits at a time, as a request's line has two such numbers.
pub(super) fn hex(out: &mut String, n: u64, width: usize) {
    // The digits `n` needs, from its leading zeros: `checked_ilog` is a loop, a digit a turn.
    let needed = ((67 - n.leading_zeros()) / 4).max(1) as usize;
    let width = width.clamp(needed, 16);
    out.push('"');
    if width % 2 == 1 {
        out.push(char::from(
            DIGITS[((n >> (4 * (width - 1))) & 0xf) as usize],
        ));
    }
    for at in (0..width / 2).rev() {
        let byte = ((n >> (8 * at)) & 0xff) as usize;
        out.push_str(&PAIRS[2 * byte..2 * byte + 2]);
    }
    out.push('"');
}

impl FieldValue {
    /// Writes the value as the human format shows it: strings quoted and escaped, the rest
    /// as they print.
    fn write_human(&self, out: &mut String) {
        let _ = match self {
            Self::Str(text) => debug_string(out, text),
            Self::Text(text) => {
                out.push_str(text);
                Ok(())
            }
            // Every request's line has several: `itoa` writes one in a tenth of what the
            // formatting machinery takes.
            Self::I64(n) => {
                out.push_str(itoa::Buffer::new().format(*n));
                Ok(())
            }
            Self::U64(n) => {
                out.push_str(itoa::Buffer::new().format(*n));
                Ok(())
            }
            Self::F64(n) => write!(out, "{n}"),
            Self::Bool(b) => {
                out.push_str(if *b { "true" } else { "false" });
                Ok(())
            }
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
        let escaped = "quote\" slash\\ line\n\r\t bell\u{7} nul\0 \u{8}\u{c} é /";
        for text in [
            escaped,
            "",
            "confirm_deploy",
            "plain é ☃ / past sixteen bytes",
        ] {
            let mut written = String::new();
            json_string(&mut written, text);
            assert_eq!(written, serde_json::to_string(text).unwrap());
        }
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

    #[test]
    fn numbers_and_flags_are_written_as_they_print() {
        let human = |value: FieldValue| {
            let mut written = String::new();
            value.write_human(&mut written);
            written
        };
        for n in [0, 7, -1, i64::MIN, i64::MAX] {
            assert_eq!(human(FieldValue::I64(n)), n.to_string());
        }
        for n in [0, 42, u64::MAX] {
            assert_eq!(human(FieldValue::U64(n)), n.to_string());
        }
        assert_eq!(human(FieldValue::Bool(true)), "true");
        assert_eq!(human(FieldValue::Bool(false)), "false");
        let hex_text = |n, width| {
            let mut written = String::new();
            hex(&mut written, n, width);
            written
        };
        for (n, width) in [
            (0, 8),
            (0xc9c1_713f, 8),
            (0xab, 8),
            (0xabc, 3),
            (0x1_2345, 2),
            (u64::MAX, 16),
            (1, 16),
            (0x0123_4567_89ab_cdef, 16),
            (0xfedc_ba98_7654_3210, 16),
            (0x9a9a_9a9a_9a9a_9a9a, 16),
            (0xa0f9_0a9f, 8),
            (0xf, 1),
            (0x9, 1),
        ] {
            assert_eq!(hex_text(n, width), format!("\"{n:0width$x}\""));
        }
        // A width too small for the number widens to hold it, as `format!` does.
        assert_eq!(hex_text(0x1234, 2), "\"1234\"");
    }
}
