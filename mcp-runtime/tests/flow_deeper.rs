//! Questions one construct deeper inside a block (a loop's body of `if`s, a `match` whose
//! arms ask in a row, a block whose value an `if` gives): they resume together from one copy
//! of that block, in which each construct holding a question is copied alone. These check
//! what the copies must keep: the block's locals brought out of a construct to the code
//! after it, locals of the blocks around, `break` and `continue` from inside a copy, a loop
//! inside the block, a local moved between questions, and code between questions run
//! exactly once over all rounds. Each flow runs round by round through the server's own
//! dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

/// How often each stretch of `ifs_in_a_loop` ran, over every round of every run.
static TOP: AtomicUsize = AtomicUsize::new(0);
static MIDDLE: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn ifs_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let mut round = 0_u32;
    while round < args.start {
        let label = format!("r{round}");
        TOP.fetch_add(1, Ordering::SeqCst);
        if round.is_multiple_of(2) {
            let first: Word = cx.elicit("First?").await?;
            log.push(format!("{label}:{}", first.word));
        }
        MIDDLE.fetch_add(1, Ordering::SeqCst);
        let mut extra = String::new();
        if let Some(item) = args.items.get(round as usize).cloned() {
            let second: Word = cx.elicit(format!("Second for {item}?")).await?;
            extra.push_str(&second.word);
        }
        if !extra.is_empty() {
            let loud: Yes = cx.elicit("Loud?").await?;
            if loud.ok {
                extra = extra.to_uppercase();
            }
        }
        END.fetch_add(1, Ordering::SeqCst);
        log.push(format!("{label}+{extra}"));
        round += 1;
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn ifs_in_a_loop_body_resume_at_each_question_and_run_each_stretch_once() {
    let counts = || [&TOP, &MIDDLE, &END].map(|c| c.load(Ordering::SeqCst));
    let before = counts();
    let done = answered(
        ifs_in_a_loop,
        args(3, &["x", "y"]),
        &[
            word("a"),
            word("b"),
            yes(true),
            // Round 1 is odd: no first question.
            word("c"),
            yes(false),
            // Round 2 has no item: neither second nor loud.
            word("d"),
        ],
    )
    .await;
    assert_eq!(done, "r0:a r0+B r1+c r2:d r2+");
    // Three iterations over seven rounds: each stretch ran once per iteration.
    let ran: Vec<usize> = counts().iter().zip(before).map(|(a, b)| a - b).collect();
    assert_eq!(ran, [3, 3, 3]);
}

#[tool]
async fn arms_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in &args.items {
        let tag = match item.len() {
            1 => {
                let a: Word = cx.elicit(format!("A for {item}?")).await?;
                let b: Word = cx.elicit("B?").await?;
                format!("{}{}", a.word, b.word)
            }
            _ => {
                let c: Yes = cx.elicit("C?").await?;
                if c.ok {
                    item.to_uppercase()
                } else {
                    item.clone()
                }
            }
        };
        out.push(format!("{item}={tag}"));
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn arms_asking_in_a_row_inside_a_loop_bring_their_value_out() {
    let done = answered(
        arms_in_a_loop,
        args(0, &["p", "long", "q", "xs"]),
        &[
            word("1"),
            word("2"),
            yes(true),
            word("3"),
            word("4"),
            yes(false),
        ],
    )
    .await;
    assert_eq!(done, "p=12,long=LONG,q=34,xs=xs");
}

#[tool]
async fn value_of_a_block(args: Args, cx: Cx) -> ToolResult {
    let mut picked = Vec::new();
    let mut n = 0;
    loop {
        n += 1;
        if n > args.start {
            break;
        }
        let skip: Yes = cx.elicit(format!("Skip {n}?")).await?;
        if skip.ok {
            continue;
        }
        let word = {
            let base = format!("#{n}");
            if n.is_multiple_of(2) {
                let even: Word = cx.elicit("Even?").await?;
                format!("{base}{}", even.word)
            } else {
                let odd: Word = cx.elicit("Odd?").await?;
                if odd.word == "stop" {
                    break;
                }
                format!("{base}{}", odd.word)
            }
        };
        picked.push(word);
    }
    Ok(text(picked.join(" ")))
}

#[tokio::test]
async fn a_block_whose_value_an_if_of_questions_gives_breaks_and_continues() {
    let done = answered(
        value_of_a_block,
        args(4, &[]),
        &[
            yes(false),
            word("a"),
            yes(true),
            yes(false),
            word("c"),
            yes(false),
            word("d"),
        ],
    )
    .await;
    assert_eq!(done, "#1a #3c #4d");
    let done = answered(
        value_of_a_block,
        args(4, &[]),
        &[
            yes(false),
            word("a"),
            yes(false),
            word("b"),
            yes(false),
            word("stop"),
        ],
    )
    .await;
    assert_eq!(done, "#1a #2b");
}

#[tool]
async fn loop_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    let mut pass = 0;
    while pass < args.start {
        pass += 1;
        let mut seen = 0;
        for item in &args.items {
            let keep: Yes = cx.elicit(format!("Keep {item} in pass {pass}?")).await?;
            if keep.ok {
                seen += 1;
                kept.push(format!("{pass}{item}"));
            }
        }
        if seen == 0 {
            let why: Word = cx.elicit("Why none?").await?;
            kept.push(why.word);
        }
    }
    Ok(text(kept.join(",")))
}

#[tokio::test]
async fn a_loop_inside_a_loop_body_keeps_its_place_and_the_count_after_it() {
    let done = answered(
        loop_in_a_loop,
        args(3, &["x", "y"]),
        &[
            yes(true),
            yes(false),
            yes(false),
            yes(false),
            word("none"),
            yes(false),
            yes(true),
        ],
    )
    .await;
    assert_eq!(done, "1x,none,3y");
}

#[tool]
async fn moved_between(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in &args.items {
        let mut note = format!("{item}:");
        if item.len() > 1 {
            let first: Word = cx.elicit("First?").await?;
            note.push_str(&first.word);
        }
        out.push(note);
        let mut note = String::from("then");
        if item.len() > 2 {
            let second: Word = cx.elicit("Second?").await?;
            note.push_str(&second.word);
        }
        out.push(note);
    }
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_local_moved_and_declared_again_between_questions_keeps_each_value() {
    let done = answered(
        moved_between,
        args(0, &["a", "bb", "ccc"]),
        &[word("1"), word("2"), word("3")],
    )
    .await;
    assert_eq!(done, "a: then bb:1 then ccc:2 then3");
}

#[tool]
async fn labelled_break(args: Args, cx: Cx) -> ToolResult {
    let mut seen = Vec::new();
    'outer: for item in &args.items {
        let mut tries = 0;
        loop {
            tries += 1;
            if tries > 2 {
                break;
            }
            let stop: Yes = cx.elicit(format!("Stop at {item}, try {tries}?")).await?;
            if stop.ok {
                seen.push(format!("{item}!"));
                break 'outer;
            }
        }
        if item.starts_with('k') {
            let note: Word = cx.elicit("Note?").await?;
            seen.push(note.word);
        }
        seen.push(format!("{item}/{tries}"));
    }
    Ok(text(seen.join(" ")))
}

#[tokio::test]
async fn a_labelled_break_leaves_both_loops_from_inside_a_copy() {
    let done = answered(
        labelled_break,
        args(0, &["a", "k", "b", "c"]),
        &[
            yes(false),
            yes(false),
            yes(false),
            yes(false),
            word("n"),
            yes(false),
            yes(true),
        ],
    )
    .await;
    assert_eq!(done, "a/3 n k/3 b!");
}

#[tool]
async fn stack_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    let mut pass = 0;
    while pass < args.start {
        pass += 1;
        let mut stack: Vec<String> = args.items.clone();
        while let Some(top) = stack.pop() {
            let take: Yes = cx.elicit(format!("Take {top}?")).await?;
            if take.ok {
                out.push(format!("{pass}{top}"));
            }
        }
        match out.len() {
            0 => {
                let why: Word = cx.elicit("Why?").await?;
                out.push(why.word);
            }
            n if n > 2 => {
                let cut: Yes = cx.elicit("Cut?").await?;
                if cut.ok {
                    out.truncate(2);
                }
            }
            _ => {}
        }
    }
    Ok(text(out.join(",")))
}

#[tokio::test]
async fn a_while_let_and_a_match_of_questions_share_a_loop_body() {
    let done = answered(
        stack_in_a_loop,
        args(3, &["x", "y"]),
        &[
            // Pass 1 pops y, then x.
            yes(false),
            yes(false),
            word("none"),
            // Pass 2.
            yes(true),
            yes(true),
            yes(false),
            // Pass 3.
            yes(true),
            yes(false),
            yes(true),
        ],
    )
    .await;
    assert_eq!(done, "none,2y");
}

#[tool]
async fn nested_ifs_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for (n, item) in args.items.iter().enumerate() {
        let mut line = item.clone();
        if n.is_multiple_of(2) {
            let mut marks = 0;
            if item.len() > 1 {
                let a: Yes = cx.elicit("A?").await?;
                if a.ok {
                    marks += 1;
                }
            }
            if item.len() > 2 {
                let b: Yes = cx.elicit("B?").await?;
                if b.ok {
                    marks += 10;
                }
            }
            line = format!("{line}#{marks}");
        }
        if line.ends_with('0') {
            let c: Word = cx.elicit("C?").await?;
            line.push_str(&c.word);
        }
        out.push(line);
    }
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn ifs_inside_an_if_inside_a_loop_resume_two_blocks_down() {
    let done = answered(
        nested_ifs_in_a_loop,
        args(0, &["x", "yy", "zzz", "ww"]),
        &[word("c1"), yes(false), yes(true), word("c2")],
    )
    .await;
    assert_eq!(done, "x#0c1 yy zzz#10c2 ww");
}

#[tool]
async fn pair_out_of_a_match(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.items.len() {
        let item = args.items[i].clone();
        i += 1;
        let (left, right) = match item.as_str() {
            "ask" => {
                let l: Word = cx.elicit("Left?").await?;
                let r: Word = cx.elicit("Right?").await?;
                (l.word, r.word)
            }
            other => (other.to_owned(), String::new()),
        };
        if right.is_empty() {
            let fill: Word = cx.elicit(format!("Fill for {left}?")).await?;
            out.push(format!("{left}<{}>", fill.word));
            continue;
        }
        out.push(format!("{left}|{right}"));
    }
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_pair_comes_out_of_a_match_whose_arm_asks_twice() {
    let done = answered(
        pair_out_of_a_match,
        args(0, &["a", "ask", "b"]),
        &[word("1"), word("L"), word("R"), word("2")],
    )
    .await;
    assert_eq!(done, "a<1> L|R b<2>");
}

#[tool]
async fn borrow_across_a_copy(args: Args, cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for item in &args.items {
        let name = item.trim();
        let mut score = match name.len() {
            1 => {
                let one: Yes = cx.elicit(format!("One letter {name}?")).await?;
                u32::from(one.ok)
            }
            _ => 10,
        };
        if score > 0 {
            let bonus: Yes = cx.elicit(format!("Bonus for {name}?")).await?;
            if bonus.ok {
                score += 100;
            }
        }
        score += 1;
        for round in 0..2 {
            let again: Yes = cx.elicit(format!("Again {round}?")).await?;
            if again.ok {
                score *= 2;
            }
            if round == 1 && name == "z" {
                let last: Word = cx.elicit("Last?").await?;
                out.push(last.word);
            }
        }
        out.push(format!("{name}={score}"));
    }
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_borrow_a_later_copy_uses_and_a_loop_of_questions_inside_a_loop_body() {
    let done = answered(
        borrow_across_a_copy,
        args(0, &[" a ", "bc", "z"]),
        &[
            // " a ": one letter yes, bonus no, again no, yes.
            yes(true),
            yes(false),
            yes(false),
            yes(true),
            // "bc": bonus yes, again yes, no.
            yes(true),
            yes(true),
            yes(false),
            // "z": one letter no, again no, no, last.
            yes(false),
            yes(false),
            yes(false),
            word("end"),
        ],
    )
    .await;
    assert_eq!(done, "a=4 bc=222 end z=1");
}

#[tool]
async fn loop_and_block_values(args: Args, cx: Cx) -> ToolResult {
    let mut tries = 0;
    let word = loop {
        tries += 1;
        let given: Word = cx.elicit("A word?").await?;
        if !given.word.is_empty() || tries > args.start {
            break given.word;
        }
    };
    let shout = 'done: {
        if word.len() < 3 {
            break 'done word.clone();
        }
        let more: Word = cx.elicit("More?").await?;
        format!("{word}{}", more.word)
    };
    Ok(text(format!("{word} {shout} {tries}")))
}

#[tokio::test]
async fn a_loop_and_a_labelled_block_give_their_values_past_questions() {
    let done = answered(
        loop_and_block_values,
        args(5, &[]),
        &[word(""), word("long"), word("er")],
    )
    .await;
    assert_eq!(done, "long longer 2");
    let done = answered(loop_and_block_values, args(5, &[]), &[word("ab")]).await;
    assert_eq!(done, "ab ab 1");
}
