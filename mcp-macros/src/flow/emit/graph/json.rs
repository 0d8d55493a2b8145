//! The graph's JSON text, written straight into one string: compact, each object's keys in
//! the order of their bytes, strings escaped as `serde_json` escapes them, so the text is
//! the one `serde_json` would print for the same records (`Value`'s map sorts its keys). A
//! tree of `Value`s built to be printed once cost the macro more than the graph's walk.
//!
//! ```text
//! {"branch_exits":[0],"exits":[["try","load()"]],"points":[{"asks":[..],..}],..}
//! ```

use std::fmt::Write;

/// The text being written. Each object writes its keys in sorted order itself, through
/// [`Json::key`].
#[derive(Default)]
pub(super) struct Json(String);

impl Json {
    /// The text written.
    pub(super) fn finish(self) -> String {
        self.0
    }

    /// `{`, before an object's first key.
    pub(super) fn open(&mut self) {
        self.0.push('{');
    }

    /// `}`, after an object's last value.
    pub(super) fn close(&mut self) {
        self.0.push('}');
    }

    /// `"name":`, after a `,` unless it is the object's first key.
    pub(super) fn key(&mut self, name: &str, first: bool) {
        if !first {
            self.0.push(',');
        }
        self.str(name);
        self.0.push(':');
    }

    /// `[`, before a list's first item written one by one.
    pub(super) fn open_list(&mut self) {
        self.0.push('[');
    }

    /// `,`, between two items of a list written one by one.
    pub(super) fn next(&mut self) {
        self.0.push(',');
    }

    /// `]`, after a list's last item written one by one.
    pub(super) fn close_list(&mut self) {
        self.0.push(']');
    }

    /// `[a,b,..]`, each item written by `each`.
    pub(super) fn list<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut each: impl FnMut(&mut Self, T),
    ) {
        self.0.push('[');
        for (n, item) in items.into_iter().enumerate() {
            if n > 0 {
                self.0.push(',');
            }
            each(self, item);
        }
        self.0.push(']');
    }

    pub(super) fn number(&mut self, n: u64) {
        _ = write!(self.0, "{n}");
    }

    pub(super) fn bool(&mut self, value: bool) {
        self.0.push_str(if value { "true" } else { "false" });
    }

    /// A string, or `null`.
    pub(super) fn maybe_str(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.str(text),
            None => self.0.push_str("null"),
        }
    }

    /// A string: `"` and `\` escaped, and each control character below U+0020 as `\b`, `\t`,
    /// `\n`, `\f`, `\r` or `\u00xx`; everything else as it is.
    pub(super) fn str(&mut self, text: &str) {
        self.0.push('"');
        let mut plain = 0;
        for (at, byte) in text.bytes().enumerate() {
            let escaped = match byte {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\x08' => "\\b",
                b'\t' => "\\t",
                b'\n' => "\\n",
                b'\x0c' => "\\f",
                b'\r' => "\\r",
                0..=0x1f => "",
                _ => continue,
            };
            self.0.push_str(&text[plain..at]);
            plain = at + 1;
            if escaped.is_empty() {
                _ = write!(self.0, "\\u{byte:04x}");
            } else {
                self.0.push_str(escaped);
            }
        }
        self.0.push_str(&text[plain..]);
        self.0.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    /// Every string comes out as `serde_json` prints it: the characters it escapes, and those
    /// it leaves, alone and among others.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0..=0x80u32)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b{c}"))
            .collect();
        texts.extend(
            [
                "",
                "format!(\"Where should {} go?\", args.service)",
                "C:\\path\\\"quoted\"\n\ttab",
                "é … \u{2028} \u{7f} 😀",
            ]
            .map(str::to_owned),
        );
        for text in texts {
            let mut json = Json::default();
            json.str(&text);
            let expected = serde_json::to_string(&text).expect("a string prints");
            assert_eq!(json.finish(), expected, "{text:?}");
        }
    }

    /// Objects, lists, numbers, `null`s and booleans are written compactly, as `serde_json`
    /// writes a `Value` whose map holds the same keys.
    #[test]
    fn records_are_written_as_serde_json_writes_them() {
        let mut json = Json::default();
        json.open();
        json.key("a", true);
        json.list([0u64, 7, u64::from(u32::MAX)], |json, n| json.number(n));
        json.key("b", false);
        json.list([Some("x"), None], |json, text| json.maybe_str(text));
        json.key("c", false);
        json.bool(false);
        json.key("d", false);
        json.list(Vec::<u64>::new(), |json, n| json.number(n));
        json.close();
        let expected = serde_json::json!({
            "d": [], "c": false, "b": ["x", null], "a": [0, 7, u32::MAX],
        });
        assert_eq!(json.finish(), expected.to_string());
    }
}
