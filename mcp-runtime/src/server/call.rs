//! One call of a tool, prompt or resource: its rounds, the state checks around a stateless
//! round (open, single use, mint), and the kinds of handler a call can serve.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::answer::{Answering, FinalResult, replayed};
use super::call_meta::Read;
use super::context::RequestContext;
use super::error::RpcError;
use super::handler::{
    BoxFuture, DeclaredCapabilities, HandlerResult, Progress, PromptHandler, Request,
    ResourceHandler, ToolHandler,
};
use super::outbound::Logger;
use super::outcome::error_outcome;
use super::panic::{CatchUnwind, guarded};
use super::params::{Answers, CallParams, RequestState};
use super::session::Session;
use super::single_use::{self, Replay, StoredReply, Use, Verdict};
use super::to_end::ToEnd;
use super::{Outcome, Server, trace};
use crate::flow::refuse_state;
use crate::logfield::untrusted;
use crate::protocol::{
    CacheHints, CallToolResult, ClientCapabilities, ErrorObject, GetPromptResult, InputResponses,
    ReadResourceResult,
};
use crate::state::{Binding, BindingContext, Opened, Signer};

/// This round's answers and state, taken out of a stateless call's params.
pub(super) struct RoundInput<'a> {
    input_responses: Option<InputResponses>,
    /// Borrowed from the message: it is opened before the round's future is built.
    request_state: Option<Cow<'a, str>>,
}

pub(super) fn take_round<'a>(params: &mut CallParams<'a>) -> Result<RoundInput<'a>, RpcError> {
    let input_responses = match params.input_responses.take() {
        None => None,
        Some(Answers::Object(responses)) => Some(responses),
        Some(Answers::NotAnObject(_)) => {
            return Err(RpcError::invalid_params(
                "`inputResponses` must be an object",
            ));
        }
    };
    let request_state = match params.request_state.take() {
        None => None,
        Some(RequestState::Text(state)) => Some(state),
        Some(RequestState::NotAString(_)) => {
            return Err(RpcError::invalid_params("`requestState` must be a string"));
        }
    };
    Ok(RoundInput {
        input_responses,
        request_state,
    })
}

/// What a call knows about its caller, the same on every round.
pub(super) struct CallContext {
    /// What the handler is told about the request.
    pub(super) request: RequestContext,
    pub(super) capabilities: Capabilities,
    pub(super) subject: Option<String>,
    /// The caller's address, where the transport knows it.
    pub(super) peer: Option<std::net::IpAddr>,
    /// The caller's verified token, over HTTP with OAuth.
    pub(super) claims: Option<Arc<crate::auth::Claims>>,
    pub(super) progress: Progress,
    pub(super) logger: Logger,
    /// The HTTP request's headers, for the binding policy of a stateless round (and the
    /// checks of its tool's parameters carried in headers); none for a legacy call.
    pub(super) headers: Option<Arc<axum::http::HeaderMap>>,
}

/// The client's capabilities as a call carries them: shared with where they were read, into
/// each round's [`Request`] too ([`DeclaredCapabilities`]). A call and its context move through
/// several frames on their way to a round; a pointer moves cheaper than the capabilities' 300
/// bytes.
#[derive(Clone)]
pub(crate) enum Capabilities {
    /// Read with the call's `_meta`, and shared with this thread's memory of its text.
    Read(Arc<Read>),
    /// A legacy session's, declared at `initialize`.
    Session(Arc<Session>),
    /// Read from a `_meta` taken as a map, which is rare, or given by hand.
    Parsed(Arc<ClientCapabilities>),
}

impl std::ops::Deref for Capabilities {
    type Target = ClientCapabilities;

    fn deref(&self) -> &ClientCapabilities {
        match self {
            Self::Read(read) => &read.capabilities,
            Self::Session(session) => session.capabilities(),
            Self::Parsed(capabilities) => capabilities,
        }
    }
}

/// A handler of one kind, as a call sees it.
pub(super) trait Serves: Send + Sync + 'static {
    type Result: FinalResult + Send + 'static;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<Self::Result>>;
    fn single_use(&self) -> bool;
}

impl Serves for Arc<dyn ToolHandler> {
    type Result = CallToolResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        self.call(request)
    }
    fn single_use(&self) -> bool {
        ToolHandler::single_use(&**self)
    }
}

impl Serves for Arc<dyn PromptHandler> {
    type Result = GetPromptResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<GetPromptResult>> {
        self.get(request)
    }
    fn single_use(&self) -> bool {
        PromptHandler::single_use(&**self)
    }
}

impl Serves for Arc<dyn ResourceHandler> {
    type Result = ReadResourceResult;
    fn serve(&self, request: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
        self.read(request)
    }
    fn single_use(&self) -> bool {
        ResourceHandler::single_use(&**self)
    }
}

/// One call of a handler, from which its rounds are made.
pub(super) struct Call<H> {
    handler: H,
    method: &'static str,
    target: String,
    arguments: Option<Map<String, Value>>,
    context: CallContext,
    server: Server,
    /// How the call becomes a task of the tasks extension, when it may: boxed, as it is rare
    /// and the call is moved on its way to its round.
    launch: Option<Box<super::tasks::Launch>>,
}

impl<H> Call<H> {
    /// A call, which becomes a task as `launch` says when there is one.
    pub(super) fn new(
        handler: H,
        method: &'static str,
        target: String,
        arguments: Option<Map<String, Value>>,
        context: CallContext,
        server: &Server,
        launch: Option<super::tasks::Launch>,
    ) -> Self {
        Self {
            handler,
            method,
            target,
            arguments,
            context,
            server: server.clone(),
            launch: launch.map(Box::new),
        }
    }
}

impl<H: Serves> Call<H> {
    /// One round: the handler called with `state` and `answers`, a panic turned into
    /// `-32603` for this call only.
    pub(super) fn round(
        &self,
        state: Option<Vec<u8>>,
        input_responses: Option<InputResponses>,
    ) -> BoxFuture<'static, HandlerResult<H::Result>> {
        // The request is built where the handler takes it, inside the panic guard: what is
        // moved into the guard is a few pointers, not the request's 500 bytes.
        let context = &self.context;
        let serve = || {
            self.handler.serve(Request {
                method: self.method,
                target: self.target.clone(),
                arguments: self.arguments.clone(),
                input_responses,
                state,
                capabilities: DeclaredCapabilities::shared(context.capabilities.clone()),
                subject: context.subject.clone(),
                claims: context.claims.clone(),
                progress: context.progress.clone(),
                logger: context.logger.clone(),
                app: self.server.inner.state.clone(),
                context: context.request.clone(),
            })
        };
        Box::pin(caught(guarded(serve)))
    }

    /// The one round of a stateless call. The client's state is opened under this request's
    /// binding before any handler code runs, and the handler's next state is minted under the
    /// same binding: handlers neither see an unverified state nor mint one.
    ///
    /// The state is opened and the handler's round made here, before the round's future is
    /// built: that future holds what lives across its awaits, not the call, so boxing it
    /// copies less on every round.
    pub(super) fn stateless(
        mut self,
        round: RoundInput<'_>,
        id: Value,
        cache: Option<CacheHints>,
    ) -> BoxFuture<'static, Outcome> {
        let signer = self.server.inner.signer.clone();
        let binding = self.binding(&signer);
        let state = match round.request_state {
            None => None,
            Some(token) => match signer.open_with_binding(&binding, &token) {
                Err(reason) => return answered(self.refused(&id, &reason)),
                Ok(opened) => match self.replay() {
                    Some(replay) => {
                        let minting = (signer, binding);
                        let answers = round.input_responses;
                        return Box::pin(
                            self.single_use(replay, opened, answers, minting, id, cache),
                        );
                    }
                    None => Some(opened.into_payload()),
                },
            },
        };
        let round = self.into_round(state, round.input_responses, signer, binding);
        round.unrecorded(id, cache)
    }

    /// A round whose state is single-use: its use begun in the replay store (or its stored
    /// reply replayed), then run to its end in a task of the server's.
    async fn single_use(
        self,
        replay: Replay,
        opened: Opened,
        answers: Option<InputResponses>,
        (signer, binding): (Signer, Binding),
        id: Value,
        cache: Option<CacheHints>,
    ) -> Outcome {
        let state_id = *opened.id().as_bytes();
        let expires_at = opened.expires_at();
        let subject = self.context.subject.as_deref();
        let peer = self.context.peer;
        let store = Arc::clone(&replay.store);
        let verdict =
            single_use::begin(store, subject, peer, state_id, expires_at, answers.as_ref());
        let record = match Box::pin(verdict).await {
            Verdict::Run(record) => record,
            Verdict::Replay(reply) => {
                let outcome = replayed(&id, reply).0;
                trace::record_replayed();
                return outcome;
            }
            Verdict::RetryLater(why) => return error_outcome(&id, &RpcError::overloaded(why)),
            Verdict::Conflict => return self.refused(&id, &"used before with other answers"),
        };
        // A single-use round that has begun runs to its end, even when its client goes away
        // meanwhile (in a task of the server's, then), so that its reply is stored and a
        // retry gets it instead of running the round's side effects again. As many run at
        // once as requests may, whether their clients still wait or not.
        let Some(permit) = replay.round_permit() else {
            drop(record); // released: a retry may run it
            let busy = RpcError::overloaded("too many single-use rounds are running; retry later");
            return error_outcome(&id, &busy);
        };
        let answer_id = id.clone();
        let round = self.into_round(Some(opened.into_payload()), answers, signer, binding);
        let running = ToEnd::new(Box::pin(async move {
            let _running = permit;
            round.finish(id, cache, Some(record)).await
        }));
        running
            .await
            .unwrap_or_else(|_| error_outcome(&answer_id, &RpcError::internal("internal error")))
    }

    /// The answer refusing the client's state.
    fn refused(&self, id: &Value, reason: &dyn std::fmt::Display) -> Outcome {
        let refused = refuse_state(self.method, &self.target, reason);
        error_outcome(id, &RpcError::from_handler(refused))
    }

    /// The call's last round, made: the handler's future and what the reply needs. The one
    /// round takes the call's arguments and context as they are, with no copy, and the call
    /// is taken apart here, once. The handler's future is its own, a panic in it caught but
    /// not yet turned into an error: [`Round`] holds it as it is, with no box of its own.
    fn into_round(
        self,
        state: Option<Vec<u8>>,
        input_responses: Option<InputResponses>,
        signer: Signer,
        binding: Binding,
    ) -> Round<H::Result> {
        let Self {
            handler,
            method,
            target,
            arguments,
            context,
            server,
            launch,
        } = self;
        let inner = &server.inner;
        // The request is built where the handler takes it, inside the panic guard: what is
        // moved into the guard is its parts, the capabilities still behind their pointer,
        // not the request's 500 bytes.
        let app = inner.state.clone();
        let running = guarded(move || {
            handler.serve(Request {
                method,
                target,
                arguments,
                input_responses,
                state,
                capabilities: DeclaredCapabilities::shared(context.capabilities),
                subject: context.subject,
                claims: context.claims,
                progress: context.progress,
                logger: context.logger,
                app,
                context: context.request,
            })
        });
        let identity = &inner.context;
        Round {
            running,
            launch,
            answering: Answering {
                signer,
                binding,
                info: identity.shared_server_info(),
                member: identity.server_info_member(),
            },
        }
    }

    /// The replay store this call's states are recorded in, when they are single-use.
    fn replay(&self) -> Option<Replay> {
        let inner = &self.server.inner;
        let single_use = inner.single_use_all || self.handler.single_use();
        inner.replay.clone().filter(|_| single_use)
    }

    /// What this call's states are bound to, under the signer's policy: the caller, the
    /// method, the target and (for tools and prompts) the arguments, and the server's
    /// audience.
    fn binding(&mut self, signer: &Signer) -> Binding {
        let arguments = self.arguments.take();
        let had_arguments = arguments.is_some();
        let arguments = Value::Object(arguments.unwrap_or_default());
        let bound = (self.method != "resources/read").then_some(&arguments);
        let context = BindingContext::new(self.method, &self.target)
            .with_audience(&self.server.inner.audience)
            .with_subject(self.context.subject.as_deref())
            .with_arguments(bound)
            // Only a policy reads `_meta`: built from its text only for one.
            .with_meta(signer.has_policy().then(|| self.context.request.meta()))
            .with_headers(self.context.headers.as_deref());
        let binding = signer.binding(&context);
        if let (true, Value::Object(arguments)) = (had_arguments, arguments) {
            self.arguments = Some(arguments);
        }
        binding
    }

    /// What the handler is told about the call's request.
    pub(super) fn request_context(&self) -> &RequestContext {
        &self.context.request
    }

    pub(super) fn max_rounds(&self) -> u32 {
        self.server.inner.limits.max_rounds
    }

    pub(super) fn input_timeout(&self) -> std::time::Duration {
        self.server.inner.sessions.settings.input_timeout
    }
}

/// A stateless call's last round, made: what lives across its awaits, and no more.
struct Round<R> {
    /// The handler's round, a panic in it caught.
    running: CatchUnwind<HandlerResult<R>>,
    /// How the call becomes a task, when it may: boxed, as it is rare.
    launch: Option<Box<super::tasks::Launch>>,
    answering: Answering,
}

impl<R: FinalResult + Send + 'static> Round<R> {
    /// The rest of a stateless round whose reply is not stored for retries, boxed: most
    /// rounds. Unless the call may become a task, its future holds the handler's, the id and
    /// what the answer needs, and none of the room [`finish`](Self::finish)'s keeps for a
    /// task's answer and a stored reply (about 160 bytes against 780), which boxing it
    /// copies.
    fn unrecorded(self, id: Value, cache: Option<CacheHints>) -> BoxFuture<'static, Outcome> {
        if self.launch.is_some() {
            return Box::pin(self.finish(id, cache, None));
        }
        let Self {
            running, answering, ..
        } = self;
        Box::pin(async move {
            let round = unpanicked(running.await);
            answering.answer(round, &id, cache, false).0
        })
    }

    /// The rest of a stateless round once its state is open (and its single use begun): the
    /// handler, the next state signed, the reply stored for retries.
    ///
    /// An `async` block, not an `async fn`, whose future would hold its arguments twice (as
    /// passed, and as its body's own), and the answer written by a plain function, so that
    /// none of what writing it takes lives across an await: the future, boxed once per
    /// request, holds the round, its id and what the answer needs.
    #[allow(clippy::manual_async_fn, reason = "its arguments held once, not twice")]
    fn finish(
        self,
        id: Value,
        cache: Option<CacheHints>,
        first_use: Option<Use>,
    ) -> impl Future<Output = Outcome> + Send + 'static {
        async move {
            let round = match self.launch {
                None => unpanicked(self.running.await),
                Some(launch) => match Box::pin(launch.race(Box::pin(caught(self.running)))).await {
                    super::tasks::Raced::Done(round) => round,
                    super::tasks::Raced::Task(created) => {
                        let (mut outcome, stored) = replayed(&id, StoredReply::Result(created));
                        outcome.kind = "task";
                        if let Some(record) = first_use {
                            Box::pin(record.finish(&stored)).await;
                        }
                        return outcome;
                    }
                },
            };
            let (outcome, stored) = self
                .answering
                .answer(round, &id, cache, first_use.is_some());
            if let (Some(record), Some(stored)) = (first_use, stored) {
                Box::pin(record.finish(&stored)).await;
            }
            outcome
        }
    }
}

/// An answer known without running anything, as a call's future.
fn answered(outcome: Outcome) -> BoxFuture<'static, Outcome> {
    Box::pin(std::future::ready(outcome))
}

/// A handler's round, its panic (if it panics) turned into the error the call answers.
async fn caught<R>(running: CatchUnwind<HandlerResult<R>>) -> HandlerResult<R> {
    unpanicked(running.await)
}

/// A round's end, its panic (if it panicked) turned into the error the call answers.
fn unpanicked<R>(round: Result<HandlerResult<R>, String>) -> HandlerResult<R> {
    round.unwrap_or_else(|panic| Err(panicked(&panic)))
}

/// The error a call answers when its handler panicked; the panic goes to the log.
fn panicked(panic: &str) -> ErrorObject {
    tracing::error!(panic = %untrusted(panic), "a handler panicked");
    ErrorObject::new(crate::protocol::ErrorCode::INTERNAL_ERROR, "internal error")
}
