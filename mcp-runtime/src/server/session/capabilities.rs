//! What a session keeps of the capabilities its client declared at `initialize`.
//!
//! A session lives for hours and every call on it gets a copy of its capabilities, while
//! `initialize` may carry megabytes under `experimental`, `extensions` or keys no revision
//! defines. Capabilities of up to [`KEPT_WHOLE`] bytes of JSON are kept as declared, which
//! every client seen in practice sends. Larger ones are cut down to what the server and its
//! handlers can use: the standard capabilities with their sub-objects (each kept when at most
//! [`KEPT_OBJECT`] bytes, else emptied, which keeps the capability declared), and the names
//! of at most [`KEPT_NAMES`] extensions and experimental capabilities, their values kept on
//! the same terms. Unknown keys are dropped.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

use crate::protocol::{ClientCapabilities, JsonObject};

/// Capabilities kept as declared when their JSON takes at most this many bytes.
pub(crate) const KEPT_WHOLE: usize = 4 * 1024;
/// In larger capabilities, an object kept when its JSON takes at most this many bytes.
pub(crate) const KEPT_OBJECT: usize = 256;
/// In larger capabilities, the most extension (and experimental capability) names kept.
pub(crate) const KEPT_NAMES: usize = 16;
/// ... each of at most this many bytes.
const KEPT_NAME_LENGTH: usize = 128;

/// The capabilities a session keeps of those declared.
pub(super) fn bounded(mut capabilities: ClientCapabilities) -> ClientCapabilities {
    if json_length(&capabilities) <= KEPT_WHOLE {
        return capabilities;
    }
    capabilities.extra = JsonObject::new();
    if let Some(elicitation) = &mut capabilities.elicitation {
        elicitation.form = elicitation.form.take().map(small);
        elicitation.url = elicitation.url.take().map(small);
        elicitation.extra = JsonObject::new();
    }
    if let Some(sampling) = &mut capabilities.sampling {
        sampling.context = sampling.context.take().map(small);
        sampling.tools = sampling.tools.take().map(small);
        sampling.extra = JsonObject::new();
    }
    capabilities.roots = capabilities.roots.take().map(small);
    capabilities.experimental = capabilities.experimental.take().map(named);
    capabilities.extensions = capabilities.extensions.take().map(named);
    capabilities
}

/// `object` when small, else an empty object (the capability stays declared).
fn small(object: JsonObject) -> JsonObject {
    if json_length(&object) <= KEPT_OBJECT {
        object
    } else {
        JsonObject::new()
    }
}

fn named(entries: BTreeMap<String, JsonObject>) -> BTreeMap<String, JsonObject> {
    entries
        .into_iter()
        .filter(|(name, _)| name.len() <= KEPT_NAME_LENGTH)
        .take(KEPT_NAMES)
        .map(|(name, value)| (name, small(value)))
        .collect()
}

/// The length of `value`'s JSON, counted without writing it anywhere.
fn json_length(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail, and these types always serialise.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(value: serde_json::Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn ordinary_capabilities_are_kept_as_declared() {
        let declared = parse(json!({
            "elicitation": {"form": {}, "url": {}},
            "sampling": {"tools": {}},
            "roots": {"listChanged": true},
            "experimental": {"acme/trace": {"level": 2}},
            "custom": {"x": 1},
        }));
        assert_eq!(bounded(declared.clone()), declared);
    }

    #[test]
    fn large_capabilities_keep_the_standard_ones_and_a_few_names() {
        let blob = "x".repeat(100_000);
        let mut extensions = serde_json::Map::new();
        for index in 0..40 {
            extensions.insert(format!("ext/{index:02}"), json!({"blob": blob}));
        }
        extensions.insert("ext/small".into(), json!({"v": 1}));
        extensions.insert("n".repeat(200), json!({}));
        let declared = parse(json!({
            "elicitation": {"form": {}, "url": {"blob": blob}, "other": blob},
            "sampling": {"context": {}},
            "roots": {"listChanged": true},
            "extensions": extensions,
            "experimental": {"big": {"blob": blob}},
            "unknown": blob,
        }));
        let kept = bounded(declared);
        assert!(json_length(&kept) < KEPT_WHOLE, "{}", json_length(&kept));
        let kept = serde_json::to_value(&kept).unwrap();
        assert_eq!(kept["elicitation"], json!({"form": {}, "url": {}}));
        assert_eq!(kept["sampling"], json!({"context": {}}));
        assert_eq!(kept["roots"], json!({"listChanged": true}));
        assert_eq!(kept["experimental"], json!({"big": {}}));
        assert!(kept.get("unknown").is_none());
        let names = kept["extensions"].as_object().unwrap();
        assert_eq!(names.len(), KEPT_NAMES);
        assert!(names.keys().all(|name| name.len() <= KEPT_NAME_LENGTH));
        assert_eq!(names["ext/00"], json!({}));
    }
}
