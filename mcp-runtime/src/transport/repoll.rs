//! A connection polled again at once when it wakes its own task while being polled, within
//! the same poll of the task, rather than returning and having the runtime schedule the task
//! again.
//!
//! hyper's request-body channel wakes the connection's task when the handler takes the body,
//! from inside the connection's own poll (the handler runs there): once per request, the
//! runtime would otherwise queue the task again and poll it from the top (the connection's
//! span entered and left, the stop and the watchdog looked at), only for hyper to find
//! nothing new. A wake from elsewhere during the poll is served the same way; after
//! [`MAX_AGAIN`] polls again in a row, a wake goes to the task, so that a connection that
//! keeps waking itself still lets other tasks run.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// The polls again in a row a poll of the task makes, at most.
const MAX_AGAIN: usize = 1;

/// The future is being polled.
const POLLING: u8 = 1;
/// It was woken since its poll began.
const WOKEN: u8 = 2;

/// `inner`, polled again at once when woken while being polled.
pub(super) struct Repolled<F> {
    inner: Pin<Box<F>>,
    shared: Arc<Shared>,
    /// The waker `inner` is polled with: `shared`'s.
    waker: Waker,
    /// The task's waker as last handed to `shared`.
    task: Option<Waker>,
}

struct Shared {
    state: AtomicU8,
    task: Mutex<Option<Waker>>,
}

impl Wake for Shared {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // During a poll, that poll polls again; else the task is woken.
        if self.state.fetch_or(WOKEN, Ordering::AcqRel) & POLLING != 0 {
            return;
        }
        let task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(task) = task.as_ref() {
            task.wake_by_ref();
        }
    }
}

impl<F: Future> Repolled<F> {
    pub(super) fn new(inner: F) -> Self {
        let shared = Arc::new(Shared {
            state: AtomicU8::new(0),
            task: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&shared));
        Self {
            inner: Box::pin(inner),
            shared,
            waker,
            task: None,
        }
    }

    /// The future itself.
    pub(super) fn inner(&mut self) -> Pin<&mut F> {
        self.inner.as_mut()
    }
}

impl<F: Future> Future for Repolled<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if !this
            .task
            .as_ref()
            .is_some_and(|task| task.will_wake(cx.waker()))
        {
            let task = cx.waker().clone();
            *this
                .shared
                .task
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(task.clone());
            this.task = Some(task);
        }
        for _ in 0..=MAX_AGAIN {
            // Clears a wake from before this poll: the poll sees what it was for.
            this.shared.state.store(POLLING, Ordering::Release);
            let polled = this
                .inner
                .as_mut()
                .poll(&mut Context::from_waker(&this.waker));
            if polled.is_ready() {
                this.shared.state.store(0, Ordering::Release);
                return polled;
            }
            // Not woken meanwhile: a wake from now on wakes the task.
            if this
                .shared
                .state
                .compare_exchange(POLLING, 0, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Poll::Pending;
            }
        }
        // Woken during each poll: the task polls it again once others have run.
        this.shared.state.store(0, Ordering::Release);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::watchdog::tests::Wakes;
    use std::sync::atomic::AtomicUsize;

    /// A future that wakes itself during its first `selfish` polls, keeps the waker of its
    /// last, and is ready once `done` is set.
    #[derive(Default)]
    struct Seen {
        polls: AtomicUsize,
        selfish: AtomicUsize,
        waker: Mutex<Option<Waker>>,
        done: std::sync::atomic::AtomicBool,
    }

    fn watched(seen: &Arc<Seen>) -> Repolled<impl Future<Output = ()>> {
        let seen = Arc::clone(seen);
        Repolled::new(std::future::poll_fn(move |cx| {
            let polls = seen.polls.fetch_add(1, Ordering::SeqCst);
            *seen.waker.lock().unwrap() = Some(cx.waker().clone());
            if seen.done.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            if polls < seen.selfish.load(Ordering::SeqCst) {
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        }))
    }

    #[test]
    fn a_future_waking_itself_while_polled_is_polled_again_at_once_not_by_the_task() {
        let seen = Arc::new(Seen::default());
        seen.selfish.store(1, Ordering::SeqCst);
        let mut repolled = watched(&seen);
        let task = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut repolled).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2);
        assert_eq!(task.take(), 0);
        // A wake once the poll is over goes to the task, and the next poll polls it once.
        seen.waker.lock().unwrap().as_ref().unwrap().wake_by_ref();
        assert_eq!(task.take(), 1);
        seen.done.store(true, Ordering::SeqCst);
        assert_eq!(Pin::new(&mut repolled).poll(&mut cx), Poll::Ready(()));
        assert_eq!(seen.polls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_future_that_keeps_waking_itself_hands_the_wake_to_the_task() {
        let seen = Arc::new(Seen::default());
        seen.selfish.store(usize::MAX, Ordering::SeqCst);
        let mut repolled = watched(&seen);
        let task = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut repolled).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), MAX_AGAIN + 1);
        assert_eq!(task.take(), 1);
        assert!(Pin::new(&mut repolled).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2 * (MAX_AGAIN + 1));
        assert_eq!(task.take(), 1);
    }

    #[test]
    fn a_wake_after_the_poll_goes_to_the_task_that_polled_last() {
        let seen = Arc::new(Seen::default());
        let mut repolled = watched(&seen);
        let (first, second) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
        let first_waker = Waker::from(Arc::clone(&first));
        let second_waker = Waker::from(Arc::clone(&second));
        assert!(
            Pin::new(&mut repolled)
                .poll(&mut Context::from_waker(&first_waker))
                .is_pending()
        );
        assert!(
            Pin::new(&mut repolled)
                .poll(&mut Context::from_waker(&second_waker))
                .is_pending()
        );
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2);
        seen.waker.lock().unwrap().as_ref().unwrap().wake_by_ref();
        assert_eq!((first.take(), second.take()), (0, 1));
    }
}
