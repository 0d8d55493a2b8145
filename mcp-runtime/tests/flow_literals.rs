//! Locals that hold string literals (`&'static str`) across questions. No state can give back
//! a `&'static str`, so such a local travels as the index of its literal; it reads back as the
//! very literal it held.

#![allow(
    clippy::needless_late_init,
    reason = "one flow declares its literal late, which is what it tests"
)]

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Yes, answered, args, declined, run, yes};

/// A literal chosen by a `match` on an answer, with an arm that returns.
#[tool]
async fn chosen_by_a_match(args: Args, cx: Cx) -> ToolResult {
    let go: Yes = cx.elicit("Go?").await?;
    let kind = match (go.ok, args.start) {
        (true, n) if n > 3 => "many",
        (true, _) => "some",
        (false, _) => return Ok(text("stopped")),
    };
    let sure: Yes = cx.elicit(format!("Sure about {kind}?")).await?;
    Ok(text(format!("{kind} {}", sure.ok)))
}

#[tokio::test]
async fn a_literal_chosen_by_a_match_crosses_a_question() {
    let done = answered(chosen_by_a_match, args(5, &[]), &[yes(true), yes(false)]).await;
    assert_eq!(done, "many false");
    let done = answered(chosen_by_a_match, args(1, &[]), &[yes(true), yes(true)]).await;
    assert_eq!(done, "some true");
    let done = answered(chosen_by_a_match, args(1, &[]), &[yes(false)]).await;
    assert_eq!(done, "stopped");
}

/// A literal chosen between another literal local and a literal, after a question.
#[tool]
async fn chosen_from_another_literal(args: Args, cx: Cx) -> ToolResult {
    let size = match args.start {
        0 => "none",
        1..=9 => "some",
        _ => "many",
    };
    let keep: Yes = cx.elicit(format!("Keep {size}?")).await?;
    let shown = if keep.ok { size } else { "dropped" };
    let sure: Yes = cx.elicit(format!("Show {shown}?")).await?;
    Ok(text(format!("{size} {shown} {}", sure.ok)))
}

#[tokio::test]
async fn a_literal_taken_from_another_literal_local_crosses_a_question() {
    let flow = chosen_from_another_literal;
    assert_eq!(
        answered(flow, args(5, &[]), &[yes(true), yes(true)]).await,
        "some some true"
    );
    assert_eq!(
        answered(flow, args(50, &[]), &[yes(false), yes(false)]).await,
        "many dropped false"
    );
}

/// A sub-flow given a `&'static str`: its arguments are given again each round, never carried.
#[elicit]
async fn confirm_with(cx: &Cx, prompt: &'static str) -> Result<bool, Refusal> {
    let first: Yes = cx.elicit(prompt).await?;
    let again: Yes = cx.elicit(format!("{prompt} (again)")).await?;
    Ok(first.ok && again.ok)
}

#[tool]
async fn confirms_with_a_literal(cx: Cx) -> ToolResult {
    let sure = confirm_with(&cx, "Sure?").await?;
    Ok(text(format!("{sure}")))
}

#[tokio::test]
async fn a_sub_flow_takes_a_static_str() {
    let done = answered(
        confirms_with_a_literal,
        args(0, &[]),
        &[yes(true), yes(true)],
    )
    .await;
    assert_eq!(done, "true");
}

/// A literal chosen by a `match` on a local that could not travel itself (an answer with its
/// refusal: neither the form nor `Refusal` is serialisable): the literal travels in its place.
#[tool]
async fn chosen_by_an_answer_that_cannot_travel(cx: Cx) -> ToolResult {
    let answer = cx.elicit::<Yes>("Go?").await;
    let verdict = match answer {
        Ok(Yes { ok: true }) => "yes",
        Ok(_) => "no",
        Err(_) => "refused",
    };
    let sure: Yes = cx.elicit(format!("Sure about {verdict}?")).await?;
    Ok(text(format!("{verdict} {}", sure.ok)))
}

#[tokio::test]
async fn a_literal_chosen_by_a_local_that_cannot_travel_crosses_a_question() {
    let flow = chosen_by_an_answer_that_cannot_travel;
    assert_eq!(
        answered(flow, args(0, &[]), &[yes(true), yes(false)]).await,
        "yes false"
    );
    assert_eq!(
        answered(flow, args(0, &[]), &[declined(), yes(true)]).await,
        "refused true"
    );
}

/// A literal declared without a value, assigned on both sides of an `if` that asks on one.
#[tool]
async fn assigned_later(args: Args, cx: Cx) -> ToolResult {
    let label;
    if args.start > 2 {
        let big: Yes = cx.elicit("Big?").await?;
        label = if big.ok { "big" } else { "small" };
    } else {
        label = "tiny";
    }
    let sure: Yes = cx.elicit(format!("{label}?")).await?;
    Ok(text(format!("{label} {}", sure.ok)))
}

#[tokio::test]
async fn a_literal_assigned_later_crosses_questions() {
    let done = answered(assigned_later, args(5, &[]), &[yes(false), yes(true)]).await;
    assert_eq!(done, "small true");
    let done = answered(assigned_later, args(0, &[]), &[yes(false)]).await;
    assert_eq!(done, "tiny false");
}

/// A `mut` literal reassigned in a loop of questions, and read in each question's text.
#[tool]
async fn reassigned_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut status = "pending";
    for item in &args.items {
        let approve: Yes = cx.elicit(format!("{item} ({status})?")).await?;
        status = if approve.ok { "approved" } else { "rejected" };
    }
    Ok(text(status))
}

#[tokio::test]
async fn a_reassigned_literal_is_the_last_one_assigned_each_round() {
    let tester = FlowTester::tool(reassigned_in_a_loop).arguments(args(0, &["a", "b", "c"]));
    let mut round = tester.start().await;
    let mut asked = Vec::new();
    for ok in [true, false, true] {
        asked.push(round.to_string());
        round = round
            .answer(serde_json::json!({ "approve": yes(ok) }))
            .await;
    }
    assert_eq!(round.text(), Some("approved"));
    assert!(asked[0].contains("a (pending)?"), "{}", asked[0]);
    assert!(asked[1].contains("b (approved)?"), "{}", asked[1]);
    assert!(asked[2].contains("c (rejected)?"), "{}", asked[2]);
    let done = run(
        FlowTester::tool(reassigned_in_a_loop).arguments(args(0, &["a"])),
        &[yes(false)],
    )
    .await;
    assert_eq!(done.text(), Some("rejected"));
}

#[elicit]
async fn sure(cx: &Cx, what: String) -> Result<bool, Refusal> {
    let sure: Yes = cx.elicit(format!("{what}?")).await?;
    Ok(sure.ok)
}

/// A literal hidden in a block that asks, then read by a sub-flow call and by a closure made
/// again after the last question.
#[tool]
async fn hidden_then_captured(args: Args, cx: Cx) -> ToolResult {
    let mut mode = "fast";
    if args.start > 1 {
        mode = "slow";
    }
    {
        let mode = mode.len();
        let go: Yes = cx.elicit(format!("{mode} letters?")).await?;
        if !go.ok {
            return Ok(text("no"));
        }
    }
    let agreed = sure(&cx, mode.to_owned()).await?;
    let tag = if agreed { "y" } else { "n" };
    let describe = |s: &str| format!("{s}-{tag}-{mode}");
    let last: Yes = cx.elicit("Last?").await?;
    Ok(text(describe(if last.ok { "a" } else { "b" })))
}

#[tokio::test]
async fn a_literal_crosses_a_hiding_block_a_sub_flow_and_a_closure() {
    let done = answered(
        hidden_then_captured,
        args(2, &[]),
        &[yes(true), yes(false), yes(true)],
    )
    .await;
    assert_eq!(done, "a-n-slow");
}

/// A literal declared without a value in a loop's body, assigned on both sides of an `if`
/// that asks on one, then read by a question after it.
#[tool]
async fn late_literal_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in &args.items {
        let verdict;
        if item.is_empty() {
            verdict = "empty";
        } else {
            let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
            verdict = if keep.ok { "kept" } else { "dropped" };
        }
        let again: Yes = cx.elicit(format!("{verdict}, sure?")).await?;
        out.push(format!("{item}:{verdict}:{}", again.ok));
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_late_literal_in_a_loop_reads_back_each_turn() {
    let done = answered(
        late_literal_in_a_loop,
        args(0, &["a", "", "b"]),
        &[yes(true), yes(true), yes(false), yes(false), yes(true)],
    )
    .await;
    assert_eq!(done, "a:kept:true,:empty:false,b:dropped:true");
}
