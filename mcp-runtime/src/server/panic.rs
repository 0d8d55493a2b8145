//! Turning a panicking handler into an error for that one request.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::handler::BoxFuture;

/// Runs `start` (which builds the handler's future) and then the future, turning a panic in
/// either into `Err` with the panic message.
pub(crate) fn guarded<T: Send + 'static>(
    start: impl FnOnce() -> BoxFuture<'static, T>,
) -> CatchUnwind<T> {
    match catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => CatchUnwind {
            state: State::Running(future),
        },
        Err(payload) => CatchUnwind {
            state: State::Panicked(Some(panic_message(payload.as_ref()))),
        },
    }
}

/// A future that resolves to `Err(message)` if the inner future panics while polled.
pub(crate) struct CatchUnwind<T> {
    state: State<T>,
}

enum State<T> {
    Running(BoxFuture<'static, T>),
    Panicked(Option<String>),
}

impl<T> Future for CatchUnwind<T> {
    type Output = Result<T, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // `CatchUnwind` is `Unpin`: its only future is boxed.
        let this = self.get_mut();
        match &mut this.state {
            State::Panicked(message) => {
                Poll::Ready(Err(message.take().unwrap_or_else(|| "panicked".into())))
            }
            State::Running(future) => {
                match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
                    Ok(Poll::Pending) => Poll::Pending,
                    Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
                    Err(payload) => {
                        let message = panic_message(payload.as_ref());
                        // The panicked future must not be polled again.
                        this.state = State::Panicked(None);
                        Poll::Ready(Err(message))
                    }
                }
            }
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a handler panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn panics_before_and_during_polling_become_errors() {
        let ok = guarded(|| Box::pin(async { 5 })).await;
        assert_eq!(ok, Ok(5));
        let early = guarded::<u8>(|| panic!("while building")).await;
        assert_eq!(early, Err("while building".to_owned()));
        let late = guarded::<u8>(|| {
            Box::pin(async {
                tokio::task::yield_now().await;
                panic!("while polling {}", 2)
            })
        })
        .await;
        assert_eq!(late, Err("while polling 2".to_owned()));
    }
}
