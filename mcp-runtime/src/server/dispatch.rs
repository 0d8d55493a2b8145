//! [`Server::handle`]: from one JSON-RPC message to its answer, transport-independent.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use super::error::RpcError;
use super::handler::{BoxFuture, HandlerResult, Progress, Reply, Request};
use super::lifecycle::{self, Envelope, Meta};
use super::panic::{CatchUnwind, guarded};
use super::{Handling, Outcome, RequestFacts, Server};
use crate::protocol::meta::META_CLIENT_CAPABILITIES;
use crate::protocol::{
    CacheHints, CallToolResult, ClientCapabilities, CompleteRequestParams, CompleteResult,
    Completion, CompletionReference, ErrorObject, GetPromptResult, InputResponses,
    ReadResourceResult,
};

/// The methods a server may answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
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
    /// Lifecycle errors and list methods are answered at once; calls run their handler inside
    /// the returned future. A handler that panics answers `-32603` for its request only.
    pub fn handle(&self, message: &[u8], facts: RequestFacts) -> Handling {
        let (id, method, params) = match lifecycle::parse_envelope(message) {
            Ok(Envelope::Request { id, method, params }) => (id, method, params),
            Ok(Envelope::Notification) => {
                return Handling::ready(Outcome {
                    status: 202,
                    body: None,
                });
            }
            Err((id, error)) => return Handling::ready(error_outcome(&id, &error)),
        };
        match self.route(&id, &method, params, facts) {
            Ok(handling) => handling,
            Err(error) => {
                if error.status >= 500 || error.code() == -32603 {
                    tracing::error!(%method, message = %error.error.message, "request failed");
                }
                Handling::ready(error_outcome(&id, &error))
            }
        }
    }

    fn method(&self, name: &str) -> Option<Method> {
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
        params: Map<String, Value>,
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
                self.call(id.clone(), method, params, meta, facts)
            }
        }
    }

    fn call(
        &self,
        id: Value,
        method: Method,
        mut params: Map<String, Value>,
        meta: Meta,
        facts: RequestFacts,
    ) -> Result<Handling, RpcError> {
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
        // `check_meta` has seen `_meta` and its capabilities object: take them, not a copy.
        let capabilities = match params.remove("_meta") {
            Some(Value::Object(mut meta)) => {
                meta.remove(META_CLIENT_CAPABILITIES).unwrap_or_default()
            }
            _ => Value::Null,
        };
        let capabilities: ClientCapabilities =
            serde_json::from_value(capabilities).map_err(|error| {
                RpcError::invalid_meta(format!("invalid client capabilities: {error}"))
            })?;
        let (progress, receiver) = match meta.progress_token {
            Some(token) => {
                let (progress, receiver) = Progress::channel(token);
                (progress, Some(receiver))
            }
            None => (Progress::none(), None),
        };
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
        let outcome: BoxFuture<'static, Outcome> = match method {
            Method::ToolsCall => {
                let handler = Arc::clone(&inner.tools[lookup(&inner.tool_index, "tool")?]);
                let request = self.request(method_name, target, arguments, facts.subject, progress);
                let request = request.with_round(input_responses, request_state, capabilities);
                Box::pin(run(id, guarded(move || handler.call(request)), None))
            }
            Method::PromptsGet => {
                let handler = Arc::clone(&inner.prompts[lookup(&inner.prompt_index, "prompt")?]);
                let request = self.request(method_name, target, arguments, facts.subject, progress);
                let request = request.with_round(input_responses, request_state, capabilities);
                Box::pin(run(id, guarded(move || handler.get(request)), None))
            }
            _ => {
                let handler = inner
                    .resources
                    .iter()
                    .find(|handler| handler.matches(&target))
                    .map(Arc::clone)
                    .ok_or_else(|| RpcError::unknown_resource(&target))?;
                let request = self.request(method_name, target, None, facts.subject, progress);
                let request = request.with_round(input_responses, request_state, capabilities);
                Box::pin(run(
                    id,
                    guarded(move || handler.read(request)),
                    Some(inner.cache),
                ))
            }
        };
        Ok(Handling {
            progress: receiver,
            outcome,
        })
    }

    fn request(
        &self,
        method: &'static str,
        target: String,
        arguments: Option<Map<String, Value>>,
        subject: Option<String>,
        progress: Progress,
    ) -> PartialRequest {
        PartialRequest {
            method,
            target,
            arguments,
            subject,
            progress,
            server: self.clone(),
        }
    }

    fn complete(&self, params: Map<String, Value>) -> Result<CompleteResult, RpcError> {
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

/// A [`Request`] missing this round's answers; keeps `call` readable.
struct PartialRequest {
    method: &'static str,
    target: String,
    arguments: Option<Map<String, Value>>,
    subject: Option<String>,
    progress: Progress,
    server: Server,
}

impl PartialRequest {
    fn with_round(
        self,
        input_responses: Option<InputResponses>,
        request_state: Option<String>,
        capabilities: ClientCapabilities,
    ) -> Request {
        Request {
            method: self.method,
            target: self.target,
            arguments: self.arguments,
            input_responses,
            request_state,
            capabilities,
            subject: self.subject,
            progress: self.progress,
            signer: self.server.inner.signer.clone(),
            limits: self.server.inner.limits,
        }
    }
}

/// A final result as dispatch sends it: serialised straight from its typed value (so member
/// order is the type's field order), after the server's caching hints are applied.
trait FinalResult: Serialize {
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

/// Awaits a handler and turns its reply into the answer.
async fn run<R: FinalResult>(
    id: Value,
    future: CatchUnwind<HandlerResult<R>>,
    cache: Option<CacheHints>,
) -> Outcome {
    match future.await {
        Ok(Ok(Reply::Complete(mut result))) => {
            if let Some(cache) = cache {
                result.apply_cache_hints(cache);
            }
            result_outcome(&id, &result)
        }
        Ok(Ok(Reply::InputRequired(result))) => result_outcome(&id, &result),
        Ok(Err(error)) => error_outcome(&id, &RpcError::from_handler(error)),
        Err(panic) => {
            tracing::error!(%id, panic = %panic, "a handler panicked");
            error_outcome(&id, &RpcError::internal("internal error"))
        }
    }
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
fn result_outcome<R: Serialize>(id: &Value, result: &R) -> Outcome {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result,
    };
    match serde_json::to_vec(&response) {
        Ok(body) => Outcome {
            status: 200,
            body: Some(body),
        },
        Err(error) => {
            tracing::error!(%id, %error, "a result did not serialise");
            error_outcome(id, &RpcError::internal("internal error"))
        }
    }
}

/// An answer around a result serialised in advance.
fn raw_result_outcome(id: &Value, raw_result: &str) -> Outcome {
    let id = serde_json::to_string(id).expect("a JSON value serialises");
    let mut body = Vec::with_capacity(raw_result.len() + id.len() + 40);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.as_bytes());
    body.extend_from_slice(br#","result":"#);
    body.extend_from_slice(raw_result.as_bytes());
    body.push(b'}');
    Outcome {
        status: 200,
        body: Some(body),
    }
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
    Outcome {
        status: error.status,
        body: Some(body),
    }
}
