//! Free variables: which locals a piece of code uses from outside itself, and which outer
//! locals it assigns before reading them, each by its binding id. The binding table
//! (`lower::bindings`) says which binding each name is, in the body and in the code the
//! later stages rebuild from it (whose tokens keep the body's); the walk's scopes say only
//! which of those bindings the code walked declares, or assigns, before a use. A name the
//! table did not meet (an item, a local the macro made) is keyed by its name alone
//! (`Bindings::id`). Here the summaries and the walk's scopes; how each construct binds and
//! assigns is `constructs.rs`'s, a run left out of the walk `stand_in.rs`'s.

use std::collections::{BTreeSet, HashMap};

use syn::visit::Visit;
use syn::{Expr, Ident, Pat, Stmt};

use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::scope::pattern_bindings;

mod constructs;
mod ends;
mod macros;
mod stand_in;
use ends::{block_diverges, block_ends, ends};
pub(crate) use ends::{diverges, panics};
pub(crate) use stand_in::{StandIn, free_and_assigned_with};

/// A set of bindings, by id.
pub(crate) type Ids = BTreeSet<BindingId>;

/// What a walk looks up besides the code: the question each point's marker stands for, and
/// which binding each name is.
#[derive(Clone, Copy)]
pub(crate) struct Lookup<'a> {
    pub(crate) questions: &'a HashMap<usize, Expr>,
    pub(crate) bindings: &'a Bindings,
}

/// The bindings `stmts` use that no binding inside them introduces first.
pub(crate) fn free_in_stmts(stmts: &[Stmt], lookup: Lookup<'_>) -> Ids {
    free_and_assigned_in_stmts(stmts, lookup).0
}

/// The free bindings of `stmts`, and the outer ones they assign (`name = ...`) before reading
/// them: those need a declaration in scope, not a value.
pub(crate) fn free_and_assigned_in_stmts(stmts: &[Stmt], lookup: Lookup<'_>) -> (Ids, Ids) {
    free_and_assigned_with(stmts, lookup, &[])
}

/// What a run of a block's statements reads from outside it, and assigns before reading (see
/// [`free_and_assigned_in_stmts`]): kept, so that a statement's can be put before the run
/// after it without walking that run again ([`before`]), and so that the run can stand in
/// the walk where it is left out of the code walked (see [`StandIn`]).
#[derive(Clone, Default)]
pub(crate) struct Summary {
    pub(crate) free: Ids,
    pub(crate) assigned: Ids,
    /// The outer bindings every way through the run to its end assigns.
    every_way: Ids,
    /// The `break`s out of the run to constructs around it.
    breaks: Vec<Break>,
}

/// A `break` out of a run of statements: the construct it leaves, and the outer bindings
/// assigned on every way to it from the run's start.
#[derive(Clone)]
struct Break {
    /// Its label; `None` leaves the innermost loop.
    label: Option<String>,
    assigned: Ids,
}

/// For each statement of a block, the summary of the statements from it to the block's end,
/// and last an empty one: found from the end, each statement walked once.
pub(crate) fn suffixes(stmts: &[Stmt], lookup: Lookup<'_>) -> Vec<Summary> {
    let mut out = vec![Summary::default(); stmts.len() + 1];
    for (j, stmt) in stmts.iter().enumerate().rev() {
        out[j] = before(stmt, &out[j + 1], lookup, &[]);
    }
    out
}

/// The summary of `stmt` followed, in its block, by the statements `rest` summarises: what
/// those read or assign first, the whole does, unless `stmt` binds it (by a `let`, or by
/// assigning it on every way through).
pub(crate) fn before(
    stmt: &Stmt,
    rest: &Summary,
    lookup: Lookup<'_>,
    stand_ins: &[StandIn],
) -> Summary {
    let mut finder = FreeVars::new(lookup, stand_ins);
    finder.push();
    finder.stmt(stmt);
    let scope = finder.scopes.pop().unwrap_or_default();
    let after = |ids: &Ids| {
        ids.iter()
            .filter(|id| !scope.names.contains(*id))
            .copied()
            .collect::<Vec<_>>()
    };
    let (more_free, more_assigned) = (after(&rest.free), after(&rest.assigned));
    let (mut free, mut assigned) = (finder.free, finder.assigned);
    free.extend(more_free);
    assigned.extend(more_assigned);
    let mut every_way = scope.assigned.clone();
    every_way.extend(after(&rest.every_way));
    // A `break` in the rest also has what the statement assigns, but for the bindings the
    // statement declares: those the rest assigns are the statement's, not outer ones.
    let declared = scope.declared();
    let mut breaks = finder.escaping;
    breaks.extend(rest.breaks.iter().map(|exit| {
        let mut assigned = scope.assigned.clone();
        assigned.extend(exit.assigned.difference(&declared).copied());
        Break {
            label: exit.label.clone(),
            assigned,
        }
    }));
    Summary {
        free,
        assigned,
        every_way,
        breaks,
    }
}

/// The outer bindings every way through `stmts` to their end assigns (`name = ...`).
pub(crate) fn assigned_by_stmts(stmts: &[Stmt], lookup: Lookup<'_>) -> Ids {
    let mut finder = FreeVars::new(lookup, &[]);
    finder.stmts(stmts);
    finder.pop()
}

struct FreeVars<'a> {
    scopes: Vec<Scope>,
    free: Ids,
    /// Outer bindings assigned before any read: bound from there on, in the assigning scope.
    assigned: Ids,
    /// The constructs a `break` here may leave, innermost last.
    exits: Vec<Exit>,
    /// The `break`s out of the code walked, to constructs around it.
    escaping: Vec<Break>,
    /// How many closures and `async` blocks the walk is in, out of which no `break` leaves.
    opaque: usize,
    lookup: Lookup<'a>,
    /// The runs of statements left out of the code walked, each in place of its marker.
    stand_ins: &'a [StandIn],
}

/// A construct `break` leaves: a loop, or a labelled block.
struct Exit {
    label: Option<String>,
    is_loop: bool,
    /// The index of its scope.
    depth: usize,
    /// The outer bindings every `break` out of it so far assigns; `None` before the first.
    assigned: Option<Ids>,
}

/// A scope the finder is in: a block, a closure, a match arm, a construct's bindings.
#[derive(Default)]
struct Scope {
    /// The bindings bound in it so far, by a pattern or by an assignment.
    names: Vec<BindingId>,
    /// The bindings from outside it that every way through it, so far, assigns.
    assigned: Ids,
}

impl Scope {
    /// The bindings a pattern binds in it (rather than an assignment from outside).
    fn declared(&self) -> Ids {
        self.names
            .iter()
            .filter(|id| !self.assigned.contains(*id))
            .copied()
            .collect()
    }
}

impl<'a> FreeVars<'a> {
    fn new(lookup: Lookup<'a>, stand_ins: &'a [StandIn]) -> Self {
        Self {
            scopes: vec![Scope::default()],
            free: Ids::new(),
            assigned: Ids::new(),
            exits: Vec::new(),
            escaping: Vec::new(),
            opaque: 0,
            lookup,
            stand_ins,
        }
    }

    fn bound(&self, id: BindingId) -> bool {
        self.scopes.iter().any(|scope| scope.names.contains(&id))
    }

    /// The binding `ident` is (see `Bindings::id`).
    fn id(&self, ident: &Ident) -> BindingId {
        self.lookup.bindings.id(ident)
    }

    fn push(&mut self) {
        self.scopes.push(Scope::default());
    }

    /// Enters a construct `break` may leave, in a scope of its own.
    fn push_exit(&mut self, label: Option<&syn::Label>, is_loop: bool) {
        self.push();
        self.exits.push(Exit {
            label: label.map(|label| label.name.ident.to_string()),
            is_loop,
            depth: self.scopes.len() - 1,
            assigned: None,
        });
    }

    /// Leaves the construct [`push_exit`](Self::push_exit) entered: what every `break` out of
    /// it assigns (`None`: none leaves it), and what its scope assigns.
    fn pop_exit(&mut self) -> (Option<Ids>, Ids) {
        let exit = self.exits.pop().and_then(|exit| exit.assigned);
        (exit, self.pop())
    }

    /// The outer bindings assigned on every way here from the scope at `depth`: what each
    /// scope assigns, but for the bindings a scope around it, from `depth` on, declares.
    fn assigned_since(&self, depth: usize) -> Ids {
        let mut assigned = Ids::new();
        let mut declared = Ids::new();
        for scope in &self.scopes[depth..] {
            assigned.extend(scope.assigned.difference(&declared).copied());
            declared.extend(scope.declared());
        }
        assigned
    }

    /// The bindings the scopes from `depth` on declare.
    fn declared_since(&self, depth: usize) -> Ids {
        self.scopes[depth..]
            .iter()
            .flat_map(Scope::declared)
            .collect()
    }

    /// Leaves the innermost scope: the outer bindings every way through it assigns.
    fn pop(&mut self) -> Ids {
        self.scopes
            .pop()
            .map(|scope| scope.assigned)
            .unwrap_or_default()
    }

    /// Binding `id` is assigned in the innermost scope, on every way through it so far:
    /// unless a pattern of this scope binds it, it is bound from here on, and the scope
    /// assigns it.
    fn assign(&mut self, id: BindingId) {
        let scope = self.scopes.last_mut().expect("a scope is always open");
        if !scope.names.contains(&id) {
            scope.names.push(id);
            scope.assigned.insert(id);
        }
    }

    /// What a construct that runs whenever the code after it does assigns: `assigned` of
    /// every way through it, or `None` where no way through it reaches that code.
    fn assigned_by(&mut self, assigned: Option<Ids>) {
        for id in assigned.into_iter().flatten() {
            self.assign(id);
        }
    }

    fn use_binding(&mut self, id: BindingId) {
        if !self.bound(id) {
            self.free.insert(id);
        }
    }

    fn bind(&mut self, pat: &Pat) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, None, &mut bindings);
        let ids: Vec<BindingId> = bindings.iter().map(|b| self.id(&b.ident)).collect();
        let scope = self.scopes.last_mut().expect("a scope is always open");
        scope.names.extend(ids);
    }

    /// A block's statements, in a scope of their own; what every way through them assigns is
    /// assigned in the enclosing scope, whose construct says whether that always runs.
    fn stmts(&mut self, stmts: &[Stmt]) {
        self.push();
        for stmt in stmts {
            self.stmt(stmt);
        }
        let assigned = self.pop();
        self.assigned_by(Some(assigned));
    }

    /// One statement of the block whose scope is innermost.
    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.visit_expr(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        // Runs only where the pattern fails, and never goes on.
                        self.push();
                        self.visit_expr(diverge);
                        self.pop();
                    }
                }
                // A `let` under `#[cfg(..)]` may be compiled out, leaving the bindings it
                // would hide to the code after it. (Only past `cfgs`' conditions: below them,
                // each copy of the body has its `let`s kept without the attribute, or left out.)
                if !local.attrs.iter().any(|attr| attr.path().is_ident("cfg")) {
                    self.bind(&local.pat);
                }
            }
            Stmt::Expr(expr, _) => self.visit_expr(expr),
            Stmt::Macro(mac) => match stand_in::marked(&mac.mac) {
                Some(n) => self.stand_in(n),
                None => self.mac(&mac.mac),
            },
            Stmt::Item(_) => {}
        }
    }
}

impl FreeVars<'_> {
    /// The index of the construct a `break` with `label` (or none) leaves, if it is inside
    /// the code walked.
    fn exit(&self, label: Option<&String>) -> Option<usize> {
        match label {
            Some(label) => self
                .exits
                .iter()
                .rposition(|exit| exit.label.as_ref() == Some(label)),
            None => self.exits.iter().rposition(|exit| exit.is_loop),
        }
    }
}

/// The bindings assigned on every way through two sets of ways: `so_far` (`None`: no way
/// yet) and `more`.
fn both(so_far: Option<Ids>, more: Ids) -> Ids {
    match so_far {
        Some(so_far) => so_far.intersection(&more).copied().collect(),
        None => more,
    }
}

#[cfg(test)]
mod tests;
