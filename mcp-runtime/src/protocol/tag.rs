//! Zero-sized markers for the constant strings the schema pins (`"type": "string"`,
//! `"jsonrpc": "2.0"`, ...).
//!
//! A marker serialises as its one string and refuses every other value when parsed, so a
//! struct that holds one is self-describing on the wire while staying a plain struct with
//! public fields. Every marker implements [`Default`], so `..Default::default()` fills it in.

use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, Serializer};

macro_rules! const_tag {
    ($(#[$doc:meta])* $name:ident => $value:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The string this marker stands for on the wire.
            pub const VALUE: &'static str = $value;
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let found = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                if found == $value {
                    Ok($name)
                } else {
                    Err(D::Error::custom(format_args!(
                        "expected `{}`, found `{}`",
                        $value, found
                    )))
                }
            }
        }
    };
}

const_tag!(
    /// The constant `"string"` (the `type` of string, single-select and legacy enum schemas).
    StringTag => "string"
);
const_tag!(
    /// The constant `"boolean"` (the `type` of a boolean schema).
    BooleanTag => "boolean"
);
const_tag!(
    /// The constant `"array"` (the `type` of a multi-select schema).
    ArrayTag => "array"
);
const_tag!(
    /// The constant `"object"` (the `type` of a requested schema or a tool input schema).
    ObjectTag => "object"
);
const_tag!(
    /// The constant `"form"` (the `mode` of a form-mode elicitation).
    FormModeTag => "form"
);
const_tag!(
    /// The constant `"url"` (the `mode` of a URL-mode elicitation).
    UrlModeTag => "url"
);
const_tag!(
    /// The constant `"complete"` (the `resultType` of every final result).
    CompleteTag => "complete"
);
const_tag!(
    /// The constant `"input_required"` (the `resultType` of an input-required result).
    InputRequiredTag => "input_required"
);
const_tag!(
    /// The constant `"2.0"` (the `jsonrpc` member of every JSON-RPC message).
    JsonRpcVersion => "2.0"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_round_trips_and_rejects_other_strings() {
        assert_eq!(serde_json::to_string(&StringTag).unwrap(), "\"string\"");
        let parsed: StringTag = serde_json::from_str("\"string\"").unwrap();
        assert_eq!(parsed, StringTag);
        assert!(serde_json::from_str::<StringTag>("\"number\"").is_err());
        assert!(serde_json::from_str::<JsonRpcVersion>("\"1.0\"").is_err());
    }
}
