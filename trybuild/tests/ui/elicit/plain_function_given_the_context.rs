use mcp_runtime::{Cx, ToolResult, text, tool};

async fn log_progress(cx: &Cx) -> bool {
    cx.report_progress(1.0, None, None);
    true
}

#[tool]
async fn ship(cx: Cx) -> ToolResult {
    let done: bool = log_progress(&cx).await;
    Ok(text(format!("{done}")))
}

fn main() {}
