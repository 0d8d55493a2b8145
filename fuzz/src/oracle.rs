//! Checks on what the server answers: every answer is a well-formed JSON-RPC message, and no
//! input, however wrong, is answered as the server's own failure.

use serde_json::{Map, Value};

/// The `-32603` answers a client can cause by itself, documented as failures of the call: a
/// flow kept answering past the server's round limit (`FlowLimits::max_rounds`), and a legacy
/// client that never answered the server's questions (`ServerBuilder::input_timeout`).
const CLIENT_CAUSED_INTERNAL: &[&str] = &[
    "the flow asked for input more than",
    "the client did not answer within",
];

/// Asserts that `body` is one JSON-RPC 2.0 response: `jsonrpc: "2.0"`, an `id`, and exactly
/// one of `result` or a well-formed `error`, which is not an internal error. When the request
/// had an `id` the server could read (`request_id`), the answer echoes it. Returns the
/// response.
pub fn response(body: &[u8], request_id: Option<&Value>, context: &dyn std::fmt::Display) -> Value {
    let value: Value = serde_json::from_slice(body).unwrap_or_else(|error| {
        panic!(
            "{context}: answer is not JSON ({error}): {}",
            String::from_utf8_lossy(body)
        )
    });
    let Some(object) = value.as_object() else {
        panic!("{context}: answer is not an object: {value}");
    };
    assert_eq!(
        object.get("jsonrpc"),
        Some(&Value::from("2.0")),
        "{context}: answer lacks `jsonrpc: \"2.0\"`: {value}"
    );
    // JSON-RPC 2.0 wants `"id": null` on an error whose request id could not be read; the MCP
    // schema (`JSONRPCErrorResponse`) lets an error leave `id` out, and this server does.
    let id = match object.get("id") {
        Some(id) => id,
        None if object.contains_key("error") => &Value::Null,
        None => panic!("{context}: answer has no `id`: {value}"),
    };
    assert!(
        matches!(id, Value::Null | Value::String(_) | Value::Number(_)),
        "{context}: answer's `id` is neither null, a string nor a number: {value}"
    );
    match (object.get("result"), object.get("error")) {
        (Some(result), None) => {
            assert!(
                result.is_object(),
                "{context}: `result` is not an object: {value}"
            );
            if let Some(expected) = request_id {
                assert_eq!(
                    id, expected,
                    "{context}: answer's `id` is not the request's"
                );
            }
        }
        (None, Some(error)) => {
            self::error(error, context);
            // A request whose envelope was refused may be answered with a null id.
            if let Some(expected) = request_id
                && !id.is_null()
            {
                assert_eq!(
                    id, expected,
                    "{context}: answer's `id` is not the request's"
                );
            }
        }
        _ => panic!("{context}: answer has not exactly one of `result` and `error`: {value}"),
    }
    value
}

/// Asserts that `error` is a JSON-RPC error object (integer `code`, string `message`) and not
/// an internal error (`-32603`), which no client input may cause.
pub fn error(error: &Value, context: &dyn std::fmt::Display) {
    let code = error.get("code").and_then(Value::as_i64);
    let message = error.get("message").and_then(Value::as_str);
    let (Some(code), Some(message)) = (code, message) else {
        panic!("{context}: malformed error object: {error}");
    };
    assert!(
        code != -32603
            || CLIENT_CAUSED_INTERNAL
                .iter()
                .any(|prefix| message.starts_with(prefix)),
        "{context}: internal error answered to client input: {error}"
    );
}

/// Asserts that a message the server sent before its answer (a notification, or a
/// server-to-client request on a legacy session) is a JSON-RPC request or notification.
pub fn outbound(message: &Value, context: &dyn std::fmt::Display) {
    let object = message
        .as_object()
        .unwrap_or_else(|| panic!("{context}: outbound message is not an object: {message}"));
    assert_eq!(
        object.get("jsonrpc"),
        Some(&Value::from("2.0")),
        "{context}: outbound message lacks `jsonrpc: \"2.0\"`: {message}"
    );
    assert!(
        object.get("method").is_some_and(Value::is_string),
        "{context}: outbound message has no method: {message}"
    );
    if let Some(params) = object.get("params") {
        assert!(
            params.is_object(),
            "{context}: outbound `params` is not an object: {message}"
        );
    }
}

/// The `id` of a request as a reader that takes the last of duplicate keys sees it, if the
/// message is a JSON object with a string or number id.
pub fn request_id(message: &[u8]) -> Option<Value> {
    let object: Map<String, Value> = serde_json::from_slice(message).ok()?;
    match object.get("id")? {
        id @ (Value::String(_) | Value::Number(_)) => Some(id.clone()),
        _ => None,
    }
}
