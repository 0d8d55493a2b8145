use mcp_runtime::protocol::{GetPromptResult, PromptMessage, Role};
use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, PromptResult, prompt};

#[derive(ElicitForm)]
struct Tone {
    formal: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    /// What to write about.
    topic: String,
}

/// Writes a short note.
#[prompt]
async fn note(args: Args, cx: Cx) -> PromptResult {
    let tone: Tone = cx.elicit("Formal or not?").await?;
    let style = if tone.formal { "formal" } else { "casual" };
    Ok(GetPromptResult {
        messages: vec![PromptMessage::text(
            Role::User,
            format!("Write a {style} note about {}.", args.topic),
        )],
        ..GetPromptResult::default()
    })
}

fn main() {
    let _ = Server::builder().prompt(note).build();
}
