use mcp_runtime::{ToolResult, text, tool};

#[tool(single_use = true)]
async fn pay() -> ToolResult {
    Ok(text("Paid"))
}

fn main() {}
