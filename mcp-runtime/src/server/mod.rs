//! The server: handler registry, dispatch, the stateless lifecycle and legacy sessions.
//!
//! A [`Server`] is built once from registered handlers ([`ServerBuilder`]) and answers one
//! JSON-RPC message at a time through [`Server::handle`], whatever the transport. It is a
//! *dual-era* server: it tells the two generations of the protocol apart per message.
//!
//! # Revision 2026-07-28: stateless
//!
//! A request whose `_meta` carries `io.modelcontextprotocol/protocolVersion` is judged on its
//! own: its `_meta` must carry that version and the client's capabilities, and nothing is
//! remembered between requests. Answered methods: `server/discover`, `subscriptions/listen`,
//! and, for each kind of handler registered, `tools/list` and `tools/call`; `prompts/list` and
//! `prompts/get`; `resources/list`, `resources/templates/list` and `resources/read`; and with
//! prompts or resources, `completion/complete` (prompt arguments, resource-template variables).
//! Every other method, including those this revision removed (`ping`, `logging/setLevel`,
//! `resources/subscribe`, ...), answers `-32601`. Lists follow registration order, in pages of
//! [`ServerBuilder::page_size`] when set. Every result names the server in
//! `_meta["io.modelcontextprotocol/serverInfo"]` unless
//! [`ServerBuilder::server_info_in_results`] turns it off; handlers read what the request says
//! about its caller through [`RequestContext`].
//!
//! # Handlers that change, and listen streams
//!
//! The application changes a running server's handlers through its [`Registry`]
//! ([`Server::registry`]); each change is announced to the `subscriptions/listen` streams that
//! asked for that list and to every legacy session. A listen stream's first message is its
//! acknowledgment with the filter the server agreed to; every message carries the stream's
//! `io.modelcontextprotocol/subscriptionId`. Streams are capped per owner and in total
//! ([`ServerBuilder::max_listeners`]), end when the client goes away (or, over stdio, cancels
//! the request or closes the connection), and get their graceful response when
//! [`Server::serve_listener`] shuts down.
//!
//! Over HTTP (a [`RequestFacts::http`] with its headers), such a message must carry the
//! revision's standard headers, checked against the body before anything runs: `Mcp-Method`
//! always, `Mcp-Name` on `tools/call`, `prompts/get` and `resources/read`, and an
//! `Mcp-Param-{Name}` for each argument with a value that the tool's `inputSchema` marks with
//! `x-mcp-header`. A header missing, repeated, malformed (Base64 sentinel included) or
//! disagreeing with the body is answered HTTP 400 with `-32020`.
//!
//! # Revisions 2025-11-25, 2025-06-18 and 2025-03-26: sessions
//!
//! `initialize` opens a legacy session. The version is negotiated as those revisions say: the
//! client's requested version when the server knows it, else 2025-11-25. The capabilities the
//! client declares there hold for the whole session. On the session the server also answers
//! `ping`, `logging/setLevel` (handlers' log messages then reach the client as
//! `notifications/message`), `resources/subscribe` and `resources/unsubscribe`
//! ([`Server::notify_resource_updated`]) and sends list-changed notifications
//! ([`Server::notify_tools_list_changed`], ...). Results lose the members the older schema
//! does not know (`resultType`, `ttlMs`, `cacheScope`).
//!
//! A flow runs whole within the call: each question goes to the client as a server-to-client
//! request (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the call's
//! stream, and once the client has answered every question of a round the next round runs
//! in process, from the state the previous round handed out: the flow's own bytes, neither
//! signed nor sealed, since they never leave the process (`complete.rs`). Invalid
//! answers are asked again with their reasons; a decline or cancel ends the call through the
//! handler's `?`. A client that does not answer within the input timeout (10 minutes by
//! default, [`ServerBuilder::input_timeout`]) fails the call with `-32603`; a client's
//! `notifications/cancelled` (or, over HTTP, a dropped stream) cancels it, with its waiting
//! requests, and the call gets no answer.
//!
//! A flow that needs a capability the client did not declare at `initialize` is never sent
//! the question: the call fails with the JSON-RPC error `-32602` whose message names the
//! capability (and whose `data.requiredCapabilities` says which), as the older revisions
//! forbid requests the client did not declare and have no dedicated code.
//!
//! Sessions are bounded: one expires once idle (no call running, no stream open) for the idle
//! timeout (30 minutes by default, [`ServerBuilder::session_idle_timeout`]), and a sweeper
//! closes it. Each belongs to an owner (its subject, else the peer's address), and over HTTP
//! an owner's sessions, calls and standalone streams are capped
//! ([`ServerBuilder::max_sessions_per_owner`], [`ServerBuilder::max_calls`],
//! [`ServerBuilder::max_streams`]): at its cap of sessions the owner's own least recently
//! active idle session closes, and a call or stream beyond its caps is refused with HTTP `429`.
//! At the server's maximum ([`ServerBuilder::max_sessions`], 10,000 by default) an `initialize`
//! closes the opener's own idlest session, else the expired ones, and is otherwise refused with
//! HTTP `503`: no client closes another's live session. Legacy sessions live in the process
//! that opened them: several instances behind a load balancer need it to route by
//! `Mcp-Session-Id`.
//!
//! # Cancellation
//!
//! A call whose client goes away stops where it waits: its future is dropped, so the handler
//! stops at its current await, everything it held is freed, and nothing is answered. Over
//! HTTP the client goes away by closing the connection (while the call runs, or while its
//! event stream is open); over stdio by sending `notifications/cancelled` with the call's
//! `requestId`, on either era; on a legacy HTTP session by either. A cancellation that names
//! no running call is ignored. A stateless round of a single-use handler that has begun its
//! use is not stopped: it runs to its end in a task of the server's, so that its reply is
//! stored and the retry gets it (see [`ServerBuilder::single_use`]).
//!
//! # Tracing
//!
//! Each request runs in an `INFO` span `request`, a child of its transport's `INFO` span
//! `connection` (`transport` = `http` or `stdio`, and `peer` over HTTP), so a subscriber
//! that keeps `INFO` sees every request; refused states and the like are `WARN` events inside
//! it. The request span's fields are recorded as they become known:
//!
//! | field | value |
//! |---|---|
//! | `method` | the JSON-RPC method |
//! | `id` | the JSON-RPC id, as JSON |
//! | `legacy` | whether the request is served by the legacy (session) rules |
//! | `target` | the tool or prompt name, or the resource URI, of a call |
//! | `round` | the round of a flow this request ran, counting from 1 |
//! | `shape` | the flow's shape fingerprint, in hexadecimal |
//! | `flow` | the flow's id: 16 hexadecimal digits drawn at its first round and carried in its state, the same in all its rounds |
//! | `from` | the question point the round resumed from (a number of the flow's, as its graph names them); absent on a first round |
//! | `to` | the question point the round stopped at to ask; absent when the round completed |
//! | `answer` | `decline` or `cancel` when the round read an answer that turned a question down (with `from`, how often users decline at each point); absent otherwise |
//! | `state_bytes` | the size of the signed (or sealed) state handed to the next round |
//! | `replayed` | `true` when a retried round was answered from the replay store |
//! | `outcome` | `complete`, `input_required`, `task` (the call became a task of the tasks extension), `error`, or `cancelled` (the client cancelled the call or went away) |
//! | `error_code` | the JSON-RPC error code, when the outcome is `error` |
//! | `duration_us` | how long the request took, in microseconds (in the log of [`init_logging`](crate::cli::init_logging) only) |
//! | `traceparent` | the W3C `traceparent` from the request's `_meta`, when valid |
//! | `tracestate` | its `tracestate`, when valid, with a `traceparent`, and at most [`MAX_TRACESTATE`] bytes |
//! | `baggage` | its W3C `baggage`, when valid and at most [`MAX_BAGGAGE`] bytes |
//!
//! On a legacy session a call runs all its rounds within one request: each round runs in a
//! child span `round` carrying `round`, `shape`, `flow`, `from`, `to` and `state_bytes` (there, the size of the
//! state's unsigned bytes, which never leave the process). Text the client chose (`method`,
//! `id`, `target`) is recorded escaped and cut, as a string, which formatters quote.
//!
//! # Layout
//!
//! The parts, and the modules that make them up; no module of the folder imports one that
//! imports it back.
//!
//! | part | modules |
//! |---|---|
//! | what a server is | this module (`Server`, `RequestFacts`, `Handling`, `Outcome`), `builder` and `bounds` (`ServerBuilder` and its limits) |
//! | a message to its answer | `dispatch` (routing), `method` (what is answered now), `lifecycle` (the envelope and `_meta`), `outcome` (answers), `error`, `headers` and `param_headers` (2026-07-28's standard headers) |
//! | a call | `call` (a stateless round: verify, run, mint), `single_use`, `cancel`, `complete` (a flow's rounds in process), `panic` |
//! | legacy sessions | `legacy` (`initialize`, what a session answers, and `legacy::era`: how a call is served), `session` (the table: owners, caps, sweeper), `url_elicitation` |
//! | handlers | `handler` (the interface), `register`, `registry` (the live registry, its snapshots and pages), `completer` and `completion`, `app_state` |
//! | listen streams | `listen` (routing), `subscriptions` (the hub and filters) |
//! | tasks | `tasks` (the extension's methods, the runner, the records) |
//! | callers | `owner`, `oauth`, `context` (what a handler learns of the request), `outbound` (progress and log notifications) |
//! | observability | `trace` (the request span), `access` (the access log's record of a request, with the `cli` feature), `trace_context`, `otel` |

#[cfg(feature = "cli")]
mod access;
mod answer;
pub mod app_state;
mod bounds;
mod build_check;
mod builder;
mod call;
mod call_meta;
mod cancel;
mod complete;
mod completer;
mod completion;
mod context;
mod dispatch;
mod error;
mod form_text;
mod handler;
mod headers;
pub(crate) use headers::StandardHeaders;
mod legacy;
mod lifecycle;
mod listen;
mod message;
mod method;
mod oauth;
#[cfg(feature = "opentelemetry")]
mod otel;
mod outbound;
mod outcome;
mod owner;
mod panic;
mod param_headers;
mod params;
mod register;
mod registry;
mod session;
mod shape;
mod single_use;
mod subscriptions;
mod tasks;
mod to_end;
mod trace;
mod trace_context;
mod url_elicitation;

use std::borrow::Cow;
use std::sync::Arc;

pub use answer::UNASKED_INPUT_RESPONSES;
pub use app_state::{AppState, State, StateType};
pub use build_check::BuildError;
pub use builder::{DEFAULT_BODY_LIMIT, DEFAULT_MAX_JSON_DEPTH, ServerBuilder, SubjectHook};
pub use complete::Answerer;
pub use completer::{
    ByArgument, ByRequest, Completer, CompletionRequest, IntoCompleter, MAX_COMPLETIONS,
};
pub use context::{MAX_CLIENT_INFO_TEXT, ProtocolEra, RequestContext};
pub use handler::{
    Asked, BoxFuture, DeclaredCapabilities, FlowLimits, HandlerResult, Progress, PromptHandler,
    Reply, Request, ResourceDefinition, ResourceHandler, ToolHandler,
};
pub use outbound::{Logger, MessageReceiver};
pub use register::{ByFunction, ByValue, IntoPromptHandler, IntoResourceHandler, IntoToolHandler};
pub use registry::Registry;
pub use session::{
    DEFAULT_INPUT_TIMEOUT, DEFAULT_MAX_CALLS_PER_OWNER, DEFAULT_MAX_CALLS_PER_SESSION,
    DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_OWNER, DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_OWNER, DEFAULT_MAX_SUBSCRIPTIONS, DEFAULT_SESSION_IDLE_TIMEOUT,
};
pub use subscriptions::{DEFAULT_MAX_LISTENERS, DEFAULT_MAX_LISTENERS_PER_OWNER, LISTEN_QUEUE};
pub use tasks::{
    DEFAULT_LEASE, DEFAULT_MAX_RUNNING, DEFAULT_MAX_TASK_BYTES, DEFAULT_POLL_INTERVAL,
    DEFAULT_TASK_TTL, MAX_LISTENED_TASKS, POLLS_PER_INTERVAL, TASKS_EXTENSION, TaskSupport,
    TaskTool, Tasks, task,
};
pub use trace_context::{
    MAX_BAGGAGE, MAX_TRACESTATE, META_BAGGAGE, META_TRACEPARENT, META_TRACESTATE,
};

#[cfg(all(test, feature = "cli"))]
pub(crate) use access::recycle as recycle_access;
#[cfg(feature = "cli")]
pub(crate) use access::{
    AccessLog, AccessRecord, install_access_log, with_current as with_current_access,
};
pub(crate) use builder::Inner;
pub(crate) use complete::complete;
pub(crate) use legacy::Connection;
pub(crate) use outbound::Message;
pub(crate) use outbound::channel as message_channel;
pub(crate) use owner::Owner;
pub(crate) use session::StreamGuard;
pub(crate) use shape::NestingScan;
pub(crate) use trace::{arrived_at, record_answer, record_flow, record_round, record_stop};
#[cfg(all(test, feature = "cli"))]
pub(crate) use {trace::escaped, trace_context::TraceContext};

/// The protocol revisions this server speaks, newest first: 2026-07-28 statelessly, the
/// older ones on sessions opened by `initialize`.
pub const SUPPORTED_VERSIONS: &[&str] = &[
    crate::protocol::PROTOCOL_VERSION,
    crate::protocol::LEGACY_PROTOCOL_VERSIONS[0],
    crate::protocol::LEGACY_PROTOCOL_VERSIONS[1],
    crate::protocol::LEGACY_PROTOCOL_VERSIONS[2],
];

/// An MCP server: registered handlers and settings, cheap to clone and shared by every
/// transport and request.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let snapshot = self.inner.registry.snapshot();
        f.debug_struct("Server")
            .field("tools", &snapshot.tools.len())
            .field("prompts", &snapshot.prompts.len())
            .field("resources", &snapshot.resources.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }

    /// A handle on this server's handlers, to change them while it serves ([`Registry`]).
    pub fn registry(&self) -> Registry {
        Registry::of(Arc::downgrade(&self.inner))
    }

    /// How many `subscriptions/listen` streams are open.
    pub fn listen_streams(&self) -> usize {
        self.inner.subscriptions.hub().len()
    }

    /// The flow graphs of every registered tool, prompt and resource, enabled or not, that
    /// has one (see [`graph`](crate::graph)), by kind and key.
    pub fn flow_graphs(&self) -> crate::graph::FlowGraphs {
        self.inner.registry.read(|entries| {
            let mut graphs = crate::graph::FlowGraphs::default();
            for tool in &entries.tools {
                if let Some(graph) = tool.entry.handler.flow_graph() {
                    graphs.tools.insert(tool.entry.key.clone(), graph);
                }
            }
            for prompt in &entries.prompts {
                if let Some(graph) = prompt.handler.flow_graph() {
                    graphs.prompts.insert(prompt.key.clone(), graph);
                }
            }
            for resource in &entries.resources {
                if let Some(graph) = resource.handler.flow_graph() {
                    graphs.resources.insert(resource.key.clone(), graph);
                }
            }
            graphs
        })
    }
}

/// What a transport knows about a message beyond its bytes.
#[derive(Debug, Clone, Default)]
pub struct RequestFacts {
    http: bool,
    protocol_version_header: Option<Cow<'static, str>>,
    subject: Option<String>,
    session_id: Option<String>,
    peer: Option<std::net::IpAddr>,
    connection: Option<Arc<Connection>>,
    headers: Option<Arc<axum::http::HeaderMap>>,
    /// `Mcp-Method` and `Mcp-Name` of `headers`, when the transport read them already.
    standard: Option<StandardHeaders>,
    claims: Option<Arc<crate::auth::Claims>>,
}

impl RequestFacts {
    /// A message read from stdio outside any connection: no headers, no subject, no legacy
    /// session. [`Server::serve_lines`] keeps one per connection instead.
    pub fn stdio() -> Self {
        Self::default()
    }

    /// A message received over HTTP, with its `MCP-Protocol-Version` header (which must then
    /// match `_meta`) and the subject the server's hook derived.
    pub fn http(protocol_version_header: Option<String>, subject: Option<String>) -> Self {
        Self::http_with(protocol_version_header.map(Cow::Owned), subject)
    }

    /// [`RequestFacts::http`] with a header that may be a static text (a known version).
    pub(crate) fn http_with(
        protocol_version_header: Option<Cow<'static, str>>,
        subject: Option<String>,
    ) -> Self {
        Self {
            http: true,
            protocol_version_header,
            subject,
            ..Self::default()
        }
    }

    /// A message received over HTTP, with all the transport knows of it at once: what
    /// [`RequestFacts::http_with`] takes, then what `with_session_id`, `with_claims` and
    /// `with_peer` would set, and the request's headers with their `Mcp-Method` and
    /// `Mcp-Name` as the transport read them (the struct built once, not moved from call to
    /// call).
    pub(crate) fn http_request(
        protocol_version_header: Option<Cow<'static, str>>,
        subject: Option<String>,
        session_id: Option<String>,
        claims: Option<Arc<crate::auth::Claims>>,
        (headers, standard): (Arc<axum::http::HeaderMap>, StandardHeaders),
        peer: Option<std::net::IpAddr>,
    ) -> Self {
        Self {
            http: true,
            protocol_version_header,
            subject,
            session_id,
            peer,
            connection: None,
            headers: Some(headers),
            standard: Some(standard),
            claims,
        }
    }

    /// The HTTP request's headers, which a binding policy may read
    /// ([`BindingContext::headers`](crate::state::BindingContext)).
    #[must_use]
    pub fn with_headers(mut self, headers: axum::http::HeaderMap) -> Self {
        self.headers = Some(Arc::new(headers));
        self.standard = None;
        self
    }

    /// The standard headers to check, when the message came over HTTP with its headers.
    pub(crate) fn standard_headers(&self) -> Option<std::borrow::Cow<'_, StandardHeaders>> {
        let headers = self.headers.as_deref().filter(|_| self.http)?;
        Some(match &self.standard {
            Some(standard) => std::borrow::Cow::Borrowed(standard),
            None => std::borrow::Cow::Owned(StandardHeaders::read(headers)),
        })
    }

    /// The address the message came from. Over HTTP, legacy sessions (and their calls and
    /// streams) of a caller without a subject are counted against this address's caps; a
    /// transport that gives none counts all such callers as one.
    #[must_use]
    pub fn with_peer(mut self, peer: std::net::IpAddr) -> Self {
        self.peer = Some(peer);
        self
    }

    /// The message's `Mcp-Session-Id` header, which names a legacy session.
    #[must_use]
    pub fn with_session_id(mut self, session_id: Option<String>) -> Self {
        self.session_id = session_id;
        self
    }

    /// The claims of the request's bearer token, as [`OAuth::verify`](crate::auth::OAuth::verify)
    /// verified them: for transports of the application's own. Handlers read them, and on a
    /// server with [`oauth`](ServerBuilder::oauth), `tools/call` checks the tool's scopes
    /// against them. (The subject states bind to is the one given to [`RequestFacts::http`].)
    #[must_use]
    pub fn with_claims(mut self, claims: Option<Arc<crate::auth::Claims>>) -> Self {
        self.claims = claims;
        self
    }

    /// A message read from one stdio connection, whose legacy session (if it opens one) lives
    /// as long as `connection`.
    pub(crate) fn connection(connection: Arc<Connection>) -> Self {
        Self {
            connection: Some(connection),
            ..Self::default()
        }
    }
}

/// The final answer to one message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// The HTTP status the answer travels with (`202` for a notification).
    pub status: u16,
    /// The serialised JSON-RPC response; `None` for a notification, which gets no answer,
    /// and for a call its client cancelled.
    pub body: Option<Vec<u8>>,
    /// The legacy session an `initialize` opened, for the `Mcp-Session-Id` header.
    pub session_id: Option<String>,
    /// How the request ended, for its span: `complete`, `input_required`, `task`, `error`,
    /// `cancelled`, or `accepted` (a notification or response, which has no span).
    pub(crate) kind: &'static str,
    /// The JSON-RPC error code of an `error`.
    pub(crate) error_code: Option<i64>,
    /// The `WWW-Authenticate` challenge of a call refused for lack of a scope (HTTP `403`).
    pub challenge: Option<String>,
}

impl Outcome {
    /// A result answer with `body`.
    pub(crate) fn answer(status: u16, body: Vec<u8>) -> Self {
        Self {
            status,
            body: Some(body),
            session_id: None,
            kind: "complete",
            error_code: None,
            challenge: None,
        }
    }

    /// An error answer with `body`, the JSON-RPC error `code`.
    pub(crate) fn error(status: u16, body: Vec<u8>, code: i64) -> Self {
        Self {
            kind: "error",
            error_code: Some(code),
            ..Self::answer(status, body)
        }
    }

    /// No answer: `202 Accepted`.
    pub(crate) fn accepted() -> Self {
        Self {
            status: 202,
            body: None,
            session_id: None,
            kind: "accepted",
            error_code: None,
            challenge: None,
        }
    }

    /// No answer to a call its client cancelled.
    pub(crate) fn cancelled() -> Self {
        Self {
            kind: "cancelled",
            ..Self::accepted()
        }
    }
}

/// A message being handled: its answer to come, and the messages it sends before that.
pub struct Handling {
    /// What the request sends before its answer, in order: progress and log notifications,
    /// and on a legacy session the server-to-client requests of its flow. `None` when it can
    /// send nothing. The channel closes once the handler is done.
    pub messages: Option<MessageReceiver>,
    /// Resolves to the answer.
    pub outcome: BoxFuture<'static, Outcome>,
}

impl Handling {
    fn ready(outcome: Outcome) -> Self {
        Self {
            messages: None,
            outcome: Box::pin(std::future::ready(outcome)),
        }
    }

    /// Waits for the answer, dropping the messages sent before it.
    pub async fn finish(self) -> Outcome {
        self.outcome.await
    }
}

impl std::fmt::Debug for Handling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handling")
            .field("messages", &self.messages)
            .finish_non_exhaustive()
    }
}
