//! An in-process driver that walks a flow round by round with scripted answers.
//!
//! Every round goes through the server's own dispatch, exactly as a transport hands it over —
//! the state is signed, bound to the request and verified on every round by the server, not
//! by the tester — but without a transport, so flows can be tested (and shown) without a
//! client. [`FlowTester::complete_with`] runs a whole flow through the loop legacy sessions
//! use.
//!
//! ```
//! use mcp_runtime::testing::FlowTester;
//! use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
//! use serde_json::json;
//!
//! #[derive(ElicitForm)]
//! struct Name {
//!     name: String,
//! }
//!
//! /// Greet the user by name.
//! #[tool]
//! async fn greet(cx: Cx) -> ToolResult {
//!     let who: Name = cx.elicit("Who are you?").await?;
//!     Ok(text(format!("Hello, {}!", who.name)))
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let first = FlowTester::tool(greet).start().await;
//! assert_eq!(first.questions(), ["who"]);
//! println!("{first}"); // the questions as they go on the wire, and the state's size
//! let second = first
//!     .answer(json!({"who": {"action": "accept", "content": {"name": "Ada"}}}))
//!     .await;
//! assert_eq!(second.text(), Some("Hello, Ada!"));
//! # });
//! ```

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

use crate::auth::Claims;
use crate::protocol::meta::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::protocol::{
    ClientCapabilities, ErrorCode, ErrorObject, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, PROTOCOL_VERSION,
};
use crate::server::{
    Answerer, AppState, Asked, BoxFuture, FlowLimits, HandlerResult, IntoPromptHandler,
    IntoResourceHandler, IntoToolHandler, PromptHandler, Reply, RequestFacts, ResourceHandler,
    Server, ToolHandler, complete,
};
use crate::state::Signer;

mod answers;
mod explore;
mod headers;
mod round;
mod schema;
mod server;

pub use answers::{accept, cancel, decline, form};
pub use explore::{Ending, Explore, Finding, FindingKind, Path, PointKeys, Report};
pub use round::{Outcome, Round};
pub use server::ServerTester;

/// What a tester calls: a tool or prompt by name, or a resource by URI.
#[derive(Debug, Clone)]
enum Target {
    Tool(String),
    Prompt(String),
    Resource(String),
}

/// The handler a tester made from a handler serves, alone.
#[derive(Clone)]
enum Handler {
    Tool(Arc<dyn ToolHandler>),
    Prompt(Arc<dyn PromptHandler>),
    Resource(Arc<dyn ResourceHandler>),
}

/// The server a tester sends its rounds to.
#[derive(Clone)]
enum Host {
    /// A server serving the one handler, built with these settings at the first round and
    /// kept for every later round (and every clone) of this tester.
    Own {
        handler: Handler,
        signer: Signer,
        limits: FlowLimits,
        app: AppState,
        built: Arc<OnceLock<Server>>,
    },
    /// A server the application built ([`ServerTester`]).
    Shared(Server),
}

impl Host {
    fn server(&self) -> Server {
        match self {
            Self::Shared(server) => server.clone(),
            Self::Own {
                handler,
                signer,
                limits,
                app,
                built,
            } => built
                .get_or_init(|| {
                    let (tool, prompt, resource) = match handler {
                        Handler::Tool(handler) => (Some(Arc::clone(handler)), None, None),
                        Handler::Prompt(handler) => (None, Some(Arc::clone(handler)), None),
                        Handler::Resource(handler) => (None, None, Some(Arc::clone(handler))),
                    };
                    Server::builder()
                        .name("flow-tester")
                        .signer(signer.clone())
                        .flow_limits(*limits)
                        .handlers(tool, prompt, resource)
                        .app_state(app.clone())
                        .expose_all_headers()
                        .build()
                })
                .clone(),
        }
    }

    /// The settings of a tester made from a handler, for a builder method to change: the
    /// server is built again from them at the next round.
    fn settings(&mut self, method: &str) -> (&mut Signer, &mut FlowLimits, &mut AppState) {
        match self {
            Self::Own {
                signer,
                limits,
                app,
                built,
                ..
            } => {
                *built = Arc::new(OnceLock::new());
                (signer, limits, app)
            }
            Self::Shared(_) => panic!(
                "`FlowTester::{method}` on a tester made from a server: the server's own \
                 settings hold; set it on the `ServerBuilder` instead"
            ),
        }
    }
}

/// Drives one handler round by round through one server, as a client would: every round of
/// a tester (and of its clones) goes to the same [`Server`], so single-use states, replayed
/// rounds and application state behave as they do in production.
#[derive(Clone)]
pub struct FlowTester {
    target: Target,
    host: Host,
    arguments: Option<Map<String, Value>>,
    capabilities: ClientCapabilities,
    subject: Option<String>,
    claims: Option<Arc<Claims>>,
    /// Members added to every round's `_meta`.
    meta: Map<String, Value>,
    /// HTTP headers sent with every round, beside the standard ones.
    headers: Option<axum::http::HeaderMap>,
}

impl fmt::Debug for FlowTester {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlowTester")
            .field("target", &self.target)
            .field("arguments", &self.arguments)
            .field("capabilities", &self.capabilities)
            .field("subject", &self.subject)
            .field("claims", &self.claims)
            .finish_non_exhaustive()
    }
}

fn all_capabilities() -> ClientCapabilities {
    serde_json::from_value(json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    }))
    .unwrap_or_default()
}

impl FlowTester {
    fn new(target: Target, host: Host) -> Self {
        Self {
            target,
            host,
            arguments: None,
            capabilities: all_capabilities(),
            subject: None,
            claims: None,
            meta: Map::new(),
            headers: None,
        }
    }

    fn own(target: Target, handler: Handler) -> Self {
        Self::new(
            target,
            Host::Own {
                handler,
                signer: Signer::random().expect("the operating system provides random bytes"),
                limits: FlowLimits::default(),
                app: AppState::default(),
                built: Arc::new(OnceLock::new()),
            },
        )
    }

    /// Tests a `#[tool]`, served alone.
    pub fn tool<M>(handler: impl IntoToolHandler<M>) -> Self {
        let handler = handler.into_tool_handler();
        let name = handler.definition().name;
        Self::own(Target::Tool(name), Handler::Tool(Arc::new(handler)))
    }

    /// Tests a `#[prompt]`, served alone.
    pub fn prompt<M>(handler: impl IntoPromptHandler<M>) -> Self {
        let handler = handler.into_prompt_handler();
        let name = handler.definition().name;
        Self::own(Target::Prompt(name), Handler::Prompt(Arc::new(handler)))
    }

    /// Tests a `#[resource]`, served alone, read at `uri`.
    pub fn resource<M>(handler: impl IntoResourceHandler<M>, uri: impl Into<String>) -> Self {
        let handler = handler.into_resource_handler();
        Self::own(
            Target::Resource(uri.into()),
            Handler::Resource(Arc::new(handler)),
        )
    }

    /// The call's arguments (a JSON object; anything else means none).
    #[must_use]
    pub fn arguments(mut self, arguments: Value) -> Self {
        self.arguments = match arguments {
            Value::Object(arguments) => Some(arguments),
            _ => None,
        };
        self
    }

    /// The capabilities the client declares on every round (by default: form and URL
    /// elicitation, sampling and roots).
    #[must_use]
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = serde_json::from_value(capabilities).unwrap_or_default();
        self
    }

    /// The authenticated subject the state binds (by default none, or the subject of the
    /// [`claims`](Self::claims)).
    #[must_use]
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// The claims of a verified bearer token, as the HTTP transport hands them over after
    /// checking one: handlers read them through [`Cx::claims`](crate::Cx::claims) (and
    /// [`Request::claims`](crate::server::Request::claims)), and a server with OAuth checks
    /// a tool's scopes against them. `claims` is the token's payload, a JSON object; its
    /// `sub` is the subject (and the subject states bind, unless [`subject`](Self::subject)
    /// names another), its `scope` the scopes, space-separated.
    ///
    /// # Panics
    ///
    /// When `claims` is not a JSON object with a string `sub`.
    #[must_use]
    pub fn claims(mut self, claims: Value) -> Self {
        let Value::Object(claims) = claims else {
            panic!("`FlowTester::claims` takes a JSON object: the token's payload");
        };
        let Some(subject) = claims.get("sub").and_then(Value::as_str) else {
            panic!("`FlowTester::claims` needs a string `sub`: the token's subject");
        };
        self.claims = Some(Arc::new(Claims::new(subject.to_owned(), claims.clone())));
        self
    }

    /// Adds `value` under `key` to every round's `_meta`, as a client sends it: for example
    /// `io.modelcontextprotocol/clientInfo` (which handlers read through
    /// [`RequestContext::client_info`](crate::server::RequestContext::client_info)), or a
    /// `traceparent`. The protocol version and capabilities are the tester's own.
    #[must_use]
    pub fn meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.meta.insert(key.into(), value);
        self
    }

    /// Sends HTTP header `name: value` with every round, as the HTTP transport hands headers
    /// over (with the standard `Mcp-Method` and `Mcp-Name` the tester adds). A tester made
    /// from a handler exposes every header to it; one made from a server
    /// ([`ServerTester`]) exposes those the server does
    /// ([`ServerBuilder::expose_header`](crate::server::ServerBuilder::expose_header)). A tool
    /// with arguments marked `x-mcp-header` then needs their `Mcp-Param-*` headers too.
    ///
    /// # Panics
    ///
    /// When `name` or `value` cannot be an HTTP header.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::from_bytes(name.as_bytes()),
            axum::http::HeaderValue::from_str(value),
        ) else {
            panic!("`FlowTester::header`: `{name}: {value}` is not an HTTP header");
        };
        self.headers.get_or_insert_default().append(name, value);
        self
    }

    /// The signer (by default a random key).
    ///
    /// # Panics
    ///
    /// On a tester made from a server ([`ServerTester`]), whose own signer holds.
    #[must_use]
    pub fn signer(mut self, signer: Signer) -> Self {
        *self.host.settings("signer").0 = signer;
        self
    }

    /// Registers a value of application state, as
    /// [`ServerBuilder::state`](crate::server::ServerBuilder::state) does: every round is
    /// handed the same value.
    ///
    /// # Panics
    ///
    /// On a tester made from a server ([`ServerTester`]), whose own state holds.
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.host.settings("state").2.insert(value);
        self
    }

    /// The flow limits (by default 50 rounds).
    ///
    /// # Panics
    ///
    /// On a tester made from a server ([`ServerTester`]), whose own limits hold.
    #[must_use]
    pub fn limits(mut self, limits: FlowLimits) -> Self {
        *self.host.settings("limits").1 = limits;
        self
    }

    /// The server every round of this tester goes to.
    pub fn server(&self) -> Server {
        self.host.server()
    }

    /// The first round: a call without state or answers.
    pub async fn start(&self) -> Round {
        self.send(None, None).await
    }

    /// One request with exactly this state and these answers (`inputResponses`, sent as
    /// given, unchecked, so tests can send malformed ones).
    pub async fn send(&self, state: Option<&str>, answers: Option<Value>) -> Round {
        let (outcome, unasked) = self.exchange(state.map(str::to_owned), answers).await;
        self.check_structured(&outcome);
        Round {
            tester: self.clone(),
            outcome,
            unasked,
        }
    }

    /// Runs the whole flow as a legacy session would: every question of a round is answered
    /// by `answer` (given its key and request, it returns the client's response, such as
    /// `{"action": "accept", "content": {...}}`), and the rounds follow through the same loop
    /// the server runs on legacy sessions, until the call completes or fails.
    pub async fn complete_with(
        &self,
        answer: impl FnMut(&str, &InputRequest) -> Value + Send,
    ) -> Round {
        let mut answerer = Scripted(answer);
        let max_rounds = self.server().inner.limits.max_rounds;
        let rounds = complete(
            |state, answers: Option<InputResponses>| {
                let answers = answers.map(|answers| Value::Object(answers.into_iter().collect()));
                let tester = self.clone();
                // The tester goes through the wire, so its state is the token itself.
                let token = state.map(|token| String::from_utf8_lossy(&token).into_owned());
                Box::pin(async move {
                    match tester.exchange(token, answers).await.0 {
                        Outcome::Complete(result) => Ok(Reply::Complete(result)),
                        Outcome::Asked {
                            requests,
                            state: Some(token),
                        } => Ok(Reply::InputRequired(Asked::new(requests, token))),
                        Outcome::Asked {
                            requests,
                            state: None,
                        } => Ok(Reply::InputRequired(Asked::requests_only(requests))),
                        Outcome::Error(error) => Err(error),
                    }
                }) as BoxFuture<'static, HandlerResult<Value>>
            },
            &mut answerer,
            max_rounds,
        );
        let outcome = match rounds.await {
            Ok(result) => Outcome::Complete(result),
            Err(error) => Outcome::Error(error),
        };
        self.check_structured(&outcome);
        self.round(outcome)
    }

    /// One JSON-RPC request through the server's own dispatch, as a transport would hand it
    /// over, and its answer, with the keys the server named as answered but not asked.
    async fn exchange(
        &self,
        state: Option<String>,
        answers: Option<Value>,
    ) -> (Outcome, Vec<String>) {
        let (method, mut params) = match &self.target {
            Target::Tool(name) => ("tools/call", json!({"name": name})),
            Target::Prompt(name) => ("prompts/get", json!({"name": name})),
            Target::Resource(uri) => ("resources/read", json!({"uri": uri})),
        };
        if let (Some(arguments), false) =
            (&self.arguments, matches!(self.target, Target::Resource(..)))
        {
            params["arguments"] = Value::Object(arguments.clone());
        }
        if let Some(state) = state {
            params["requestState"] = Value::String(state);
        }
        if let Some(answers) = answers {
            params["inputResponses"] = answers;
        }
        let mut meta = self.meta.clone();
        meta.insert(META_PROTOCOL_VERSION.into(), PROTOCOL_VERSION.into());
        meta.insert(META_CLIENT_CAPABILITIES.into(), json!(self.capabilities));
        params["_meta"] = Value::Object(meta);
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let subject = self.subject.clone().or_else(|| {
            self.claims
                .as_ref()
                .map(|claims| claims.subject().to_owned())
        });
        let mut facts = RequestFacts::http(Some(PROTOCOL_VERSION.to_owned()), subject)
            .with_claims(self.claims.clone());
        if let Some(headers) = &self.headers {
            facts = facts.with_headers(headers::with_standard(headers.clone(), method, &params));
        }
        let server = self.server();
        let answer = server
            .handle(message.to_string().as_bytes(), facts)
            .finish()
            .await;
        let Some(body) = answer.body else {
            return (
                Outcome::Error(internal("the server gave no answer")),
                Vec::new(),
            );
        };
        (outcome(&body), unasked_in(&body))
    }

    /// Checks a completed tool result against the tool's `outputSchema`.
    ///
    /// # Panics
    ///
    /// When it does not match (see [`schema::check_structured`]).
    fn check_structured(&self, outcome: &Outcome) {
        if let (Target::Tool(name), Outcome::Complete(result)) = (&self.target, outcome) {
            schema::check_structured(&self.server(), name, result);
        }
    }

    /// Runs the flow from the start, answering each round with the next entry of
    /// `answers`, until it completes, fails or the answers run out. Returns every round.
    pub async fn script(&self, answers: impl IntoIterator<Item = Value>) -> Vec<Round> {
        let mut rounds = vec![self.start().await];
        for answer in answers {
            let last = rounds.last().expect("the first round is always there");
            if last.state().is_none() {
                break;
            }
            let next = last.answer(answer).await;
            rounds.push(next);
        }
        rounds
    }

    fn round(&self, outcome: Outcome) -> Round {
        Round {
            tester: self.clone(),
            outcome,
            unasked: Vec::new(),
        }
    }
}

/// Answers each question with a closure.
struct Scripted<F>(F);

impl<F: FnMut(&str, &InputRequest) -> Value + Send> Answerer for Scripted<F> {
    fn answer(
        &mut self,
        requests: InputRequests,
    ) -> BoxFuture<'_, Result<InputResponses, ErrorObject>> {
        let answers = requests
            .iter()
            .map(|(key, request)| (key.clone(), (self.0)(key, request)))
            .collect();
        Box::pin(std::future::ready(Ok(answers)))
    }
}

/// A round's outcome, from the server's answer.
fn outcome(body: &[u8]) -> Outcome {
    let mut response: Value = match serde_json::from_slice(body) {
        Ok(response) => response,
        Err(error) => return Outcome::Error(internal(error.to_string())),
    };
    if let Some(error) = response.get_mut("error") {
        return match serde_json::from_value(error.take()) {
            Ok(error) => Outcome::Error(error),
            Err(error) => Outcome::Error(internal(error.to_string())),
        };
    }
    let result = response
        .get_mut("result")
        .map(Value::take)
        .unwrap_or_default();
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return match serde_json::from_value::<InputRequiredResult>(result) {
            Ok(asked) => {
                let (requests, state) = asked.into_parts();
                Outcome::Asked {
                    requests: requests.unwrap_or_default(),
                    state,
                }
            }
            Err(error) => Outcome::Error(internal(error.to_string())),
        };
    }
    Outcome::Complete(result)
}

/// The keys a server's answer names as answered but not asked.
fn unasked_in(body: &[u8]) -> Vec<String> {
    let response: Value = serde_json::from_slice(body).unwrap_or_default();
    let pointer = format!(
        "/result/_meta/{}",
        crate::server::UNASKED_INPUT_RESPONSES.replace('/', "~1")
    );
    response
        .pointer(&pointer)
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(|key| key.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}
