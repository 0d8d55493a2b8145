//! A request's `params`, read in the same pass as the message into what its method needs.
//!
//! A call (`tools/call`, `prompts/get`, `resources/read`) takes out what its round reads as
//! it is read: `arguments`, `inputResponses` (straight into [`InputResponses`], not first
//! into a map of values and then copied into one), `requestState` (a string borrowed from the
//! message, not copied: the round opens it before the message is dropped), and `_meta` when
//! it is in the shape [`CallMeta`] reads. The other members (the target, members the call does not
//! read, `_meta` in another shape) stay in a map, where the lifecycle checks and the
//! handler's context read them. Any other method gets its `params` as a map.
//!
//! Only the shape differs: every member is read in full, with the same grammar and nesting
//! limit, and the checks that follow see what they saw in a map, in the same order.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::Deserialize as _;
use serde::de::value::MapAccessDeserializer;
use serde::de::{
    DeserializeSeed, Deserializer, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::call_meta::CallMeta;
use super::message::Origin;
use crate::protocol::InputResponses;
use crate::protocol::meta::META_PROTOCOL_VERSION;

/// The member naming what a call acts on (`name`, or `uri` for a resource), for the methods
/// whose `params` are read as a [`CallParams`]; `None` for the others.
pub(crate) fn target_key(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// A request's `params` object (empty when it was missing or `null`), its strings borrowed
/// from the message (`'a`) where they need not be copied.
#[derive(Debug)]
pub(crate) enum Params<'a> {
    /// The members of a method that is not a call, or of a call whose `method` member came
    /// after its `params`.
    Map(Map<String, Value>),
    /// The members of a call.
    Call(CallParams<'a>),
}

impl Params<'_> {
    /// The members left in a map: all of them, or a call's members besides those it took out.
    /// `_meta` is there unless the call read it ([`CallParams::meta`]).
    pub(crate) fn rest(&self) -> &Map<String, Value> {
        match self {
            Self::Map(map) => map,
            Self::Call(call) => &call.rest,
        }
    }

    /// The member `key`, wherever it was kept.
    pub(crate) fn member(&self, key: &str) -> Option<&Value> {
        match self {
            Self::Call(CallParams {
                target: Some((target_key, target)),
                ..
            }) if *target_key == key => Some(target),
            params => params.rest().get(key),
        }
    }

    /// Whether `_meta` names a protocol version, as 2026-07-28 requests do.
    pub(crate) fn names_a_version(&self) -> bool {
        match self {
            Self::Call(CallParams { meta: Some(_), .. }) => true,
            params => params
                .rest()
                .get("_meta")
                .and_then(|meta| meta.get(META_PROTOCOL_VERSION))
                .is_some(),
        }
    }

    /// Every member in one map, as a method that is not a call reads them.
    pub(crate) fn into_map(self) -> Map<String, Value> {
        match self {
            Self::Map(map) => map,
            Self::Call(call) => call.into_map(),
        }
    }
}

/// The `params` of a call, the members its round reads taken out.
#[derive(Debug, Default)]
pub(crate) struct CallParams<'a> {
    /// `arguments`, as sent.
    pub(crate) arguments: Option<Value>,
    /// `inputResponses`.
    pub(crate) input_responses: Option<Answers>,
    /// `requestState`.
    pub(crate) request_state: Option<RequestState<'a>>,
    /// `_meta`, when it is in the shape [`CallMeta`] reads; in [`rest`](Self::rest) when not.
    pub(crate) meta: Option<CallMeta>,
    /// The target member (see [`target_key`]) under its name, as sent, when read with the
    /// call; in [`rest`](Self::rest) when the call was taken from a map.
    pub(crate) target: Option<(&'static str, Value)>,
    /// Every other member.
    pub(crate) rest: Map<String, Value>,
}

/// A `requestState` member: a string, borrowed from the message unless it holds escapes, or
/// anything else (refused), kept as sent.
#[derive(Debug)]
pub(crate) enum RequestState<'a> {
    Text(Cow<'a, str>),
    NotAString(Value),
}

impl RequestState<'_> {
    fn into_value(self) -> Value {
        match self {
            Self::Text(text) => Value::String(text.into_owned()),
            Self::NotAString(other) => other,
        }
    }
}

/// An `inputResponses` member: an object, read as the answers, or anything else (refused),
/// kept as sent.
#[derive(Debug)]
pub(crate) enum Answers {
    Object(InputResponses),
    NotAnObject(Value),
}

impl CallParams<'_> {
    /// A call's members, taken out of a map of them.
    pub(crate) fn from_map(mut map: Map<String, Value>) -> Self {
        Self {
            arguments: map.remove("arguments"),
            input_responses: map.remove("inputResponses").map(|answers| match answers {
                Value::Object(answers) => Answers::Object(answers.into_iter().collect()),
                other => Answers::NotAnObject(other),
            }),
            request_state: map.remove("requestState").map(|state| match state {
                Value::String(text) => RequestState::Text(Cow::Owned(text)),
                other => RequestState::NotAString(other),
            }),
            meta: None,
            target: None,
            rest: map,
        }
    }

    fn into_map(self) -> Map<String, Value> {
        let mut map = self.rest;
        if let Some(arguments) = self.arguments {
            map.insert("arguments".to_owned(), arguments);
        }
        if let Some(answers) = self.input_responses {
            let answers = match answers {
                Answers::Object(answers) => Value::Object(answers.into_iter().collect()),
                Answers::NotAnObject(other) => other,
            };
            map.insert("inputResponses".to_owned(), answers);
        }
        if let Some(state) = self.request_state {
            map.insert("requestState".to_owned(), state.into_value());
        }
        if let Some(meta) = self.meta {
            map.insert("_meta".to_owned(), Value::Object(meta.into_map()));
        }
        if let Some((key, target)) = self.target {
            map.insert(key.to_owned(), target);
        }
        map
    }
}

/// What a `params` member holds.
pub(crate) enum ParamsMember<'a> {
    Object(Params<'a>),
    Null,
    /// A string, a number, a boolean or an array: refused.
    Other,
}

/// Reads a `params` member into `out`: as a call's when `target` (the call's [`target_key`]),
/// as a map otherwise. With `read_meta`, a call's `_meta` is read by [`CallMeta`], and one in
/// another shape is an error; the one `splice` stands for is taken from it. A call's
/// `requestState` is borrowed from the message `origin` tells of.
///
/// A call's members are read where they end, not returned: they are large, and each frame
/// they were returned through would copy them.
pub(crate) struct ParamsSeed<'s, 'o, 'a> {
    pub(crate) target: Option<&'static str>,
    pub(crate) read_meta: bool,
    pub(crate) splice: Option<&'s Splice>,
    pub(crate) origin: Origin<'a>,
    pub(crate) out: &'o mut Option<ParamsMember<'a>>,
}

/// A remembered `_meta` text the message was read without: in the text read, a `0` stands
/// where it was, after the member name that ends at `key_end` (an address in that text).
/// Taken by the call whose `_meta` member that is; the reading is of no use when none does.
pub(crate) struct Splice {
    pub(crate) key_end: usize,
    pub(crate) meta: Cell<Option<CallMeta>>,
}

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'a> ParamsSeed<'_, '_, 'a> {
    /// `member`, read whole, written to `out`.
    fn write<E>(self, member: ParamsMember<'a>) -> Result<(), E> {
        *self.out = Some(member);
        Ok(())
    }
}

impl<'de> Visitor<'de> for ParamsSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<(), A::Error> {
        let Some(target_key) = self.target else {
            let mut map = Map::new();
            while let Some((key, value)) = access.next_entry::<String, Value>()? {
                map.insert(key, value);
            }
            return self.write(ParamsMember::Object(Params::Map(map)));
        };
        let member = self
            .out
            .insert(ParamsMember::Object(Params::Call(CallParams::default())));
        let ParamsMember::Object(Params::Call(call)) = member else {
            unreachable!("a call's members were just written")
        };
        while let Some(key) = access.next_key::<CallKey>()? {
            match key {
                CallKey::Arguments => call.arguments = Some(access.next_value()?),
                CallKey::InputResponses => {
                    call.input_responses = Some(access.next_value_seed(AnswersSeed)?);
                }
                CallKey::RequestState => {
                    call.request_state = Some(access.next_value_seed(StateSeed(self.origin))?);
                }
                CallKey::Meta(key_end)
                    if self.splice.is_some_and(|splice| splice.key_end == key_end) =>
                {
                    access.next_value::<IgnoredAny>()?;
                    call.meta = self.splice.and_then(|splice| splice.meta.take());
                }
                CallKey::Meta(_) if self.read_meta => {
                    // Borrowed from the message: copied only when not remembered.
                    let text = access.next_value::<&'de RawValue>()?;
                    let meta = CallMeta::read(text)
                        .ok_or_else(|| A::Error::custom("`_meta` in another shape"))?;
                    call.meta = Some(meta);
                }
                CallKey::Meta(_) => {
                    call.rest.insert("_meta".to_owned(), access.next_value()?);
                }
                CallKey::Target(key) if key == target_key => {
                    call.target = Some((key, access.next_value()?));
                }
                CallKey::Target(key) => {
                    call.rest.insert(key.to_owned(), access.next_value()?);
                }
                CallKey::Other(key) => {
                    call.rest.insert(key, access.next_value()?);
                }
            }
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // Read whole, as a value of the message would be.
        while seq.next_element::<Value>()?.is_some() {}
        self.write(ParamsMember::Other)
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.write(ParamsMember::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.write(ParamsMember::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.write(ParamsMember::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.write(ParamsMember::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.write(ParamsMember::Other)
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.write(ParamsMember::Null)
    }
}

/// A member name of a call's `params`; only a name kept in the map is copied.
enum CallKey {
    Arguments,
    InputResponses,
    RequestState,
    /// `_meta`, with the address where its name ends in the text read, when borrowed from it
    /// (0 when not).
    Meta(usize),
    /// `name` or `uri`: the target of one call or another.
    Target(&'static str),
    Other(String),
}

impl<'de> serde::Deserialize<'de> for CallKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = CallKey;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("a member name")
            }

            fn visit_str<E>(self, name: &str) -> Result<CallKey, E> {
                Ok(match name {
                    "arguments" => CallKey::Arguments,
                    "inputResponses" => CallKey::InputResponses,
                    "requestState" => CallKey::RequestState,
                    "_meta" => CallKey::Meta(0),
                    "name" => CallKey::Target("name"),
                    "uri" => CallKey::Target("uri"),
                    _ => CallKey::Other(name.to_owned()),
                })
            }

            fn visit_borrowed_str<E: serde::de::Error>(self, name: &'de str) -> Result<CallKey, E> {
                match name {
                    "_meta" => Ok(CallKey::Meta(name.as_ptr() as usize + name.len())),
                    _ => self.visit_str(name),
                }
            }

            fn visit_string<E>(self, name: String) -> Result<CallKey, E> {
                Ok(match name.as_str() {
                    "arguments" => CallKey::Arguments,
                    "inputResponses" => CallKey::InputResponses,
                    "requestState" => CallKey::RequestState,
                    "_meta" => CallKey::Meta(0),
                    "name" => CallKey::Target("name"),
                    "uri" => CallKey::Target("uri"),
                    _ => CallKey::Other(name),
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// Reads `requestState`: a string borrowed from the message where it can be, anything else
/// as the value it is.
struct StateSeed<'a>(Origin<'a>);

impl<'de, 'a> DeserializeSeed<'de> for StateSeed<'a> {
    type Value = RequestState<'a>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, 'a> Visitor<'de> for StateSeed<'a> {
    type Value = RequestState<'a>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_borrowed_str<E>(self, state: &'de str) -> Result<Self::Value, E> {
        Ok(RequestState::Text(self.0.borrowed(state)))
    }

    fn visit_str<E>(self, state: &str) -> Result<Self::Value, E> {
        Ok(RequestState::Text(Cow::Owned(state.to_owned())))
    }

    fn visit_string<E>(self, state: String) -> Result<Self::Value, E> {
        Ok(RequestState::Text(Cow::Owned(state)))
    }

    fn visit_map<A: MapAccess<'de>>(self, access: A) -> Result<Self::Value, A::Error> {
        let value = Value::deserialize(MapAccessDeserializer::new(access))?;
        Ok(RequestState::NotAString(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        array_of(seq).map(RequestState::NotAString)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Self::Value, E> {
        Ok(RequestState::NotAString(Value::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Self::Value, E> {
        Ok(RequestState::NotAString(Value::from(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Self::Value, E> {
        Ok(RequestState::NotAString(Value::from(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Self::Value, E> {
        Ok(RequestState::NotAString(Value::from(value)))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(RequestState::NotAString(Value::Null))
    }
}

/// An array read whole, as a value of the message would be.
fn array_of<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Value, A::Error> {
    let mut items = Vec::new();
    while let Some(item) = seq.next_element::<Value>()? {
        items.push(item);
    }
    Ok(Value::Array(items))
}

/// Reads `inputResponses`: an object straight into the answers (a key sent twice keeps its
/// last value, as in a map), anything else as the value it is.
struct AnswersSeed;

impl<'de> DeserializeSeed<'de> for AnswersSeed {
    type Value = Answers;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Answers, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnswersSeed {
    type Value = Answers;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Answers, A::Error> {
        let mut answers = InputResponses::new();
        while let Some((key, value)) = access.next_entry::<String, Value>()? {
            answers.insert(key, value);
        }
        Ok(Answers::Object(answers))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Answers, A::Error> {
        array_of(seq).map(Answers::NotAnObject)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::Bool(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::from(value)))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::from(value)))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::from(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::String(value.to_owned())))
    }

    fn visit_string<E>(self, value: String) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::String(value)))
    }

    fn visit_unit<E>(self) -> Result<Answers, E> {
        Ok(Answers::NotAnObject(Value::Null))
    }
}
