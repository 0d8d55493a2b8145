//! The server: handler registry, dispatch and the stateless lifecycle.
//!
//! A [`Server`] is built once from registered handlers ([`ServerBuilder`]) and answers one
//! JSON-RPC message at a time through [`Server::handle`], whatever the transport. Each request
//! is judged on its own: its `_meta` must carry a supported protocol version and the client's
//! capabilities, and nothing is remembered between requests.
//!
//! Answered methods: `server/discover`, and, for each kind of handler registered,
//! `tools/list` and `tools/call`; `prompts/list`, `prompts/get` and `completion/complete`;
//! `resources/list`, `resources/templates/list` and `resources/read`. Every other method,
//! including those removed by revision 2026-07-28 (`initialize`, `ping`,
//! `logging/setLevel`, `resources/subscribe`, ...), answers `-32601`. Lists follow
//! registration order.

mod builder;
mod dispatch;
mod error;
mod handler;
mod lifecycle;
mod panic;
mod register;

use std::sync::Arc;

pub use builder::{DEFAULT_BODY_LIMIT, ServerBuilder, SubjectHook};
pub use handler::{
    BoxFuture, FlowLimits, HandlerResult, Progress, ProgressReceiver, PromptHandler, Reply,
    Request, ResourceDefinition, ResourceHandler, ToolHandler,
};
pub use register::{ByFunction, ByValue, IntoPromptHandler, IntoResourceHandler, IntoToolHandler};

pub(crate) use builder::Inner;

/// The protocol revisions this server speaks.
pub const SUPPORTED_VERSIONS: &[&str] = &[crate::protocol::PROTOCOL_VERSION];

/// An MCP server: registered handlers and settings, cheap to clone and shared by every
/// transport and request.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("tools", &self.inner.tools.len())
            .field("prompts", &self.inner.prompts.len())
            .field("resources", &self.inner.resources.len())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }
}

/// What a transport knows about a message beyond its bytes.
#[derive(Debug, Clone, Default)]
pub struct RequestFacts {
    http: bool,
    protocol_version_header: Option<String>,
    subject: Option<String>,
}

impl RequestFacts {
    /// A message read from stdio: no headers, no subject.
    pub fn stdio() -> Self {
        Self::default()
    }

    /// A message received over HTTP, with its `MCP-Protocol-Version` header (which must then
    /// match `_meta`) and the subject the server's hook derived.
    pub fn http(protocol_version_header: Option<String>, subject: Option<String>) -> Self {
        Self {
            http: true,
            protocol_version_header,
            subject,
        }
    }
}

/// The final answer to one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The HTTP status the answer travels with (`202` for a notification).
    pub status: u16,
    /// The serialised JSON-RPC response; `None` for a notification, which gets no answer.
    pub body: Option<Vec<u8>>,
}

/// A message being handled: its answer to come, and the progress notifications it sends
/// before that.
pub struct Handling {
    /// Progress notifications of this request, when it carried a `progressToken` and runs a
    /// handler. The channel closes once the handler is done with its [`Progress`].
    pub progress: Option<ProgressReceiver>,
    /// Resolves to the answer.
    pub outcome: BoxFuture<'static, Outcome>,
}

impl Handling {
    fn ready(outcome: Outcome) -> Self {
        Self {
            progress: None,
            outcome: Box::pin(std::future::ready(outcome)),
        }
    }

    /// Waits for the answer, dropping progress notifications.
    pub async fn finish(self) -> Outcome {
        self.outcome.await
    }
}

impl std::fmt::Debug for Handling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handling")
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}
