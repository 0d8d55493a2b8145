//! The answers the explorer tries to one question, and to the questions of one round.

use serde_json::{Map, Value, json};

use super::Explore;
use super::combine::cover;
use super::form::contents;

/// One answer the explorer tries to one question.
#[derive(Debug, Clone)]
struct Candidate {
    response: Value,
    /// Whether the server must take it; when not, it must ask again.
    valid: bool,
}

/// The answers to one round's questions the explorer sends together.
#[derive(Debug, Clone)]
pub(super) struct Answers {
    /// The `inputResponses` object.
    pub(super) responses: Value,
    /// The keys whose answer the server must refuse, asking again.
    pub(super) invalid: Vec<String>,
}

/// The answers to try for a round asking `requests` (keys in order, each with its input
/// request as it goes on the wire): every answer to each question, combined with the answers
/// to the others up to `options.max_combinations` combinations.
pub(super) fn round(requests: &[(String, Value)], options: &Explore) -> Vec<Answers> {
    let lists: Vec<Vec<Candidate>> = requests
        .iter()
        .map(|(key, request)| candidates(key, request, options))
        .collect();
    // One question is tried with each of its answers; several are combined up to the cap,
    // which is never below the number of answers of any one of them.
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    let cap = match lists.len() {
        1 => longest,
        _ => options.max_combinations.max(longest),
    };
    cover(&lists, cap)
        .into_iter()
        .map(|row| {
            let mut responses = Map::new();
            let mut invalid = Vec::new();
            for (((key, _), list), &at) in requests.iter().zip(&lists).zip(&row) {
                let candidate = &list[at];
                responses.insert(key.clone(), candidate.response.clone());
                if !candidate.valid {
                    invalid.push(key.clone());
                }
            }
            Answers {
                responses: Value::Object(responses),
                invalid,
            }
        })
        .collect()
}

/// The answers to try to the question `key`, asked with `request`.
fn candidates(key: &str, request: &Value, options: &Explore) -> Vec<Candidate> {
    let taken = |responses: &[Value]| {
        responses
            .iter()
            .map(|response| Candidate {
                response: response.clone(),
                valid: true,
            })
            .collect()
    };
    if let Some(responses) = options.answers.get(key) {
        return taken(responses);
    }
    let params = request.get("params").unwrap_or(&Value::Null);
    match request.get("method").and_then(Value::as_str) {
        Some("sampling/createMessage") => taken(&options.sampling),
        Some("roots/list") => taken(&options.roots),
        _ => {
            let accepted: Vec<Candidate> = match params.get("mode").and_then(Value::as_str) {
                Some("url") => vec![Candidate {
                    response: json!({"action": "accept"}),
                    valid: true,
                }],
                _ => params
                    .get("requestedSchema")
                    .map(|schema| contents(schema, options.max_combinations))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|content| Candidate {
                        response: json!({"action": "accept", "content": content.content}),
                        valid: content.valid,
                    })
                    .collect(),
            };
            // Refusals come right after the first acceptance: tried early when the path
            // budget runs out.
            let mut all = accepted;
            let refusals = ["decline", "cancel"].map(|action| Candidate {
                response: json!({"action": action}),
                valid: true,
            });
            let at = all.len().min(1);
            all.splice(at..at, refusals);
            all
        }
    }
}
