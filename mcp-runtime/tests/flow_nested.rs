//! Questions inside the constructs of a handler's own statements (an `if`, a `match`, a
//! `loop`, a block, a `let` whose value is one of those), with locals flowing out of them to
//! the statements after, and with code before, between and after that must run exactly once
//! over all rounds. Each flow runs round by round through the server's own dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, finish, word, yes};

fn args(start: u32) -> serde_json::Value {
    json!({ "items": ["ant", "bee"], "start": start })
}

/// How often each stretch of `once_each` ran, over every round of every run.
static BEFORE: AtomicUsize = AtomicUsize::new(0);
static BETWEEN: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn once_each(args: Args, cx: Cx) -> ToolResult {
    BEFORE.fetch_add(1, Ordering::SeqCst);
    let mut log = vec![format!("start {}", args.start)];
    if args.start > 0 {
        let go: Yes = cx.elicit("Go?").await?;
        log.push(format!("go {}", go.ok));
    } else {
        let name: Word = cx.elicit("Name?").await?;
        log.push(format!("name {}", name.word));
    }
    BETWEEN.fetch_add(1, Ordering::SeqCst);
    let total = match args.items.len() {
        0 => 0,
        n => {
            let more: Word = cx.elicit("More?").await?;
            log.push(format!("more {}", more.word));
            n + more.word.len()
        }
    };
    AFTER.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!("{} = {total}", log.join(", "))))
}

#[tokio::test]
async fn code_around_nested_questions_runs_once() {
    let counts = || [&BEFORE, &BETWEEN, &AFTER].map(|counter| counter.load(Ordering::SeqCst));
    let before = counts();
    let done = finish(
        FlowTester::tool(once_each).arguments(args(1)),
        &[yes(true), word("xyz")],
    )
    .await;
    assert_eq!(done, "start 1, go true, more xyz = 5");
    let done = finish(
        FlowTester::tool(once_each).arguments(args(0)),
        &[word("ada"), word("q")],
    )
    .await;
    assert_eq!(done, "start 0, name ada, more q = 3");
    // Two runs of three rounds each: every stretch ran once per run.
    let after = counts();
    let ran: Vec<usize> = after.iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(ran, [2, 2, 2]);
}

#[tool]
async fn value_of_a_let(args: Args, cx: Cx) -> ToolResult {
    let length = if args.start > 2 {
        cx.elicit::<Word>("Word?").key("word").await?.word.len()
    } else {
        0
    };
    let shout = {
        let loud: Yes = cx.elicit("Loud?").await?;
        String::from(if loud.ok { "!" } else { "." })
    };
    let _sure: Yes = cx.elicit("Sure?").await?;
    Ok(text(format!("{length}{shout}")))
}

#[tool]
async fn tail_match(args: Args, cx: Cx) -> ToolResult {
    let prefix = format!("{}:", args.items.join("+"));
    match args.start {
        0 => Ok(text(format!("{prefix}none"))),
        1 => {
            let one: Word = cx.elicit("One?").await?;
            Ok(text(format!("{prefix}{}", one.word)))
        }
        _ => {
            let first: Word = cx.elicit("First?").await?;
            let second: Word = cx.elicit("Second?").await?;
            Ok(text(format!("{prefix}{}{}", first.word, second.word)))
        }
    }
}

#[tool]
async fn loop_value_then_more(cx: Cx) -> ToolResult {
    let mut count = 0_u32;
    let mut words = Vec::new();
    let last = loop {
        let next: Word = cx.elicit("Next?").await?;
        if next.word == "stop" {
            break words.len();
        }
        count += 1;
        words.push(next.word);
    };
    let _done: Yes = cx.elicit("Done?").await?;
    count += 100;
    Ok(text(format!("{count} {last} {}", words.join("/"))))
}

#[tool]
async fn branches_that_both_ask_then_straight(args: Args, cx: Cx) -> ToolResult {
    let mut seen = String::new();
    if args.start.is_multiple_of(2) {
        let even: Word = cx.elicit("Even?").await?;
        seen.push_str(&even.word);
    } else {
        let odd: Word = cx.elicit("Odd?").await?;
        seen.push_str(&odd.word);
        let again: Word = cx.elicit("Again?").await?;
        seen.push_str(&again.word);
    }
    let last: Word = cx.elicit("Last?").await?;
    seen.push_str(&last.word);
    for item in &args.items {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if keep.ok {
            seen.push_str(item);
        }
    }
    Ok(text(seen))
}

#[tool]
async fn head_and_inside_one_statement(cx: Cx) -> ToolResult {
    // A question at the head of a `match` and another inside one of its arms.
    let picked = match cx.elicit::<Word>("Pick?").key("pick").await?.word.as_str() {
        "ask" => cx.elicit::<Word>("Which?").key("which").await?.word,
        other => other.to_uppercase(),
    };
    let _ok: Yes = cx.elicit("Ok?").await?;
    Ok(text(picked))
}

#[tokio::test]
async fn locals_flow_out_of_constructs_that_ask() {
    fn t<M>(handler: impl mcp_runtime::server::IntoToolHandler<M>, start: u32) -> FlowTester {
        FlowTester::tool(handler).arguments(args(start))
    }
    let cases: Vec<(FlowTester, Vec<serde_json::Value>, &str)> = vec![
        (
            t(value_of_a_let, 3),
            vec![word("four"), yes(true), yes(true)],
            "4!",
        ),
        (t(value_of_a_let, 0), vec![yes(false), yes(true)], "0."),
        (t(tail_match, 0), vec![], "ant+bee:none"),
        (t(tail_match, 1), vec![word("x")], "ant+bee:x"),
        (t(tail_match, 2), vec![word("x"), word("y")], "ant+bee:xy"),
        (
            FlowTester::tool(loop_value_then_more),
            vec![word("a"), word("b"), word("stop"), yes(true)],
            "102 2 a/b",
        ),
        (
            t(branches_that_both_ask_then_straight, 2),
            vec![word("e"), word("l"), yes(true), yes(false)],
            "elant",
        ),
        (
            t(branches_that_both_ask_then_straight, 1),
            vec![word("o"), word("a"), word("l"), yes(false), yes(true)],
            "oalbee",
        ),
        (
            FlowTester::tool(head_and_inside_one_statement),
            vec![word("ask"), word("deep"), yes(true)],
            "deep",
        ),
        (
            FlowTester::tool(head_and_inside_one_statement),
            vec![word("flat"), yes(true)],
            "FLAT",
        ),
    ];
    for (tester, answers, expected) in cases {
        assert_eq!(finish(tester, &answers).await, expected);
    }
}
