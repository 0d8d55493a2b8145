use mcp_runtime::{ResourceResult, resource};

#[resource]
async fn readme() -> ResourceResult {
    Ok(Default::default())
}

fn main() {}
