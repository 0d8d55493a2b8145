//! The body as it runs when a flow resumes at one question point, and the locals it needs.
//!
//! Input (resuming at the question inside the `if`):
//! ```text
//! let target: Target = __mcp_site!().0?;
//! if target.production { let ok: Confirm = __mcp_site!().1?; stop_unless(ok)?; }
//! finish(target)
//! ```
//! Output: the statements from that question on, with the enclosing constructs replaced by
//! the branch taken, and each carried local restored at the top of the block that declared it:
//! ```text
//! { let target = __mcp_v0; { let ok: Confirm = __mcp_site!().1?; stop_unless(ok)?; } finish(target) }
//! ```

use std::collections::HashMap;
use std::rc::Rc;

use syn::{Block, Expr, Ident, Stmt};

use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::check::sites::{Loop, Site, Step};
use crate::flow::lower::bindings::Bindings;
use crate::flow::scope::Binding;

mod group;
mod hidden;
mod in_place;
mod looped;
mod prefix;
mod restore;
mod suffixes;
mod syntax;
mod travel;
mod walk;
pub(crate) use crate::flow::analyse::point::{Carried, HeadOf, Location, Resumed};
use crate::flow::check::refusals::Refusal;
pub(crate) use group::{Group, group};
use hidden::Hider;
pub(crate) use hidden::{Aliases, hide};
pub(crate) use in_place::in_place;
use prefix::Prefix;
pub(crate) use suffixes::Suffixes;
use syntax::at_head;
pub(crate) use syntax::field_name;

/// What the earlier stages found that resuming reads: the question points, the resumable
/// `for` loops, the statements declared again rather than carried, and each point's
/// question.
#[derive(Clone, Copy)]
pub(crate) struct Stages<'a> {
    pub(crate) sites: &'a [Site],
    pub(crate) loops: &'a [Loop],
    pub(crate) hoisted: &'a Hoisted,
    pub(crate) questions: &'a HashMap<usize, Expr>,
    /// The hiding `let`s rewritten to borrow what they hide (see `hidden`), once they are.
    pub(crate) aliases: Option<&'a Aliases>,
    /// What the statements after each question read, per block of the body.
    pub(crate) suffixes: &'a Suffixes,
    /// Which binding each local is (see `lower::bindings`).
    pub(crate) bindings: &'a Bindings,
}

impl<'a> Stages<'a> {
    /// What a walk of the body's code looks up (see `free::Lookup`).
    pub(crate) fn lookup(&self) -> free::Lookup<'a> {
        free::Lookup {
            questions: self.questions,
            bindings: self.bindings,
        }
    }
}

/// The `let`s of a block down a point's path, before statement `stmt`, at `level`.
struct HidingLets {
    prefix: Rc<Prefix>,
    stmt: usize,
    level: usize,
    here: Vec<Step>,
}

pub(crate) struct Resumer<'a> {
    declares: bool,
    /// Where the first block this resumer enters is cut after the point's statement, what
    /// follows that statement in place of the block's own (see `straight::cut_tail`): the
    /// body's summaries do not describe it, so it is walked.
    cut: Option<Vec<Stmt>>,
    /// Whether only the point's locals are wanted, not its resumed body: the body's
    /// statements after the point's are then left out of it, and the rest of each inner
    /// block and each copy of a loop's body are markers that stand in the walk for them
    /// (`stand_ins`), which the resumed body cannot be emitted with.
    locals_only: bool,
    stand_ins: Vec<free::StandIn>,
    /// Whether the code being resumed is a `while` loop's condition, which runs again each
    /// time round the loop: a value it holds across a question cannot be restored there once.
    in_loop_condition: bool,
    suffixes: &'a Suffixes,
    /// Whether the next block entered is the body itself.
    top: bool,
    /// The scope being resumed into, counted down the path: a block's own locals at an even
    /// level, the patterns of a construct in it at the next, the construct's block after.
    level: usize,
    /// The locals declared down the path before the question: where one has the name of a
    /// carried local of a lower level, it hides that one at the question.
    hiding: Vec<Hider>,
    /// The `let`s of the blocks down the path before the question, which hide as `hiding`
    /// does (see `prefix`).
    hiding_lets: Vec<HidingLets>,
    /// The point's path, whole.
    full: Vec<Step>,
    /// The outer locals the statements before the question assign on every way to it, in the
    /// blocks down the path below the first that declares a local without a value (`None`
    /// above it, where nothing asks).
    assigned_on_path: Option<free::Ids>,
    aliases: Option<&'a Aliases>,
    hidden: Vec<(Location, Ident)>,
    borrowed_again: Vec<Ident>,
    sites: &'a [Site],
    loops: &'a [Loop],
    hoisted: &'a Hoisted,
    questions: &'a HashMap<usize, Expr>,
    carried: Vec<Carried>,
    head_of: Option<HeadOf>,
    /// Resuming several points of one inner block together (see `group`).
    group: Option<group::Heads>,
    /// The number of the first value restored here (see `group`, whose resumers share an arm).
    first_value: usize,
    /// The locals found that cannot travel, for the check stage (see `travel`).
    refusals: Vec<Refusal>,
    bindings: &'a Bindings,
}

impl<'a> Resumer<'a> {
    pub(crate) fn new(stages: Stages<'a>) -> Self {
        let Stages {
            sites,
            loops,
            hoisted,
            questions,
            aliases,
            suffixes,
            bindings,
        } = stages;
        Self {
            declares: false,
            cut: None,
            locals_only: false,
            stand_ins: Vec::new(),
            in_loop_condition: false,
            suffixes,
            top: true,
            level: 0,
            hiding: Vec::new(),
            hiding_lets: Vec::new(),
            full: Vec::new(),
            assigned_on_path: None,
            aliases,
            hidden: Vec::new(),
            borrowed_again: Vec::new(),
            sites,
            loops,
            hoisted,
            questions,
            carried: Vec::new(),
            head_of: None,
            group: None,
            first_value: 0,
            refusals: Vec::new(),
            bindings,
        }
    }

    /// The body cut after the point's statement, followed by `tail` (see
    /// `straight::cut_tail`), resumed at `site`.
    pub(crate) fn resume(mut self, body: &Block, tail: Option<Vec<Stmt>>, site: usize) -> Resumed {
        self.cut = tail;
        self.resume_in(body, &[], site)
    }

    /// The body as a whole (not cut after a statement) resumed at `site`.
    pub(crate) fn resume_whole(self, body: &Block, site: usize) -> Resumed {
        self.resume_in(body, &[], site)
    }

    /// A resumer that finds the point's locals, not its resumed body (see `locals_only`): the
    /// analysis of every point, before the check stage and before it is known whether the
    /// point is resumed in place, in a group (see `group`), or alone.
    pub(crate) fn locals_only(mut self) -> Self {
        self.locals_only = true;
        self
    }

    /// `block`, the block at `prefix` of the point's path (the body when `prefix` is empty),
    /// resumed at `site`.
    pub(crate) fn resume_in(mut self, block: &Block, prefix: &[Step], site: usize) -> Resumed {
        self.full = self.sites[site].path.clone();
        if !prefix.is_empty() {
            self.top = false;
            self.level = level_of(prefix);
        }
        let path = self.full[prefix.len()..].to_vec();
        let body = self.block(block, &path);
        self.settle_hidden();
        Resumed {
            body,
            carried: self.carried,
            declares: self.declares,
            borrowed_again: self.borrowed_again,
            head_of: self.head_of,
            hidden: self.hidden,
            refusals: self.refusals,
        }
    }
}

// The resumed code is put together as syntax trees, not printed and parsed again: the
// blocks spliced in are as long as the rest of the block a point stands in.

impl<'a> Resumer<'a> {
    /// What a walk of the code resumed looks up (see `free::Lookup`).
    fn lookup(&self) -> free::Lookup<'a> {
        free::Lookup {
            questions: self.questions,
            bindings: self.bindings,
        }
    }
}

/// `block` as an expression.
fn block_expr(block: Block) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block,
    })
}

/// `expr` as a block: itself if it is one, else a block holding it.
fn in_block(expr: Expr) -> Block {
    match expr {
        Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => block.block,
        expr => Block {
            brace_token: Default::default(),
            stmts: vec![Stmt::Expr(expr, None)],
        },
    }
}

/// The scope of the block at `prefix` of a point's path (see [`Resumer::level`]).
pub(crate) fn level_of(prefix: &[Step]) -> usize {
    2 * prefix
        .iter()
        .filter(|step| matches!(step, Step::Stmt(_)))
        .count()
}
