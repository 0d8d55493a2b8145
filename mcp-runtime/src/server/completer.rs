//! Completers: what `#[prompt(complete = ...)]` and `#[resource(complete = ...)]` accept
//! ([`IntoCompleter`]), and what a completer is told ([`CompletionRequest`]).
//!
//! A completer is a plain `fn(argument: &str, value: &str) -> Vec<String>`, or an `async fn`
//! (or closure) taking a [`CompletionRequest`], which also carries the values of the other
//! arguments (`context.arguments`), the application state and the [`RequestContext`].
//! Hand-written handlers return one from
//! [`PromptHandler::completer`](super::PromptHandler::completer) or
//! [`ResourceHandler::completer`](super::ResourceHandler::completer).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::app_state::{AppState, State};
use super::context::RequestContext;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The most completion values one answer carries (the schema's limit); a completer's further
/// values are counted in `total` and announced by `hasMore`.
pub const MAX_COMPLETIONS: usize = 100;

/// What a completer is asked: the argument being typed, what the user typed so far, and
/// what the request says around it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// The name of the prompt argument, or of the resource template's variable.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// The values of the other arguments the client has already resolved
    /// (`context.arguments`); empty when it sent none.
    pub arguments: BTreeMap<String, String>,
    /// The server's application state.
    pub app: AppState,
    /// The caller, the protocol revision, the request's `_meta` and exposed headers.
    pub context: RequestContext,
}

impl CompletionRequest {
    /// A request completing `argument` from `value`, with nothing around it: for tests of a
    /// completer.
    pub fn new(argument: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            argument: argument.into(),
            value: value.into(),
            ..Self::default()
        }
    }

    /// The same request with the other arguments' values set to `arguments`.
    #[must_use]
    pub fn with_arguments(mut self, arguments: BTreeMap<String, String>) -> Self {
        self.arguments = arguments;
        self
    }

    /// The same request with `app` as the application state.
    #[must_use]
    pub fn with_app(mut self, app: AppState) -> Self {
        self.app = app;
        self
    }

    /// The application state registered for `T` on the server builder, if any.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.app.get::<T>()
    }
}

type CompleteFn = dyn Fn(CompletionRequest) -> BoxFuture<Vec<String>> + Send + Sync;

/// A registered completer (see [`IntoCompleter`]). Cloning is cheap.
#[derive(Clone)]
pub struct Completer(Arc<CompleteFn>);

impl std::fmt::Debug for Completer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Completer")
    }
}

impl Completer {
    /// The values for `request`.
    pub fn complete(&self, request: CompletionRequest) -> BoxFuture<Vec<String>> {
        (self.0)(request)
    }
}

/// Marks a completer written `fn(argument: &str, value: &str) -> Vec<String>`.
#[derive(Debug)]
pub enum ByArgument {}

/// Marks a completer that takes a [`CompletionRequest`] and returns a future of the values.
#[derive(Debug)]
pub enum ByRequest {}

/// What `complete = ...` accepts: a `fn(argument: &str, value: &str) -> Vec<String>`, or an
/// `async fn(CompletionRequest) -> Vec<String>` (any `Fn(CompletionRequest)` returning a
/// sendable future of `Vec<String>`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a completer",
    label = "expected `fn(&str, &str) -> Vec<String>` or `async fn(CompletionRequest) -> Vec<String>`",
    note = "a completer takes the argument's name and the value typed so far, or a \
            `mcp_runtime::server::CompletionRequest`, and returns the values to offer"
)]
pub trait IntoCompleter<M> {
    /// The completer.
    fn into_completer(self) -> Completer;
}

impl<F> IntoCompleter<ByArgument> for F
where
    F: Fn(&str, &str) -> Vec<String> + Send + Sync + 'static,
{
    fn into_completer(self) -> Completer {
        Completer(Arc::new(move |request: CompletionRequest| {
            let values = self(&request.argument, &request.value);
            Box::pin(std::future::ready(values)) as BoxFuture<Vec<String>>
        }))
    }
}

impl<F, Fut> IntoCompleter<(ByRequest, Fut)> for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    fn into_completer(self) -> Completer {
        Completer(Arc::new(move |request| Box::pin(self(request))))
    }
}
