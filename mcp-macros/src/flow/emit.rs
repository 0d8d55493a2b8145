//! The emit stage.
//!
//! Input: the plan. Output: the step function and the items around it, the flow graph; on
//! error, a stand-in beside the body as written (`unbuilt`). The step function is written
//! under the new names of hidden locals here, once (`renamed`). Errors: none.

pub(crate) mod expand;
pub(crate) mod graph;
pub(crate) mod renamed;
pub(crate) mod settle;
pub(crate) mod unbuilt;
