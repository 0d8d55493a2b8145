use mcp_runtime::{ToolResult, text, tool};

#[tool(nmae = "greet")]
async fn greet() -> ToolResult {
    Ok(text("Hello"))
}

fn main() {}
