//! Locals hidden at a question by a local of the same name declared further down the path (a
//! `let`, an `if let` or `while let` binding, a `match` arm, a `for` variable) travel all the
//! same: the state is written from a borrow of the hidden local taken just before the hiding
//! declaration. These check that each hidden local comes back as it was, and the hiding one
//! as it was, including where the hiding construct borrows the hidden local itself
//! (`if let Some(name) = name.as_deref()`). Each flow runs round by round through the server's
//! own dispatch.

#![allow(clippy::needless_pass_by_value)]

use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

#[tool]
async fn hidden_by_a_let_in_a_row(args: Args, cx: Cx) -> ToolResult {
    let base = args.start;
    let mut tally = String::from("t");
    let out = if base > 0 {
        let first: Word = cx.elicit("First?").await?;
        let base = base + 10;
        let tally = format!("{tally}{}", first.word);
        let second: Word = cx.elicit("Second?").await?;
        let base = base * 2 + u32::try_from(second.word.len()).unwrap_or(0);
        let _third: Yes = cx.elicit("Third?").await?;
        format!("{base} {tally}")
    } else {
        String::from("zero")
    };
    tally.push('!');
    // The outer `base` and `tally`, not the inner ones that hid them.
    Ok(text(format!("{out} / {base} {tally}")))
}

#[tokio::test]
async fn locals_hidden_by_lets_of_their_name_cross_the_questions() {
    let done = answered(
        hidden_by_a_let_in_a_row,
        args(1, &[]),
        &[word("ab"), word("cde"), yes(true)],
    )
    .await;
    assert_eq!(done, "25 tab / 1 t!");
}

#[tool]
async fn hidden_in_a_loop_by_an_answer(args: Args, cx: Cx) -> ToolResult {
    let word = String::from("outer");
    let mut seen = Vec::new();
    let mut round = 0;
    while round < args.start {
        let word: String = cx.elicit::<Word>("Word?").key("word").await?.word;
        let Some(first) = word.chars().next() else {
            continue;
        };
        let go: Yes = cx.elicit(format!("Keep {word}?")).await?;
        if go.ok {
            seen.push(format!("{first}{word}"));
        }
        round += 1;
    }
    Ok(text(format!("{word}: {}", seen.join(","))))
}

#[tokio::test]
async fn a_hiding_let_whose_value_is_a_question_inside_a_loop() {
    let done = answered(
        hidden_in_a_loop_by_an_answer,
        args(3, &[]),
        &[
            word("ab"),
            yes(true),
            word(""),
            word("cd"),
            yes(false),
            word("ef"),
            yes(true),
        ],
    )
    .await;
    assert_eq!(done, "outer: aab,eef");
}

#[tool]
async fn hidden_every_way(args: Args, cx: Cx) -> ToolResult {
    let name = String::from("n");
    let pair = (1_u8, 2_u8);
    let count: u32 = args.start;
    let mut log = Vec::new();
    let mut rounds = 0;
    while rounds < 2 {
        let name: &str = "inner";
        let (left, pair) = (pair.0, u16::from(pair.1) * 10);
        let Some(count) = count.checked_sub(rounds) else {
            break;
        };
        let go: Yes = cx.elicit(format!("{name} {left} {pair} {count}?")).await?;
        log.push(format!("{name}{left}{pair}{count}{}", go.ok));
        let count = cx.elicit::<Word>("Again?").key("again").await?.word;
        let _last: Yes = cx.elicit(format!("Last {count}?")).await?;
        log.push(count);
        rounds += 1;
    }
    Ok(text(format!("{name} {pair:?} {count}: {}", log.join(" "))))
}

#[tokio::test]
async fn typed_pattern_and_literal_lets_hide_what_travels() {
    let done = answered(
        hidden_every_way,
        args(5, &[]),
        &[
            yes(true),
            word("x"),
            yes(true),
            yes(false),
            word("y"),
            yes(true),
        ],
    )
    .await;
    assert_eq!(done, "n (1, 2) 5: inner1205true x inner1204false y");
}

#[tool]
async fn hidden_by_patterns(args: Args, cx: Cx) -> ToolResult {
    let item = String::from("total");
    let name = args.items.first().cloned();
    let mut log = Vec::new();
    for item in &args.items {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        log.push(format!("{item}{}", keep.ok));
    }
    if let Some(name) = &name {
        let sure: Yes = cx.elicit(format!("Sure {name}?")).await?;
        log.push(format!("{name}{}", sure.ok));
    }
    match args.items.len() {
        0 => {}
        item => {
            let more: Word = cx.elicit("More?").await?;
            log.push(format!("{item}{}", more.word));
        }
    }
    let mut stack = vec![1, 2];
    while let Some(item) = stack.pop() {
        let go: Yes = cx.elicit(format!("Pop {item}?")).await?;
        log.push(format!("{item}{}", go.ok));
    }
    Ok(text(format!("{item} {name:?}: {}", log.join(" "))))
}

#[tokio::test]
async fn locals_hidden_by_pattern_bindings_of_their_name_cross_the_questions() {
    let done = answered(
        hidden_by_patterns,
        args(0, &["a", "b"]),
        &[
            yes(true),
            yes(false),
            yes(true),
            word("w"),
            yes(true),
            yes(false),
        ],
    )
    .await;
    assert_eq!(
        done,
        "total Some(\"a\"): atrue bfalse atrue 2w 2true 1false"
    );
}

#[tool]
async fn hidden_by_shared_borrows(args: Args, cx: Cx) -> ToolResult {
    let name = args.items.first().cloned();
    let items = args.items;
    let mut log = Vec::new();
    if let Some(name) = name.as_deref() {
        let w: Word = cx.elicit(format!("A word for {name}?")).await?;
        log.push(format!("{name}:{}", w.word));
    }
    for items in items.chunks(2) {
        let go: Yes = cx.elicit(format!("Take {}?", items.len())).await?;
        log.push(format!("{}{}", items.join("+"), go.ok));
    }
    Ok(text(format!("{name:?} {} {}", items.len(), log.join(" "))))
}

#[tokio::test]
async fn locals_hidden_by_bindings_that_borrow_them_cross_the_questions() {
    let done = answered(
        hidden_by_shared_borrows,
        args(0, &["a", "b", "c"]),
        &[word("x"), yes(true), yes(false)],
    )
    .await;
    assert_eq!(done, "Some(\"a\") 3 a:x a+btrue cfalse");
}

#[tool]
async fn hidden_beside_a_group(args: Args, cx: Cx) -> ToolResult {
    let name = args.items.first().cloned();
    let mut log = Vec::new();
    if let Some(name) = &name {
        let sure: Yes = cx.elicit(format!("Sure {name}?")).await?;
        log.push(format!("{name}{}", sure.ok));
    }
    let mut round = 0;
    while round < args.start {
        if round > 0 {
            let first: Word = cx.elicit("First?").await?;
            log.push(first.word);
        }
        if let Some(previous) = log.last().cloned() {
            let second: Word = cx.elicit(format!("After {previous}?")).await?;
            log.push(second.word);
        }
        round += 1;
    }
    Ok(text(format!("{name:?}: {}", log.join(" "))))
}

#[tokio::test]
async fn a_loop_of_questions_beside_a_hidden_local_resumes_as_one_group() {
    let done = answered(
        hidden_beside_a_group,
        args(2, &["a"]),
        &[yes(true), word("x"), word("y"), word("z")],
    )
    .await;
    assert_eq!(done, "Some(\"a\"): atrue x y z");
}

/// A local hidden by the binding of what an `if let` takes out of it, and one hidden by a
/// `match` arm binding what the scrutinee pops from it: each construct's scrutinee runs once,
/// before the borrow for the state is taken.
#[tool]
async fn hidden_by_what_is_taken_out(args: Args, cx: Cx) -> ToolResult {
    let mut item = args.items.first().cloned();
    if let Some(item) = item.take() {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if keep.ok {
            return Ok(text(format!("kept {item}")));
        }
    }
    let mut items = args.items;
    let popped = match items.pop() {
        Some(items) => {
            let sure: Yes = cx.elicit(format!("Drop {items}?")).await?;
            sure.ok
        }
        None => false,
    };
    Ok(text(format!("{item:?} {items:?} {popped}")))
}

#[tokio::test]
async fn a_local_hidden_by_what_a_construct_takes_out_of_it_comes_back_emptied() {
    let items = || args(0, &["a", "b", "c"]);
    let done = answered(hidden_by_what_is_taken_out, items(), &[yes(true)]).await;
    assert_eq!(done, "kept a");
    let done = answered(
        hidden_by_what_is_taken_out,
        items(),
        &[yes(false), yes(true)],
    )
    .await;
    assert_eq!(done, r#"None ["a", "b"] true"#);
}
