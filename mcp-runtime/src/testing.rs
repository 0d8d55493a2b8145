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
use std::sync::Arc;

use serde_json::{Map, Value, json};

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

/// The handler under test.
#[derive(Clone)]
enum Target {
    Tool(Arc<dyn ToolHandler>),
    Prompt(Arc<dyn PromptHandler>),
    Resource(Arc<dyn ResourceHandler>, String),
}

/// Drives one handler round by round, as the server would.
#[derive(Clone)]
pub struct FlowTester {
    target: Target,
    arguments: Option<Map<String, Value>>,
    capabilities: ClientCapabilities,
    subject: Option<String>,
    signer: Signer,
    limits: FlowLimits,
    app: AppState,
}

impl fmt::Debug for FlowTester {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlowTester")
            .field("arguments", &self.arguments)
            .field("capabilities", &self.capabilities)
            .field("subject", &self.subject)
            .finish_non_exhaustive()
    }
}

impl FlowTester {
    fn new(target: Target) -> Self {
        Self {
            target,
            arguments: None,
            capabilities: serde_json::from_value(json!({
                "elicitation": {"form": {}, "url": {}},
                "sampling": {},
                "roots": {}
            }))
            .unwrap_or_default(),
            subject: None,
            signer: Signer::random().expect("the operating system provides random bytes"),
            limits: FlowLimits::default(),
            app: AppState::default(),
        }
    }

    /// Tests a `#[tool]`.
    pub fn tool<M>(handler: impl IntoToolHandler<M>) -> Self {
        Self::new(Target::Tool(Arc::new(handler.into_tool_handler())))
    }

    /// Tests a `#[prompt]`.
    pub fn prompt<M>(handler: impl IntoPromptHandler<M>) -> Self {
        Self::new(Target::Prompt(Arc::new(handler.into_prompt_handler())))
    }

    /// Tests a `#[resource]` read at `uri`.
    pub fn resource<M>(handler: impl IntoResourceHandler<M>, uri: impl Into<String>) -> Self {
        Self::new(Target::Resource(
            Arc::new(handler.into_resource_handler()),
            uri.into(),
        ))
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

    /// The authenticated subject the state binds (by default none).
    #[must_use]
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// The signer (by default a random key).
    #[must_use]
    pub fn signer(mut self, signer: Signer) -> Self {
        self.signer = signer;
        self
    }

    /// Registers a value of application state, as
    /// [`ServerBuilder::state`](crate::server::ServerBuilder::state) does: every round is
    /// handed the same value.
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app.insert(value);
        self
    }

    /// The flow limits (by default 50 rounds).
    #[must_use]
    pub fn limits(mut self, limits: FlowLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The first round: a call without state or answers.
    pub async fn start(&self) -> Round {
        self.send(None, None).await
    }

    /// One request with exactly this state and these answers (`inputResponses`, sent as
    /// given, so tests can send malformed ones).
    pub async fn send(&self, state: Option<&str>, answers: Option<Value>) -> Round {
        let outcome = self.exchange(state.map(str::to_owned), answers).await;
        self.round(outcome)
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
        let rounds = complete(
            |state, answers: Option<InputResponses>| {
                let answers = answers.map(|answers| Value::Object(answers.into_iter().collect()));
                let tester = self.clone();
                // The tester goes through the wire, so its state is the token itself.
                let token = state.map(|token| String::from_utf8_lossy(&token).into_owned());
                Box::pin(async move {
                    match tester.exchange(token, answers).await {
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
            self.limits.max_rounds,
        );
        let outcome = match rounds.await {
            Ok(result) => Outcome::Complete(result),
            Err(error) => Outcome::Error(error),
        };
        self.round(outcome)
    }

    /// One JSON-RPC request through the server's own dispatch, as a transport would hand it
    /// over, and its answer.
    async fn exchange(&self, state: Option<String>, answers: Option<Value>) -> Outcome {
        let (method, mut params) = match &self.target {
            Target::Tool(handler) => ("tools/call", json!({"name": handler.definition().name})),
            Target::Prompt(handler) => ("prompts/get", json!({"name": handler.definition().name})),
            Target::Resource(_, uri) => ("resources/read", json!({"uri": uri})),
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
        params["_meta"] = json!({
            META_PROTOCOL_VERSION: PROTOCOL_VERSION,
            META_CLIENT_CAPABILITIES: self.capabilities,
        });
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let facts = RequestFacts::http(Some(PROTOCOL_VERSION.to_owned()), self.subject.clone());
        let answer = self
            .server()
            .handle(message.to_string().as_bytes(), facts)
            .finish()
            .await;
        let Some(body) = answer.body else {
            return Outcome::Error(internal("the server gave no answer"));
        };
        let mut response: Value = match serde_json::from_slice(&body) {
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

    /// A server serving only the handler under test, with this tester's settings.
    fn server(&self) -> Server {
        let (tool, prompt, resource) = match &self.target {
            Target::Tool(handler) => (Some(Arc::clone(handler)), None, None),
            Target::Prompt(handler) => (None, Some(Arc::clone(handler)), None),
            Target::Resource(handler, _) => (None, None, Some(Arc::clone(handler))),
        };
        Server::builder()
            .name("flow-tester")
            .signer(self.signer.clone())
            .flow_limits(self.limits)
            .handlers(tool, prompt, resource)
            .app_state(self.app.clone())
            .build()
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

fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// How one round ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The handler asks these questions and hands out this state.
    Asked {
        /// The input requests, by key.
        requests: InputRequests,
        /// The signed `requestState`.
        state: Option<String>,
    },
    /// The handler finished with this result (as it goes on the wire).
    Complete(Value),
    /// The request failed with this JSON-RPC error.
    Error(ErrorObject),
}

/// One round of a flow under test.
#[derive(Debug, Clone)]
pub struct Round {
    tester: FlowTester,
    /// How the round ended.
    pub outcome: Outcome,
}

impl Round {
    /// The keys asked this round, in key order (empty unless the round asked).
    pub fn questions(&self) -> Vec<&str> {
        match &self.outcome {
            Outcome::Asked { requests, .. } => requests.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The input requests of this round, if it asked.
    pub fn requests(&self) -> Option<&InputRequests> {
        match &self.outcome {
            Outcome::Asked { requests, .. } => Some(requests),
            _ => None,
        }
    }

    /// The request state handed out, if the round asked.
    pub fn state(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Asked { state, .. } => state.as_deref(),
            _ => None,
        }
    }

    /// The size of the request state in bytes (0 without one).
    pub fn state_size(&self) -> usize {
        self.state().map_or(0, str::len)
    }

    /// The final result, if the round completed.
    pub fn result(&self) -> Option<&Value> {
        match &self.outcome {
            Outcome::Complete(result) => Some(result),
            _ => None,
        }
    }

    /// The text of the first text block of a completed tool result (or of the first prompt
    /// message, or the first text resource contents).
    pub fn text(&self) -> Option<&str> {
        let result = self.result()?;
        let first = result
            .get("content")
            .or_else(|| result.get("contents"))
            .and_then(|c| c.get(0))
            .or_else(|| result.pointer("/messages/0/content"))?;
        first.get("text").and_then(Value::as_str)
    }

    /// The JSON-RPC error, if the round failed.
    pub fn error(&self) -> Option<&ErrorObject> {
        match &self.outcome {
            Outcome::Error(error) => Some(error),
            _ => None,
        }
    }

    /// The next round: the same call with this round's state and `answers`.
    pub async fn answer(&self, answers: Value) -> Round {
        self.tester.send(self.state(), Some(answers)).await
    }
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Asked { requests, state } => {
                writeln!(f, "input_required, asking {}:", self.questions().join(", "))?;
                writeln!(f, "{}", pretty(requests))?;
                match state {
                    Some(state) => write!(f, "requestState: {} bytes", state.len()),
                    None => write!(f, "no requestState"),
                }
            }
            Outcome::Complete(result) => write!(f, "complete:\n{}", pretty(result)),
            Outcome::Error(error) => write!(f, "error {}: {}", error.code.0, error.message),
        }
    }
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
