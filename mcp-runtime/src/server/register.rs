//! What registration accepts: a handler value, or the function `#[tool]`, `#[prompt]` or
//! `#[resource]` makes of an `async fn`, which returns one.
//!
//! The macros turn `async fn deploy(...)` into `fn deploy() -> impl ToolHandler`, so the
//! handler's name never becomes a type or constant that a local binding of the same name
//! would be mistaken for. `.tool(deploy)` and `.tool(deploy())` both register it.

use super::{PromptHandler, ResourceHandler, ToolHandler};

/// Marks registration of a handler value.
#[derive(Debug)]
pub enum ByValue {}

/// Marks registration through the function that returns the handler.
#[derive(Debug)]
pub enum ByFunction {}

macro_rules! into_handler {
    ($(#[$doc:meta])* $name:ident, $method:ident, $handler:ident) => {
        $(#[$doc])*
        pub trait $name<M> {
            /// The handler to register.
            type Handler: $handler;
            /// Converts into the handler.
            fn $method(self) -> Self::Handler;
        }

        impl<H: $handler> $name<ByValue> for H {
            type Handler = H;
            fn $method(self) -> H {
                self
            }
        }

        impl<H: $handler, F: FnOnce() -> H> $name<ByFunction> for F {
            type Handler = H;
            fn $method(self) -> H {
                self()
            }
        }
    };
}

into_handler!(
    /// A tool, or the function `#[tool]` made that returns one.
    IntoToolHandler,
    into_tool_handler,
    ToolHandler
);
into_handler!(
    /// A prompt, or the function `#[prompt]` made that returns one.
    IntoPromptHandler,
    into_prompt_handler,
    PromptHandler
);
into_handler!(
    /// A resource, or the function `#[resource]` made that returns one.
    IntoResourceHandler,
    into_resource_handler,
    ResourceHandler
);
