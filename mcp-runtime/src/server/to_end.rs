//! A round that runs to its end even when no one waits for it any more.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tracing::{Instrument, Span};

use super::handler::BoxFuture;
use super::panic::{CatchUnwind, guarded};

/// A future that, dropped before it is done, is finished in a task of the runtime's instead
/// of being cancelled: a single-use round that has begun must store its reply even when its
/// client goes away, so that a retry gets the reply rather than running the round's side
/// effects again. Awaited to its end, as nearly every round is, it costs no task of its own:
/// it runs in the request's, under the request's span. A panic in it resolves to
/// `Err(message)`, as [`guarded`]'s does.
///
/// Dropped outside a runtime (a runtime shutting down drops its tasks from its own threads,
/// where there is none to finish it in), it is dropped with the rest.
pub(crate) struct ToEnd<T: Send + 'static> {
    running: Option<CatchUnwind<T>>,
    /// The span it was begun under, for the task that finishes it.
    span: Span,
}

impl<T: Send + 'static> ToEnd<T> {
    pub(crate) fn new(future: BoxFuture<'static, T>) -> Self {
        Self {
            running: Some(guarded(|| future)),
            span: Span::current(),
        }
    }
}

impl<T: Send + 'static> Future for ToEnd<T> {
    type Output = Result<T, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `ToEnd` is `Unpin`: its future is boxed.
        let this = self.get_mut();
        let running = this.running.as_mut().expect("`ToEnd` polled after its end");
        let output = ready!(Pin::new(running).poll(cx));
        this.running = None;
        Poll::Ready(output)
    }
}

impl<T: Send + 'static> Drop for ToEnd<T> {
    fn drop(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let span = std::mem::replace(&mut self.span, Span::none());
            runtime.spawn(async move { drop(running.await) }.instrument(span));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;

    #[tokio::test]
    async fn awaited_it_resolves_to_its_output_and_a_panic_to_an_error() {
        assert_eq!(ToEnd::new(Box::pin(async { 7 })).await, Ok(7));
        let panicked = ToEnd::<u8>::new(Box::pin(async { panic!("in the round") })).await;
        assert_eq!(panicked, Err("in the round".to_owned()));
    }

    #[tokio::test]
    async fn dropped_before_its_end_it_finishes_in_a_task() {
        let (release, released) = oneshot::channel::<()>();
        let finished = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&finished);
        let mut round = ToEnd::new(Box::pin(async move {
            let _ = released.await;
            flag.store(true, Ordering::SeqCst);
        }));
        // Polled once, as a request is before its client goes away, then dropped.
        let pending =
            std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut round).poll(cx).is_pending()));
        assert!(pending.await);
        drop(round);
        assert!(!finished.load(Ordering::SeqCst));
        release.send(()).unwrap();
        for _ in 0..100 {
            if finished.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the dropped round was not finished");
    }
}
