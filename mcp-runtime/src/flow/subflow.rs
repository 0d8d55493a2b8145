//! `#[elicit]` sub-flows: reusable multi-round pieces awaited from a flow body.
//!
//! A sub-flow call is a question point of its caller: while the sub-flow asks, the caller's
//! state carries the sub-flow's own state (its shape fingerprint and continuation) in the
//! field of that point, and the sub-flow's keys are scoped under the caller's key for the
//! call (`confirm_total.confirm`), so two calls of one sub-flow never share a key.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::continuation::{Reader, Resume, Stopped};
use super::cx::{Cx, Halted, internal_error};
use super::point::Put;
use super::settle::Stop;
use super::slot::Slot;

/// A call of an `#[elicit]` sub-flow with its arguments, to be awaited directly in the body
/// of a `#[tool]`, `#[prompt]`, `#[resource]` or `#[elicit]` function.
#[must_use = "a sub-flow does nothing until it is awaited in a flow body"]
#[derive(Debug)]
pub struct SubFlow<T> {
    call: T,
}

impl<T> SubFlow<T> {
    #[doc(hidden)]
    pub fn new(call: T) -> Self {
        Self { call }
    }

    /// Calls the sub-flow under `key` instead of the name of the binding its result goes
    /// to; its own questions are asked under `key.` followed by their keys. The key must be
    /// a string literal written right here.
    pub fn key(self, key: &'static str) -> Self {
        let _ = key;
        self
    }
}

/// A sub-flow call is awaited only where the caller's macro turns it into a question point;
/// awaited anywhere else, it fails to compile through the bound [`SubFlowAwaitedOutsideFlow`], which
/// no type implements (see `Question`'s impl for why this is `Future` and not `IntoFuture`).
impl<T> Future for SubFlow<T>
where
    T: SubFlowStep + SubFlowAwaitedOutsideFlow,
{
    type Output = T::Output;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T::Output> {
        Poll::Pending
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Never implemented: the bound that makes awaiting a [`SubFlow`] outside a flow body a
/// compile error that speaks of sub-flows.
///
/// A sub-flow call is awaited directly in the body of a `#[tool]`, `#[prompt]`, `#[resource]`
/// or `#[elicit]` function, where the caller's macro turns it into a question point; awaited
/// anywhere else, the compiler names this trait in its error.
#[diagnostic::on_unimplemented(
    message = "a sub-flow can only be awaited directly in the body of a `#[tool]`, `#[prompt]`, \
               `#[resource]` or `#[elicit]` function",
    label = "this sub-flow is awaited where the caller's macro cannot turn it into a \
             suspension point",
    note = "bind its result first: `let answer: T = sub_flow(&cx, ...).await?;`"
)]
pub trait SubFlowAwaitedOutsideFlow: sealed::Sealed {}

/// The state machine `#[elicit]` makes of a sub-flow: what the function it rewrites returns,
/// inside a [`SubFlow`]. Implemented by the macro only; a caller awaits the `SubFlow`.
pub trait SubFlowStep: Send + 'static {
    /// What the sub-flow returns.
    type Output: Send + 'static;
    /// Runs from `state` (or from the start) to its next question point or its end, opening
    /// the state itself.
    fn step(self, cx: Cx, state: Resume) -> impl Future<Output = Self::Output> + Send + 'static;
}

/// What a flow body awaits with its context as an argument: an `#[elicit]` sub-flow.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is awaited with the handler's context as an argument, so it must be an \
               `#[elicit]` sub-flow",
    label = "not a sub-flow",
    note = "mark the called `async fn` with `#[elicit]`, or do not pass it the context"
)]
pub trait IntoSubFlow {
    /// The sub-flow's state machine.
    #[doc(hidden)]
    type Step: SubFlowStep;
    /// The call.
    #[doc(hidden)]
    fn into_sub_flow(self) -> SubFlow<Self::Step>;
}

#[diagnostic::do_not_recommend]
impl<T: SubFlowStep> IntoSubFlow for SubFlow<T> {
    type Step = T;
    fn into_sub_flow(self) -> Self {
        self
    }
}

/// How a sub-flow call ended this round.
#[doc(hidden)]
pub enum SubSettled<O> {
    /// The sub-flow returned.
    Done(O),
    /// The sub-flow asks (or failed); the caller stops with this sub-state in its own.
    Stop(Stop, SubState),
}

/// A sub-flow's state inside its caller's: the sub-flow's shape and its own payload, as a
/// CBOR pair of an integer and a byte string.
#[doc(hidden)]
#[derive(Default)]
pub struct SubState {
    shape: u32,
    payload: Vec<u8>,
}

impl SubState {
    pub(crate) fn into_parts(self) -> (u32, Vec<u8>) {
        (self.shape, self.payload)
    }
}

impl Serialize for SubState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The payload as one byte string rather than an array of numbers.
        struct Bytes<'a>(&'a [u8]);
        impl Serialize for Bytes<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bytes(self.0)
            }
        }
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&self.shape)?;
        pair.serialize_element(&Bytes(&self.payload))?;
        pair.end()
    }
}

impl<'de> Deserialize<'de> for SubState {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_tuple(2, PairVisitor)
    }
}

struct PairVisitor;

impl<'de> Visitor<'de> for PairVisitor {
    type Value = SubState;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sub-flow's shape and state")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SubState, A::Error> {
        use serde::de::Error;
        let shape = seq
            .next_element()?
            .ok_or_else(|| A::Error::invalid_length(0, &self))?;
        let payload = seq
            .next_element::<ByteBuf>()?
            .ok_or_else(|| A::Error::invalid_length(1, &self))?
            .0;
        if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
            return Err(A::Error::invalid_length(3, &self));
        }
        Ok(SubState { shape, payload })
    }
}

/// An owned byte string.
struct ByteBuf(Vec<u8>);

impl<'de> Deserialize<'de> for ByteBuf {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BytesVisitor;
        impl Visitor<'_> for BytesVisitor {
            type Value = ByteBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E>(self, bytes: &[u8]) -> Result<ByteBuf, E> {
                Ok(ByteBuf(bytes.to_vec()))
            }
            fn visit_byte_buf<E>(self, bytes: Vec<u8>) -> Result<ByteBuf, E> {
                Ok(ByteBuf(bytes))
            }
        }
        deserializer.deserialize_byte_buf(BytesVisitor)
    }
}

/// Runs a sub-flow call under `key` of the caller's context, from `resume` (the sub-state
/// the caller's state carried, when the caller resumes at this call).
#[doc(hidden)]
pub async fn run_sub<S: SubFlowStep>(
    sub: SubFlow<S>,
    cx: &Cx,
    key: &'static str,
    resume: Option<SubState>,
) -> SubSettled<S::Output> {
    let scoped = cx.scoped(key);
    // Boxed, so that sub-flows calling each other (`ping` awaits `pong`, which awaits `ping`)
    // have futures of a finite size: each level's state nests in its caller's, as deep as
    // the rounds the flow may take.
    let step: Pin<Box<dyn Future<Output = S::Output> + Send>> =
        Box::pin(sub.call.step(scoped, Resume::sub(resume)));
    if let Some(output) = cx.run_until_halt(step).await {
        return SubSettled::Done(output);
    }
    match cx.take_halt() {
        Some(Halted::Asked {
            requests,
            state,
            shape,
            ..
        }) => SubSettled::Stop(
            Stop::asking(requests),
            SubState {
                shape,
                payload: state,
            },
        ),
        Some(Halted::Failed(error)) => failed(Stop::fail(error)),
        Some(Halted::Refused(reason)) => failed(Stop::refuse(format!(
            "in the sub-flow called as `{key}`: {reason}"
        ))),
        None => failed(Stop::fail(internal_error(
            "a sub-flow stopped without saying why",
        ))),
    }
}

fn failed<O>(stop: Stop) -> SubSettled<O> {
    // The sub-state is never read when the flow fails; an empty one stands in for it.
    SubSettled::Stop(stop, SubState::default())
}

impl Resume {
    /// A sub-flow call, from the sub-state its caller carried, if any.
    pub(crate) fn sub(state: Option<SubState>) -> Self {
        Self {
            state: state.map(SubState::into_parts),
            restart: false,
            round: None,
        }
    }
}

impl Reader {
    /// Reads the next carried field as a sub-flow's state.
    pub fn take_sub(&mut self) -> Result<SubState, Stopped> {
        self.take(&Slot::<SubState>::of())
    }
}

impl Put for SubState {
    /// Writes the state of the sub-flow the flow stops in, last in its caller's.
    fn put_into(&self, reader: &mut Reader) {
        (self, &Slot::of(), "sub-flow state").put_into(reader);
    }
}
