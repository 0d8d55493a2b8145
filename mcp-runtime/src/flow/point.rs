//! What a question point does with its flow's opened state: reads a form question's answer,
//! and where the flow stops, writes the point's state and says why it stops.
//!
//! The macro writes at each point a `match` on what [`Reader::form`] (or a batch's or a
//! sub-flow's settle) returns, and in the arm that stops, one call on the reader:
//! ```text
//! match reader.form(1, <_ as ElicitForm>::read_answer, "confirm") {
//!     Form::Answered(answer) => answer,
//!     Form::Ask(asking) => break 'stop reader.ask(asking, cx.elicit("..."), &[&(&a, &slot_a, "a")]),
//!     Form::Failed(stopped) => break 'stop stopped,
//! }
//! ```
//! That call is given the carried locals as a slice of [`Put`]s, and the step function moves
//! no value that needs dropping there: each call the step makes is one more path the compiler
//! checks and cleans up after, in every handler, so the work is done here, compiled once.

use std::marker::PhantomData;

use serde_json::Value;

use super::continuation::{Out, Reader, Stopped};
use super::cx::{Halted, internal_error};
use super::question::{Question, Reading};
use super::settle::{Stop, StopKind, Unanswered, ask_open, read_one};
use super::slot::Slot;

/// How a form question's point settles (see [`Reader::form`]).
#[doc(hidden)]
pub enum Form<A> {
    /// The round's answer, read.
    Answered(A),
    /// The question is to be asked (again): the step makes it, only now, and hands it to
    /// [`Reader::ask`].
    Ask(Asking<A>),
    /// The answer given could not be read: the request fails, and the step stops.
    Failed(Stopped),
}

/// A form question still to be made, whose answer is an `A`: it ties the question the step
/// makes to the reader its answer is read with. The reader keeps its key.
#[doc(hidden)]
pub struct Asking<A>(PhantomData<fn() -> A>);

impl Reader {
    /// Settles the form question asked under `key` at point `point`, reading its answer with
    /// `read`. The macro names the form's reader where the form's type is, so that a type
    /// that is no form is reported there, once.
    ///
    /// Where there is no usable answer, the state of `point` is begun: the step makes the
    /// question and hands it to [`Reader::ask`], then writes its carried locals.
    pub fn form<A>(
        &mut self,
        point: u32,
        read: fn(&Value) -> Reading<A>,
        key: &'static str,
    ) -> Form<A> {
        match read_one(read, &self.cx, key) {
            Ok(answer) => Form::Answered(answer),
            Err(Unanswered::Open { key, problem }) => {
                self.begin(point);
                self.out.open = Some((key, problem));
                Form::Ask(Asking(PhantomData))
            }
            Err(Unanswered::Failed(error)) => {
                self.cx.halt(Halted::Failed(error));
                Form::Failed(Stopped(()))
            }
        }
    }

    /// Stops the flow to ask `question`, the one [`Reader::form`] found open, with the
    /// carried locals `carried` in its state.
    pub fn ask<A>(&mut self, _: Asking<A>, question: Question<A>, carried: &[&dyn Put]) -> Stopped {
        let stop = match self.out.open.take() {
            Some((key, problem)) => ask_open(&self.cx, question, key, problem),
            None => Stop::fail(internal_error("a question was asked that no point settled")),
        };
        self.write(carried);
        self.stop(stop)
    }

    /// Stops the flow at `point` for `stop`, with the carried locals `carried` in its state
    /// (and last, where the flow stops inside a sub-flow, the sub-flow's own).
    pub fn halt(&mut self, point: u32, stop: Stop, carried: &[&dyn Put]) -> Stopped {
        self.begin(point);
        self.write(carried);
        self.stop(stop)
    }

    /// Writes each of `carried` into the state.
    fn write(&mut self, carried: &[&dyn Put]) {
        for put in carried {
            put.put_into(self);
        }
    }

    /// Records that the flow stops for `stop`, with the state written: the questions it
    /// asks, or its failure.
    ///
    /// A state that cannot be written (or, in debug builds, does not read back as written)
    /// fails the request here with an internal error naming the carried local at fault,
    /// rather than handing out a state the next round would refuse.
    fn stop(&mut self, stop: Stop) -> Stopped {
        let Out {
            point,
            bytes,
            error,
            ..
        } = std::mem::take(&mut self.out);
        let halted = match stop.0 {
            StopKind::Fail(error) => Halted::Failed(error),
            StopKind::Refuse(reason) => Halted::Refused(reason),
            StopKind::Ask(requests) => match error {
                None => {
                    // A handler's point, not a sub-flow's: the caller stops at its call.
                    if self.round.is_some() {
                        crate::server::record_stop(point);
                    }
                    Halted::Asked {
                        requests,
                        state: bytes,
                        shape: self.shape,
                        round: self.round.unwrap_or(0),
                    }
                }
                Some(error) => {
                    tracing::error!(%error, "a flow's state could not be encoded at a question");
                    Halted::Failed(internal_error(format!(
                        "the flow's state could not be encoded: {error}"
                    )))
                }
            },
        };
        self.cx.halt(halted);
        Stopped(())
    }

    /// Starts writing the state of `point`: a handler's in its envelope, a sub-flow's bare.
    fn begin(&mut self, point: u32) {
        let mut bytes = match self.round {
            Some(round) => super::driver::begin_state(round, self.shape, self.cx.flow()),
            None => Vec::new(),
        };
        let error = super::payload::write_item(&point, &mut bytes)
            .err()
            .map(|error| error.of("point"));
        self.out = Out {
            point,
            bytes,
            error,
            open: None,
        };
    }
}

/// A carried local as a point's stop writes it into the state: `(&local, &slot, "local")`,
/// the local, its slot and its name as the user wrote it; or a sub-flow's state.
#[doc(hidden)]
pub trait Put {
    /// Writes the local into `reader`'s state.
    fn put_into(&self, reader: &mut Reader);
}

impl<T> Put for (&T, &Slot<T>, &'static str) {
    fn put_into(&self, reader: &mut Reader) {
        let (value, slot, local) = *self;
        let out = &mut reader.out;
        if out.error.is_none()
            && let Err(detail) = (slot.write)(value, slot.literals, &mut out.bytes)
        {
            out.error = Some(detail.of(local));
        }
    }
}
