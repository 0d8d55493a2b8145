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

use syn::{Block, Expr, Ident, Local, Stmt};

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
/// question. Made once per body by `flow::compile` (once more after the hiders are
/// rewritten), never written after; read by every walk, each holding a copy of these
/// references, and by `in_place` and `group`.
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

    /// The `let` that is statement `j` of the block at `here`, as written: rewritten to
    /// borrow what it hides first, where it is (see `hidden`).
    fn written<'l>(&'l self, here: &[Step], j: usize, local: &'l Local) -> &'l Local {
        let at = Location::Let {
            block: here.to_vec(),
            stmt: j,
        };
        match self.aliases.and_then(|aliases| aliases.get(&at)) {
            Some(hiding) if local.init.is_some() => &hiding.written,
            _ => local,
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

/// The walk down one point's path, which finds the locals it needs and, unless only those
/// are wanted, builds its resumed body. Its state is in five records: what the earlier
/// stages found ([`Stages`]), what the caller asks of this walk ([`Asked`]), where the walk
/// is ([`Position`]), what it passed on the way down ([`Passed`]) and what it found
/// ([`Found`]). The walk itself is in `walk.rs`, `looped.rs` and `restore.rs`; `travel.rs`
/// settles what cannot travel and `group.rs` builds a group's block.
pub(crate) struct Resumer<'a> {
    stages: Stages<'a>,
    asked: Asked,
    at: Position,
    passed: Passed,
    found: Found,
}

/// What the caller asks of one walk, set before it starts (by [`Resumer::resume`],
/// [`Resumer::locals_only`] or a group's planner) and read by the walk (`walk.rs`,
/// `looped.rs`, `restore.rs`), which takes `cut` and `group` at the block they are for.
#[derive(Default)]
struct Asked {
    /// Where the first block this resumer enters is cut after the point's statement, what
    /// follows that statement in place of the block's own (see `straight::cut_tail`): the
    /// body's summaries do not describe it, so it is walked.
    cut: Option<Vec<Stmt>>,
    /// Whether only the point's locals are wanted, not its resumed body: the body's
    /// statements after the point's are then left out of it, and the rest of each inner
    /// block and each copy of a loop's body are markers that stand in the walk for them
    /// ([`Found::stand_ins`]), which the resumed body cannot be emitted with.
    locals_only: bool,
    /// Resuming several points of one inner block together (see `group`).
    group: Option<group::Heads>,
    /// The number of the first value restored here (see `group`, whose resumers share an arm).
    first_value: usize,
}

/// Where the walk is on the point's path: set by [`Resumer::resume_in`], moved down by the
/// walk (`walk.rs`), read by every part of it.
struct Position {
    /// The point's path, whole.
    full: Vec<Step>,
    /// Whether the next block entered is the body itself.
    top: bool,
    /// The scope being resumed into, counted down the path: a block's own locals at an even
    /// level, the patterns of a construct in it at the next, the construct's block after.
    level: usize,
    /// Whether the code being resumed is a `while` loop's condition, which runs again each
    /// time round the loop: a value it holds across a question cannot be restored there once.
    in_loop_condition: bool,
}

impl Position {
    /// The path to the expression whose steps into it are `path`.
    fn here(&self, path: &[Step]) -> Vec<Step> {
        self.full[..self.full.len() - path.len()].to_vec()
    }
}

/// What the blocks and patterns the walk went through declare and assign before the
/// question: written on the way down (`walk.rs`, `looped.rs`, `restore.rs`), read to restore
/// (`restore.rs`) and to find what hides a carried local (`travel.rs`).
#[derive(Default)]
struct Passed {
    /// The locals the patterns down the path bind before the question: where one has the
    /// name of a carried local of a lower level, it hides that one at the question.
    hiding: Vec<Hider>,
    /// The `let`s of the blocks down the path before the question, which hide as `hiding`
    /// does (see `prefix`).
    hiding_lets: Vec<HidingLets>,
    /// The outer locals the statements before the question assign on every way to it, in the
    /// blocks down the path below the first that declares a local without a value (`None`
    /// above it, where nothing asks).
    assigned_on_path: Option<free::Ids>,
}

impl Passed {
    /// The innermost local declared down the path, below `carried`'s level and before the
    /// question, that hides it there: a `let` or a pattern, which stand at levels apart.
    fn hider(&self, carried: &Carried, bindings: &Bindings) -> Option<Hider> {
        // Hiding is a relation between names as the output writes them (see `shadow`).
        let name = bindings.written(&carried.ident).to_string();
        let by_let = self
            .hiding_lets
            .iter()
            .filter(|lets| lets.level > carried.level)
            .filter_map(|lets| lets.prefix.hider(&name, lets.stmt, lets.level, &lets.here))
            .min_by_key(|hider| hider.level);
        let by_pattern = self
            .hiding
            .iter()
            .filter(|hider| {
                hider.level > carried.level && bindings.same_name(&hider.ident, &carried.ident)
            })
            .min_by_key(|hider| hider.level);
        match (by_let, by_pattern) {
            (Some(by_let), Some(by_pattern)) if by_pattern.level < by_let.level => {
                Some(by_pattern.clone())
            }
            (Some(by_let), _) => Some(by_let),
            (None, by_pattern) => by_pattern.cloned(),
        }
    }
}

/// What the walk finds: written as it goes (`walk.rs`, `restore.rs`, `travel.rs`), handed
/// on in [`Resumed`] once it ends. Each field but `stand_ins` is the field of [`Resumed`]
/// of its name.
#[derive(Default)]
struct Found {
    carried: Vec<Carried>,
    declares: bool,
    borrowed_again: Vec<Ident>,
    head_of: Option<HeadOf>,
    hidden: Vec<(Location, Ident)>,
    refusals: Vec<Refusal>,
    /// The markers of the code left out where only the locals are wanted
    /// ([`Asked::locals_only`]), which the walk's own summaries read; not handed on.
    stand_ins: Vec<free::StandIn>,
}

impl Found {
    /// The field of `ident` in this point's state, named after the local as the user wrote
    /// it, unlike any field found before.
    fn field_name(&self, ident: &Ident, bindings: &Bindings) -> Ident {
        let shown = bindings.shown_name(ident);
        field_name(&shown, |name| self.carried.iter().any(|c| c.field == name))
    }

    /// The marker of the statements of `block` that `summary` summarises, to its end.
    fn stand_in(&mut self, block: &Block, summary: &free::Summary) -> Stmt {
        self.stand_ins
            .push(free::StandIn::rest_of(block, summary.clone()));
        free::StandIn::marker(self.stand_ins.len() - 1)
    }

    /// The point resumed, with `body`.
    fn resumed(self, body: Block) -> Resumed {
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

impl<'a> Resumer<'a> {
    /// A walk that reads `stages` and builds the resumed body.
    pub(crate) fn new(stages: Stages<'a>) -> Self {
        Self {
            stages,
            asked: Asked::default(),
            at: Position {
                full: Vec::new(),
                top: true,
                level: 0,
                in_loop_condition: false,
            },
            passed: Passed::default(),
            found: Found::default(),
        }
    }

    /// The body cut after the point's statement, followed by `tail` (see
    /// `straight::cut_tail`), resumed at `site`.
    pub(crate) fn resume(mut self, body: &Block, tail: Option<Vec<Stmt>>, site: usize) -> Resumed {
        self.asked.cut = tail;
        self.resume_in(body, &[], site)
    }

    /// The body as a whole (not cut after a statement) resumed at `site`.
    pub(crate) fn resume_whole(self, body: &Block, site: usize) -> Resumed {
        self.resume_in(body, &[], site)
    }

    /// A resumer that finds the point's locals, not its resumed body (see
    /// [`Asked::locals_only`]): the analysis of every point, before the check stage and
    /// before it is known whether the point is resumed in place, in a group (see `group`),
    /// or alone.
    pub(crate) fn locals_only(mut self) -> Self {
        self.asked.locals_only = true;
        self
    }

    /// `block`, the block at `prefix` of the point's path (the body when `prefix` is empty),
    /// resumed at `site`.
    pub(crate) fn resume_in(mut self, block: &Block, prefix: &[Step], site: usize) -> Resumed {
        self.at.full = self.stages.sites[site].path.clone();
        if !prefix.is_empty() {
            self.at.top = false;
            self.at.level = level_of(prefix);
        }
        let path = self.at.full[prefix.len()..].to_vec();
        let body = self.block(block, &path);
        self.settle_hidden();
        self.found.resumed(body)
    }
}

// The resumed code is put together as syntax trees, not printed and parsed again: the
// blocks spliced in are as long as the rest of the block a point stands in.

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

/// The scope of the block at `prefix` of a point's path (see [`Position::level`]).
pub(crate) fn level_of(prefix: &[Step]) -> usize {
    2 * prefix
        .iter()
        .filter(|step| matches!(step, Step::Stmt(_)))
        .count()
}
