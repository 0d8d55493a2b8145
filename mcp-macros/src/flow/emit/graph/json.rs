//! The graph's JSON text, written straight into one string: compact, each object's keys in
//! the order of their bytes, strings escaped by `serde_json`, so the text is the one
//! `serde_json` would print for the same records (`Value`'s map sorts its keys). A
//! tree of `Value`s built to be printed once cost the macro more than the graph's walk.
//!
//! ```text
//! {"branch_exits":[0],"exits":[["try","load()"]],"points":[{"asks":[..],..}],..}
//! ```

use std::io::Write as _;

/// The text being written. Each object writes its keys in sorted order itself, through
/// [`Json::key`].
#[derive(Default)]
pub(super) struct Json(Vec<u8>);

impl Json {
    /// The text written.
    pub(super) fn finish(self) -> String {
        String::from_utf8(self.0).expect("JSON text is UTF-8")
    }

    /// `{`, before an object's first key.
    pub(super) fn open(&mut self) {
        self.0.push(b'{');
    }

    /// `}`, after an object's last value.
    pub(super) fn close(&mut self) {
        self.0.push(b'}');
    }

    /// `"name":`, after a `,` unless it is the object's first key.
    pub(super) fn key(&mut self, name: &str, first: bool) {
        if !first {
            self.0.push(b',');
        }
        self.str(name);
        self.0.push(b':');
    }

    /// `[`, before a list's first item written one by one.
    pub(super) fn open_list(&mut self) {
        self.0.push(b'[');
    }

    /// `,`, between two items of a list written one by one.
    pub(super) fn next(&mut self) {
        self.0.push(b',');
    }

    /// `]`, after a list's last item written one by one.
    pub(super) fn close_list(&mut self) {
        self.0.push(b']');
    }

    /// `[a,b,..]`, each item written by `each`.
    pub(super) fn list<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut each: impl FnMut(&mut Self, T),
    ) {
        self.0.push(b'[');
        for (n, item) in items.into_iter().enumerate() {
            if n > 0 {
                self.0.push(b',');
            }
            each(self, item);
        }
        self.0.push(b']');
    }

    pub(super) fn number(&mut self, n: u64) {
        _ = write!(self.0, "{n}");
    }

    pub(super) fn bool(&mut self, value: bool) {
        self.0
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    /// A string, or `null`.
    pub(super) fn maybe_str(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.str(text),
            None => self.0.extend_from_slice(b"null"),
        }
    }

    /// A string, escaped by `serde_json`.
    pub(super) fn str(&mut self, text: &str) {
        // Written into memory: it cannot fail.
        _ = serde_json::to_writer(&mut self.0, text);
    }
}

#[cfg(test)]
mod tests {
    use super::Json;

    /// Objects, lists, numbers, `null`s and booleans are written compactly, as `serde_json`
    /// writes a `Value` whose map holds the same keys.
    #[test]
    fn records_are_written_as_serde_json_writes_them() {
        let mut json = Json::default();
        json.open();
        json.key("a", true);
        json.list([0u64, 7, u64::from(u32::MAX)], |json, n| json.number(n));
        json.key("b", false);
        json.list([Some("x \"y\"\n"), None], |json, text| json.maybe_str(text));
        json.key("c", false);
        json.bool(false);
        json.key("d", false);
        json.list(Vec::<u64>::new(), |json, n| json.number(n));
        json.close();
        let expected = serde_json::json!({
            "d": [], "c": false, "b": ["x \"y\"\n", null], "a": [0, 7, u32::MAX],
        });
        assert_eq!(json.finish(), expected.to_string());
    }
}
