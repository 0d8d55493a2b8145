use mcp_runtime::server::Server;
use mcp_runtime::{ToolResult, text, tool};

/// Says hello.
#[tool]
async fn hello() -> ToolResult {
    Ok(text("Hello"))
}

fn main() {
    let _ = Server::builder().tool(hello).build();
}
