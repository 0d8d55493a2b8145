use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    cx.elicit::<Name>("Who are you?").await?;
    Ok(text("Hello"))
}

fn main() {}
