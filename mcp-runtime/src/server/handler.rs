//! The traits a tool, prompt or resource implements to be served, and the request they receive.
//!
//! The `#[tool]`, `#[prompt]` and `#[resource]` macros generate implementations of these
//! traits; hand-written implementations work the same way.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use super::app_state::{AppState, StateType};
use super::call::Capabilities;
use super::completer::Completer;
use super::context::RequestContext;
use super::outbound::{self, Logger, MessageReceiver, Outbound};
use crate::graph::FlowGraph;
use crate::protocol::{
    CallToolResult, ClientCapabilities, ErrorObject, GetPromptResult, InputRequests,
    InputResponses, JsonRpcNotification, ProgressNotificationParams, ProgressToken, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool, method,
};

/// A boxed, sendable future, as handler methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One request routed to a handler, with everything a multi-round flow needs.
pub struct Request {
    /// The method: `"tools/call"`, `"prompts/get"` or `"resources/read"`.
    pub method: &'static str,
    /// The tool name, prompt name or resource URI.
    pub target: String,
    /// Tool or prompt arguments; `None` for resources and for calls without arguments.
    pub arguments: Option<Map<String, Value>>,
    /// This round's answers; dispatch has already checked that they form an object.
    pub input_responses: Option<InputResponses>,
    /// The state this handler handed out last round, as it handed it out. The server has
    /// verified the client's `requestState` (signature or seal, expiry, binding to this
    /// caller, method, target and arguments) before the handler runs; a state that failed
    /// never reaches a handler.
    pub state: Option<Vec<u8>>,
    /// The capabilities the client declared: in this request's `_meta`, or at a legacy
    /// session's `initialize`.
    pub capabilities: DeclaredCapabilities,
    /// The caller's subject from the server's subject hook (HTTP); `None` otherwise.
    pub subject: Option<String>,
    /// The claims of the caller's verified bearer token (HTTP with
    /// [`oauth`](crate::server::ServerBuilder::oauth)); `None` otherwise.
    pub claims: Option<Arc<crate::auth::Claims>>,
    /// Sends `notifications/progress` for this request's `progressToken`.
    pub progress: Progress,
    /// Sends `notifications/message` log messages, when the client asked for them.
    pub logger: Logger,
    /// The server's application state (see [`app_state`](super::app_state)).
    pub app: AppState,
    /// The caller's identity, the protocol revision, the request's `_meta` and the exposed
    /// HTTP headers.
    pub context: RequestContext,
}

/// The capabilities a client declared, as a [`Request`] carries them: shared with where the
/// server read them (the request's `_meta`, or a legacy session's `initialize`), not copied
/// into every round. Reads as the [`ClientCapabilities`] it dereferences to, and serialises as
/// they do; cloning is cheap. [`From`] turns one into the other, either way.
///
/// ```
/// use mcp_runtime::protocol::ClientCapabilities;
/// use mcp_runtime::server::DeclaredCapabilities;
///
/// let sent: ClientCapabilities = serde_json::from_str(r#"{"sampling": {}}"#).unwrap();
/// let declared = DeclaredCapabilities::from(sent.clone());
/// assert!(declared.sampling.is_some() && declared.elicitation.is_none());
/// assert_eq!(serde_json::to_string(&declared).unwrap(), r#"{"sampling":{}}"#);
/// assert_eq!(ClientCapabilities::from(declared), sent);
/// ```
#[derive(Clone)]
pub struct DeclaredCapabilities(Capabilities);

impl DeclaredCapabilities {
    /// The capabilities a call carries, shared.
    pub(crate) fn shared(capabilities: Capabilities) -> Self {
        Self(capabilities)
    }
}

impl std::ops::Deref for DeclaredCapabilities {
    type Target = ClientCapabilities;

    fn deref(&self) -> &ClientCapabilities {
        &self.0
    }
}

impl From<ClientCapabilities> for DeclaredCapabilities {
    fn from(capabilities: ClientCapabilities) -> Self {
        Self(Capabilities::Parsed(Arc::new(capabilities)))
    }
}

/// The capabilities, owned: moved out where this was their only holder, copied where they are
/// shared.
impl From<DeclaredCapabilities> for ClientCapabilities {
    fn from(declared: DeclaredCapabilities) -> Self {
        match declared.0 {
            Capabilities::Parsed(capabilities) => Arc::unwrap_or_clone(capabilities),
            shared => ClientCapabilities::clone(&shared),
        }
    }
}

impl Default for DeclaredCapabilities {
    fn default() -> Self {
        ClientCapabilities::default().into()
    }
}

impl PartialEq for DeclaredCapabilities {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for DeclaredCapabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        ClientCapabilities::fmt(self, f)
    }
}

impl serde::Serialize for DeclaredCapabilities {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ClientCapabilities::serialize(self, serializer)
    }
}

/// What a handler asks for when it needs input: questions, and the state to resume from.
///
/// The state is the handler's own bytes: the server seals or signs it into `requestState`
/// under its policy (handlers cannot mint states), and hands the same bytes back in
/// [`Request::state`] once the client echoes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Asked {
    requests: Option<InputRequests>,
    state: Option<Vec<u8>>,
    /// The keys of this round's answers that no question asked (ignored; the client is told).
    unasked: Vec<String>,
}

impl Asked {
    /// Asks `requests` and resumes from `state` on the next round.
    pub fn new(requests: InputRequests, state: impl Into<Vec<u8>>) -> Self {
        Self {
            requests: Some(requests),
            state: Some(state.into()),
            unasked: Vec::new(),
        }
    }

    /// Asks `requests` with no state to resume from.
    pub fn requests_only(requests: InputRequests) -> Self {
        Self {
            requests: Some(requests),
            state: None,
            unasked: Vec::new(),
        }
    }

    /// Asks nothing; the client retries with `state` (the revision allows a round of state
    /// alone).
    pub fn state_only(state: impl Into<Vec<u8>>) -> Self {
        Self {
            requests: None,
            state: Some(state.into()),
            unasked: Vec::new(),
        }
    }

    /// Notes the keys of this round's answers that no question asked.
    pub(crate) fn with_unasked(mut self, unasked: Vec<String>) -> Self {
        self.unasked = unasked;
        self
    }

    /// Takes the keys of this round's answers that no question asked.
    pub(crate) fn take_unasked(&mut self) -> Vec<String> {
        std::mem::take(&mut self.unasked)
    }

    /// The questions and the state.
    pub fn into_parts(self) -> (Option<InputRequests>, Option<Vec<u8>>) {
        (self.requests, self.state)
    }
}

/// What a handler answers: the final result, or a request for more input.
#[derive(Debug)]
pub enum Reply<R> {
    /// The request is done; the result goes out with `resultType: "complete"`.
    Complete(R),
    /// The client must answer these input requests and retry.
    InputRequired(Asked),
}

/// The outcome of one handler call: a reply, or a JSON-RPC error for this request.
pub type HandlerResult<R> = Result<Reply<R>, ErrorObject>;

/// A tool served under `tools/call`.
pub trait ToolHandler: Send + Sync + 'static {
    /// The tool as `tools/list` shows it.
    fn definition(&self) -> Tool;
    /// Runs one round of the tool.
    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>>;
    /// Whether each state this tool hands out may be used once only (`#[tool(single_use)]`);
    /// default: no, unless the server makes every state single-use.
    fn single_use(&self) -> bool {
        false
    }
    /// The application state types this handler takes (`State<T>` parameters), checked when
    /// the server is built; default: none.
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }
    /// Whether calls of this tool run as tasks of the tasks extension (see
    /// [`task`](super::task)); default: never.
    fn task_support(&self) -> super::TaskSupport {
        super::TaskSupport::Never
    }
    /// The flow graph the macro drew of this handler (see [`graph`](crate::graph)): its
    /// question points and the ways between them; default: none, as for a handler that asks
    /// nothing.
    fn flow_graph(&self) -> Option<&'static FlowGraph> {
        None
    }
}

/// A prompt served under `prompts/get`.
pub trait PromptHandler: Send + Sync + 'static {
    /// The prompt as `prompts/list` shows it.
    fn definition(&self) -> Prompt;
    /// Runs one round of the prompt.
    fn get(&self, request: Request) -> BoxFuture<'static, HandlerResult<GetPromptResult>>;
    /// Completion values for one argument of this prompt, when
    /// [`completer`](Self::completer) gives none; default: none.
    fn complete(&self, _argument: &str, _value: &str) -> Vec<String> {
        Vec::new()
    }
    /// The completer of this prompt's arguments (`#[prompt(complete = ...)]`), which may be
    /// `async` and sees the other arguments, the application state and the request context;
    /// default: none, and [`complete`](Self::complete) answers.
    fn completer(&self) -> Option<Completer> {
        None
    }
    /// Whether each state this prompt hands out may be used once only
    /// (`#[prompt(single_use)]`); default: no, unless the server makes every state single-use.
    fn single_use(&self) -> bool {
        false
    }
    /// The application state types this handler takes (`State<T>` parameters), checked when
    /// the server is built; default: none.
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }
    /// The flow graph the macro drew of this handler (see [`graph`](crate::graph)): its
    /// question points and the ways between them; default: none, as for a handler that asks
    /// nothing.
    fn flow_graph(&self) -> Option<&'static FlowGraph> {
        None
    }
}

/// What a resource handler serves: one fixed resource, or a URI template.
#[derive(Debug, Clone)]
pub enum ResourceDefinition {
    /// A resource with one URI, listed by `resources/list`.
    Resource(Resource),
    /// A URI template, listed by `resources/templates/list`.
    Template(ResourceTemplate),
}

/// A resource or resource template served under `resources/read`.
pub trait ResourceHandler: Send + Sync + 'static {
    /// The resource or template as the list methods show it.
    fn definition(&self) -> ResourceDefinition;
    /// Whether this handler serves `uri` (equality for a resource, template match for a template).
    fn matches(&self, uri: &str) -> bool;
    /// Runs one round of a read.
    fn read(&self, request: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>>;
    /// The completer of a template's variables (`#[resource(complete = ...)]`); default: none,
    /// and completion offers nothing.
    fn completer(&self) -> Option<Completer> {
        None
    }
    /// Whether each state this resource hands out may be used once only
    /// (`#[resource(single_use)]`); default: no, unless the server makes every state
    /// single-use.
    fn single_use(&self) -> bool {
        false
    }
    /// The application state types this handler takes (`State<T>` parameters), checked when
    /// the server is built; default: none.
    fn required_state(&self) -> Vec<StateType> {
        Vec::new()
    }
    /// The flow graph the macro drew of this handler (see [`graph`](crate::graph)): its
    /// question points and the ways between them; default: none, as for a handler that asks
    /// nothing.
    fn flow_graph(&self) -> Option<&'static FlowGraph> {
        None
    }
}

/// Limits the flow driver enforces on multi-round requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FlowLimits {
    /// The most rounds one request may take before it is refused (default 50).
    pub max_rounds: u32,
}

impl Default for FlowLimits {
    fn default() -> Self {
        Self { max_rounds: 50 }
    }
}

impl FlowLimits {
    /// Limits with `max_rounds` rounds at most.
    pub fn with_max_rounds(mut self, max_rounds: u32) -> Self {
        self.max_rounds = max_rounds;
        self
    }
}

/// A cheap-clone handle that reports progress for one request.
///
/// Without a `progressToken` in the request (or from [`Progress::none`]) reporting does
/// nothing. Over HTTP the first report switches the answer to `text/event-stream`; over stdio
/// notifications are written as lines before the result.
#[derive(Clone, Default)]
pub struct Progress {
    inner: Option<Arc<ProgressSink>>,
}

struct ProgressSink {
    token: ProgressToken,
    sender: Outbound,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = self.inner.as_ref().map(|sink| &sink.token);
        f.debug_struct("Progress").field("token", &token).finish()
    }
}

impl Progress {
    /// A handle that reports nothing.
    pub fn none() -> Self {
        Self { inner: None }
    }

    /// A handle reporting under `token`, and the receiver of the notifications it sends (each
    /// a complete JSON-RPC `notifications/progress` message). Used by transports and tests.
    pub fn channel(token: ProgressToken) -> (Self, MessageReceiver) {
        let (sender, receiver) = outbound::channel();
        (Self::new(token, sender), receiver)
    }

    pub(crate) fn new(token: ProgressToken, sender: Outbound) -> Self {
        let inner = Some(Arc::new(ProgressSink { token, sender }));
        Self { inner }
    }

    /// Whether reports go anywhere (the request carried a `progressToken`).
    pub fn is_active(&self) -> bool {
        self.inner.is_some()
    }

    /// Sends `notifications/progress` with `progress` (which should increase with every
    /// report), an optional `total` and an optional human-readable `message`.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        let Some(sink) = &self.inner else { return };
        let number = |value: f64| Number::from_f64(value).unwrap_or_else(|| Number::from(0));
        let params = ProgressNotificationParams {
            progress_token: sink.token.clone(),
            progress: number(progress),
            total: total.map(number),
            message,
            meta: None,
        };
        let params = serde_json::to_value(params).ok();
        let notification = JsonRpcNotification::new(method::NOTIFICATION_PROGRESS, params);
        let notification =
            serde_json::to_value(notification).expect("a progress notification serialises");
        // The receiver is gone once the request has been answered; late reports are dropped.
        let _ = sink.sender.send(notification.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reports_carry_the_token_and_optional_fields() {
        let (progress, mut receiver) = Progress::channel(ProgressToken::from(7));
        progress.report(1.0, Some(3.0), None);
        progress.clone().report(2.0, None, Some("half".into()));
        let first = receiver.try_recv().unwrap();
        assert_eq!(first["method"], "notifications/progress");
        assert_eq!(first["params"]["progressToken"], 7);
        assert_eq!(first["params"]["total"], 3.0);
        assert!(first["params"].get("message").is_none());
        let second = receiver.try_recv().unwrap();
        assert_eq!(second["params"]["message"], "half");
        assert!(second["params"].get("total").is_none());
        assert!(receiver.try_recv().is_none());
    }

    #[test]
    fn progress_none_reports_nothing() {
        let progress = Progress::none();
        assert!(!progress.is_active());
        progress.report(1.0, None, None);
    }
}
