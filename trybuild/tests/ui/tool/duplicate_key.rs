use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let first: Name = cx.elicit("Who are you?").await?;
    let second: Name = cx.elicit("And your friend?").key("first").await?;
    Ok(text(format!("{} and {}", first.name, second.name)))
}

fn main() {}
