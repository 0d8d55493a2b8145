//! The JSON-RPC envelope and the stateless lifecycle checks every request passes first.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::RpcError;
use super::message::{Members, MethodMember, TopLevel};
use super::params::{CallParams, Params, ParamsMember, target_key};
use super::shape::is_valid_id;
use super::{RequestFacts, SUPPORTED_VERSIONS};
use crate::protocol::meta::{
    META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION,
};
use crate::protocol::{ErrorObject, LoggingLevel, ProgressToken};

/// One parsed JSON-RPC message. Its method is borrowed from the message unless escaped there.
#[derive(Debug)]
pub(crate) enum Envelope<'a> {
    /// A request: it gets an answer echoing `id`.
    Request {
        id: Value,
        method: Cow<'a, str>,
        params: Params<'a>,
    },
    /// A notification: nothing to answer.
    Notification {
        method: Cow<'a, str>,
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

/// Parses one JSON-RPC message.
///
/// The top level is read member by member into [`Members`](super::message::Members), not
/// built into a map first: only the members routing reads are kept, each as sent.
pub(crate) fn parse_envelope(message: &[u8]) -> Result<Envelope<'_>, Rejected> {
    // A call's `_meta` is first read in the shape clients send it every round (see
    // `call_meta`). In any other shape, or when the message does not parse, the message is
    // read again with `_meta` in a map, and the answer is the one that reading gives.
    let mut members = Members::default();
    let top = TopLevel::read(message, true, &mut members).or_else(|_| {
        members = Members::default();
        TopLevel::read(message, false, &mut members)
    });
    match top {
        Ok(TopLevel::Object) => {}
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
    }
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
        Some(MethodMember::Name(method)) => method,
        None if id.is_some() && (members.result.is_some() || members.error.is_some()) => {
            return response(echo(), members.result, members.error);
        }
        Some(MethodMember::NotAString) => {
            return Err((
                echo(),
                RpcError::invalid_request("`method` must be a string"),
            ));
        }
        None => return Err((echo(), RpcError::invalid_request("missing `method`"))),
    };
    if let Some(ParamsMember::Other) = members.params {
        return Err((
            echo(),
            RpcError::invalid_request("`params` must be an object"),
        ));
    }
    // Moved once, from where they were read to where they are returned: they are large.
    let params = |params| match params {
        Some(ParamsMember::Object(params)) => params,
        _ if target_key(&method).is_some() => Params::Call(CallParams::default()),
        _ => Params::Map(Map::new()),
    };
    match id {
        Some(id) => Ok(Envelope::Request {
            id,
            params: params(members.params),
            method,
        }),
        None => Ok(Envelope::Notification {
            params: params(members.params).into_map(),
            method,
        }),
    }
}

/// A JSON-RPC response: a `result`, or an `error` object.
fn response(
    id: Value,
    result: Option<Value>,
    error: Option<Value>,
) -> Result<Envelope<'static>, Rejected> {
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

/// What the lifecycle checks learned from a request's `_meta`.
#[derive(Debug)]
pub(crate) struct Meta {
    pub(crate) progress_token: Option<ProgressToken>,
    /// The least severe log messages the client wants for this request.
    pub(crate) log_level: Option<LoggingLevel>,
}

/// The stateless lifecycle: `_meta` present and complete, the HTTP header agreeing with it
/// (checked first), then a supported version.
pub(crate) fn check_meta(params: &Params<'_>, facts: &RequestFacts) -> Result<Meta, RpcError> {
    // Read in its usual shape, `_meta` passes every check but the version's.
    if let Params::Call(CallParams {
        meta: Some(meta), ..
    }) = params
    {
        check_version(&meta.read.version, facts)?;
        return Ok(Meta {
            progress_token: meta.read.progress_token.clone(),
            log_level: meta.read.log_level,
        });
    }
    let meta = match params.rest().get("_meta") {
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
    check_version(version, facts)?;
    let progress_token = match meta.get(META_PROGRESS_TOKEN) {
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

/// The HTTP header agreeing with `_meta`'s `version` (checked first), then a supported
/// version.
fn check_version(version: &str, facts: &RequestFacts) -> Result<(), RpcError> {
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
    Ok(())
}

/// The progress token of a request's `_meta`, on a legacy session (where `_meta` is optional).
pub(crate) fn progress_token(params: &Map<String, Value>) -> Option<ProgressToken> {
    let token = params.get("_meta")?.get(META_PROGRESS_TOKEN)?;
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
        // The method is borrowed from the message, unless it has to be unescaped.
        let plain = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(matches!(
            parse_envelope(plain),
            Ok(Envelope::Request {
                method: Cow::Borrowed("tools/list"),
                ..
            })
        ));
        let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/li\u0073t"}"#;
        assert!(matches!(
            parse_envelope(escaped),
            Ok(Envelope::Request { method: Cow::Owned(method), .. }) if method == "tools/list"
        ));
        for method in ["1", "null", "[\"x\"]", r#"{"a":[1]}"#] {
            let message = format!(r#"{{"jsonrpc":"2.0","id":2,"method":{method}}}"#);
            let (id, error) = rejected(&message);
            assert_eq!(
                (id, error.error.message.as_str()),
                (json!(2), "`method` must be a string"),
                "{method}"
            );
        }
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
            (id, &*method, params.rest().len()),
            (json!("x"), "tools/list", 0)
        );
    }

    fn meta(version: &str) -> Map<String, Value> {
        json!({"_meta": {META_PROTOCOL_VERSION: version, META_CLIENT_CAPABILITIES: {}}})
            .as_object()
            .unwrap()
            .clone()
    }

    /// `params` as a map, and as a call reads them (its `_meta` read by `call_meta`).
    fn both_ways(params: &Map<String, Value>) -> [Params<'static>; 2] {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        // The call's strings may be borrowed from the message: it lives as long as the test.
        let message: &'static str = message.to_string().leak();
        let Ok(Envelope::Request { params: call, .. }) = parse_envelope(message.as_bytes()) else {
            panic!("a call");
        };
        assert!(matches!(
            &call,
            Params::Call(CallParams { meta: Some(_), .. })
        ));
        [Params::Map(params.clone()), call]
    }

    #[test]
    fn a_meta_nested_near_the_parsers_limit_is_judged_as_in_a_map() {
        let capabilities = format!(r#""{META_CLIENT_CAPABILITIES}":{{}}"#);
        let (mut read_whole, mut refused) = (false, false);
        for depth in 118..132 {
            let deep = "[".repeat(depth) + &"]".repeat(depth);
            let message = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{{"{META_PROTOCOL_VERSION}":"2026-07-28",{capabilities},"d":{deep}}}}}}}"#
            );
            let read = parse_envelope(message.as_bytes()).map_err(|(_, error)| error.error.message);
            let mapped = TopLevel::read(message.as_bytes(), false, &mut Members::default())
                .map_err(|error| error.to_string());
            match (read, mapped) {
                (Ok(Envelope::Request { params, .. }), Ok(_)) => {
                    assert!(params.rest().contains_key("_meta"), "{depth}");
                    read_whole = true;
                }
                (Err(error), Err(expected)) => {
                    assert_eq!(error, format!("parse error: {expected}"), "{depth}");
                    refused = true;
                }
                _ => panic!("read differently at depth {depth}"),
            }
        }
        assert!(
            read_whole && refused,
            "the limit lies within the depths tried"
        );
    }

    #[test]
    fn header_mismatch_is_checked_before_version_support() {
        for params in both_ways(&meta("v9")) {
            let facts = RequestFacts::http(Some("2026-07-28".into()), None);
            assert_eq!(
                check_meta(&params, &facts).unwrap_err().code(),
                ErrorCode::HEADER_MISMATCH.0
            );
            let facts = RequestFacts::http(Some("v9".into()), None);
            assert_eq!(
                check_meta(&params, &facts).unwrap_err().code(),
                ErrorCode::UNSUPPORTED_PROTOCOL_VERSION.0
            );
        }
        for params in both_ways(&meta("2026-07-28")) {
            assert!(check_meta(&params, &RequestFacts::stdio()).is_ok());
            let missing = RequestFacts::http(None, None);
            assert_eq!(
                check_meta(&params, &missing).unwrap_err().code(),
                ErrorCode::HEADER_MISMATCH.0
            );
        }
    }

    #[test]
    fn incomplete_meta_is_invalid_params_with_status_400() {
        let empty = Params::Map(Map::new());
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
            check_meta(&Params::Map(no_caps), &RequestFacts::stdio())
                .unwrap_err()
                .code(),
            ErrorCode::INVALID_PARAMS.0
        );
    }
}
