use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let other = cx.clone();
    let name: Name = other.elicit("Who are you?").await?;
    Ok(text(name.name))
}

fn main() {}
