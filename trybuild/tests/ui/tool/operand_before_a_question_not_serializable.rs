use std::time::{Duration, Instant};

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Wait {
    seconds: u64,
}

fn deadline(from: Instant, wait: Wait) -> Instant {
    from + Duration::from_secs(wait.seconds)
}

#[tool]
async fn schedule(cx: Cx) -> ToolResult {
    let at = deadline(Instant::now(), cx.elicit("How long?").await?);
    Ok(text(format!("{at:?}")))
}

fn main() {}
