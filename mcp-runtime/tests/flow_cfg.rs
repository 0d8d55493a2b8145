//! Statements under `#[cfg]` among questions: a `let` that may hide the local of its name, a
//! `let` of a literal, one in a loop, a block and a statement that ask, and a sub-flow with a
//! `let` under `#[cfg]`. Each handler has statements under `#[cfg(test)]`, which these tests
//! build, and under `#[cfg(not(test))]`, which they leave out, so both ways are checked. Each
//! flow runs round by round through the server's own dispatch.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, run_keyed, word, yes};

#[tool]
async fn doubled(args: Args, cx: Cx) -> ToolResult {
    let n = args.start;
    #[cfg(test)]
    let n = n * 2;
    let sure = cx.elicit::<Yes>("Sure?").await?;
    #[cfg(not(test))]
    let n = "compiled out";
    let said = cx.elicit::<Word>("Word?").await?;
    #[cfg(not(test))]
    let said = 0;
    Ok(text(format!("{n} {} {}", sure.ok, said.word)))
}

#[tokio::test]
async fn lets_under_cfg_that_hide_locals_across_two_questions() {
    let out = answered(doubled, args(3, &[]), &[yes(true), word("w")]).await;
    assert_eq!(out, "6 true w");
}

#[tool]
async fn labelled(cx: Cx) -> ToolResult {
    let label = "start";
    #[cfg(not(test))]
    let label = "other";
    let first = cx.elicit::<Word>(format!("{label}?")).await?;
    #[cfg(test)]
    let label = 7;
    let second = cx.elicit::<Word>(format!("{label}?")).await?;
    Ok(text(format!("{label} {} {}", first.word, second.word)))
}

#[tokio::test]
async fn literal_lets_under_cfg_are_carried_as_the_one_built() {
    let (keys, round) = run_keyed(
        mcp_runtime::testing::FlowTester::tool(labelled),
        &[word("a"), word("b")],
    )
    .await;
    assert_eq!(keys, ["first", "second"]);
    assert_eq!(round.text(), Some("7 a b"));
}

/// Calls of [`counted`]: code between two questions runs once.
static COUNTED: AtomicU32 = AtomicU32::new(0);

fn counted(item: &str) -> String {
    COUNTED.fetch_add(1, Ordering::SeqCst);
    item.to_uppercase()
}

#[tool]
async fn looped(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in args.items {
        #[cfg(test)]
        let item = counted(&item);
        #[cfg(not(test))]
        let item = 5;
        let said = cx.elicit::<Word>(format!("{item}?")).await?;
        out.push(format!("{item}{}", said.word));
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_let_under_cfg_in_a_loop_runs_once_each_time_round() {
    COUNTED.store(0, Ordering::SeqCst);
    let out = answered(looped, args(0, &["a", "b"]), &[word("x"), word("y")]).await;
    assert_eq!(out, "Ax,By");
    assert_eq!(COUNTED.load(Ordering::SeqCst), 2);
}

#[tool]
async fn asked_under_cfg(args: Args, cx: Cx) -> ToolResult {
    let mut n = args.start as usize;
    #[cfg(test)]
    {
        let said = cx.elicit::<Word>("Built?").await?;
        n += said.word.len();
    }
    #[cfg(not(test))]
    {
        let said = cx.elicit::<Word>("Left out?").await?;
        n += said.word.len() * 100;
    }
    #[cfg(not(test))]
    cx.elicit::<Yes>("Never asked?").await?;
    let last = cx.elicit::<Word>("Last?").await?;
    Ok(text(format!("{n} {}", last.word)))
}

#[tokio::test]
async fn statements_that_ask_under_cfg_ask_only_where_built() {
    let (keys, round) = run_keyed(
        mcp_runtime::testing::FlowTester::tool(asked_under_cfg).arguments(args(3, &[])),
        &[word("ab"), word("z")],
    )
    .await;
    assert_eq!(keys, ["said", "last"]);
    assert_eq!(round.text(), Some("5 z"));
}

#[elicit]
async fn confirmed(cx: &Cx, what: String) -> Result<String, Refusal> {
    #[cfg(test)]
    let what = what.to_uppercase();
    let sure = cx.elicit::<Yes>(format!("{what}?")).await?;
    #[cfg(not(test))]
    let what = ();
    Ok(format!("{what} {}", sure.ok))
}

#[tool]
async fn through_a_sub_flow(cx: Cx) -> ToolResult {
    let first = confirmed(&cx, "one".to_owned()).await?;
    let second = confirmed(&cx, "two".to_owned()).await?;
    Ok(text(format!("{first}, {second}")))
}

#[tokio::test]
async fn a_sub_flow_with_a_let_under_cfg() {
    let out = answered(through_a_sub_flow, json!({}), &[yes(true), yes(false)]).await;
    assert_eq!(out, "ONE true, TWO false");
}
