//! Questions a handler asks, and how each kind reads its answer.

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Map, Value};

use crate::form::ElicitForm;
use crate::logfield::untrusted;
#[allow(deprecated)] // reason: sampling and roots are deprecated on the wire, yet still served
use crate::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, InputRequest, ListRootsResult,
};

/// The user did not accept a question: they declined it or dismissed it.
///
/// A handler sees refusals as the `Err` side of an elicitation's answer. The shortest way to
/// handle one is `?`, which ends the call with a well-formed result that says the user
/// declined (or cancelled), and asks nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The user explicitly said no.
    Declined,
    /// The user dismissed the question without choosing.
    Cancelled,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Declined => f.write_str("the user declined the request"),
            Self::Cancelled => f.write_str("the user cancelled the request"),
        }
    }
}

impl std::error::Error for Refusal {}

/// The capability of the client a question needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    FormElicitation,
    UrlElicitation,
    Sampling,
    Roots,
}

/// What a raw answer turned out to be.
#[doc(hidden)]
pub enum Reading<A> {
    /// A usable answer.
    Answer(A),
    /// An object, but not an acceptable answer: ask again, telling the user what was wrong.
    Invalid(String),
    /// Not an object at all: a protocol error.
    NotAnObject,
}

/// One question, not yet asked: what goes on the wire and how to read the answer.
///
/// Built by the methods of [`Cx`](super::Cx) and awaited directly in the body of a
/// `#[tool]`, `#[prompt]` or `#[resource]` function (alone, or in a tuple to ask several
/// things in one round). The macro turns each such await into a suspension point of the
/// handler's state machine.
#[must_use = "a question does nothing until it is awaited in a handler body"]
pub struct Question<A> {
    pub(crate) need: Need,
    pub(crate) render: Render,
    _answer: PhantomData<fn() -> A>,
}

/// What a question's answer can be, and how it is read from the client's raw response.
#[doc(hidden)]
pub trait Answer: Sized {
    /// Reads a raw response.
    fn read(raw: &Value) -> Reading<Self>;
}

impl<F: ElicitForm> Answer for Result<F, Refusal> {
    fn read(raw: &Value) -> Reading<Self> {
        read_form::<F>(raw)
    }
}

impl Answer for Result<(), Refusal> {
    fn read(raw: &Value) -> Reading<Self> {
        read_url(raw)
    }
}

#[allow(deprecated)] // reason: still served in this revision
impl Answer for CreateMessageResult {
    fn read(raw: &Value) -> Reading<Self> {
        read_json(raw)
    }
}

#[allow(deprecated)] // reason: still served in this revision
impl Answer for ListRootsResult {
    fn read(raw: &Value) -> Reading<Self> {
        let reading = read_json::<Self>(raw);
        if let Reading::Answer(result) = &reading
            && let Some(root) = result
                .roots
                .iter()
                .find(|root| !root.uri.starts_with(ROOT_SCHEME))
        {
            return Reading::Invalid(format!(
                "root {} is not a `{ROOT_SCHEME}` URI",
                quote(&root.uri)
            ));
        }
        reading
    }
}

/// What every root's `uri` starts with: the schema allows no other scheme.
const ROOT_SCHEME: &str = "file://";

impl<A> fmt::Debug for Question<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Question")
            .field("need", &self.need)
            .finish_non_exhaustive()
    }
}

/// How to put a question on the wire, with a note on what was wrong last time.
pub(crate) enum Render {
    Form {
        message: String,
        schema: fn() -> &'static crate::protocol::ElicitRequestedSchema,
    },
    Url {
        message: String,
        url: String,
    },
    #[allow(deprecated)] // reason: still served in this revision
    Sampling(Box<CreateMessageRequestParams>),
    Roots,
}

impl Render {
    pub(crate) fn into_request(self, problem: Option<&str>) -> InputRequest {
        match self {
            Self::Form { message, schema } => {
                let message = match problem {
                    Some(problem) => format!("{message}\n\n{problem}"),
                    None => message,
                };
                InputRequest::Elicit(ElicitRequestParams::Form(
                    ElicitRequestFormParams::with_static_schema(message, schema()),
                ))
            }
            Self::Url { message, url } => {
                InputRequest::Elicit(ElicitRequestParams::Url(ElicitRequestUrlParams {
                    message,
                    url,
                    ..ElicitRequestUrlParams::default()
                }))
            }
            #[allow(deprecated)] // reason: still served in this revision
            Self::Sampling(params) => {
                unsaid(problem, "sampling/createMessage");
                InputRequest::CreateMessage(*params)
            }
            #[allow(deprecated)] // reason: still served in this revision
            Self::Roots => {
                unsaid(problem, "roots/list");
                InputRequest::ListRoots(None)
            }
        }
    }
}

/// A request with no message to carry what was wrong with its last answer: the server's log
/// says it instead.
fn unsaid(problem: Option<&str>, method: &'static str) {
    if let Some(problem) = problem {
        tracing::debug!(method, problem = %untrusted(problem), "asking again: the answer was invalid");
    }
}

impl<A> Question<A> {
    fn new(need: Need, render: Render) -> Self {
        Self {
            need,
            render,
            _answer: PhantomData,
        }
    }

    /// Asks under `key` instead of the name of the binding the answer goes to.
    ///
    /// The key must be a string literal written right here: the macro reads it to keep keys
    /// unique within the handler. At run time this returns the question unchanged.
    pub fn key(self, key: &'static str) -> Self {
        let _ = key;
        self
    }
}

/// Awaiting a [`Question`] anywhere the handler's macro cannot see it is a compile error.
///
/// The macro replaces each question it finds awaited in a handler body with a suspension
/// point, so a question never runs as a future. Awaited anywhere else (in a closure, in a
/// helper function, on a clone of the context), it would have nowhere to suspend to; this
/// impl exists only so that mistake fails to compile with a message about questions,
/// through the bound [`QuestionAwaitedOutsideFlow`], which no type implements.
//
// Why `Future` and not `IntoFuture`: `.await` asks for `IntoFuture`, and core's blanket
// `impl<F: Future> IntoFuture for F` is a second candidate beside any impl of ours, so rustc
// reports the root obligation ("is not a future") and never shows our message. Through the
// blanket impl, the unmet bound below is the leaf rustc reports; it is on `A`, not on
// `Question<A>`, because rustc also prefers the root when both have the same self type.
impl<A> Future for Question<A>
where
    A: QuestionAwaitedOutsideFlow,
{
    type Output = A;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<A> {
        Poll::Pending
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Never implemented: the bound that makes awaiting a [`Question`] outside a handler body a
/// compile error that speaks of questions.
///
/// A question is awaited directly in the body of a `#[tool]`, `#[prompt]`, `#[resource]` or
/// `#[elicit]` function, where the macro turns the await into a suspension point. Awaited
/// anywhere else (a closure, a helper function, a clone of the context), it would have nowhere
/// to suspend to, and the compiler names this trait in its error.
#[diagnostic::on_unimplemented(
    message = "a question can only be awaited directly in the body of a `#[tool]`, `#[prompt]`, \
               `#[resource]` or `#[elicit]` function, on its own context",
    label = "this question is awaited where the handler's macro cannot turn it into a \
             suspension point",
    note = "bind the answer with `let answer = cx.elicit(...).await?;` in the handler body, or \
            mark the `async fn` that asks it `#[elicit]` and await that from the handler"
)]
pub trait QuestionAwaitedOutsideFlow: sealed::Sealed {}

pub(crate) fn form<F: ElicitForm>(message: String) -> Question<Result<F, Refusal>> {
    Question::new(
        Need::FormElicitation,
        Render::Form {
            message,
            schema: F::requested_schema,
        },
    )
}

pub(crate) fn url(message: String, url: String) -> Question<Result<(), Refusal>> {
    Question::new(Need::UrlElicitation, Render::Url { message, url })
}

#[allow(deprecated)] // reason: still served in this revision
pub(crate) fn sampling(params: CreateMessageRequestParams) -> Question<CreateMessageResult> {
    Question::new(Need::Sampling, Render::Sampling(Box::new(params)))
}

#[allow(deprecated)] // reason: still served in this revision
pub(crate) fn roots() -> Question<ListRootsResult> {
    Question::new(Need::Roots, Render::Roots)
}

/// Reads `action` (and `content` for an accepted form) of an elicitation answer.
fn read_action(answer: &Value) -> Result<(&str, Option<&Value>), Reading<()>> {
    let Some(object) = answer.as_object() else {
        return Err(Reading::NotAnObject);
    };
    match object.get("action").and_then(Value::as_str) {
        Some(action) => Ok((action, object.get("content"))),
        None => Err(Reading::Invalid(
            "the answer had no `action` of \"accept\", \"decline\" or \"cancel\"".to_owned(),
        )),
    }
}

/// The refusal an answer's `action` makes, if it is one; recorded on the round's request
/// (its `answer` field), which never holds an answer's content.
fn refusal(action: &str) -> Option<Refusal> {
    let (refusal, action) = match action {
        "decline" => (Refusal::Declined, "decline"),
        "cancel" => (Refusal::Cancelled, "cancel"),
        _ => return None,
    };
    crate::server::record_answer(action);
    Some(refusal)
}

pub(crate) fn read_form<F: ElicitForm>(answer: &Value) -> Reading<Result<F, Refusal>> {
    let (action, content) = match read_action(answer) {
        Ok(parts) => parts,
        Err(reading) => return reading.retype(),
    };
    if let Some(refusal) = refusal(action) {
        return Reading::Answer(Err(refusal));
    }
    if action != "accept" {
        return Reading::Invalid(format!("unknown action {}", quote(action)));
    }
    let empty = Map::new();
    let content = match content {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(content)) => content,
        Some(_) => return Reading::Invalid("the form content was not an object".to_owned()),
    };
    match F::from_content(content) {
        Ok(form) => Reading::Answer(Ok(form)),
        Err(errors) => Reading::Invalid(format!("Please correct:\n{errors}")),
    }
}

fn read_url(answer: &Value) -> Reading<Result<(), Refusal>> {
    let action = match read_action(answer) {
        Ok((action, _)) => action,
        Err(reading) => return reading.retype(),
    };
    match (action, refusal(action)) {
        (_, Some(refusal)) => Reading::Answer(Err(refusal)),
        ("accept", None) => Reading::Answer(Ok(())),
        (other, None) => Reading::Invalid(format!("unknown action {}", quote(other))),
    }
}

fn read_json<T: serde::de::DeserializeOwned>(answer: &Value) -> Reading<T> {
    if !answer.is_object() {
        return Reading::NotAnObject;
    }
    match T::deserialize(answer) {
        Ok(value) => Reading::Answer(value),
        Err(error) => Reading::Invalid(format!(
            "the answer could not be read: {}",
            untrusted(&error.to_string())
        )),
    }
}

/// Client-chosen text shown back to the client in a re-ask: in backticks, escaped and cut to
/// 40 characters, as form fields show a wrong value.
fn quote(text: &str) -> String {
    format!("`{}`", untrusted(text).max_chars(40))
}

impl Reading<()> {
    fn retype<A>(self) -> Reading<A> {
        match self {
            Self::Answer(()) | Self::NotAnObject => Reading::NotAnObject,
            Self::Invalid(why) => Reading::Invalid(why),
        }
    }
}
