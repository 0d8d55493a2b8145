//! The span of the connection a request begins in, shared with the request's record: the
//! connection's span, entered whenever its future is polled, is also this thread's
//! [`CONNECTION`] then, which a record takes a count of rather than look the current span up
//! through the subscriber.

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use tracing::{Instrument as _, Span};

use super::{installed, with_current};

/// The span a request began in, kept with its record until its line is written (so the
/// span closes after it).
#[derive(Clone)]
pub(crate) enum Parent {
    /// Its connection's, shared with the connection: one count taken.
    Connection(Arc<Span>),
    /// The span current when it began, looked up through the subscriber: a request not
    /// begun directly by a connection ([`in_connection`]), or begun within another.
    Current(Span),
}

impl Parent {
    /// The span a request that begins now begins in: the connection's, shared, when the
    /// connection's own code begins it (no request runs on this thread: what one runs may
    /// enter spans of its own); else the span current.
    pub(super) fn now() -> Self {
        let shared = if with_current(|_| ()).is_some() {
            None
        } else {
            CONNECTION
                .try_with(|cell| {
                    let connection = cell.take();
                    let shared = connection.clone();
                    cell.set(connection);
                    shared
                })
                .ok()
                .flatten()
        };
        shared.map_or_else(|| Self::Current(Span::current()), Self::Connection)
    }
}

impl std::ops::Deref for Parent {
    type Target = Span;

    fn deref(&self) -> &Span {
        match self {
            Self::Connection(span) => span,
            Self::Current(span) => span,
        }
    }
}

thread_local! {
    /// The span of the connection this thread polls, while no request of it runs: the span
    /// current then, which the requests it begins begin in.
    static CONNECTION: Cell<Option<Arc<Span>>> = const { Cell::new(None) };
}

/// Runs `future`, a connection's, in its `span`, entered whenever it is polled (as
/// `Instrument` does it); with the access log installed and `span` enabled, the span is
/// also shared with the records of the requests that begin in it, which take a count of
/// it rather than look the current span up through the subscriber.
pub(crate) fn in_connection<F: Future>(span: Span, future: F) -> impl Future<Output = F::Output> {
    let shared = installed() && !span.is_disabled();
    sharing(span, shared, future)
}

/// [`in_connection`], with the span shared or not.
fn sharing<F: Future>(span: Span, shared: bool, future: F) -> impl Future<Output = F::Output> {
    let mut shared = shared.then(|| Arc::new(span.clone()));
    let instrumented = future.instrument(span);
    async move {
        let mut instrumented = pin!(instrumented);
        std::future::poll_fn(|cx| {
            if shared.is_none() {
                // The access log is not installed, or the span is disabled: not entered, so
                // the span current is still that of what polls this.
                return instrumented.as_mut().poll(cx);
            }
            let _shared = Shared::new(&mut shared);
            instrumented.as_mut().poll(cx)
        })
        .await
    }
}

/// While alive, `slot`'s span is this thread's [`CONNECTION`]; dropped (also in a panic), it
/// goes back to `slot`, and the one before comes back.
struct Shared<'a> {
    slot: &'a mut Option<Arc<Span>>,
    previous: Option<Arc<Span>>,
}

impl<'a> Shared<'a> {
    fn new(slot: &'a mut Option<Arc<Span>>) -> Self {
        let previous = CONNECTION
            .try_with(|cell| cell.replace(slot.take()))
            .ok()
            .flatten();
        Self { slot, previous }
    }
}

impl Drop for Shared<'_> {
    fn drop(&mut self) {
        *self.slot = CONNECTION
            .try_with(|cell| cell.replace(self.previous.take()))
            .ok()
            .flatten();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{AccessRecord, Entered};
    use super::*;
    use crate::server::TraceContext;

    /// The span the record of a request begun now begins in.
    fn began_in() -> (Option<tracing::Id>, bool) {
        let record = AccessRecord::start("ping", "1", true, false, TraceContext::default());
        let shared = matches!(record.parent, Parent::Connection(_));
        (record.parent.id(), shared)
    }

    #[tokio::test]
    async fn a_request_begins_in_its_connections_span_shared_and_within_a_request_in_the_current_one()
     {
        let subscriber = tracing_subscriber::registry();
        let _default = tracing::subscriber::set_default(subscriber);
        let connection = tracing::info_span!("connection");
        let id = connection.id();
        let inner = tracing::info_span!(parent: None, "inner");
        let polled = sharing(connection.clone(), true, async {
            let begun = began_in();
            let mut record = Some(AccessRecord::start(
                "tools/call",
                "2",
                true,
                false,
                TraceContext::default(),
            ));
            let nested = {
                let _entered = Entered::new(&mut record);
                inner.in_scope(began_in)
            };
            tokio::task::yield_now().await;
            (begun, nested, began_in())
        })
        .await;
        assert_eq!(polled.0, (id.clone(), true), "begun by the connection");
        assert_eq!(polled.1, (inner.id(), false), "begun within a request");
        assert_eq!(polled.2, (id.clone(), true), "shared again after a wait");
        assert_eq!(began_in(), (None, false), "begun outside the connection");
        // Not shared: looked up.
        let looked_up = sharing(connection, false, async { began_in() }).await;
        assert_eq!(looked_up, (id, false));
    }
}
