//! How a question point settles against a round's answers: the questions read, and where one
//! is still open, the stop that asks it (or fails the request).

use std::borrow::Cow;

use serde_json::{Value, json};

use super::cx::{Cx, invalid_params};
use super::question::{Answer, Need, Question, Reading};
use crate::protocol::{ErrorCode, ErrorObject, InputRequest, InputRequests, InputResponses};

/// The outcome of one question point.
#[doc(hidden)]
pub enum Settled<A> {
    /// Every question has a usable answer.
    Answered(A),
    /// The flow must stop here.
    Stop(Stop),
}

/// A flow that must stop at a question point, and why.
#[doc(hidden)]
pub struct Stop(pub(crate) StopKind);

pub(crate) enum StopKind {
    /// The questions, keyed as on the wire: a single question's point puts its one request
    /// straight into the map the answer carries, with no list on the way.
    Ask(InputRequests),
    Fail(ErrorObject),
    /// A sub-flow's state is refused.
    Refuse(String),
}

impl Stop {
    /// Asks a batch's questions, in their order: of two under one key, the later stands.
    pub(crate) fn ask(requests: Vec<(String, InputRequest)>) -> Self {
        Self(StopKind::Ask(requests.into_iter().collect()))
    }

    /// Asks one question, under `key`.
    fn one(key: String, request: InputRequest) -> Self {
        let mut requests = InputRequests::new();
        requests.insert(key, request);
        Self(StopKind::Ask(requests))
    }

    /// Asks the questions a sub-flow stopped for.
    pub(crate) fn asking(requests: InputRequests) -> Self {
        Self(StopKind::Ask(requests))
    }

    pub(crate) fn fail(error: ErrorObject) -> Self {
        Self(StopKind::Fail(error))
    }

    pub(crate) fn refuse(reason: String) -> Self {
        Self(StopKind::Refuse(reason))
    }
}

/// Questions asked together at one point: a single [`Question`] or a tuple of them.
#[doc(hidden)]
pub trait Batch: Sized {
    /// The answers, in the same shape.
    type Answers;
    /// Settles the questions `ask` builds against this round's answers, under `keys`.
    ///
    /// The answers are read by type, so `ask` (the question expression as written, with its
    /// message and other arguments) runs only when the questions must be put on the wire.
    fn settle(ask: impl FnOnce() -> Self, cx: &Cx, keys: &[&'static str])
    -> Settled<Self::Answers>;
}

/// One question read against this round's answers.
enum Read<A> {
    Answered(A),
    /// Still open; `Some` says what was wrong with the answer given.
    Open(Option<String>),
}

/// Reads the answer under `key` with `read`, if the client sent one.
fn read_answer<A>(
    key: &str,
    answers: Option<&InputResponses>,
    read: fn(&Value) -> Reading<A>,
) -> Result<Read<A>, ErrorObject> {
    let Some(raw) = answers.and_then(|answers| answers.get(key)) else {
        return Ok(Read::Open(None));
    };
    match read(raw) {
        Reading::Answer(answer) => Ok(Read::Answered(answer)),
        Reading::Invalid(problem) => Ok(Read::Open(Some(problem))),
        Reading::NotAnObject => Err(invalid_params(format!(
            "inputResponses[\"{key}\"] must be an object"
        ))),
    }
}

impl<A> Question<A> {
    /// The request that asks this question again, or the error for a client that cannot
    /// be asked it.
    fn ask(
        self,
        cx: &Cx,
        key: Cow<'static, str>,
        read: &Read<A>,
    ) -> Result<(String, InputRequest), ErrorObject> {
        if !cx.supports(self.need) {
            return Err(missing_capability(self.need));
        }
        let problem = match read {
            Read::Open(problem) => problem.as_deref(),
            Read::Answered(_) => None,
        };
        Ok((key.into_owned(), self.render.into_request(problem)))
    }
}

macro_rules! batch {
    ($($q:ident $r:ident $k:ident $a:ident $i:tt),+) => {
        impl<$($a: Answer),+> Batch for ($(Question<$a>,)+) {
            type Answers = ($($a,)+);
            fn settle(
                ask: impl FnOnce() -> Self,
                cx: &Cx,
                keys: &[&'static str],
            ) -> Settled<Self::Answers> {
                let keys = [$(cx.wire_key(keys[$i])),+];
                let answers = cx.take_answers(&keys);
                $(
                    let $r = match read_answer(&keys[$i], answers.as_ref(), $a::read) {
                        Ok(read) => read,
                        Err(error) => return Settled::Stop(Stop(StopKind::Fail(error))),
                    };
                )+
                let ($($r,)+) = match ($($r,)+) {
                    ($(Read::Answered($r),)+) => return Settled::Answered(($($r,)+)),
                    open => open,
                };
                // Answers are not carried between rounds, so a batch with any question still
                // open is asked again whole.
                let ($($q,)+) = ask();
                let [$($k),+] = keys;
                let requests = [$($q.ask(cx, $k, &$r)),+];
                match requests.into_iter().collect::<Result<Vec<_>, _>>() {
                    Ok(requests) => Settled::Stop(Stop::ask(requests)),
                    Err(error) => Settled::Stop(Stop(StopKind::Fail(error))),
                }
            }
        }
    };
}

batch!(q0 r0 k0 A0 0);
batch!(q0 r0 k0 A0 0, q1 r1 k1 A1 1);
batch!(q0 r0 k0 A0 0, q1 r1 k1 A1 1, q2 r2 k2 A2 2);
batch!(q0 r0 k0 A0 0, q1 r1 k1 A1 1, q2 r2 k2 A2 2, q3 r3 k3 A3 3);
batch!(q0 r0 k0 A0 0, q1 r1 k1 A1 1, q2 r2 k2 A2 2, q3 r3 k3 A3 3, q4 r4 k4 A4 4);
batch!(q0 r0 k0 A0 0, q1 r1 k1 A1 1, q2 r2 k2 A2 2, q3 r3 k3 A3 3, q4 r4 k4 A4 4, q5 r5 k5 A5 5);

/// Why a single question's point has no answer this round.
pub(super) enum Unanswered {
    /// The question is to be asked (again) under `key`; `problem` says what was wrong with
    /// the answer given, if one was.
    Open {
        key: Cow<'static, str>,
        problem: Option<String>,
    },
    /// The answer given could not be read: the request fails.
    Failed(ErrorObject),
}

/// Reads the answer to one question asked under `key` with `read`, up to asking it: the
/// answer, or why there is none.
pub(super) fn read_one<A>(
    read: fn(&Value) -> Reading<A>,
    cx: &Cx,
    key: &'static str,
) -> Result<A, Unanswered> {
    let key = cx.wire_key(key);
    let answers = cx.take_answers(std::slice::from_ref(&key));
    match read_answer(&key, answers.as_ref(), read) {
        Ok(Read::Answered(answer)) => Ok(answer),
        Ok(Read::Open(problem)) => Err(Unanswered::Open { key, problem }),
        Err(error) => Err(Unanswered::Failed(error)),
    }
}

/// The stop that asks `question`, open under `key` with `problem`.
pub(super) fn ask_open<A>(
    cx: &Cx,
    question: Question<A>,
    key: Cow<'static, str>,
    problem: Option<String>,
) -> Stop {
    match question.ask(cx, key, &Read::Open(problem)) {
        Ok((key, request)) => Stop::one(key, request),
        Err(error) => Stop(StopKind::Fail(error)),
    }
}

impl<A: Answer> Batch for Question<A> {
    type Answers = A;
    fn settle(ask: impl FnOnce() -> Self, cx: &Cx, keys: &[&'static str]) -> Settled<A> {
        match read_one(A::read, cx, keys[0]) {
            Ok(answer) => Settled::Answered(answer),
            Err(Unanswered::Failed(error)) => Settled::Stop(Stop::fail(error)),
            Err(Unanswered::Open { key, problem }) => {
                Settled::Stop(ask_open(cx, ask(), key, problem))
            }
        }
    }
}

fn missing_capability(need: Need) -> ErrorObject {
    let (required, what) = match need {
        Need::FormElicitation => (json!({"elicitation": {"form": {}}}), "form elicitation"),
        Need::UrlElicitation => (json!({"elicitation": {"url": {}}}), "URL elicitation"),
        Need::Sampling => (json!({"sampling": {}}), "sampling"),
        Need::Roots => (json!({"roots": {}}), "roots"),
    };
    ErrorObject::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("this request needs the client capability for {what}"),
    )
    .with_data(json!({ "requiredCapabilities": required }))
}
