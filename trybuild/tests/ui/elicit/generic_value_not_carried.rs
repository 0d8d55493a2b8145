use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

// `kept` is carried across the question, so its type must be serialisable; `T`'s bounds do
// not say it is.
#[elicit]
async fn keep<T: Clone>(cx: &Cx, value: T) -> Result<Option<T>, Refusal> {
    let kept = value.clone();
    let sure: Yes = cx.elicit("Keep it?").await?;
    Ok(sure.ok.then_some(kept))
}

fn main() {}
