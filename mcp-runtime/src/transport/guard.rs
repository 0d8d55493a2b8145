//! HTTP checks that run before a body is read: DNS-rebinding protection (`Host`, `Origin`),
//! and body size (`Content-Type` and `Accept` are `media.rs`); the rejections the transport
//! answers.

use std::borrow::Cow;
use std::net::Ipv6Addr;

use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::head::Head;
use crate::logfield::{RateLimit, untrusted, warn_limited};
use crate::server::Inner;

/// Refused `Host` and `Origin` headers are logged at most 10 times every 5 seconds.
static REFUSED_HOST: RateLimit = RateLimit::new(10, std::time::Duration::from_secs(5));

/// Hosts every server accepts: the loopback names.
const LOCAL_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// A plain HTTP rejection with a JSON-RPC error body (no id: the body was never read).
pub(crate) fn reject(status: StatusCode, code: i64, message: &str) -> Response {
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

/// How long a client refused for want of capacity is told to wait, in seconds: by the
/// concurrency cap, and by every other `503` (a replay store that failed, a round whose first
/// use still runs, no room for a legacy session).
pub(crate) const RETRY_AFTER_SECONDS: u32 = 1;

/// The server is handling as many requests as it may: `503` with `Retry-After`.
pub(crate) fn overloaded(max: usize) -> Response {
    let mut response = reject(
        StatusCode::SERVICE_UNAVAILABLE,
        -32603,
        &format!(
            "the server is handling {max} requests, its most at once; retry after \
             {RETRY_AFTER_SECONDS} s"
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// The caller already has `max` requests in flight, its most at once: `429` with
/// `Retry-After`. Other callers are not affected.
pub(crate) fn too_many(max: usize) -> Response {
    let mut response = reject(
        StatusCode::TOO_MANY_REQUESTS,
        -32600,
        &format!(
            "this client has {max} requests in flight, its most at once; retry after \
             {RETRY_AFTER_SECONDS} s"
        ),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// The body did not arrive within the body timeout: `408`, and the connection closes (the
/// rest of the body would be read as the next request).
pub(crate) fn body_timeout(timeout: std::time::Duration) -> Response {
    tracing::debug!(?timeout, "a request body did not arrive in time");
    let mut response = reject(
        StatusCode::REQUEST_TIMEOUT,
        -32600,
        &format!(
            "the request body did not arrive within {} s",
            timeout.as_secs_f64()
        ),
    );
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

pub(crate) fn too_large(limit: usize) -> Response {
    reject(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!("request body exceeds the limit of {limit} bytes"),
    )
}

/// A host as a `Host` header, an absolute-form request target or an `Origin` names it: the
/// name lowercased (an IPv6 literal keeps its brackets), and the port when one is given. The
/// name is borrowed from the text it was read from unless lowering its case changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPort<'a> {
    name: Cow<'a, str>,
    port: Option<u16>,
}

impl<'a> HostPort<'a> {
    /// Parses an authority strictly: `host` or `host:port`, where `host` is a DNS name, an
    /// IPv4 address or a bracketed IPv6 address and `port` is 1 to 5 digits below 65536.
    /// User information (`user@`), an empty or non-numeric port, and anything after the host
    /// (`[::1]evil`) are refused (`http::uri::Authority` would accept all three).
    fn parse(text: &'a str) -> Option<Self> {
        // A bracketed IPv6 literal ends at its `]`; any other host at the first `:`.
        let bracketed = text.starts_with('[');
        let host_end = if bracketed {
            text.bytes().position(|byte| byte == b']')? + 1
        } else {
            text.bytes()
                .position(|byte| byte == b':')
                .unwrap_or(text.len())
        };
        let (host, rest) = text.split_at(host_end);
        let port = port(rest.as_bytes())?;
        // A name's characters checked, and whether any is uppercase, in one pass.
        let mut uppercase = false;
        let valid = if bracketed {
            uppercase = host.bytes().any(|byte| byte.is_ascii_uppercase());
            host.strip_prefix('[')
                .and_then(|literal| literal.strip_suffix(']'))
                .is_some_and(|address| address.parse::<Ipv6Addr>().is_ok())
        } else {
            !host.is_empty()
                && host.bytes().all(|byte| {
                    uppercase |= byte.is_ascii_uppercase();
                    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_')
                })
        };
        if !valid {
            return None;
        }
        let name = if uppercase {
            Cow::Owned(host.to_ascii_lowercase())
        } else {
            Cow::Borrowed(host)
        };
        Some(Self { name, port })
    }

    /// Whether this is a loopback name: `localhost`, `127.0.0.1` or `[::1]` (any spelling).
    fn is_local(&self) -> bool {
        match self
            .name
            .strip_prefix('[')
            .and_then(|name| name.strip_suffix(']'))
        {
            Some(address) => address
                .parse::<Ipv6Addr>()
                .is_ok_and(|address| address == Ipv6Addr::LOCALHOST),
            None => LOCAL_HOSTS.contains(&&*self.name),
        }
    }

    /// Whether an [`allow_host`](crate::server::ServerBuilder::allow_host) entry names this
    /// host: `*`, the bare name (any port) or `name:port`.
    fn allowed_by(&self, entry: &str) -> bool {
        if entry == "*" || entry == self.name {
            return true;
        }
        self.port.is_some_and(|port| {
            entry
                .strip_prefix(&*self.name)
                .and_then(|rest| rest.strip_prefix(':'))
                .is_some_and(|entry_port| entry_port.parse() == Ok(port))
        })
    }
}

/// What follows a host: nothing, or `:` and 1 to 5 digits below 65536, the port. `None` when
/// it is neither.
fn port(rest: &[u8]) -> Option<Option<u16>> {
    match rest {
        [] => Some(None),
        [b':', digits @ ..] if (1..=5).contains(&digits.len()) => {
            // At most five digits: no overflow before the bound is checked.
            let mut port = 0u32;
            for &byte in digits {
                if !byte.is_ascii_digit() {
                    return None;
                }
                port = port * 10 + u32::from(byte - b'0');
            }
            Some(Some(u16::try_from(port).ok()?))
        }
        _ => None,
    }
}

fn origin_allowed(origin: &HeaderValue, inner: &Inner) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.to_ascii_lowercase();
    if inner
        .allowed_origins
        .iter()
        .any(|allowed| *allowed == origin || allowed == "*")
    {
        return true;
    }
    // A serialised origin is `scheme://host[:port]`, nothing before or after.
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https")
        && !authority.contains(['/', '?', '#'])
        && HostPort::parse(authority).is_some_and(|host| host.is_local())
}

/// The host a request is for: an absolute-form target's authority, which must then agree
/// with `Host`, else the `Host` header; `Ok(None)` when neither names one, `Err` with the
/// reason when either is malformed or they disagree.
fn requested_host<'a>(head: &Head<'a>, uri: &'a Uri) -> Result<Option<HostPort<'a>>, &'static str> {
    let header = head
        .host
        .single()
        .map_err(|()| "more than one `Host` header")?;
    let host = match header {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(HostPort::parse)
                .ok_or("malformed `Host` header")?,
        ),
        None => None,
    };
    let Some(target) = uri.authority() else {
        return Ok(host);
    };
    let target = HostPort::parse(target.as_str()).ok_or("malformed request target")?;
    match host {
        Some(host) if host != target => {
            Err("the `Host` header and the request target name different hosts")
        }
        _ => Ok(Some(target)),
    }
}

/// DNS-rebinding protection: the request must name one well-formed host (`Host`, or an
/// absolute-form target agreeing with it), local or allow-listed; and an `Origin`, when
/// present, must be one well-formed local or allow-listed origin. A missing, repeated or
/// malformed `Host` (or `Origin` repeated) is refused with `400`, a foreign host or origin
/// with `403`: the rejection to answer, if any. Refusals are logged at a bounded rate (any
/// client can send them on every request). Behind `allow_host("*")` a request without
/// `Host` is served.
pub(crate) fn check_host_and_origin(head: &Head<'_>, uri: &Uri, inner: &Inner) -> Option<Response> {
    if !names_loopback(head, uri)
        && let Some(rejection) = check_host(head, uri, inner)
    {
        return Some(rejection);
    }
    check_origin(head, inner)
}

/// Whether the request names a loopback host as nearly every local client spells it: one
/// `Host` header, `localhost`, `127.0.0.1` or `[::1]` in lowercase with or without a port,
/// and no absolute-form target. Every server accepts such a host, as [`check_host`] would
/// after parsing it; any other spelling is left to [`check_host`].
fn names_loopback(head: &Head<'_>, uri: &Uri) -> bool {
    let Ok(Some(value)) = head.host.single() else {
        return false;
    };
    let value = value.as_bytes();
    uri.authority().is_none()
        && LOCAL_HOSTS.iter().any(|local| {
            value
                .strip_prefix(local.as_bytes())
                .is_some_and(|rest| port(rest).is_some())
        })
}

/// The `Host` half of [`check_host_and_origin`]: the rejection to answer, if any.
fn check_host(head: &Head<'_>, uri: &Uri, inner: &Inner) -> Option<Response> {
    let host = match requested_host(head, uri) {
        Ok(host) => host,
        Err(reason) => {
            warn_limited!(
                REFUSED_HOST,
                reason,
                "refused a request with a malformed host"
            );
            return Some(reject(StatusCode::BAD_REQUEST, -32600, reason));
        }
    };
    let host_ok = match &host {
        Some(host) => {
            host.is_local()
                || inner
                    .allowed_hosts
                    .iter()
                    .any(|allowed| host.allowed_by(allowed))
        }
        None => inner.allowed_hosts.iter().any(|allowed| allowed == "*"),
    };
    if !host_ok {
        let name = host.as_ref().map_or("", |host| &*host.name);
        warn_limited!(
            REFUSED_HOST,
            host = %untrusted(name),
            "refused a request for a foreign host"
        );
        return Some(match host {
            Some(_) => reject(StatusCode::FORBIDDEN, -32600, "forbidden `Host` header"),
            None => reject(StatusCode::BAD_REQUEST, -32600, "missing `Host` header"),
        });
    }
    None
}

/// The `Origin` half of [`check_host_and_origin`]: the rejection to answer, if any.
fn check_origin(head: &Head<'_>, inner: &Inner) -> Option<Response> {
    let origin = match head.origin.single() {
        Ok(origin) => origin,
        Err(()) => {
            warn_limited!(
                REFUSED_HOST,
                "refused a request with more than one `Origin` header"
            );
            return Some(reject(
                StatusCode::BAD_REQUEST,
                -32600,
                "more than one `Origin` header",
            ));
        }
    };
    if let Some(origin) = origin
        && !origin_allowed(origin, inner)
    {
        let origin = String::from_utf8_lossy(origin.as_bytes());
        warn_limited!(
            REFUSED_HOST,
            origin = %untrusted(&origin),
            "refused a request from a foreign origin"
        );
        return Some(reject(
            StatusCode::FORBIDDEN,
            -32600,
            "forbidden `Origin` header",
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use axum::http::header::HOST;

    use super::*;

    fn local(text: &str) -> bool {
        HostPort::parse(text).is_some_and(|host| host.is_local())
    }

    #[test]
    fn local_hosts_are_recognised_with_any_port_and_case() {
        for host in [
            "localhost",
            "LocalHost:3000",
            "127.0.0.1:80",
            "[::1]",
            "[::1]:8080",
            "[0:0:0:0:0:0:0:1]",
        ] {
            assert!(local(host), "{host}");
        }
        for host in [
            "localhost.evil.com",
            "127.0.0.2",
            "[::2]:80",
            "",
            "evil:localhost",
            "localhost:evil.com",
            "localhost:80@evil.com",
            "[::1]evil",
            "localhost:",
            "localhost:+80",
            "localhost:99999",
            "localhost:000080",
            "[::1",
            "[v1.x]",
        ] {
            assert!(!local(host), "{host}");
        }
    }

    #[test]
    fn hosts_parse_to_a_lowercase_name_and_a_numeric_port() {
        let parsed = HostPort::parse("LocalHost:3000").unwrap();
        assert_eq!(parsed.name, "localhost");
        assert_eq!(parsed.port, Some(3000));
        assert_eq!(HostPort::parse("[::1]").unwrap().name, "[::1]");
        assert_eq!(HostPort::parse("[::FfFf:1]:8").unwrap().name, "[::ffff:1]");
        assert_eq!(HostPort::parse("h:00080").unwrap().port, Some(80));
        assert_eq!(HostPort::parse("h:65535").unwrap().port, Some(65535));
        assert_eq!(HostPort::parse("evil.example.com").unwrap().port, None);
        // Separated by spaces: none of these holds one.
        let ports = "h: h:65536 h:123456 h:8x [::1]evil [::1]: [::1 [zz]".split(' ');
        let names = ["a@b", "a b", "a:1:2", ":80", "%65vil.com", "exa$mple.com"];
        for malformed in names.into_iter().chain(ports) {
            assert!(HostPort::parse(malformed).is_none(), "{malformed}");
        }
    }

    /// The loopback spellings taken without parsing are taken only where the parse finds the
    /// same local host; every other value is left to the parse.
    #[test]
    fn loopback_hosts_taken_unparsed_are_those_the_parse_finds_local() {
        let values = [
            "localhost",
            "localhost:3000",
            "127.0.0.1:80",
            "127.0.0.1:65535",
            "[::1]",
            "[::1]:8080",
        ];
        let parsed_only = [
            "LocalHost:3000",
            "[0:0:0:0:0:0:0:1]",
            "127.0.0.1:65536",
            "127.0.0.1:",
            "127.0.0.1:123456",
            "localhost:+80",
            "localhost:80@evil.com",
            "localhost.evil.com",
            "localhost:evil.com",
            "[::1]evil",
            "127.0.0.10",
            "127.0.0.1 ",
            "evil.example.com",
        ];
        let head_of = |value: &str| {
            let mut headers = axum::http::HeaderMap::new();
            headers.insert(HOST, HeaderValue::from_str(value).unwrap());
            headers
        };
        let origin_form = Uri::from_static("/mcp");
        for value in values {
            let headers = head_of(value);
            let head = Head::read(&headers);
            assert!(names_loopback(&head, &origin_form), "{value}");
            let parsed = requested_host(&head, &origin_form).unwrap().unwrap();
            assert!(parsed.is_local(), "{value}");
            // Beside an absolute-form target, the parse decides.
            let target = Uri::from_static("http://localhost/mcp");
            assert!(!names_loopback(&head, &target), "{value}");
        }
        for value in parsed_only {
            let headers = head_of(value);
            assert!(
                !names_loopback(&Head::read(&headers), &origin_form),
                "{value}"
            );
        }
        let mut twice = head_of("localhost");
        twice.append(HOST, HeaderValue::from_static("localhost"));
        assert!(!names_loopback(&Head::read(&twice), &origin_form));
    }

    #[test]
    fn allow_host_entries_match_the_name_or_the_name_and_port() {
        let host = HostPort::parse("mcp.example.com:8443").unwrap();
        assert!(host.allowed_by("mcp.example.com"));
        assert!(host.allowed_by("mcp.example.com:8443"));
        assert!(host.allowed_by("*"));
        assert!(!host.allowed_by("mcp.example.com:80"));
        assert!(!host.allowed_by("example.com"));
        assert!(
            !HostPort::parse("mcp.example.com")
                .unwrap()
                .allowed_by("mcp.example.com:80")
        );
    }
}
