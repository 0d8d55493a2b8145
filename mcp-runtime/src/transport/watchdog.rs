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
    gate: Gate,
}

/// A waker of its own for futures polled together, which notes that one of them woke and
/// wakes the task: what tells a poll of the task whether they need polling. The first poll
/// opens it, to set up what will wake them. Used for [`Gated`], and by an event stream for
/// its call, its messages and its keep-alive timer.
pub(super) struct Gate {
    woken: Arc<Woken>,
    /// The waker the futures are polled with: `woken`'s.
    waker: Waker,
    /// The task's waker as last handed to `woken`: while the task's waker is this one, it is
    /// not handed over again.
    task: Option<Waker>,
}

/// Whether the gated futures were woken since their last poll, and the task to wake for it.
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

impl Gate {
    pub(super) fn new() -> Self {
        let woken = Arc::new(Woken {
            // Opened the first time, to set up what will wake the futures.
            woken: AtomicBool::new(true),
            task: Mutex::new(None),
        });
        let waker = Waker::from(Arc::clone(&woken));
        Self {
            woken,
            waker,
            task: None,
        }
    }

    /// The waker to poll the gated futures with, when one of them woke since they were last
    /// polled; `None` when none did. Either way, a wake from now on wakes `cx`'s task.
    pub(super) fn open(&mut self, cx: &Context<'_>) -> Option<&Waker> {
        if !self
            .task
            .as_ref()
            .is_some_and(|task| task.will_wake(cx.waker()))
        {
            // Handed over before the flag is read: a wake from now on wakes this task.
            let task = cx.waker().clone();
            *self
                .woken
                .task
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(task.clone());
            self.task = Some(task);
        }
        // A wake after this load sets the flag and wakes the task again. Only a set flag is
        // cleared, by a swap: it reads the last wake, and what that wake saw happened before.
        if !self.woken.woken.load(Ordering::Acquire) {
            return None;
        }
        self.woken.woken.swap(false, Ordering::AcqRel);
        Some(&self.waker)
    }

    /// The waker to poll the gated futures with, open or not: for one that must be polled
    /// whether or not it woke.
    pub(super) fn waker(&self) -> &Waker {
        &self.waker
    }

    /// Opens the gate at the next poll, as a wake would: for when one of the futures was
    /// ready, and so set up nothing to wake it.
    pub(super) fn reopen(&self) {
        self.woken.woken.store(true, Ordering::Release);
    }

    /// Makes the gate as new, to gate other futures, if nothing else holds its waker any
    /// more (its futures are gone); whether it did.
    pub(super) fn renew(&mut self) -> bool {
        // Its own two: `woken`, and the one `waker` holds.
        if Arc::strong_count(&self.woken) != 2 {
            return false;
        }
        self.reopen();
        *self
            .woken
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
        self.task = None;
        true
    }
}

impl<F: Future> Gated<F> {
    pub(super) fn new(inner: F) -> Self {
        Self {
            inner: Box::pin(inner),
            gate: Gate::new(),
        }
    }
}

impl<F: Future> Future for Gated<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        match this.gate.open(cx) {
            None => Poll::Pending,
            Some(waker) => this.inner.as_mut().poll(&mut Context::from_waker(waker)),
        }
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
