//! JSON-RPC answers as [`Outcome`]s: results (serialised in place, or around bytes made in
//! advance), errors, and a legacy session's results in the older shape. Every path that
//! answers (dispatch, a call's rounds, a legacy session) builds its answer here.

use serde::Serialize;
use serde_json::Value;

use super::Outcome;
use super::error::RpcError;
use super::lifecycle::legacy_result;
use crate::logfield::untrusted;
use crate::protocol::{ErrorCode, ErrorObject};

/// A JSON-RPC response, serialised without an intermediate [`Value`].
#[derive(Serialize)]
struct Response<'a, R> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a R,
}

/// A result answer. A result that fails to serialise (a handler's own `Serialize` data
/// refusing, say) answers `-32603` instead.
pub(crate) fn result_outcome<R: Serialize>(id: &Value, result: &R) -> Outcome {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result,
    };
    match serde_json::to_vec(&response) {
        Ok(body) => Outcome::answer(200, body),
        Err(error) => unserialisable(id, &error),
    }
}

/// The answer to a result that did not serialise: `-32603`, and the reason in the log.
fn unserialisable(id: &Value, error: &serde_json::Error) -> Outcome {
    tracing::error!(id = %untrusted(&id.to_string()), %error, "a result did not serialise");
    error_outcome(id, &RpcError::internal("internal error"))
}

/// An answer around a result serialised in advance.
pub(crate) fn raw_result_outcome(id: &Value, raw_result: &str) -> Outcome {
    let id = serde_json::to_string(id).expect("a JSON value serialises");
    let mut body = Vec::with_capacity(raw_result.len() + id.len() + 40);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.as_bytes());
    body.extend_from_slice(br#","result":"#);
    body.extend_from_slice(raw_result.as_bytes());
    body.push(b'}');
    Outcome::answer(200, body)
}

/// A JSON-RPC error response; an unusable id (`null`) is left out, as the schema has no
/// `null` id.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Value::is_null")]
    id: &'a Value,
    error: &'a ErrorObject,
}

/// An error answer.
pub(crate) fn error_outcome(id: &Value, error: &RpcError) -> Outcome {
    let response = ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: &error.error,
    };
    let body = serde_json::to_vec(&response).expect("an error object serialises");
    let mut outcome = Outcome::error(error.status, body, error.code());
    outcome.challenge = error.challenge.as_deref().map(str::to_owned);
    outcome
}

/// A result answer on a legacy session: in the older shape.
pub(super) fn legacy_outcome<R: Serialize>(id: &Value, result: &R) -> Outcome {
    match legacy_result(result) {
        Ok(value) => result_outcome(id, &value),
        Err(error) => unserialisable(id, &error),
    }
}

impl RpcError {
    /// An error a handler returned on a legacy session, where every JSON-RPC error travels
    /// with HTTP 200 and `-32021` (a 2026-07-28 code) becomes `-32602`.
    pub(super) fn from_legacy_handler(mut error: ErrorObject) -> Self {
        if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY {
            error.code = ErrorCode::INVALID_PARAMS;
        }
        Self {
            error,
            status: 200,
            challenge: None,
        }
    }
}
