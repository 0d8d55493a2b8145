//! The per-request context a handler receives: what the client can do, this round's
//! answers, and why its flow stopped (how a question point settles is `settle`'s).

use std::borrow::Cow;
use std::fmt;
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Poll;

use serde::Serialize;

use super::question::{self, Need, Question, Refusal};
use crate::auth::Claims;
use crate::form::ElicitForm;
#[allow(deprecated)] // reason: sampling and roots are deprecated on the wire, yet still served
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ErrorCode, ErrorObject,
    InputRequests, InputResponses, ListRootsResult, LoggingLevel,
};
use crate::server::app_state::FromAppState;
use crate::server::{AppState, DeclaredCapabilities, Logger, Progress, RequestContext, State};

/// The context of one request to a handler: what the client can do, and the questions it
/// can be asked.
///
/// A `Cx` is a cheap handle (cloning shares it). Questions are asked by awaiting the
/// [`Question`]s its methods build, directly in the handler body; each such await is a point
/// where the flow can stop and resume. Its input key is the name the answer is bound to
/// (`who` below) unless `.key("...")` names another.
///
/// A question's own arguments (its message, its URL) are evaluated only when it is put on the
/// wire: when it is first asked, and again if it must be asked again (its answer was missing
/// or invalid). The round that brings a usable answer reads it without them. Everything else
/// between two questions runs once.
///
/// ```
/// use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
///
/// #[derive(ElicitForm)]
/// struct Name {
///     name: String,
/// }
///
/// /// Greet the user by name.
/// #[tool]
/// async fn greet(cx: Cx) -> ToolResult {
///     let who: Name = cx.elicit("Who are you?").await?;
///     Ok(text(format!("Hello, {}!", who.name)))
/// }
/// ```
#[derive(Clone)]
pub struct Cx {
    inner: Arc<Inner>,
    /// The key of the sub-flow call this context runs, prefixed to every key it asks under
    /// (`outer.inner`), so two calls of one sub-flow never share a key.
    scope: Option<Arc<str>>,
}

struct Inner {
    /// Shared with where the server read them, not copied.
    capabilities: DeclaredCapabilities,
    request: RequestContext,
    app: AppState,
    subject: Option<String>,
    claims: Option<Arc<Claims>>,
    progress: Progress,
    logger: Logger,
    /// This round's answers. The first question point the flow reaches takes them; every
    /// later one in the same request finds none, so a request only ever answers one round.
    answers: Mutex<Option<InputResponses>>,
    /// The keys of this round's answers that the question point taking them did not ask.
    unasked: Mutex<Vec<String>>,
    /// Set when the flow stops at a question point or fails there.
    halt: Mutex<Option<Halted>>,
    /// The flow's id, which the state a point of it writes carries (0 for a flow that asks
    /// nothing).
    flow: u64,
}

/// Why a flow stopped before finishing.
pub(crate) enum Halted {
    /// It asks these questions; the continuation is the serialised state of the flow of
    /// shape `shape`, stopped in its round `round` (counting from 0). A handler's state is
    /// written in its envelope, ready to sign; a sub-flow's is bare, for its caller to carry.
    Asked {
        requests: InputRequests,
        state: Vec<u8>,
        shape: u32,
        round: u32,
    },
    /// The request fails with this error.
    Failed(ErrorObject),
    /// The request's state is refused, for this reason (logged, never sent).
    Refused(String),
}

impl fmt::Debug for Cx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cx")
            .field("capabilities", &self.inner.capabilities)
            .field("subject", &self.inner.subject)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding these locks leaves the data consistent (plain assignments).
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Cx {
    /// Inlined into the driver, which hands over the parts of a request it took apart: they
    /// are moved into the context's allocation with fewer copies on the way.
    #[inline]
    #[allow(
        clippy::too_many_arguments,
        reason = "the parts of one handler request, handed over once by the driver"
    )]
    pub(crate) fn new(
        capabilities: DeclaredCapabilities,
        request: RequestContext,
        subject: Option<String>,
        claims: Option<Arc<Claims>>,
        progress: Progress,
        logger: Logger,
        answers: Option<InputResponses>,
        app: AppState,
        flow: u64,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                capabilities,
                request,
                app,
                subject,
                claims,
                progress,
                logger,
                answers: Mutex::new(answers),
                unasked: Mutex::new(Vec::new()),
                halt: Mutex::new(None),
                flow,
            }),
            scope: None,
        }
    }

    /// The application state registered for `T` on the server builder, if any. Handlers
    /// usually take a [`State<T>`] parameter instead, which the server checks at start-up.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.app.get::<T>()
    }

    /// Announces that the resource `uri` changed, to the listen streams and legacy sessions
    /// subscribed to it: the server's [`Registry::notify_resource_updated`](crate::server::Registry::notify_resource_updated).
    /// Application code outside handlers uses the [`Registry`](crate::server::Registry)
    /// itself.
    pub fn notify_resource_updated(&self, uri: &str) {
        if let Some(registry) = self.state::<crate::server::Registry>() {
            registry.notify_resource_updated(uri);
        }
    }

    /// The server's application state, for a generated `State<T>` parameter.
    pub(crate) fn app(&self) -> &AppState {
        &self.inner.app
    }

    /// This context, asking under `key.` for a sub-flow called under `key`.
    pub(crate) fn scoped(&self, key: &str) -> Self {
        let scope = match &self.scope {
            Some(outer) => format!("{outer}.{key}"),
            None => key.to_owned(),
        };
        Self {
            inner: Arc::clone(&self.inner),
            scope: Some(scope.into()),
        }
    }

    /// The key a question asked under `key` goes on the wire as.
    pub(super) fn wire_key(&self, key: &'static str) -> Cow<'static, str> {
        match &self.scope {
            Some(scope) => Cow::Owned(format!("{scope}.{key}")),
            None => Cow::Borrowed(key),
        }
    }

    /// Asks the user to fill in the form `F` (form-mode elicitation) with `message` above it.
    ///
    /// The answer is the parsed, validated form, or the user's [`Refusal`]. Content that
    /// fails validation is never returned: the question is asked again with what was wrong.
    pub fn elicit<F: ElicitForm>(
        &self,
        message: impl Into<String>,
    ) -> Question<Result<F, Refusal>> {
        question::form::<F>(message.into())
    }

    /// Asks the user to open `url` (URL-mode elicitation), for work that must not pass
    /// through the client, such as entering credentials or paying.
    ///
    /// `Ok(())` means the user agreed to open the page, not that the work there is done.
    /// Needs the client's `elicitation.url` capability: check [`Cx::supports_url_elicitation`]
    /// first if the flow has another way to go.
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Question<Result<(), Refusal>> {
        question::url(message.into(), url.into())
    }

    /// Asks the client to sample its language model.
    #[deprecated(note = "sampling is deprecated in MCP 2026-07-28, though still on the wire")]
    #[allow(deprecated)] // reason: the parameter and answer types are deprecated with it
    pub fn sample(&self, params: CreateMessageRequestParams) -> Question<CreateMessageResult> {
        question::sampling(params)
    }

    /// Asks the client for its roots.
    #[deprecated(note = "roots are deprecated in MCP 2026-07-28, though still on the wire")]
    #[allow(deprecated)] // reason: the answer type is deprecated with it
    pub fn list_roots(&self) -> Question<ListRootsResult> {
        question::roots()
    }

    /// What this round's request says beyond its arguments: the client's identity, the
    /// protocol revision and era, the request's `_meta`, and the HTTP headers the server
    /// exposes ([`RequestContext`]).
    pub fn request(&self) -> &RequestContext {
        &self.inner.request
    }

    /// The capabilities the client declared in this request.
    pub fn capabilities(&self) -> &ClientCapabilities {
        &self.inner.capabilities
    }

    /// Whether the client can fill in forms (form-mode elicitation).
    pub fn supports_form_elicitation(&self) -> bool {
        self.supports(Need::FormElicitation)
    }

    /// Whether the client can send the user to a URL (URL-mode elicitation).
    pub fn supports_url_elicitation(&self) -> bool {
        self.supports(Need::UrlElicitation)
    }

    /// Whether the client can sample its language model.
    pub fn supports_sampling(&self) -> bool {
        self.supports(Need::Sampling)
    }

    /// Whether the client can list its roots.
    pub fn supports_roots(&self) -> bool {
        self.supports(Need::Roots)
    }

    /// The authenticated subject of this request, where the transport has one.
    pub fn subject(&self) -> Option<&str> {
        self.inner.subject.as_deref()
    }

    /// The claims of the caller's verified bearer token, when the server is an OAuth resource
    /// server ([`ServerBuilder::oauth`](crate::server::ServerBuilder::oauth)) and the request
    /// came over HTTP; `None` otherwise. [`Cx::subject`] is the subject states bind to,
    /// which a subject hook may have derived otherwise.
    pub fn claims(&self) -> Option<&Claims> {
        self.inner.claims.as_deref()
    }

    /// Reports progress (`notifications/progress`) when the request asked for it.
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.inner.progress.report(progress, total, message);
    }

    /// Sends a log message (`notifications/message`) at `level` with `data` (any
    /// serialisable value), when the client asked for messages of that severity: through
    /// `logging/setLevel` on a legacy session, or the request's
    /// `io.modelcontextprotocol/logLevel`. Otherwise it does nothing.
    pub fn log(&self, level: LoggingLevel, data: impl Serialize) {
        let logger = &self.inner.logger;
        if logger.enabled(level)
            && let Ok(data) = serde_json::to_value(data)
        {
            logger.log(level, None, data);
        }
    }

    pub(super) fn supports(&self, need: Need) -> bool {
        let caps = &self.inner.capabilities;
        match need {
            // `elicitation: {}` declares form mode alone; naming only `url` leaves form out.
            Need::FormElicitation => caps
                .elicitation
                .as_ref()
                .is_some_and(|e| e.form.is_some() || e.url.is_none()),
            Need::UrlElicitation => caps.elicitation.as_ref().is_some_and(|e| e.url.is_some()),
            Need::Sampling => caps.sampling.is_some(),
            Need::Roots => caps.roots.is_some(),
        }
    }

    fn halted(&self) -> bool {
        lock(&self.inner.halt).is_some()
    }

    /// Runs `flow` until it returns (`Some`) or stops at a question point (`None`, with the
    /// reason left in [`Cx::take_halt`]). A stopped flow's future never completes; it is
    /// dropped here, so the code after its question point never runs this round.
    pub(crate) async fn run_until_halt<F: Future>(&self, flow: F) -> Option<F::Output> {
        let mut flow = pin!(flow);
        poll_fn(|context| match flow.as_mut().poll(context) {
            Poll::Ready(output) => Poll::Ready(Some(output)),
            Poll::Pending if self.halted() => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        })
        .await
    }

    pub(crate) fn take_halt(&self) -> Option<Halted> {
        lock(&self.inner.halt).take()
    }

    /// Drops this round's answers: the flow restarts, so they answer another build's
    /// questions.
    pub(crate) fn forget_answers(&self) {
        lock(&self.inner.answers).take();
    }

    /// Takes this round's answers for the question point asking under `keys`, noting the
    /// keys of answers it did not ask: the server ignores those, and says so.
    pub(super) fn take_answers(&self, keys: &[Cow<'static, str>]) -> Option<InputResponses> {
        let answers = lock(&self.inner.answers).take()?;
        lock(&self.inner.unasked).extend(
            answers
                .keys()
                .filter(|key| !keys.iter().any(|asked| asked == key.as_str()))
                .cloned(),
        );
        Some(answers)
    }

    /// The keys of this round's answers that no question took: those under keys the
    /// question point that took the answers did not ask, and all of them when the flow
    /// reached none.
    pub(crate) fn unasked(&self) -> Vec<String> {
        let mut unasked = std::mem::take(&mut *lock(&self.inner.unasked));
        if let Some(answers) = lock(&self.inner.answers).take() {
            unasked.extend(answers.into_keys());
        }
        unasked
    }

    /// The flow's id, for the envelope of the state its points write.
    pub(super) fn flow(&self) -> u64 {
        self.inner.flow
    }

    pub(crate) fn halt(&self, halted: Halted) {
        *lock(&self.inner.halt) = Some(halted);
    }
}

pub(crate) fn invalid_params(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INVALID_PARAMS, message)
}

pub(crate) fn internal_error(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// A handler's `State<T>` parameter, filled for this round. The server refuses to build when a
/// handler's state type is missing, so this finds it; a hand-made request without it panics,
/// which the server answers as an internal error of that call alone.
#[doc(hidden)]
pub fn app_state<S: FromAppState>(cx: &Cx) -> S {
    S::from_app_state(cx.app()).unwrap_or_else(|| {
        panic!(
            "no application state of type `{}` is registered on the server",
            S::requirement().name()
        )
    })
}
