//! Every shape of completer `complete = ...` accepts: a plain `fn(&str, &str)`, an `async fn`
//! taking a `CompletionRequest`, and a closure returning a future, on prompts and templates.

use mcp_runtime::protocol::{GetPromptResult, PromptMessage, ReadResourceResult, Role};
use mcp_runtime::server::{BoxFuture, CompletionRequest, Server};
use mcp_runtime::{PromptResult, ResourceResult, prompt, resource};

fn plain(argument: &str, value: &str) -> Vec<String> {
    vec![format!("{argument}={value}")]
}

async fn with_request(request: CompletionRequest) -> Vec<String> {
    request.arguments.into_values().collect()
}

fn boxed(request: CompletionRequest) -> BoxFuture<'static, Vec<String>> {
    Box::pin(async move { vec![request.value] })
}

fn said() -> GetPromptResult {
    GetPromptResult {
        messages: vec![PromptMessage::text(Role::User, "said")],
        ..Default::default()
    }
}

/// Plain.
#[prompt(complete = plain)]
async fn first() -> PromptResult {
    Ok(said())
}

/// Async.
#[prompt(complete = with_request)]
async fn second() -> PromptResult {
    Ok(said())
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Item {
    /// Which.
    id: String,
}

/// A template, completed by a function returning a boxed future.
#[resource(uri = "items://{id}", complete = boxed)]
async fn item(uri: Item) -> ResourceResult {
    let _ = uri.id;
    Ok(ReadResourceResult::default())
}

fn main() {
    let _server = Server::builder()
        .prompt(first)
        .prompt(second)
        .resource(item)
        .build();
}
