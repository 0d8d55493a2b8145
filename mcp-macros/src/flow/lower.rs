//! The lower stage.
//!
//! Input: the handler's body. Output: the body with `mut` parameters made locals, `let` chains
//! split before a question, its scopes resolved once (`bindings`), the new names of hidden
//! locals decided in that table (`shadow`; the body keeps the names written) and items lifted
//! out. Errors: a chain the split cannot keep.

pub(crate) mod bindings;
pub(crate) mod chains;
pub(crate) mod items;
pub(crate) mod mutable;
pub(crate) mod shadow;
