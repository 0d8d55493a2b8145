//! Multi round-trip requests: the input-required result, the input requests a server sends
//! and the input responses a client answers with.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, Error as _};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::elicitation::ElicitRequestParams;
use super::meta::ResultMeta;
use super::method;
use super::sampling::{CreateMessageRequestParams, ListRootsRequestParams};
use super::tag::InputRequiredTag;

/// The questions of one round, keyed by server-chosen keys (`InputRequests`). Keys carry no
/// order.
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answers, keyed by the keys the server asked under (`InputResponses`).
///
/// Values stay raw: an answer carries no tag, so the server reads each one as the result type
/// of the request it sent under that key (e.g. [`ElicitResult`](super::ElicitResult)). The
/// whole value must be a JSON object: `null`, a number or an array fails to parse.
pub type InputResponses = BTreeMap<String, Value>;

/// One input request: a bare `{method, params}` (no `jsonrpc`, no `id`), tagged by `method`.
///
/// Parsing goes through [`serde_json::Value`], so the order of a parsed form's properties is
/// the key order of that map, not the wire order; writing keeps the model's order.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`: ask the user, in a form or at a URL.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`: ask the client's model (deprecated in 2026-07-28 but still
    /// on the wire).
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list`: ask for the client's roots (deprecated in 2026-07-28 but still on the
    /// wire). `None` writes no `params` member.
    ListRoots(Option<ListRootsRequestParams>),
}

impl InputRequest {
    /// The method name this request is sent under.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => method::ELICITATION_CREATE,
            Self::CreateMessage(_) => method::SAMPLING_CREATE_MESSAGE,
            Self::ListRoots(_) => method::ROOTS_LIST,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let has_params = !matches!(self, Self::ListRoots(None));
        let mut state = serializer.serialize_struct("InputRequest", 1 + usize::from(has_params))?;
        state.serialize_field("method", self.method())?;
        match self {
            Self::Elicit(params) => state.serialize_field("params", params)?,
            Self::CreateMessage(params) => state.serialize_field("params", params)?,
            Self::ListRoots(Some(params)) => state.serialize_field("params", params)?,
            Self::ListRoots(None) => {}
        }
        state.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<Value>,
        }
        let raw = Raw::deserialize(deserializer)?;
        match raw.method.as_str() {
            method::ELICITATION_CREATE => serde_json::from_value(
                raw.params
                    .ok_or_else(|| D::Error::missing_field("params"))?,
            )
            .map(Self::Elicit)
            .map_err(D::Error::custom),
            method::SAMPLING_CREATE_MESSAGE => serde_json::from_value(
                raw.params
                    .ok_or_else(|| D::Error::missing_field("params"))?,
            )
            .map(Self::CreateMessage)
            .map_err(D::Error::custom),
            method::ROOTS_LIST => match raw.params {
                None => Ok(Self::ListRoots(None)),
                Some(value) => serde_json::from_value(value)
                    .map(|params| Self::ListRoots(Some(params)))
                    .map_err(D::Error::custom),
            },
            other => Err(D::Error::unknown_variant(
                other,
                &[
                    method::ELICITATION_CREATE,
                    method::SAMPLING_CREATE_MESSAGE,
                    method::ROOTS_LIST,
                ],
            )),
        }
    }
}

/// Why an [`InputRequiredResult`] could not be built or parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmptyInputRequired;

impl fmt::Display for EmptyInputRequired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an input-required result needs `inputRequests` or `requestState`")
    }
}

impl std::error::Error for EmptyInputRequired {}

/// An input-required result (`InputRequiredResult`): `resultType: "input_required"` with at
/// least one of `inputRequests` and `requestState`.
///
/// The fields are private so that the rule holds for every value: the constructors refuse a
/// result with neither, and so does parsing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "RawInputRequired")]
pub struct InputRequiredResult {
    result_type: InputRequiredTag,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<InputRequests>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_state: Option<String>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<Box<ResultMeta>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawInputRequired {
    #[serde(default)]
    result_type: InputRequiredTag,
    #[serde(default, deserialize_with = "super::serde_util::present")]
    input_requests: Option<InputRequests>,
    #[serde(default, deserialize_with = "super::serde_util::present")]
    request_state: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Option<ResultMeta>,
}

impl TryFrom<RawInputRequired> for InputRequiredResult {
    type Error = EmptyInputRequired;

    fn try_from(raw: RawInputRequired) -> Result<Self, Self::Error> {
        let RawInputRequired {
            result_type,
            input_requests,
            request_state,
            meta,
        } = raw;
        let mut result = Self::new(input_requests, request_state)?;
        result.result_type = result_type;
        result.meta = meta.map(Box::new);
        Ok(result)
    }
}

impl InputRequiredResult {
    /// A result with the given requests and state; fails when both are `None`.
    pub fn new(
        input_requests: Option<InputRequests>,
        request_state: Option<String>,
    ) -> Result<Self, EmptyInputRequired> {
        if input_requests.is_none() && request_state.is_none() {
            return Err(EmptyInputRequired);
        }
        Ok(Self {
            result_type: InputRequiredTag,
            input_requests,
            request_state,
            meta: None,
        })
    }

    /// A result asking `input_requests` and carrying `request_state`: the usual round.
    pub fn with_state(input_requests: InputRequests, request_state: impl Into<String>) -> Self {
        Self {
            result_type: InputRequiredTag,
            input_requests: Some(input_requests),
            request_state: Some(request_state.into()),
            meta: None,
        }
    }

    /// A result asking `input_requests` without any state.
    pub fn requests_only(input_requests: InputRequests) -> Self {
        Self {
            result_type: InputRequiredTag,
            input_requests: Some(input_requests),
            request_state: None,
            meta: None,
        }
    }

    /// A result carrying only `request_state` (the client retries with it, asking nothing).
    pub fn state_only(request_state: impl Into<String>) -> Self {
        Self {
            result_type: InputRequiredTag,
            input_requests: None,
            request_state: Some(request_state.into()),
            meta: None,
        }
    }

    /// The same result with `_meta` set.
    pub fn with_meta(mut self, meta: ResultMeta) -> Self {
        self.meta = Some(Box::new(meta));
        self
    }

    /// The questions, if any.
    pub fn input_requests(&self) -> Option<&InputRequests> {
        self.input_requests.as_ref()
    }

    /// The state to echo, if any.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// The result's `_meta`, if any.
    pub fn meta(&self) -> Option<&ResultMeta> {
        self.meta.as_deref()
    }

    /// Mutable access to the questions (e.g. to drop ones the client cannot answer). Leaving
    /// the map empty keeps the result valid: an empty `inputRequests` is still present.
    pub fn input_requests_mut(&mut self) -> Option<&mut InputRequests> {
        self.input_requests.as_mut()
    }

    /// The questions and the state, consuming the result.
    pub fn into_parts(self) -> (Option<InputRequests>, Option<String>) {
        (self.input_requests, self.request_state)
    }
}

/// The answer of a method that may ask for input first (`tools/call`, `prompts/get`,
/// `resources/read`): the final result `T` or an [`InputRequiredResult`].
///
/// Serialises as the inner result; parsing picks the variant by `resultType`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    /// The final result (`resultType: "complete"`).
    Complete(T),
    /// The server needs answers first.
    InputRequired(InputRequiredResult),
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let input_required =
            value.get("resultType").and_then(Value::as_str) == Some(InputRequiredTag::VALUE);
        if input_required {
            serde_json::from_value(value)
                .map(Self::InputRequired)
                .map_err(D::Error::custom)
        } else {
            serde_json::from_value(value)
                .map(Self::Complete)
                .map_err(D::Error::custom)
        }
    }
}
