use mcp_runtime::{Cx, ElicitForm, Refusal, elicit};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

struct Checker {
    question: String,
}

impl Checker {
    #[elicit]
    async fn check(&self, cx: &Cx) -> Result<bool, Refusal> {
        let sure: Yes = cx.elicit(self.question.clone()).await?;
        Ok(sure.ok)
    }
}

fn main() {}
