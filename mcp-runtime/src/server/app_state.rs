//! Application state: values registered once on the server builder (a database pool, an HTTP
//! client, a configuration) and handed to every round of every handler.
//!
//! Register a value with [`ServerBuilder::state`](super::ServerBuilder::state) and take it in a
//! handler as a [`State<T>`] parameter, in any position beside the arguments and the context:
//!
//! ```
//! use std::sync::Mutex;
//! use mcp_runtime::{Cx, State, ToolResult, text, tool};
//!
//! #[derive(Default)]
//! struct Counter(Mutex<u64>);
//!
//! /// Counts its calls.
//! #[tool]
//! async fn count(State(counter): State<Counter>, cx: Cx) -> ToolResult {
//!     let mut calls = counter.0.lock().map_err(|_| "the counter is poisoned")?;
//!     *calls += 1;
//!     Ok(text(format!("call {calls}")))
//! }
//!
//! let server = mcp_runtime::server::Server::builder()
//!     .state(Counter::default())
//!     .tool(count)
//!     .build();
//! # drop(server);
//! ```
//!
//! The state is never part of a request state: it is not serialised, and every round of a
//! multi-round flow is handed the server's value afresh (a `State<T>` cannot be carried across
//! a question, so a flow that copies it into a local used after one does not compile; use the
//! parameter again instead). A sub-flow reaches it through [`Cx::state`](crate::Cx::state) or a
//! `State<T>` parameter its caller passes on. A server whose handlers ask for a type that was
//! never registered is refused when it is built, with the type's name.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A value of application state, shared by reference count: cloning it is cheap.
///
/// Dereferences to `T`; destructure it (`State(pool): State<Pool>`) for the `Arc<T>`.
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// The application state registered on a server: one value per type.
#[derive(Clone, Default)]
pub struct AppState {
    values: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
    /// The server's flow limits, which a flow without a bound of its own is held to. They
    /// ride here, read once when the server is built, because every round's driver is handed
    /// the state: no lookup per round, and no field in the handlers' `Request`.
    limits: super::FlowLimits,
}

impl AppState {
    /// The value registered for `T`, if any.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let value = self.values.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok().map(State)
    }

    /// Whether a value is registered under `required`'s type.
    pub(crate) fn has(&self, required: &StateType) -> bool {
        self.values.contains_key(&required.id)
    }

    /// Registers `value`, replacing a value of the same type.
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.values).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The server's flow limits (the default ones outside a server).
    pub(crate) fn flow_limits(&self) -> super::FlowLimits {
        self.limits
    }

    /// Sets the server's flow limits.
    pub(crate) fn set_flow_limits(&mut self, limits: super::FlowLimits) {
        self.limits = limits;
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppState")
            .field("values", &self.values.len())
            .finish()
    }
}

/// A type of application state a handler needs, checked when the server is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateType {
    id: TypeId,
    name: &'static str,
}

impl StateType {
    /// The requirement of a `State<T>`.
    pub fn of<T: Send + Sync + 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }

    /// The type's name, as the compiler spells it.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// A handler parameter filled from the application state (implemented by [`State<T>`]).
#[doc(hidden)]
pub trait FromAppState: Sized {
    /// The type that must be registered.
    fn requirement() -> StateType;
    /// The value, if registered.
    fn from_app_state(state: &AppState) -> Option<Self>;
}

impl<T: Send + Sync + 'static> FromAppState for State<T> {
    fn requirement() -> StateType {
        StateType::of::<T>()
    }

    fn from_app_state(state: &AppState) -> Option<Self> {
        state.get::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_by_type_and_shared() {
        let mut state = AppState::default();
        state.insert(7_u32);
        state.insert(String::from("config"));
        let copy = state.clone();
        assert_eq!(*copy.get::<u32>().expect("registered"), 7);
        assert_eq!(copy.get::<String>().expect("registered").as_str(), "config");
        assert!(copy.get::<u64>().is_none());
        assert!(copy.has(&StateType::of::<u32>()));
        assert!(!copy.has(&StateType::of::<i32>()));
        let a = copy.get::<String>().expect("registered");
        let b = state.get::<String>().expect("registered");
        assert!(Arc::ptr_eq(&a.0, &b.0), "one value, shared by every round");
    }
}
