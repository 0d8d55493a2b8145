//! Questions inside an `if`, a `loop`, a `while` or a block among a handler's statements,
//! resumed where they stand: each condition runs once each time the code as written reaches
//! it and never again on a resume, and a loop's later iterations run as written. Beside them,
//! the shapes whose statement is copied for each question instead (a local moved before a
//! question and given a new value after it, an `if let` whose block reads what it binds, a
//! local the question's block reads only before it) behave the same; the `match` beside them
//! resumes in place (see `flow_in_place_match.rs`). Each flow runs round by round through the
//! server's own dispatch; each condition counts its runs.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::AtomicUsize;

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, args, counted, finish, run_keyed, runs, word, yes};

static SOME_ROUNDS: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn asks_some_rounds(cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut round = 0_u32;
    loop {
        if counted(round != 1, &SOME_ROUNDS) {
            let word: Word = cx.elicit(format!("Word {round}?")).await?;
            log.push(format!("{round}:{}", word.word));
        }
        round += 1;
        if round == 3 {
            break;
        }
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn a_question_in_an_if_in_a_loop_resumes_at_the_first_and_a_later_iteration() {
    let before = runs(&SOME_ROUNDS);
    let (keys, round) = run_keyed(
        FlowTester::tool(asks_some_rounds),
        &[word("ant"), word("bee")],
    )
    .await;
    assert_eq!(keys, ["word", "word"]);
    assert_eq!(round.text(), Some("0:ant 2:bee"));
    // Once per iteration over all three rounds: never again where a round resumes.
    assert_eq!(runs(&SOME_ROUNDS) - before, 3);
}

static PARITY: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn either_branch(args: Args, cx: Cx) -> ToolResult {
    let label = format!("#{}", args.start);
    let mut seen = Vec::new();
    if counted(args.start.is_multiple_of(2), &PARITY) {
        let even: Word = cx.elicit("Even?").await?;
        seen.push(format!("even {}", even.word));
    } else {
        let odd: Word = cx.elicit("Odd?").await?;
        seen.push(format!("odd {}", odd.word));
        let more: Word = cx.elicit("More?").await?;
        seen.push(format!("more {}", more.word));
    }
    seen.push(label);
    Ok(text(seen.join(", ")))
}

#[tokio::test]
async fn questions_in_the_else_branch_resume_there() {
    let before = runs(&PARITY);
    let (keys, round) = run_keyed(
        FlowTester::tool(either_branch).arguments(args(3, &[])),
        &[word("x"), word("y")],
    )
    .await;
    assert_eq!(keys, ["odd", "more"]);
    assert_eq!(round.text(), Some("odd x, more y, #3"));
    let (keys, round) = run_keyed(
        FlowTester::tool(either_branch).arguments(args(4, &[])),
        &[word("z")],
    )
    .await;
    assert_eq!(keys, ["even"]);
    assert_eq!(round.text(), Some("even z, #4"));
    // Once per run, whichever branch it took.
    assert_eq!(runs(&PARITY) - before, 2);
}

static SECOND: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn first_then_maybe_second(cx: Cx) -> ToolResult {
    let first: Yes = cx.elicit("First?").await?;
    let mut log = vec![format!("first {}", first.ok)];
    if counted(first.ok, &SECOND) {
        let second: Word = cx.elicit("Second?").await?;
        log.push(second.word);
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn resuming_at_an_earlier_point_runs_the_condition_of_a_later_one_as_written() {
    let before = runs(&SECOND);
    let asked = FlowTester::tool(first_then_maybe_second);
    assert_eq!(finish(asked, &[yes(true), word("w")]).await, "first true w");
    let asked = FlowTester::tool(first_then_maybe_second);
    assert_eq!(finish(asked, &[yes(false)]).await, "first false");
    // Once in each run, in the round that resumed at the first question.
    assert_eq!(runs(&SECOND) - before, 2);
}

static WHILE: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn while_and_block(args: Args, cx: Cx) -> ToolResult {
    let mut total = String::new();
    let mut n = 0_u32;
    while counted(n < args.start, &WHILE) {
        let part: Word = cx.elicit(format!("Part {n}?")).await?;
        total.push_str(&part.word);
        n += 1;
    }
    {
        let last: Word = cx.elicit("Last?").await?;
        total.push_str(&last.word);
    }
    Ok(text(format!("{n} {total}")))
}

#[tokio::test]
async fn a_while_loop_runs_its_condition_once_per_time_round() {
    let before = runs(&WHILE);
    let asked = FlowTester::tool(while_and_block).arguments(args(3, &[]));
    let done = finish(asked, &[word("a"), word("b"), word("c"), word("z")]).await;
    assert_eq!(done, "3 abcz");
    // Three times true, once false.
    assert_eq!(runs(&WHILE) - before, 4);
}

static MOVED: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn moved_in_a_loop(cx: Cx) -> ToolResult {
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut current = vec![String::from("start")];
    let mut round = 0_u32;
    loop {
        if counted(round < 2, &MOVED) {
            batches.push(current);
            let first: Word = cx.elicit("First item of the new batch?").await?;
            current = vec![first.word];
        }
        round += 1;
        if round == 3 {
            break;
        }
    }
    batches.push(current);
    Ok(text(format!("{batches:?}")))
}

static PICKED: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn match_and_if_let_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut turn = 0_usize;
    loop {
        if let Some(item) = args.items.get(turn).cloned() {
            let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
            if keep.ok {
                log.push(item);
            }
        }
        match counted(turn < 1, &PICKED) {
            true => {
                let pick: Word = cx.elicit("Pick?").await?;
                log.push(pick.word);
            }
            false => break,
        }
        turn += 1;
    }
    Ok(text(log.join(" ")))
}

static NOTE: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn read_only_before_the_question(args: Args, cx: Cx) -> ToolResult {
    let note = format!("n{}", args.start);
    let mut log = Vec::new();
    if counted(args.start > 0, &NOTE) {
        log.push(note);
        let word: Word = cx.elicit("Word?").await?;
        log.push(word.word);
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn shapes_whose_statement_is_copied_per_question_still_resume() {
    let before = runs(&MOVED);
    let asked = FlowTester::tool(moved_in_a_loop);
    let done = finish(asked, &[word("a"), word("b")]).await;
    assert_eq!(done, r#"[["start"], ["a"], ["b"]]"#);
    assert_eq!(runs(&MOVED) - before, 3);

    let before = runs(&PICKED);
    let asked = FlowTester::tool(match_and_if_let_in_a_loop).arguments(args(0, &["ant"]));
    let (keys, round) = run_keyed(asked, &[yes(true), word("p")]).await;
    assert_eq!(keys, ["keep", "pick"]);
    assert_eq!(round.text(), Some("ant p"));
    // Once per time round the loop: true, then false.
    assert_eq!(runs(&PICKED) - before, 2);

    let before = runs(&NOTE);
    let asked = FlowTester::tool(read_only_before_the_question).arguments(args(7, &[]));
    assert_eq!(finish(asked, &[word("w")]).await, "n7 w");
    assert_eq!(runs(&NOTE) - before, 1);
}
