//! The check stage.
//!
//! Input: the lowered body, and later each point's analysed locals. Output: each question point
//! marked and recorded (`sites::Site`), the resumable loops. Errors: a question where the body
//! cannot be split, a key two questions share, a local that cannot travel (`refusals`).

pub(crate) mod forbidden;
pub(crate) mod refusals;
pub(crate) mod sites;
pub(crate) mod valid;
