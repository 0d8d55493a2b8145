//! The standard request headers of revision 2026-07-28 over HTTP (SEP-2243): `Mcp-Method` on
//! every message, `Mcp-Name` on `tools/call`, `resources/read` and `prompts/get`, and the
//! `Mcp-Param-{Name}` headers a tool's `x-mcp-header` annotations ask for (`param_headers.rs`).
//!
//! Intermediaries route on these headers while the server runs what the body says, so a header
//! that is missing, malformed or disagrees with the body is refused with HTTP 400 and
//! `-32020` (`HeaderMismatch`) before anything runs. Header names are matched without regard
//! to case, values exactly. `Mcp-Name` and `Mcp-Param-*` values may carry the Base64 sentinel
//! (`=?base64?...?=`), decoded before they are compared. Legacy sessions and stdio have no such
//! headers.

use std::borrow::Cow;

use axum::http::header::{AsHeaderName, HeaderName};
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine as _;
use serde_json::Value;

use super::error::RpcError;
use crate::logfield::untrusted;

/// The header mirroring the JSON-RPC `method`.
pub(crate) static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// The header mirroring `params.name` or `params.uri`.
pub(crate) static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Checks `Mcp-Method` against `method` and, where the method names a target, `Mcp-Name`
/// against `params.name` or `params.uri`, which `lookup` finds by name.
pub(crate) fn check_standard<'p>(
    method: &str,
    lookup: impl Fn(&str) -> Option<&'p Value>,
    headers: &StandardHeaders,
) -> Result<(), RpcError> {
    match headers.method.text(&MCP_METHOD)? {
        None => return Err(mismatch("missing `Mcp-Method` header")),
        Some(value) if value == method => {}
        Some(value) => {
            return Err(mismatch(format!(
                "the `Mcp-Method` header `{}` does not match the body's method `{}`",
                untrusted(value),
                untrusted(method)
            )));
        }
    }
    let member = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return Ok(()),
    };
    let Some(value) = headers.name.text(&MCP_NAME)? else {
        return Err(mismatch(format!(
            "missing `Mcp-Name` header, required on `{method}`"
        )));
    };
    let name = decode(value).ok_or_else(|| mismatch("malformed `Mcp-Name` header"))?;
    match lookup(member) {
        Some(Value::String(body)) if *body == name => Ok(()),
        Some(Value::String(body)) => Err(mismatch(format!(
            "the `Mcp-Name` header `{}` does not match the body's `{member}` `{}`",
            untrusted(&name),
            untrusted(body)
        ))),
        _ => Err(mismatch(format!(
            "the `Mcp-Name` header names a target, but the body has no string `{member}`"
        ))),
    }
}

/// `Mcp-Method` and `Mcp-Name` as a request sent them, read with its other headers in one
/// walk (or looked up, for a transport that hands over only the map).
#[derive(Debug, Clone, Default)]
pub(crate) struct StandardHeaders {
    method: Sent,
    name: Sent,
}

/// A header as the request sent it: its first value, and whether another followed.
#[derive(Debug, Clone, Default)]
struct Sent {
    first: Option<HeaderValue>,
    repeated: bool,
}

impl Sent {
    fn of((first, repeated): (Option<&HeaderValue>, bool)) -> Self {
        Self {
            first: first.cloned(),
            repeated,
        }
    }

    /// As [`single`] reads header `name`, with the same refusals.
    fn text(&self, name: &HeaderName) -> Result<Option<&str>, RpcError> {
        only_text((self.first.as_ref(), self.repeated), name)
    }
}

impl StandardHeaders {
    /// From each header's first value, and whether another followed.
    pub(crate) fn new(
        method: (Option<&HeaderValue>, bool),
        name: (Option<&HeaderValue>, bool),
    ) -> Self {
        Self {
            method: Sent::of(method),
            name: Sent::of(name),
        }
    }

    /// Looked up in `headers`.
    pub(crate) fn read(headers: &HeaderMap) -> Self {
        Self::new(
            looked_up(headers, &MCP_METHOD),
            looked_up(headers, &MCP_NAME),
        )
    }
}

/// The only value of header `name` as text: `None` when absent; refused when repeated or not
/// visible ASCII (with spaces and tabs), as header values must be. A [`HeaderName`] is looked
/// up without being parsed again.
pub(crate) fn single<N>(headers: &HeaderMap, name: N) -> Result<Option<&str>, RpcError>
where
    N: AsHeaderName + std::fmt::Display + Copy,
{
    only_text(looked_up(headers, name), name)
}

/// Header `name`'s first value in `headers`, and whether another followed.
fn looked_up<N: AsHeaderName>(headers: &HeaderMap, name: N) -> (Option<&HeaderValue>, bool) {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    (first, values.next().is_some())
}

/// The only value of header `name`, sent as its first value and whether another followed,
/// as text: the refusals of [`single`].
fn only_text(
    (first, repeated): (Option<&HeaderValue>, bool),
    name: impl std::fmt::Display,
) -> Result<Option<&str>, RpcError> {
    let Some(first) = first else {
        return Ok(None);
    };
    if repeated {
        return Err(mismatch(format!("more than one `{name}` header")));
    }
    first
        .to_str()
        .map(Some)
        .map_err(|_| mismatch(format!("the `{name}` header holds invalid characters")))
}

/// A header value with the Base64 sentinel decoded: `=?base64?{standard Base64 of UTF-8}?=`,
/// or the value as it is. `None` when the sentinel holds no valid Base64 of UTF-8 text.
pub(crate) fn decode(value: &str) -> Option<Cow<'_, str>> {
    let Some(encoded) = value
        .strip_prefix(SENTINEL_PREFIX)
        .and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX))
    else {
        return Some(Cow::Borrowed(value));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

pub(crate) fn mismatch(message: impl Into<String>) -> RpcError {
    RpcError::header_mismatch(message)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn standard(headers: &HeaderMap) -> StandardHeaders {
        StandardHeaders::read(headers)
    }

    fn params(value: Value) -> serde_json::Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn code(result: Result<(), RpcError>) -> Option<(i64, u16)> {
        result.err().map(|error| (error.code(), error.status))
    }

    #[test]
    fn the_sentinel_is_decoded_and_other_values_kept() {
        assert_eq!(decode("us-west1").unwrap(), "us-west1");
        assert_eq!(
            decode("=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(),
            "Hello, 世界"
        );
        assert_eq!(decode("=?base64?IHBhZGRlZCA=?=").unwrap(), " padded ");
        assert_eq!(
            decode("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=").unwrap(),
            "=?base64?literal?="
        );
        assert!(decode("=?base64?not base64!?=").is_none());
        assert!(decode("=?base64?/w==?=").is_none(), "not UTF-8");
        // Markers are case-sensitive: anything else is a plain value.
        assert_eq!(decode("=?BASE64?SGk=?=").unwrap(), "=?BASE64?SGk=?=");
    }

    #[test]
    fn method_and_name_must_be_present_and_match() {
        let call = params(json!({"name": "get_weather"}));
        let ok = headers(&[("mcp-method", "tools/call"), ("mcp-name", "get_weather")]);
        assert!(check_standard("tools/call", |key| call.get(key), &standard(&ok)).is_ok());
        let mixed_case = headers(&[("Mcp-Method", "tools/call"), ("MCP-NAME", "get_weather")]);
        assert!(check_standard("tools/call", |key| call.get(key), &standard(&mixed_case)).is_ok());
        for bad in [
            headers(&[("mcp-name", "get_weather")]),
            headers(&[("mcp-method", "tools/list"), ("mcp-name", "get_weather")]),
            headers(&[("mcp-method", "Tools/Call"), ("mcp-name", "get_weather")]),
            headers(&[("mcp-method", "tools/call")]),
            headers(&[("mcp-method", "tools/call"), ("mcp-name", "other")]),
            headers(&[
                ("mcp-method", "tools/call"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "get_weather"),
            ]),
            headers(&[("mcp-method", "tools/call"), ("mcp-name", "=?base64?!!?=")]),
        ] {
            assert_eq!(
                code(check_standard(
                    "tools/call",
                    |key| call.get(key),
                    &standard(&bad)
                )),
                Some((-32020, 400)),
                "{bad:?}"
            );
        }
        let read = params(json!({"uri": "file:///projects/a b.json"}));
        let encoded = headers(&[
            ("mcp-method", "resources/read"),
            (
                "mcp-name",
                "=?base64?ZmlsZTovLy9wcm9qZWN0cy9hIGIuanNvbg==?=",
            ),
        ]);
        assert!(check_standard("resources/read", |key| read.get(key), &standard(&encoded)).is_ok());
        // Methods without a target need only `Mcp-Method`.
        let list = headers(&[("mcp-method", "tools/list")]);
        assert!(check_standard("tools/list", |_| None, &standard(&list)).is_ok());
    }
}
