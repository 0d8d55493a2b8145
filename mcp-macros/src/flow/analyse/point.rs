//! What resuming one question point gives the stages after it: the locals its state
//! carries, its resumed body, and where it stands (see `resume`, which builds these, and
//! `straight`, `group` and `settle`, which read them).

use syn::{Block, Ident};

use crate::flow::check::refusals::Refusal;
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::BindingId;

/// A local that travels in the state of one question point.
#[derive(Clone)]
pub(crate) struct Carried {
    /// The local as the body writes it.
    pub(crate) ident: Ident,
    /// Which binding it is, the same for every point that carries it.
    pub(crate) binding: BindingId,
    /// Its field in the state variant (unique within the variant).
    pub(crate) field: Ident,
    /// The binding of the field's value when the state is read.
    pub(crate) value: Ident,
    /// Its slot in the step function: one per local, whichever points carry it (see
    /// `expand::slots`).
    pub(crate) slot: usize,
    /// Whether the local was declared `mut`.
    pub(crate) mutable: bool,
    /// The scope it is declared in (see `resume::Position`'s `level`).
    pub(crate) level: usize,
    /// Where a local of its name declared further down the path hides it at the question:
    /// the borrow of it taken just before that declaration (see `hidden`), which the state
    /// is written from.
    pub(crate) alias: Option<Ident>,
}

impl Carried {
    /// Which local this is, the same for every point that carries it.
    pub(crate) fn local(&self) -> BindingId {
        self.binding
    }
}

/// The resumed body of one question point and the locals its state carries.
pub(crate) struct Resumed {
    pub(crate) body: Block,
    pub(crate) carried: Vec<Carried>,
    /// Whether the resumed body declares, without a value, a local it assigns before reading.
    pub(crate) declares: bool,
    /// The body's own locals (not those of an inner block) that the resumed body borrows
    /// again rather than carries (see `reborrow`).
    pub(crate) borrowed_again: Vec<Ident>,
    /// The block the point stands in at the head of one of its statements, if it is not the
    /// body itself (see `group`).
    pub(crate) head_of: Option<HeadOf>,
    /// The hiding `let`s that need a borrow of the local they hide (see `hidden`).
    pub(crate) hidden: Vec<(Location, Ident)>,
    /// The locals it would carry that cannot travel, for the check stage to report.
    pub(crate) refusals: Vec<Refusal>,
}

/// The innermost block of a point at the head of one of its statements.
#[derive(Clone)]
pub(crate) struct HeadOf {
    /// The block's scope (see `resume::Position`'s `level`): the point's carried locals of
    /// this level are the block's own.
    pub(crate) level: usize,
    /// Whether the block's locals the point needs are all carried or borrowed again: none is
    /// a loop's iterator or only declared.
    pub(crate) plain: bool,
    /// The block's locals the point borrows again (see `reborrow`).
    pub(crate) again: Vec<Ident>,
}

/// Where a hiding local is declared.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Location {
    /// By the `let` that is statement `stmt` of the block at the end of path `block`.
    Let { block: Vec<Step>, stmt: usize },
    /// By a pattern of the `if let`, `while let`, `match` or `for` at the end of the path.
    Construct(Vec<Step>),
}

impl Location {
    /// How deep in the body the hider stands.
    pub(crate) fn depth(&self) -> usize {
        match self {
            Self::Let { block, .. } => block.len() + 1,
            Self::Construct(path) => path.len(),
        }
    }
}
