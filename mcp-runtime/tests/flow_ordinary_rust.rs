//! Ordinary Rust in handler bodies: shapes a plain `async fn` accepts, each compiled by the
//! macro and run round by round, with the code between two questions run once.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(ElicitForm)]
struct Word {
    word: String,
}

fn yes(ok: bool) -> Value {
    json!({"action": "accept", "content": {"ok": ok}})
}

fn word(word: &str) -> Value {
    json!({"action": "accept", "content": {"word": word}})
}

/// Runs `tester` answering each round with the next of `answers`, keyed by the question
/// asked; returns the final text.
async fn finish(tester: FlowTester, answers: &[Value]) -> String {
    let mut round = tester.start().await;
    for answer in answers {
        let key = round
            .questions()
            .first()
            .map(|key| (*key).to_owned())
            .unwrap_or_else(|| panic!("a question for {answer}: {round}"));
        round = round.answer(json!({ key: answer })).await;
    }
    round
        .text()
        .unwrap_or_else(|| panic!("a final text: {round}"))
        .to_owned()
}

/// Items declared in the body before a question, used after it.
#[tool]
async fn items_before_a_question(cx: Cx) -> ToolResult {
    use std::fmt::Write as _;
    const PREFIX: &str = "got";
    fn shout(word: &str) -> String {
        word.to_uppercase()
    }
    struct Tally {
        count: usize,
    }
    let asked: Word = cx.elicit("A word?").await?;
    let tally = Tally {
        count: asked.word.len(),
    };
    let mut out = String::new();
    write!(out, "{PREFIX} {} ({})", shout(&asked.word), tally.count)?;
    Ok(text(out))
}

#[tokio::test]
async fn items_declared_before_a_question_are_in_scope_after_it() {
    let done = finish(FlowTester::tool(items_before_a_question), &[word("hi")]).await;
    assert_eq!(done, "got HI (2)");
}

static MOVED_RUNS: AtomicU32 = AtomicU32::new(0);

/// A local moved before a question and assigned again after it.
#[tool]
async fn moved_then_reassigned(cx: Cx) -> ToolResult {
    let mut label: String = String::from("first");
    MOVED_RUNS.fetch_add(1, Ordering::SeqCst);
    drop(label);
    let asked: Word = cx.elicit("A word?").await?;
    label = asked.word;
    Ok(text(label))
}

#[tokio::test]
async fn a_local_moved_before_a_question_can_be_assigned_after_it() {
    let done = finish(FlowTester::tool(moved_then_reassigned), &[word("second")]).await;
    assert_eq!(done, "second");
    assert_eq!(
        MOVED_RUNS.load(Ordering::SeqCst),
        1,
        "code before the question ran once"
    );
}

/// The same binding name, under the same key, in two arms that cannot both run.
#[tool]
async fn same_key_in_exclusive_arms(cx: Cx) -> ToolResult {
    let first: Yes = cx.elicit("Formal?").await?;
    match first.ok {
        true => {
            let answer: Word = cx.elicit("Your title?").await?;
            Ok(text(format!("Dear {}", answer.word)))
        }
        false => {
            let answer: Word = cx.elicit("Your nickname?").await?;
            Ok(text(format!("Hey {}", answer.word)))
        }
    }
}

#[tokio::test]
async fn exclusive_arms_may_ask_under_the_same_key() {
    let formal = finish(
        FlowTester::tool(same_key_in_exclusive_arms),
        &[yes(true), word("Doctor")],
    )
    .await;
    assert_eq!(formal, "Dear Doctor");
    let casual = finish(
        FlowTester::tool(same_key_in_exclusive_arms),
        &[yes(false), word("Bo")],
    )
    .await;
    assert_eq!(casual, "Hey Bo");
}

/// An outer binding shadowed inside a block that asks, used after the block.
#[tool]
async fn shadowed_in_an_inner_block(cx: Cx) -> ToolResult {
    let name: String = String::from("outer");
    let inner_len: usize = {
        let name: Word = cx.elicit("A word?").await?;
        name.word.len()
    };
    Ok(text(format!("{name} {inner_len}")))
}

#[tokio::test]
async fn an_outer_binding_survives_a_shadowing_inner_block() {
    let done = finish(FlowTester::tool(shadowed_in_an_inner_block), &[word("abc")]).await;
    assert_eq!(done, "outer 3");
}

/// A macro after a question naming a local where it is not a use: a `tracing` field name,
/// and a field after `.`. The local itself could not travel (an `Instant`), so the macro
/// must not take it for a use.
#[tool]
async fn macro_field_named_like_a_local(cx: Cx) -> ToolResult {
    let status = std::time::Instant::now();
    let _ = status.elapsed();
    let asked: Word = cx.elicit("A word?").await?;
    tracing::info!(status = %asked.word, "answered");
    let summary = format!("{}", asked.word.len());
    let shown = format!("{word} {summary}", word = asked.word);
    Ok(text(shown))
}

#[tokio::test]
async fn a_macro_field_named_like_a_local_is_not_a_use() {
    let done = finish(
        FlowTester::tool(macro_field_named_like_a_local),
        &[word("go")],
    )
    .await;
    assert_eq!(done, "go 2");
}
