//! HTTP checks that run before a body is read: DNS-rebinding protection (`Host`, `Origin`),
//! `Content-Type`, `Accept`, body size.

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::server::Inner;

/// Hosts every server accepts: the loopback names.
const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// A plain HTTP rejection with a JSON-RPC error body (no id: the body was never read).
fn reject(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "error": { "code": code, "message": message },
    });
    let mut response = (status, body.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

pub(crate) fn too_large(limit: usize) -> Response {
    reject(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!("request body exceeds the limit of {limit} bytes"),
    )
}

/// The host name of a `Host` value or URL authority, lowercased and without its port
/// (`[::1]:8080` → `[::1]`, `LocalHost:3000` → `localhost`).
fn host_name(authority: &str) -> String {
    let authority = authority.trim().to_ascii_lowercase();
    if authority.starts_with('[') {
        match authority.find(']') {
            Some(end) => authority[..=end].to_owned(),
            None => authority,
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, _port)) => host.to_owned(),
            None => authority,
        }
    }
}

/// Whether a `Host` value names a loopback host, without allocating (the common case).
fn is_local_host(host: &str) -> bool {
    let host = host.trim();
    let name = if host.starts_with('[') {
        host.find(']').map_or(host, |end| &host[..=end])
    } else {
        host.rsplit_once(':').map_or(host, |(name, _port)| name)
    };
    LOCAL_HOSTS
        .iter()
        .any(|local| local.eq_ignore_ascii_case(name))
}

fn host_allowed(host: &str, inner: &Inner) -> bool {
    if is_local_host(host) {
        return true;
    }
    let name = host_name(host);
    inner
        .allowed_hosts
        .iter()
        .any(|allowed| allowed == "*" || *allowed == name || allowed == &host.to_ascii_lowercase())
}

fn origin_allowed(origin: &str, inner: &Inner) -> bool {
    let origin = origin.trim().to_ascii_lowercase();
    if inner
        .allowed_origins
        .iter()
        .any(|allowed| *allowed == origin || allowed == "*")
    {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https") && LOCAL_HOSTS.contains(&host_name(authority).as_str())
}

/// DNS-rebinding protection: the `Host` must be local or allow-listed, and an `Origin`, when
/// present, must be local or allow-listed. Refused with `403`: the rejection to answer, if any.
pub(crate) fn check_host_and_origin(
    headers: &HeaderMap,
    uri: &Uri,
    inner: &Inner,
) -> Option<Response> {
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .or_else(|| uri.authority().map(|authority| authority.as_str()));
    let host_ok = match host {
        Some(host) => host_allowed(host, inner),
        None => inner.allowed_hosts.iter().any(|allowed| allowed == "*"),
    };
    if !host_ok {
        tracing::warn!(host = ?host, "refused a request for a foreign host");
        return Some(reject(
            StatusCode::FORBIDDEN,
            -32600,
            "forbidden `Host` header",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let allowed = origin
            .to_str()
            .is_ok_and(|origin| origin_allowed(origin, inner));
        if !allowed {
            tracing::warn!(origin = ?origin, "refused a request from a foreign origin");
            return Some(reject(
                StatusCode::FORBIDDEN,
                -32600,
                "forbidden `Origin` header",
            ));
        }
    }
    None
}

/// The body must be declared `application/json` (parameters such as `charset` allowed).
pub(crate) fn check_content_type(headers: &HeaderMap) -> Option<Response> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("application/json") {
        None
    } else {
        Some(reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32600,
            "`Content-Type` must be `application/json`",
        ))
    }
}

/// The media ranges of the `Accept` header, without parameters (case as sent).
fn media_ranges(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|range| range.split(';').next().unwrap_or_default().trim())
        .filter(|range| !range.is_empty())
}

/// Whether a media range of the `Accept` header is one of `wanted` (ASCII case ignored);
/// `None` when the header names no range.
fn accepts_any(headers: &HeaderMap, wanted: &[&str]) -> Option<bool> {
    let mut ranges = media_ranges(headers).peekable();
    ranges.peek()?;
    Some(ranges.any(|range| wanted.iter().any(|want| range.eq_ignore_ascii_case(want))))
}

/// A client that sends `Accept` must accept JSON answers; refused with `406` otherwise.
/// Without an `Accept` header, anything goes.
pub(crate) fn check_accept(headers: &HeaderMap) -> Option<Response> {
    let json_ok = accepts_any(headers, &["application/json", "application/*", "*/*"]);
    if json_ok.unwrap_or(true) {
        None
    } else {
        Some(reject(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "`Accept` must include `application/json`",
        ))
    }
}

/// Whether the client accepts an event stream (required for progress notifications).
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    accepts_any(headers, &["text/event-stream", "text/*", "*/*"]).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts_are_recognised_with_any_port_and_case() {
        for host in [
            "localhost",
            "LocalHost:3000",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(is_local_host(host), "{host}");
        }
        for host in [
            "localhost.evil.com",
            "127.0.0.2",
            "[::2]:80",
            "",
            "evil:localhost",
        ] {
            assert!(!is_local_host(host), "{host}");
        }
    }

    #[test]
    fn host_names_lose_their_port_and_case() {
        assert_eq!(host_name("LocalHost:3000"), "localhost");
        assert_eq!(host_name("[::1]:8080"), "[::1]");
        assert_eq!(host_name("[::1]"), "[::1]");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        assert_eq!(host_name("evil.example.com:80"), "evil.example.com");
    }

    #[test]
    fn accept_ranges_are_parsed_with_parameters_and_wildcards() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0.9, Application/JSON"),
        );
        assert!(check_accept(&headers).is_none());
        assert!(accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert!(check_accept(&headers).is_some());
        assert!(!accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(check_accept(&headers).is_none() && accepts_event_stream(&headers));
    }

    #[test]
    fn content_type_parameters_are_ignored() {
        let mut headers = HeaderMap::new();
        assert!(check_content_type(&headers).is_some());
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        assert!(check_content_type(&headers).is_none());
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert!(check_content_type(&headers).is_some());
    }
}
