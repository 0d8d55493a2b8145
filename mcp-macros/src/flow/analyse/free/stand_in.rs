//! Runs of statements left out of the code walked, walked as their summaries: a point
//! resumed for its locals alone (see `resume`) has, in place of the rest of each block it
//! resumes in and of each loop body it copies, a marker that names the run's summary, so that
//! finding its locals walks its own statements and not the rest of the body once per point.
//!
//! A marker is a statement of its own, last in its block, and stands for the block's
//! statements from some statement to the end: the walk has what they read, what they assign
//! before reading, what every way through them assigns, the `break`s out of them, and
//! whether the last of them goes on. Walking the marker so comes to what walking the run in
//! its place would.

use proc_macro2::{Literal, Span, TokenStream, TokenTree};
use syn::{Block, Expr, Ident, Stmt};

use super::panics;
use super::{Break, FreeVars, Ids, Lookup, Summary, block_diverges, block_ends, both, ends};

/// The macro a marker calls: it names nothing and is never expanded, nor emitted.
const MARKER: &str = "__mcp_stand_in";

/// A run of a block's statements, to its end, left out of the code walked.
pub(crate) struct StandIn {
    summary: Summary,
    /// Whether the run's last statement never goes on.
    diverges: bool,
}

impl StandIn {
    /// The statements of `block` that `summary` summarises, to the block's end (see
    /// `free::suffixes`).
    pub(crate) fn rest_of(block: &Block, summary: Summary) -> Self {
        Self {
            summary,
            diverges: block_diverges(block),
        }
    }

    /// The marker of stand-in number `n`, a statement.
    pub(crate) fn marker(n: usize) -> Stmt {
        let number = TokenTree::Literal(Literal::usize_unsuffixed(n));
        Stmt::Macro(syn::StmtMacro {
            attrs: Vec::new(),
            mac: syn::Macro {
                path: Ident::new(MARKER, Span::call_site()).into(),
                bang_token: Default::default(),
                delimiter: syn::MacroDelimiter::Paren(Default::default()),
                tokens: TokenStream::from(number),
            },
            semi_token: Some(Default::default()),
        })
    }
}

/// The number of the stand-in whose marker `mac` is.
pub(super) fn marked(mac: &syn::Macro) -> Option<usize> {
    if !mac.path.is_ident(MARKER) {
        return None;
    }
    match mac.tokens.clone().into_iter().next()? {
        TokenTree::Literal(number) => number.to_string().parse().ok(),
        _ => None,
    }
}

/// [`free_and_assigned_in_stmts`](super::free_and_assigned_in_stmts) of `stmts`, in which
/// markers stand for the runs of `stand_ins`.
pub(crate) fn free_and_assigned_with(
    stmts: &[Stmt],
    lookup: Lookup<'_>,
    stand_ins: &[StandIn],
) -> (Ids, Ids) {
    let mut finder = FreeVars::new(lookup, stand_ins);
    finder.stmts(stmts);
    (finder.free, finder.assigned)
}

impl FreeVars<'_> {
    /// Stand-in `n`'s run, as if walked here, at the end of the innermost scope's block.
    pub(super) fn stand_in(&mut self, n: usize) {
        let stand_ins = self.stand_ins;
        let Some(StandIn { summary, .. }) = stand_ins.get(n) else {
            return;
        };
        for &id in &summary.free {
            self.use_binding(id);
        }
        for &id in &summary.assigned {
            if !self.bound(id) {
                self.assigned.insert(id);
            }
        }
        // What a `break` in the run has assigned: what the code around it has, and what the
        // run has but for the bindings the code around it declares.
        for exit in &summary.breaks {
            let target = self.exit(exit.label.as_ref());
            if target.is_none() && self.opaque > 0 {
                continue;
            }
            let depth = target.map_or(0, |target| self.exits[target].depth);
            let mut here = self.assigned_since(depth);
            let declared = self.declared_since(depth);
            here.extend(exit.assigned.difference(&declared).copied());
            match target {
                Some(target) => {
                    let exit = &mut self.exits[target];
                    exit.assigned = Some(both(exit.assigned.take(), here));
                }
                None => self.escaping.push(Break {
                    label: exit.label.clone(),
                    assigned: here,
                }),
            }
        }
        for &id in &summary.every_way {
            self.assign(id);
        }
    }

    /// Whether `block` never goes on past its end, as far as its last statement, or the
    /// last of the run a marker there stands for, shows.
    pub(super) fn block_ends(&self, block: &Block) -> bool {
        block_ends(block, &|mac| self.macro_ends(mac))
    }

    /// [`diverges`](super::diverges), seeing through markers.
    pub(super) fn ends(&self, expr: &Expr) -> bool {
        ends(expr, &|mac| self.macro_ends(mac))
    }

    /// Whether the macro statement `mac` never goes on: a marker whose run's last statement
    /// does not, or a panicking macro.
    fn macro_ends(&self, mac: &syn::Macro) -> bool {
        match marked(mac) {
            Some(n) => self.stand_ins.get(n).is_some_and(|run| run.diverges),
            None => panics(mac),
        }
    }
}
