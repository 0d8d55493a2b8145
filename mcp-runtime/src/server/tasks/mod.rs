//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): tools whose calls run as
//! tasks the server owns, polled with `tasks/get`, answered with `tasks/update`, stopped with
//! `tasks/cancel`. See [`Tasks`] and [`task`].

mod methods;
mod record;
mod runner;
mod stored;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, UNIX_EPOCH};

use serde_json::{Map, Value, json};

pub(crate) use methods::Method as TaskMethod;
use record::TaskRecord;
pub(crate) use runner::{Launch, Raced};

use super::Server;
use super::app_state::StateType;
use super::error::RpcError;
use super::handler::{BoxFuture, HandlerResult, Request, ToolHandler};
use super::register::IntoToolHandler;
use crate::protocol::{CallToolResult, ClientCapabilities, ErrorCode, ErrorObject, Tool};
use crate::state::Clock;
use crate::tasks::{MemoryTaskStore, TaskStore};

/// The extension's identifier, as capabilities name it.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How long a task lives after its creation unless told otherwise: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// The polling interval tasks suggest unless told otherwise.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How long the instance running a task vouches for it between two renewals unless told
/// otherwise.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// The most bytes one stored task may take unless told otherwise: 256 KiB.
pub const DEFAULT_MAX_TASK_BYTES: usize = 256 * 1024;

/// The most tasks one instance runs at once unless told otherwise.
pub const DEFAULT_MAX_RUNNING: usize = 1024;

/// The tasks extension on a server: where tasks are kept and how they are offered.
///
/// Register with [`ServerBuilder::tasks`](super::ServerBuilder::tasks); a server with a
/// [`task`] tool and no `Tasks` keeps its tasks in process with these defaults. Every instance
/// that shares the store (a [`RedisTaskStore`](crate::tasks::RedisTaskStore)) and the key
/// ring answers `tasks/get` and takes `tasks/update` for every task.
///
/// | setting | default | what it bounds |
/// |---|---|---|
/// | [`ttl`](Self::ttl) | [`DEFAULT_TASK_TTL`] | how long a task is kept after its creation (`ttlMs`) |
/// | [`poll_interval`](Self::poll_interval) | [`DEFAULT_POLL_INTERVAL`] | `pollIntervalMs`; a task polled on one instance more often than half of it gets HTTP 429 |
/// | [`lease`](Self::lease) | [`DEFAULT_LEASE`] | a `working` task whose instance has not renewed it for this long is reported `failed` |
/// | [`max_task_bytes`](Self::max_task_bytes) | [`DEFAULT_MAX_TASK_BYTES`] | one stored task (arguments, questions, result, continuation) |
/// | [`max_running`](Self::max_running) | [`DEFAULT_MAX_RUNNING`] | tasks running at once on one instance |
///
/// Live tasks per owner and in total are bounded by the store
/// ([`DEFAULT_TASKS_PER_OWNER`](crate::tasks::DEFAULT_TASKS_PER_OWNER),
/// [`DEFAULT_TASK_CAPACITY`](crate::tasks::DEFAULT_TASK_CAPACITY)); a call that cannot become a
/// task at a bound is served as an ordinary call.
#[derive(Clone)]
#[must_use]
pub struct Tasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) lease: Duration,
    pub(crate) max_task_bytes: usize,
    pub(crate) max_running: usize,
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new(MemoryTaskStore::new())
    }
}

impl Tasks {
    /// Tasks kept in `store`, with the default settings.
    pub fn new(store: impl TaskStore) -> Self {
        Self {
            store: Arc::new(store),
            ttl: DEFAULT_TASK_TTL,
            poll_interval: DEFAULT_POLL_INTERVAL,
            lease: DEFAULT_LEASE,
            max_task_bytes: DEFAULT_MAX_TASK_BYTES,
            max_running: DEFAULT_MAX_RUNNING,
        }
    }

    /// Keeps each task `ttl` after its creation (at least one second).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// Suggests clients poll every `interval` (at least one millisecond).
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// Takes a `working` task for failed when its instance has not renewed it for `lease` (at
    /// least 100 ms); the instance renews it every third of that.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// Stores at most `bytes` per task.
    pub fn max_task_bytes(mut self, bytes: usize) -> Self {
        self.max_task_bytes = bytes;
        self
    }

    /// Runs at most `running` tasks at once on this instance (at least one).
    pub fn max_running(mut self, running: usize) -> Self {
        self.max_running = running.max(1);
        self
    }
}

/// Whether and when a tool's calls become tasks ([`ToolHandler::task_support`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: every call is an ordinary one. The default.
    #[default]
    Never,
    /// For a client that declares the extension on its request, once a round has run `after`
    /// without reaching a question or its end (at once when zero); for any other client, an
    /// ordinary call.
    Optional {
        /// How long a round runs before the call becomes a task.
        after: Duration,
    },
    /// As `Optional`, and a client that does not declare the extension is refused with
    /// `-32021`.
    Required {
        /// How long a round runs before the call becomes a task.
        after: Duration,
    },
}

impl TaskSupport {
    fn after(self) -> Option<Duration> {
        match self {
            Self::Never => None,
            Self::Optional { after } | Self::Required { after } => Some(after),
        }
    }
}

/// Serves `tool` as a task for clients that declare the tasks extension: its call becomes a
/// task at once ([`TaskTool::after`] changes when), and its questions become the task's
/// `input_required` status. Clients without the extension call it as an ordinary tool
/// ([`TaskTool::required`] refuses them instead).
///
/// ```
/// use mcp_runtime::server::{Server, task};
/// use mcp_runtime::{Cx, ToolResult, text, tool};
///
/// /// Rebuilds the index.
/// #[tool]
/// async fn reindex(cx: Cx) -> ToolResult {
///     Ok(text("Reindexed."))
/// }
///
/// let server = Server::builder().tool(task(reindex)).build();
/// # drop(server);
/// ```
pub fn task<M>(tool: impl IntoToolHandler<M>) -> TaskTool<impl ToolHandler> {
    TaskTool {
        handler: tool.into_tool_handler(),
        support: TaskSupport::Optional {
            after: Duration::ZERO,
        },
    }
}

/// A tool served as a task; made by [`task`].
#[derive(Debug, Clone)]
#[must_use]
pub struct TaskTool<H> {
    handler: H,
    support: TaskSupport,
}

impl<H> TaskTool<H> {
    /// Becomes a task only once a round has run `after` without reaching a question or its
    /// end: questions asked before then go through ordinary rounds (`input_required` with a
    /// `requestState`), as the extension advises, and a call that ends quickly is answered at
    /// once.
    pub fn after(mut self, after: Duration) -> Self {
        self.support = match self.support {
            TaskSupport::Required { .. } => TaskSupport::Required { after },
            _ => TaskSupport::Optional { after },
        };
        self
    }

    /// Refuses clients that do not declare the extension, with `-32021`.
    pub fn required(mut self) -> Self {
        let after = self.support.after().unwrap_or_default();
        self.support = TaskSupport::Required { after };
        self
    }
}

impl<H: ToolHandler> ToolHandler for TaskTool<H> {
    fn definition(&self) -> Tool {
        self.handler.definition()
    }
    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        self.handler.call(request)
    }
    fn single_use(&self) -> bool {
        self.handler.single_use()
    }
    fn required_state(&self) -> Vec<StateType> {
        self.handler.required_state()
    }
    fn task_support(&self) -> TaskSupport {
        self.support
    }
    fn flow_graph(&self) -> Option<&'static crate::graph::FlowGraph> {
        self.handler.flow_graph()
    }
}

/// Whether the request's capabilities declare the extension.
pub(crate) fn declared(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION))
}

/// Whether a 2026-07-28 request's `_meta` declares the extension in its client capabilities;
/// an error when those capabilities do not parse.
pub(crate) fn declared_in(params: &Map<String, Value>) -> Result<bool, RpcError> {
    let capabilities = params
        .get("_meta")
        .and_then(|meta| meta.get(crate::protocol::meta::META_CLIENT_CAPABILITIES))
        .cloned()
        .unwrap_or_default();
    let capabilities: ClientCapabilities = serde_json::from_value(capabilities)
        .map_err(|error| RpcError::invalid_meta(format!("invalid client capabilities: {error}")))?;
    Ok(declared(&capabilities))
}

/// `-32021` naming the extension.
pub(crate) fn missing_extension(what: &str) -> RpcError {
    let error = ErrorObject::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "{what} needs the `{TASKS_EXTENSION}` extension in the request's client capabilities"
        ),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}));
    RpcError::from_handler(error)
}

/// A server's tasks: the settings, the tasks this instance runs, and when each task was last
/// polled here. Owned by the server; both maps are bounded (`max_running`, and the poll map is
/// swept of entries older than the poll gap whenever it grows past its bound).
pub(crate) struct Hub {
    pub(crate) settings: Tasks,
    pub(crate) clock: Arc<dyn Clock>,
    running: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// Per task: when its current polling window began, and how many polls it has seen.
    polls: Mutex<HashMap<String, (Instant, u32)>>,
    /// The server whose listen streams hear of status changes; set once it is built.
    server: std::sync::OnceLock<std::sync::Weak<super::Inner>>,
}

/// The most task ids one listen stream may follow: 64.
pub const MAX_LISTENED_TASKS: usize = 64;

/// The `taskIds` filter field of `subscriptions/listen`: well-formed ids are agreed, in the
/// scope of the caller's subject, so a status notification reaches only listeners of the
/// subject that created the task (another subject's listen agrees to the id and hears
/// nothing, as it would of an unknown id).
pub(crate) fn listen_field() -> super::subscriptions::KeyedField {
    super::subscriptions::keyed_field(
        "taskIds",
        MAX_LISTENED_TASKS,
        |_, key| runner::is_task_id(key),
        subject_digest,
    )
}

/// `-32021` when a listen request asks for task notifications and its client did not declare
/// the extension.
pub(crate) fn check_listen(params: &Map<String, Value>) -> Result<(), RpcError> {
    let asks = params
        .get("notifications")
        .and_then(|asked| asked.get("taskIds"))
        .is_some_and(|ids| ids.as_array().is_none_or(|ids| !ids.is_empty()));
    // Capabilities that do not parse declare nothing here: the listen request is refused
    // as undeclared rather than as malformed.
    if asks && !declared_in(params).unwrap_or(false) {
        return Err(missing_extension(
            "task notifications on `subscriptions/listen`",
        ));
    }
    Ok(())
}

/// The most tasks whose last poll one instance remembers.
const MAX_POLLS_KEPT: usize = 100_000;

/// How many times one task may be polled on one instance within one polling interval: 20.
/// Clients poll faster than they are asked to (the official conformance suite polls every
/// 200 ms whatever `pollIntervalMs` says, five times the default interval), so the bound is
/// set for a hostile rate, not for a polite one.
pub const POLLS_PER_INTERVAL: u32 = 20;

impl Hub {
    pub(crate) fn new(settings: Tasks, clock: Arc<dyn Clock>) -> Self {
        Self {
            settings,
            clock,
            running: Mutex::default(),
            polls: Mutex::default(),
            server: std::sync::OnceLock::new(),
        }
    }

    /// Lets the tasks' status changes reach `server`'s listen streams.
    pub(crate) fn attach(&self, server: std::sync::Weak<super::Inner>) {
        let _ = self.server.set(server);
    }

    /// Sends `notifications/tasks` with the task as `tasks/get` would answer it now, to the
    /// listen streams of this instance that follow `id` for the task's subject.
    pub(crate) fn announce(&self, id: &str, record: &TaskRecord) {
        let Some(inner) = self.server.get().and_then(std::sync::Weak::upgrade) else {
            return;
        };
        let Value::Object(mut params) = record.view(id, "complete") else {
            return;
        };
        params.remove("resultType");
        let topic = super::subscriptions::Topic::Keyed {
            field: "taskIds",
            key: id,
            scope: record.subject.as_deref(),
        };
        inner
            .subscriptions
            .hub()
            .publish(topic, "notifications/tasks", &params);
    }

    /// Milliseconds since the epoch, on the signer's clock.
    pub(crate) fn now_ms(&self) -> u64 {
        let since = self
            .clock
            .now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    }

    /// Notes a task running here; `false` at `max_running`.
    fn start_running(&self, id: &str, abort: tokio::task::AbortHandle) -> bool {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|_, handle| !handle.is_finished());
        if running.len() >= self.settings.max_running {
            return false;
        }
        running.insert(id.to_owned(), abort);
        true
    }

    fn stop_running(&self, id: &str) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.remove(id);
    }

    /// Whether this instance runs too many tasks to take another.
    fn is_busy(&self) -> bool {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|_, handle| !handle.is_finished());
        running.len() >= self.settings.max_running
    }

    /// Drops the task's round if it runs here.
    fn abort(&self, id: &str) {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(handle) = running.get(id) {
            handle.abort();
        }
    }

    /// Whether a poll of `id` now is one too many: more than [`POLLS_PER_INTERVAL`] on this
    /// instance within one polling interval.
    fn polled_too_often(&self, id: &str) -> bool {
        let interval = self.settings.poll_interval;
        let now = Instant::now();
        let mut polls = self.polls.lock().unwrap_or_else(PoisonError::into_inner);
        if polls.len() >= MAX_POLLS_KEPT {
            polls.retain(|_, (since, _)| now.duration_since(*since) < interval);
        }
        let full = polls.len() >= MAX_POLLS_KEPT;
        match polls.get_mut(id) {
            Some((since, count)) if now.duration_since(*since) < interval => {
                *count += 1;
                *count > POLLS_PER_INTERVAL
            }
            Some(window) => {
                *window = (now, 1);
                false
            }
            None if full => true,
            None => {
                polls.insert(id.to_owned(), (now, 1));
                false
            }
        }
    }
}

/// A digest of `subject` (hex), what a task is bound to.
pub(crate) fn subject_digest(subject: Option<&str>) -> Option<String> {
    use sha2::{Digest as _, Sha256};
    subject.map(|subject| {
        let digest = Sha256::digest(subject.as_bytes());
        digest[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    })
}

/// How a call of `handler` may become a task: `None` for an ordinary call (the tool is no task
/// tool, or the client did not declare the extension and the tool does not need it);
/// `-32021` when the tool needs the extension and the client did not declare it. The call's
/// `progress` is swapped for the task's (see [`Launch::new`]).
#[allow(
    clippy::too_many_arguments,
    reason = "the facts of one call, handed over once"
)]
pub(crate) fn prepare(
    server: &Server,
    handler: &dyn ToolHandler,
    capabilities: &ClientCapabilities,
    subject: Option<&str>,
    peer: Option<std::net::IpAddr>,
    progress: &mut super::handler::Progress,
    target: &str,
    arguments: Option<&Map<String, Value>>,
) -> Result<Option<Launch>, RpcError> {
    let support = handler.task_support();
    let (Some(after), Some(hub)) = (support.after(), &server.inner.tasks) else {
        return Ok(None);
    };
    if !declared(capabilities) {
        return match support {
            TaskSupport::Required { .. } => Err(missing_extension(&format!("tool `{target}`"))),
            _ => Ok(None),
        };
    }
    let capabilities = serde_json::to_value(capabilities).unwrap_or_default();
    Ok(Some(Launch::new(
        Arc::clone(hub),
        server,
        target,
        arguments,
        capabilities,
        subject.map(str::to_owned),
        peer,
        after,
        progress,
    )))
}

/// Answers a request of the extension once the store has: its result, or its error.
pub(crate) fn request(
    server: &Server,
    method: TaskMethod,
    params: Map<String, Value>,
    subject: Option<String>,
) -> BoxFuture<'static, Result<Value, RpcError>> {
    let hub = server.inner.tasks.clone();
    let server = server.clone();
    Box::pin(async move {
        let hub = hub.ok_or_else(|| RpcError::internal("tasks are not offered"))?;
        methods::answer(hub, server, method, params, subject).await
    })
}
