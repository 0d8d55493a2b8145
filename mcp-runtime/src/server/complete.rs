//! The loop that drives one call to its final result against something that answers its
//! questions: a legacy session's client, or a test's script.
//!
//! Each round is an ordinary call of the handler, as a 2026-07-28 client would make it: the
//! state the previous round handed out and this round's answers. The state never leaves the
//! process, so it travels as the handler's own bytes, neither signed nor sealed. So a flow served over a
//! legacy session, or walked by [`FlowTester`](crate::testing::FlowTester), keeps every
//! guarantee of the stateless wire: the state is verified before any user code runs, code
//! between two questions runs once, invalid answers are asked again.

use tracing::Instrument as _;

use super::handler::{BoxFuture, HandlerResult, Reply};
use super::trace::RoundTrace;
use crate::protocol::{ErrorCode, ErrorObject, InputRequests, InputResponses};

/// Something that answers the input requests of one round.
pub trait Answerer: Send {
    /// Answers `requests`: one response per key, shaped as a client sends them in
    /// `inputResponses` (for example `{"action": "accept", "content": {...}}`), or the
    /// error that ends the call.
    fn answer(
        &mut self,
        requests: InputRequests,
    ) -> BoxFuture<'_, Result<InputResponses, ErrorObject>>;
}

/// Runs rounds of a call until it completes: each round gets the previous round's state and
/// the answers `answerer` gave to its questions. `max_rounds` bounds the loop for handlers
/// that do not bound themselves (flows also count rounds inside their signed state).
pub(crate) async fn complete<R, F>(
    mut round: F,
    answerer: &mut dyn Answerer,
    max_rounds: u32,
) -> Result<R, ErrorObject>
where
    F: FnMut(Option<Vec<u8>>, Option<InputResponses>) -> BoxFuture<'static, HandlerResult<R>>,
{
    let mut state = None;
    let mut answers = None;
    for _ in 0..=max_rounds {
        // Each round recorded apart from the call: on the call's access record or in a span
        // of its own inside the call's. The flow records its round and shape, some of it as
        // the round's future is made (a flow opens its state then), so the span is entered
        // for that too, not only while the future is polled. The round ends when `trace`
        // drops, also when the round fails or the call is dropped.
        let trace = RoundTrace::begin();
        let span = trace.span();
        let reply = span
            .in_scope(|| round(state.take(), answers.take()))
            .instrument(span.clone())
            .await?;
        match reply {
            Reply::Complete(result) => return Ok(result),
            Reply::InputRequired(asked) => {
                let (requests, next) = asked.into_parts();
                trace.record_state_bytes(next.as_ref().map_or(0, Vec::len));
                drop(trace);
                answers = Some(answerer.answer(requests.unwrap_or_default()).await?);
                state = next;
            }
        }
    }
    Err(ErrorObject::new(
        ErrorCode::INTERNAL_ERROR,
        format!("the flow asked for input more than {max_rounds} times and was stopped"),
    ))
}
