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

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Block, Expr, Ident, Stmt};

use super::straight;
use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::check::sites::{Head, Loop, Site, Step};
use crate::flow::lower::bindings::Bindings;
use crate::flow::scope::{self, Binding};

mod group;
mod hidden;
mod looped;
mod prefix;
mod restore;
mod syntax;
mod travel;
pub(crate) use crate::flow::analyse::point::{Carried, HeadOf, Location, Resumed};
use crate::flow::check::refusals::Refusal;
pub(crate) use group::{Group, group};
use hidden::Hider;
pub(crate) use hidden::{Aliases, hide};
use prefix::Prefix;
pub(crate) use syntax::field_name;
use syntax::{at_head, cond_lets, declare_assigned, evaluated};

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

/// For each block of one body, by its path, the summaries of the runs of its statements to
/// its end (see `free::suffixes`) and its `let`s (`straight::Lets`): found the first time a
/// point resumed in the block needs them, then shared by every point resumed there, so that
/// each point's resume walks its own statement and not the rest of its block.
#[derive(Default)]
pub(crate) struct Suffixes {
    summaries: RefCell<HashMap<Vec<Step>, Rc<Vec<free::Summary>>>>,
    lets: RefCell<HashMap<Vec<Step>, Rc<straight::Lets>>>,
    prefixes: RefCell<HashMap<PrefixKey, Rc<Prefix>>>,
}

impl Suffixes {
    /// The summaries of `block`, the body's block at `here`.
    fn of(
        &self,
        here: &[Step],
        block: &Block,
        sites: &HashMap<usize, Expr>,
    ) -> Rc<Vec<free::Summary>> {
        if let Some(found) = self.summaries.borrow().get(here)
            && found.len() == block.stmts.len() + 1
        {
            return Rc::clone(found);
        }
        let found = Rc::new(free::suffixes(&block.stmts, sites));
        self.summaries
            .borrow_mut()
            .insert(here.to_vec(), Rc::clone(&found));
        found
    }

    /// What `block`, the body's block at `here`, declares, as `resumer` has it again (see
    /// `prefix`; at the body's top level when `top`).
    fn prefix(&self, resumer: &Resumer<'_>, block: &Block, here: &[Step], top: bool) -> Rc<Prefix> {
        let key = (here.to_vec(), top);
        if let Some(found) = self.prefixes.borrow().get(&key)
            && found.describes(block)
        {
            return Rc::clone(found);
        }
        let found = Rc::new(Prefix::of(resumer, block, here, top));
        self.prefixes.borrow_mut().insert(key, Rc::clone(&found));
        found
    }

    /// The `let`s of `block`, the body's block at `here`.
    fn lets(&self, here: &[Step], block: &Block, hoisted: &Hoisted) -> Rc<straight::Lets> {
        if let Some(found) = self.lets.borrow().get(here)
            && found.describe(block)
        {
            return Rc::clone(found);
        }
        let found = Rc::new(straight::Lets::of(block, hoisted));
        self.lets
            .borrow_mut()
            .insert(here.to_vec(), Rc::clone(&found));
        found
    }
}

/// A block's path, and whether it is the body's (see `Resumer::top`).
type PrefixKey = (Vec<Step>, bool);

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
    assigned_on_path: Option<BTreeSet<String>>,
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

    fn block(&mut self, block: &Block, path: &[Step]) -> Block {
        let Some((Step::Stmt(i), rest)) = path.split_first() else {
            return block.clone();
        };
        let i = *i;
        let top = std::mem::replace(&mut self.top, false);
        let cut = self.cut.take();
        let level = self.level;
        let at_head = !top && at_head(rest);
        let here = self.here(path);
        if let Some(heads) = self.group_at(&here) {
            return self.heads_block(block, &heads);
        }
        let prefix = self.suffixes.prefix(self, block, &here, top);
        // Each block further down tells the locals declared here without a value what it
        // assigns before the question (see `restore`); found only where one is declared.
        if let Some(assigned) = &mut self.assigned_on_path {
            assigned.extend(free::assigned_by_stmts(&block.stmts[..i], self.questions));
        } else if prefix.any_unassigned(self, block, i) {
            self.assigned_on_path = Some(BTreeSet::new());
        }
        self.hiding_lets.push(HidingLets {
            prefix: Rc::clone(&prefix),
            stmt: i,
            level,
            here: here.clone(),
        });
        self.level = level + 2;
        let mut stmts = vec![self.stmt(&block.stmts[i], rest)];
        self.level = level;
        // The rest of a block the body's summaries describe is summarised; a cut block's,
        // or a `let`'s `else` (which has no rest), is walked.
        let walked = cut.is_some() || rest.first() == Some(&Step::LetElse);
        let after = (!walked).then(|| self.suffixes.of(&here, block, self.questions));
        // A `let`'s `else` never goes on to the statements after it.
        if rest.first() != Some(&Step::LetElse) {
            match (cut, &after) {
                (Some(tail), _) => stmts.extend(tail),
                (None, _) if top && self.locals_only => {}
                (None, Some(after)) if self.locals_only && i + 1 < block.stmts.len() => {
                    stmts.push(self.stand_in(block, &after[i + 1]));
                }
                (None, _) => stmts.extend(block.stmts[i + 1..].iter().cloned()),
            }
        }
        let (free, assigned) = match &after {
            None => free::free_and_assigned_with(&stmts, self.questions, &self.stand_ins),
            Some(after) => {
                let (questions, stand_ins) = (self.questions, &self.stand_ins);
                let summary = free::before(&stmts[0], &after[i + 1], questions, stand_ins);
                (summary.free, summary.assigned)
            }
        };
        // Items declared before the question that are not declared once for the whole step
        // function (`macro_rules!`, and items whose names the rest of the body also uses; see
        // `items`) are the block's wherever they stand: they go along, ahead of the restored
        // locals, and so do the constant locals the rest uses (see `hoist`). A `fn` the rest
        // does not call stays behind; any other item goes along as a copy the rest may leave
        // unused, which is no concern of the handler as written.
        let used = |ident: &Ident| free.contains(&ident.to_string());
        // The borrows the hiding `let`s before the question take, taken again first, while
        // the names still mean what they hide.
        let mut restores: Vec<Stmt> = self
            .aliases
            .iter()
            .flat_map(|aliases| aliases.iter())
            .filter_map(|(at, hiding)| match at {
                Location::Let { block, stmt } if *block == here && *stmt < i => {
                    Some((*stmt, hiding))
                }
                _ => None,
            })
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_values()
            .flat_map(|hiding| &hiding.borrows)
            .map(|(hidden, alias)| {
                syn::parse_quote! {
                    #[allow(unused_variables)]
                    let #alias = &#hidden;
                }
            })
            .collect();
        for &j in prefix.hoisted.iter().take_while(|&&j| j < i) {
            let stmt = &block.stmts[j];
            match stmt {
                Stmt::Local(local) => {
                    if scope::let_bindings(local).iter().all(|b| used(&b.ident)) {
                        restores.push(stmt.clone());
                    }
                }
                Stmt::Item(syn::Item::Fn(function)) => {
                    if used(&function.sig.ident) {
                        restores.push(stmt.clone());
                    }
                }
                _ => restores.push(syn::parse_quote! {
                    #[allow(dead_code, unused_imports, unused_macros)]
                    #stmt
                }),
            }
        }
        let declared: Vec<Binding> = prefix
            .declared(i, &free, &assigned)
            .into_iter()
            .map(|at| prefix.binding(self, block, at, i))
            .collect();
        let restored = self.restore(&declared, &free, level);
        let declarations = declare_assigned(&declared, &free, &assigned);
        if at_head {
            self.head_of = Some(HeadOf {
                level,
                plain: !restored.looped && declarations.is_empty(),
                again: restored.again.clone(),
            });
        }
        if top {
            self.borrowed_again.extend(restored.again);
        }
        restores.extend(restored.stmts);
        self.declares |= !declarations.is_empty();
        restores.extend(declarations);
        restores.extend(stmts);
        Block {
            brace_token: block.brace_token,
            stmts: restores,
        }
    }

    /// Statement `stmt` resumed inside it, at the end of `path`. Resumed inside a `let`'s
    /// `else`, it is that block alone, as a statement: the `let` binds nothing on that way.
    /// Only what stays of the statement is copied, not the constructs the point's path
    /// replaces (a loop's body, an `if`'s other branch).
    fn stmt(&mut self, stmt: &Stmt, path: &[Step]) -> Stmt {
        match (stmt, path.split_first()) {
            (Stmt::Local(local), Some((Step::LocalInit, rest))) => {
                let Some(init) = &local.init else {
                    return stmt.clone();
                };
                Stmt::Local(syn::Local {
                    attrs: local.attrs.clone(),
                    modifiers: local.modifiers.clone(),
                    let_token: local.let_token,
                    pat: local.pat.clone(),
                    init: Some(syn::LocalInit {
                        eq_token: init.eq_token,
                        expr: Box::new(self.resumed(&init.expr, rest)),
                        diverge: init.diverge.clone(),
                    }),
                    semi_token: local.semi_token,
                })
            }
            (Stmt::Local(local), Some((Step::LetElse, rest))) => {
                match local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                    Some((_, els)) => Stmt::Expr(self.resumed(els, rest), Some(Default::default())),
                    None => stmt.clone(),
                }
            }
            (Stmt::Expr(expr, semi), Some((Step::ExprStmt, rest))) => {
                Stmt::Expr(self.resumed(expr, rest), *semi)
            }
            _ => stmt.clone(),
        }
    }

    /// `expr` resumed inside it, at the end of `path`.
    fn resumed(&mut self, expr: &Expr, path: &[Step]) -> Expr {
        let Some((step, rest)) = path.split_first() else {
            return expr.clone();
        };
        match (step, expr) {
            (Step::Head(head), _) => {
                let mut expr = expr.clone();
                if let Some(child) = head.child(&mut expr) {
                    let written = std::mem::replace(child, Expr::Verbatim(TokenStream::new()));
                    let outer = self.in_loop_condition;
                    self.in_loop_condition |= *head == Head::WhileCond;
                    *child = self.resumed(&written, rest);
                    self.in_loop_condition = outer;
                }
                expr
            }
            (Step::IfThen, Expr::If(branch)) => {
                let block = self.block(&branch.then_branch, rest);
                let once = matches!(&*branch.cond, Expr::Let(_));
                let at = (self.here(path), (evaluated(&branch.cond), once));
                self.with_pattern(&cond_lets(&branch.cond), block, at)
            }
            (Step::IfElse, Expr::If(branch)) => match &branch.else_branch {
                Some((_, els)) => self.resumed(els, rest),
                None => expr.clone(),
            },
            (Step::Arm(j), Expr::Match(matched)) => {
                let arm = &matched.arms[*j];
                let body = self.resumed(&arm.body, rest);
                let block = Block {
                    brace_token: Default::default(),
                    stmts: vec![Stmt::Expr(body, None)],
                };
                let at = (self.here(path), (matched.expr.to_token_stream(), true));
                self.with_pattern(&[(&arm.pat, &matched.expr)], block, at)
            }
            (Step::BlockExpr, Expr::Block(block)) => Expr::Block(syn::ExprBlock {
                attrs: block.attrs.clone(),
                label: block.label.clone(),
                block: self.block(&block.block, rest),
            }),
            (Step::LoopBody, Expr::Loop(looped)) => self.resumed_loop(looped, rest),
            (Step::WhileBody | Step::ForBody(_), Expr::While(looped)) => {
                self.resumed_while(looped, path)
            }
            _ => expr.clone(),
        }
    }

    /// The marker of the statements of `block` that `summary` summarises, to its end.
    fn stand_in(&mut self, block: &Block, summary: &free::Summary) -> Stmt {
        self.stand_ins
            .push(free::StandIn::rest_of(block, summary.clone()));
        free::StandIn::marker(self.stand_ins.len() - 1)
    }

    /// The path to the expression whose steps into it are `path`.
    fn here(&self, path: &[Step]) -> Vec<Step> {
        self.full[..self.full.len() - path.len()].to_vec()
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

/// The scope of the block at `prefix` of a point's path (see [`Resumer::level`]).
pub(crate) fn level_of(prefix: &[Step]) -> usize {
    2 * prefix
        .iter()
        .filter(|step| matches!(step, Step::Stmt(_)))
        .count()
}
