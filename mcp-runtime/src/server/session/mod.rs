//! Legacy sessions: what an `initialize` handshake opens for a client of revision 2025-11-25
//! (or 2025-06-18, 2025-03-26), and the table that holds them.
//!
//! A session keeps what those revisions remember between requests: the negotiated version,
//! a bounded copy of the client's capabilities and `clientInfo` (one copy for all the
//! sessions that declared the same, `declared.rs`), its log level and subscriptions, the
//! server-to-client requests still waiting for the client's response, the calls it may
//! cancel, and its standalone stream (an HTTP `GET` stream, or stdout). Everything a call
//! registers is removed when the call ends, whichever way it ends.
//!
//! Every session has an [`Owner`]: its subject, or the peer that opened it. Over HTTP the
//! owner's sessions, calls and streams are counted, and each has a cap, so that one client
//! at its caps is refused without refusing anybody else (`table.rs`).

mod answerer;
mod capabilities;
mod declared;
mod question;
mod table;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio::time::Instant;

pub(crate) use answerer::ClientAnswerer;
pub(crate) use table::{OpenError, Sessions};

use super::cancel::{Cancellable, Registration};
use super::outbound::{LevelCell, Outbound};
use super::owner::Owner;
use crate::protocol::{ClientCapabilities, ErrorObject, Implementation};
use declared::Declared;

/// How long a legacy session may stay idle (no call running, no stream open) before it
/// expires: 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The most legacy sessions one server keeps: 10,000.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// The most legacy sessions one owner (a subject, or a peer address where there is none)
/// keeps over HTTP: 100. At the cap, its own least recently active idle session is closed.
pub const DEFAULT_MAX_SESSIONS_PER_OWNER: usize = 100;
/// How long a flow on a legacy session waits for the client to answer its questions before
/// the call fails: 10 minutes.
pub const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// The most calls running at once on one legacy HTTP session: 32.
pub const DEFAULT_MAX_CALLS_PER_SESSION: usize = 32;
/// The most calls running at once across one owner's legacy HTTP sessions: 64, a quarter of
/// the requests the server handles at once by default.
pub const DEFAULT_MAX_CALLS_PER_OWNER: usize = 64;
/// The most standalone (`GET`) streams open at once across one owner's sessions: 64.
pub const DEFAULT_MAX_STREAMS_PER_OWNER: usize = 64;
/// The most standalone (`GET`) streams open at once on the server: 512, half the
/// connections served at once by default.
pub const DEFAULT_MAX_STREAMS: usize = 512;
/// The most resources one session may subscribe to: 100.
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 100;

/// The settings of the legacy session table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionSettings {
    pub(crate) idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_owner: usize,
    pub(crate) input_timeout: Duration,
    pub(crate) max_calls_per_session: usize,
    pub(crate) max_calls_per_owner: usize,
    pub(crate) max_streams_per_owner: usize,
    pub(crate) max_streams: usize,
    pub(crate) max_subscriptions: usize,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_owner: DEFAULT_MAX_SESSIONS_PER_OWNER,
            input_timeout: DEFAULT_INPUT_TIMEOUT,
            max_calls_per_session: DEFAULT_MAX_CALLS_PER_SESSION,
            max_calls_per_owner: DEFAULT_MAX_CALLS_PER_OWNER,
            max_streams_per_owner: DEFAULT_MAX_STREAMS_PER_OWNER,
            max_streams: DEFAULT_MAX_STREAMS,
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
        }
    }
}

/// Where a session's messages travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carrier {
    /// Streamable HTTP: found by its `Mcp-Session-Id`.
    Http,
    /// One stdio connection: never found by id; its connection bounds what it runs.
    Stdio,
}

/// What a session cannot take on now, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The session runs as many calls as it may.
    SessionCalls(usize),
    /// The owner's sessions run as many calls as they may.
    OwnerCalls(usize),
    /// The owner's sessions hold as many standalone streams as they may.
    OwnerStreams(usize),
    /// The server holds as many standalone streams as it may.
    Streams(usize),
    /// The session is subscribed to as many resources as it may.
    Subscriptions(usize),
}

impl From<Refused> for super::error::RpcError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::SessionCalls(max) => Self::too_many(format!(
                "this session runs {max} calls, its most at once; wait for one to end"
            )),
            Refused::OwnerCalls(max) => Self::too_many(format!(
                "this client's sessions run {max} calls, their most at once; wait for one to end"
            )),
            Refused::OwnerStreams(max) => Self::too_many(format!(
                "this client's sessions hold {max} standalone streams, their most at once; \
                 close one first"
            )),
            Refused::Streams(max) => Self::overloaded(format!(
                "the server holds {max} standalone streams, its most at once; retry later"
            )),
            Refused::Subscriptions(max) => Self::invalid_params(format!(
                "a session subscribes to at most {max} resources; unsubscribe from one first"
            )),
        }
    }
}

/// What one owner's sessions hold at once, shared by those sessions.
#[derive(Debug, Default)]
pub(crate) struct Usage {
    calls: AtomicUsize,
    streams: AtomicUsize,
}

/// Takes one of `counter`'s places, unless `max` are taken.
fn take(counter: &AtomicUsize, max: usize) -> bool {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
            (held < max).then_some(held + 1)
        })
        .is_ok()
}

fn give_back(counter: &AtomicUsize) {
    counter.fetch_sub(1, Ordering::AcqRel);
}

/// A session's `clientInfo`, shared with the session (see [`Session::declared_info`]).
pub(crate) struct DeclaredInfo(Arc<Declared>);

impl DeclaredInfo {
    pub(crate) fn client_info(&self) -> Option<&Implementation> {
        self.0.client_info.as_ref()
    }
}

/// One legacy session.
pub(crate) struct Session {
    pub(crate) id: Box<str>,
    pub(crate) version: &'static str,
    /// The client's capabilities and `clientInfo`, bounded and shared with the sessions
    /// that declared the same.
    declared: Arc<Declared>,
    /// Who opened the session; with a subject, only that subject may use the session.
    owner: Owner,
    pub(crate) carrier: Carrier,
    pub(crate) log_level: Arc<LevelCell>,
    next_request_id: AtomicU64,
    /// Running calls the client may cancel, by their request id.
    calls: Arc<Cancellable>,
    /// The owner's running calls and open streams.
    usage: Arc<Usage>,
    /// The server's open standalone streams.
    streams: Arc<AtomicUsize>,
    /// The table's settings, shared by every session.
    settings: Arc<SessionSettings>,
    state: Mutex<SessionState>,
}

#[derive(Default)]
struct SessionState {
    /// Server-to-client requests waiting for the client, by the id they were sent under (the
    /// session's own count, so hashed with `foldhash` rather than SipHash).
    pending: HashMap<u64, oneshot::Sender<Result<Value, ErrorObject>>, foldhash::fast::RandomState>,
    /// The standalone stream: a newer one replaces it.
    stream: Option<Outbound>,
    /// The subscribed resources, from the first subscription to the last unsubscription.
    #[allow(
        clippy::box_collection,
        reason = "most sessions subscribe to nothing: 8 bytes each instead of an empty set's 48"
    )]
    subscriptions: Option<Box<HashSet<String>>>,
    /// Calls running.
    calls: usize,
    /// Calls running and streams open: a busy session never expires.
    busy: usize,
    last_active: Option<Instant>,
}

impl SessionState {
    /// When the session last did something, or `None` while it is busy.
    fn idle_since(&self) -> Option<Instant> {
        if self.busy > 0 {
            None
        } else {
            self.last_active
        }
    }

    /// Whether the session has been idle for `timeout` at `now`.
    fn expired(&self, now: Instant, timeout: Duration) -> bool {
        self.idle_since()
            .is_some_and(|since| now.saturating_duration_since(since) >= timeout)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section is a few plain map operations: the data stays consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("version", &self.version)
            .field("carrier", &self.carrier)
            .finish_non_exhaustive()
    }
}

/// What a new session is opened with.
pub(crate) struct Opening {
    pub(crate) version: &'static str,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) client_info: Option<Implementation>,
    /// The subject (see [`Owner::of`]) or peer that opens the session.
    pub(crate) owner: Owner,
    pub(crate) carrier: Carrier,
}

impl Session {
    /// The capabilities the client declared, as far as the session keeps them (see
    /// `capabilities`).
    pub(crate) fn capabilities(&self) -> &ClientCapabilities {
        &self.declared.capabilities
    }

    /// The client's `clientInfo` from `initialize`, cut to a bounded summary, shared with
    /// the session: what a call's context holds instead of a copy.
    pub(crate) fn declared_info(&self) -> DeclaredInfo {
        DeclaredInfo(Arc::clone(&self.declared))
    }

    /// The subject that opened the session: only it may use the session.
    pub(crate) fn subject(&self) -> Option<&str> {
        match &self.owner {
            Owner::Subject(subject) => Some(subject),
            Owner::Peer(_) | Owner::Unknown => None,
        }
    }

    /// Whether the caps on calls and streams apply: over stdio the connection bounds them.
    fn capped(&self) -> bool {
        self.carrier == Carrier::Http
    }

    /// Registers a running call under its request id; the guard unregisters it. Refused
    /// when the session, or its owner's sessions together, run as many calls as they may.
    pub(crate) fn start_call(self: &Arc<Self>, id: &Value) -> Result<CallGuard, Refused> {
        let mut state = lock(&self.state);
        if self.capped() {
            if state.calls >= self.settings.max_calls_per_session {
                return Err(Refused::SessionCalls(self.settings.max_calls_per_session));
            }
            if !take(&self.usage.calls, self.settings.max_calls_per_owner) {
                return Err(Refused::OwnerCalls(self.settings.max_calls_per_owner));
            }
        }
        state.calls += 1;
        state.busy += 1;
        drop(state);
        // A client reusing the id of a running call can no longer cancel the first one.
        Ok(CallGuard {
            session: Arc::clone(self),
            registration: self.calls.register(id),
        })
    }

    /// Cancels the running call with request id `id` (`notifications/cancelled`).
    pub(crate) fn cancel(&self, id: &Value) {
        self.calls.cancel(id);
    }

    /// Delivers the client's response to the server-to-client request `id`. Responses to
    /// nothing pending (late, duplicated or forged) are dropped.
    pub(crate) fn deliver(&self, id: &Value, reply: Result<Value, ErrorObject>) {
        let Some(id) = id.as_u64() else { return };
        if let Some(waiting) = lock(&self.state).pending.remove(&id) {
            let _ = waiting.send(reply);
        }
    }

    /// Opens the standalone stream; the guard closes it. A session has one: a newer stream
    /// replaces the older, which ends. A first stream is refused when the owner's sessions,
    /// or the server, hold as many as they may.
    pub(crate) fn open_stream(self: &Arc<Self>, sender: Outbound) -> Result<StreamGuard, Refused> {
        let mut state = lock(&self.state);
        let replacing = state.stream.as_ref().is_some_and(|open| !open.is_closed());
        if self.capped() && !replacing {
            if !take(&self.usage.streams, self.settings.max_streams_per_owner) {
                return Err(Refused::OwnerStreams(self.settings.max_streams_per_owner));
            }
            if !take(&self.streams, self.settings.max_streams) {
                give_back(&self.usage.streams);
                return Err(Refused::Streams(self.settings.max_streams));
            }
        } else if self.capped() {
            // The replaced stream gives its places back when it ends.
            self.usage.streams.fetch_add(1, Ordering::AcqRel);
            self.streams.fetch_add(1, Ordering::AcqRel);
        }
        // Dropping the older sender ends its stream.
        state.stream = Some(sender);
        state.busy += 1;
        Ok(StreamGuard {
            session: Arc::clone(self),
        })
    }

    /// Sends a message that belongs to no request on the open standalone stream. Without
    /// one, the message is lost, as the revision allows.
    pub(crate) fn notify(&self, message: &Value) {
        let state = lock(&self.state);
        if let Some(stream) = &state.stream {
            let _ = stream.send(message.clone().into());
        }
    }

    /// Subscribes to `uri`; refused when the session holds as many subscriptions as it may.
    pub(crate) fn subscribe(&self, uri: String) -> Result<(), Refused> {
        let mut state = lock(&self.state);
        let max = self.settings.max_subscriptions;
        let subscriptions = state.subscriptions.get_or_insert_default();
        if subscriptions.len() >= max && !subscriptions.contains(&uri) {
            return Err(Refused::Subscriptions(max));
        }
        subscriptions.insert(uri);
        Ok(())
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        let mut state = lock(&self.state);
        if let Some(subscriptions) = &mut state.subscriptions {
            subscriptions.remove(uri);
            if subscriptions.is_empty() {
                state.subscriptions = None;
            }
        }
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        let state = lock(&self.state);
        state
            .subscriptions
            .as_ref()
            .is_some_and(|subscriptions| subscriptions.contains(uri))
    }

    /// How many server-to-client requests wait for the client's response.
    pub(crate) fn waiting(&self) -> usize {
        lock(&self.state).pending.len()
    }

    /// Marks the session active at `now`, unless it has been idle for `timeout` by then:
    /// whether it was still alive. One look at its state for both.
    fn touch_unless_expired(&self, now: Instant, timeout: Duration) -> bool {
        let mut state = lock(&self.state);
        if state.expired(now, timeout) {
            return false;
        }
        state.last_active = Some(now);
        true
    }

    /// When the session last did something, or `None` while it is busy.
    fn idle_since(&self) -> Option<Instant> {
        lock(&self.state).idle_since()
    }

    /// Whether the session has been idle for `timeout` at `now`.
    fn expired(&self, now: Instant, timeout: Duration) -> bool {
        lock(&self.state).expired(now, timeout)
    }

    /// Ends the session: running calls are cancelled, waiting requests dropped, the stream
    /// closed.
    fn close(&self) {
        self.calls.cancel_all();
        let mut state = lock(&self.state);
        state.pending.clear();
        state.stream = None;
    }

    fn release(&self) {
        let mut state = lock(&self.state);
        state.busy = state.busy.saturating_sub(1);
        state.last_active = Some(Instant::now());
    }

    /// An answerer that asks this session's client over `outbound`, the stream of the call.
    pub(crate) fn answerer(
        self: &Arc<Self>,
        outbound: Outbound,
        timeout: Duration,
        context: crate::server::RequestContext,
    ) -> ClientAnswerer {
        ClientAnswerer::new(Arc::clone(self), outbound, timeout, context)
    }
}

/// A running call of a session. Dropping it unregisters the call.
pub(crate) struct CallGuard {
    session: Arc<Session>,
    registration: Registration,
}

impl CallGuard {
    /// The session the call runs on.
    pub(crate) fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Resolves when the client cancels the call or the session ends.
    pub(crate) fn cancelled(&mut self) -> impl Future<Output = ()> + use<> {
        self.registration.cancelled()
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let session = &self.session;
        lock(&session.state).calls -= 1;
        if session.capped() {
            give_back(&session.usage.calls);
        }
        session.release();
    }
}

/// An open standalone stream of a session.
pub(crate) struct StreamGuard {
    session: Arc<Session>,
}

impl std::fmt::Debug for StreamGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamGuard")
    }
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let session = &self.session;
        let mut state = lock(&session.state);
        if state.stream.as_ref().is_some_and(Outbound::is_closed) {
            state.stream = None;
        }
        drop(state);
        if session.capped() {
            give_back(&session.usage.streams);
            give_back(&session.streams);
        }
        session.release();
    }
}

/// 128 bits from the operating system's random source, as 32 hexadecimal digits.
fn new_session_id() -> std::io::Result<Box<str>> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    let id: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(id.into_boxed_str())
}
