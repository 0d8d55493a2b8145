// A mistake in a carried local's value is reported once, by the compiler, at the mistake: the
// local's type is then unknown, and the macro's own checks of what a carried local may hold
// (a borrow, a lock guard) say nothing more about it.
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Word {
    word: String,
}

#[tool]
async fn count(cx: Cx) -> ToolResult {
    let first: Word = cx.elicit("First?").await?;
    let n = first.word.parse_u32();
    let second: Word = cx.elicit("Second?").await?;
    Ok(text(format!("{n} {}", second.word)))
}

fn main() {}
