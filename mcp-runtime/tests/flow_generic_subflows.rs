//! Generic `#[elicit]` sub-flows: over the form they ask for, over a value they carry across
//! a question (bound `Serialize + DeserializeOwned`), with a `where` clause, and in an `impl`
//! block naming `Self`. Each runs round by round through the server's own dispatch.

#![warn(clippy::pedantic)]

use std::fmt::Display;

use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Word, Yes, answered, word, yes};

/// Asks for any form, twice if the first answer is declined.
#[elicit]
async fn ask_twice<F: ElicitForm>(cx: &Cx, question: String) -> Result<F, Refusal> {
    match cx.elicit::<F>(question.clone()).await {
        Err(Refusal::Declined) => cx.elicit::<F>(format!("{question} (again)")).await,
        other => other,
    }
}

/// Carries a value of any type across a question, and gives it back if confirmed.
#[elicit]
async fn keep<T>(cx: &Cx, value: T, label: String) -> Result<Option<T>, Refusal>
where
    T: Serialize + DeserializeOwned + Display,
{
    let shown = value.to_string();
    let sure = cx.elicit::<Yes>(format!("Keep {label} {shown}?")).await?;
    let also = cx.elicit::<Yes>("Really?").await?;
    Ok((sure.ok && also.ok).then_some(value))
}

struct Picker;

impl Picker {
    const DEFAULT: &'static str = "none";

    /// Generic, in an `impl` block, naming `Self`.
    #[elicit]
    async fn pick<F: ElicitForm + Into<String>>(cx: &Cx) -> Result<String, Refusal> {
        let picked: F = cx.elicit("Pick?").await?;
        let picked: String = picked.into();
        Ok(if picked.is_empty() {
            Self::DEFAULT.to_owned()
        } else {
            picked
        })
    }
}

impl From<Word> for String {
    fn from(word: Word) -> Self {
        word.word
    }
}

#[tool]
async fn generic(cx: Cx) -> ToolResult {
    let said: Word = ask_twice(&cx, "Word?".to_owned()).await?;
    let sure = ask_twice::<Yes>(&cx, "Sure?".to_owned()).await?;
    let number = keep(&cx, 2.5_f64, "number".to_owned()).await?;
    let words = keep(&cx, said.word.clone(), "word".to_owned()).await?;
    let picked = Picker::pick::<Word>(&cx).await?;
    Ok(text(format!(
        "{} {} {number:?} {words:?} {picked}",
        said.word, sure.ok
    )))
}

#[tokio::test]
async fn generic_sub_flows_ask_carry_and_name_self() {
    let answers = [
        json!({"action": "decline"}),
        word("w"),
        yes(true),
        yes(true),
        yes(true),
        yes(true),
        yes(false),
        word(""),
    ];
    let out = answered(generic, json!({}), &answers).await;
    assert_eq!(out, "w true Some(2.5) None none");
}
