//! The top level of a JSON-RPC message as it is read: the members routing needs, each as sent,
//! and nothing built for the rest.
//!
//! A message parsed into a `serde_json::Value` first is a map whose keys are all copied, and
//! whose members are then removed one by one. Read member by member instead, the message is
//! checked for the same JSON grammar (and the same nesting limit of the parser) in one pass,
//! and [`parse_envelope`](super::lifecycle::parse_envelope) applies its checks, in the same
//! order and with the same words, to what was kept. When `method` comes before `params`, as
//! clients write it, a call's `params` are read as a call reads them (see [`params`](super::params)).

mod members;

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use self::members::{Key, Version};
use super::call_meta::CallMeta;
use super::params::{ParamsMember, ParamsSeed, Splice, target_key};

/// What a message is at its top level.
pub(crate) enum TopLevel {
    /// An object, its members written where the reading was asked to write them.
    Object,
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
    pub(crate) params: Option<ParamsMember<'a>>,
    pub(crate) result: Option<Value>,
    pub(crate) error: Option<Value>,
}

/// A `method` member: a string, borrowed from the message unless it holds escapes, or any
/// other value, read whole and refused.
pub(crate) enum MethodMember<'a> {
    Name(Cow<'a, str>),
    NotAString,
}

impl TopLevel {
    /// Reads `message` whole, its members into `members` (which start as
    /// [`Members::default`]; after an error, what they hold is of no use). With `read_meta`,
    /// a call's `_meta` is read as [`CallMeta`](super::call_meta::CallMeta) reads it, and a
    /// `_meta` in another shape is an error; without, it is kept in the call's map.
    ///
    /// The members are written where they end, not returned: what a call's reading holds is
    /// large, and each frame it were returned through would copy it.
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
    pub(crate) fn read<'a>(
        message: &'a [u8],
        read_meta: bool,
        members: &mut Members<'a>,
    ) -> serde_json::Result<Self> {
        let text = std::str::from_utf8(message);
        if read_meta
            && let Ok(text) = text
            && let Some(top) = read_spliced(text, members)
        {
            return Ok(top);
        }
        read_whole(message, text.ok(), read_meta, members)
    }
}

/// `message` read whole, with nothing spliced out, into `members`: as `text` (the message,
/// checked as UTF-8) when given, which its strings are borrowed from, else as bytes.
fn read_whole<'a>(
    message: &'a [u8],
    text: Option<&'a str>,
    read_meta: bool,
    members: &mut Members<'a>,
) -> serde_json::Result<TopLevel> {
    let origin = Origin {
        message: text.unwrap_or_default(),
        read_from: message.as_ptr() as usize,
        splice: None,
    };
    let visitor = TopLevelVisitor {
        read_meta,
        splice: None,
        origin,
        members,
    };
    match text {
        Some(text) => read_with(serde_json::Deserializer::from_str(text), visitor),
        None => read_with(serde_json::Deserializer::from_slice(message), visitor),
    }
}

/// `text` read with its remembered `_meta` spliced out, as [`TopLevel::read`] says, into
/// `members`; `None`, `members` as they were, when there is none or the reading is of no use.
fn read_spliced<'a>(text: &'a str, members: &mut Members<'a>) -> Option<TopLevel> {
    thread_local! {
        /// The text read, the `_meta` spliced out: kept for the thread's next message.
        static SPLICED: Cell<String> = const { Cell::new(String::new()) };
    }
    let (start, end, meta) = CallMeta::remembered_in(text)?;
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
    let origin = Origin {
        message: text,
        read_from: spliced.as_ptr() as usize,
        splice: Some((start, end)),
    };
    let visitor = TopLevelVisitor {
        read_meta: true,
        splice: Some(&splice),
        origin,
        members,
    };
    let read = match read_with(serde_json::Deserializer::from_str(&spliced), visitor) {
        Ok(TopLevel::Object) if splice.meta.take().is_none() => Some(TopLevel::Object),
        _ => {
            *members = Members::default();
            None
        }
    };
    if spliced.capacity() <= 64 * 1024 {
        SPLICED.set(spliced);
    }
    read
}

/// Where the text read comes from: `message` itself, or a copy of it with a `0` in place of
/// `message[start..end]` (`splice`). The strings kept from the text read (the method name, a
/// call's `requestState`) are borrowed from `message` instead, at the same place there. A
/// message that is not UTF-8, read as bytes, has no text to borrow from (an empty `message`):
/// its strings are copied.
#[derive(Clone, Copy)]
pub(super) struct Origin<'a> {
    message: &'a str,
    /// The address of the text read.
    read_from: usize,
    splice: Option<(usize, usize)>,
}

impl<'a> Origin<'a> {
    /// `text`, borrowed from the text read, as borrowed from the message.
    pub(super) fn borrowed(self, text: &str) -> Cow<'a, str> {
        let at = (text.as_ptr() as usize).checked_sub(self.read_from);
        let at = match self.splice {
            Some((start, end)) => at.map(|at| if at < start { at } else { at - start - 1 + end }),
            None => at,
        };
        match at.and_then(|at| self.message.get(at..at + text.len())) {
            Some(same) if same == text => Cow::Borrowed(same),
            _ => Cow::Owned(text.to_owned()),
        }
    }
}

fn read_with<'de, R: serde_json::de::Read<'de>>(
    mut deserializer: serde_json::Deserializer<R>,
    visitor: TopLevelVisitor<'_, '_, '_>,
) -> serde_json::Result<TopLevel> {
    let top = deserializer.deserialize_any(visitor)?;
    deserializer.end()?;
    Ok(top)
}

struct TopLevelVisitor<'m, 'a, 's> {
    read_meta: bool,
    /// The `_meta` spliced out of the text read, if one was.
    splice: Option<&'s Splice>,
    origin: Origin<'a>,
    members: &'m mut Members<'a>,
}

impl<'de> Visitor<'de> for TopLevelVisitor<'_, '_, '_> {
    type Value = TopLevel;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let members = self.members;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Id => members.id = Some(map.next_value()?),
                Key::Jsonrpc => members.version_2_0 = map.next_value::<Version>()?.0,
                Key::Method => members.method = Some(map.next_value_seed(self.origin)?),
                Key::Params => {
                    let target = match &members.method {
                        Some(MethodMember::Name(method)) => target_key(method),
                        _ => None,
                    };
                    map.next_value_seed(ParamsSeed {
                        target,
                        read_meta: self.read_meta,
                        splice: self.splice,
                        origin: self.origin,
                        out: &mut members.params,
                    })?;
                }
                Key::Result => members.result = Some(map.next_value()?),
                Key::Error => members.error = Some(map.next_value()?),
                // Read whole, as a map of the message would: deeper than the parser's
                // nesting limit it is a parse error, not skipped.
                Key::Other => drop(map.next_value::<Value>()?),
            }
        }
        Ok(TopLevel::Object)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopLevel, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(TopLevel::Array)
    }

    fn visit_bool<E>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }

    fn visit_unit<E>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a reading gives, in words: the error, or the members kept.
    fn described(read: serde_json::Result<TopLevel>, members: Members<'_>) -> String {
        match read {
            Err(error) => format!("error: {error}"),
            Ok(TopLevel::Array) => "array".to_owned(),
            Ok(TopLevel::Other) => "other".to_owned(),
            Ok(TopLevel::Object) => {
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

    /// `message` read by [`TopLevel::read`], in words.
    fn read(message: &[u8], read_meta: bool) -> String {
        let mut members = Members::default();
        let read = TopLevel::read(message, read_meta, &mut members);
        described(read, members)
    }

    /// `message` read whole, as text when `as_text` and as bytes when not, in words.
    fn read_whole(message: &[u8], read_meta: bool, as_text: bool) -> String {
        let mut members = Members::default();
        let text = std::str::from_utf8(message).ok().filter(|_| as_text);
        let read = super::read_whole(message, text, read_meta, &mut members);
        described(read, members)
    }

    /// Whether `text`'s splice is kept; when not, the members are left as they were.
    fn spliced(text: &str) -> bool {
        let mut members = Members::default();
        let kept = read_spliced(text, &mut members).is_some();
        if !kept {
            assert_eq!(
                described(Ok(TopLevel::Object), members),
                described(Ok(TopLevel::Object), Members::default()),
                "{text}"
            );
        }
        kept
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
        assert!(!spliced(&first));
        assert!(TopLevel::read(first.as_bytes(), true, &mut Members::default()).is_ok());
        let kept = [
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
        for (message, kept) in kept
            .iter()
            .map(|m| (m, true))
            .chain(whole.iter().map(|m| (m, false)))
        {
            assert_eq!(spliced(message), kept, "{message}");
            let as_whole = read_whole(message.as_bytes(), true, true);
            assert_eq!(read(message.as_bytes(), true), as_whole, "{message}");
            // A name without escapes is still borrowed from the message itself.
            let mut members = Members::default();
            if let Ok(TopLevel::Object) = TopLevel::read(message.as_bytes(), true, &mut members) {
                match members.method {
                    Some(MethodMember::Name(Cow::Borrowed(name))) => {
                        let range = message.as_bytes().as_ptr_range();
                        assert!(range.contains(&name.as_ptr()), "{message}");
                    }
                    Some(MethodMember::Name(Cow::Owned(_))) => {
                        assert!(message.contains(r"tools\/call"), "{message}");
                    }
                    _ => {}
                }
            }
        }
    }

    /// A call's `requestState` read with its message: a string without escapes is borrowed
    /// from the message (read whole or with a remembered `_meta` spliced out), one with escapes
    /// is a copy of what they stand for, anything else is the value sent.
    #[test]
    fn a_request_state_is_borrowed_from_the_message() {
        use crate::server::params::{Params, RequestState};
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}"#;
        let call = |state: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{meta},"requestState":{state}}}}}"#
            )
        };
        fn state_of(message: &str, read_meta: bool) -> Option<RequestState<'_>> {
            let mut members = Members::default();
            let read = TopLevel::read(message.as_bytes(), read_meta, &mut members);
            assert!(matches!(read, Ok(TopLevel::Object)), "{message}");
            match members.params {
                Some(ParamsMember::Object(Params::Call(call))) => call.request_state,
                _ => panic!("{message}: not read as a call"),
            }
        }
        let plain = call(r#""a-b_c""#);
        // Read whole without `_meta`, whole with it (which remembers it), then with it
        // spliced out.
        assert!(!spliced(&plain));
        for read_meta in [false, true, true] {
            match state_of(&plain, read_meta) {
                Some(RequestState::Text(Cow::Borrowed(state))) => {
                    assert_eq!(state, "a-b_c");
                    let range = plain.as_bytes().as_ptr_range();
                    assert!(range.contains(&state.as_ptr()));
                }
                other => panic!("{other:?}"),
            }
        }
        assert!(spliced(&plain));
        match state_of(&call(r#""a-b\/c""#), true) {
            Some(RequestState::Text(Cow::Owned(state))) => assert_eq!(state, "a-b/c"),
            other => panic!("{other:?}"),
        }
        for other in [r#"7"#, r#"null"#, r#"[1,{"a":"b"}]"#, r#"{"a":[1.5,true]}"#] {
            match state_of(&call(other), true) {
                Some(RequestState::NotAString(value)) => {
                    assert_eq!(value, serde_json::from_str::<Value>(other).unwrap());
                }
                state => panic!("{other}: {state:?}"),
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
                let as_bytes = read_whole(message, read_meta, false);
                assert_eq!(
                    read(message, read_meta),
                    as_bytes,
                    "{}",
                    String::from_utf8_lossy(message)
                );
                if std::str::from_utf8(message).is_ok() {
                    assert_eq!(read_whole(message, read_meta, true), as_bytes);
                }
            }
        }
    }
}
