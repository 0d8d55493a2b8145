//! JSON-RPC 2.0 envelopes: ids, requests, notifications, responses and error objects.

use std::fmt;

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::meta::ClientCapabilities;
use super::tag::JsonRpcVersion;

/// A request id: a number or a string, echoed exactly as received.
///
/// Numbers are kept as [`serde_json::Number`], so `0`, `-1`, `1.5` and `18446744073709551615`
/// come back as they were sent (the schema allows only integers; floats are accepted leniently).
/// `0` and `"0"` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// A numeric id.
    Number(Number),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(number) => write!(f, "{number}"),
            Self::String(string) => write!(f, "{string:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        Self::Number(value.into())
    }
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

/// A progress token (`ProgressToken`): a string or an integer, same shape as [`RequestId`].
pub type ProgressToken = RequestId;

/// A JSON-RPC request (`JSONRPCRequest`). `params` stays raw: the server decodes it per method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcRequest {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id to echo in the response.
    pub id: RequestId,
    /// The method name, e.g. `tools/call`.
    pub method: String,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl JsonRpcRequest {
    /// A request with the given id, method and parameters.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id: id.into(),
            method: method.into(),
            params,
        }
    }
}

/// A JSON-RPC notification (`JSONRPCNotification`): a request without an id, never answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcNotification {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The method name, e.g. `notifications/progress`.
    pub method: String,
    /// The parameters, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl JsonRpcNotification {
    /// A notification with the given method and parameters.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            method: method.into(),
            params,
        }
    }
}

/// A JSON-RPC error code, with a constant for every code the 2026-07-28 revision uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// `-32700`: the message is not valid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// `-32600`: the JSON is not a valid request object.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// `-32601`: unknown or removed method.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// `-32602`: invalid parameters (also: missing `_meta` keys, bad `requestState`).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// `-32603`: internal error.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// `-32020`: an HTTP header disagrees with the body (e.g. `MCP-Protocol-Version`).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// `-32021`: the work needs a client capability the request did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// `-32022`: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// `-32042` (2025-11-25 only): the request needs the user to finish URL-mode
    /// elicitations first (`URLElicitationRequiredError`), listed in `data.elicitations`.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
}

impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        Self(code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The `error` member of an error response (`Error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: ErrorCode,
    /// A short description.
    pub message: String,
    /// Extra structured information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error without data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// The `data` of a `-32021` error (`MissingRequiredClientCapabilityError`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingCapabilityData {
    /// The capabilities the work needs, shaped like `ClientCapabilities`.
    pub required_capabilities: ClientCapabilities,
}

/// The `data` of a `-32022` error (`UnsupportedProtocolVersionError`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsupportedVersionData {
    /// The versions this server speaks.
    pub supported: Vec<String>,
    /// The version the client asked for.
    pub requested: String,
}

/// A successful response (`JSONRPCResultResponse`), generic over the result type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R = Value> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

impl<R> JsonRpcResultResponse<R> {
    /// A response to request `id`.
    pub fn new(id: RequestId, result: R) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            result,
        }
    }
}

/// An error response (`JSONRPCErrorResponse`).
///
/// `id` is `None` when the request's id could not be read (parse errors); it is then left out,
/// as the schema does not allow `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request this answers, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

impl JsonRpcErrorResponse {
    /// An error response to request `id`.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id,
            error,
        }
    }
}

/// Any response (`JSONRPCResponse`): a result or an error, told apart by the `error` member.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcResponse<R = Value> {
    /// A successful response.
    Result(JsonRpcResultResponse<R>),
    /// An error response.
    Error(JsonRpcErrorResponse),
}

impl<'de, R: Deserialize<'de>> Deserialize<'de> for JsonRpcResponse<R> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let is_error = value.get("error").is_some();
        if is_error {
            JsonRpcErrorResponse::deserialize(value)
                .map(Self::Error)
                .map_err(D::Error::custom)
        } else {
            JsonRpcResultResponse::<R>::deserialize(value)
                .map(Self::Result)
                .map_err(D::Error::custom)
        }
    }
}

/// Any JSON-RPC message (`JSONRPCMessage`).
///
/// Parsing looks at the members present: `method` with `id` is a request (so a request with a
/// malformed id fails instead of passing as a notification), `method` alone a notification,
/// anything else a response.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JsonRpcMessage {
    /// A request.
    Request(JsonRpcRequest),
    /// A notification.
    Notification(JsonRpcNotification),
    /// A response.
    Response(JsonRpcResponse),
}

impl<'de> Deserialize<'de> for JsonRpcMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        let object = value
            .as_object()
            .ok_or_else(|| D::Error::custom("a JSON-RPC message must be an object"))?;
        let parsed = match (object.contains_key("method"), object.contains_key("id")) {
            (true, true) => JsonRpcRequest::deserialize(value).map(Self::Request),
            (true, false) => JsonRpcNotification::deserialize(value).map(Self::Notification),
            (false, _) => JsonRpcResponse::deserialize(value).map(Self::Response),
        };
        parsed.map_err(D::Error::custom)
    }
}
