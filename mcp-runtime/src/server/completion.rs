//! `completion/complete`: the completer of the prompt or resource template a request names,
//! run, and the answer the server makes of its values.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::completer::{CompletionRequest, MAX_COMPLETIONS};
use super::context::RequestContext;
use super::error::RpcError;
use super::handler::{BoxFuture, ResourceDefinition};
use super::panic::guarded;
use super::{Handling, Outcome, ResourceHandler, Server};
use crate::logfield::untrusted;
use crate::protocol::{CompleteRequestParams, CompleteResult, Completion, CompletionReference};

/// Answers `completion/complete` with `params`: the completer of the prompt or resource
/// template the `ref` names, given `context`. An unknown prompt or template is `-32602`; one
/// without a completer offers nothing; a completer that panics answers `-32603`.
pub(super) fn complete(
    server: &Server,
    params: Map<String, Value>,
    context: RequestContext,
) -> Result<BoxFuture<'static, Result<CompleteResult, RpcError>>, RpcError> {
    let params: CompleteRequestParams =
        serde_json::from_value(Value::Object(params)).map_err(|error| {
            RpcError::invalid_params(format!("invalid `completion/complete` params: {error}"))
        })?;
    let inner = &server.inner;
    // The handlers enabled now: a completion follows the registry as it is.
    let snapshot = inner.registry.snapshot();
    let request = CompletionRequest {
        argument: params.argument.name,
        value: params.argument.value,
        arguments: params
            .context
            .and_then(|context| context.arguments)
            .unwrap_or_default(),
        app: inner.state.clone(),
        context,
    };
    let running = match &params.reference {
        CompletionReference::Prompt { name, .. } => {
            let position = snapshot
                .prompt_index
                .get(name)
                .ok_or_else(|| RpcError::invalid_params(format!("unknown prompt `{name}`")))?;
            let handler = Arc::clone(&snapshot.prompts[*position]);
            match handler.completer() {
                Some(completer) => guarded(move || completer.complete(request)),
                None => guarded(move || {
                    let values = handler.complete(&request.argument, &request.value);
                    Box::pin(std::future::ready(values)) as BoxFuture<'static, Vec<String>>
                }),
            }
        }
        CompletionReference::ResourceTemplate { uri } => {
            // The template itself, else (the `uri` may be a URI) a template that matches it.
            let is_template = |handler: &&Arc<dyn ResourceHandler>, exact: bool| match handler
                .definition()
            {
                ResourceDefinition::Template(template) if exact => template.uri_template == *uri,
                ResourceDefinition::Template(_) => handler.matches(uri),
                ResourceDefinition::Resource(_) => false,
            };
            let handler = (snapshot
                .resources
                .iter()
                .find(|handler| is_template(handler, true)))
            .or_else(|| {
                snapshot
                    .resources
                    .iter()
                    .find(|handler| is_template(handler, false))
            })
            .ok_or_else(|| {
                RpcError::invalid_params(format!("unknown resource template `{uri}`"))
            })?;
            match handler.completer() {
                Some(completer) => guarded(move || completer.complete(request)),
                None => guarded(|| {
                    Box::pin(std::future::ready(Vec::new())) as BoxFuture<'static, Vec<String>>
                }),
            }
        }
    };
    Ok(Box::pin(async move {
        let values = running.await.map_err(|panic| {
            tracing::error!(panic = %untrusted(&panic), "a completer panicked");
            RpcError::internal("internal error")
        })?;
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
    }))
}

/// The answer to a `completion/complete` whose completer runs as `running`: `answer` makes
/// it of the outcome, in the request's era.
pub(super) fn handling(
    running: BoxFuture<'static, Result<CompleteResult, RpcError>>,
    id: &Value,
    answer: impl FnOnce(&Value, Result<CompleteResult, RpcError>) -> Outcome + Send + 'static,
) -> Handling {
    let id = id.clone();
    Handling {
        messages: None,
        outcome: Box::pin(async move { answer(&id, running.await) }),
    }
}
