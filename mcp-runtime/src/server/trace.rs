//! The `request` span around each request a server handles, and the fields recorded on it
//! as they become known (the table is in the [`server`](crate::server) module's docs). Each
//! field is recorded once: a human formatter writes every value it is given.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;
use tracing::Span;
use tracing::field::Empty;

use super::Outcome;
use super::handler::BoxFuture;
use crate::logfield::untrusted;

/// Client-chosen text as a span records it: escaped, cut, and a string.
pub(crate) fn escaped(text: &str) -> String {
    untrusted(text).to_string()
}

/// The span of one request, entered while it is dispatched and while its answer is awaited.
pub(crate) fn request_span(method: &str, id: &Value, legacy: bool) -> Span {
    tracing::info_span!(
        "request",
        method = escaped(method).as_str(),
        id = escaped(&id.to_string()).as_str(),
        legacy,
        target = Empty,
        round = Empty,
        shape = Empty,
        state_bytes = Empty,
        replayed = Empty,
        outcome = Empty,
        error_code = Empty,
        traceparent = Empty,
        tracestate = Empty,
        baggage = Empty,
    )
}

/// The span of one round of a call driven in process (on a legacy session).
pub(crate) fn round_span() -> Span {
    tracing::info_span!("round", round = Empty, shape = Empty, state_bytes = Empty)
}

/// Records the current call's target, a client-chosen name or URI.
pub(crate) fn record_target(target: &str) {
    let span = Span::current();
    if !span.is_disabled() {
        span.record("target", escaped(target).as_str());
    }
}

/// Records the size of the state the current request hands to its next round.
pub(crate) fn record_state_bytes(bytes: usize) {
    Span::current().record("state_bytes", bytes);
}

/// Records that the current round was answered from the replay store.
pub(crate) fn record_replayed() {
    Span::current().record("replayed", true);
}

/// Records the flow round the current request runs (counting from 1) and the flow's shape.
pub(crate) fn record_round(round: u32, shape: u32) {
    let span = Span::current();
    if !span.is_disabled() {
        span.record("round", u64::from(round) + 1);
        span.record("shape", format!("{shape:08x}").as_str());
    }
}

/// `outcome` run inside `span`; dropped before it finishes (the client went away), the
/// request is recorded as cancelled, and the answer's future is dropped inside the span.
pub(crate) fn traced(
    span: Span,
    outcome: BoxFuture<'static, Outcome>,
) -> BoxFuture<'static, Outcome> {
    if span.is_disabled() {
        return outcome;
    }
    Box::pin(Traced {
        span,
        outcome: Some(outcome),
    })
}

struct Traced {
    span: Span,
    /// `None` once finished.
    outcome: Option<BoxFuture<'static, Outcome>>,
}

impl Future for Traced {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        // `Traced` is `Unpin`: its future is boxed.
        let this = self.get_mut();
        let _entered = this.span.enter();
        let Some(outcome) = &mut this.outcome else {
            return Poll::Pending;
        };
        let ready = std::task::ready!(outcome.as_mut().poll(cx));
        this.outcome = None;
        // Each field is recorded once: a formatter may write every value it is given.
        this.span.record("outcome", ready.kind);
        if let Some(code) = ready.error_code {
            this.span.record("error_code", code);
        }
        Poll::Ready(ready)
    }
}

impl Drop for Traced {
    fn drop(&mut self) {
        if let Some(outcome) = self.outcome.take() {
            let _entered = self.span.enter();
            self.span.record("outcome", "cancelled");
            tracing::debug!("call dropped: the client went away");
            drop(outcome);
        }
    }
}
