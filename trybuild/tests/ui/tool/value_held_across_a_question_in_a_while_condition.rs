use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Word {
    word: String,
}

fn expected(round: u32) -> String {
    format!("round {round}")
}

#[tool]
async fn echo(cx: Cx) -> ToolResult {
    let mut rounds = 0;
    // `expected(rounds)` runs before the question, each time round the loop.
    while expected(rounds) != cx.elicit::<Word>("Say the round").await?.word {
        rounds += 1;
    }
    Ok(text(format!("{rounds} rounds")))
}

fn main() {}
