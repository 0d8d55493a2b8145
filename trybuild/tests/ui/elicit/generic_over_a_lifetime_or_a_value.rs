use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[elicit]
async fn confirm<'a, const N: usize>(cx: &Cx, what: &'a str) -> Result<bool, Refusal> {
    let sure: Yes = cx.elicit(format!("{what} x{N}?")).await?;
    Ok(sure.ok)
}

fn main() {}
