//! Ordinary Rust around questions that resume in place, each checked round by round against
//! what the code as written does: `continue` and a labelled `break` past a question, a loop
//! that breaks with a value, an early `return` from a `while let`, `if`s nested in a loop with
//! locals declared before and read after, a condition with a side effect, a local hidden in a
//! branch, a `match` on a unit enum that breaks out of its loop, an `else if` chain in a `for`,
//! a `while` whose condition reads what a question changed, two questions in one branch with a
//! fallible call between, a question as an `if`'s condition, a block that gives a value, a
//! `let` given its value in both branches, and a local moved away and given a new value in a
//! loop's branch. Conditions count their runs where running one twice would show.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::AtomicUsize;

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, args, counted, finish, runs, word, yes};

static SKIPPED: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn continues_past_a_question(cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut i = 0_u32;
    while i < 4 {
        i += 1;
        if counted(i == 2, &SKIPPED) {
            continue;
        }
        if i % 2 == 1 {
            let w: Word = cx.elicit(format!("W{i}?")).await?;
            log.push(format!("{i}{}", w.word));
        }
        log.push(format!("e{i}"));
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn continue_skips_the_rest_of_an_iteration_and_the_loop_goes_on() {
    let before = runs(&SKIPPED);
    let text = finish(
        FlowTester::tool(continues_past_a_question),
        &[word("a"), word("b")],
    )
    .await;
    assert_eq!(text, "1a e1 3b e3 e4");
    assert_eq!(runs(&SKIPPED) - before, 4);
}

#[tool]
async fn labelled(cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    'outer: for a in 0..3_u32 {
        let mut b = 0_u32;
        loop {
            b += 1;
            if b == 2 {
                let y: Yes = cx.elicit(format!("stop at {a}?")).await?;
                if y.ok {
                    break 'outer;
                }
                break;
            }
            log.push(format!("{a}.{b}"));
        }
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn a_labelled_break_after_a_question_leaves_both_loops() {
    let text = finish(FlowTester::tool(labelled), &[yes(false), yes(true)]).await;
    assert_eq!(text, "0.1 1.1");
}

#[tool]
async fn break_value(args: Args, cx: Cx) -> ToolResult {
    let mut n = args.start;
    let found = loop {
        n += 1;
        if n.is_multiple_of(3) {
            let y: Yes = cx.elicit(format!("take {n}?")).await?;
            if y.ok {
                break n;
            }
        }
    };
    Ok(text(format!("{found}")))
}

#[tokio::test]
async fn a_loop_breaks_with_a_value_chosen_by_an_answer() {
    let tester = FlowTester::tool(break_value).arguments(args(1, &[]));
    assert_eq!(finish(tester, &[yes(false), yes(true)]).await, "6");
}

#[tool]
async fn early(args: Args, cx: Cx) -> ToolResult {
    let mut left = args.items.clone();
    let mut kept = Vec::new();
    while let Some(item) = left.pop() {
        if item.starts_with('x') {
            let y: Yes = cx.elicit(format!("keep {item}?")).await?;
            if !y.ok {
                return Ok(text(format!("stopped at {item} with {}", kept.join(","))));
            }
        }
        kept.push(item);
    }
    Ok(text(kept.join(",")))
}

#[tokio::test]
async fn an_early_return_from_a_while_let() {
    let tester = FlowTester::tool(early).arguments(args(0, &["a", "xb", "c", "xd"]));
    let text = finish(tester, &[yes(true), yes(false)]).await;
    assert_eq!(text, "stopped at xb with xd,c");
}

static OUTER: AtomicUsize = AtomicUsize::new(0);
static INNER: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn nested(args: Args, cx: Cx) -> ToolResult {
    let mut total = 0_u32;
    let mut log = Vec::new();
    for round in 0..3_u32 {
        let base = round * 10 + args.start;
        if counted(round > 0, &OUTER) {
            total += 1;
            let w: Word = cx.elicit(format!("outer {round}?")).await?;
            if counted(w.word.len() > 1, &INNER) {
                total += 100;
                let v: Word = cx.elicit(format!("inner {round} {base}?")).await?;
                log.push(format!("{base}:{}", v.word));
            }
            total += u32::try_from(w.word.len()).unwrap_or(0);
        }
        log.push(format!("r{round}b{base}"));
    }
    Ok(text(format!("{total} {}", log.join(" "))))
}

#[tokio::test]
async fn ifs_nested_in_a_loop_keep_the_locals_declared_before_them() {
    let (outer, inner) = (runs(&OUTER), runs(&INNER));
    let tester = FlowTester::tool(nested).arguments(args(5, &[]));
    let text = finish(tester, &[word("ab"), word("q"), word("z")]).await;
    assert_eq!(text, "105 r0b5 15:q r1b15 r2b25");
    assert_eq!(runs(&OUTER) - outer, 3);
    assert_eq!(runs(&INNER) - inner, 2);
}

static POPPED: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn side_effect(args: Args, cx: Cx) -> ToolResult {
    let mut stack = args.items.clone();
    let mut log = Vec::new();
    loop {
        if counted(stack.pop().is_some(), &POPPED) {
            let w: Word = cx.elicit(format!("left {}?", stack.len())).await?;
            log.push(w.word);
        } else {
            break;
        }
    }
    Ok(text(format!("{} {}", log.join(","), stack.len())))
}

#[tokio::test]
async fn a_condition_that_pops_runs_once_per_iteration() {
    let before = runs(&POPPED);
    let tester = FlowTester::tool(side_effect).arguments(args(0, &["a", "b"]));
    assert_eq!(finish(tester, &[word("p"), word("q")]).await, "p,q 0");
    assert_eq!(runs(&POPPED) - before, 3);
}

#[tool]
async fn shadow_in_branch(args: Args, cx: Cx) -> ToolResult {
    let x = args.start;
    let mut out = Vec::new();
    if x > 0 {
        let x = x + 1;
        let w: Word = cx.elicit(format!("x is {x}?")).await?;
        out.push(format!("{x}{}", w.word));
    }
    out.push(format!("{x}"));
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_local_hidden_in_a_branch_is_seen_again_after_it() {
    let tester = FlowTester::tool(shadow_in_branch).arguments(args(4, &[]));
    assert_eq!(finish(tester, &[word("k")]).await, "5k 4");
}

/// What a step of the plan does; carried, as the plan is, so serialisable.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
enum Step {
    Ask,
    Skip,
    Done,
}

#[tool]
async fn matcher(cx: Cx) -> ToolResult {
    let plan = [Step::Skip, Step::Ask, Step::Ask, Step::Done, Step::Ask];
    let mut log = Vec::new();
    let mut i = 0;
    loop {
        match plan[i] {
            Step::Ask => {
                let w: Word = cx.elicit(format!("step {i}?")).await?;
                log.push(w.word);
            }
            Step::Skip => log.push("-".to_owned()),
            Step::Done => break,
        }
        i += 1;
    }
    Ok(text(log.join(",")))
}

#[tokio::test]
async fn a_match_on_a_unit_enum_in_a_loop_breaks_out_of_it() {
    let text = finish(FlowTester::tool(matcher), &[word("a"), word("b")]).await;
    assert_eq!(text, "-,a,b");
}

#[tool]
async fn chain(args: Args, cx: Cx) -> ToolResult {
    let mut score = args.start;
    let mut names = Vec::new();
    for item in &args.items {
        if item.len() == 1 {
            score += 1;
        } else if item.len() == 2 {
            let w: Word = cx.elicit(format!("two {item}?")).await?;
            names.push(w.word);
            score += 10;
        } else {
            let w: Word = cx.elicit(format!("more {item}?")).await?;
            names.push(format!("{}!", w.word));
            score += 100;
        }
    }
    Ok(text(format!("{score} {}", names.join(","))))
}

#[tokio::test]
async fn an_else_if_chain_in_a_for_loop() {
    let tester = FlowTester::tool(chain).arguments(args(0, &["a", "bb", "ccc", "d", "ee"]));
    let text = finish(tester, &[word("1"), word("2"), word("3")]).await;
    assert_eq!(text, "122 1,2!,3");
}

static BUDGET: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn while_cond(args: Args, cx: Cx) -> ToolResult {
    let mut budget = args.start;
    let mut spent = Vec::new();
    while counted(budget > 0, &BUDGET) {
        let w: Word = cx.elicit(format!("budget {budget}?")).await?;
        budget = budget.saturating_sub(u32::try_from(w.word.len()).unwrap_or(0));
        spent.push(w.word);
    }
    Ok(text(format!("{} left {budget}", spent.join("+"))))
}

#[tokio::test]
async fn a_while_condition_reads_what_the_answer_changed() {
    let before = runs(&BUDGET);
    let tester = FlowTester::tool(while_cond).arguments(args(4, &[]));
    let text = finish(tester, &[word("ab"), word("c"), word("de")]).await;
    assert_eq!(text, "ab+c+de left 0");
    assert_eq!(runs(&BUDGET) - before, 4);
}

fn parse(s: &str) -> Result<u32, std::num::ParseIntError> {
    s.parse::<u32>()
}

#[tool]
async fn two_in_branch(args: Args, cx: Cx) -> ToolResult {
    let mut sum = 0;
    if args.start > 0 {
        let a: Word = cx.elicit("a?").await?;
        let n = parse(&a.word)?;
        let label = format!("n{n}");
        let b: Word = cx.elicit(format!("b after {label}?")).await?;
        sum += n + parse(&b.word)?;
        return Ok(text(format!("{label} {sum}")));
    }
    Ok(text(format!("none {sum}")))
}

#[tokio::test]
async fn two_questions_in_one_branch_with_a_fallible_call_between() {
    let tester = FlowTester::tool(two_in_branch).arguments(args(1, &[]));
    assert_eq!(finish(tester, &[word("4"), word("5")]).await, "n4 9");
}

#[tool]
async fn cond_question(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in &args.items {
        if cx.elicit::<Yes>(format!("keep {item}?")).await?.ok {
            out.push(item.clone());
        }
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_question_as_an_if_condition_in_a_for_loop() {
    let tester = FlowTester::tool(cond_question).arguments(args(0, &["a", "b", "c"]));
    let text = finish(tester, &[yes(true), yes(false), yes(true)]).await;
    assert_eq!(text, "a,c");
}

#[tool]
async fn block_value(args: Args, cx: Cx) -> ToolResult {
    let mut total = 0;
    let mut round = 0;
    while round < args.start {
        let len = {
            let w: Word = cx.elicit(format!("r{round}?")).await?;
            w.word.len()
        };
        total += len;
        round += 1;
    }
    Ok(text(format!("{total}")))
}

#[tokio::test]
async fn a_block_gives_its_value_after_a_question_in_a_loop() {
    let tester = FlowTester::tool(block_value).arguments(args(2, &[]));
    assert_eq!(finish(tester, &[word("abc"), word("de")]).await, "5");
}

#[tool]
#[allow(clippy::needless_late_init, reason = "the shape under test")]
async fn late_init(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for k in 0..args.start {
        let picked: String;
        if k % 2 == 0 {
            let w: Word = cx.elicit(format!("even {k}?")).await?;
            picked = w.word;
        } else {
            let y: Yes = cx.elicit(format!("odd {k}?")).await?;
            picked = format!("{}", y.ok);
        }
        out.push(picked);
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_let_given_its_value_in_both_branches_in_a_loop() {
    let tester = FlowTester::tool(late_init).arguments(args(3, &[]));
    let text = finish(tester, &[word("x"), yes(true), word("z")]).await;
    assert_eq!(text, "x,true,z");
}

#[tool]
async fn break_in_arm(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    let mut k = 0_u32;
    loop {
        match k % 3 {
            0 => {
                let y: Yes = cx.elicit(format!("go on at {k}?")).await?;
                if !y.ok {
                    break;
                }
                out.push(format!("y{k}"));
            }
            _ => out.push(format!("n{k}")),
        }
        k += 1;
        if k > args.start {
            break;
        }
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_break_after_a_question_in_a_match_arm() {
    let tester = FlowTester::tool(break_in_arm).arguments(args(10, &[]));
    let text = finish(tester, &[yes(true), yes(true), yes(false)]).await;
    assert_eq!(text, "y0,n1,n2,y3,n4,n5");
}

#[tool]
async fn moved_again(args: Args, cx: Cx) -> ToolResult {
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for item in &args.items {
        if item == "|" {
            batches.push(current);
            let first: Word = cx.elicit("First item of the new batch?").await?;
            current = vec![first.word];
        } else {
            current.push(item.clone());
        }
    }
    batches.push(current);
    Ok(text(format!("{batches:?}")))
}

#[tokio::test]
async fn a_local_moved_and_given_a_new_value_in_a_loops_branch() {
    let tester = FlowTester::tool(moved_again).arguments(args(0, &["a", "|", "b", "|", "c"]));
    let text = finish(tester, &[word("p"), word("q")]).await;
    assert_eq!(text, r#"[["a"], ["p", "b"], ["q", "c"]]"#);
}
