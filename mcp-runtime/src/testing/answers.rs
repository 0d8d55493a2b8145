//! Answers as a client sends them in `inputResponses`, for [`Round::answer`](super::Round::answer).

use serde_json::{Map, Value, json};

use crate::form::ElicitForm;

/// The user accepted and filled the form with `content` (a JSON object):
/// `{"action": "accept", "content": content}`. [`form`] builds the same from the form's own
/// struct, so the compiler checks its fields.
pub fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The user accepted and filled the form with these values: `{"action": "accept", "content":
/// ...}`, the content written from the form struct itself (its fields under their wire names,
/// choices as their wire values), so a misspelled or mistyped field does not compile.
/// [`Round::answer_form`](super::Round::answer_form) also checks that the question asks for
/// this form.
///
/// ```
/// use mcp_runtime::ElicitForm;
/// use mcp_runtime::testing::form;
/// use serde_json::json;
///
/// #[derive(ElicitForm)]
/// struct Confirm {
///     ok: bool,
/// }
///
/// assert_eq!(
///     form(&Confirm { ok: true }),
///     json!({"action": "accept", "content": {"ok": true}})
/// );
/// ```
pub fn form<F: ElicitForm>(form: &F) -> Value {
    accept(Value::Object(form.to_content()))
}

/// The user declined the question: `{"action": "decline"}`.
pub fn decline() -> Value {
    json!({"action": "decline"})
}

/// The user dismissed the question without choosing: `{"action": "cancel"}`.
pub fn cancel() -> Value {
    json!({"action": "cancel"})
}

/// The keys of `answers` (an `inputResponses` object) that `asked` does not hold, or `None`
/// when `answers` is no object.
pub(super) fn unasked<'a>(answers: &'a Value, asked: &[&str]) -> Vec<&'a str> {
    answers
        .as_object()
        .map(Map::keys)
        .into_iter()
        .flatten()
        .map(String::as_str)
        .filter(|key| !asked.contains(key))
        .collect()
}
