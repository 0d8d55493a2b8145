use mcp_runtime::protocol::ReadResourceResult;
use mcp_runtime::server::CompletionRequest;
use mcp_runtime::{ResourceResult, resource};

async fn nothing(_request: CompletionRequest) -> Vec<String> {
    Vec::new()
}

/// A resource with one URI: it has no variables to complete.
#[resource(uri = "config://app", complete = nothing)]
async fn config() -> ResourceResult {
    Ok(ReadResourceResult::default())
}

fn main() {}
