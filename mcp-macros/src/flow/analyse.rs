//! The analyse stage.
//!
//! Input: the marked body. Output, each keyed by binding id: the facts of the whole function
//! (`hoist::Hoisted`), the bindings each run of statements reads and assigns
//! (`free::Summary`), each point's locals (`point::Resumed` without its body). Errors: none.

pub(crate) mod facts;
pub(crate) mod free;
pub(crate) mod hoist;
pub(crate) mod literals;
pub(crate) mod point;
pub(crate) mod reborrow;
