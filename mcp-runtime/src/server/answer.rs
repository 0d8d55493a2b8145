//! A call's answer: a round's reply written once into the response (the next state minted,
//! the server's identity added), and kept for the replay store when the round is single-use.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::context::stamp;
use super::error::RpcError;
use super::form_text::{WriteState, Written, write_input_required};
use super::handler::{HandlerResult, Reply};
use super::outcome::{ResultAnswer, error_outcome, raw_result_outcome, write_tool_result};
use super::single_use::StoredReply;
use super::{Outcome, trace};
use crate::protocol::{
    CacheHints, CallToolResult, CompleteResult, ErrorCode, ErrorObject, GetPromptResult,
    Implementation, InputRequiredResult, ReadResourceResult, ResultMeta,
};
use crate::state::{Binding, Signer};

/// What a stateless round's answer is written with once its handler is done: the next
/// state's signer and binding, and the server's identity.
pub(super) struct Answering {
    pub(super) signer: Signer,
    pub(super) binding: Binding,
    pub(super) info: Option<Arc<Implementation>>,
    pub(super) member: Option<Arc<str>>,
}

impl Answering {
    /// The answer to a round that ended with `round`, and (when `kept`, for the replay store
    /// of a single-use round; an error always) the reply as stored.
    pub(super) fn answer<R: FinalResult>(
        &self,
        round: HandlerResult<R>,
        id: &Value,
        cache: Option<CacheHints>,
        kept: bool,
    ) -> (Outcome, Option<StoredReply>) {
        let Self {
            signer,
            binding,
            info,
            member,
        } = self;
        let mut input_required = false;
        // The answer is written in one buffer, the result straight after the response's head.
        let mut answer = ResultAnswer::to(id);
        let written = match round {
            Ok(Reply::Complete(mut result)) => {
                if let Some(cache) = cache {
                    result.apply_cache_hints(cache);
                }
                match (info, member) {
                    // The identity serialised once, not in every answer.
                    (Some(_), Some(member)) if result.meta_slot().is_none() => answer
                        .write_with(|body| result.write_json(body))
                        .map(|()| answer.add_member(member)),
                    (Some(info), _) => {
                        stamp(result.meta_slot(), info);
                        answer.write_with(|body| result.write_json(body))
                    }
                    (None, _) => answer.write_with(|body| result.write_json(body)),
                }
            }
            Ok(Reply::InputRequired(mut asked)) => {
                let unasked = asked.take_unasked();
                let (requests, state) = asked.into_parts();
                input_required = true;
                match member {
                    // The usual round, written with no result built: the next state is minted
                    // straight into the answer, and the identity follows as in any result.
                    Some(member)
                        if unasked.is_empty() && (requests.is_some() || state.is_some()) =>
                    {
                        let mut state_bytes = 0;
                        let mut mint = state.as_deref().map(|payload| {
                            |out: &mut Vec<u8>| {
                                let start = out.len();
                                signer.sign_onto(binding, payload, out);
                                state_bytes = out.len() - start;
                            }
                        });
                        let minting = mint.as_mut().map(|mint| mint as WriteState<'_>);
                        let written = answer.write_with(|body| {
                            write_input_required(body, requests.as_ref(), minting, None)
                        });
                        trace::record_state_bytes(state_bytes);
                        written.map(|()| answer.add_member(member))
                    }
                    _ => {
                        let token =
                            state.map(|payload| signer.sign_with_binding(binding, &payload));
                        trace::record_state_bytes(token.as_ref().map_or(0, String::len));
                        // Written with its form questions' schemas from their kept text.
                        match InputRequiredResult::new(requests, token) {
                            Ok(result) => {
                                let result = with_meta(result, unasked, info.as_deref());
                                answer.write_with(|body| Written(&result).write(body))
                            }
                            Err(empty) => Err(ErrorObject::new(
                                ErrorCode::INTERNAL_ERROR,
                                empty.to_string(),
                            )),
                        }
                    }
                }
            }
            Err(error) => Err(error),
        };
        let (mut outcome, stored) = match written {
            // Only a single-use round keeps its result, for the replay store.
            Ok(()) => {
                let stored = kept.then(|| StoredReply::Result(answer.result().to_vec()));
                (answer.finish(), stored)
            }
            Err(error) => {
                let error = serde_json::to_vec(&error).expect("an error object serialises");
                let (outcome, stored) = replayed(id, StoredReply::Error(error));
                (outcome, Some(stored))
            }
        };
        if input_required && outcome.error_code.is_none() {
            outcome.kind = "input_required";
        }
        (outcome, stored)
    }
}

/// The answer carrying a round's reply, serialised once: for the client now, and (kept
/// beside it) for the replay store.
pub(super) fn replayed(id: &Value, reply: StoredReply) -> (Outcome, StoredReply) {
    let outcome = match &reply {
        StoredReply::Result(result) => match std::str::from_utf8(result) {
            Ok(result) => raw_result_outcome(id, result),
            Err(_) => error_outcome(id, &RpcError::internal("internal error")),
        },
        StoredReply::Error(error) => match serde_json::from_slice::<ErrorObject>(error) {
            Ok(error) => error_outcome(id, &RpcError::from_handler(error)),
            Err(_) => error_outcome(id, &RpcError::internal("internal error")),
        },
    };
    (outcome, reply)
}

/// A final result as dispatch sends it: serialised straight from its typed value (so member
/// order is the type's field order), after the server's caching hints are applied.
pub(super) trait FinalResult: Serialize {
    /// Applies the server's caching hints, for results that carry them.
    fn apply_cache_hints(&mut self, _hints: CacheHints) {}
    /// The result's `_meta`, where the server's identity goes.
    fn meta_slot(&mut self) -> &mut Option<ResultMeta>;
    /// Appends the result to `out` as compact JSON, as its own serialisation writes it.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        serde_json::to_writer(out, self)
    }
}

impl FinalResult for CallToolResult {
    fn meta_slot(&mut self) -> &mut Option<ResultMeta> {
        &mut self.meta
    }
    /// Plain text written member by member (see [`write_tool_result`]).
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        write_tool_result(out, self)
    }
}

impl FinalResult for GetPromptResult {
    fn meta_slot(&mut self) -> &mut Option<ResultMeta> {
        &mut self.meta
    }
}

impl FinalResult for CompleteResult {
    fn meta_slot(&mut self) -> &mut Option<ResultMeta> {
        &mut self.meta
    }
}

impl FinalResult for ReadResourceResult {
    /// Hints the handler set itself win; the defaults (`0`, `private`) give way to the
    /// server's.
    fn apply_cache_hints(&mut self, hints: CacheHints) {
        if self.cache == CacheHints::default() {
            self.cache = hints;
        }
    }
    fn meta_slot(&mut self) -> &mut Option<ResultMeta> {
        &mut self.meta
    }
}

/// `_meta` member of an `input_required` result listing the keys of the client's
/// `inputResponses` that no question of the round asked, so were ignored (a misspelled key,
/// or answers sent without the `requestState` that asked them, so the flow started over).
pub const UNASKED_INPUT_RESPONSES: &str = "mcp-runtime/unaskedInputResponses";

/// `result`, telling the client which of its answers no question asked, and who answered.
fn with_meta(
    result: InputRequiredResult,
    unasked: Vec<String>,
    server_info: Option<&crate::protocol::Implementation>,
) -> InputRequiredResult {
    if unasked.is_empty() && server_info.is_none() {
        return result;
    }
    let mut meta = ResultMeta {
        server_info: server_info.cloned(),
        ..ResultMeta::default()
    };
    if !unasked.is_empty() {
        meta.extra
            .insert(UNASKED_INPUT_RESPONSES.to_owned(), unasked.into());
    }
    result.with_meta(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{
        ElicitRequestParams, ElicitRequestUrlParams, InputRequest, InputRequests,
    };
    use crate::server::Asked;
    use crate::state::{Binding, Signer};

    const MEMBER: &str = r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t"}}"#;

    fn answering(member: Option<&str>) -> Answering {
        Answering {
            signer: Signer::new(7, &[9; 32]).unwrap(),
            binding: Binding::from_parts(&[b"round"]),
            info: member.map(|_| Arc::new(Implementation::new("t", "1"))),
            member: member.map(Arc::from),
        }
    }

    fn requests() -> InputRequests {
        let url = ElicitRequestUrlParams::new("Sign in", "https://example.com/\"a\"");
        InputRequests::from([(
            "sign_in".to_owned(),
            InputRequest::Elicit(ElicitRequestParams::Url(url)),
        )])
    }

    /// The body of the answer to `asked`, and its `requestState` opened under the round's
    /// binding.
    fn answered(answering: &Answering, asked: Asked) -> (String, Option<Vec<u8>>) {
        let reply: HandlerResult<CallToolResult> = Ok(Reply::InputRequired(asked));
        let (outcome, _) = answering.answer(reply, &Value::from(4), None, false);
        assert_eq!(outcome.kind, "input_required");
        let body = String::from_utf8(outcome.body.unwrap()).unwrap();
        let value: Value = serde_json::from_str(&body).unwrap();
        let state = value["result"]["requestState"].as_str().map(|token| {
            let opened = answering
                .signer
                .open_with_binding(&answering.binding, token);
            opened.unwrap().into_payload()
        });
        (body, state)
    }

    /// A state minted straight into the answer is the one the signer mints as a token of its
    /// own: it opens under the round's binding to the handler's bytes, and the answer is the
    /// result's own serialisation carrying it, the server's identity after it.
    #[test]
    fn a_state_minted_into_the_answer_is_the_result_serialised_with_its_token() {
        let answering = answering(Some(MEMBER));
        let asks = [
            Asked::new(requests(), b"next".to_vec()),
            Asked::state_only(b"only".to_vec()),
        ];
        for asked in asks {
            let (requests, state) = asked.clone().into_parts();
            let (body, opened) = answered(&answering, asked);
            assert_eq!(opened, state);
            let value: Value = serde_json::from_str(&body).unwrap();
            let token = value["result"]["requestState"].as_str().unwrap().to_owned();
            let result = InputRequiredResult::new(requests, Some(token)).unwrap();
            let result = serde_json::to_string(&result).unwrap();
            let expected = format!(
                r#"{{"jsonrpc":"2.0","id":4,"result":{},{MEMBER}}}}}"#,
                &result[..result.len() - 1]
            );
            assert_eq!(body, expected);
        }
        // Without a state, nothing is minted.
        let (body, opened) = answered(&answering, Asked::requests_only(requests()));
        assert_eq!(opened, None);
        assert!(!body.contains("requestState"), "{body}");
    }

    /// Without the server's identity kept as text, the result is built and written with its
    /// token as before: the same state opens.
    #[test]
    fn a_state_without_the_kept_identity_opens_as_well() {
        let answering = answering(None);
        let (body, opened) = answered(&answering, Asked::new(requests(), b"next".to_vec()));
        assert_eq!(opened.as_deref(), Some(&b"next"[..]));
        assert!(!body.contains("_meta"), "{body}");
    }
}
