use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    debug_assert!(!cx.elicit::<Name>("Who are you?").await?.name.is_empty());
    Ok(text("Hello"))
}

fn main() {}
