//! A connection's watchdog as its connection's task polls it: only when the watchdog's own
//! timer or a change of the connection's phase woke it, not on every poll of the connection.
//! The server's stop is waited for the same way.
//!
//! The connection's task polls the connection, the stop and the watchdog together
//! (`select!`), and wakes for every byte that arrives or leaves; polling
//! [`Activity::expired`] each time would poll its timer and its notification, taking a lock,
//! for nothing, and the stop's notification likewise. Here the watchdog is
//! polled with a waker of its own, which notes that it was woken and wakes the task: a poll
//! of the task that finds it unwoken costs a comparison of the task's waker with the one it
//! remembers and a load of the flag, no lock and no atomic write.
//!
//! ```text
//! select! { connection, Gated::new(stop.changed()), Gated::new(activity.expired()) }
//!   task woken by the socket   -> connection polled; Gated: not woken, Pending
//!   task woken by the timer    -> connection polled; Gated: woken, expired() polled
//! ```
//!
//! [`Activity::expired`]: super::connection::Activity::expired

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};

/// `inner`, polled only once something it waits for has woken it (and on its first poll).
pub(super) struct Gated<F> {
    inner: Pin<Box<F>>,
    woken: Arc<Woken>,
    /// The waker `inner` is polled with: `woken`'s.
    waker: Waker,
    /// The task's waker as last handed to `woken`: while the task's waker is this one, it is
    /// not handed over again.
    task: Option<Waker>,
}

/// Whether the gated future was woken since its last poll, and the task to wake for it.
struct Woken {
    woken: AtomicBool,
    task: Mutex<Option<Waker>>,
}

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        let task = self.task.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(task) = task.as_ref() {
            task.wake_by_ref();
        }
    }
}

impl<F: Future> Gated<F> {
    pub(super) fn new(inner: F) -> Self {
        let woken = Arc::new(Woken {
            // Polled the first time, to set up what will wake it.
            woken: AtomicBool::new(true),
            task: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&woken));
        Self {
            inner: Box::pin(inner),
            woken,
            waker,
            task: None,
        }
    }
}

impl<F: Future> Future for Gated<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        if !this
            .task
            .as_ref()
            .is_some_and(|task| task.will_wake(cx.waker()))
        {
            // Handed over before the flag is read: a wake from now on wakes this task.
            let task = cx.waker().clone();
            *this
                .woken
                .task
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(task.clone());
            this.task = Some(task);
        }
        // A wake after this load sets the flag and wakes the task again. Only a set flag is
        // cleared, by a swap: it reads the last wake, and what that wake saw happened before.
        if !this.woken.woken.load(Ordering::Acquire) {
            return Poll::Pending;
        }
        this.woken.woken.swap(false, Ordering::AcqRel);
        this.inner
            .as_mut()
            .poll(&mut Context::from_waker(&this.waker))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts the wakes of the task it stands for (the repolled connection's tests use it too).
    #[derive(Default)]
    pub(in crate::transport) struct Wakes(AtomicUsize);

    impl Wakes {
        pub(in crate::transport) fn take(&self) -> usize {
            self.0.swap(0, Ordering::SeqCst)
        }
    }

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// What the gated future saw: how often it was polled, the waker of its last poll, and
    /// whether it is done.
    #[derive(Default)]
    struct Seen {
        polls: AtomicUsize,
        waker: Mutex<Option<Waker>>,
        done: AtomicBool,
    }

    fn watched(seen: &Arc<Seen>) -> Gated<impl Future<Output = ()>> {
        let seen = Arc::clone(seen);
        Gated::new(std::future::poll_fn(move |cx| {
            seen.polls.fetch_add(1, Ordering::SeqCst);
            *seen.waker.lock().unwrap() = Some(cx.waker().clone());
            if seen.done.load(Ordering::SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }))
    }

    fn wake(seen: &Seen) {
        seen.waker.lock().unwrap().as_ref().unwrap().wake_by_ref();
    }

    #[test]
    fn the_gated_future_is_polled_only_when_it_was_woken() {
        let seen = Arc::new(Seen::default());
        let mut gated = watched(&seen);
        let task = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        // The first poll sets up what wakes it.
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), 1);
        // The task is polled for other reasons: the gated future is not.
        for _ in 0..100 {
            assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        }
        assert_eq!(seen.polls.load(Ordering::SeqCst), 1);
        assert_eq!(task.take(), 0);
        // Its own wake wakes the task, and the next poll polls it, once.
        wake(&seen);
        assert_eq!(task.take(), 1);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2);
        // Done once woken: its output comes out.
        seen.done.store(true, Ordering::SeqCst);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        wake(&seen);
        assert_eq!(Pin::new(&mut gated).poll(&mut cx), Poll::Ready(()));
        assert_eq!(seen.polls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_wake_goes_to_the_task_that_polled_last() {
        let seen = Arc::new(Seen::default());
        let mut gated = watched(&seen);
        let (first, second) = (Arc::new(Wakes::default()), Arc::new(Wakes::default()));
        let first_waker = Waker::from(Arc::clone(&first));
        let second_waker = Waker::from(Arc::clone(&second));
        assert!(
            Pin::new(&mut gated)
                .poll(&mut Context::from_waker(&first_waker))
                .is_pending()
        );
        assert!(
            Pin::new(&mut gated)
                .poll(&mut Context::from_waker(&second_waker))
                .is_pending()
        );
        wake(&seen);
        assert_eq!((first.take(), second.take()), (0, 1));
        assert!(
            Pin::new(&mut gated)
                .poll(&mut Context::from_waker(&second_waker))
                .is_pending()
        );
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2);
    }

    /// A wake while the gated future is being polled is not lost: the next poll polls it.
    #[test]
    fn a_wake_during_its_poll_polls_it_again() {
        let seen = Arc::new(Seen::default());
        let inner_seen = Arc::clone(&seen);
        let mut gated = Gated::new(std::future::poll_fn(move |cx| {
            if inner_seen.polls.fetch_add(1, Ordering::SeqCst) == 0 {
                cx.waker().wake_by_ref();
            }
            Poll::<()>::Pending
        }));
        let task = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(task.take(), 1);
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut gated).poll(&mut cx).is_pending());
        assert_eq!(seen.polls.load(Ordering::SeqCst), 2);
    }
}
