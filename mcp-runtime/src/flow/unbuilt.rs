//! What a handler macro emits in place of a handler it could not compile: something every
//! registration and call site accepts, so the macro's own error is the only one reported.

use std::marker::PhantomData;

use super::continuation::Resume;
use super::cx::{Cx, internal_error};
use super::subflow::SubFlowStep;
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
