//! JSON strings written by hand: the few texts a server writes most (a result's text, a
//! question's key and message, a log line's fields) are checked for bytes to escape many at a
//! time and copied between quotes, where serde looks each byte up as it copies.

/// Appends `text`, a string that needs no escaping (a protocol constant: a tag, a method
/// name), as a JSON string, without scanning it for characters to escape.
pub(crate) fn push_clean(out: &mut Vec<u8>, text: &str) {
    debug_assert!(!escapes(text), "{text:?} needs escaping");
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
}

/// Appends `text` as a JSON string, the bytes serde writes for it. Serde looks each byte up
/// in its table of escapes as it copies; a text with none of the bytes it escapes, as nearly
/// every one a server writes, is checked for them with wide compares instead (see
/// [`escapes`]), then copied between quotes. Any other goes through serde.
pub(crate) fn push_text(out: &mut Vec<u8>, text: &str) {
    if escapes(text) {
        // Writing into memory cannot fail.
        let _ = serde_json::to_writer(&mut *out, text);
    } else {
        push_clean(out, text);
    }
}

/// Whether `text` holds a byte that a JSON string escapes: a control character, a quote or
/// a backslash. Looked at [`LANES`] bytes at a time, each chunk with a few wide compares (the
/// last, shorter one padded with spaces), where a byte at a time costs several instructions
/// a byte, as do the texts of a few dozen bytes a server writes most.
pub(crate) fn escapes(text: &str) -> bool {
    let mut chunks = text.as_bytes().chunks_exact(LANES);
    for chunk in chunks.by_ref() {
        if lanes_escape(chunk.try_into().expect("a whole chunk")) {
            return true;
        }
    }
    let rest = chunks.remainder();
    let mut last = [b' '; LANES];
    last[..rest.len()].copy_from_slice(rest);
    lanes_escape(&last)
}

/// The bytes [`escapes`] checks at once: one SSE2 register.
const LANES: usize = 16;

/// Whether a chunk holds a byte that a JSON string escapes. Every byte is looked at, with no
/// early exit, so that the compiler checks them together.
fn lanes_escape(lanes: &[u8; LANES]) -> bool {
    lanes.iter().fold(false, |found, &byte| {
        found | (byte < 0x20) | (byte == b'"') | (byte == b'\\')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte serde escapes, at either end and inside texts shorter and longer than the
    /// widest compare, and texts it leaves as they are (DEL, non-ASCII): written as serde
    /// writes them.
    #[test]
    fn a_text_is_written_as_serde_writes_it() {
        let mut texts = vec![
            String::new(),
            "Deployment confirmed.".to_owned(),
            "\u{7f} é ☃ \u{1f600} / <>&'".to_owned(),
            "x".repeat(5000),
        ];
        let escaped = (0u8..0x20).chain([b'"', b'\\']).map(char::from);
        for escaped in escaped {
            for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 100] {
                let plain = "a".repeat(len);
                texts.push(format!("{escaped}{plain}"));
                texts.push(format!("{plain}{escaped}"));
                texts.push(format!("{plain}{escaped}{plain}"));
            }
        }
        for text in texts {
            let mut out = b"[".to_vec();
            push_text(&mut out, &text);
            let mut expected = b"[".to_vec();
            serde_json::to_writer(&mut expected, &text).unwrap();
            assert_eq!(out, expected, "{text:?}");
        }
    }
}
