//! The OpenTelemetry trace context a request carries in `_meta` (`traceparent`, `tracestate`,
//! `baggage`, as revision 2026-07-28's `_meta` conventions reserve them): read, checked
//! against the W3C Trace Context and Baggage formats, bounded, and recorded on the request's
//! span. With the `opentelemetry` feature it also becomes the span's parent, for
//! applications that export spans through `tracing-opentelemetry`.
//!
//! A value that breaks its format, or is longer than its bound, is dropped whole (W3C Trace
//! Context asks a receiver to ignore an invalid `tracestate`, and to start a new trace on an
//! invalid `traceparent`): a hostile client can make a span no longer than the bounds below.

use serde_json::{Map, Value};
use tracing::Span;

/// `_meta` key of the W3C `traceparent`.
pub const META_TRACEPARENT: &str = "traceparent";
/// `_meta` key of the W3C `tracestate`.
pub const META_TRACESTATE: &str = "tracestate";
/// `_meta` key of the W3C `baggage`.
pub const META_BAGGAGE: &str = "baggage";

/// The longest `tracestate` kept, in bytes: the length W3C Trace Context lets a vendor
/// propagate at least, and beyond which it may cut.
pub const MAX_TRACESTATE: usize = 512;
/// The most list members a `tracestate` may hold (W3C Trace Context).
const MAX_TRACESTATE_MEMBERS: usize = 32;
/// The longest `baggage` kept, in bytes; longer baggage is dropped. W3C Baggage allows up to
/// 8192 bytes; a request's span holds at most this much of it.
pub const MAX_BAGGAGE: usize = 1024;
/// The most list members a `baggage` may hold (W3C Baggage).
const MAX_BAGGAGE_MEMBERS: usize = 64;

/// A request's trace context, every part checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TraceContext {
    /// `traceparent`, normalised to its version-00 form (55 characters).
    pub(crate) traceparent: Option<String>,
    pub(crate) tracestate: Option<String>,
    pub(crate) baggage: Option<String>,
}

impl TraceContext {
    /// The trace context in a request's `params._meta`; parts missing or invalid are `None`.
    pub(crate) fn of(params: &Map<String, Value>) -> Self {
        let Some(Value::Object(meta)) = params.get("_meta") else {
            return Self::default();
        };
        let text = |key: &str| meta.get(key).and_then(Value::as_str);
        let traceparent = text(META_TRACEPARENT).and_then(traceparent);
        // A `tracestate` means nothing without the `traceparent` it continues.
        let tracestate = text(META_TRACESTATE)
            .filter(|_| traceparent.is_some())
            .filter(|state| valid_tracestate(state))
            .map(str::to_owned);
        let baggage = text(META_BAGGAGE)
            .filter(|baggage| valid_baggage(baggage))
            .map(str::to_owned);
        Self {
            traceparent,
            tracestate,
            baggage,
        }
    }

    /// Records the trace context on `span` (the request span), and with the
    /// `opentelemetry` feature makes it the span's parent.
    pub(crate) fn record(&self, span: &Span) {
        if span.is_disabled() {
            return;
        }
        if let Some(traceparent) = &self.traceparent {
            span.record("traceparent", traceparent.as_str());
        }
        if let Some(tracestate) = &self.tracestate {
            span.record("tracestate", tracestate.as_str());
        }
        if let Some(baggage) = &self.baggage {
            span.record("baggage", baggage.as_str());
        }
        #[cfg(feature = "opentelemetry")]
        if let Some(traceparent) = &self.traceparent {
            super::otel::set_parent(
                span,
                traceparent,
                self.tracestate.as_deref(),
                self.baggage.as_deref(),
            );
        }
    }
}

/// `value` as a version-00 `traceparent` (`00-{trace id}-{parent id}-{flags}`), or `None`
/// when it is not one. A later version is read by its version-00 prefix, as W3C Trace Context
/// asks; version `ff` is invalid.
fn traceparent(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let version = value.get(..2)?;
    if !is_lower_hex(version) || version == "ff" {
        return None;
    }
    let prefix = match (version, bytes.len()) {
        ("00", 55) => value,
        ("00", _) => return None,
        (_, 55) => value,
        // A future version may append fields after a dash; only the prefix is read.
        (_, len) if len > 55 && bytes[55] == b'-' => &value[..55],
        _ => return None,
    };
    let mut parts = prefix.split('-');
    let (_, trace_id, parent_id, flags) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let shaped = trace_id.len() == 32
        && parent_id.len() == 16
        && flags.len() == 2
        && [trace_id, parent_id, flags]
            .iter()
            .all(|part| is_lower_hex(part))
        && trace_id.bytes().any(|b| b != b'0')
        && parent_id.bytes().any(|b| b != b'0');
    shaped.then(|| format!("00-{trace_id}-{parent_id}-{flags}"))
}

fn is_lower_hex(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `state` is a W3C `tracestate` of at most [`MAX_TRACESTATE`] bytes: up to 32
/// comma-separated `key=value` members (empty ones allowed), keys of `a-z 0-9 _ - * / @`,
/// values of printable ASCII without `,` and `=`.
fn valid_tracestate(state: &str) -> bool {
    if state.len() > MAX_TRACESTATE {
        return false;
    }
    let members: Vec<&str> = state
        .split(',')
        .map(|member| member.trim_matches([' ', '\t']))
        .filter(|member| !member.is_empty())
        .collect();
    members.len() <= MAX_TRACESTATE_MEMBERS
        && members.iter().all(|member| {
            let Some((key, value)) = member.split_once('=') else {
                return false;
            };
            let key_ok = !key.is_empty()
                && key.len() <= 256
                && key
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-*/@".contains(&b));
            let value_ok = !value.is_empty()
                && value.len() <= 256
                && value
                    .bytes()
                    .all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
                && !value.ends_with(' ');
            key_ok && value_ok
        })
}

/// Whether `baggage` is a W3C `baggage` of at most [`MAX_BAGGAGE`] bytes: comma-separated
/// `key=value` members (each with optional `;`-properties), in printable ASCII.
fn valid_baggage(baggage: &str) -> bool {
    if baggage.len() > MAX_BAGGAGE || !baggage.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        return false;
    }
    let members: Vec<&str> = baggage.split(',').collect();
    members.len() <= MAX_BAGGAGE_MEMBERS
        && members.iter().all(|member| {
            let pair = member.split(';').next().unwrap_or_default();
            let Some((key, value)) = pair.split_once('=') else {
                return false;
            };
            let key = key.trim_matches([' ', '\t']);
            !key.is_empty()
                && key.bytes().all(is_token_char)
                && value
                    .trim_matches([' ', '\t'])
                    .bytes()
                    .all(|b| b != b'"' && b != b'\\' && b != b' ')
        })
}

/// An RFC 7230 `tchar`.
fn is_token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

    fn of(meta: Value) -> TraceContext {
        let params = json!({ "_meta": meta });
        TraceContext::of(params.as_object().unwrap())
    }

    #[test]
    fn the_specs_example_is_read_whole() {
        let context = of(json!({
            "traceparent": PARENT,
            "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
            "baggage": "userId=alice,isProduction=false;p=1",
        }));
        assert_eq!(context.traceparent.as_deref(), Some(PARENT));
        assert_eq!(
            context.tracestate.as_deref(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        assert_eq!(
            context.baggage.as_deref(),
            Some("userId=alice,isProduction=false;p=1")
        );
    }

    #[test]
    fn malformed_traceparents_are_dropped() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7",
            "00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-extra",
            "zz-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "00_0af7651916cd43dd8448eb211c80319c_00f067aa0ba902b7_01",
        ] {
            assert_eq!(traceparent(bad), None, "{bad}");
        }
        assert!(of(json!({ "traceparent": 7 })).traceparent.is_none());
    }

    #[test]
    fn a_later_version_is_read_by_its_prefix() {
        let later = "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-what-comes";
        assert_eq!(
            traceparent(later).as_deref(),
            Some("00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
        );
    }

    #[test]
    fn oversized_or_invalid_state_and_baggage_are_dropped() {
        let long_state = format!("k={}", "v".repeat(MAX_TRACESTATE));
        let many = (0..40)
            .map(|i| format!("k{i}=v"))
            .collect::<Vec<_>>()
            .join(",");
        let long_baggage = format!("k={}", "v".repeat(MAX_BAGGAGE));
        for (state, baggage) in [
            (long_state.as_str(), long_baggage.as_str()),
            (many.as_str(), "no-equals-sign"),
            ("Upper=1", "k=v\u{7}"),
            ("k=a,b", "k=\"quoted\""),
        ] {
            let context = of(json!({
                "traceparent": PARENT, "tracestate": state, "baggage": baggage,
            }));
            assert_eq!(context.tracestate, None, "{state}");
            assert_eq!(context.baggage, None, "{baggage}");
        }
    }

    #[test]
    fn a_tracestate_without_its_traceparent_is_dropped() {
        let context = of(json!({ "tracestate": "rojo=1" }));
        assert_eq!(context, TraceContext::default());
    }
}
