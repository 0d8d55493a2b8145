//! The parse stage.
//!
//! Input: the attribute's tokens and the `async fn`. Output: `model::Options` and
//! `model::Handler`, typed records of the attribute and the signature. Errors: unknown,
//! repeated or ill-typed keys; a signature of the wrong shape; a resource without its URI.

pub(crate) mod kind;
pub(crate) mod model;
pub(crate) mod presentation;
pub(crate) mod receiver;
