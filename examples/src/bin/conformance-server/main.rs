//! Every fixture of the official MCP conformance suite, each written with the project's macros,
//! served over Streamable HTTP at `/mcp`: the stateless revision 2026-07-28, and the legacy
//! revisions (2025-11-25 and earlier) whose clients open a session with `initialize`. A few
//! fixtures exist for one era only (`test_logging_tool` is 2026's, `test_tool_with_logging`
//! and the `test_elicitation*`/`test_sampling` tools are 2025-11-25's).
//!
//! ```sh
//! cargo run -p mcp-examples --bin conformance-server -- --listen 127.0.0.1:3001
//! ```
//!
//! The request-state key comes from `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes
//! decoded); without it the server makes a random key and says so. Once listening, the server
//! prints `mcp-runtime-conformance-server: serving MCP at http://ADDR/mcp` on stdout (with the real port
//! when given port 0). The flags are the library's ([`mcp_runtime::cli`]) and
//! `--state-ttl-secs`.

#![allow(deprecated)] // reason: the suite still exercises sampling and roots, deprecated in 2026-07-28

mod legacy;
mod live;
mod tasks;

use std::net::SocketAddr;
use std::time::Duration;

use clap::Parser;
use mcp_runtime::protocol::{
    AudioContent, BlobResourceContents, CallToolResult, ContentBlock, CreateMessageRequestParams,
    EmbeddedResource, GetPromptResult, ImageContent, LoggingLevel, PromptMessage,
    ReadResourceResult, ResourceContents, Role, SamplingContent, SamplingContentBlock,
    SamplingMessage, TextContent, TextResourceContents,
};
use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::{
    Cx, ElicitForm, PromptResult, ResourceResult, ToolResult, prompt, resource, text, tool,
};

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

#[derive(Parser)]
#[command(about = "The MCP conformance fixtures, served over HTTP at /mcp")]
struct Options {
    /// The usual flags of a server (`--listen`, `--stdio`, `--log-format`, state flags).
    #[command(flatten)]
    server: mcp_runtime::cli::Options,
    /// How long a request state stays valid, in seconds.
    #[arg(long, default_value_t = 600)]
    state_ttl_secs: u64,
}

// ---- content tools -------------------------------------------------------------------------

/// Returns one text block.
#[tool]
async fn test_simple_text() -> ToolResult {
    Ok(text("This is a simple text response for testing."))
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: PNG.into(),
        mime_type: "image/png".into(),
        ..Default::default()
    })
}

fn embedded(uri: &str) -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: Some("text/plain".into()),
            text: "This is an embedded resource content.".into(),
            meta: None,
        }),
        annotations: None,
        meta: None,
    })
}

/// Returns one PNG image.
#[tool]
async fn test_image_content() -> ToolResult {
    Ok(CallToolResult::new(vec![image()]))
}

/// Returns one WAV clip.
#[tool]
async fn test_audio_content() -> ToolResult {
    let audio = AudioContent {
        data: WAV.into(),
        mime_type: "audio/wav".into(),
        ..Default::default()
    };
    Ok(CallToolResult::new(vec![ContentBlock::Audio(audio)]))
}

/// Returns an embedded text resource.
#[tool]
async fn test_embedded_resource() -> ToolResult {
    Ok(CallToolResult::new(vec![embedded(
        "test://embedded-resource",
    )]))
}

/// Returns text, an image and an embedded resource.
#[tool]
async fn test_multiple_content_types() -> ToolResult {
    let blocks = vec![
        ContentBlock::text("Multiple content types test:"),
        image(),
        embedded("test://mixed-content-resource"),
    ];
    Ok(CallToolResult::new(blocks))
}

/// Fails as a tool (`isError: true`).
#[tool]
async fn test_error_handling() -> ToolResult {
    Ok(CallToolResult::error(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, then completes.
#[tool]
async fn test_tool_with_progress(cx: Cx) -> ToolResult {
    for step in [0.0, 50.0, 100.0] {
        cx.report_progress(step, Some(100.0), Some(format!("step {step}")));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(text("Progress tool completed."))
}

/// Completes without logging anything (no log level was asked for).
#[tool]
async fn test_logging_tool() -> ToolResult {
    Ok(text("Logging tool completed without log messages."))
}

/// Logs three `info` messages while it works (2025-11-25's logging fixture), then completes.
#[tool]
async fn test_tool_with_logging(cx: Cx) -> ToolResult {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        cx.log(LoggingLevel::Info, message);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(text("Tool with logging executed successfully"))
}

// ---- lifecycle diagnostics -----------------------------------------------------------------

fn question(text: &str) -> CreateMessageRequestParams {
    CreateMessageRequestParams {
        messages: vec![SamplingMessage {
            role: Role::User,
            content: SamplingContent::Single(SamplingContentBlock::Text(TextContent::new(text))),
            meta: None,
        }],
        max_tokens: 100,
        ..Default::default()
    }
}

fn sampled(result: &mcp_runtime::protocol::CreateMessageResult) -> String {
    match &result.content {
        SamplingContent::Single(SamplingContentBlock::Text(block)) => block.text.clone(),
        _ => format!("a reply from {}", result.model),
    }
}

/// Needs sampling: a client that does not declare it gets `-32021`.
#[tool]
async fn test_missing_capability(cx: Cx) -> ToolResult {
    let reply = cx.sample(question("Say something.")).await;
    Ok(text(format!("Sampled: {}", sampled(&reply))))
}

#[derive(ElicitForm)]
struct UserName {
    /// Your name.
    name: String,
}

/// Asks for the user's name through an input-required result, never a server request.
#[tool]
async fn test_streaming_elicitation(cx: Cx) -> ToolResult {
    let user: UserName = cx.elicit("What is your name?").await?;
    Ok(text(format!("Hello, {}!", user.name)))
}

// ---- multi-round (input-required) fixtures ------------------------------------------------

/// Asks for the user's name under `user_name`, then greets them.
#[tool]
async fn test_input_required_result_elicitation(cx: Cx) -> ToolResult {
    let user_name: UserName = cx.elicit("What is your name?").await?;
    Ok(text(format!("Hello, {}!", user_name.name)))
}

/// Asks the client's model a question, then reports its answer.
#[tool]
async fn test_input_required_result_sampling(cx: Cx) -> ToolResult {
    let capital_question = cx.sample(question("What is the capital of France?")).await;
    Ok(text(format!(
        "The model answered: {}",
        sampled(&capital_question)
    )))
}

/// Asks for the client's roots, then lists them.
#[tool]
async fn test_input_required_result_list_roots(cx: Cx) -> ToolResult {
    let client_roots = cx.list_roots().await;
    let uris: Vec<&str> = client_roots
        .roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect();
    Ok(text(format!(
        "The client has {} roots: {}",
        uris.len(),
        uris.join(", ")
    )))
}

#[derive(ElicitForm)]
struct Confirm {
    /// Whether to go on.
    ok: bool,
}

/// Asks one question and carries a signed state between the rounds.
#[tool]
async fn test_input_required_result_request_state(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Continue?").await?;
    Ok(text(format!(
        "state-ok: the state verified and the answer was {}",
        confirm.ok
    )))
}

/// Asks an elicitation, a sampling and a roots request at once.
#[tool]
async fn test_input_required_result_multiple_inputs(cx: Cx) -> ToolResult {
    let (user_name, greeting, client_roots) = (
        cx.elicit::<UserName>("What is your name?"),
        cx.sample(question("Write a greeting.")),
        cx.list_roots(),
    )
        .await;
    let user_name = user_name?;
    Ok(text(format!(
        "{}: {} ({} roots)",
        user_name.name,
        sampled(&greeting),
        client_roots.roots.len()
    )))
}

#[derive(ElicitForm)]
struct Color {
    /// Your favourite colour.
    color: String,
}

/// Three rounds: a name, then a colour, then the answer.
#[tool]
async fn test_input_required_result_multi_round(cx: Cx) -> ToolResult {
    let user_name: UserName = cx.elicit("What is your name?").await?;
    let favourite: Color = cx
        .elicit(format!(
            "{}, what is your favourite colour?",
            user_name.name
        ))
        .await?;
    Ok(text(format!(
        "{} likes {}.",
        user_name.name, favourite.color
    )))
}

/// Asks one question; a tampered state on the retry is refused.
#[tool]
async fn test_input_required_result_tampered_state(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Continue?").await?;
    Ok(text(format!("Confirmed: {}", confirm.ok)))
}

/// Asks through whatever the client declared: a form when it can elicit, else its model.
#[tool]
async fn test_input_required_result_capabilities(cx: Cx) -> ToolResult {
    if cx.supports_form_elicitation() {
        let user_name: UserName = cx.elicit("What is your name?").await?;
        return Ok(text(format!("Hello, {}!", user_name.name)));
    }
    let reply = cx.sample(question("Pick a name.")).await;
    Ok(text(format!("The model picked: {}", sampled(&reply))))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct RegionArgs {
    /// Where the query runs: clients mirror it as `Mcp-Param-Region`.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// The query.
    query: String,
}

/// Runs a query in a region that gateways route on (`x-mcp-header`).
#[tool]
async fn test_custom_header(args: RegionArgs) -> ToolResult {
    Ok(text(format!("Ran `{}` in {}", args.query, args.region)))
}

#[derive(ElicitForm)]
struct Context {
    /// What the prompt should be about.
    context: String,
}

/// Asks what context to use (under `user_context`), then returns a prompt using it.
#[prompt]
async fn test_input_required_result_prompt(cx: Cx) -> PromptResult {
    let user_context: Context = cx.elicit("What context should the prompt use?").await?;
    Ok(prompt_text(format!(
        "Answer with this context in mind: {}",
        user_context.context
    )))
}

// ---- prompts -------------------------------------------------------------------------------

fn prompt_text(text: String) -> GetPromptResult {
    GetPromptResult {
        messages: vec![PromptMessage::text(Role::User, text)],
        ..Default::default()
    }
}

/// A prompt without arguments.
#[prompt]
async fn test_simple_prompt() -> PromptResult {
    Ok(prompt_text("This is a simple prompt for testing.".into()))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TwoArgs {
    /// First test argument.
    arg1: String,
    /// Second test argument.
    arg2: String,
}

fn complete_arg1(argument: &str, value: &str) -> Vec<String> {
    if argument != "arg1" {
        return Vec::new();
    }
    ["paris", "park", "test", "testing"]
        .iter()
        .filter(|v| v.starts_with(value))
        .map(|v| (*v).to_owned())
        .collect()
}

/// A prompt with two arguments.
#[prompt(complete = complete_arg1)]
async fn test_prompt_with_arguments(args: TwoArgs) -> PromptResult {
    Ok(prompt_text(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        args.arg1, args.arg2
    )))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmbedArgs {
    /// URI of the resource to embed.
    resource_uri: String,
}

/// A prompt embedding the resource it is given.
#[prompt]
async fn test_prompt_with_embedded_resource(args: EmbedArgs) -> PromptResult {
    let messages = vec![
        PromptMessage {
            role: Role::User,
            content: embedded(&args.resource_uri),
        },
        PromptMessage::text(Role::User, "Please process the embedded resource above."),
    ];
    Ok(GetPromptResult {
        messages,
        ..Default::default()
    })
}

/// A prompt holding an image.
#[prompt]
async fn test_prompt_with_image() -> PromptResult {
    let messages = vec![
        PromptMessage {
            role: Role::User,
            content: image(),
        },
        PromptMessage::text(Role::User, "Please analyze the image above."),
    ];
    Ok(GetPromptResult {
        messages,
        ..Default::default()
    })
}

// ---- resources -----------------------------------------------------------------------------

/// A static text resource.
#[resource(uri = "test://static-text", mime_type = "text/plain")]
async fn static_text() -> ResourceResult {
    let contents = TextResourceContents {
        uri: "test://static-text".into(),
        mime_type: Some("text/plain".into()),
        text: "This is the content of the static text resource.".into(),
        meta: None,
    };
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(contents)],
        ..Default::default()
    })
}

/// A static binary resource.
#[resource(uri = "test://static-binary", mime_type = "image/png")]
async fn static_binary() -> ResourceResult {
    let contents = BlobResourceContents {
        uri: "test://static-binary".into(),
        mime_type: Some("image/png".into()),
        blob: PNG.into(),
        meta: None,
    };
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Blob(contents)],
        ..Default::default()
    })
}

/// A resource to subscribe to; its content never changes.
#[resource(uri = "test://watched-resource", mime_type = "text/plain")]
async fn watched_resource() -> ResourceResult {
    let contents = TextResourceContents {
        uri: "test://watched-resource".into(),
        mime_type: Some("text/plain".into()),
        text: "This resource can be subscribed to.".into(),
        meta: None,
    };
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(contents)],
        ..Default::default()
    })
}

#[derive(serde::Deserialize)]
struct TemplateArgs {
    id: String,
}

/// A resource template whose content names its `id`.
#[resource(uri = "test://template/{id}/data", mime_type = "application/json")]
async fn template_data(args: TemplateArgs) -> ResourceResult {
    let contents = TextResourceContents {
        uri: format!("test://template/{}/data", args.id),
        mime_type: Some("application/json".into()),
        text: serde_json::json!({ "id": args.id, "templateTest": true }).to_string(),
        meta: None,
    };
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(contents)],
        ..Default::default()
    })
}

// ---- the server ----------------------------------------------------------------------------

fn server() -> ServerBuilder {
    tasks::register(Server::builder())
        .name("mcp-runtime-conformance-server")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_error_handling)
        .tool(test_tool_with_progress)
        .tool(test_logging_tool)
        .tool(test_tool_with_logging)
        .tool(legacy::test_sampling)
        .tool(legacy::test_elicitation)
        .tool(legacy::test_elicitation_sep1034_defaults)
        .tool(legacy::test_elicitation_sep1330_enums)
        .tool(test_missing_capability)
        .tool(test_streaming_elicitation)
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(test_custom_header)
        .tool(live::test_trigger_tool_change)
        .tool(live::test_trigger_prompt_change)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .prompt(test_input_required_result_prompt)
        .resource(static_text)
        .resource(static_binary)
        .resource(watched_resource)
        .resource(template_data)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let options = Options::parse();
    let _log = mcp_runtime::cli::init_logging(options.server.log_format);
    let signer = mcp_runtime::cli::signer_from_env()
        .unwrap_or_else(|error| {
            eprintln!("error: {error}");
            std::process::exit(2);
        })
        .with_ttl(Duration::from_secs(options.state_ttl_secs));
    tasks::register_failing(server())
        .run()
        .options(options.server)
        .signer(signer)
        .default_listen(SocketAddr::from(([127, 0, 0, 1], 3001)))
        .await
}

/// The command line is valid: the library's options and `--state-ttl-secs` together. (A test
/// function, not a `tests` module: the fuzz targets include this file in a module of theirs.)
#[cfg(test)]
#[test]
fn the_command_line_is_valid() {
    <Options as clap::CommandFactory>::command().debug_assert();
}
