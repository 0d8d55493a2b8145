//! Legacy sessions: what an `initialize` handshake opens for a client of revision 2025-11-25
//! (or 2025-06-18, 2025-03-26), and the table that holds them.
//!
//! A session keeps what those revisions remember between requests: the negotiated version,
//! the client's capabilities, its log level and subscriptions, the server-to-client requests
//! still waiting for the client's response, the calls it may cancel, and its standalone
//! streams (an HTTP `GET` stream, or stdout). Everything a call registers is removed when the
//! call ends, whichever way it ends.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use super::cancel::{Cancellable, Registration};
use super::complete::Answerer;
use super::handler::BoxFuture;
use super::outbound::{LevelCell, Outbound};
use crate::protocol::{ClientCapabilities, ErrorCode, ErrorObject, InputRequests, InputResponses};

/// How long a legacy session may stay idle (no call running, no stream open) before it
/// expires: 30 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The most legacy sessions one server keeps: 10,000.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// How long a flow on a legacy session waits for the client to answer its questions before
/// the call fails: 10 minutes.
pub const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The settings of the legacy session table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SessionSettings {
    pub(crate) idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) input_timeout: Duration,
}

impl Default for SessionSettings {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            input_timeout: DEFAULT_INPUT_TIMEOUT,
        }
    }
}

/// Where a session's messages travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carrier {
    /// Streamable HTTP: found by its `Mcp-Session-Id`.
    Http,
    /// One stdio connection: never found by id.
    Stdio,
}

/// One legacy session.
pub(crate) struct Session {
    pub(crate) id: Box<str>,
    pub(crate) version: &'static str,
    pub(crate) capabilities: ClientCapabilities,
    /// The subject that opened the session: only it may use the session.
    pub(crate) subject: Option<String>,
    pub(crate) carrier: Carrier,
    pub(crate) log_level: Arc<LevelCell>,
    next_request_id: AtomicU64,
    /// Running calls the client may cancel, by their request id.
    calls: Arc<Cancellable>,
    state: Mutex<SessionState>,
}

#[derive(Default)]
struct SessionState {
    /// Server-to-client requests waiting for the client, by the id they were sent under.
    pending: HashMap<u64, oneshot::Sender<Result<Value, ErrorObject>>>,
    /// Standalone streams, oldest first.
    streams: Vec<Outbound>,
    subscriptions: HashSet<String>,
    /// Calls running and streams open: a busy session never expires.
    busy: usize,
    last_active: Option<Instant>,
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

impl Session {
    fn new(
        version: &'static str,
        capabilities: ClientCapabilities,
        subject: Option<String>,
        carrier: Carrier,
    ) -> std::io::Result<Self> {
        Ok(Self {
            id: new_session_id()?.into_boxed_str(),
            version,
            capabilities,
            subject,
            carrier,
            log_level: Arc::new(LevelCell::default()),
            next_request_id: AtomicU64::new(0),
            calls: Arc::default(),
            state: Mutex::new(SessionState {
                last_active: Some(Instant::now()),
                ..SessionState::default()
            }),
        })
    }

    /// Registers a running call under its request id; the guard unregisters it.
    pub(crate) fn start_call(self: &Arc<Self>, id: &Value) -> CallGuard {
        lock(&self.state).busy += 1;
        // A client reusing the id of a running call can no longer cancel the first one.
        CallGuard {
            session: Arc::clone(self),
            registration: self.calls.register(id),
        }
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

    /// Opens a standalone stream; the guard closes it.
    pub(crate) fn open_stream(self: &Arc<Self>, sender: Outbound) -> StreamGuard {
        let mut state = lock(&self.state);
        state.streams.push(sender);
        state.busy += 1;
        StreamGuard {
            session: Arc::clone(self),
        }
    }

    /// Sends a message that belongs to no request on the newest open standalone stream.
    /// Without one, the message is lost, as the revision allows.
    pub(crate) fn notify(&self, message: &Value) {
        let mut state = lock(&self.state);
        state.streams.retain(|stream| !stream.is_closed());
        if let Some(stream) = state.streams.last() {
            let _ = stream.send(message.clone());
        }
    }

    pub(crate) fn subscribe(&self, uri: String) {
        lock(&self.state).subscriptions.insert(uri);
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.state).subscriptions.remove(uri);
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.state).subscriptions.contains(uri)
    }

    /// How many server-to-client requests wait for the client's response.
    pub(crate) fn waiting(&self) -> usize {
        lock(&self.state).pending.len()
    }

    fn touch(&self) {
        lock(&self.state).last_active = Some(Instant::now());
    }

    /// When the session last did something, or `None` while it is busy.
    fn idle_since(&self) -> Option<Instant> {
        let state = lock(&self.state);
        if state.busy > 0 {
            None
        } else {
            state.last_active
        }
    }

    /// Ends the session: running calls are cancelled, waiting requests dropped, streams
    /// closed.
    fn close(&self) {
        self.calls.cancel_all();
        let mut state = lock(&self.state);
        state.pending.clear();
        state.streams.clear();
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
    ) -> ClientAnswerer {
        ClientAnswerer {
            session: Arc::clone(self),
            outbound,
            timeout,
        }
    }
}

/// A running call of a session. Dropping it unregisters the call.
pub(crate) struct CallGuard {
    session: Arc<Session>,
    registration: Registration,
}

impl CallGuard {
    /// Resolves when the client cancels the call or the session ends.
    pub(crate) fn cancelled(&mut self) -> impl Future<Output = ()> + use<> {
        self.registration.cancelled()
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.session.release();
    }
}

/// An open standalone stream of a session.
pub(crate) struct StreamGuard {
    session: Arc<Session>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let mut state = lock(&self.session.state);
        state.streams.retain(|stream| !stream.is_closed());
        drop(state);
        self.session.release();
    }
}

/// Answers a flow's questions by sending them to the session's client as server-to-client
/// requests on the call's stream and waiting for its responses.
pub(crate) struct ClientAnswerer {
    session: Arc<Session>,
    outbound: Outbound,
    timeout: Duration,
}

/// The server-to-client requests of one round still waiting; dropped, it forgets them.
struct Waiting<'a> {
    session: &'a Session,
    ids: Vec<u64>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut state = lock(&self.session.state);
        for id in &self.ids {
            state.pending.remove(id);
        }
    }
}

impl Answerer for ClientAnswerer {
    fn answer(
        &mut self,
        requests: InputRequests,
    ) -> BoxFuture<'_, Result<InputResponses, ErrorObject>> {
        Box::pin(async move {
            let session = &*self.session;
            let mut waiting = Waiting {
                session,
                ids: Vec::with_capacity(requests.len()),
            };
            let mut replies = Vec::with_capacity(requests.len());
            for (key, request) in requests {
                let id = session.next_request_id.fetch_add(1, Ordering::Relaxed);
                let (sender, receiver) = oneshot::channel();
                lock(&session.state).pending.insert(id, sender);
                waiting.ids.push(id);
                let mut message = serde_json::to_value(&request).map_err(|error| {
                    internal(format!("an input request did not serialise: {error}"))
                })?;
                message["jsonrpc"] = Value::from("2.0");
                message["id"] = Value::from(id);
                if self.outbound.send(message).is_err() {
                    return Err(internal("the call's stream closed"));
                }
                replies.push((key, request.method(), receiver));
            }
            let timeout = self.timeout;
            let collect = async {
                let mut answers = InputResponses::new();
                for (key, method, receiver) in replies {
                    match receiver.await {
                        Ok(Ok(answer)) => {
                            answers.insert(key, answer);
                        }
                        Ok(Err(error)) => {
                            return Err(internal(format!(
                                "the client answered `{method}` with an error: {}",
                                error.message
                            )));
                        }
                        Err(_) => return Err(internal("the session ended")),
                    }
                }
                Ok(answers)
            };
            let answers = tokio::time::timeout(timeout, collect).await.map_err(|_| {
                internal(format!(
                    "the client did not answer within {} s",
                    timeout.as_secs()
                ))
            })?;
            drop(waiting);
            answers
        })
    }
}

fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// 128 bits from the operating system's random source, as 32 hexadecimal digits.
fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Why a session could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// Every one of the maximum number of sessions is busy.
    Full,
    /// The random source failed.
    Random(std::io::Error),
}

/// Every legacy session of a server.
#[derive(Default)]
pub(crate) struct Sessions {
    pub(crate) settings: SessionSettings,
    table: Mutex<HashMap<Box<str>, Arc<Session>>>,
}

impl Sessions {
    pub(crate) fn new(settings: SessionSettings) -> Self {
        Self {
            settings,
            table: Mutex::default(),
        }
    }

    /// Opens a session. At the maximum, expired sessions go first, then the least recently
    /// active idle one; when every session is busy, none is opened.
    pub(crate) fn open(
        &self,
        version: &'static str,
        capabilities: ClientCapabilities,
        subject: Option<String>,
        carrier: Carrier,
    ) -> Result<Arc<Session>, OpenError> {
        let session = Arc::new(
            Session::new(version, capabilities, subject, carrier).map_err(OpenError::Random)?,
        );
        let mut table = lock(&self.table);
        if table.len() >= self.settings.max_sessions {
            let now = Instant::now();
            let idle = self.settings.idle_timeout;
            let mut closed = Vec::new();
            table.retain(|_, session| {
                let expired = session
                    .idle_since()
                    .is_some_and(|since| now.duration_since(since) >= idle);
                if expired {
                    closed.push(Arc::clone(session));
                }
                !expired
            });
            if table.len() >= self.settings.max_sessions {
                let oldest = table
                    .iter()
                    .filter_map(|(id, session)| Some((session.idle_since()?, id.clone())))
                    .min();
                let (_, id) = oldest.ok_or(OpenError::Full)?;
                closed.extend(table.remove(&id));
            }
            for session in closed {
                session.close();
            }
        }
        table.insert(session.id.clone(), Arc::clone(&session));
        Ok(session)
    }

    /// The HTTP session `id`, if it exists, has not expired and belongs to `subject`.
    pub(crate) fn find(&self, id: &str, subject: Option<&str>) -> Option<Arc<Session>> {
        let mut table = lock(&self.table);
        let session = table.get(id)?;
        if session.carrier != Carrier::Http || session.subject.as_deref() != subject {
            return None;
        }
        let expired = session
            .idle_since()
            .is_some_and(|since| since.elapsed() >= self.settings.idle_timeout);
        if expired {
            let session = table.remove(id)?;
            drop(table);
            session.close();
            return None;
        }
        session.touch();
        Some(Arc::clone(session))
    }

    /// Ends the session `id`; whether it existed.
    pub(crate) fn close(&self, id: &str) -> bool {
        let removed = lock(&self.table).remove(id);
        removed.map(|session| session.close()).is_some()
    }

    /// The sessions open now.
    pub(crate) fn all(&self) -> Vec<Arc<Session>> {
        lock(&self.table).values().cloned().collect()
    }

    /// How many sessions are open.
    pub(crate) fn len(&self) -> usize {
        lock(&self.table).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitRequestParams, InputRequest};

    impl Session {
        /// (waiting requests, running calls, open streams, busy count)
        fn held(&self) -> (usize, usize, usize, usize) {
            let state = lock(&self.state);
            (
                state.pending.len(),
                self.calls.len(),
                state.streams.len(),
                state.busy,
            )
        }
    }

    fn open(sessions: &Sessions) -> Arc<Session> {
        sessions
            .open(
                "2025-11-25",
                ClientCapabilities::default(),
                None,
                Carrier::Http,
            )
            .unwrap()
    }

    fn question() -> InputRequests {
        let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
            "message": "Sure?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        }))
        .unwrap();
        InputRequests::from([("sure".to_owned(), InputRequest::Elicit(params))])
    }

    #[tokio::test]
    async fn a_finished_or_abandoned_call_leaves_nothing_behind() {
        let sessions = Sessions::default();
        let session = open(&sessions);
        let call = session.start_call(&Value::from(7));
        assert_eq!(session.held(), (0, 1, 0, 1));
        let (outbound, mut messages) = super::super::outbound::channel();
        let mut answerer = session.answerer(outbound, Duration::from_secs(60));
        {
            let waiting = answerer.answer(question());
            tokio::pin!(waiting);
            let early = tokio::time::timeout(Duration::from_millis(20), &mut waiting).await;
            assert!(early.is_err(), "no answer yet");
            assert_eq!(session.held().0, 1, "one request waits");
            let sent = messages.try_recv().unwrap();
            assert_eq!(sent["method"], "elicitation/create");
            // The call is dropped mid-question (a dropped stream, a cancellation).
        }
        drop(call);
        assert_eq!(session.held(), (0, 0, 0, 0));
        // A late answer to the forgotten request goes nowhere.
        session.deliver(&Value::from(0), Ok(Value::Null));
        assert_eq!(session.held(), (0, 0, 0, 0));
    }

    #[tokio::test]
    async fn answers_reach_the_round_and_the_session_ends_its_calls() {
        let sessions = Sessions::default();
        let session = open(&sessions);
        let (outbound, mut messages) = super::super::outbound::channel();
        let mut answerer = session.answerer(outbound, Duration::from_secs(60));
        let answering = Arc::clone(&session);
        let client = tokio::spawn(async move {
            let asked = messages.recv().await.unwrap();
            answering.deliver(&asked["id"], Ok(serde_json::json!({"action": "decline"})));
        });
        let answers = answerer.answer(question()).await.unwrap();
        client.await.unwrap();
        assert_eq!(answers["sure"]["action"], "decline");
        assert_eq!(session.held(), (0, 0, 0, 0));
        let mut call = session.start_call(&Value::from("c"));
        let cancelled = call.cancelled();
        assert!(sessions.close(&session.id));
        tokio::time::timeout(Duration::from_secs(1), cancelled)
            .await
            .expect("closing the session cancels its calls");
        drop(call);
        assert_eq!(session.held(), (0, 0, 0, 0));
        assert!(sessions.find(&session.id, None).is_none());
    }

    #[tokio::test]
    async fn a_client_that_does_not_answer_runs_into_the_timeout() {
        let sessions = Sessions::default();
        let session = open(&sessions);
        let (outbound, _messages) = super::super::outbound::channel();
        let mut answerer = session.answerer(outbound, Duration::from_millis(10));
        let error = answerer.answer(question()).await.unwrap_err();
        assert!(
            error.message.contains("did not answer"),
            "{}",
            error.message
        );
        assert_eq!(session.held(), (0, 0, 0, 0));
    }
}
