use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[elicit]
async fn ping(cx: &Cx) -> Result<bool, Refusal> {
    let answer: Confirm = cx.elicit("Ping?").await?;
    if answer.ok {
        return Ok(true);
    }
    let back: bool = pong(cx).await?;
    Ok(back)
}

#[elicit]
async fn pong(cx: &Cx) -> Result<bool, Refusal> {
    let back: bool = ping(cx).await?;
    Ok(back)
}

fn main() {}
