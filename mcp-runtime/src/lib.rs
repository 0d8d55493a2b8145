#![doc = include_str!("../../README.md")]

pub mod auth;
#[cfg(feature = "cli")]
pub mod cli;
pub mod flow;
pub mod form;
pub mod graph;
mod json_text;
mod logfield;
pub mod protocol;
pub mod server;
pub mod state;
pub mod tasks;
pub mod testing;
pub mod transport;

pub use flow::{
    Cx, HandlerError, Json, PromptResult, Question, Refusal, ResourceResult, SubFlow, ToolResult,
    text,
};
pub use form::{ElicitChoice, ElicitForm};
pub use mcp_macros::{ElicitChoice, ElicitForm, elicit, prompt, resource, tool};
pub use server::State;

/// Implementation details used by the code the macros generate. Not a public API: anything
/// in here may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::flow::__private::*;
    pub use crate::form::__private as form;
    pub use crate::graph::__private::{SchemaOfAny, SchemaProbe, flow_graph};
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
