//! What bounds a connection [`Server::serve_listener`](crate::server::Server::serve_listener)
//! serves: the header, keep-alive and write timeouts, watched per connection; being closed
//! to make room while idle (`roster.rs`). The back-off after failed accepts is `backoff.rs`.
//!
//! hyper's own `header_read_timeout` is not used: it restarts as soon as a connection goes
//! idle, so it would also be the keep-alive timeout, and an idle connection could not be
//! given longer than a trickling head.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

/// What a connection is doing, as its watchdog sees it.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Reading a request head, which must be whole by the deadline.
    Head(Instant),
    /// Between two requests, until the deadline.
    Idle(Instant),
    /// Handling requests: reading their bodies (under the body timeout), running them,
    /// writing their answers or event streams. Only the write timeout runs: a write the
    /// client does not take (it stopped reading) may wait that long.
    Busy(usize),
}

/// Why a connection's watchdog closes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Expiry {
    /// A request head is overdue, or the connection stayed idle too long.
    Late,
    /// A write has waited for the client to read for the write timeout.
    Stalled,
    /// The listener closed it, idle, to make room for a new connection.
    Evicted,
}

/// A connection's phase, shared by its socket (bytes arrive), its service (a request
/// starts), its answers' bodies (an answer ends) and its watchdog ([`Activity::expired`]).
///
/// A change wakes the watchdog only when it brings a deadline before the time the watchdog
/// means to look again; it notices the others then. Outside a request head, the watchdog looks
/// again within the shorter of the header and keep-alive timeouts, so that neither a head
/// starting nor an answer ending brings a deadline before its look: in steady traffic a
/// request costs a few uncontended locks, and the watchdog wakes once per such timeout, not
/// once per request.
#[derive(Debug)]
pub(super) struct Activity {
    state: Mutex<State>,
    changed: Notify,
    /// Whether a write waits for the client: set and cleared with `State::stalled_since`, read
    /// without the lock on every write.
    stalled: AtomicBool,
    header_timeout: Duration,
    idle_timeout: Duration,
    write_timeout: Duration,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the watchdog looks again, if it is waiting.
    wakes_at: Option<Instant>,
    /// Since when a write has waited for the client to read.
    stalled_since: Option<Instant>,
    /// When the first bytes of the request head being read arrived, if they arrived while
    /// the connection waited for a head: taken by [`Activity::begin`] for the request.
    head_started: Option<Instant>,
    /// The listener asked for the connection to close.
    evicted: bool,
}

/// Timeouts of one connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeouts {
    pub(super) header: Duration,
    pub(super) idle: Duration,
    pub(super) write: Duration,
}

/// The shortest wait between two looks of a connection's watchdog while no deadline is due:
/// with a timeout of zero, or a few milliseconds, it would otherwise wake as often as the
/// timer ticks for as long as a request runs. A deadline sooner than this still wakes it.
const SHORTEST_LOOK: Duration = Duration::from_secs(1);

/// `timeout` from now; far in the future when that is past what an `Instant` holds.
fn after(timeout: Duration) -> Instant {
    later(Instant::now(), timeout)
}

/// `timeout` after `at`; far in the future when that is past what an `Instant` holds.
fn later(at: Instant, timeout: Duration) -> Instant {
    at.checked_add(timeout)
        .unwrap_or_else(|| at + Duration::from_secs(100 * 365 * 24 * 3600))
}

impl Activity {
    /// A connection just accepted: its first request head is due within the header timeout.
    pub(super) fn new(timeouts: Timeouts) -> Self {
        Self {
            state: Mutex::new(State {
                phase: Phase::Head(after(timeouts.header)),
                wakes_at: None,
                stalled_since: None,
                head_started: None,
                evicted: false,
            }),
            changed: Notify::new(),
            stalled: AtomicBool::new(false),
            header_timeout: timeouts.header,
            idle_timeout: timeouts.idle,
            write_timeout: timeouts.write,
        }
    }

    /// Since when the connection has waited for a request head (its first, or the next one
    /// on a kept-alive connection); `None` while it is busy.
    pub(super) fn idle_since(&self) -> Option<Instant> {
        match self.state().phase {
            Phase::Head(deadline) => Some(deadline.checked_sub(self.header_timeout)?),
            Phase::Idle(deadline) => Some(deadline.checked_sub(self.idle_timeout)?),
            Phase::Busy(_) => None,
        }
    }

    /// Closes the connection if it is still waiting for a request head; whether it was.
    pub(super) fn evict(&self) -> bool {
        let mut state = self.state();
        if matches!(state.phase, Phase::Busy(_)) || state.evicted {
            return false;
        }
        state.evicted = true;
        drop(state);
        self.changed.notify_waiters();
        true
    }

    /// A write could not go out: the client is not reading. Starts the write timeout.
    fn blocked(&self) {
        if self.stalled.swap(true, Ordering::AcqRel) {
            return;
        }
        let now = Instant::now();
        let mut state = self.state();
        state.stalled_since = Some(now);
        let sooner = state
            .wakes_at
            .is_some_and(|wakes_at| later(now, self.write_timeout) < wakes_at);
        drop(state);
        if sooner {
            self.changed.notify_waiters();
        }
    }

    /// A write went out: the client reads again.
    fn wrote(&self) {
        if self.stalled.load(Ordering::Acquire) {
            self.stalled.store(false, Ordering::Release);
            self.state().stalled_since = None;
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the phase, waking the watchdog if the new deadline comes before it would look.
    fn update(&self, change: impl FnOnce(Phase) -> Phase) {
        let mut state = self.state();
        state.phase = change(state.phase);
        self.changed_phase(state);
    }

    /// Wakes the watchdog if the phase `state` holds, just changed, brings a deadline before
    /// it would look.
    fn changed_phase(&self, state: std::sync::MutexGuard<'_, State>) {
        let sooner = match state.phase {
            Phase::Head(deadline) | Phase::Idle(deadline) => {
                state.wakes_at.is_some_and(|wakes_at| deadline < wakes_at)
            }
            Phase::Busy(_) => false,
        };
        drop(state);
        if sooner {
            self.changed.notify_waiters();
        }
    }

    /// Bytes arrived: on an idle connection, they start a request head; on one waiting for
    /// a head, the first of them are when the head began to arrive.
    fn received(&self) {
        // One lock: this runs on every read.
        let mut state = self.state();
        match state.phase {
            Phase::Idle(_) => {
                let now = Instant::now();
                state.phase = Phase::Head(later(now, self.header_timeout));
                state.head_started = Some(now);
                self.changed_phase(state);
            }
            // A connection's first head, due a header timeout after its acceptance.
            Phase::Head(_) if state.head_started.is_none() => {
                state.head_started = Some(Instant::now());
            }
            Phase::Head(_) | Phase::Busy(_) => {}
        }
    }

    /// A request head was read: the connection is busy until the returned guard (held by
    /// the answer's body) drops. Also returns when the head began to arrive, if it arrived
    /// while the connection waited for one (not a head pipelined behind a request): the
    /// clock read then serves as the request's start, and is not read again.
    pub(super) fn begin(self: &Arc<Self>) -> (Busy, Option<Instant>) {
        let mut state = self.state();
        state.phase = match state.phase {
            Phase::Busy(requests) => Phase::Busy(requests + 1),
            Phase::Head(_) | Phase::Idle(_) => Phase::Busy(1),
        };
        let head_started = state.head_started.take();
        self.changed_phase(state);
        (Busy(Arc::clone(self)), head_started)
    }

    fn end(&self) {
        let idle_timeout = self.idle_timeout;
        self.update(|phase| match phase {
            Phase::Busy(1) => Phase::Idle(after(idle_timeout)),
            Phase::Busy(requests) => Phase::Busy(requests - 1),
            other => other,
        });
    }

    /// Resolves once a request head is overdue, the connection has been idle too long, a
    /// write has waited for the client for the write timeout, or the listener evicted it.
    pub(super) async fn expired(&self) -> Expiry {
        loop {
            let changed = self.changed.notified();
            let mut changed = std::pin::pin!(changed);
            // Registered before the phase is read: no change is missed in between.
            changed.as_mut().enable();
            let wake = {
                let mut state = self.state();
                if state.evicted {
                    return Expiry::Evicted;
                }
                let now = Instant::now();
                // A head starting from now on is due a header timeout after it starts, and
                // an answer ending leaves the connection idle for a keep-alive timeout: by
                // looking again no later than this, the watchdog needs no wake for either
                // (unless the timeout is shorter than `SHORTEST_LOOK`).
                let next_look = later(
                    now,
                    self.header_timeout
                        .min(self.idle_timeout)
                        .max(SHORTEST_LOOK),
                );
                let wake = match state.phase {
                    // Only a stalled write is enforced while busy.
                    Phase::Busy(_) => match state.stalled_since {
                        Some(since) => {
                            let deadline = later(since, self.write_timeout);
                            if now >= deadline {
                                return Expiry::Stalled;
                            }
                            deadline.min(next_look)
                        }
                        None => next_look,
                    },
                    Phase::Head(deadline) => {
                        if now >= deadline {
                            return Expiry::Late;
                        }
                        deadline
                    }
                    Phase::Idle(deadline) => {
                        if now >= deadline {
                            return Expiry::Late;
                        }
                        deadline.min(next_look)
                    }
                };
                state.wakes_at = Some(wake);
                wake
            };
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(wake) => {}
            }
        }
    }
}

/// Marks a connection busy while alive.
#[derive(Debug)]
pub(super) struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// A connection's socket, reporting arriving bytes to its [`Activity`].
pub(super) struct Watched<S> {
    stream: S,
    activity: Arc<Activity>,
}

impl<S> Watched<S> {
    pub(super) fn new(stream: S, activity: Arc<Activity>) -> Self {
        Self { stream, activity }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.activity.received();
        }
        polled
    }
}

impl<S> Watched<S> {
    /// Reports whether a write went out or waits for the client.
    fn watch_write(&self, polled: &Poll<io::Result<usize>>) {
        match polled {
            Poll::Pending => self.activity.blocked(),
            Poll::Ready(Ok(written)) if *written > 0 => self.activity.wrote(),
            Poll::Ready(_) => {}
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.watch_write(&polled);
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.watch_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future as _;
    use std::sync::atomic::AtomicUsize;
    use std::task::Waker;

    const HEADER: Duration = Duration::from_secs(10);

    /// Counts the wakes of the task it stands for.
    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wakes {
        fn take(&self) -> usize {
            self.0.swap(0, Ordering::SeqCst)
        }
    }

    impl std::task::Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn with_a_zero_keep_alive_timeout_a_busy_connection_does_not_spin_its_watchdog() {
        let activity = Arc::new(Activity::new(Timeouts {
            header: HEADER,
            idle: Duration::ZERO,
            write: Duration::from_secs(30),
        }));
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let mut watchdog = Box::pin(activity.expired());
        let (busy, _) = activity.begin();
        let mut woken = 0;
        for _ in 0..3000 {
            assert!(watchdog.as_mut().poll(&mut cx).is_pending());
            tokio::time::advance(Duration::from_millis(1)).await;
            woken += wakes.take();
        }
        assert!(woken <= 3, "woken {woken} times in 3 s");
        // Once the answer ends, the connection is closed at once.
        assert!(watchdog.as_mut().poll(&mut cx).is_pending());
        drop(busy);
        assert_eq!(wakes.take(), 1);
        assert_eq!(watchdog.as_mut().poll(&mut cx), Poll::Ready(Expiry::Late));
    }

    #[tokio::test(start_paused = true)]
    async fn requests_on_a_kept_alive_connection_do_not_wake_its_watchdog() {
        let activity = Arc::new(Activity::new(Timeouts {
            header: HEADER,
            idle: Duration::from_secs(60),
            write: Duration::from_secs(30),
        }));
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let mut watchdog = Box::pin(activity.expired());
        assert!(watchdog.as_mut().poll(&mut cx).is_pending());
        // A first request, then the connection idles until the watchdog looks.
        drop(activity.begin().0);
        tokio::time::advance(HEADER).await;
        assert_eq!(wakes.take(), 1);
        assert!(watchdog.as_mut().poll(&mut cx).is_pending());
        // Requests keep coming, each head starting on the idle connection.
        for _ in 0..40 {
            tokio::time::advance(Duration::from_millis(100)).await;
            activity.received();
            let (busy, _) = activity.begin();
            tokio::time::advance(Duration::from_millis(10)).await;
            drop(busy);
            assert_eq!(wakes.take(), 0, "a request woke the watchdog");
        }
        // A head that never ends is still closed at its deadline, not before.
        tokio::time::advance(Duration::from_millis(100)).await;
        activity.received();
        let head_started = Instant::now();
        assert_eq!(watchdog.await, Expiry::Late);
        let closed_after = Instant::now() - head_started;
        assert!(
            closed_after >= HEADER && closed_after < HEADER + Duration::from_millis(10),
            "{closed_after:?}"
        );
    }
}
