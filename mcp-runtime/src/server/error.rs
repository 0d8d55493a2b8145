//! JSON-RPC errors as dispatch produces them, with the HTTP status each one travels under.

use serde_json::{Value, json};

use crate::protocol::{ErrorCode, ErrorObject};

/// A JSON-RPC error object plus the HTTP status it is answered with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) error: ErrorObject,
    pub(crate) status: u16,
    /// The `WWW-Authenticate` challenge it is answered with (boxed: errors travel in
    /// `Result`s, which stay small).
    pub(crate) challenge: Option<Box<str>>,
}

impl RpcError {
    fn new(code: ErrorCode, message: impl Into<String>, status: u16) -> Self {
        Self {
            error: ErrorObject::new(code, message),
            status,
            challenge: None,
        }
    }

    fn with_data(mut self, data: Value) -> Self {
        self.error.data = Some(data);
        self
    }

    /// The error code.
    pub(crate) fn code(&self) -> i64 {
        self.error.code.0
    }

    pub(crate) fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorCode::PARSE_ERROR,
            format!("parse error: {detail}"),
            400,
        )
    }

    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message, 400)
    }

    /// A message whose arguments or answers nest deeper than the server allows.
    pub(crate) fn too_deep(limit: usize) -> Self {
        Self::invalid_request(format!(
            "arguments and answers may nest arrays and objects {limit} levels deep at most"
        ))
    }

    pub(crate) fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: `{method}`"),
            404,
        )
    }

    /// Invalid parameters of a lifecycle kind (`_meta`): answered with HTTP 400.
    pub(crate) fn invalid_meta(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message, 400)
    }

    /// Invalid parameters of a method (arguments, answers, names): answered with HTTP 200.
    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message, 200)
    }

    pub(crate) fn unknown_resource(uri: &str) -> Self {
        Self::invalid_params("resource not found").with_data(json!({ "uri": uri }))
    }

    /// A legacy session's unknown method: HTTP 200, since legacy clients read any 404 as
    /// "session expired".
    pub(crate) fn legacy_method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: `{method}`"),
            200,
        )
    }

    /// An unknown or expired legacy session: HTTP 404, so that the client initialises again.
    pub(crate) fn session_not_found() -> Self {
        Self::new(
            ErrorCode::INVALID_REQUEST,
            "session not found; send `initialize` to open a new one",
            404,
        )
    }

    /// A call the caller's token lacks a scope for: HTTP 403 with `challenge`.
    pub(crate) fn insufficient_scope(challenge: String) -> Self {
        let mut error = Self::new(ErrorCode::INVALID_REQUEST, "insufficient scope", 403);
        error.challenge = Some(challenge.into_boxed_str());
        error
    }

    /// A scoped tool called without verified claims (a transport that hands none over, or
    /// stdio) on a server with OAuth: its scopes cannot be checked, so it is refused.
    pub(crate) fn no_claims(challenge: String) -> Self {
        let mut error = Self::new(
            ErrorCode::INVALID_REQUEST,
            "insufficient scope: this tool needs scopes and the request carries no verified \
             access token (a transport hands one over with `RequestFacts::with_claims`)",
            403,
        );
        error.challenge = Some(challenge.into_boxed_str());
        error
    }

    /// No capacity now: HTTP 503 with `Retry-After`, to be retried later.
    pub(crate) fn overloaded(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message, 503)
    }

    /// One client holds as much as it may (calls, streams or sessions of its own): HTTP 429
    /// with `Retry-After`; other clients are unaffected.
    pub(crate) fn too_many(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message, 429)
    }

    /// A request whose answer the client's `Accept` header refuses (HTTP `406`).
    pub(crate) fn not_acceptable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, message, 406)
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, message, 200)
    }

    pub(crate) fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, message, 400)
    }

    pub(crate) fn unsupported_version(requested: &str, supported: &[&str]) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            format!("unsupported protocol version `{requested}`"),
            400,
        )
        .with_data(json!({ "supported": supported, "requested": requested }))
    }

    /// Wraps an error a handler returned.
    ///
    /// The HTTP status follows the code: `-32021` and the other lifecycle codes are 400, every
    /// other handler error travels as a normal JSON-RPC answer (200).
    pub(crate) fn from_handler(error: ErrorObject) -> Self {
        let status = match error.code {
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorCode::HEADER_MISMATCH
            | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | ErrorCode::INVALID_REQUEST
            | ErrorCode::PARSE_ERROR => 400,
            ErrorCode::METHOD_NOT_FOUND => 404,
            _ => 200,
        };
        Self {
            error,
            status,
            challenge: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handler_errors_map_to_http_statuses_by_code() {
        let missing = ErrorObject::new(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY, "m")
            .with_data(json!({"requiredCapabilities": {"sampling": {}}}));
        let error = RpcError::from_handler(missing);
        assert_eq!((error.code(), error.status), (-32021, 400));
        let invalid = RpcError::from_handler(ErrorObject::new(ErrorCode::INVALID_PARAMS, "bad"));
        assert_eq!((invalid.code(), invalid.status), (-32602, 200));
    }

    #[test]
    fn unsupported_version_carries_both_members() {
        let error = RpcError::unsupported_version("v9", &["2026-07-28"]);
        let data = error.error.data.unwrap();
        assert_eq!(data["requested"], "v9");
        assert_eq!(data["supported"], json!(["2026-07-28"]));
        assert_eq!(error.status, 400);
    }
}
