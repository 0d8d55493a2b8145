//! HTTP checks that run before a body is read: DNS-rebinding protection (`Host`, `Origin`),
//! `Content-Type`, `Accept`, body size.

use std::borrow::Cow;
use std::cell::RefCell;
use std::net::Ipv6Addr;

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
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
        let port = match rest.as_bytes() {
            [] => None,
            [b':', digits @ ..] if (1..=5).contains(&digits.len()) => {
                // At most five digits: no overflow before the bound is checked.
                let mut port = 0u32;
                for &byte in digits {
                    if !byte.is_ascii_digit() {
                        return None;
                    }
                    port = port * 10 + u32::from(byte - b'0');
                }
                Some(u16::try_from(port).ok()?)
            }
            _ => return None,
        };
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

/// The body must be declared `application/json` (parameters such as `charset` allowed).
pub(crate) fn check_content_type(head: &Head<'_>) -> Option<Response> {
    let value = head.content_type.first;
    // As nearly every client sends it: accepted without being taken apart.
    if value.is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"application/json")) {
        return None;
    }
    let content_type = value
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

/// A client that sends `Accept` must accept JSON answers: `None` when it does not (answer
/// [`not_acceptable`]). Without an `Accept` header, anything goes. Otherwise says whether the
/// client accepts an event stream, from the same one pass over the header.
///
/// A client sends the same `Accept` text on every request, so each thread remembers the
/// verdict on its last [`ACCEPT_REMEMBERED`] texts (one header of at most
/// [`ACCEPT_REMEMBERED_LEN`] bytes each); equal texts get equal verdicts.
pub(crate) fn check_accept(head: &Head<'_>) -> Option<bool> {
    let headers = head.headers;
    let text = match head.accept.single() {
        Ok(Some(text)) => text.as_bytes(),
        // No range: anything goes, and no event stream.
        Ok(None) => return Some(false),
        Err(()) => return judge_accept(headers),
    };
    if text.len() > ACCEPT_REMEMBERED_LEN {
        return judge_accept(headers);
    }
    RECENT_ACCEPT.with_borrow_mut(|recent| {
        if let Some((_, verdict)) = recent.texts.iter().find(|(seen, _)| **seen == *text) {
            return *verdict;
        }
        let verdict = judge_accept(headers);
        let entry = (Box::from(text), verdict);
        if recent.texts.len() < ACCEPT_REMEMBERED {
            recent.texts.push(entry);
        } else {
            recent.texts[recent.next] = entry;
            recent.next = (recent.next + 1) % ACCEPT_REMEMBERED;
        }
        verdict
    })
}

/// How many `Accept` texts each thread remembers the verdict on.
const ACCEPT_REMEMBERED: usize = 4;
/// The longest `Accept` text remembered, in bytes; longer ones are read each time.
const ACCEPT_REMEMBERED_LEN: usize = 128;

thread_local! {
    /// The last few `Accept` texts judged on this thread, with their verdicts: at most
    /// [`ACCEPT_REMEMBERED`] texts of [`ACCEPT_REMEMBERED_LEN`] bytes a thread.
    static RECENT_ACCEPT: RefCell<RecentAccept> =
        const { RefCell::new(RecentAccept { texts: Vec::new(), next: 0 }) };
}

struct RecentAccept {
    texts: Vec<(Box<[u8]>, Option<bool>)>,
    /// The one to replace next, once all are taken.
    next: usize,
}

/// [`check_accept`]'s verdict, read from the header's media ranges.
fn judge_accept(headers: &HeaderMap) -> Option<bool> {
    const JSON: [&str; 3] = ["application/json", "application/*", "*/*"];
    const EVENT_STREAM: [&str; 3] = ["text/event-stream", "text/*", "*/*"];
    let (mut any, mut json, mut event_stream) = (false, false, false);
    for range in media_ranges(headers) {
        any = true;
        json |= JSON.iter().any(|want| range.eq_ignore_ascii_case(want));
        event_stream |= EVENT_STREAM
            .iter()
            .any(|want| range.eq_ignore_ascii_case(want));
    }
    (json || !any).then_some(event_stream)
}

/// The answer to a client whose `Accept` header leaves out JSON: `406`.
pub(crate) fn not_acceptable() -> Response {
    reject(
        StatusCode::NOT_ACCEPTABLE,
        -32600,
        "`Accept` must include `application/json`",
    )
}

/// Whether the client accepts an event stream (required for progress notifications).
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    accepts_any(headers, &["text/event-stream", "text/*", "*/*"]).unwrap_or(false)
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn accept_ranges_are_parsed_with_parameters_and_wildcards() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0.9, Application/JSON"),
        );
        assert_eq!(check_accept(&Head::read(&headers)), Some(true));
        assert!(accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert_eq!(check_accept(&Head::read(&headers)), None);
        assert!(!accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(
            check_accept(&Head::read(&headers)) == Some(true) && accepts_event_stream(&headers)
        );
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(check_accept(&Head::read(&headers)), Some(false));
        headers.remove(header::ACCEPT);
        assert_eq!(check_accept(&Head::read(&headers)), Some(false));
        assert!(!accepts_event_stream(&headers));
    }

    /// Texts judged in turn, more of them than a thread remembers, and again: each time the
    /// verdict of reading the header afresh.
    #[test]
    fn remembered_accept_verdicts_match_reading_the_header() {
        let long = format!(
            "text/html, {}application/json",
            " ".repeat(ACCEPT_REMEMBERED_LEN)
        );
        let texts = [
            "application/json, text/event-stream",
            "text/html",
            "application/json",
            "TEXT/*;q=0.5, application/*",
            "text/event-stream",
            "*/*",
            long.as_str(),
        ];
        for _ in 0..3 {
            for text in texts {
                let mut headers = HeaderMap::new();
                headers.insert(header::ACCEPT, HeaderValue::from_str(text).unwrap());
                assert_eq!(
                    check_accept(&Head::read(&headers)),
                    judge_accept(&headers),
                    "{text}"
                );
            }
        }
        let mut both = HeaderMap::new();
        both.append(header::ACCEPT, HeaderValue::from_static("text/html"));
        both.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(check_accept(&Head::read(&both)), Some(false));
    }

    #[test]
    fn content_type_parameters_are_ignored() {
        let mut headers = HeaderMap::new();
        assert!(check_content_type(&Head::read(&headers)).is_some());
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        assert!(check_content_type(&Head::read(&headers)).is_none());
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert!(check_content_type(&Head::read(&headers)).is_some());
        // The bare type, in any case, and with spaces around it.
        for accepted in ["application/json", "Application/JSON", " application/json "] {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(accepted));
            assert!(
                check_content_type(&Head::read(&headers)).is_none(),
                "{accepted}"
            );
        }
        for refused in ["application/jsonx", "application/json-seq", "application"] {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(refused));
            assert!(
                check_content_type(&Head::read(&headers)).is_some(),
                "{refused}"
            );
        }
    }
}
