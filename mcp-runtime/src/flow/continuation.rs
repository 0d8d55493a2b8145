//! A flow's continuation as its step function reads and writes it: field by field, each
//! field a carried local whose type the compiler inferred.
//!
//! The macro never writes a carried local's type. It declares one [`Slot`] per carried local
//! at the top of the step function; every point that stops writes the local through its slot
//! (a [`Put`](super::point::Put) handed to [`Reader::ask`] or [`Reader::halt`]), and every
//! point that resumes reads it back through the same slot ([`Reader::take`]). The slot is
//! generic over the local's type, so the compiler infers that type from the local and checks
//! it once, where the slot is declared (`<_ as Carry>::slot()`, spanned at the local's name):
//! it must be [`Carry`].
//!
//! The payload is CBOR: the point's number, then each carried field as one CBOR item, in the
//! order the macro lists them. The flow's shape fingerprint covers the macro's account of its
//! points, keys and carried names and the names of the types the compiler chose for its slots, so
//! a build that carries a local as another type reads as another shape.

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

#[cfg(doc)]
use super::carry::Carry;
use super::cx::{Cx, Halted};
use super::payload;
use super::slot::Slot;

/// What a step function starts from: nothing (the first round) or a verified state's shape
/// and payload.
#[doc(hidden)]
pub struct Resume {
    pub(super) state: Option<(u32, Vec<u8>)>,
    /// Whether a state of another shape restarts the flow rather than being refused.
    pub(super) restart: bool,
    /// The handler's round (counting from 0), or `None` for a sub-flow, which is counted by
    /// its caller's.
    pub(super) round: Option<u32>,
}

impl Resume {
    /// A handler's round `round`, from `state` (its shape and payload) if any.
    pub(crate) fn handler(round: u32, state: Option<(u32, Vec<u8>)>, restart: bool) -> Self {
        Self {
            state,
            restart,
            round: Some(round),
        }
    }

    /// Opens the state for a flow whose shape, as the macro sees it, is `shape` (its points,
    /// keys and carried names), whose slots' types are named `slots`, and whose point `n`
    /// carries `fields[n]` fields.
    ///
    /// A state of another shape is refused (or, where the flow says so, restarts it); a state
    /// that does not decode is refused. Either way the step stops: it awaits the [`Stopped`].
    pub fn open(
        self,
        cx: &Cx,
        shape: &str,
        slots: &[&'static str],
        fields: &[usize],
    ) -> Result<Reader, Stopped> {
        let shape = mix(shape, slots);
        let mut reader = Reader {
            at: Reader::NOWHERE,
            cx: cx.clone(),
            shape,
            payload: Vec::new(),
            fields: payload::Fields::default(),
            round: self.round,
            out: Out::default(),
        };
        if let Some((minted, payload)) = self.state {
            if minted != shape {
                if !self.restart {
                    return Err(refuse(
                        cx,
                        "minted by a build whose flow has another shape".into(),
                    ));
                }
                tracing::info!("requestState of another flow shape: restarting the flow");
                cx.forget_answers();
                reader.round = reader.round.map(|_| 0);
            } else {
                match payload::open(&payload, fields) {
                    Ok((point, fields)) => {
                        reader.at = point;
                        reader.fields = fields;
                        reader.payload = payload;
                    }
                    Err(reason) => {
                        return Err(refuse(
                            cx,
                            format!("verified but does not decode: {reason}"),
                        ));
                    }
                }
            }
        }
        if let Some(round) = reader.round {
            crate::server::record_round(round, shape, reader.point());
        }
        Ok(reader)
    }

    /// Opens the state, before its step runs, for a flow that asks nothing: its step does not
    /// open one. Such a flow never mints a state, so any state it is sent is of another shape
    /// (see [`Resume::open`]): refused, recorded on `cx`, or restarting the flow. Returns what
    /// the step starts from, or `None` where it must not run.
    pub(crate) fn open_for_plain(self, cx: &Cx) -> Option<Self> {
        let restart = self.restart;
        let reader = self.open(cx, "", &[], &[]).ok()?;
        Some(Self::handler(reader.round.unwrap_or(0), None, restart))
    }
}

/// A step that has stopped: what it stopped for is recorded on its context, and awaiting this
/// never completes. The driver sees the record and drops the step's future.
///
/// Every place a step stops (a question, a state refused) breaks out to one await of this at
/// the step function's end, so the step's future has one suspension point for all of them.
#[doc(hidden)]
#[must_use = "a step stops by awaiting its `Stopped`"]
#[derive(Debug)]
pub struct Stopped(pub(super) ());

impl Future for Stopped {
    type Output = Infallible;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Infallible> {
        Poll::Pending
    }
}

/// Records that the state is refused for `reason`.
fn refuse(cx: &Cx, reason: String) -> Stopped {
    cx.halt(Halted::Refused(reason));
    Stopped(())
}

/// The fingerprint of a flow's shape: the macro's part and its slots' type names, FNV-1a
/// folded to 32 bits (enough to tell builds apart, and every state carries it).
fn mix(shape: &str, slots: &[&str]) -> u32 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut eat = |bytes: &[u8]| {
        for byte in bytes {
            hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(shape.as_bytes());
    for name in slots {
        eat(name.as_bytes());
        eat(b"|");
    }
    (hash ^ (hash >> 32)) as u32
}

/// A flow's state, opened: the point it resumes at (none on a first round) and the carried
/// fields still to read.
#[doc(hidden)]
pub struct Reader {
    /// The point the flow resumes at, or [`Reader::NOWHERE`] to run from the start. A field
    /// the macro compares (`reader.at == 1`, `matches!(reader.at, 1 | 2)`), not a method: each
    /// call the step makes is one more path the compiler checks and cleans up after, and a
    /// level of the nest tests it once per point.
    pub at: u32,
    pub(super) cx: Cx,
    pub(super) shape: u32,
    payload: Vec<u8>,
    /// The carried fields still to read.
    fields: payload::Fields,
    pub(super) round: Option<u32>,
    /// The state of the point where the flow stops, once it does (see `point`).
    pub(super) out: Out,
}

/// The state of the point where a flow stops, as the point writes it.
#[derive(Default)]
pub(super) struct Out {
    /// The point where the flow stops.
    pub(super) point: u32,
    pub(super) bytes: Vec<u8>,
    /// The first field that could not be written, and why.
    pub(super) error: Option<String>,
    /// A form question still to make: the key it is asked under, and what was wrong with
    /// the answer given, if one was.
    pub(super) open: Option<(Cow<'static, str>, Option<String>)>,
}

impl Reader {
    /// [`Reader::at`] where the flow resumes at no point: it runs from the start. No flow has
    /// that many points, and a state naming a point its flow does not have is refused.
    pub const NOWHERE: u32 = u32::MAX;

    /// The point the flow resumes at, or `None` to run from the start.
    pub fn point(&self) -> Option<u32> {
        (self.at != Self::NOWHERE).then_some(self.at)
    }

    /// Whether the flow resumes at `point`; if it does, from then on it resumes nowhere, so
    /// that code run again after the point (a loop's next iteration) runs as written. The
    /// macro tests a point resumed inside a loop's body this way, where its locals are taken.
    #[doc(hidden)]
    pub fn arrive(&mut self, point: u32) -> bool {
        let here = self.at == point;
        if here {
            self.at = Self::NOWHERE;
        }
        here
    }

    /// Reads the next carried field, of the local `slot` is for; a field that does not
    /// decode refuses the state, and the step stops.
    pub fn take<T>(&mut self, slot: &Slot<T>) -> Result<T, Stopped> {
        self.fields
            .next(&self.payload, |rest| (slot.read)(rest, slot.literals))
            .map_err(|reason| refuse(&self.cx, format!("verified but does not decode: {reason}")))
    }

    /// Refuses the state: its point is none of the flow's.
    pub fn unknown_point(&self) -> Stopped {
        refuse(
            &self.cx,
            "verified but names no question point of this flow".into(),
        )
    }

    /// Refuses the state: a pattern the flow was inside when it stopped, matched again where it
    /// resumes against the same borrowed place, no longer matches.
    pub fn no_longer_matches(&self) -> Stopped {
        refuse(
            &self.cx,
            "verified but a pattern it stopped inside no longer matches".into(),
        )
    }
}
