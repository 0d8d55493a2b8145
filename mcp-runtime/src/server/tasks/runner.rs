//! Running a task: the round that becomes one, the rounds `tasks/update` resumes, and what
//! each round's end does to the stored task.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::task::JoinHandle;

use super::record::{Status, TaskRecord};
use super::stored::{decode, fail, failed, internal, millis, replace, touch};
use super::{Hub, subject_digest};
use crate::logfield::untrusted;
use crate::protocol::{ClientCapabilities, ErrorObject, InputResponses, ProgressToken};
use crate::server::Server;
use crate::server::handler::{BoxFuture, HandlerResult, Progress, Reply};
use crate::server::outbound::MessageReceiver;
use crate::state::Binding;

/// The longest status message a task keeps; a longer progress message is cut.
const MAX_STATUS_MESSAGE: usize = 1024;

/// How a raced round ended: by itself in time, or as a task.
pub(crate) enum Raced<R> {
    /// The round ended before it became a task: answer it as an ordinary round.
    Done(HandlerResult<R>),
    /// The call became a task: answer this `CreateTaskResult`.
    Task(Vec<u8>),
}

/// A call that may become a task, prepared by dispatch before its round starts.
pub(crate) struct Launch {
    hub: Arc<Hub>,
    server: Server,
    tool: String,
    arguments: Option<Map<String, Value>>,
    capabilities: Value,
    subject: Option<String>,
    peer: Option<IpAddr>,
    after: Duration,
    /// The request's own progress, which reports go to until the call is a task.
    original: Progress,
    /// The round's reports.
    reports: MessageReceiver,
}

impl Launch {
    /// Prepares `tool`'s call to become a task, giving the round a progress handle of the
    /// task's (`progress` is swapped for it; reports reach the request's own until then).
    #[allow(
        clippy::too_many_arguments,
        reason = "the facts of one call, handed over once"
    )]
    pub(crate) fn new(
        hub: Arc<Hub>,
        server: &Server,
        tool: &str,
        arguments: Option<&Map<String, Value>>,
        capabilities: Value,
        subject: Option<String>,
        peer: Option<IpAddr>,
        after: Duration,
        progress: &mut Progress,
    ) -> Self {
        let (ours, reports) = Progress::channel(ProgressToken::from(0));
        let original = std::mem::replace(progress, ours);
        Self {
            hub,
            server: server.clone(),
            tool: tool.to_owned(),
            arguments: arguments.cloned(),
            capabilities,
            subject,
            peer,
            after,
            original,
            reports,
        }
    }

    /// Runs `round`: answered as an ordinary round when it ends within `after`, else a task
    /// is durably created and answered, and the round goes on in the task. A task that cannot
    /// be created (at a bound, the store failing) leaves the call an ordinary one.
    pub(crate) async fn race<R: Serialize + Send + 'static>(
        mut self,
        round: BoxFuture<'static, HandlerResult<R>>,
    ) -> Raced<R> {
        let mut handle = AbortOnDrop(Some(tokio::spawn(round)));
        let deadline = tokio::time::sleep(self.after);
        tokio::pin!(deadline);
        if !self.after.is_zero() {
            loop {
                tokio::select! {
                    joined = handle.join() => return Raced::Done(joined),
                    Some(report) = self.reports.recv() => forward(&self.original, &report),
                    () = &mut deadline => break,
                }
            }
        }
        match self.create().await {
            Some((id, view)) => {
                let handle = handle.0.take().expect("the round is still held");
                let mut view = view;
                if let Some(info) = self.server.inner.context.server_info() {
                    crate::server::context::stamp_value(&mut view, info);
                }
                let body = serde_json::to_vec(&view).expect("a task view serialises");
                let hub = Arc::clone(&self.hub);
                if hub.start_running(&id, handle.abort_handle()) {
                    let subject = self.subject.clone();
                    tokio::spawn(drive(hub, self.server, id, subject, handle, self.reports));
                } else {
                    handle.abort();
                    fail(&hub, &id, busy()).await;
                }
                Raced::Task(body)
            }
            None => loop {
                tokio::select! {
                    joined = handle.join() => return Raced::Done(joined),
                    Some(report) = self.reports.recv() => forward(&self.original, &report),
                }
            },
        }
    }

    /// Creates the task in the store; `None` when it cannot be.
    async fn create(&self) -> Option<(String, Value)> {
        let hub = &self.hub;
        if hub.is_busy() {
            return None;
        }
        let settings = &hub.settings;
        let now = hub.now_ms();
        let id = new_id();
        let record = TaskRecord {
            status: Status::Working,
            message: None,
            created_ms: now,
            updated_ms: now,
            ttl_ms: millis(settings.ttl),
            poll_ms: millis(settings.poll_interval),
            subject: subject_digest(self.subject.as_deref()),
            tool: self.tool.clone(),
            arguments: self.arguments.clone(),
            capabilities: self.capabilities.clone(),
            round: 0,
            requests: None,
            answered: None,
            state: None,
            result: None,
            error: None,
            lease_ms: Some(now + millis(settings.lease)),
        };
        let bytes = serde_json::to_vec(&record).ok()?;
        if bytes.len() > settings.max_task_bytes {
            tracing::warn!(bytes = bytes.len(), "a call is too large to become a task");
            return None;
        }
        // Charged as the server counts owners: one host's IPv6 addresses are one owner, so
        // that a host cannot take a quota per address.
        let owner = crate::server::owner::charged_to(self.subject.as_deref(), self.peer);
        match settings
            .store
            .create(owner, &id, &bytes, settings.ttl)
            .await
        {
            Ok(()) => {
                let view = record.view(&id, "task");
                Some((id, view))
            }
            Err(error) => {
                tracing::warn!(%error, "a call could not become a task; served as an ordinary call");
                None
            }
        }
    }
}

/// A round's handle that aborts the round when dropped before it is handed on (the client
/// went away before the call became a task).
struct AbortOnDrop<R>(Option<JoinHandle<HandlerResult<R>>>);

impl<R> AbortOnDrop<R> {
    async fn join(&mut self) -> HandlerResult<R> {
        let handle = self.0.as_mut().expect("the round is still held");
        let joined = handle.await;
        self.0 = None;
        joined.unwrap_or_else(|_| Err(internal("the task's round stopped")))
    }
}

impl<R> Drop for AbortOnDrop<R> {
    fn drop(&mut self) {
        if let Some(handle) = &self.0 {
            handle.abort();
        }
    }
}

/// Sends a report of the round's on to the request's own progress.
fn forward(original: &Progress, report: &Value) {
    let params = &report["params"];
    let progress = params["progress"].as_f64().unwrap_or_default();
    let total = params["total"].as_f64();
    let message = params["message"].as_str().map(str::to_owned);
    original.report(progress, total, message);
}

/// What a progress report says, as a status message.
fn status_text(report: &Value) -> String {
    let params = &report["params"];
    let mut text = match params["message"].as_str() {
        Some(message) => message.to_owned(),
        None => {
            let progress = params["progress"].as_f64().unwrap_or_default();
            match params["total"].as_f64() {
                Some(total) => format!("{progress}/{total}"),
                None => format!("{progress}"),
            }
        }
    };
    if text.len() > MAX_STATUS_MESSAGE {
        let mut end = MAX_STATUS_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// Runs a task's round to its end here: reports become status messages, the lease is renewed
/// every third of it, and the round is dropped as soon as the task is no longer `working`
/// (cancelled, or failed for want of a renewal).
pub(crate) async fn drive<R: Serialize + Send + 'static>(
    hub: Arc<Hub>,
    server: Server,
    id: String,
    subject: Option<String>,
    mut handle: JoinHandle<HandlerResult<R>>,
    mut reports: MessageReceiver,
) {
    let every = hub.settings.lease / 3;
    let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let joined = loop {
        tokio::select! {
            joined = &mut handle => break joined,
            Some(report) = reports.recv() => {
                if !touch(&hub, &id, Some(status_text(&report))).await {
                    handle.abort();
                    hub.stop_running(&id);
                    return;
                }
            }
            _ = renew.tick() => {
                if !touch(&hub, &id, None).await {
                    handle.abort();
                    hub.stop_running(&id);
                    return;
                }
            }
        }
    };
    hub.stop_running(&id);
    let end = match joined {
        Ok(Ok(Reply::Complete(result))) => match serde_json::to_value(&result) {
            Ok(result) => End::Completed(result),
            Err(_) => End::Failed(internal("the result did not serialise")),
        },
        Ok(Ok(Reply::InputRequired(asked))) => {
            let (requests, state) = asked.into_parts();
            End::Asked(requests, state)
        }
        Ok(Err(error)) => End::Failed(error),
        Err(_) => End::Failed(internal("the task's round stopped")),
    };
    finish(&hub, &server, &id, subject, end).await;
}

/// How a round of a task ended.
enum End {
    Completed(Value),
    Failed(ErrorObject),
    /// Questions (by the flow's keys) and the continuation.
    Asked(Option<crate::protocol::InputRequests>, Option<Vec<u8>>),
}

/// Records a round's end: the result, the error, or the questions and signed continuation.
async fn finish(hub: &Arc<Hub>, server: &Server, id: &str, subject: Option<String>, end: End) {
    if let End::Asked(None, Some(state)) = end {
        // A round of state alone: the flow goes on at once, with no answers.
        let (hub, server) = (Arc::clone(hub), server.clone());
        resume(hub, server, id.to_owned(), subject, Some(state), None).await;
        return;
    }
    let store = &hub.settings.store;
    loop {
        let Ok(Some((version, record))) = store.get(id).await.map(|found| found.and_then(decode))
        else {
            return;
        };
        if record.status != Status::Working {
            return; // cancelled, or failed for want of a renewal: the round's end is dropped
        }
        let now = hub.now_ms();
        let next = match &end {
            End::Completed(result) => {
                let mut next = record.moved(Status::Completed, now);
                next.result = Some(result.clone());
                next
            }
            End::Failed(error) => failed(&record, error, now),
            End::Asked(requests, state) => {
                let mut next = record.moved(Status::InputRequired, now);
                next.round += 1;
                let round = next.round;
                next.requests = Some(
                    requests
                        .iter()
                        .flatten()
                        .filter_map(|(key, request)| {
                            Some((
                                format!("{round}:{key}"),
                                serde_json::to_value(request).ok()?,
                            ))
                        })
                        .collect(),
                );
                next.state = state.as_ref().map(|payload| {
                    let left = (record.created_ms + record.ttl_ms).saturating_sub(now);
                    let signer = server
                        .inner
                        .signer
                        .clone()
                        .with_ttl(Duration::from_millis(left.max(1000)));
                    signer
                        .sign_with_binding(&binding(server, id, record.subject.as_deref()), payload)
                });
                next
            }
        };
        match replace(hub, id, version, &next, true).await {
            Ok(true) | Err(()) => return,
            Ok(false) => {}
        }
    }
}

/// Runs the next round of task `id` here, from its continuation `state`, with `answers`.
///
/// Boxed: a round's end may resume the next round, which may end likewise.
pub(crate) fn resume(
    hub: Arc<Hub>,
    server: Server,
    id: String,
    subject: Option<String>,
    state: Option<Vec<u8>>,
    answers: Option<InputResponses>,
) -> BoxFuture<'static, ()> {
    Box::pin(async move {
        let (hub, server, id) = (&hub, &server, id.as_str());
        let found = hub
            .settings
            .store
            .get(id)
            .await
            .map(|found| found.and_then(decode));
        let Ok(Some((_, record))) = found else {
            return;
        };
        start(hub, server, id, subject, state, answers, record).await;
    })
}

async fn start(
    hub: &Arc<Hub>,
    server: &Server,
    id: &str,
    subject: Option<String>,
    state: Option<Vec<u8>>,
    answers: Option<InputResponses>,
    record: TaskRecord,
) {
    let inner = &server.inner;
    // The tool as the registry serves it now: one removed or disabled since fails the task.
    let snapshot = inner.registry.snapshot();
    let Some(handler) = snapshot
        .tool_index
        .get(&record.tool)
        .map(|&at| Arc::clone(&snapshot.tools[at]))
    else {
        fail(hub, id, internal("the task's tool is no longer served")).await;
        return;
    };
    let capabilities = serde_json::from_value::<ClientCapabilities>(record.capabilities.clone())
        .unwrap_or_default()
        .into();
    let (progress, reports) = Progress::channel(ProgressToken::from(0));
    let request = crate::server::handler::Request {
        method: "tools/call",
        target: record.tool.clone(),
        arguments: record.arguments.clone(),
        input_responses: answers,
        state,
        capabilities,
        subject: subject.clone(),
        claims: None,
        progress,
        logger: crate::server::outbound::Logger::none(),
        app: inner.state.clone(),
        // A task's rounds run apart from any request: a 2026-07-28 context with no `_meta`
        // and no headers.
        context: crate::server::context::RequestContext::modern(
            serde_json::Map::new(),
            axum::http::HeaderMap::new(),
        ),
    };
    let running = crate::server::panic::guarded(|| handler.call(request));
    let round = async move {
        running.await.unwrap_or_else(|panic| {
            tracing::error!(panic = %untrusted(&panic), "a task's handler panicked");
            Err(internal("internal error"))
        })
    };
    let handle = tokio::spawn(round);
    if hub.start_running(id, handle.abort_handle()) {
        tokio::spawn(drive(
            Arc::clone(hub),
            server.clone(),
            id.to_owned(),
            subject,
            handle,
            reports,
        ));
    } else {
        handle.abort();
        fail(hub, id, busy()).await;
    }
}

/// What a task's continuation is bound to: the server's audience, the task and its subject.
pub(crate) fn binding(server: &Server, id: &str, subject: Option<&str>) -> Binding {
    Binding::from_parts(&[
        b"mcp-runtime/tasks",
        server.inner.audience.as_bytes(),
        id.as_bytes(),
        subject.unwrap_or_default().as_bytes(),
    ])
}

/// A new task id: 16 random bytes as 32 lowercase hex digits.
fn new_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system has randomness");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Whether `id` has the shape of a task id; anything else is unknown without a look-up.
pub(crate) fn is_task_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
}

fn busy() -> ErrorObject {
    internal("the server runs too many tasks to run this one")
}
