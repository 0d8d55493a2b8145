//! `single_use` on every kind of handler, alone and beside other keys.

use mcp_runtime::server::{PromptHandler, ResourceHandler, Server, ToolHandler};
use mcp_runtime::{Cx, ElicitForm, PromptResult, ResourceResult, ToolResult, prompt, resource, text, tool};

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

/// Pays once.
#[tool(single_use)]
async fn pay(cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Pay?").await?;
    Ok(text(if sure.ok { "Paid." } else { "Kept." }))
}

/// A prompt whose states are used once.
#[prompt(name = "once", single_use)]
async fn once() -> PromptResult {
    Ok(mcp_runtime::protocol::GetPromptResult::default())
}

/// A resource whose states are used once.
#[resource(uri = "test://once", single_use)]
async fn read_once() -> ResourceResult {
    Ok(mcp_runtime::protocol::ReadResourceResult::default())
}

/// Not single-use.
#[tool]
async fn free() -> ToolResult {
    Ok(text("free"))
}

fn main() {
    assert!(pay().single_use());
    assert!(once().single_use());
    assert!(read_once().single_use());
    assert!(!free().single_use());
    let _server = Server::builder().tool(pay).prompt(once).resource(read_once).tool(free).build();
}
