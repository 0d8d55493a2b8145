//! Definite assignment across a question: a local moved away (or not yet given a value)
//! before a question and given one after it holds nothing at the question, so nothing of it
//! travels, and the handler compiles as the plain `async fn` would.

// A `let` given its value later, in both arms of an `if`, is the shape under test.
#![allow(clippy::needless_late_init)]

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, finish, word, yes};

/// The issue's shape in straight code: moved into a call, asked, given a new value before any
/// read.
#[tool]
async fn moved_then_reinitialised(cx: Cx) -> ToolResult {
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut current = vec![String::from("a"), String::from("b")];
    batches.push(current);
    let first: Word = cx.elicit("First item of the new batch?").await?;
    current = vec![first.word];
    current.push(String::from("z"));
    batches.push(current);
    Ok(text(format!("{batches:?}")))
}

#[tokio::test]
async fn a_local_moved_away_and_given_a_new_value_after_a_question_does_not_travel() {
    let done = finish(FlowTester::tool(moved_then_reinitialised), &[word("c")]).await;
    assert_eq!(done, r#"[["a", "b"], ["c", "z"]]"#);
}

/// The same in a loop: each full batch is moved away, and the next one starts with the
/// answer to a question.
#[tool]
async fn moved_then_reinitialised_in_a_loop(args: Args, cx: Cx) -> ToolResult {
    let mut batches = Vec::new();
    let mut current = Vec::new();
    for item in args.items {
        if current.len() == 3 {
            batches.push(current);
            let first: Word = cx.elicit(format!("First item after {item}?")).await?;
            current = vec![first.word];
        }
        current.push(item);
    }
    batches.push(current);
    Ok(text(format!("{batches:?}")))
}

#[tokio::test]
async fn a_local_moved_away_in_a_loop_and_given_a_new_value_after_a_question_does_not_travel() {
    let tester = FlowTester::tool(moved_then_reinitialised_in_a_loop)
        .arguments(serde_json::json!({"items": ["a", "b", "c", "d", "e", "f", "g"], "start": 0}));
    let done = finish(tester, &[word("x"), word("y")]).await;
    assert_eq!(
        done,
        r#"[["a", "b", "c"], ["x", "d", "e"], ["y", "f", "g"]]"#
    );
}

/// `let x;` given its value in both arms of an `if` that asks.
#[tool]
async fn assigned_in_both_arms(cx: Cx) -> ToolResult {
    let greeting;
    let formal: Yes = cx.elicit("Formal?").await?;
    if formal.ok {
        let title: Word = cx.elicit("Your title?").await?;
        greeting = format!("Dear {}", title.word);
    } else {
        let name: Word = cx.elicit("Your nickname?").await?;
        greeting = format!("Hey {}", name.word);
    }
    Ok(text(greeting))
}

#[tokio::test]
async fn a_local_declared_without_a_value_is_assigned_in_both_arms_of_a_question() {
    let formal = finish(
        FlowTester::tool(assigned_in_both_arms),
        &[yes(true), word("Doctor")],
    )
    .await;
    assert_eq!(formal, "Dear Doctor");
    let casual = finish(
        FlowTester::tool(assigned_in_both_arms),
        &[yes(false), word("Bo")],
    )
    .await;
    assert_eq!(casual, "Hey Bo");
}

fn keep(kept: &mut Vec<String>, label: String) -> usize {
    kept.push(label);
    kept.len()
}

/// A value moved into a call in one `match` arm, and bound again after a question.
#[tool]
async fn moved_in_one_arm(cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    let mut label = String::from("draft");
    let count = match label.len() {
        5 => keep(&mut kept, label),
        _ => 0,
    };
    let next: Word = cx.elicit("Next label?").await?;
    label = next.word;
    Ok(text(format!("{count} {kept:?} {label}")))
}

#[tokio::test]
async fn a_value_moved_in_one_match_arm_is_bound_again_after_a_question() {
    let done = finish(FlowTester::tool(moved_in_one_arm), &[word("final")]).await;
    assert_eq!(done, r#"1 ["draft"] final"#);
}
