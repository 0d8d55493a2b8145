use mcp_runtime::{Cx, ToolResult, text, tool};

#[tool(on_new_shape = "migrate")]
async fn greet(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("hello"))
}

fn main() {}
