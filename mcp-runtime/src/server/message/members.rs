//! The readers of the members of a message that are read into less than a value: a member's
//! name, `jsonrpc` and `method`.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::Value;

use super::{MethodMember, Origin};

/// A member's name, compared without being copied.
pub(super) enum Key {
    Id,
    Jsonrpc,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a member name")
            }

            fn visit_str<E>(self, name: &str) -> Result<Key, E> {
                Ok(match name {
                    "id" => Key::Id,
                    "jsonrpc" => Key::Jsonrpc,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "result" => Key::Result,
                    "error" => Key::Error,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Whether a `jsonrpc` member is the string `"2.0"`; any other value is read and refused.
pub(super) struct Version(pub(super) bool);

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VersionVisitor;
        impl<'de> Visitor<'de> for VersionVisitor {
            type Value = Version;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a JSON value")
            }

            fn visit_str<E>(self, version: &str) -> Result<Version, E> {
                Ok(Version(version == "2.0"))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Version, A::Error> {
                while map.next_entry::<IgnoredAny, Value>()?.is_some() {}
                Ok(Version(false))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Version, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(Version(false))
            }

            fn visit_bool<E>(self, _: bool) -> Result<Version, E> {
                Ok(Version(false))
            }

            fn visit_i64<E>(self, _: i64) -> Result<Version, E> {
                Ok(Version(false))
            }

            fn visit_u64<E>(self, _: u64) -> Result<Version, E> {
                Ok(Version(false))
            }

            fn visit_f64<E>(self, _: f64) -> Result<Version, E> {
                Ok(Version(false))
            }

            fn visit_unit<E>(self) -> Result<Version, E> {
                Ok(Version(false))
            }
        }
        deserializer.deserialize_any(VersionVisitor)
    }
}

/// Reads a `method` member, a name borrowed from the text read borrowed from the message.
impl<'de, 'a> DeserializeSeed<'de> for Origin<'a> {
    type Value = MethodMember<'a>;

    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<MethodMember<'a>, D::Error> {
        struct MethodVisitor<'a>(Origin<'a>);
        impl<'de, 'a> Visitor<'de> for MethodVisitor<'a> {
            type Value = MethodMember<'a>;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a JSON value")
            }

            fn visit_borrowed_str<E>(self, method: &'de str) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::Name(self.0.borrowed(method)))
            }

            fn visit_str<E>(self, method: &str) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::Name(Cow::Owned(method.to_owned())))
            }

            fn visit_string<E>(self, method: String) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::Name(Cow::Owned(method)))
            }

            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<MethodMember<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, Value>()?.is_some() {}
                Ok(MethodMember::NotAString)
            }

            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<MethodMember<'a>, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(MethodMember::NotAString)
            }

            fn visit_bool<E>(self, _: bool) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_i64<E>(self, _: i64) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_u64<E>(self, _: u64) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_f64<E>(self, _: f64) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_unit<E>(self) -> Result<MethodMember<'a>, E> {
                Ok(MethodMember::NotAString)
            }
        }
        deserializer.deserialize_any(MethodVisitor(self))
    }
}
