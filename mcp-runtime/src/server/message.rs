//! The top level of a JSON-RPC message as it is read: the members routing needs, each as sent,
//! and nothing built for the rest.
//!
//! A message parsed into a `serde_json::Value` first is a map whose keys are all copied, and
//! whose members are then removed one by one. Read member by member instead, the message is
//! checked for the same JSON grammar (and the same nesting limit of the parser) in one pass,
//! and [`parse_envelope`](super::lifecycle::parse_envelope) applies its checks, in the same
//! order and with the same words, to what was kept. When `method` comes before `params`, as
//! clients write it, a call's `params` are read as a call reads them (see [`params`](super::params)).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::call_meta::CallMeta;
use super::params::{ParamsMember, ParamsSeed, Splice, target_key};

/// What a message is at its top level.
#[allow(
    clippy::large_enum_variant,
    reason = "one per message, on the stack and moved once: boxing it would cost an allocation"
)]
pub(crate) enum TopLevel<'a> {
    Object(Members<'a>),
    /// A batch, which is refused.
    Array,
    /// A string, a number, a boolean or `null`.
    Other,
}

/// The members of a message object that routing reads, each as sent. A member sent twice keeps
/// its last value, as a JSON object read into a map does.
#[derive(Default)]
pub(crate) struct Members<'a> {
    pub(crate) id: Option<Value>,
    /// Whether `jsonrpc` is the string `"2.0"`.
    pub(crate) version_2_0: bool,
    pub(crate) method: Option<MethodMember<'a>>,
    pub(crate) params: Option<ParamsMember>,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<Value>,
}

/// A `method` member: a string, borrowed from the message unless it holds escapes, or any
/// other value, read whole and refused.
pub(crate) enum MethodMember<'a> {
    Name(Cow<'a, str>),
    NotAString,
}

impl<'a> TopLevel<'a> {
    /// Reads `message` whole. With `read_meta`, a call's `_meta` is read as
    /// [`CallMeta`](super::call_meta::CallMeta) reads it, and a `_meta` in another shape is
    /// an error; without, it is kept in the call's map.
    ///
    /// A message that is UTF-8 throughout, as nearly every one is, is checked once, whole, and
    /// read as text: its strings are then taken as they are, not each checked again as it is
    /// read. One that is not is read as bytes, and fails as it did, at the same place with
    /// the same words. Both readers share the rest of the grammar, escapes included.
    ///
    /// With `read_meta`, a message whose `"_meta":` is followed by a text this thread
    /// remembers (see [`CallMeta`]) is first read with that text spliced out, so that it is
    /// not scanned again to find its end:
    ///
    /// ```text
    /// {"method":"tools/call","params":{"name":"t","_meta":{"io.mod…":…},"requestState":"…"}}
    /// {"method":"tools/call","params":{"name":"t","_meta":0,"requestState":"…"}}
    /// ```
    ///
    /// That reading is kept only when the `0` was read as the call's `_meta` member, its name
    /// at the very place the text followed: then the message, read whole, reads the same
    /// members up to there, the remembered text as that `_meta` (a JSON value ends where it
    /// ends, whatever follows), and the same ones after it. Otherwise (the text was elsewhere,
    /// or the reading failed), the message is read whole, and gives its own answer.
    pub(crate) fn read(message: &'a [u8], read_meta: bool) -> serde_json::Result<Self> {
        let visitor = TopLevelVisitor {
            read_meta,
            splice: None,
        };
        match std::str::from_utf8(message) {
            Ok(text) => {
                if read_meta && let Some(top) = read_spliced(text) {
                    return Ok(top);
                }
                read_with(serde_json::Deserializer::from_str(text), visitor)
            }
            Err(_) => read_with(serde_json::Deserializer::from_slice(message), visitor),
        }
    }
}

/// `text` read with its remembered `_meta` spliced out, as [`TopLevel::read`] says; `None`
/// when there is none, or when the reading is of no use.
fn read_spliced(text: &str) -> Option<TopLevel<'_>> {
    thread_local! {
        /// The text read, the `_meta` spliced out: kept for the thread's next message.
        static SPLICED: Cell<String> = const { Cell::new(String::new()) };
    }
    let (start, end, meta) = CallMeta::remembered_in(text)?;
    // Taken out for the reading, not borrowed in a closure: what is read is large, and is
    // not moved out of one.
    let mut spliced = SPLICED.take();
    spliced.clear();
    spliced.push_str(&text[..start]);
    spliced.push('0');
    spliced.push_str(&text[end..]);
    // The name's closing quote and the colon come right before the text.
    let splice = Splice {
        key_end: spliced.as_ptr() as usize + start - 2,
        meta: Cell::new(Some(meta)),
    };
    let visitor = TopLevelVisitor {
        read_meta: true,
        splice: Some(&splice),
    };
    let read = match read_with(serde_json::Deserializer::from_str(&spliced), visitor) {
        Ok(TopLevel::Object(members)) if splice.meta.take().is_none() => {
            Some(rebased(members, &spliced, text, start, end))
        }
        _ => None,
    };
    if spliced.capacity() <= 64 * 1024 {
        SPLICED.set(spliced);
    }
    read
}

/// `members`, read from `spliced`, as read from `text`, of which `spliced` is a copy with a
/// `0` in place of `text[start..end]`.
#[inline]
fn rebased<'a>(
    members: Members<'_>,
    spliced: &str,
    text: &'a str,
    start: usize,
    end: usize,
) -> TopLevel<'a> {
    // The only member borrowed from the text read: borrowed again from `text`, at the
    // same place there.
    let method = members.method.map(|method| match method {
        MethodMember::Name(Cow::Borrowed(name)) => {
            let at = (name.as_ptr() as usize).checked_sub(spliced.as_ptr() as usize);
            let at = at.map(|at| if at < start { at } else { at - start - 1 + end });
            match at.and_then(|at| text.get(at..at + name.len())) {
                Some(same) if same == name => MethodMember::Name(Cow::Borrowed(same)),
                _ => MethodMember::Name(Cow::Owned(name.to_owned())),
            }
        }
        MethodMember::Name(Cow::Owned(name)) => MethodMember::Name(Cow::Owned(name)),
        MethodMember::NotAString => MethodMember::NotAString,
    });
    TopLevel::Object(Members { method, ..members })
}

fn read_with<'a, R: serde_json::de::Read<'a>>(
    mut deserializer: serde_json::Deserializer<R>,
    visitor: TopLevelVisitor<'_>,
) -> serde_json::Result<TopLevel<'a>> {
    let top = deserializer.deserialize_any(visitor)?;
    deserializer.end()?;
    Ok(top)
}

struct TopLevelVisitor<'s> {
    read_meta: bool,
    /// The `_meta` spliced out of the text read, if one was.
    splice: Option<&'s Splice>,
}

impl<'de> Visitor<'de> for TopLevelVisitor<'_> {
    type Value = TopLevel<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel<'de>, A::Error> {
        let mut members = Members::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => members.id = Some(map.next_value()?),
                Key::Jsonrpc => members.version_2_0 = map.next_value::<Version>()?.0,
                Key::Method => members.method = Some(map.next_value()?),
                Key::Params => {
                    let target = match &members.method {
                        Some(MethodMember::Name(method)) => target_key(method),
                        _ => None,
                    };
                    members.params = Some(map.next_value_seed(ParamsSeed {
                        target,
                        read_meta: self.read_meta,
                        splice: self.splice,
                    })?);
                }
                Key::Result => members.result = Some(map.next_value()?),
                Key::Error => members.error = Some(map.next_value()?),
                // Read whole, as a map of the message would: deeper than the parser's
                // nesting limit it is a parse error, not skipped.
                Key::Other => drop(map.next_value::<Value>()?),
            }
        }
        Ok(TopLevel::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel<'de>, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(TopLevel::Array)
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }

    fn visit_unit<E>(self) -> Result<TopLevel<'de>, E> {
        Ok(TopLevel::Other)
    }
}

/// A member's name, compared without being copied.
enum Key {
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
struct Version(bool);

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

impl<'de> Deserialize<'de> for MethodMember<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MethodVisitor;
        impl<'de> Visitor<'de> for MethodVisitor {
            type Value = MethodMember<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a JSON value")
            }

            fn visit_borrowed_str<E>(self, method: &'de str) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::Name(Cow::Borrowed(method)))
            }

            fn visit_str<E>(self, method: &str) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::Name(Cow::Owned(method.to_owned())))
            }

            fn visit_string<E>(self, method: String) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::Name(Cow::Owned(method)))
            }

            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<MethodMember<'de>, A::Error> {
                while map.next_entry::<IgnoredAny, Value>()?.is_some() {}
                Ok(MethodMember::NotAString)
            }

            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<MethodMember<'de>, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(MethodMember::NotAString)
            }

            fn visit_bool<E>(self, _: bool) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_i64<E>(self, _: i64) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_u64<E>(self, _: u64) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_f64<E>(self, _: f64) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::NotAString)
            }

            fn visit_unit<E>(self) -> Result<MethodMember<'de>, E> {
                Ok(MethodMember::NotAString)
            }
        }
        deserializer.deserialize_any(MethodVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reading gives, in words: the error, or the members kept.
    fn described(read: serde_json::Result<TopLevel<'_>>) -> String {
        match read {
            Err(error) => format!("error: {error}"),
            Ok(TopLevel::Array) => "array".to_owned(),
            Ok(TopLevel::Other) => "other".to_owned(),
            Ok(TopLevel::Object(members)) => {
                let method = match members.method {
                    Some(MethodMember::Name(name)) => format!("{name:?}"),
                    Some(MethodMember::NotAString) => "not a string".to_owned(),
                    None => "none".to_owned(),
                };
                let params = match members.params {
                    Some(ParamsMember::Object(params)) => format!("{params:?}"),
                    Some(ParamsMember::Null) => "null".to_owned(),
                    Some(ParamsMember::Other) => "other".to_owned(),
                    None => "none".to_owned(),
                };
                format!(
                    "{:?} {} {method} {params} {:?} {:?}",
                    members.id, members.version_2_0, members.result, members.error
                )
            }
        }
    }

    /// With a remembered `_meta` spliced out or read whole, a message gives the same members
    /// or the same error; the splice is kept only where the text is the call's `_meta`.
    #[test]
    fn a_remembered_meta_spliced_out_reads_as_the_message_read_whole() {
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
        let other = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let call = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{params}}}}}"#)
        };
        // Read once, whole, the text is remembered.
        let first = call(&format!(r#""name":"t","_meta":{meta}"#));
        assert!(read_spliced(&first).is_none());
        assert!(TopLevel::read(first.as_bytes(), true).is_ok());
        let spliced = [
            first.clone(),
            call(&format!(
                r#""name":"t","arguments":{{}},"_meta":{meta},"inputResponses":{{"k":{{"action":"accept","content":{{"x":1}}}}}},"requestState":"s""#
            )),
            call(&format!(r#""_meta":{meta},"name":"t""#)),
            call(&format!(r#""name":"t","_meta":{meta},"_meta":{other}"#)),
            call(&format!(
                r#""name":"t","_meta":{other},"x":{{"_meta":{meta}}}"#
            )),
            format!(
                r#"{{"id":1,"method":"resources/read","params":{{"uri":"u","_meta":{meta}}}}}"#
            ),
            format!(
                r#"{{"id":"é","method":"tools\/call","params":{{"name":"t","_meta":{meta}}}}}"#
            ),
            format!(r#"{{"id":1,"method":"tools/call","params":{{"_meta":{meta}}},"x":[1]}}"#),
        ];
        let whole = [
            call(&format!(
                r#""name":"t","arguments":{{"_meta":{meta}}},"_meta":{meta}"#
            )),
            call(&format!(r#""name":"t","_meta":{meta},"x":"_meta":{meta}""#)),
            format!(r#"{{"id":1,"params":{{"name":"t","_meta":{meta}}},"method":"tools/call"}}"#),
            format!(r#"{{"id":1,"method":"tools/list","params":{{"_meta":{meta}}}}}"#),
            format!(r#"{{"id":1,"_meta":{meta},"method":"tools/call","params":{{"name":"t"}}}}"#),
            call(&format!(r#""name":"t","_meta":{meta}]"#)),
            call(&format!(r#""name":"t","_meta":{meta},"x":tru}}"#)),
            call(&format!(r#""name":"t","_meta": {meta}"#)),
            call(&format!(r#""name":"t","_meta":{meta}1}}"#)),
        ];
        for (message, kept) in spliced
            .iter()
            .map(|m| (m, true))
            .chain(whole.iter().map(|m| (m, false)))
        {
            assert_eq!(read_spliced(message).is_some(), kept, "{message}");
            let visitor = TopLevelVisitor {
                read_meta: true,
                splice: None,
            };
            let as_whole = read_with(serde_json::Deserializer::from_str(message), visitor);
            let as_whole = described(as_whole);
            assert_eq!(
                described(TopLevel::read(message.as_bytes(), true)),
                as_whole,
                "{message}"
            );
            // A name without escapes is still borrowed from the message itself.
            if let Ok(TopLevel::Object(Members {
                method: Some(MethodMember::Name(Cow::Borrowed(name))),
                ..
            })) = TopLevel::read(message.as_bytes(), true)
            {
                let range = message.as_bytes().as_ptr_range();
                assert!(range.contains(&name.as_ptr()), "{message}");
            }
        }
    }

    /// Read as text or as bytes, a message gives the same members or the same error, and one
    /// that is not UTF-8 fails as a reading of bytes does.
    #[test]
    fn text_and_bytes_read_alike() {
        let messages: [&[u8]; 12] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"\u00e9\ud83d\ude00"},"inputResponses":{"k":{"action":"accept","content":{"x":"y"}}},"requestState":"s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":\"é\",\"method\":\"tools/list\",\"params\":{\"x\":[1,2.5,null]}}".as_bytes(),
            br#"{"params":{"name":"t"},"method":"tools/call","id":2,"jsonrpc":"2.0"}"#,
            br#"[1,2]"#,
            br#""text""#,
            br#"{"id":1,"method":"\ud800"}"#,
            br#"{"id":1,"method":"x""#,
            br#"{not json"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xffb\"}",
            b"{\"id\":\"\xc3\",\"method\":\"x\"}",
            b"{\"method\":\"tools/call\",\"params\":{\"name\":\"\xed\xa0\x80\",\"_meta\":{\"\xff\":1}}}",
            b"{\"id\":1,\"x\" 1, \"\xff\"}",
        ];
        for message in messages {
            for read_meta in [true, false] {
                let visitor = || TopLevelVisitor {
                    read_meta,
                    splice: None,
                };
                let as_bytes = read_with(serde_json::Deserializer::from_slice(message), visitor());
                let as_bytes = described(as_bytes);
                assert_eq!(
                    described(TopLevel::read(message, read_meta)),
                    as_bytes,
                    "{}",
                    String::from_utf8_lossy(message)
                );
                if let Ok(text) = std::str::from_utf8(message) {
                    let as_text = read_with(serde_json::Deserializer::from_str(text), visitor());
                    assert_eq!(described(as_text), as_bytes);
                }
            }
        }
    }
}
