//! The `opentelemetry` feature: a request's checked trace context (`trace_context.rs`) as the
//! OpenTelemetry parent of its `request` span, for subscribers with a `tracing_opentelemetry`
//! layer. Without such a layer nothing happens.

use opentelemetry::baggage::BaggageExt as _;
use opentelemetry::trace::{SpanContext, TraceContextExt as _, TraceState};
use opentelemetry::{Context, KeyValue, SpanId, TraceFlags, TraceId};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// Makes the trace context the parent of `span`, which must not have been entered yet: a
/// `traceparent` already checked and normalised, with its checked `tracestate` and `baggage`.
/// Baggage members travel as their `key=value` pairs, values as sent; their properties are
/// dropped.
pub(crate) fn set_parent(
    span: &Span,
    traceparent: &str,
    tracestate: Option<&str>,
    baggage: Option<&str>,
) {
    // `traceparent` is checked and normalised: `00-{32 hex}-{16 hex}-{2 hex}`.
    let (Some(trace_id), Some(span_id), Some(flags)) = (
        traceparent.get(3..35),
        traceparent.get(36..52),
        traceparent.get(53..55),
    ) else {
        return;
    };
    let (Ok(trace_id), Ok(span_id), Ok(flags)) = (
        TraceId::from_hex(trace_id),
        SpanId::from_hex(span_id),
        u8::from_str_radix(flags, 16),
    ) else {
        return;
    };
    let state = tracestate
        .and_then(|state| state.parse::<TraceState>().ok())
        .unwrap_or_default();
    // Only the sampled bit is defined; the others are kept for a later version to read.
    let remote = SpanContext::new(trace_id, span_id, TraceFlags::new(flags), true, state);
    let mut parent = Context::new().with_remote_span_context(remote);
    if let Some(baggage) = baggage {
        let pairs = baggage.split(',').filter_map(|member| {
            let pair = member.split(';').next()?;
            let (key, value) = pair.split_once('=')?;
            Some(KeyValue::new(
                key.trim().to_owned(),
                value.trim().to_owned(),
            ))
        });
        parent = parent.with_baggage(pairs.collect::<Vec<_>>());
    }
    // Refused only when the subscriber has no `tracing_opentelemetry` layer: nothing to do.
    let _ = span.set_parent(parent);
}
