//! Checks on the shape of JSON a client sends, made without building it: how deeply a
//! message nests, and whether an id is one the schema allows.

use serde_json::Value;

/// Whether `message` nests arrays and objects deeper than `limit` levels. One pass over the
/// bytes that allocates nothing, so a message built to make parsing expensive is refused for
/// the price of reading it; brackets inside strings do not count.
pub(crate) fn nests_deeper_than(message: &[u8], limit: usize) -> bool {
    NestingScan::default().exceeds(message, limit)
}

/// [`nests_deeper_than`] over a message that arrives in pieces: each call scans the next
/// piece, so a transport can refuse a message before the rest of it has arrived.
#[derive(Debug, Default)]
pub(crate) struct NestingScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl NestingScan {
    /// Scans the next piece; whether the message so far nests deeper than `limit`. Inside a
    /// string it jumps to the next quote or backslash, as nothing there can nest.
    pub(crate) fn exceeds(&mut self, piece: &[u8], limit: usize) -> bool {
        let mut rest = piece;
        loop {
            if self.in_string {
                if self.escaped {
                    let Some((_, after)) = rest.split_first() else {
                        return false;
                    };
                    self.escaped = false;
                    rest = after;
                }
                let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                    return false;
                };
                match rest[at] {
                    b'"' => self.in_string = false,
                    _ => self.escaped = true,
                }
                rest = &rest[at + 1..];
                continue;
            }
            // Outside strings: count brackets until the next string starts.
            let mut next = None;
            for (at, &byte) in rest.iter().enumerate() {
                match byte {
                    b'"' => {
                        next = Some(at + 1);
                        break;
                    }
                    b'[' | b'{' => {
                        self.depth += 1;
                        if self.depth > limit {
                            return true;
                        }
                    }
                    b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
            }
            let Some(next) = next else {
                return false;
            };
            self.in_string = true;
            rest = &rest[next..];
        }
    }
}

/// Whether `id` is a request id the schema allows, one that is echoed exactly: a string, or
/// an integer that fits 64 bits. `1.5`, `-0`, `1e3` and `18446744073709551616` (which would
/// come back changed) are refused.
pub(crate) fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_measured_outside_strings() {
        assert!(!nests_deeper_than(br#"{"a":[[1]]}"#, 3));
        assert!(nests_deeper_than(br#"{"a":[[[1]]]}"#, 3));
        assert!(!nests_deeper_than(br#"{"a":"[[[[[[\"[[[["}"#, 1));
        assert!(!nests_deeper_than(br#"[[]],[[]],[[]]"#, 2));
        let deep = "[".repeat(120) + &"]".repeat(120);
        assert!(nests_deeper_than(deep.as_bytes(), 36));
        // In pieces, split anywhere (inside a string, after an escape), it judges alike.
        let message = br#"{"a":"[[\"[[","b":[[[1]]]}"#;
        for split in 0..message.len() {
            let mut scan = NestingScan::default();
            let (head, tail) = message.split_at(split);
            let deeper = scan.exceeds(head, 3) || scan.exceeds(tail, 3);
            assert_eq!(deeper, nests_deeper_than(message, 3), "split at {split}");
        }
    }

    #[test]
    fn the_nesting_scan_ends_strings_only_at_unescaped_quotes() {
        // An escaped backslash ends its escape: the quote after it closes the string.
        assert!(nests_deeper_than(br#"{"a":"\\","b":[[[1]]]}"#, 3));
        assert!(!nests_deeper_than(br#"{"a":"\\\"[[[[","b":[1]}"#, 3));
        let long = format!(r#"{{"s":"{}","t":[[1]]}}"#, "[x\\\\".repeat(500));
        assert!(!nests_deeper_than(long.as_bytes(), 3));
        assert!(nests_deeper_than(long.as_bytes(), 2));
        let message = br#"{"a":"\\","b":"\"[[","c":[[[1]]]}"#;
        for split in 0..message.len() {
            let mut scan = NestingScan::default();
            let (head, tail) = message.split_at(split);
            assert!(
                scan.exceeds(head, 3) || scan.exceeds(tail, 3),
                "split at {split}"
            );
        }
    }
}
