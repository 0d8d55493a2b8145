use mcp_runtime::{ToolResult, text, tool};

#[tool(name = "say hello")]
async fn greet() -> ToolResult {
    Ok(text("Hello"))
}

fn main() {}
