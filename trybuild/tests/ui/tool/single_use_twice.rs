use mcp_runtime::{ToolResult, text, tool};

#[tool(single_use, single_use)]
async fn pay() -> ToolResult {
    Ok(text("Paid"))
}

fn main() {}
