//! Straight-line questions with `mut` locals changed only before a question, only after it,
//! or on both sides: the expansion, which nests the statements before each question, adds
//! no warning of its own.
#![deny(warnings)]

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn tally(cx: Cx) -> ToolResult {
    let mut before: u32 = 0;
    before += 1;
    let mut after: u32 = 0;
    let mut both: u32 = 1;
    both *= 2;
    let first: Yes = cx.elicit("First?").await?;
    after += u32::from(first.ok);
    both += 1;
    let second: Yes = cx.elicit("Second?").await?;
    after += u32::from(second.ok);
    Ok(text(format!("{before} {after} {both}")))
}

fn main() {
    let _ = Server::builder().tool(tally).build();
}
