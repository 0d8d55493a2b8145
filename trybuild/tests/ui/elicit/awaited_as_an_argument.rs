use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[elicit]
async fn confirm(cx: &Cx) -> Result<bool, Refusal> {
    let answer: Confirm = cx.elicit("Sure?").await?;
    Ok(answer.ok)
}

#[tool]
async fn ship(cx: Cx) -> ToolResult {
    assert!(confirm(&cx).await?, "not confirmed");
    Ok(text("shipped"))
}

fn main() {}
