//! Parameters bound `mut`, changed on both sides of a question: an arguments struct, a
//! binding in a destructured one, and a sub-flow's argument. The handlers compile as
//! written, with no warning.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Args {
    items: Vec<String>,
    start: u32,
}

#[tool]
async fn sorted(mut args: Args, cx: Cx) -> ToolResult {
    args.items.sort();
    let sure: Yes = cx.elicit("Keep them?").await?;
    args.start += u32::from(sure.ok);
    Ok(text(format!("{} {}", args.items.join(","), args.start)))
}

#[tool]
async fn counted(Args { mut items, start }: Args, cx: Cx) -> ToolResult {
    items.dedup();
    let sure: Yes = cx.elicit(format!("From {start}?")).await?;
    items.truncate(usize::from(sure.ok));
    Ok(text(items.join(",")))
}

/// Asks `question`, marked.
#[elicit]
async fn marked(cx: &Cx, mut question: String) -> Result<bool, Refusal> {
    question.push('?');
    let sure: Yes = cx.elicit(question.clone()).await?;
    question.push('!');
    Ok(sure.ok && question.ends_with('!'))
}

#[tool]
async fn asks_marked(cx: Cx) -> ToolResult {
    Ok(text(marked(&cx, "Tea".to_owned()).await?.to_string()))
}

fn main() {}
