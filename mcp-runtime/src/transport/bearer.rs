//! The OAuth resource server on the HTTP transport: bearer tokens checked before a request
//! is read, the subject derived from them, and the protected-resource metadata served.

use std::sync::Arc;

use axum::http::{HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};

use super::guard;
use crate::auth::{Claims, Denied};
use crate::protocol::ErrorCode;
use crate::server::Server;

/// The verified claims of the request's bearer token (`None` when the server has no OAuth
/// configuration), or the answer refusing it.
pub(crate) async fn authenticate(
    server: &Server,
    parts: &Parts,
) -> Result<Option<Arc<Claims>>, Response> {
    let Some(auth) = &server.inner.auth else {
        return Ok(None);
    };
    // Boxed: a token check may fetch keys, a large future that every request's future would
    // otherwise hold room for, and copy, with or without a resource server.
    match Box::pin(auth.authenticate(&parts.headers)).await {
        Ok(claims) => Ok(Some(claims)),
        Err(denied) => Err(denied_response(&denied)),
    }
}

fn denied_response(denied: &Denied) -> Response {
    let status = StatusCode::from_u16(denied.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let code = if status.is_server_error() {
        ErrorCode::INTERNAL_ERROR
    } else {
        ErrorCode::INVALID_REQUEST
    };
    let mut response = guard::reject(status, code.0, denied.message);
    let headers = response.headers_mut();
    if let Some(challenge) = denied
        .challenge
        .as_deref()
        .and_then(|challenge| HeaderValue::from_str(challenge).ok())
    {
        headers.insert(header::WWW_AUTHENTICATE, challenge);
    }
    if let Some(seconds) = denied.retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// The subject a request's states bind to: the subject hook's answer when it gives one (it
/// sees the verified claims in the request's extensions), else the token's subject.
pub(crate) fn subject(
    server: &Server,
    parts: &mut Parts,
    claims: Option<&Arc<Claims>>,
) -> Option<String> {
    if let Some(claims) = claims {
        parts.extensions.insert(Arc::clone(claims));
    }
    let hooked = server.inner.subject.as_ref().and_then(|hook| hook(parts));
    hooked.or_else(|| claims.map(|claims| claims.subject().to_owned()))
}

/// Whether `path` is where the server's protected-resource metadata is served.
pub(crate) fn serves_metadata(server: &Server, path: &str) -> bool {
    server
        .inner
        .auth
        .as_ref()
        .is_some_and(|auth| auth.metadata.serves(path))
}

/// The protected-resource metadata document, to `GET` (and `HEAD`); other methods get `405`.
/// Public and the same for everyone: any origin may read it.
pub(crate) fn metadata(server: &Server, method: &Method) -> Response {
    let Some(auth) = &server.inner.auth else {
        return StatusCode::NOT_FOUND.into_response();
    };
    if method != Method::GET && method != Method::HEAD {
        let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let mut response = auth.metadata.document.clone().into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    response
}
