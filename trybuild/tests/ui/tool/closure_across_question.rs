use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let shout = |s: &str| s.to_uppercase();
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(shout(&name.name)))
}

fn main() {}
