use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
fn greet(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("Hello"))
}

fn main() {}
