//! [`Server::handle`]: from one JSON-RPC message to its answer, transport-independent.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::builder;
use super::error::RpcError;
use super::handler::{BoxFuture, HandlerResult, Progress, Reply, Request};
use super::lifecycle::{self, Envelope, Meta};
use super::panic::{CatchUnwind, guarded};
use super::{Handling, Outcome, RequestFacts, Server};
use crate::protocol::{
    CacheHints, ClientCapabilities, CompleteRequestParams, CompleteResult, Completion,
    CompletionReference, InputResponses,
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
            Method::Complete => {
                let result = serde_json::to_value(self.complete(params)?)
                    .map_err(|_| RpcError::internal("internal error"))?;
                Ok(Handling::ready(result_outcome(id, &result)))
            }
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
        let capabilities: ClientCapabilities =
            serde_json::from_value(meta.capabilities).map_err(|error| {
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

/// Awaits a handler and turns its reply into the answer.
async fn run<R: Serialize>(
    id: Value,
    future: CatchUnwind<HandlerResult<R>>,
    cache: Option<CacheHints>,
) -> Outcome {
    let (result, result_type) = match future.await {
        Ok(Ok(Reply::Complete(result))) => (serde_json::to_value(result), "complete"),
        Ok(Ok(Reply::InputRequired(result))) => (serde_json::to_value(result), "input_required"),
        Ok(Err(error)) => return error_outcome(&id, &RpcError::from_handler(error)),
        Err(panic) => {
            tracing::error!(%id, panic = %panic, "a handler panicked");
            return error_outcome(&id, &RpcError::internal("internal error"));
        }
    };
    match result {
        Ok(Value::Object(mut object)) => {
            object.insert("resultType".into(), result_type.into());
            let mut result = Value::Object(object);
            if let (Some(cache), "complete") = (cache, result_type) {
                result = builder::complete(cache, result);
            }
            result_outcome(&id, &result)
        }
        Ok(_) | Err(_) => {
            tracing::error!(%id, "a handler result did not serialise to a JSON object");
            error_outcome(&id, &RpcError::internal("internal error"))
        }
    }
}

fn result_outcome(id: &Value, result: &Value) -> Outcome {
    let body = serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": id, "result": result }))
        .expect("a JSON value serialises");
    Outcome {
        status: 200,
        body: Some(body),
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

/// An error answer. An unusable id (`null`) is left out, as the schema has no `null` id.
pub(crate) fn error_outcome(id: &Value, error: &RpcError) -> Outcome {
    let mut response = json!({ "jsonrpc": "2.0", "error": error.error });
    if !id.is_null() {
        response["id"] = id.clone();
    }
    let body = serde_json::to_vec(&response).expect("a JSON value serialises");
    Outcome {
        status: error.status,
        body: Some(body),
    }
}
