//! Client-chosen text as the request's record or span keeps it: escaped and cut, or kept as
//! it is when it reads the same so.

use std::borrow::Cow;

use crate::logfield::{SHOWN_CHARS, untrusted};

/// Client-chosen text as a span records it: escaped, cut, and a string.
pub(crate) fn escaped<'a>(text: impl Into<Cow<'a, str>>) -> String {
    let text = text.into();
    if plain(&text) {
        // Owned text is kept as it is; borrowed text is copied once.
        return text.into_owned();
    }
    untrusted(&text).to_string()
}

/// Client-chosen text escaped and cut, as [`escaped`] writes it, borrowed when it is plain;
/// and whether it is verbatim: plain with no quote, which both log formats write between
/// quotes as it is. One pass over the text tells both.
#[cfg(feature = "cli")]
pub(super) fn escaped_text(text: &str) -> (Cow<'_, str>, bool) {
    match scan(text) {
        (true, quote) => (Cow::Borrowed(text), !quote),
        (false, _) => (Cow::Owned(untrusted(text).to_string()), false),
    }
}

/// Whether `text` reads the same escaped and cut: printable ASCII with no backslash, too
/// short to be cut. Method names, ids and most targets are, and are then copied as they are.
fn plain(text: &str) -> bool {
    scan(text).0
}

/// One pass over client text: whether it is [`plain`], and whether it holds a quote.
fn scan(text: &str) -> (bool, bool) {
    // A table look-up and an `or` a byte: the tests of each byte against the ranges, written
    // out, took twice the instructions on a method's or a tool's name.
    let seen = text
        .bytes()
        .fold(0, |seen, b| seen | CLASSES[usize::from(b)]);
    (
        seen & ESCAPED == 0 && text.len() <= SHOWN_CHARS,
        seen & QUOTE != 0,
    )
}

/// A byte's class in [`CLASSES`]: not printable ASCII, or a backslash.
const ESCAPED: u8 = 1;
/// A byte's class in [`CLASSES`]: a quote.
const QUOTE: u8 = 2;

/// Each byte's class, for [`scan`].
static CLASSES: [u8; 256] = {
    let mut classes = [0; 256];
    let mut b = 0;
    while b < 256 {
        classes[b] = match b as u8 {
            b'\\' => ESCAPED,
            b'"' => QUOTE,
            b' '..=b'~' => 0,
            _ => ESCAPED,
        };
        b += 1;
    }
    classes
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_kept_and_the_rest_escaped_as_untrusted_text_is() {
        let long = "a".repeat(SHOWN_CHARS + 1);
        for text in [
            "tools/call",
            "\"7\"",
            "back\\slash",
            "line\n",
            "é",
            &long,
            &long[1..],
        ] {
            let expected = untrusted(text).to_string();
            assert_eq!(escaped(text), expected, "{text}");
            assert_eq!(escaped(text.to_owned()), expected, "{text}");
            #[cfg(feature = "cli")]
            {
                // Verbatim: nothing `Debug` or JSON would escape.
                let (written, verbatim) = escaped_text(text);
                assert_eq!(written, expected, "{text}");
                let quoted = serde_json::to_string(&expected).unwrap();
                assert!(
                    !verbatim
                        || (quoted[1..quoted.len() - 1] == expected
                            && format!("{expected:?}") == quoted),
                    "{text}"
                );
            }
        }
        #[cfg(feature = "cli")]
        for (text, verbatim) in [("tools/call", true), ("\"7\"", false), ("a b~", true)] {
            assert_eq!(escaped_text(text).1, verbatim, "{text}");
        }
    }

    /// Each byte's class, against the ranges it stands for.
    #[test]
    fn each_byte_is_classed_as_the_ranges_say() {
        for b in 0..=u8::MAX {
            let text = [b];
            let Ok(text) = std::str::from_utf8(&text) else {
                // A byte of a longer character: never printable ASCII.
                assert_eq!(CLASSES[usize::from(b)], ESCAPED, "{b}");
                continue;
            };
            let printable = matches!(b, b' '..=b'~') && b != b'\\';
            assert_eq!(scan(text), (printable, b == b'"'), "{b}");
        }
    }
}
