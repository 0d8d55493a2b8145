//! The plan stage.
//!
//! Input: the checked analysis. Output: each point's placement (`straight::Placement`), the
//! hiding `let`s rewritten, the points resumed together (`resume::Group`), and the nest and
//! resumed bodies built where the plan puts them. Errors: none.

pub(crate) mod resume;
pub(crate) mod straight;
