//! The JSON-RPC envelope and the stateless lifecycle checks every request passes first.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::RpcError;
use super::message::TopLevel;
use super::params::{CallParams, Params, ParamsMember, is_call};
use super::{RequestFacts, SUPPORTED_VERSIONS};
use crate::protocol::meta::{META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION};
use crate::protocol::{ErrorObject, LoggingLevel, ProgressToken};

/// One parsed JSON-RPC message.
#[derive(Debug)]
pub(crate) enum Envelope {
    /// A request: it gets an answer echoing `id`.
    Request {
        id: Value,
        method: String,
        params: Params,
    },
    /// A notification: nothing to answer.
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response to a server-to-client request (legacy sessions send those).
    Response {
        id: Value,
        reply: Result<Value, ErrorObject>,
    },
}

/// A message that cannot be routed, with the id to echo (`null` when none is usable).
pub(crate) type Rejected = (Value, RpcError);

/// The levels of a message around tool arguments or an answer's content: the message, its
/// `params`, `inputResponses`, the answer under its key.
pub(crate) const ENVELOPE_DEPTH: usize = 4;

/// Whether `message` nests arrays and objects deeper than `limit` levels. One pass over the
/// bytes that allocates nothing, so a message built to make parsing expensive is refused for
/// the price of reading it; brackets inside strings do not count.
pub(crate) fn nests_deeper_than(message: &[u8], limit: usize) -> bool {
    NestingScan::default().exceeds(message, limit)
}

/// [`nests_deeper_than`] over a message that arrives in pieces: each call scans the next
/// piece, so a transport can refuse a message before the rest of it has arrived.
#[derive(Debug, Default)]
pub(crate) struct NestingScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl NestingScan {
    /// Scans the next piece; whether the message so far nests deeper than `limit`. Inside a
    /// string it jumps to the next quote or backslash, as nothing there can nest.
    pub(crate) fn exceeds(&mut self, piece: &[u8], limit: usize) -> bool {
        let mut rest = piece;
        loop {
            if self.in_string {
                if self.escaped {
                    let Some((_, after)) = rest.split_first() else {
                        return false;
                    };
                    self.escaped = false;
                    rest = after;
                }
                let Some(at) = memchr::memchr2(b'"', b'\\', rest) else {
                    return false;
                };
                match rest[at] {
                    b'"' => self.in_string = false,
                    _ => self.escaped = true,
                }
                rest = &rest[at + 1..];
                continue;
            }
            // Outside strings: count brackets until the next string starts.
            let mut next = None;
            for (at, &byte) in rest.iter().enumerate() {
                match byte {
                    b'"' => {
                        next = Some(at + 1);
                        break;
                    }
                    b'[' | b'{' => {
                        self.depth += 1;
                        if self.depth > limit {
                            return true;
                        }
                    }
                    b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
            }
            let Some(next) = next else {
                return false;
            };
            self.in_string = true;
            rest = &rest[next..];
        }
    }
}

/// Parses one JSON-RPC message.
///
/// The top level is read member by member into [`Members`], not built into a map first: only
/// the members routing reads are kept, each as sent.
pub(crate) fn parse_envelope(message: &[u8]) -> Result<Envelope, Rejected> {
    let members = match serde_json::from_slice(message) {
        Ok(TopLevel::Object(members)) => members,
        Ok(TopLevel::Array) => {
            return Err((
                Value::Null,
                RpcError::invalid_request(
                    "batch requests are not supported; send one request per message",
                ),
            ));
        }
        Ok(TopLevel::Other) => {
            return Err((
                Value::Null,
                RpcError::invalid_request("a JSON-RPC message must be an object"),
            ));
        }
        Err(error) => return Err((Value::Null, RpcError::parse_error(error))),
    };
    let id = match members.id {
        None => None,
        Some(id) if is_valid_id(&id) => Some(id),
        Some(_) => {
            return Err((
                Value::Null,
                RpcError::invalid_request("`id` must be a string or an integer"),
            ));
        }
    };
    let echo = || id.clone().unwrap_or(Value::Null);
    if !members.version_2_0 {
        return Err((
            echo(),
            RpcError::invalid_request("`jsonrpc` must be \"2.0\""),
        ));
    }
    let method = match members.method {
        Some(Value::String(method)) => method,
        None if id.is_some() && (members.result.is_some() || members.error.is_some()) => {
            return response(echo(), members.result, members.error);
        }
        Some(_) => {
            return Err((
                echo(),
                RpcError::invalid_request("`method` must be a string"),
            ));
        }
        None => return Err((echo(), RpcError::invalid_request("missing `method`"))),
    };
    let params = match members.params {
        None | Some(ParamsMember::Null) if is_call(&method) => Params::Call(CallParams::default()),
        None | Some(ParamsMember::Null) => Params::Map(Map::new()),
        Some(ParamsMember::Object(params)) => params,
        Some(ParamsMember::Other) => {
            return Err((
                echo(),
                RpcError::invalid_request("`params` must be an object"),
            ));
        }
    };
    match id {
        Some(id) => Ok(Envelope::Request { id, method, params }),
        None => Ok(Envelope::Notification {
            method,
            params: params.into_map(),
        }),
    }
}

/// A JSON-RPC response: a `result`, or an `error` object.
fn response(id: Value, result: Option<Value>, error: Option<Value>) -> Result<Envelope, Rejected> {
    let reply = match (result, error) {
        (Some(result), None) => Ok(result),
        (None, Some(error)) => Err(serde_json::from_value::<ErrorObject>(error).map_err(|_| {
            (
                Value::Null,
                RpcError::invalid_request("a response's `error` must be an error object"),
            )
        })?),
        _ => {
            return Err((
                Value::Null,
                RpcError::invalid_request("a response carries either `result` or `error`"),
            ));
        }
    };
    Ok(Envelope::Response { id, reply })
}

/// Whether `id` is a request id the schema allows, one that is echoed exactly: a string, or
/// an integer that fits 64 bits. `1.5`, `-0`, `1e3` and `18446744073709551616` (which would
/// come back changed) are refused.
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(number) => number.is_i64() || number.is_u64(),
        _ => false,
    }
}

/// What the lifecycle checks learned from a request's `_meta`.
#[derive(Debug)]
pub(crate) struct Meta {
    pub(crate) progress_token: Option<ProgressToken>,
    /// The least severe log messages the client wants for this request.
    pub(crate) log_level: Option<LoggingLevel>,
}

/// The stateless lifecycle: `_meta` present and complete, the HTTP header agreeing with it
/// (checked first), then a supported version.
pub(crate) fn check_meta(
    params: &Map<String, Value>,
    facts: &RequestFacts,
) -> Result<Meta, RpcError> {
    let meta = match params.get("_meta") {
        Some(Value::Object(meta)) => meta,
        Some(_) => return Err(RpcError::invalid_meta("`_meta` must be an object")),
        None => return Err(RpcError::invalid_meta("missing `_meta`")),
    };
    let version = match meta.get(META_PROTOCOL_VERSION) {
        Some(Value::String(version)) => version.as_str(),
        Some(_) => {
            return Err(RpcError::invalid_meta(format!(
                "`_meta.{META_PROTOCOL_VERSION}` must be a string"
            )));
        }
        None => {
            return Err(RpcError::invalid_meta(format!(
                "missing `_meta.{META_PROTOCOL_VERSION}`"
            )));
        }
    };
    match meta.get(META_CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(RpcError::invalid_meta(format!(
                "`_meta.{META_CLIENT_CAPABILITIES}` must be an object"
            )));
        }
        None => {
            return Err(RpcError::invalid_meta(format!(
                "missing `_meta.{META_CLIENT_CAPABILITIES}`"
            )));
        }
    };
    if facts.http {
        match facts.protocol_version_header.as_deref() {
            Some(header) if header == version => {}
            Some(header) => {
                return Err(RpcError::header_mismatch(format!(
                    "the `MCP-Protocol-Version` header `{header}` does not match `_meta` version `{version}`"
                )));
            }
            None => {
                return Err(RpcError::header_mismatch(
                    "missing `MCP-Protocol-Version` header",
                ));
            }
        }
    }
    // Legacy versions are listed as supported, but only through `initialize`.
    if version != crate::protocol::PROTOCOL_VERSION {
        return Err(RpcError::unsupported_version(version, SUPPORTED_VERSIONS));
    }
    let progress_token = match meta.get("progressToken") {
        Some(token) if is_valid_id(token) => ProgressToken::deserialize(token).ok(),
        Some(_) => {
            return Err(RpcError::invalid_meta(
                "`_meta.progressToken` must be a string or an integer",
            ));
        }
        None => None,
    };
    let log_level = match meta.get(META_LOG_LEVEL) {
        None => None,
        Some(level) => Some(LoggingLevel::deserialize(level).map_err(|_| {
            RpcError::invalid_meta(format!("`_meta.{META_LOG_LEVEL}` must be a log level"))
        })?),
    };
    Ok(Meta {
        progress_token,
        log_level,
    })
}

/// The progress token of a request's `_meta`, on a legacy session (where `_meta` is optional).
pub(crate) fn progress_token(params: &Map<String, Value>) -> Option<ProgressToken> {
    let token = params.get("_meta")?.get("progressToken")?;
    is_valid_id(token)
        .then(|| ProgressToken::deserialize(token).ok())
        .flatten()
}

/// The members of 2026-07-28 results that the older schema does not have.
const MODERN_ONLY: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

/// A result without the members only 2026-07-28 has, as a legacy session sends it.
pub(crate) fn legacy_result<R: serde::Serialize>(result: &R) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(result)?;
    if let Some(object) = value.as_object_mut() {
        for member in MODERN_ONLY {
            object.remove(member);
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;
    use serde_json::json;

    fn rejected(message: &str) -> Rejected {
        parse_envelope(message.as_bytes()).unwrap_err()
    }

    #[test]
    fn envelope_errors_name_the_problem_and_echo_usable_ids() {
        assert_eq!(rejected("{").1.code(), ErrorCode::PARSE_ERROR.0);
        assert_eq!(rejected("[]").1.code(), ErrorCode::INVALID_REQUEST.0);
        let (id, error) = rejected(r#"{"jsonrpc":"2.0","id":0}"#);
        assert_eq!((id, error.code()), (json!(0), ErrorCode::INVALID_REQUEST.0));
        let (id, _) = rejected(r#"{"jsonrpc":"2.0","id":true,"method":"x"}"#);
        assert_eq!(id, Value::Null);
        let (id, _) = rejected(r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#);
        assert_eq!(id, json!("a"));
        let nested = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(rejected(&nested).1.code(), ErrorCode::PARSE_ERROR.0);
    }

    #[test]
    fn ids_that_would_come_back_changed_are_refused() {
        for id in [
            "1.5",
            "-0",
            "1e3",
            "18446744073709551616",
            "1.0",
            "true",
            "null",
        ] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let (echo, error) = rejected(&message);
            assert_eq!(
                (echo, error.code()),
                (Value::Null, ErrorCode::INVALID_REQUEST.0),
                "{id}"
            );
        }
        for id in [
            "0",
            "-9223372036854775808",
            "18446744073709551615",
            r#""x""#,
        ] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let Ok(Envelope::Request { id: echoed, .. }) = parse_envelope(message.as_bytes())
            else {
                panic!("{id} is a valid id")
            };
            assert_eq!(serde_json::to_string(&echoed).unwrap(), id);
        }
    }

    #[test]
    fn members_are_read_as_a_map_of_the_message_would_hold_them() {
        // A member sent twice keeps its last value; names are compared unescaped.
        let twice = br#"{"jsonrpc":"1.0","id":1,"jsonrpc":"2.0","method":"a","method":"b"}"#;
        let Ok(Envelope::Request { method, .. }) = parse_envelope(twice) else {
            panic!("a request")
        };
        assert_eq!(method, "b");
        let escaped = br#"{"jsonrpc":"2.0","\u0069d":7,"method":"ping"}"#;
        assert!(matches!(parse_envelope(escaped), Ok(Envelope::Request { id, .. }) if id == 7));
        // Any `jsonrpc` other than the string "2.0" is refused, the id still echoed.
        for version in [
            "2",
            "2.0",
            "null",
            r#"["2.0"]"#,
            r#"{"v":"2.0"}"#,
            r#""2.00""#,
        ] {
            let message = format!(r#"{{"jsonrpc":{version},"id":"x","method":"ping"}}"#);
            let (id, error) = rejected(&message);
            assert_eq!(
                (id, error.code()),
                (json!("x"), ErrorCode::INVALID_REQUEST.0),
                "{version}"
            );
        }
        // Members it does not route on are read whole: nested past the parser's limit, the
        // message is a parse error.
        let deep = "[".repeat(200) + &"]".repeat(200);
        let message = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","x":{deep}}}"#);
        assert_eq!(rejected(&message).1.code(), ErrorCode::PARSE_ERROR.0);
        for other in ["1", "\"text\"", "true", "null"] {
            assert_eq!(
                rejected(other).1.code(),
                ErrorCode::INVALID_REQUEST.0,
                "{other}"
            );
        }
    }

    #[test]
    fn nesting_is_measured_outside_strings() {
        assert!(!nests_deeper_than(br#"{"a":[[1]]}"#, 3));
        assert!(nests_deeper_than(br#"{"a":[[[1]]]}"#, 3));
        assert!(!nests_deeper_than(br#"{"a":"[[[[[[\"[[[["}"#, 1));
        assert!(!nests_deeper_than(br#"[[]],[[]],[[]]"#, 2));
        let deep = "[".repeat(120) + &"]".repeat(120);
        assert!(nests_deeper_than(deep.as_bytes(), 36));
        // In pieces, split anywhere (inside a string, after an escape), it judges alike.
        let message = br#"{"a":"[[\"[[","b":[[[1]]]}"#;
        for split in 0..message.len() {
            let mut scan = NestingScan::default();
            let (head, tail) = message.split_at(split);
            let deeper = scan.exceeds(head, 3) || scan.exceeds(tail, 3);
            assert_eq!(deeper, nests_deeper_than(message, 3), "split at {split}");
        }
    }

    #[test]
    fn the_nesting_scan_ends_strings_only_at_unescaped_quotes() {
        // An escaped backslash ends its escape: the quote after it closes the string.
        assert!(nests_deeper_than(br#"{"a":"\\","b":[[[1]]]}"#, 3));
        assert!(!nests_deeper_than(br#"{"a":"\\\"[[[[","b":[1]}"#, 3));
        let long = format!(r#"{{"s":"{}","t":[[1]]}}"#, "[x\\\\".repeat(500));
        assert!(!nests_deeper_than(long.as_bytes(), 3));
        assert!(nests_deeper_than(long.as_bytes(), 2));
        let message = br#"{"a":"\\","b":"\"[[","c":[[[1]]]}"#;
        for split in 0..message.len() {
            let mut scan = NestingScan::default();
            let (head, tail) = message.split_at(split);
            assert!(
                scan.exceeds(head, 3) || scan.exceeds(tail, 3),
                "split at {split}"
            );
        }
    }

    #[test]
    fn notifications_and_requests_are_told_apart() {
        let note = parse_envelope(br#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#);
        assert!(
            matches!(note, Ok(Envelope::Notification { method, .. }) if method == "notifications/cancelled")
        );
        let answer = parse_envelope(br#"{"jsonrpc":"2.0","id":3,"result":{"action":"decline"}}"#);
        assert!(
            matches!(answer, Ok(Envelope::Response { id, reply: Ok(result) }) if id == 3 && result["action"] == "decline")
        );
        let refused =
            parse_envelope(br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"no"}}"#);
        assert!(
            matches!(refused, Ok(Envelope::Response { reply: Err(error), .. }) if error.code.0 == -32602)
        );
        let request = parse_envelope(br#"{"jsonrpc":"2.0","id":"x","method":"tools/list"}"#);
        let Ok(Envelope::Request { id, method, params }) = request else {
            panic!("not a request")
        };
        assert_eq!(
            (id, method.as_str(), params.rest().len()),
            (json!("x"), "tools/list", 0)
        );
    }

    fn meta(version: &str) -> Map<String, Value> {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
            .as_object()
            .unwrap()
            .clone()
    }

    #[test]
    fn header_mismatch_is_checked_before_version_support() {
        let facts = RequestFacts::http(Some("2026-07-28".into()), None);
        assert_eq!(
            check_meta(&meta("v9"), &facts).unwrap_err().code(),
            ErrorCode::HEADER_MISMATCH.0
        );
        let facts = RequestFacts::http(Some("v9".into()), None);
        assert_eq!(
            check_meta(&meta("v9"), &facts).unwrap_err().code(),
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0
        );
        assert!(check_meta(&meta("2026-07-28"), &RequestFacts::stdio()).is_ok());
        let missing = RequestFacts::http(None, None);
        assert_eq!(
            check_meta(&meta("2026-07-28"), &missing)
                .unwrap_err()
                .code(),
            ErrorCode::HEADER_MISMATCH.0
        );
    }

    #[test]
    fn incomplete_meta_is_invalid_params_with_status_400() {
        let empty = Map::new();
        let error = check_meta(&empty, &RequestFacts::stdio()).unwrap_err();
        assert_eq!(
            (error.code(), error.status),
            (ErrorCode::INVALID_PARAMS.0, 400)
        );
        let mut no_caps = meta("2026-07-28");
        no_caps["_meta"]
            .as_object_mut()
            .unwrap()
            .remove(META_CLIENT_CAPABILITIES);
        assert_eq!(
            check_meta(&no_caps, &RequestFacts::stdio())
                .unwrap_err()
                .code(),
            ErrorCode::INVALID_PARAMS.0
        );
    }
}
