use mcp_runtime::protocol::{GetPromptResult, PromptMessage, Role};
use mcp_runtime::{PromptResult, prompt};

/// Takes the value alone: a completer also takes the argument's name.
fn colours(value: &str) -> Vec<String> {
    vec![value.to_owned()]
}

/// Paints.
#[prompt(complete = colours)]
async fn paint() -> PromptResult {
    Ok(GetPromptResult {
        messages: vec![PromptMessage::text(Role::User, "paint")],
        ..Default::default()
    })
}

fn main() {}
