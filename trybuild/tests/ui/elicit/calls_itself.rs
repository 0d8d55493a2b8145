use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[elicit]
async fn confirm(cx: &Cx) -> Result<bool, Refusal> {
    let answer: Confirm = cx.elicit("Sure?").await?;
    if !answer.ok {
        let again: bool = confirm(cx).await?;
        return Ok(again);
    }
    Ok(true)
}

fn main() {}
