//! What handlers return, and how each kind of handler is driven.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::continuation::Resume;
use super::cx::{Cx, invalid_params};
use super::driver::{Bounds, Flow, Round, Running};
use super::question::Refusal;
use crate::protocol::{
    CallToolResult, ContentBlock, ErrorCode, ErrorObject, GetPromptResult, JsonObject,
    ReadResourceResult, ResourceContents, TextResourceContents,
};
use crate::server::{BoxFuture, HandlerResult, Reply, Request};

/// Why a handler did not produce its result.
///
/// Any error converts into it with `?` (like `anyhow::Error`), and so does a [`Refusal`]:
/// the shortest way to end a flow when the user declines or cancels. A tool's failure
/// becomes a result with `isError: true` the model can read; a refusal becomes a result
/// that says the user declined. For prompts and resources, which have no error result, a
/// failure becomes a JSON-RPC internal error.
pub struct HandlerError {
    kind: ErrorKind,
}

enum ErrorKind {
    Refused(Refusal),
    Failed(Box<dyn StdError + Send + Sync>),
    Protocol(ErrorObject),
}

impl HandlerError {
    /// An error answered as this JSON-RPC error, as is (for example `-32602` for arguments
    /// the handler finds invalid).
    pub fn protocol(error: ErrorObject) -> Self {
        Self {
            kind: ErrorKind::Protocol(error),
        }
    }

    /// The user's refusal, if that is what ended the flow.
    pub fn refusal(&self) -> Option<Refusal> {
        match self.kind {
            ErrorKind::Refused(refusal) => Some(refusal),
            _ => None,
        }
    }
}

impl<E: Into<Box<dyn StdError + Send + Sync>>> From<E> for HandlerError {
    fn from(error: E) -> Self {
        let error = error.into();
        let kind = match error.downcast::<Refusal>() {
            Ok(refusal) => ErrorKind::Refused(*refusal),
            Err(error) => ErrorKind::Failed(error),
        };
        Self { kind }
    }
}

impl fmt::Debug for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Refused(refusal) => f.debug_tuple("Refused").field(refusal).finish(),
            ErrorKind::Failed(error) => f.debug_tuple("Failed").field(error).finish(),
            ErrorKind::Protocol(error) => f.debug_tuple("Protocol").field(error).finish(),
        }
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Refused(refusal) => refusal.fmt(f),
            ErrorKind::Failed(error) => error.fmt(f),
            ErrorKind::Protocol(error) => f.write_str(&error.message),
        }
    }
}

/// What a `#[tool]` returns.
pub type ToolResult<T = CallToolResult> = Result<T, HandlerError>;
/// What a `#[prompt]` returns.
pub type PromptResult<T = GetPromptResult> = Result<T, HandlerError>;
/// What a `#[resource]` returns.
pub type ResourceResult<T = ReadResourceResult> = Result<T, HandlerError>;

/// A tool result holding one text block.
pub fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::new(vec![ContentBlock::text(text)])
}

/// What a tool's function may return.
///
/// A handler's own error type needs no implementation of this: any `E` with
/// `Into<HandlerError>` works in `Result<T, E>`, and every `std::error::Error + Send + Sync`
/// has it (the error's `Display` becomes an `isError` result the model reads). A handler that
/// must answer a JSON-RPC error instead returns [`HandlerError::protocol`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not what a tool returns",
    label = "a `#[tool]` returns a tool result",
    note = "return `ToolResult` (a `Result<CallToolResult, HandlerError>`, made with `text(...)`), \
            `ToolResult<Json<T>>` for a structured result, or `Result<String, E>`"
)]
pub trait IntoToolResult {
    /// The result, or the JSON-RPC error for the request.
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject>;

    /// The JSON Schema of the `structuredContent` this type answers with, listed as the
    /// tool's `outputSchema`; `None` (the default) for a tool without structured results.
    fn output_schema() -> Option<JsonObject>
    where
        Self: Sized,
    {
        None
    }
}

/// A structured tool result: `T` serialised as `structuredContent`, with the same JSON in a
/// text block for clients that read only `content` (as the revision recommends), and `T`'s
/// JSON Schema as the tool's `outputSchema` in `tools/list`.
///
/// `T` must serialise to a JSON object (a struct with named fields, or a map); the server
/// refuses to build when its schema says otherwise.
///
/// ```
/// use mcp_runtime::flow::Json;
/// use mcp_runtime::{Cx, ToolResult, tool};
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum {
///     total: i64,
/// }
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Terms {
///     a: i64,
///     b: i64,
/// }
///
/// /// Adds two numbers.
/// #[tool]
/// async fn add(terms: Terms, cx: Cx) -> ToolResult<Json<Sum>> {
///     let _ = cx;
///     Ok(Json(Sum { total: terms.a + terms.b }))
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        let value = serde_json::to_value(&self.0).map_err(|error| {
            ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                format!("the tool's structured result did not serialise: {error}"),
            )
        })?;
        if !value.is_object() {
            return Err(ErrorObject::new(
                ErrorCode::INTERNAL_ERROR,
                "the tool's structured result is not a JSON object",
            ));
        }
        let text = value.to_string();
        Ok(CallToolResult {
            content: vec![ContentBlock::text(text)],
            structured_content: Some(value),
            ..CallToolResult::default()
        })
    }

    fn output_schema() -> Option<JsonObject> {
        match schemars::schema_for!(T).to_value() {
            Value::Object(mut schema) => {
                // The tool's own name says what `title` would.
                schema.remove("title");
                Some(schema)
            }
            _ => Some(JsonObject::new()),
        }
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        Ok(text(self))
    }
}

impl<T: IntoToolResult, E: Into<HandlerError>> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, ErrorObject> {
        match self.map_err(Into::into) {
            Ok(value) => value.into_tool_result(),
            // A tool with an output schema owes structured content on success, so a refusal,
            // which has none, is marked as the tool not producing its result.
            Err(HandlerError {
                kind: ErrorKind::Refused(refusal),
            }) => Ok(CallToolResult {
                is_error: T::output_schema().map(|_| true),
                ..text(refusal_text(refusal))
            }),
            Err(HandlerError {
                kind: ErrorKind::Failed(error),
            }) => Ok(CallToolResult::error(error.to_string())),
            Err(HandlerError {
                kind: ErrorKind::Protocol(error),
            }) => Err(error),
        }
    }

    fn output_schema() -> Option<JsonObject> {
        T::output_schema()
    }
}

/// What a prompt's function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not what a prompt returns",
    label = "a `#[prompt]` returns a prompt result",
    note = "return `PromptResult` (a `Result<GetPromptResult, HandlerError>`)"
)]
pub trait IntoPromptResult {
    /// The result, or the JSON-RPC error for the request.
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        Ok(self)
    }
}

impl<T: IntoPromptResult, E: Into<HandlerError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, ErrorObject> {
        match self.map_err(Into::into) {
            Ok(value) => value.into_prompt_result(),
            Err(HandlerError {
                kind: ErrorKind::Refused(refusal),
            }) => Ok(GetPromptResult {
                description: Some(refusal_text(refusal).to_owned()),
                ..GetPromptResult::default()
            }),
            Err(error) => Err(failure(error)),
        }
    }
}

/// What a resource's function may return.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not what a resource returns",
    label = "a `#[resource]` returns a resource result",
    note = "return `ResourceResult` (a `Result<ReadResourceResult, HandlerError>`)"
)]
pub trait IntoResourceResult {
    /// The result for `uri`, or the JSON-RPC error for the request.
    fn into_resource_result(self, uri: &str) -> Result<ReadResourceResult, ErrorObject>;
}

impl IntoResourceResult for ReadResourceResult {
    fn into_resource_result(self, _uri: &str) -> Result<ReadResourceResult, ErrorObject> {
        Ok(self)
    }
}

impl<T: IntoResourceResult, E: Into<HandlerError>> IntoResourceResult for Result<T, E> {
    fn into_resource_result(self, uri: &str) -> Result<ReadResourceResult, ErrorObject> {
        match self.map_err(Into::into) {
            Ok(value) => value.into_resource_result(uri),
            Err(HandlerError {
                kind: ErrorKind::Refused(refusal),
            }) => Ok(ReadResourceResult {
                contents: vec![ResourceContents::Text(TextResourceContents {
                    uri: uri.to_owned(),
                    mime_type: Some("text/plain".to_owned()),
                    text: refusal_text(refusal).to_owned(),
                    meta: None,
                })],
                ..ReadResourceResult::default()
            }),
            Err(error) => Err(failure(error)),
        }
    }
}

fn refusal_text(refusal: Refusal) -> &'static str {
    match refusal {
        Refusal::Declined => "The user declined the request; nothing was done.",
        Refusal::Cancelled => "The user cancelled the request; nothing was done.",
    }
}

fn failure(error: HandlerError) -> ErrorObject {
    match error.kind {
        ErrorKind::Protocol(error) => error,
        kind => ErrorObject::new(ErrorCode::INTERNAL_ERROR, HandlerError { kind }.to_string()),
    }
}

/// The arguments of a handler that takes none: any object, ignored.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct NoArgs;

impl<'de> Deserialize<'de> for NoArgs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer).map(|_| NoArgs)
    }
}

impl schemars::JsonSchema for NoArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoArgs".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "object", "properties": {} })
    }
}

/// The future of a round's step, `step` called with its arguments `args` from the context
/// `cx` and the state `resume`, whose output `finish` turns into the method's result: the one
/// box of the handler's own code a round.
fn step_future<A, F, R>(
    step: fn(A, Cx, Resume) -> F,
    args: A,
    (cx, resume): (Cx, Resume),
    finish: impl FnOnce(F::Output) -> Result<R, ErrorObject> + Send + 'static,
) -> Running<R>
where
    A: Send + 'static,
    F: Future + Send + 'static,
{
    Box::pin(async move { finish(step(args, cx, resume).await) })
}

/// Drives one round of a `#[tool]`.
#[doc(hidden)]
/// `convert` is the output type's [`IntoToolResult::into_tool_result`], named by the macro at
/// the handler's return type, where a type that is no tool result is reported.
///
/// Only the arguments' parsing and the step are generic; the rest is compiled once, here.
pub fn drive_tool<A, F>(
    flow: Flow<A, F>,
    mut request: Request,
    convert: fn(F::Output) -> Result<CallToolResult, ErrorObject>,
) -> BoxFuture<'static, HandlerResult<CallToolResult>>
where
    A: DeserializeOwned + Send + 'static,
    F: Future + Send + 'static,
{
    let arguments = Value::Object(request.arguments.take().unwrap_or_default());
    match A::deserialize(&arguments) {
        Ok(args) => {
            let mut round = Round::begin(request, Bounds::of(&flow));
            #[allow(
                clippy::manual_map,
                reason = "a closure is one more item every handler compiles"
            )]
            let running = match round.step() {
                Some(from) => Some(step_future(flow.step, args, from, convert)),
                None => None,
            };
            tool_round(round, running)
        }
        Err(error) => invalid_tool_arguments(request, &error),
    }
}

/// A tool's round, not generic: compiled here once for every tool (so are `prompt_round` and
/// `resource_round`), where a generic round would be compiled again in each handler's crate.
fn tool_round(
    round: Round,
    running: Option<Running<CallToolResult>>,
) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
    round.run(running)
}

/// Arguments are the model's to fix, so they fail as a tool result it can read.
fn invalid_tool_arguments(
    request: Request,
    error: &serde_json::Error,
) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
    let result = CallToolResult::error(format!(
        "invalid arguments for tool `{}`: {error}",
        request.target
    ));
    Box::pin(std::future::ready(Ok(Reply::Complete(result))))
}

/// Drives one round of a `#[prompt]`.
#[doc(hidden)]
/// `convert` is the output type's [`IntoPromptResult::into_prompt_result`], as for tools.
pub fn drive_prompt<A, F>(
    flow: Flow<A, F>,
    mut request: Request,
    convert: fn(F::Output) -> Result<GetPromptResult, ErrorObject>,
) -> BoxFuture<'static, HandlerResult<GetPromptResult>>
where
    A: DeserializeOwned + Send + 'static,
    F: Future + Send + 'static,
{
    let arguments = Value::Object(request.arguments.take().unwrap_or_default());
    match A::deserialize(&arguments) {
        Ok(args) => {
            let mut round = Round::begin(request, Bounds::of(&flow));
            #[allow(
                clippy::manual_map,
                reason = "a closure is one more item every handler compiles"
            )]
            let running = match round.step() {
                Some(from) => Some(step_future(flow.step, args, from, convert)),
                None => None,
            };
            prompt_round(round, running)
        }
        Err(error) => {
            let error = invalid_params(format!(
                "invalid arguments for prompt `{}`: {error}",
                request.target
            ));
            Box::pin(std::future::ready(Err(error)))
        }
    }
}

fn prompt_round(
    round: Round,
    running: Option<Running<GetPromptResult>>,
) -> BoxFuture<'static, HandlerResult<GetPromptResult>> {
    round.run(running)
}

/// Drives one round of a `#[resource]` served under the URI or template `template`.
#[doc(hidden)]
/// `convert` is the output type's [`IntoResourceResult::into_resource_result`], as for tools.
pub fn drive_resource<A, F>(
    flow: Flow<A, F>,
    template: &'static str,
    request: Request,
    convert: fn(F::Output, &str) -> Result<ReadResourceResult, ErrorObject>,
) -> BoxFuture<'static, HandlerResult<ReadResourceResult>>
where
    A: DeserializeOwned + Send + 'static,
    F: Future + Send + 'static,
{
    let uri = request.target.clone();
    match A::deserialize(&uri_variables(template, &uri)) {
        Ok(args) => {
            let mut round = Round::begin(request, Bounds::of(&flow));
            let running = match round.step() {
                Some(from) => {
                    let convert = move |output| convert(output, &uri);
                    Some(step_future(flow.step, args, from, convert))
                }
                None => None,
            };
            resource_round(round, running)
        }
        Err(error) => {
            let error = invalid_params(format!("invalid resource URI `{uri}`: {error}"));
            Box::pin(std::future::ready(Err(error)))
        }
    }
}

/// The variables `uri` gives `template`'s placeholders, as the arguments object they are
/// parsed from.
fn uri_variables(template: &str, uri: &str) -> Value {
    let variables: Map<String, Value> = super::definitions::template_variables(template, uri)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| (name, Value::String(value)))
        .collect();
    Value::Object(variables)
}

fn resource_round(
    round: Round,
    running: Option<Running<ReadResourceResult>>,
) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
    round.run(running)
}
