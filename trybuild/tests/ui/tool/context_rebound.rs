use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn confirm(cx: Cx) -> ToolResult {
    let cx = &cx;
    let sure: Yes = cx.elicit("Sure?").await?;
    Ok(text(sure.ok.to_string()))
}

fn main() {}
