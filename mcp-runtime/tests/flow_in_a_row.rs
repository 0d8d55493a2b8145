//! Several questions in a row inside one construct (a loop's body, an `if`, a match arm, a
//! block whose value is a `let`'s): they resume together from one copy of the construct's
//! block, and these check what that copy must keep: locals of the block that cross several
//! questions, locals of the blocks around it, `mut` locals changed between questions, items
//! of the block, a name declared again between questions, a local moved between them, and
//! code between questions run exactly once over all rounds. Each flow runs round by round
//! through the server's own dispatch.

#![allow(clippy::needless_pass_by_value)]
#![allow(
    clippy::needless_late_init,
    reason = "a late declaration between questions is one of the shapes under test"
)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, finish, word, yes};

/// How often each stretch of `loop_body_in_a_row` ran, over every round of every run.
static BEFORE_FIRST: AtomicUsize = AtomicUsize::new(0);
static BETWEEN: AtomicUsize = AtomicUsize::new(0);
static AFTER_LAST: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn loop_body_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let mut rounds = 0_u32;
    let mut log = Vec::new();
    while rounds < args.start {
        BEFORE_FIRST.fetch_add(1, Ordering::SeqCst);
        let label = format!("r{rounds}");
        let first: Word = cx.elicit("First?").await?;
        let mut joined = first.word;
        BETWEEN.fetch_add(1, Ordering::SeqCst);
        let second: Word = cx.elicit("Second?").await?;
        joined.push_str(&second.word);
        let more: Yes = cx.elicit("More?").await?;
        AFTER_LAST.fetch_add(1, Ordering::SeqCst);
        log.push(format!(
            "{label}={joined}{}",
            if more.ok { "+" } else { "" }
        ));
        rounds += 1;
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn a_loop_body_resumes_at_each_of_its_questions() {
    let counts = || [&BEFORE_FIRST, &BETWEEN, &AFTER_LAST].map(|c| c.load(Ordering::SeqCst));
    let before = counts();
    let done = answered(
        loop_body_in_a_row,
        args(2, &[]),
        &[
            word("a"),
            word("b"),
            yes(true),
            word("c"),
            word("d"),
            yes(false),
        ],
    )
    .await;
    assert_eq!(done, "r0=ab+ r1=cd");
    // Two iterations over seven rounds: each stretch ran once per iteration.
    let ran: Vec<usize> = counts().iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(ran, [2, 2, 2]);
}

#[tool]
async fn arm_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let prefix = args.items.join("+");
    let summary = match args.items.len() {
        0 => String::from("none"),
        count => {
            let name: Word = cx.elicit("Name?").await?;
            let shout: Yes = cx.elicit("Shout?").await?;
            let mut line = format!("{prefix}:{count}:{}", name.word);
            if shout.ok {
                line = line.to_uppercase();
            }
            let tail: Word = cx.elicit("Tail?").await?;
            line.push_str(&tail.word);
            line
        }
    };
    Ok(text(summary))
}

#[tokio::test]
async fn a_match_arm_keeps_its_pattern_and_the_locals_around_it() {
    let done = answered(
        arm_in_a_row,
        args(0, &["x", "y"]),
        &[word("ada"), yes(true), word("!")],
    )
    .await;
    assert_eq!(done, "X+Y:2:ADA!");
    let done = answered(arm_in_a_row, args(0, &[]), &[]).await;
    assert_eq!(done, "none");
}

#[tool]
async fn for_body_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for item in &args.items {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        let rename: Word = cx.elicit(format!("Rename {item}?")).await?;
        if keep.ok {
            kept.push(format!("{item}->{}", rename.word));
        }
    }
    Ok(text(kept.join(",")))
}

#[tokio::test]
async fn a_for_body_asks_twice_per_item() {
    let done = answered(
        for_body_in_a_row,
        args(0, &["ant", "bee", "cat"]),
        &[
            yes(true),
            word("A"),
            yes(false),
            word("B"),
            yes(true),
            word("C"),
        ],
    )
    .await;
    assert_eq!(done, "ant->A,cat->C");
}

#[tool]
async fn items_and_names_again_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let base = args.start;
    let out = if base > 0 {
        const STEP: u32 = 10;
        fn twice(n: u32) -> u32 {
            n * 2
        }
        let first: Word = cx.elicit("First?").await?;
        let inner = base + STEP;
        let second: Word = cx.elicit("Second?").await?;
        let inner = twice(inner) + u32::try_from(first.word.len() + second.word.len()).unwrap_or(0);
        let _third: Yes = cx.elicit("Third?").await?;
        format!("{inner} {}", twice(STEP))
    } else {
        String::from("zero")
    };
    Ok(text(format!("{out} / {base}")))
}

#[tokio::test]
async fn items_and_names_declared_again_inside_the_block() {
    let done = answered(
        items_and_names_again_in_a_row,
        args(1, &[]),
        &[word("ab"), word("cde"), yes(true)],
    )
    .await;
    assert_eq!(done, "27 20 / 1");
}

#[tool]
async fn moved_between(args: Args, cx: Cx) -> ToolResult {
    let note = args.items.join("/");
    let mut out = String::new();
    if args.start > 0 {
        let first: Word = cx.elicit("First?").await?;
        out.push_str(&first.word);
        let taken = note;
        let second: Word = cx.elicit("Second?").await?;
        out.push_str(&format!(" {taken} {}", second.word));
        let third: Word = cx.elicit("Third?").await?;
        out.push_str(&third.word);
    }
    Ok(text(out))
}

#[tokio::test]
async fn a_local_of_the_block_around_moved_between_two_questions() {
    let done = answered(
        moved_between,
        args(1, &["p", "q"]),
        &[word("1"), word("2"), word("3")],
    )
    .await;
    assert_eq!(done, "1 p/q 23");
}

#[tool]
async fn block_value_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let offset = args.start;
    let total = {
        let a: Word = cx.elicit("A?").await?;
        let mut sum = a.word.len();
        let b: Word = cx.elicit("B?").await?;
        sum += b.word.len();
        let c: Word = cx.elicit("C?").await?;
        sum + c.word.len() + offset as usize
    };
    let sure: Yes = cx.elicit("Sure?").await?;
    Ok(text(format!("{total} {}", sure.ok)))
}

#[tokio::test]
async fn a_block_whose_value_crosses_its_questions() {
    let done = answered(
        block_value_in_a_row,
        args(100, &[]),
        &[word("a"), word("bb"), word("ccc"), yes(true)],
    )
    .await;
    assert_eq!(done, "106 true");
}

#[tool]
async fn loop_inside_if_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let mut words = Vec::new();
    if let Some(first) = args.items.first() {
        let mut n = 0;
        loop {
            let one: Word = cx.elicit("One?").await?;
            let two: Word = cx.elicit("Two?").await?;
            words.push(format!("{first}{n}:{}{}", one.word, two.word));
            n += 1;
            let again: Yes = cx.elicit("Again?").await?;
            if !again.ok {
                break;
            }
        }
    }
    Ok(text(words.join(" ")))
}

#[tokio::test]
async fn a_loop_inside_an_if_let_asks_in_a_row() {
    let done = answered(
        loop_inside_if_in_a_row,
        args(0, &["z"]),
        &[
            word("a"),
            word("b"),
            yes(true),
            word("c"),
            word("d"),
            yes(false),
        ],
    )
    .await;
    assert_eq!(done, "z0:ab z1:cd");
}

#[tool]
async fn literal_declared_between(args: Args, cx: Cx) -> ToolResult {
    let zone = "outer";
    let mut out = Vec::new();
    if args.start > 0 {
        let first: Word = cx.elicit("First?").await?;
        out.push(format!("{zone}{}", first.word));
        let zone = "inner";
        let second: Word = cx.elicit("Second?").await?;
        out.push(format!("{zone}{}", second.word));
    }
    out.push(zone.to_owned());
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_literal_declared_between_two_questions_keeps_its_place() {
    let done = answered(
        literal_declared_between,
        args(1, &[]),
        &[word("1"), word("2")],
    )
    .await;
    assert_eq!(done, "outer1 inner2 outer");
}

#[tool]
async fn guarded_arm_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let first = args.items.first();
    let out = match first {
        Some(name) if name.len() > 1 => {
            let a: Word = cx.elicit(format!("A for {name}?")).await?;
            let b: Word = cx.elicit("B?").await?;
            format!("{name}:{}{}", a.word, b.word)
        }
        Some(name) => format!("short {name}"),
        None => String::from("none"),
    };
    Ok(text(out))
}

#[tokio::test]
async fn a_guarded_arm_that_borrows_asks_in_a_row() {
    let done = answered(
        guarded_arm_in_a_row,
        args(0, &["ant"]),
        &[word("1"), word("2")],
    )
    .await;
    assert_eq!(done, "ant:12");
}

#[tool]
async fn while_let_stack_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let mut stack = args.items.clone();
    let mut out = Vec::new();
    'outer: while let Some(top) = stack.pop() {
        let keep: Yes = cx.elicit(format!("Keep {top}?")).await?;
        if !keep.ok {
            continue 'outer;
        }
        let name: Word = cx.elicit("Name?").await?;
        if name.word == "stop" {
            break;
        }
        let label: String;
        let third: Word = cx.elicit("Third?").await?;
        label = format!("{top}={}{}", name.word, third.word);
        out.push(label);
    }
    Ok(text(format!("{} left {}", out.join(","), stack.len())))
}

#[tokio::test]
async fn a_while_let_body_with_continue_break_and_a_late_declaration() {
    let done = answered(
        while_let_stack_in_a_row,
        args(0, &["a", "b", "c"]),
        &[
            yes(true),
            word("x"),
            word("1"),
            yes(false),
            yes(true),
            word("stop"),
        ],
    )
    .await;
    assert_eq!(done, "c=x1 left 0");
}

#[tool]
async fn loops_within_loops(args: Args, cx: Cx) -> ToolResult {
    let mut grid = Vec::new();
    for row in 0..args.start {
        let mut cells = Vec::new();
        for item in &args.items {
            let a: Word = cx.elicit(format!("{row} {item} a?")).await?;
            let b: Word = cx.elicit(format!("{row} {item} b?")).await?;
            cells.push(format!("{}{}", a.word, b.word));
        }
        let done: Yes = cx.elicit(format!("Row {row} done?")).await?;
        let mark = if done.ok { "." } else { "?" };
        grid.push(format!("{}{mark}", cells.join("|")));
    }
    Ok(text(grid.join(" / ")))
}

#[tokio::test]
async fn questions_in_a_row_in_nested_loops() {
    let done = answered(
        loops_within_loops,
        args(2, &["p", "q"]),
        &[
            word("1"),
            word("2"),
            word("3"),
            word("4"),
            yes(true),
            word("5"),
            word("6"),
            word("7"),
            word("8"),
            yes(false),
        ],
    )
    .await;
    assert_eq!(done, "12|34. / 56|78?");
}

#[tool]
async fn early_return_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let mut total = args.start;
    if total > 0 {
        let a: Yes = cx.elicit("A?").await?;
        if !a.ok {
            return Ok(text(format!("early {total}")));
        }
        total += 1;
        let b: Yes = cx.elicit("B?").await?;
        if !b.ok {
            return Ok(text(format!("later {total}")));
        }
        total += 10;
    }
    Ok(text(format!("end {total}")))
}

#[tokio::test]
async fn returns_between_questions_in_a_row() {
    let tester = || FlowTester::tool(early_return_in_a_row).arguments(args(1, &[]));
    assert_eq!(finish(tester(), &[yes(false)]).await, "early 1");
    assert_eq!(finish(tester(), &[yes(true), yes(false)]).await, "later 2");
    assert_eq!(finish(tester(), &[yes(true), yes(true)]).await, "end 12");
}

#[tool]
async fn items_of_the_body_are_one(args: Args, cx: Cx) -> ToolResult {
    #[derive(Debug, serde::Serialize, serde::Deserialize)]
    struct Acc {
        n: u32,
        names: Vec<String>,
    }
    static ASKED: AtomicUsize = AtomicUsize::new(0);
    let mut acc = Acc {
        n: 0,
        names: Vec::new(),
    };
    while acc.n < args.start {
        let w: Word = cx.elicit("Name?").await?;
        ASKED.fetch_add(1, Ordering::SeqCst);
        acc = Acc {
            n: acc.n + 1,
            names: {
                let mut names = acc.names;
                names.push(w.word);
                names
            },
        };
        if acc.n > 1 {
            #[derive(serde::Serialize, serde::Deserialize)]
            struct Mark(u32);
            let mark = Mark(acc.n);
            let _sure: Yes = cx.elicit("Sure?").await?;
            let Mark(seen) = mark;
            acc.n += seen * 10;
        }
    }
    Ok(text(format!(
        "{:?} {}",
        acc.names,
        ASKED.load(Ordering::SeqCst)
    )))
}

#[tokio::test]
async fn a_struct_and_a_static_of_the_body_are_the_same_in_every_round() {
    let done = answered(
        items_of_the_body_are_one,
        args(3, &[]),
        &[word("a"), word("b"), yes(true)],
    )
    .await;
    assert_eq!(done, "[\"a\", \"b\"] 2");
}
