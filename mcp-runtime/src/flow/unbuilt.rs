//! What a handler macro emits in place of a handler it could not compile: something every
//! registration and call site accepts, so that no error follows from the handler's absence;
//! and the stand-in answers with which the macro's copy of the body, emitted beside, is read
//! as written (only the body's own errors follow from that copy).

use std::marker::PhantomData;

use super::continuation::Resume;
use super::cx::{Cx, internal_error};
use super::settle::Batch;
use super::subflow::{IntoSubFlow, SubFlowStep};
use crate::protocol::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool,
};
use crate::server::{
    BoxFuture, HandlerResult, PromptHandler, Request, ResourceDefinition, ResourceHandler,
    ToolHandler,
};

/// A handler or sub-flow that failed to compile; `O` is the sub-flow's declared output.
#[doc(hidden)]
#[derive(Debug)]
pub struct Unbuilt<O = ()>(PhantomData<fn() -> O>);

impl<O> Unbuilt<O> {
    #[doc(hidden)]
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<O> Default for Unbuilt<O> {
    fn default() -> Self {
        Self::new()
    }
}

fn unbuilt<R: Send + 'static>() -> BoxFuture<'static, HandlerResult<R>> {
    Box::pin(async { Err(internal_error("this handler did not compile")) })
}

impl ToolHandler for Unbuilt {
    fn definition(&self) -> Tool {
        Tool::default()
    }
    fn call(&self, _: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        unbuilt()
    }
}

impl PromptHandler for Unbuilt {
    fn definition(&self) -> Prompt {
        Prompt::default()
    }
    fn get(&self, _: Request) -> BoxFuture<'static, HandlerResult<GetPromptResult>> {
        unbuilt()
    }
}

impl ResourceHandler for Unbuilt {
    fn definition(&self) -> ResourceDefinition {
        ResourceDefinition::Resource(Resource::default())
    }
    fn matches(&self, _: &str) -> bool {
        false
    }
    fn read(&self, _: Request) -> BoxFuture<'static, HandlerResult<ReadResourceResult>> {
        unbuilt()
    }
}

impl<O: Send + 'static> SubFlowStep for Unbuilt<O> {
    type Output = O;
    fn step(self, _: Cx, _: Resume) -> impl std::future::Future<Output = O> + Send + 'static {
        std::future::pending()
    }
}

/// The answers to `questions`, in the copy of a body its macro could not compile: that copy is
/// type-checked beside the macro's error (so the names it uses are used and its own errors are
/// reported) but never called, so nothing is ever asked.
#[doc(hidden)]
pub fn unbuilt_answers<B: Batch>(questions: B) -> B::Answers {
    let _ = questions;
    unreachable!("the copy of a body that did not compile is never called")
}

/// What the sub-flow `call` returns, in the same copy.
#[doc(hidden)]
pub fn unbuilt_result<S: IntoSubFlow>(call: S) -> <S::Step as SubFlowStep>::Output {
    let _ = call;
    unreachable!("the copy of a body that did not compile is never called")
}

/// A context for a question in a closure or an `async` block of the same copy, which the
/// macro refused: asked of this one, the question captures nothing, so the compiler adds no
/// error of its own about moving the handler's context (and no advice to clone it).
#[doc(hidden)]
pub fn unbuilt_cx() -> &'static Cx {
    unreachable!("the copy of a body that did not compile is never called")
}
