//! Hand-written handlers (no macros) that exercise dispatch and the transports: a plain tool,
//! one answering input-required, one panicking, one reporting progress, one needing an
//! undeclared capability, a prompt with completion, a resource and a template.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::protocol::{
    CallToolResult, ContentBlock, ErrorCode, ErrorObject, GetPromptResult, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
    TextResourceContents, Tool,
};
use mcp_runtime::server::{
    Asked, BoxFuture, HandlerResult, PromptHandler, Reply, Request, ResourceDefinition,
    ResourceHandler, Server, ToolHandler,
};
use serde_json::{Value, json};

/// The definition of a test tool named `name`, taking any object.
pub(crate) fn tool(name: &str) -> Tool {
    let schema = json!({ "type": "object" });
    let Value::Object(input_schema) = schema else {
        unreachable!()
    };
    Tool {
        name: name.to_owned(),
        description: Some(format!("the `{name}` test tool")),
        input_schema,
        ..Tool::default()
    }
}

fn text(text: impl Into<String>) -> HandlerResult<CallToolResult> {
    Ok(Reply::Complete(CallToolResult::new(vec![
        ContentBlock::text(text),
    ])))
}

/// Echoes `arguments.text`, and the caller's subject when there is one.
pub(crate) struct Echo;

impl ToolHandler for Echo {
    fn definition(&self) -> Tool {
        tool("echo")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let said = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let subject = request.subject.clone();
        Box::pin(async move {
            match subject {
                Some(subject) => text(format!("{said} (for {subject})")),
                None => text(said),
            }
        })
    }
}

/// Answers input-required with a state until the call carries an answer under `name`.
pub(crate) struct Ask;

impl ToolHandler for Ask {
    fn definition(&self) -> Tool {
        tool("ask")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get("name"))
            .and_then(|response| response.pointer("/content/name"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        Box::pin(async move {
            match answer {
                Some(name) => text(format!("hello {name}")),
                None => Ok(Reply::InputRequired(Asked::state_only("round-1"))),
            }
        })
    }
}

/// Panics while running.
pub(crate) struct Panics;

impl ToolHandler for Panics {
    fn definition(&self) -> Tool {
        tool("panics")
    }

    fn call(&self, _request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        Box::pin(async move {
            tokio::task::yield_now().await;
            panic!("the panics tool always panics")
        })
    }
}

/// Reports progress 0, 50 and 100 of 100, 20 ms apart, then completes.
pub(crate) struct Slow;

impl ToolHandler for Slow {
    fn definition(&self) -> Tool {
        tool("slow")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let progress = request.progress;
        Box::pin(async move {
            for step in [0.0, 50.0, 100.0] {
                progress.report(step, Some(100.0), None);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            text("done")
        })
    }
}

/// Answers only once as many calls as its barrier has parties are in it at the same time: a
/// test of concurrency that cannot pass when calls run one after another.
pub(crate) struct Rendezvous(pub(crate) Arc<tokio::sync::Barrier>);

impl ToolHandler for Rendezvous {
    fn definition(&self) -> Tool {
        tool("rendezvous")
    }

    fn call(&self, _request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let barrier = Arc::clone(&self.0);
        Box::pin(async move {
            barrier.wait().await;
            text("met")
        })
    }
}

/// Needs sampling: answers `-32021` when the request did not declare it.
pub(crate) struct NeedsSampling;

impl ToolHandler for NeedsSampling {
    fn definition(&self) -> Tool {
        tool("needs_sampling")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let declared = request.capabilities.sampling.is_some();
        Box::pin(async move {
            if declared {
                return text("sampling declared");
            }
            Err(ErrorObject::new(
                ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                "this tool needs sampling",
            )
            .with_data(json!({ "requiredCapabilities": { "sampling": {} } })))
        })
    }
}

/// A prompt greeting `name`, completing names that start with the typed prefix.
pub(crate) struct Greet;

impl PromptHandler for Greet {
    fn definition(&self) -> Prompt {
        Prompt {
            name: "greet".to_owned(),
            arguments: Some(vec![PromptArgument {
                name: "name".to_owned(),
                required: Some(true),
                ..PromptArgument::default()
            }]),
            ..Prompt::default()
        }
    }

    fn get(&self, request: Request) -> BoxFuture<'static, HandlerResult<GetPromptResult>> {
        let name = request
            .arguments
            .unwrap_or_default()
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("stranger")
            .to_owned();
        Box::pin(async move {
            Ok(Reply::Complete(GetPromptResult {
                messages: vec![PromptMessage::text(
                    Role::User,
                    format!("Say hello to {name}."),
                )],
                ..GetPromptResult::default()
            }))
        })
    }

    fn complete(&self, argument: &str, value: &str) -> Vec<String> {
        if argument != "name" {
            return Vec::new();
        }
        ["alice", "albert", "bob"]
            .into_iter()
            .filter(|name| name.starts_with(value))
            .map(str::to_owned)
            .collect()
    }
}

fn read_text(uri: String, body: String) -> HandlerResult<ReadResourceResult> {
    Ok(Reply::Complete(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri,
            mime_type: Some("text/plain".to_owned()),
            text: body,
            ..TextResourceContents::default()
        })],
        ..ReadResourceResult::default()
    }))
}

/// The resource `test://readme`.
pub(crate) struct Readme;

impl ResourceHandler for Readme {
    fn definition(&self) -> ResourceDefinition {
        ResourceDefinition::Resource(Resource {
            uri: "test://readme".to_owned(),
            name: "readme".to_owned(),
            ..Resource::default()
        })
    }

    fn matches(&self, uri: &str) -> bool {
        uri == "test://readme"
    }

    fn read(&self, request: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
        Box::pin(async move { read_text(request.target, "read me".to_owned()) })
    }
}

/// The template `test://items/{id}`.
pub(crate) struct Item;

impl ResourceHandler for Item {
    fn definition(&self) -> ResourceDefinition {
        ResourceDefinition::Template(ResourceTemplate {
            uri_template: "test://items/{id}".to_owned(),
            name: "item".to_owned(),
            ..ResourceTemplate::default()
        })
    }

    fn matches(&self, uri: &str) -> bool {
        uri.strip_prefix("test://items/")
            .is_some_and(|id| !id.is_empty() && !id.contains('/'))
    }

    fn read(&self, request: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
        Box::pin(async move {
            let id = request
                .target
                .trim_start_matches("test://items/")
                .to_owned();
            read_text(request.target, format!("item {id}"))
        })
    }
}

/// A server holding every handler above.
pub(crate) fn fixture_server() -> Server {
    Server::builder()
        .name("fixture")
        .version("0.0.1")
        .tool(Echo)
        .tool(Ask)
        .tool(Panics)
        .tool(Slow)
        .tool(NeedsSampling)
        .prompt(Greet)
        .resource(Readme)
        .resource(Item)
        .body_limit(64 * 1024)
        .build()
}
