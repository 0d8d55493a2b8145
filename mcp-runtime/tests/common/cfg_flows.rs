//! Flows with statements under `#[cfg(test)]` and under `#[cfg(not(test))]`, and the checks
//! of what each runs. Built twice: with `test` by `mcp-runtime/tests/flow_cfg.rs`, and without
//! it by the UI pass case `trybuild/tests/ui/pass/flow_cfg_not_test.rs`, which runs the same
//! checks, so both ways of each condition are compiled and run. Each check expects the side
//! it was built on (`cfg!(test)`).

#![allow(
    unreachable_pub,
    reason = "shared through `#[path]` by a test binary and a UI pass case"
)]

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};
use serde_json::json;

use crate::answers::{Args, Word, Yes, answered, args, run_keyed, word, yes};

/// The first of two values: the side built with `test`, or the other.
fn built<T>(with_test: T, without: T) -> T {
    if cfg!(test) { with_test } else { without }
}

#[tool]
async fn doubled(args: Args, cx: Cx) -> ToolResult {
    let n = args.start;
    #[cfg(test)]
    let n = n * 2;
    let sure = cx.elicit::<Yes>("Sure?").await?;
    #[cfg(not(test))]
    let n = format!("{n} as given");
    let said = cx.elicit::<Word>("Word?").await?;
    #[cfg(not(test))]
    let said = Word {
        word: format!("{} unchanged", said.word),
    };
    Ok(text(format!("{n} {} {}", sure.ok, said.word)))
}

pub async fn lets_under_cfg_that_hide_locals_across_two_questions() {
    let out = answered(doubled, args(3, &[]), &[yes(true), word("w")]).await;
    assert_eq!(out, built("6 true w", "3 as given true w unchanged"));
}

#[tool]
async fn labelled(cx: Cx) -> ToolResult {
    let label = "start";
    let first = cx.elicit::<Word>(format!("{label}?")).await?;
    #[cfg(test)]
    let label = 7;
    #[cfg(not(test))]
    let label = "other";
    let second = cx.elicit::<Word>(format!("{label}?")).await?;
    Ok(text(format!("{label} {} {}", first.word, second.word)))
}

pub async fn literal_lets_under_cfg_are_carried_as_the_one_built() {
    let (keys, round) = run_keyed(FlowTester::tool(labelled), &[word("a"), word("b")]).await;
    assert_eq!(keys, ["first", "second"]);
    assert_eq!(round.text(), Some(built("7 a b", "other a b")));
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
        let item = counted(&item).len();
        let said = cx.elicit::<Word>(format!("{item}?")).await?;
        out.push(format!("{item}{}", said.word));
    }
    Ok(text(out.join(",")))
}

pub async fn a_let_under_cfg_in_a_loop_runs_once_each_time_round() {
    COUNTED.store(0, Ordering::SeqCst);
    let out = answered(looped, args(0, &["a", "bc"]), &[word("x"), word("y")]).await;
    assert_eq!(out, built("Ax,BCy", "1x,2y"));
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
    cx.elicit::<Yes>("Asked without test?").await?;
    let last = cx.elicit::<Word>("Last?").await?;
    Ok(text(format!("{n} {}", last.word)))
}

pub async fn statements_that_ask_under_cfg_ask_only_where_built() {
    let tester = FlowTester::tool(asked_under_cfg).arguments(args(3, &[]));
    let answers = built(
        vec![word("ab"), word("z")],
        vec![word("ab"), yes(true), word("z")],
    );
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(
        keys,
        built(&["said", "last"][..], &["said", "elicit", "last"])
    );
    assert_eq!(round.text(), Some(built("5 z", "203 z")));
}

#[elicit]
async fn confirmed(cx: &Cx, what: String) -> Result<String, Refusal> {
    #[cfg(test)]
    let what = what.to_uppercase();
    let sure = cx.elicit::<Yes>(format!("{what}?")).await?;
    #[cfg(not(test))]
    let what = what.len();
    Ok(format!("{what} {}", sure.ok))
}

#[tool]
async fn through_a_sub_flow(cx: Cx) -> ToolResult {
    let first = confirmed(&cx, "one".to_owned()).await?;
    let second = confirmed(&cx, "three".to_owned()).await?;
    Ok(text(format!("{first}, {second}")))
}

pub async fn a_sub_flow_with_a_let_under_cfg() {
    let out = answered(through_a_sub_flow, json!({}), &[yes(true), yes(false)]).await;
    assert_eq!(out, built("ONE true, THREE false", "3 true, 5 false"));
}
