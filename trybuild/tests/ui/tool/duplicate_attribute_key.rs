use mcp_runtime::{ToolResult, text, tool};

#[tool(name = "greet", name = "hello")]
async fn greet() -> ToolResult {
    Ok(text("Hello"))
}

fn main() {}
