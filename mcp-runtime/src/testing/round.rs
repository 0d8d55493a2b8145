//! One round of a flow under test: how it ended, and the next round.

use std::fmt;

use serde_json::{Value, json};

use super::FlowTester;
use super::answers::{form, unasked};
use crate::form::ElicitForm;
use crate::protocol::{ElicitRequestParams, ErrorObject, InputRequest, InputRequests};

/// How one round ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The handler asks these questions and hands out this state.
    Asked {
        /// The input requests, by key.
        requests: InputRequests,
        /// The signed `requestState`.
        state: Option<String>,
    },
    /// The handler finished with this result (as it goes on the wire).
    Complete(Value),
    /// The request failed with this JSON-RPC error.
    Error(ErrorObject),
}

/// One round of a flow under test.
#[derive(Debug, Clone)]
pub struct Round {
    pub(super) tester: FlowTester,
    /// How the round ended.
    pub outcome: Outcome,
    /// The keys the server named as answered but not asked.
    pub(super) unasked: Vec<String>,
}

impl Round {
    /// The keys asked this round, in key order (empty unless the round asked).
    pub fn questions(&self) -> Vec<&str> {
        match &self.outcome {
            Outcome::Asked { requests, .. } => requests.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The input requests of this round, if it asked.
    pub fn requests(&self) -> Option<&InputRequests> {
        match &self.outcome {
            Outcome::Asked { requests, .. } => Some(requests),
            _ => None,
        }
    }

    /// The request state handed out, if the round asked.
    pub fn state(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Asked { state, .. } => state.as_deref(),
            _ => None,
        }
    }

    /// The size of the request state in bytes (0 without one).
    pub fn state_size(&self) -> usize {
        self.state().map_or(0, str::len)
    }

    /// The final result, if the round completed.
    pub fn result(&self) -> Option<&Value> {
        match &self.outcome {
            Outcome::Complete(result) => Some(result),
            _ => None,
        }
    }

    /// The text of the first text block of a completed tool result (or of the first prompt
    /// message, or the first text resource contents).
    pub fn text(&self) -> Option<&str> {
        let result = self.result()?;
        let first = result
            .get("content")
            .or_else(|| result.get("contents"))
            .and_then(|c| c.get(0))
            .or_else(|| result.pointer("/messages/0/content"))?;
        first.get("text").and_then(Value::as_str)
    }

    /// The `structuredContent` of a completed tool result, if it has one.
    pub fn structured(&self) -> Option<&Value> {
        self.result()?.get("structuredContent")
    }

    /// The keys of the answers sent that no question of the round asked, as the server
    /// names them to the client (the result's `_meta`,
    /// [`UNASKED_INPUT_RESPONSES`](crate::server::UNASKED_INPUT_RESPONSES)): the server
    /// ignored those answers. Only [`FlowTester::send`] can send such answers;
    /// [`answer`](Self::answer) refuses to.
    pub fn unasked(&self) -> &[String] {
        &self.unasked
    }

    /// The JSON-RPC error, if the round failed.
    pub fn error(&self) -> Option<&ErrorObject> {
        match &self.outcome {
            Outcome::Error(error) => Some(error),
            _ => None,
        }
    }

    /// The next round: the same call with this round's state and `answers` (an
    /// `inputResponses` object, such as `{"confirm": accept(json!({"ok": true}))}`).
    ///
    /// # Panics
    ///
    /// When `answers` holds a key this round did not ask, naming the keys asked and the keys
    /// given: a server would ignore such an answer and ask its question again, which a test
    /// should hear about at once. [`FlowTester::send`] sends answers unchecked.
    pub async fn answer(&self, answers: Value) -> Round {
        let asked = self.questions();
        let unasked = unasked(&answers, &asked);
        if !unasked.is_empty() {
            let given: Vec<&str> = answers
                .as_object()
                .map(|answers| answers.keys().map(String::as_str).collect())
                .unwrap_or_default();
            panic!(
                "answers under {} that this round did not ask; it asked {}, and was given {}",
                keys(&unasked),
                keys(&asked),
                keys(&given),
            );
        }
        self.tester.send(self.state(), Some(answers)).await
    }

    /// The next round, answering the question under `key` by accepting the form `value`
    /// (see [`form`]).
    ///
    /// # Panics
    ///
    /// When this round did not ask `key`, or asked it for another form than `F`.
    pub async fn answer_form<F: ElicitForm>(&self, key: &str, value: &F) -> Round {
        if let Some(InputRequest::Elicit(ElicitRequestParams::Form(asked))) =
            self.requests().and_then(|requests| requests.get(key))
        {
            let expected = serde_json::to_value(F::requested_schema()).unwrap_or_default();
            let asked = serde_json::to_value(&asked.requested_schema).unwrap_or_default();
            assert!(
                expected == asked,
                "`{key}` asks for another form than `{}`: it asks for {asked}",
                std::any::type_name::<F>(),
            );
        }
        self.answer(json!({ key: form(value) })).await
    }
}

/// Keys as a reader wants them: in backticks, or `nothing`.
fn keys(keys: &[&str]) -> String {
    if keys.is_empty() {
        return "nothing".to_owned();
    }
    keys.iter()
        .map(|key| format!("`{key}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Round {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Outcome::Asked { requests, state } => {
                writeln!(f, "input_required, asking {}:", self.questions().join(", "))?;
                writeln!(f, "{}", pretty(requests))?;
                match state {
                    Some(state) => write!(f, "requestState: {} bytes", state.len()),
                    None => write!(f, "no requestState"),
                }
            }
            Outcome::Complete(result) => write!(f, "complete:\n{}", pretty(result)),
            Outcome::Error(error) => write!(f, "error {}: {}", error.code.0, error.message),
        }
    }
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
