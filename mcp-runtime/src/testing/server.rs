//! [`ServerTester`]: calls of several tools, prompts and resources of one built server.

use serde_json::Value;

use super::{FlowTester, Host, Target};
use crate::server::Server;

/// Drives the tools, prompts and resources of one built [`Server`], against its state and
/// settings: one tester for a whole server, each call's rounds going to that same server.
///
/// ```
/// use mcp_runtime::server::Server;
/// use mcp_runtime::testing::{ServerTester, accept};
/// use mcp_runtime::{Cx, ElicitForm, State, ToolResult, text, tool};
/// use serde_json::json;
/// use std::sync::Mutex;
///
/// #[derive(Default)]
/// struct Notes(Mutex<Vec<String>>);
///
/// #[derive(ElicitForm)]
/// struct Note {
///     text: String,
/// }
///
/// /// Write a note down.
/// #[tool]
/// async fn add(State(notes): State<Notes>, cx: Cx) -> ToolResult {
///     let note: Note = cx.elicit("What should I write down?").await?;
///     notes.0.lock().unwrap().push(note.text);
///     Ok(text("Written."))
/// }
///
/// /// Count the notes.
/// #[tool]
/// async fn count(State(notes): State<Notes>, cx: Cx) -> ToolResult {
///     let _ = cx;
///     Ok(text(notes.0.lock().unwrap().len().to_string()))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::builder()
///     .state(Notes::default())
///     .tool(add)
///     .tool(count)
///     .build();
/// let tester = ServerTester::new(server);
/// let asked = tester.tool("add").start().await;
/// let done = asked.answer(json!({"note": accept(json!({"text": "milk"}))})).await;
/// assert_eq!(done.text(), Some("Written."));
/// assert_eq!(tester.tool("count").start().await.text(), Some("1"));
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct ServerTester {
    server: Server,
    subject: Option<String>,
    claims: Option<Value>,
    capabilities: Option<Value>,
}

impl ServerTester {
    /// A tester of `server` (a clone shares everything with it).
    pub fn new(server: Server) -> Self {
        Self {
            server,
            subject: None,
            claims: None,
            capabilities: None,
        }
    }

    /// The subject every call of this tester is made as (see [`FlowTester::subject`]).
    #[must_use]
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// The claims every call of this tester carries (see [`FlowTester::claims`]).
    #[must_use]
    pub fn claims(mut self, claims: Value) -> Self {
        self.claims = Some(claims);
        self
    }

    /// The capabilities every call of this tester declares (see
    /// [`FlowTester::capabilities`]).
    #[must_use]
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = Some(capabilities);
        self
    }

    /// A call of the tool `name`.
    pub fn tool(&self, name: impl Into<String>) -> FlowTester {
        self.tester(Target::Tool(name.into()))
    }

    /// A call of the prompt `name`.
    pub fn prompt(&self, name: impl Into<String>) -> FlowTester {
        self.tester(Target::Prompt(name.into()))
    }

    /// A read of the resource at `uri`.
    pub fn resource(&self, uri: impl Into<String>) -> FlowTester {
        self.tester(Target::Resource(uri.into()))
    }

    /// The server under test.
    pub fn server(&self) -> &Server {
        &self.server
    }

    fn tester(&self, target: Target) -> FlowTester {
        let mut tester = FlowTester::new(target, Host::Shared(self.server.clone()));
        tester.subject.clone_from(&self.subject);
        if let Some(claims) = &self.claims {
            tester = tester.claims(claims.clone());
        }
        if let Some(capabilities) = &self.capabilities {
            tester = tester.capabilities(capabilities.clone());
        }
        tester
    }
}

impl From<Server> for ServerTester {
    fn from(server: Server) -> Self {
        Self::new(server)
    }
}
