//! `let` chains whose question comes after a `let`, where the chain has an `else` or is a
//! `while` loop's condition: the question is asked only where the `let` matched, the `else`
//! runs where either fails, and a loop's `continue` and `break` mean what they mean in Rust.
//! Each runs round by round through the server's own dispatch, under `clippy::pedantic`, so
//! the rewritten conditions trip no lint of their own.

#![warn(clippy::pedantic)]

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

/// Calls of [`first_of`]: the scrutinee of a `let` before a question runs once.
static LOOKUPS: AtomicU32 = AtomicU32::new(0);

fn first_of(items: &[String]) -> Option<String> {
    LOOKUPS.fetch_add(1, Ordering::SeqCst);
    items.first().cloned()
}

#[tool]
async fn picked(args: Args, cx: Cx) -> ToolResult {
    let mut said = String::new();
    let n = if let Some(first) = first_of(&args.items)
        && cx.elicit::<Yes>(format!("Take {first}?")).await?.ok
    {
        said = cx.elicit::<Word>("Why?").await?.word;
        first.len()
    } else if let Some(last) = args.items.last()
        && args.start > 0
        && cx.elicit::<Yes>(format!("Take {last}?")).await?.ok
    {
        last.len() * 10
    } else {
        said.push_str("neither");
        0
    };
    Ok(text(format!("{n} {said}")))
}

#[tokio::test]
async fn an_if_chain_with_else_branches_gives_the_value_of_the_branch_that_ran() {
    LOOKUPS.store(0, Ordering::SeqCst);
    let out = answered(picked, args(0, &["ab"]), &[yes(true), word("fine")]).await;
    assert_eq!(out, "2 fine");
    assert_eq!(LOOKUPS.load(Ordering::SeqCst), 1, "the scrutinee ran once");
    let out = answered(picked, args(1, &["ab", "xyz"]), &[yes(false), yes(true)]).await;
    assert_eq!(out, "30 ");
    let out = answered(picked, args(0, &["ab", "xyz"]), &[yes(false)]).await;
    assert_eq!(
        out, "0 neither",
        "the second chain stops before its question"
    );
    let out = answered(picked, args(1, &[]), &[]).await;
    assert_eq!(out, "0 neither", "no `let` matched, nothing asked");
}

#[tool]
async fn popped(args: Args, cx: Cx) -> ToolResult {
    let mut stack = args.items.clone();
    let mut kept = Vec::new();
    while let Some(top) = stack.pop()
        && cx.elicit::<Yes>(format!("Keep going at {top}?")).await?.ok
    {
        if top.starts_with('-') {
            continue;
        }
        if top == "stop" {
            break;
        }
        kept.push(top);
    }
    Ok(text(format!("{kept:?} left {stack:?}")))
}

#[tokio::test]
async fn a_while_chain_asks_until_its_let_or_its_question_fails() {
    let items = &["a", "stop", "-b", "c"];
    let out = answered(popped, args(0, items), &[yes(true), yes(true), yes(true)]).await;
    assert_eq!(
        out, r#"["c"] left ["a"]"#,
        "`continue` and `break` kept their loop"
    );
    let out = answered(popped, args(0, items), &[yes(true), yes(false)]).await;
    assert_eq!(out, r#"["c"] left ["a", "stop"]"#);
    let out = answered(popped, args(0, &["a"]), &[yes(true)]).await;
    assert_eq!(
        out, r#"["a"] left []"#,
        "the `let` failed, nothing more asked"
    );
}

#[tool]
async fn spelled(args: Args, cx: Cx) -> ToolResult {
    let mut stack = args.items.clone();
    let mut out = Vec::new();
    'words: while let Some(top) = stack.pop()
        && cx.elicit::<Yes>(format!("Spell {top}?")).await?.ok
        && let Some(initial) = top.chars().next()
        && cx.elicit::<Yes>(format!("From {initial}?")).await?.ok
    {
        for letter in top.chars() {
            if letter == '!' {
                continue 'words;
            }
        }
        out.push(format!("{initial}:{top}"));
    }
    Ok(text(out.join(" ")))
}

#[tokio::test]
async fn a_labelled_while_chain_splits_at_each_question_after_a_let() {
    let answers = [yes(true), yes(true), yes(true), yes(true), yes(false)];
    let out = answered(spelled, args(0, &["ab", "x!", "cd"]), &answers).await;
    assert_eq!(out, "c:cd", "a `continue 'words` skips the push");
    let answers = [yes(true), yes(false)];
    let out = answered(spelled, args(0, &["ab", "cd"]), &answers).await;
    assert_eq!(out, "", "the second question ends the loop");
}

#[tool]
async fn until_stopped(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    'items: for item in args.items {
        if let Some(initial) = item.chars().next()
            && cx.elicit::<Yes>(format!("Stop at {initial}?")).await?.ok
        {
            break 'items;
        } else {
            kept.push(item);
        }
    }
    Ok(text(kept.join(", ")))
}

#[tokio::test]
async fn a_chain_with_an_else_in_a_for_loop_breaks_it_by_its_label() {
    let answers = [yes(false), yes(true)];
    let out = answered(until_stopped, args(0, &["ab", "", "cd", "ef"]), &answers).await;
    assert_eq!(out, "ab, ", "the empty item asks nothing and is kept");
}
