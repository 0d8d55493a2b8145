//! The driver: open the envelope of the state the server verified, run the flow to its next
//! question point or its end (the flow reads its own state), then hand the next state back
//! for the server to seal or sign.

use std::future::Future;
use std::time::Duration;

use super::continuation::Resume;
use super::cx::{Cx, Halted, internal_error, invalid_params};
use super::payload;
use crate::logfield::{RateLimit, log_limited, untrusted, warn_limited};
use crate::protocol::ErrorObject;
use crate::server::{Asked, BoxFuture, HandlerResult, Reply, Request};
use crate::state::{INVALID_STATE_MESSAGE, get_varint, put_varint};

/// Any client can send a bad `requestState` on every request: the warnings for refused
/// states are at most 10 lines every 5 seconds (the kernel's `printk` ratelimit), the first
/// line of a window counting those left out.
static REFUSED_STATE: RateLimit = RateLimit::new(10, Duration::from_secs(5));

/// Answers under keys no question asked (a misspelled key, or a `requestState` lost on the
/// way so the flow started over) are debug lines, as rate-limited as refused states.
static UNASKED: RateLimit = RateLimit::new(10, Duration::from_secs(5));

/// Logs the keys of answers no question of this round asked, which the flow ignored.
fn report_unasked(method: &str, target: &str, unasked: &[String]) {
    if unasked.is_empty() {
        return;
    }
    let keys = unasked.join(", ");
    log_limited!(
        UNASKED,
        tracing::Level::DEBUG,
        method,
        target = %untrusted(target),
        keys = %untrusted(&keys),
        "ignored answers under keys no outstanding question has"
    );
}

/// A handler compiled into a state machine by `#[tool]`, `#[prompt]` or `#[resource]`: its
/// step function, over arguments `A`, and its bounds.
///
/// Generated code builds it; there is no reason to build one by hand.
#[doc(hidden)]
pub struct Flow<A, F> {
    /// Runs from the state it is given (or from the start) to the next question point or the
    /// end. The step opens the state itself, checking its shape: only it knows the types it
    /// carries. A flow that asks nothing has no state to open: its step is the body alone, and
    /// the driver checks the state for it ([`Resume::open_for_plain`]).
    pub step: fn(A, Cx, Resume) -> F,
    /// Whether the flow has any question point.
    pub asks: bool,
    /// The handler's own bound on rounds, if it sets one.
    pub max_rounds: Option<u32>,
    /// Whether a state minted by a build whose flow had another shape restarts the flow
    /// from its first question (`on_new_shape = "restart"`) rather than being refused.
    pub restart: bool,
}

/// One round of a flow, its step running: from the round's context and the state it resumes
/// from, to its next question point or its end, what it returned turned into the method's
/// result. The one box of a handler's own code a round.
pub(crate) type Running<R> = BoxFuture<'static, Result<R, ErrorObject>>;

/// What a driver knows of its flow besides its step: its bounds.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    /// The handler's own bound on rounds, if it sets one.
    pub(crate) max_rounds: Option<u32>,
    /// Whether a state of another shape restarts the flow.
    pub(crate) restart: bool,
    /// Whether the flow has any question point.
    pub(crate) asks: bool,
}

impl Bounds {
    pub(crate) fn of<A, F>(flow: &Flow<A, F>) -> Self {
        Self {
            max_rounds: flow.max_rounds,
            restart: flow.restart,
            asks: flow.asks,
        }
    }
}

/// What travels inside the signed token: the round (LEB128), the shape (4 bytes, little
/// endian), the flow's id (8 bytes, little endian: drawn at the first round, the same in all
/// the flow's rounds, for the log), then the state as CBOR (see `payload`), left undecoded
/// until the shape is known to be this build's. The shape written is the flow's mixed with
/// the payload format's version and the envelope's ([`envelope_shape`]).
fn open_envelope(bytes: &[u8]) -> Option<Envelope<'_>> {
    let (round, len) = get_varint(bytes)?;
    let rest = bytes.get(len..)?;
    let (shape, rest) = rest.split_first_chunk::<4>()?;
    let (flow, state) = rest.split_first_chunk::<8>()?;
    Some(Envelope {
        round: u32::try_from(round).ok()?,
        shape: u32::from_le_bytes(*shape),
        flow: u64::from_le_bytes(*flow),
        state,
    })
}

/// A state's envelope, opened.
#[derive(Debug, PartialEq, Eq)]
struct Envelope<'a> {
    round: u32,
    shape: u32,
    flow: u64,
    state: &'a [u8],
}

/// The version of the envelope's layout, mixed into the shape it carries: a state minted with
/// another layout reads as another shape.
const ENVELOPE_FORMAT: u32 = 0x0200_0000;

/// The one answer a client gets for any state the server refuses.
pub(crate) fn invalid_state() -> ErrorObject {
    invalid_params(INVALID_STATE_MESSAGE)
}

/// Refuses a state: the reason goes to the log (escaped, rate-limited), the client gets the
/// one fixed error. Every refusal of a state, by the server or a flow, goes through here.
pub(crate) fn refuse_state(
    method: &str,
    target: &str,
    reason: &dyn std::fmt::Display,
) -> ErrorObject {
    warn_limited!(
        REFUSED_STATE,
        method,
        target = %untrusted(target),
        %reason,
        "refused requestState"
    );
    invalid_state()
}

/// One round of a flow, begun: its state's envelope opened and its context made, before its
/// step is. A handler's driver (`drive_tool` and its kin, generic) asks it for what to start
/// the step from ([`Round::step`]), boxes the step's future, and hands it to [`Round::run`];
/// everything else is compiled once, here, rather than once per handler in the crate that
/// declares it.
pub(crate) struct Round(Result<Begun, ErrorObject>);

/// A round whose state opened (or that has none).
struct Begun {
    method: &'static str,
    target: String,
    cx: Cx,
    /// What the step starts from; `None` once taken, or where it must not run.
    resume: Option<Resume>,
    max_rounds: u32,
}

impl Round {
    /// Begins one round of a flow for `request`, from the request's state if it has one.
    pub(crate) fn begin(request: Request, bounds: Bounds) -> Self {
        Self(begin(request, bounds))
    }

    /// What the step starts from: its context and the state it resumes from; `None` where it
    /// must not run (its state refused before it would open it) or was asked for already.
    pub(crate) fn step(&mut self) -> Option<(Cx, Resume)> {
        let begun = self.0.as_mut().ok()?;
        let resume = begun.resume.take()?;
        Some((begun.cx.clone(), resume))
    }

    /// The round, run: the step's future `running` (from [`Round::step`]) to its end or its
    /// next question point. The future holds only what lives across the flow's run, not the
    /// request, so boxing it copies less.
    pub(crate) fn run<R: Send + 'static>(
        self,
        running: Option<Running<R>>,
    ) -> BoxFuture<'static, HandlerResult<R>> {
        match self.0 {
            Ok(Begun {
                method,
                target,
                cx,
                max_rounds,
                ..
            }) => Box::pin(halt(method, target, cx, running, max_rounds)),
            Err(refused) => Box::pin(std::future::ready(Err(refused))),
        }
    }
}

/// The request's parts are moved from where they are into the context's allocation.
fn begin(request: Request, bounds: Bounds) -> Result<Begun, ErrorObject> {
    let method = request.method;
    let max_rounds = bounds
        .max_rounds
        .unwrap_or(request.app.flow_limits().max_rounds);
    let (round, flow, state) = match request.state {
        // Only a flow that asks has rounds to tell apart.
        None => (0, bounds.asks.then(rand::random::<u64>), None),
        Some(mut payload) => {
            let Some(envelope) = open_envelope(&payload) else {
                let reason = "verified but does not decode";
                return Err(refuse_state(method, &request.target, &reason));
            };
            let (round, shape, flow) = (envelope.round, envelope.shape, envelope.flow);
            // The state is what follows the envelope: kept in place, not copied out.
            payload.drain(..payload.len() - envelope.state.len());
            (round, Some(flow), Some((envelope_shape(shape), payload)))
        }
    };
    if let Some(flow) = flow {
        crate::server::record_flow(flow);
    }
    let cx = Cx::new(
        request.capabilities,
        request.context,
        request.subject,
        request.claims,
        request.progress,
        request.logger,
        request.input_responses,
        request.app,
        flow.unwrap_or(0),
    );
    let resume = Resume::handler(round, state, bounds.restart);
    let resume = match bounds.asks {
        true => Some(resume),
        false => resume.open_for_plain(&cx),
    };
    Ok(Begun {
        method,
        target: request.target,
        cx,
        resume,
        max_rounds,
    })
}

/// The flow's run, to its end or its next question point, and what it asked.
///
/// An `async` block, not an `async fn`, whose future would hold its arguments twice (as
/// passed, and as its body's own): this one is boxed once a round.
#[allow(clippy::manual_async_fn, reason = "its arguments held once, not twice")]
fn halt<R>(
    method: &'static str,
    target: String,
    cx: Cx,
    running: Option<Running<R>>,
    max_rounds: u32,
) -> impl Future<Output = HandlerResult<R>> + Send + 'static
where
    R: Send + 'static,
{
    async move {
        if let Some(running) = running
            && let Some(output) = cx.run_until_halt(running).await
        {
            report_unasked(method, &target, &cx.unasked());
            return output.map(Reply::Complete);
        }
        let unasked = cx.unasked();
        report_unasked(method, &target, &unasked);
        match cx.take_halt() {
            // The state is in its envelope already: the point that stopped wrote it there.
            Some(Halted::Asked {
                requests,
                state,
                round,
                ..
            }) => {
                let next = round.saturating_add(1);
                if next > max_rounds {
                    return Err(internal_error(format!(
                        "the flow asked for input more than {max_rounds} times and was stopped"
                    )));
                }
                Ok(Reply::InputRequired(
                    Asked::new(requests, state).with_unasked(unasked),
                ))
            }
            Some(Halted::Failed(error)) => Err(error),
            Some(Halted::Refused(reason)) => Err(refuse_state(method, &target, &reason)),
            None => Err(internal_error("the flow stopped without saying why")),
        }
    }
}

/// The shape a state's envelope carries: the flow's, mixed with the payload format's
/// version and the envelope's, and back (the mix is its own inverse). States minted by a
/// build that wrote payloads or envelopes another way thus read as another shape: refused, or
/// restarted under `on_new_shape = "restart"`, and never decoded.
fn envelope_shape(shape: u32) -> u32 {
    shape ^ payload::FORMAT ^ ENVELOPE_FORMAT
}

/// Room a handler's state is begun with: its envelope (at most 17 bytes) and the state of a
/// point carrying a few locals, written without growing the buffer on the way.
const STATE_ROOM: usize = 128;

/// A handler's state stopped in round `round` (counting from 0) of the flow `flow` of shape
/// `shape`, begun: its envelope, the round it resumes in first, written where the point
/// then writes its state, so that the state is ready to sign as the point leaves it.
pub(super) fn begin_state(round: u32, shape: u32, flow: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(STATE_ROOM);
    put_envelope(
        &mut out,
        round.saturating_add(1),
        envelope_shape(shape),
        flow,
    );
    out
}

fn put_envelope(out: &mut Vec<u8>, round: u32, shape: u32, flow: u64) {
    put_varint(out, u64::from(round));
    out.extend_from_slice(&shape.to_le_bytes());
    out.extend_from_slice(&flow.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::{Envelope, begin_state, envelope_shape, open_envelope, payload, put_envelope};

    fn envelope_bytes(round: u32, shape: u32, flow: u64, state: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_envelope(&mut out, round, shape, flow);
        out.extend_from_slice(state);
        out
    }

    #[test]
    fn the_shape_written_is_never_the_flows_own() {
        // The previous build wrote the flow's own shape before a JSON payload: such a state
        // must read as another shape, whatever the flow's fingerprint; so must a state of the
        // envelope before it carried the flow's id.
        for shape in [0, 1, 0x4342_4f52, 0xdead_beef, u32::MAX] {
            assert_ne!(envelope_shape(shape), shape, "{shape:#x}");
            assert_ne!(envelope_shape(shape), shape ^ payload::FORMAT, "{shape:#x}");
            let bytes = envelope_bytes(3, envelope_shape(shape), 0x0123_4567_89ab_cdef, b"payload");
            assert_eq!(
                open_envelope(&bytes),
                Some(Envelope {
                    round: 3,
                    shape: envelope_shape(shape),
                    flow: 0x0123_4567_89ab_cdef,
                    state: &b"payload"[..],
                })
            );
        }
    }

    #[test]
    fn the_envelope_is_written_before_the_state_as_before() {
        // The layout tokens already handed out carry: round (LEB128), shape and flow (little
        // endian), then the state.
        let mut expected = vec![0x96, 0x01, 0x04, 0x03, 0x02, 0x01];
        expected.extend_from_slice(&0x0807_0605_0403_0201_u64.to_le_bytes());
        expected.extend_from_slice(b"payload");
        let bytes = envelope_bytes(150, 0x0102_0304, 0x0807_0605_0403_0201, b"payload");
        assert_eq!(bytes, expected);
        // A point begins its state in the envelope of the round after its own.
        let mut begun = begin_state(149, envelope_shape(0x0102_0304), 0x0807_0605_0403_0201);
        begun.extend_from_slice(b"payload");
        assert_eq!(begun, expected);
    }
}
