use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Keep {
    ok: bool,
}

#[elicit]
async fn confirm(cx: &Cx, what: &str) -> Result<bool, Refusal> {
    let keep: Keep = cx.elicit(format!("Keep {what}?")).await?;
    Ok(keep.ok)
}

fn main() {}
