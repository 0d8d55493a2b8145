//! Questions inside the arms of a `match`, an `else if` chain and an `if let` among a
//! handler's statements, resumed where they stand: the scrutinee (or each condition) runs
//! once each time the code as written reaches it and never again on a resume, a later
//! iteration of a loop runs as written, and a guard still chooses its arm. Beside them, the
//! arms that read what their pattern binds, whose statement is copied for each question
//! instead, behave the same. Each flow runs round by round through the server's own
//! dispatch; each scrutinee or condition counts its runs.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::AtomicUsize;

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use serde::{Deserialize, Serialize};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Mode, Word, Yes, args, counted, finish, run_keyed, runs, word, yes};

/// A colour a handler carries across its questions.
#[derive(Serialize, Deserialize, Debug)]
enum Color {
    Red,
    Green,
    Blue(u32),
}

fn color_of(n: u32) -> Color {
    match n {
        0 => Color::Red,
        1 => Color::Green,
        n => Color::Blue(n),
    }
}

static SCRUTINEE: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn asks_by_color(args: Args, cx: Cx) -> ToolResult {
    let first: Word = cx.elicit("First?").await?;
    let color = color_of(args.start);
    let mut log = vec![first.word];
    match counted(&color, &SCRUTINEE) {
        Color::Red => {
            let red: Word = cx.elicit("Red?").await?;
            log.push(format!("red {}", red.word));
        }
        Color::Blue(n) if *n > 5 => log.push("big blue".to_owned()),
        Color::Green | Color::Blue(_) => {
            log.push("green or blue".to_owned());
            let other: Word = cx.elicit("Other?").await?;
            log.push(format!("other {}", other.word));
            let more: Word = cx.elicit("More?").await?;
            log.push(format!("more {}", more.word));
        }
    }
    log.push(format!("{color:?}"));
    Ok(text(log.join(", ")))
}

#[tokio::test]
async fn a_question_in_the_first_arm_resumes_there() {
    let before = runs(&SCRUTINEE);
    let asked = FlowTester::tool(asks_by_color).arguments(args(0, &[]));
    let (keys, round) = run_keyed(asked, &[word("a"), word("r")]).await;
    assert_eq!(keys, ["first", "red"]);
    assert_eq!(round.text(), Some("a, red r, Red"));
    // Once, in the round that resumed at the first question, passing the `match`.
    assert_eq!(runs(&SCRUTINEE) - before, 1);
}

#[tokio::test]
async fn questions_in_a_later_arm_resume_there_and_a_guard_chooses_its_arm() {
    let before = runs(&SCRUTINEE);
    for (start, color) in [(1, "Green"), (2, "Blue(2)")] {
        let asked = FlowTester::tool(asks_by_color).arguments(args(start, &[]));
        let (keys, round) = run_keyed(asked, &[word("a"), word("o"), word("m")]).await;
        assert_eq!(keys, ["first", "other", "more"]);
        let done = format!("a, green or blue, other o, more m, {color}");
        assert_eq!(round.text(), Some(done.as_str()));
    }
    let asked = FlowTester::tool(asks_by_color).arguments(args(7, &[]));
    assert_eq!(finish(asked, &[word("a")]).await, "a, big blue, Blue(7)");
    // Once per run: never again where a round resumes inside the `match`.
    assert_eq!(runs(&SCRUTINEE) - before, 3);
}

static CHAIN: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn else_if_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut turn = 0_u32;
    loop {
        if counted(turn == args.start, &CHAIN) {
            log.push(format!("{turn}:skip"));
        } else if counted(turn.is_multiple_of(2), &CHAIN) {
            let even: Word = cx.elicit(format!("Even {turn}?")).await?;
            log.push(format!("{turn}:even {}", even.word));
        } else {
            let odd: Word = cx.elicit(format!("Odd {turn}?")).await?;
            log.push(format!("{turn}:odd {}", odd.word));
        }
        turn += 1;
        if turn == 4 {
            break;
        }
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn an_else_if_chain_in_a_loop_resumes_in_each_branch() {
    let before = runs(&CHAIN);
    let asked = FlowTester::tool(else_if_in_a_loop).arguments(args(1, &[]));
    let (keys, round) = run_keyed(asked, &[word("a"), word("b"), word("c")]).await;
    assert_eq!(keys, ["even", "even", "odd"]);
    assert_eq!(round.text(), Some("0:even a 1:skip 2:even b 3:odd c"));
    // Each condition once each time the loop reaches it: 2, 1, 2 and 2 over four turns.
    assert_eq!(runs(&CHAIN) - before, 7);
}

static LETS: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn if_let_chain(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    if let Some(item) = counted(args.items.first(), &LETS)
        && !item.is_empty()
    {
        let keep: Yes = cx.elicit("Keep?").await?;
        log.push(format!("keep {}", keep.ok));
    } else if counted(args.start == 0, &LETS) {
        log.push("none".to_owned());
    } else {
        let why: Word = cx.elicit("Why?").await?;
        log.push(format!("why {}", why.word));
    }
    log.push(format!("{} items", args.items.len()));
    Ok(text(log.join(", ")))
}

#[tokio::test]
async fn an_if_let_whose_binding_only_its_condition_reads_resumes_in_place() {
    let before = runs(&LETS);
    let asked = FlowTester::tool(if_let_chain).arguments(args(0, &["x"]));
    let (keys, round) = run_keyed(asked, &[yes(true)]).await;
    assert_eq!(keys, ["keep"]);
    assert_eq!(round.text(), Some("keep true, 1 items"));
    let asked = FlowTester::tool(if_let_chain).arguments(args(3, &[]));
    let (keys, round) = run_keyed(asked, &[word("w")]).await;
    assert_eq!(keys, ["why"]);
    assert_eq!(round.text(), Some("why w, 0 items"));
    let asked = FlowTester::tool(if_let_chain).arguments(args(0, &[]));
    assert_eq!(finish(asked, &[]).await, "none, 0 items");
    // The `if let` once and the `else if` once in the first run; both in the other two.
    assert_eq!(runs(&LETS) - before, 5);
}

static BOUND: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn arms_read_their_bindings(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mode = if args.start == 0 {
        Mode::Fast
    } else {
        Mode::Slow(args.start)
    };
    match counted(mode.clone(), &BOUND) {
        Mode::Slow(n) => {
            let slowly: Word = cx.elicit("Slowly?").await?;
            log.push(format!("{n} {}", slowly.word));
        }
        Mode::Fast => log.push("fast".to_owned()),
    }
    match counted(mode, &BOUND) {
        Mode::Slow(n) => log.push(format!("slow {n}")),
        Mode::Fast => {
            let fast: Word = cx.elicit("Fast?").await?;
            log.push(format!("fast {}", fast.word));
        }
    }
    Ok(text(log.join(", ")))
}

#[tokio::test]
async fn arms_that_read_what_their_pattern_binds_keep_a_copy_and_still_resume() {
    let before = runs(&BOUND);
    let asked = FlowTester::tool(arms_read_their_bindings).arguments(args(4, &[]));
    let (keys, round) = run_keyed(asked, &[word("s")]).await;
    assert_eq!(keys, ["slowly"]);
    assert_eq!(round.text(), Some("4 s, slow 4"));
    let asked = FlowTester::tool(arms_read_their_bindings).arguments(args(0, &[]));
    let (keys, round) = run_keyed(asked, &[word("f")]).await;
    assert_eq!(keys, ["fast"]);
    assert_eq!(round.text(), Some("fast, fast f"));
    // Each scrutinee once per run.
    assert_eq!(runs(&BOUND) - before, 4);
}

#[tool]
async fn ends_in_a_match(args: Args, cx: Cx) -> ToolResult {
    let color = color_of(args.start);
    let label = format!("{color:?}");
    match color {
        Color::Red => Ok(text(format!("{label} only"))),
        Color::Green | Color::Blue(_) => {
            let shade: Word = cx.elicit("Shade?").await?;
            Ok(text(format!("{label} {} {color:?}", shade.word)))
        }
    }
}

#[tokio::test]
async fn a_match_that_gives_the_body_its_value_resumes_in_its_arm() {
    let asked = FlowTester::tool(ends_in_a_match).arguments(args(1, &[]));
    assert_eq!(finish(asked, &[word("dark")]).await, "Green dark Green");
    let asked = FlowTester::tool(ends_in_a_match).arguments(args(0, &[]));
    assert_eq!(finish(asked, &[]).await, "Red only");
}

static TWO: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn two_matches_in_a_while(cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut turn = 0_u32;
    while turn < 3 {
        match counted(turn % 3, &TWO) {
            0 => {
                let a: Word = cx.elicit("A?").await?;
                log.push(format!("{turn}a {}", a.word));
            }
            1 => log.push(format!("{turn}-")),
            _ => {
                let b: Word = cx.elicit("B?").await?;
                log.push(format!("{turn}b {}", b.word));
            }
        }
        match counted(turn == 1, &TWO) {
            true => {
                let c: Word = cx.elicit("C?").await?;
                log.push(format!("{turn}c {}", c.word));
            }
            false => {}
        }
        turn += 1;
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn two_matches_in_a_loop_each_resume_in_their_own_arm() {
    let before = runs(&TWO);
    let asked = FlowTester::tool(two_matches_in_a_while);
    let (keys, round) = run_keyed(asked, &[word("x"), word("y"), word("z")]).await;
    assert_eq!(keys, ["a", "c", "b"]);
    assert_eq!(round.text(), Some("0a x 1- 1c y 2b z"));
    // Each scrutinee once per turn, over three turns.
    assert_eq!(runs(&TWO) - before, 6);
}
