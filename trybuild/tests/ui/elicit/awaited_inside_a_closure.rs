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
    let ask = async |cx: &Cx| confirm(cx).await;
    let ok = ask(&cx).await?;
    Ok(text(format!("{ok}")))
}

fn main() {}
