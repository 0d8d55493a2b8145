//! [`Server::handle`]: from one JSON-RPC message to its answer, transport-independent.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::RpcError;
use super::handler::{
    BoxFuture, HandlerResult, Progress, PromptHandler, Reply, Request, ResourceHandler, ToolHandler,
};
use super::legacy;
use super::lifecycle::{self, Envelope};
use super::outbound::{self, LevelCell, Logger, Outbound};
use super::panic::guarded;
use super::session::Session;
use super::{Handling, Outcome, RequestFacts, Server};
use crate::logfield::untrusted;
use crate::protocol::meta::META_CLIENT_CAPABILITIES;
use crate::protocol::{
    CacheHints, CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult,
    Completion, CompletionReference, ErrorObject, GetPromptResult, InputResponses,
    ReadResourceResult,
};

/// The methods a server may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Discover,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    Complete,
    ResourcesList,
    TemplatesList,
    ResourcesRead,
}

/// The most completion values one answer carries (the schema's limit).
const MAX_COMPLETIONS: usize = 100;

impl Server {
    /// Handles one JSON-RPC message (the body of an HTTP POST, or one stdio line).
    ///
    /// A request carrying the 2026-07-28 `_meta` is served statelessly; `initialize` opens a
    /// legacy session, and requests on a legacy session are served by its rules. Lifecycle
    /// errors and list methods are answered at once; calls run their handler inside the
    /// returned future. A handler that panics answers `-32603` for its request only.
    pub fn handle(&self, message: &[u8], facts: RequestFacts) -> Handling {
        let limit = self.inner.max_json_depth;
        if lifecycle::nests_deeper_than(message, limit + lifecycle::ENVELOPE_DEPTH) {
            let error = RpcError::invalid_request(format!(
                "arguments and answers may nest arrays and objects {limit} levels deep at most"
            ));
            return Handling::ready(error_outcome(&Value::Null, &error));
        }
        match lifecycle::parse_envelope(message) {
            Ok(Envelope::Request { id, method, params }) => {
                if legacy::is_legacy(&method, &params, &facts) {
                    return self.handle_legacy(id, &method, params, &facts);
                }
                match self.route(&id, &method, params, facts) {
                    Ok(handling) => handling,
                    Err(error) => {
                        if error.status >= 500 || error.code() == -32603 {
                            tracing::error!(
                                method = %untrusted(&method),
                                message = %untrusted(&error.error.message),
                                "request failed"
                            );
                        }
                        Handling::ready(error_outcome(&id, &error))
                    }
                }
            }
            Ok(Envelope::Notification { method, params }) => {
                Handling::ready(self.legacy_notification(&method, &params, &facts))
            }
            Ok(Envelope::Response { id, reply }) => {
                Handling::ready(self.legacy_response(&id, reply, &facts))
            }
            Err((id, error)) => Handling::ready(error_outcome(&id, &error)),
        }
    }

    pub(super) fn method(&self, name: &str) -> Option<Method> {
        let inner = &self.inner;
        let tools = !inner.tools.is_empty();
        let prompts = !inner.prompts.is_empty();
        let resources = !inner.resources.is_empty();
        Some(match name {
            "server/discover" => Method::Discover,
            "tools/list" if tools => Method::ToolsList,
            "tools/call" if tools => Method::ToolsCall,
            "prompts/list" if prompts => Method::PromptsList,
            "prompts/get" if prompts => Method::PromptsGet,
            "completion/complete" if prompts => Method::Complete,
            "resources/list" if resources => Method::ResourcesList,
            "resources/templates/list" if resources => Method::TemplatesList,
            "resources/read" if resources => Method::ResourcesRead,
            _ => return None,
        })
    }

    fn route(
        &self,
        id: &Value,
        name: &str,
        mut params: Map<String, Value>,
        facts: RequestFacts,
    ) -> Result<Handling, RpcError> {
        let method = self
            .method(name)
            .ok_or_else(|| RpcError::method_not_found(name))?;
        let meta = lifecycle::check_meta(&params, &facts)?;
        let inner = &self.inner;
        let cached = |raw: &str| Ok(Handling::ready(raw_result_outcome(id, raw)));
        match method {
            Method::Discover => cached(&inner.discover),
            Method::ToolsList => cached(&inner.tools_list),
            Method::PromptsList => cached(&inner.prompts_list),
            Method::ResourcesList => cached(&inner.resources_list),
            Method::TemplatesList => cached(&inner.templates_list),
            Method::Complete => Ok(Handling::ready(result_outcome(id, &self.complete(params)?))),
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                let round = take_round(&mut params)?;
                // `check_meta` has seen `_meta` and its capabilities object: take them, not a
                // copy.
                let capabilities = match params.remove("_meta") {
                    Some(Value::Object(mut meta)) => {
                        meta.remove(META_CLIENT_CAPABILITIES).unwrap_or_default()
                    }
                    _ => Value::Null,
                };
                let capabilities: ClientCapabilities = serde_json::from_value(capabilities)
                    .map_err(|error| {
                        RpcError::invalid_meta(format!("invalid client capabilities: {error}"))
                    })?;
                let (sender, receiver) = match (&meta.progress_token, meta.log_level) {
                    (None, None) => (None, None),
                    _ => {
                        let (sender, receiver) = outbound::channel();
                        (Some(sender), Some(receiver))
                    }
                };
                let progress = match (meta.progress_token, &sender) {
                    (Some(token), Some(sender)) => Progress::new(token, sender.clone()),
                    _ => Progress::none(),
                };
                let logger = match (meta.log_level, sender) {
                    (Some(level), Some(sender)) => {
                        Logger::new(sender, Arc::new(LevelCell::new(Some(level))))
                    }
                    _ => Logger::none(),
                };
                let context = CallContext {
                    capabilities,
                    subject: facts.subject,
                    progress,
                    logger,
                };
                let outcome = self.call(id.clone(), method, params, context, Era::Modern(round))?;
                Ok(Handling {
                    messages: receiver,
                    outcome,
                })
            }
        }
    }

    /// Starts a call of a tool, prompt or resource: one round on the stateless wire, or the
    /// whole flow on a legacy session.
    pub(super) fn call(
        &self,
        id: Value,
        method: Method,
        mut params: Map<String, Value>,
        context: CallContext,
        era: Era,
    ) -> Result<BoxFuture<'static, Outcome>, RpcError> {
        let (method_name, key) = match method {
            Method::ToolsCall => ("tools/call", "name"),
            Method::PromptsGet => ("prompts/get", "name"),
            _ => ("resources/read", "uri"),
        };
        let target = match params.remove(key) {
            Some(Value::String(target)) => target,
            Some(_) => {
                return Err(RpcError::invalid_params(format!(
                    "`{key}` must be a string"
                )));
            }
            None => return Err(RpcError::invalid_params(format!("missing `{key}`"))),
        };
        let arguments = match params.remove("arguments") {
            None | Some(Value::Null) => None,
            Some(Value::Object(arguments)) if method != Method::ResourcesRead => Some(arguments),
            Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object")),
        };
        let inner = &self.inner;
        let lookup = |index: &std::collections::HashMap<String, usize>, kind: &str| {
            index
                .get(&target)
                .copied()
                .ok_or_else(|| RpcError::invalid_params(format!("unknown {kind} `{target}`")))
        };
        fn call<H>(
            handler: H,
            method: &'static str,
            target: String,
            arguments: Option<Map<String, Value>>,
            context: CallContext,
            server: &Server,
        ) -> Call<H> {
            Call {
                handler,
                method,
                target,
                arguments,
                context,
                server: server.clone(),
            }
        }
        Ok(match method {
            Method::ToolsCall => {
                let handler = Arc::clone(&inner.tools[lookup(&inner.tool_index, "tool")?]);
                let call = call(handler, method_name, target, arguments, context, self);
                era.start(id, call, None)
            }
            Method::PromptsGet => {
                let handler = Arc::clone(&inner.prompts[lookup(&inner.prompt_index, "prompt")?]);
                let call = call(handler, method_name, target, arguments, context, self);
                era.start(id, call, None)
            }
            _ => {
                let handler = inner
                    .resources
                    .iter()
                    .find(|handler| handler.matches(&target))
                    .map(Arc::clone)
                    .ok_or_else(|| RpcError::unknown_resource(&target))?;
                let call = call(handler, method_name, target, arguments, context, self);
                era.start(id, call, Some(inner.cache))
            }
        })
    }

    pub(super) fn complete(&self, params: Map<String, Value>) -> Result<CompleteResult, RpcError> {
        let params: CompleteRequestParams =
            serde_json::from_value(Value::Object(params)).map_err(|error| {
                RpcError::invalid_params(format!("invalid `completion/complete` params: {error}"))
            })?;
        let argument = &params.argument;
        let values = match &params.reference {
            CompletionReference::Prompt { name, .. } => {
                let position =
                    self.inner.prompt_index.get(name).ok_or_else(|| {
                        RpcError::invalid_params(format!("unknown prompt `{name}`"))
                    })?;
                let handler = &self.inner.prompts[*position];
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    handler.complete(&argument.name, &argument.value)
                }))
                .map_err(|_| RpcError::internal("internal error"))?
            }
            CompletionReference::ResourceTemplate { .. } => Vec::new(),
        };
        let total = values.len();
        let values: Vec<String> = values.into_iter().take(MAX_COMPLETIONS).collect();
        Ok(CompleteResult {
            completion: Completion {
                values,
                total: Some(total as u64),
                has_more: Some(total > MAX_COMPLETIONS),
            },
            ..Default::default()
        })
    }
}

/// This round's answers and state, taken out of a stateless call's params.
pub(super) struct RoundInput {
    input_responses: Option<InputResponses>,
    request_state: Option<String>,
}

fn take_round(params: &mut Map<String, Value>) -> Result<RoundInput, RpcError> {
    let input_responses = match params.remove("inputResponses") {
        None => None,
        Some(responses @ Value::Object(_)) => Some(
            serde_json::from_value::<InputResponses>(responses).map_err(|error| {
                RpcError::invalid_params(format!("invalid `inputResponses`: {error}"))
            })?,
        ),
        Some(_) => {
            return Err(RpcError::invalid_params(
                "`inputResponses` must be an object",
            ));
        }
    };
    let request_state = match params.remove("requestState") {
        None => None,
        Some(Value::String(state)) => Some(state),
        Some(_) => return Err(RpcError::invalid_params("`requestState` must be a string")),
    };
    Ok(RoundInput {
        input_responses,
        request_state,
    })
}

/// What a call knows about its caller, the same on every round.
pub(super) struct CallContext {
    pub(super) capabilities: ClientCapabilities,
    pub(super) subject: Option<String>,
    pub(super) progress: Progress,
    pub(super) logger: Logger,
}

/// How a call is served.
pub(super) enum Era {
    /// One round on the stateless wire, with the round's answers and state from the client.
    Modern(RoundInput),
    /// The whole flow on a legacy session: questions go to the client as server-to-client
    /// requests on `outbound`, rounds follow in process until the final result.
    Legacy {
        session: Arc<Session>,
        outbound: Outbound,
    },
}

impl Era {
    fn start<H: Serves>(
        self,
        id: Value,
        call: Call<H>,
        cache: Option<CacheHints>,
    ) -> BoxFuture<'static, Outcome> {
        match self {
            Self::Modern(round) => Box::pin(async move {
                // The one round of a stateless call takes the arguments as parsed: no copy.
                let reply = call
                    .last_round(round.request_state, round.input_responses)
                    .await;
                match reply {
                    Ok(Reply::Complete(result)) => final_outcome(&id, result, cache),
                    Ok(Reply::InputRequired(result)) => result_outcome(&id, &result),
                    Err(error) => error_outcome(&id, &RpcError::from_handler(error)),
                }
            }),
            Self::Legacy { session, outbound } => {
                Box::pin(legacy::run_call(id, call, session, outbound))
            }
        }
    }
}

/// A handler of one kind, as a call sees it.
pub(super) trait Serves: Send + Sync + 'static {
    type Result: FinalResult + Send + 'static;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<Self::Result>>;
}

impl Serves for Arc<dyn ToolHandler> {
    type Result = CallToolResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        self.call(request)
    }
}

impl Serves for Arc<dyn PromptHandler> {
    type Result = GetPromptResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<GetPromptResult>> {
        self.get(request)
    }
}

impl Serves for Arc<dyn ResourceHandler> {
    type Result = ReadResourceResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
        self.read(request)
    }
}

/// One call of a handler, from which its rounds are made.
pub(super) struct Call<H> {
    handler: H,
    method: &'static str,
    target: String,
    arguments: Option<Map<String, Value>>,
    context: CallContext,
    server: Server,
}

impl<H: Serves> Call<H> {
    /// One round: the handler called with `state` and `answers`, a panic turned into
    /// `-32603` for this call only.
    pub(super) fn round(
        &self,
        request_state: Option<String>,
        input_responses: Option<InputResponses>,
    ) -> BoxFuture<'static, HandlerResult<H::Result>> {
        let context = &self.context;
        let request = Request {
            method: self.method,
            target: self.target.clone(),
            arguments: self.arguments.clone(),
            input_responses,
            request_state,
            capabilities: context.capabilities.clone(),
            subject: context.subject.clone(),
            progress: context.progress.clone(),
            logger: context.logger.clone(),
            signer: self.server.inner.signer.clone(),
            limits: self.server.inner.limits,
        };
        self.serve(request)
    }

    /// The call's last round, which takes its arguments and context instead of copying them.
    fn last_round(
        self,
        request_state: Option<String>,
        input_responses: Option<InputResponses>,
    ) -> BoxFuture<'static, HandlerResult<H::Result>> {
        let context = self.context;
        let request = Request {
            method: self.method,
            target: self.target,
            arguments: self.arguments,
            input_responses,
            request_state,
            capabilities: context.capabilities,
            subject: context.subject,
            progress: context.progress,
            logger: context.logger,
            signer: self.server.inner.signer.clone(),
            limits: self.server.inner.limits,
        };
        let handler = self.handler;
        let running = guarded(|| handler.serve(request));
        Box::pin(async move { running.await.unwrap_or_else(|panic| Err(panicked(&panic))) })
    }

    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<H::Result>> {
        let running = guarded(|| self.handler.serve(request));
        Box::pin(async move { running.await.unwrap_or_else(|panic| Err(panicked(&panic))) })
    }

    pub(super) fn max_rounds(&self) -> u32 {
        self.server.inner.limits.max_rounds
    }

    pub(super) fn input_timeout(&self) -> std::time::Duration {
        self.server.inner.sessions.settings.input_timeout
    }
}

/// The error a call answers when its handler panicked; the panic goes to the log.
fn panicked(panic: &str) -> ErrorObject {
    tracing::error!(panic = %untrusted(panic), "a handler panicked");
    ErrorObject::new(crate::protocol::ErrorCode::INTERNAL_ERROR, "internal error")
}

/// A final result as dispatch sends it: serialised straight from its typed value (so member
/// order is the type's field order), after the server's caching hints are applied.
pub(super) trait FinalResult: Serialize {
    /// Applies the server's caching hints, for results that carry them.
    fn apply_cache_hints(&mut self, _hints: CacheHints) {}
}

impl FinalResult for CallToolResult {}

impl FinalResult for GetPromptResult {}

impl FinalResult for CompleteResult {}

impl FinalResult for ReadResourceResult {
    /// Hints the handler set itself win; the defaults (`0`, `private`) give way to the
    /// server's.
    fn apply_cache_hints(&mut self, hints: CacheHints) {
        if self.cache == CacheHints::default() {
            self.cache = hints;
        }
    }
}

/// A final result's answer, after the server's caching hints are applied.
pub(super) fn final_outcome<R: FinalResult>(
    id: &Value,
    mut result: R,
    cache: Option<CacheHints>,
) -> Outcome {
    if let Some(cache) = cache {
        result.apply_cache_hints(cache);
    }
    result_outcome(id, &result)
}

/// A JSON-RPC response, serialised without an intermediate [`Value`].
#[derive(Serialize)]
struct Response<'a, R> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a R,
}

/// A result answer. A result that fails to serialise (a handler's own `Serialize` data
/// refusing, say) answers `-32603` instead.
pub(super) fn result_outcome<R: Serialize>(id: &Value, result: &R) -> Outcome {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result,
    };
    match serde_json::to_vec(&response) {
        Ok(body) => Outcome::answer(200, body),
        Err(error) => {
            tracing::error!(id = %untrusted(&id.to_string()), %error, "a result did not serialise");
            error_outcome(id, &RpcError::internal("internal error"))
        }
    }
}

/// An answer around a result serialised in advance.
pub(super) fn raw_result_outcome(id: &Value, raw_result: &str) -> Outcome {
    let id = serde_json::to_string(id).expect("a JSON value serialises");
    let mut body = Vec::with_capacity(raw_result.len() + id.len() + 40);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.as_bytes());
    body.extend_from_slice(br#","result":"#);
    body.extend_from_slice(raw_result.as_bytes());
    body.push(b'}');
    Outcome::answer(200, body)
}

/// A JSON-RPC error response; an unusable id (`null`) is left out, as the schema has no
/// `null` id.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Value::is_null")]
    id: &'a Value,
    error: &'a ErrorObject,
}

/// An error answer.
pub(crate) fn error_outcome(id: &Value, error: &RpcError) -> Outcome {
    let response = ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: &error.error,
    };
    let body = serde_json::to_vec(&response).expect("an error object serialises");
    Outcome::answer(error.status, body)
}
