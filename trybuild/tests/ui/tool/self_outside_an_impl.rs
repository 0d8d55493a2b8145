use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let sure: Yes = cx.elicit("Sure?").await?;
    Ok(text(Self::name(sure.ok)))
}

fn main() {}
