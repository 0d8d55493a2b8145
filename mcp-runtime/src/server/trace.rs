//! What a server records about each request (the table is in the [`server`](crate::server)
//! module's docs), by one of two means:
//!
//! - under the log of [`init_logging`](crate::cli::init_logging) (`cli` feature), a record the
//!   request owns, filled in as its fields become known and written as one line when it ends,
//!   if the log's level lets `INFO` through: no `tracing` span is made, entered or closed (see
//!   the `access` module); each round of a legacy call is a copy of that record, written as
//!   the line its `round` span would give;
//! - under any other subscriber, the `INFO` span `request`, entered while the request is
//!   dispatched and while its answer is awaited, with the same fields recorded on it; each
//!   round of a legacy call runs in a child span `round` ([`RoundTrace`]).
//!
//! Each field is recorded once: a human formatter writes every value it is given.

mod client_text;

#[cfg(feature = "cli")]
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Map, Value};
use tracing::Span;
use tracing::field::Empty;

use super::Outcome;
#[cfg(feature = "cli")]
use super::access::{self, AccessRecord, Entered, Recorded};
use super::handler::BoxFuture;
use super::trace_context::TraceContext;
pub(crate) use client_text::escaped;
#[cfg(feature = "cli")]
use client_text::escaped_text;

/// How one request is recorded.
pub(crate) enum Access {
    /// Nothing listens.
    Off,
    /// Another subscriber listens: the `request` span.
    Span(Span),
    /// The access log listens; `None` only while the request's future holds it.
    #[cfg(feature = "cli")]
    Record(Option<Box<AccessRecord>>),
}

impl Access {
    /// Starts recording a request, before anything else is done for it.
    #[inline]
    pub(crate) fn start(
        method: &str,
        id: &Value,
        legacy: bool,
        params: &Map<String, Value>,
    ) -> Self {
        #[cfg(feature = "cli")]
        if access::installed() {
            if !lines_enabled() {
                return Self::Off;
            }
            let mut digits = itoa::Buffer::new();
            // Most ids are numbers: their digits are all the text they need.
            let id = if let Some(n) = id.as_u64() {
                Cow::Borrowed(digits.format(n))
            } else if let Some(n) = id.as_i64() {
                Cow::Borrowed(digits.format(n))
            } else {
                Cow::Owned(escaped(id_text(id)))
            };
            let (method, verbatim) = escaped_text(method);
            return Self::Record(Some(AccessRecord::start(
                &method,
                &id,
                verbatim && matches!(id, Cow::Borrowed(_)),
                legacy,
                TraceContext::of(params),
            )));
        }
        let span = request_span(method, id, legacy);
        if span.is_disabled() {
            return Self::Off;
        }
        // Before the span is first entered: with `opentelemetry`, it sets its parent.
        TraceContext::of(params).record(&span);
        Self::Span(span)
    }

    /// Runs `dispatch` as part of the request: inside its span, or with its record current.
    #[inline]
    pub(crate) fn within<R>(&mut self, dispatch: impl FnOnce() -> R) -> R {
        match self {
            Self::Off => dispatch(),
            Self::Span(span) => span.in_scope(dispatch),
            #[cfg(feature = "cli")]
            Self::Record(slot) => {
                let _entered = Entered::new(slot);
                dispatch()
            }
        }
    }

    /// The request's answer, recorded when it is ready or dropped before (the client went
    /// away: recorded as cancelled, and the answer's future is dropped as part of the request).
    #[inline]
    pub(crate) fn traced(
        self,
        outcome: BoxFuture<'static, Outcome>,
    ) -> BoxFuture<'static, Outcome> {
        match self {
            Self::Off => outcome,
            #[cfg(feature = "cli")]
            Self::Record(None) => outcome,
            Self::Span(span) => Box::pin(Traced {
                span,
                outcome: Some(outcome),
            }),
            #[cfg(feature = "cli")]
            Self::Record(record) => Box::pin(Recorded {
                record,
                outcome: Some(outcome),
            }),
        }
    }
}

/// Whether the access log writes a request's line now: as `tracing`'s event macros decide for
/// an `INFO` event here, from the interest the subscriber registered for it (`always` under
/// a filter whose levels alone enable it, as `RUST_LOG=info` does), asking the subscriber
/// only when that depends on the spans entered. `tracing::enabled!` asks it every time.
#[cfg(feature = "cli")]
fn lines_enabled() -> bool {
    use tracing::callsite::Callsite as _;
    if !tracing::level_enabled!(tracing::Level::INFO) {
        return false;
    }
    // `callsite!` registers its callsite each time it runs: once is enough.
    static CALLSITE: std::sync::OnceLock<&'static tracing::callsite::DefaultCallsite> =
        std::sync::OnceLock::new();
    let callsite = CALLSITE.get_or_init(|| {
        tracing::callsite! {
            name: "access line",
            kind: tracing::metadata::Kind::HINT,
            level: tracing::Level::INFO,
            fields: []
        }
    });
    let interest = callsite.interest();
    interest.is_always()
        || (!interest.is_never()
            && tracing::dispatcher::get_default(|current| current.enabled(callsite.metadata())))
}

/// The JSON-RPC id as JSON, as `Value`'s `Display` writes it, with no formatter between the
/// serialiser and the text.
#[cfg(feature = "cli")]
fn id_text(id: &Value) -> String {
    // Nothing in a `Value` fails to serialise.
    serde_json::to_string(id).unwrap_or_default()
}

/// The span of one request, entered while it is dispatched and while its answer is awaited.
fn request_span(method: &str, id: &Value, legacy: bool) -> Span {
    tracing::info_span!(
        "request",
        method = escaped(method).as_str(),
        id = escaped(id.to_string()).as_str(),
        legacy,
        target = Empty,
        round = Empty,
        shape = Empty,
        flow = Empty,
        from = Empty,
        to = Empty,
        answer = Empty,
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
fn round_span() -> Span {
    tracing::info_span!(
        "round",
        round = Empty,
        shape = Empty,
        flow = Empty,
        from = Empty,
        to = Empty,
        answer = Empty,
        state_bytes = Empty
    )
}

/// How one round of a call driven in process (on a legacy session) is recorded, from its
/// start until this is dropped: on the request's record, which then writes the round's line
/// as its `round` span would (access log installed, the request recorded); or in the span
/// `round`, a child of the request's.
pub(crate) struct RoundTrace {
    /// The `round` span; none when the round is on the request's record.
    span: Span,
    #[cfg(feature = "cli")]
    on_record: bool,
}

impl RoundTrace {
    /// Starts recording a round.
    pub(crate) fn begin() -> Self {
        #[cfg(feature = "cli")]
        if access::begin_round() {
            return Self {
                span: Span::none(),
                on_record: true,
            };
        }
        Self {
            span: round_span(),
            #[cfg(feature = "cli")]
            on_record: false,
        }
    }

    /// The round's span, to enter while its future is made and polled: disabled when the
    /// round is on the request's record.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records the size of the state the round hands to the next (its unsigned bytes).
    pub(crate) fn record_state_bytes(&self, bytes: usize) {
        #[cfg(feature = "cli")]
        if self.on_record {
            access::with_current(|record| record.state_bytes = Some(bytes));
            return;
        }
        self.span.record("state_bytes", bytes);
    }
}

#[cfg(feature = "cli")]
impl Drop for RoundTrace {
    fn drop(&mut self) {
        if self.on_record {
            access::end_round();
        }
    }
}

/// Records on the current span (`on_span`), if it is enabled: when the access log is not
/// installed, or did not take the field.
fn on_span(on_span: impl FnOnce(&Span)) {
    let span = Span::current();
    if !span.is_disabled() {
        on_span(&span);
    }
}

/// Dispatches a request whose head began to arrive at `arrived`, when its connection read
/// the clock then: under the access log, the request's record starts at that time rather
/// than read the clock again (so its `duration_us` counts from its first bytes).
#[inline]
pub(crate) fn arrived_at<R>(
    arrived: Option<std::time::Instant>,
    dispatch: impl FnOnce() -> R,
) -> R {
    #[cfg(feature = "cli")]
    if let Some(arrived) = arrived {
        return access::arrived_at(arrived, dispatch);
    }
    #[cfg(not(feature = "cli"))]
    let _ = arrived;
    dispatch()
}

/// Records the current call's target, a client-chosen name or URI.
pub(crate) fn record_target(target: &str) {
    #[cfg(feature = "cli")]
    if access::record(|record| {
        let (target, verbatim) = escaped_text(target);
        record.set_target(&target, verbatim);
    }) {
        return;
    }
    on_span(|span| {
        span.record("target", escaped(target).as_str());
    });
}

/// Records the size of the state the current request hands to its next round.
pub(crate) fn record_state_bytes(bytes: usize) {
    #[cfg(feature = "cli")]
    if access::record_round(|record| record.state_bytes = Some(bytes)) {
        return;
    }
    on_span(|span| {
        span.record("state_bytes", bytes);
    });
}

/// Records that the current round was answered from the replay store.
pub(crate) fn record_replayed() {
    #[cfg(feature = "cli")]
    if access::record(|record| record.replayed = true) {
        return;
    }
    on_span(|span| {
        span.record("replayed", true);
    });
}

/// Records the flow round the current request runs (counting from 1), the flow's shape, and
/// the question point it resumes from (none on a first round).
pub(crate) fn record_round(round: u32, shape: u32, from: Option<u32>) {
    #[cfg(feature = "cli")]
    if access::record_round(|record| {
        record.round = Some(round + 1);
        record.shape = Some(shape);
        record.from = from;
    }) {
        return;
    }
    on_span(|span| {
        span.record("round", u64::from(round) + 1);
        span.record("shape", format!("{shape:08x}").as_str());
        if let Some(from) = from {
            span.record("from", from);
        }
    });
}

/// Records the id of the flow the current request runs a round of.
pub(crate) fn record_flow(flow: u64) {
    #[cfg(feature = "cli")]
    if access::record_round(|record| record.flow = Some(flow)) {
        return;
    }
    on_span(|span| {
        span.record("flow", format!("{flow:016x}").as_str());
    });
}

/// Records the question point where the current round stopped to ask.
pub(crate) fn record_stop(point: u32) {
    #[cfg(feature = "cli")]
    if access::record_round(|record| record.to = Some(point)) {
        return;
    }
    on_span(|span| {
        span.record("to", point);
    });
}

/// Records that the current round read an answer that declined or cancelled a question
/// (`action`), so that a log can count, per point, how often users turn a question down.
pub(crate) fn record_answer(action: &'static str) {
    #[cfg(feature = "cli")]
    if access::record_round(|record| record.answer = Some(action)) {
        return;
    }
    on_span(|span| {
        span.record("answer", action);
    });
}

impl super::Server {
    /// Runs `future`, a connection's, in its `span`, entered whenever it is polled; with the
    /// access log installed, the requests begun in it take a count of the span for their
    /// records rather than look it up through the subscriber.
    pub(crate) fn in_connection<F: Future>(
        span: Span,
        future: F,
    ) -> impl Future<Output = F::Output> {
        #[cfg(feature = "cli")]
        let future = access::in_connection(span, future);
        #[cfg(not(feature = "cli"))]
        let future = tracing::Instrument::instrument(future, span);
        future
    }
}

/// A request's answer inside its span.
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

// Each test is of the access log's record, which the `cli` feature builds.
#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::*;

    fn record(method: &str) -> Access {
        Access::Record(Some(AccessRecord::start(
            method,
            "1",
            true,
            false,
            TraceContext::default(),
        )))
    }

    fn current_method() -> Option<String> {
        access::with_current(|record| record.method().to_owned())
    }

    #[test]
    fn a_record_is_current_only_within_its_request_and_keeps_what_was_set_there() {
        let (mut outer, mut inner) = (record("outer"), record("inner"));
        assert_eq!(current_method(), None);
        outer.within(|| {
            assert_eq!(current_method().as_deref(), Some("outer"));
            access::with_current(|record| record.round = Some(2));
            inner.within(|| assert_eq!(current_method().as_deref(), Some("inner")));
            assert_eq!(current_method().as_deref(), Some("outer"));
        });
        assert_eq!(current_method(), None);
        let Access::Record(Some(outer)) = outer else {
            panic!("the record is back in its request");
        };
        assert_eq!(outer.round, Some(2));
    }

    #[test]
    fn request_lines_are_enabled_as_an_info_event_here_would_be() {
        use tracing_subscriber::layer::SubscriberExt as _;
        // Outside and inside a span `conn`: whether lines are enabled, and whether
        // `tracing::enabled!` says an `INFO` event here is.
        let enabled_under = |filter: &str| {
            let filter = tracing_subscriber::EnvFilter::new(filter);
            let subscriber = tracing_subscriber::registry().with(filter);
            tracing::subscriber::with_default(subscriber, || {
                let both = || (lines_enabled(), tracing::enabled!(tracing::Level::INFO));
                (both(), tracing::error_span!("conn").in_scope(both))
            })
        };
        for (filter, outside, inside) in [
            ("info", true, true),
            ("warn", false, false),
            ("warn,mcp_runtime::server::trace=info", true, true),
            ("info,mcp_runtime::server=warn", false, false),
            ("warn,[conn]=info", false, true),
        ] {
            assert_eq!(
                enabled_under(filter),
                ((outside, outside), (inside, inside)),
                "{filter}"
            );
        }
    }
}
