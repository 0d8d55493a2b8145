//! What the flow tests of ordinary Rust share: two small forms, their accepted answers and a
//! declined one, a handler's arguments, a carried enum, and a driver that answers each round's
//! one question in turn.

#![allow(dead_code, reason = "each flow test binary uses part of these")]
#![allow(
    unreachable_pub,
    reason = "shared through `#[path]` by several test binaries"
)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::ElicitForm;
use mcp_runtime::server::IntoToolHandler;
use mcp_runtime::testing::{FlowTester, Round};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(ElicitForm)]
pub struct Yes {
    pub ok: bool,
}

#[derive(ElicitForm)]
pub struct Word {
    pub word: String,
}

/// A handler's arguments: some items and a number.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Args {
    pub items: Vec<String>,
    pub start: u32,
}

/// An enum a flow carries across a question.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Mode {
    Fast,
    Slow(u32),
}

pub fn yes(ok: bool) -> Value {
    json!({"action": "accept", "content": {"ok": ok}})
}

pub fn word(word: &str) -> Value {
    json!({"action": "accept", "content": {"word": word}})
}

/// The user declining a question.
pub fn declined() -> Value {
    json!({"action": "decline"})
}

/// Runs `tester`, answering each round's one question with the next of `answers`; returns
/// the last round, which must ask nothing more.
pub async fn run(tester: FlowTester, answers: &[Value]) -> Round {
    run_keyed(tester, answers).await.1
}

/// [`run`], returning also the key each round asked under.
pub async fn run_keyed(tester: FlowTester, answers: &[Value]) -> (Vec<String>, Round) {
    let mut round = tester.start().await;
    let mut keys = Vec::new();
    for answer in answers {
        let asked = round.questions();
        let [key] = asked.as_slice() else {
            panic!("one question for {answer}: {round}");
        };
        let key = (*key).to_owned();
        keys.push(key.clone());
        round = round.answer(json!({ key: answer })).await;
    }
    assert!(round.questions().is_empty(), "nothing more asked: {round}");
    (keys, round)
}

/// The final text after `answers`.
pub async fn finish(tester: FlowTester, answers: &[Value]) -> String {
    let round = run(tester, answers).await;
    round
        .text()
        .unwrap_or_else(|| panic!("a final text: {round}"))
        .to_owned()
}

/// Arguments for [`Args`].
pub fn args(start: u32, items: &[&str]) -> Value {
    json!({ "items": items, "start": start })
}

/// The final text of `handler` called with `arguments`, answering `answers` in turn.
pub async fn answered<M>(
    handler: impl IntoToolHandler<M>,
    arguments: Value,
    answers: &[Value],
) -> String {
    finish(FlowTester::tool(handler).arguments(arguments), answers).await
}

/// `value`, counting one more run of the code that `counter` counts (a condition, a
/// scrutinee): how a test sees that a resume did not run it again.
pub fn counted<T>(value: T, counter: &AtomicUsize) -> T {
    counter.fetch_add(1, Ordering::SeqCst);
    value
}

/// How many runs `counter` has counted so far.
pub fn runs(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}
