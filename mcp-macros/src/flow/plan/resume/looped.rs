//! What resuming inside a loop adds: the rest of the iteration the flow stopped in runs
//! once, as straight code ahead of the loop (so the compiler sees what it assigns before the
//! loop runs again, and the values restored in it moved once), then the loop as written; and
//! a `for` loop's current item bound again. A loop whose points resume in place (see
//! `in_place`) is written once instead, and needs none of this.
//!
//! Reads `stages`, `asked` and `at`; writes `passed` (a `for` loop's pattern hides) and
//! `found` (the markers standing for a loop's body).

use proc_macro2::Span;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Lifetime, Stmt};

use super::syntax::{cond_lets, evaluated};
use super::{Hider, Resumer, in_block};
use crate::flow::check::sites::{Loop, Step};
use crate::flow::scope;
use crate::flow::step;

impl Resumer<'_> {
    /// Input:  `'l: loop { BODY }`, resuming inside BODY by `rest`
    /// Output: `'loop: { 'rest: { RESUMED } 'l: loop { BODY } }`, where in RESUMED each
    ///         `continue` of the loop is `break 'rest` and each `break` of it `break 'loop`
    ///
    /// The rest of the iteration runs once before the loop goes round again, in the
    /// compiler's eyes too: a local it assigns before reading (one moved away before the
    /// question and given a new value after it) is assigned when the loop reads it.
    pub(super) fn resumed_loop(&mut self, looped: &syn::ExprLoop, rest: &[Step]) -> Expr {
        let labels = loop_labels(self.at.level);
        let resumed = self.block(&looped.body, rest);
        // The loop's parts but its body, which is copied or stood in for.
        let again = Expr::Loop(syn::ExprLoop {
            attrs: looped.attrs.clone(),
            label: looped.label.clone(),
            loop_token: looped.loop_token,
            body: self.body_again(&looped.body, rest),
        });
        first_then(&labels, looped.label.as_ref(), resumed, again)
    }

    /// Input:  `'l: while COND { BODY }`, resuming inside BODY by `path` (from the step into
    /// BODY, which says whether the loop is a rewritten `for`)
    /// Output: as for `loop`, with `'l: while COND { BODY }` after the rest
    pub(super) fn resumed_while(&mut self, looped: &syn::ExprWhile, path: &[Step]) -> Expr {
        let Some((step, rest)) = path.split_first() else {
            return Expr::While(looped.clone());
        };
        let labels = loop_labels(self.at.level);
        let block = self.block(&looped.body, rest);
        let item = match step {
            Step::ForBody(n) => {
                let (loops, here) = (self.stages.loops, self.at.here(path));
                self.current_item(&loops[*n], &looped.cond, &here)
            }
            _ => None,
        };
        let resumed = match item {
            Some(item) => {
                let mut block = block;
                block.stmts.insert(0, item);
                block
            }
            None => {
                let at = (self.at.here(path), (evaluated(&looped.cond), false));
                let resumed = self.with_pattern(&cond_lets(&looped.cond), block, at);
                in_block(resumed)
            }
        };
        let again = Expr::While(syn::ExprWhile {
            attrs: looped.attrs.clone(),
            label: looped.label.clone(),
            while_token: looped.while_token,
            cond: looped.cond.clone(),
            body: self.body_again(&looped.body, rest),
        });
        first_then(&labels, looped.label.as_ref(), resumed, again)
    }

    /// A copy of a loop's body, whose point's path goes on into it by `rest`: the body, or
    /// where only the locals are wanted, a marker that stands for it.
    fn body_again(&mut self, body: &Block, rest: &[Step]) -> Block {
        if !self.asked.locals_only {
            return body.clone();
        }
        let (here, lookup) = (self.at.here(rest), self.stages.lookup());
        let summaries = self.stages.suffixes.of(&here, body, lookup);
        Block {
            brace_token: body.brace_token,
            stmts: vec![self.found.stand_in(body, &summaries[0])],
        }
    }

    /// For a rewritten `for` loop whose pattern binds nothing mutable or by reference: the
    /// statement that binds the pattern again to the item the loop stopped at, taken afresh
    /// from the collection, so the item is not carried and needs no written type.
    ///
    /// Output: `let Some(PAT) = next(&mut Rewind::rewind(&(EXPR), __mcp_pos_N - 1)) else {
    ///     break 'stop reader.no_longer_matches();
    /// };`
    ///
    /// The collection is had again as it was (the state is bound to the arguments, and its
    /// order checked), so the item is there; were it not, the state is refused, as where a
    /// pattern matched again no longer matches, rather than the loop left with the locals its
    /// first iteration assigns unassigned.
    pub(super) fn current_item(
        &mut self,
        looped: &Loop,
        cond: &Expr,
        here: &[Step],
    ) -> Option<Stmt> {
        let Expr::Let(binding) = cond else {
            return None;
        };
        let mut pattern = Vec::new();
        scope::pattern_bindings(&binding.pat, None, &mut pattern);
        if pattern.iter().any(|b| b.mutable || b.by_ref) {
            return None;
        }
        let level = self.at.level.saturating_sub(1);
        self.passed.hiding.extend(pattern.iter().map(|binding| {
            Hider::pattern(
                level,
                binding,
                here,
                (looped.source.to_token_stream(), false),
            )
        }));
        let position = &looped.position;
        let rewind = looped.rewind(&syn::parse_quote!(#position - 1));
        let pat = &binding.pat;
        let (reader, label) = (step::reader(), step::stop_label());
        Some(syn::parse_quote! {
            #[allow(unused_variables)]
            let #pat = ::core::iter::Iterator::next(&mut #rewind) else {
                break #label #reader.no_longer_matches();
            };
        })
    }
}

/// The labels of a resumed loop's whole and of the rest of its first iteration: unique down
/// the point's path, by the scope the loop stands in (`level`).
fn loop_labels(level: usize) -> (Lifetime, Lifetime) {
    let label = |name: &str| Lifetime::new(&format!("'__mcp_{name}{level}"), Span::mixed_site());
    (label("loop"), label("rest"))
}

/// `'loop: { 'rest: { RESUMED } AGAIN }`, with RESUMED's `continue`s and `break`s of the
/// loop labelled `label` (or of the innermost loop, unlabelled) going to `'rest` and `'loop`.
pub(super) fn first_then(
    (whole, rest): &(Lifetime, Lifetime),
    label: Option<&syn::Label>,
    mut resumed: Block,
    again: Expr,
) -> Expr {
    let mut exits = Exits {
        label: label.map(|label| &label.name),
        whole,
        rest,
        depth: 0,
    };
    exits.visit_block_mut(&mut resumed);
    syn::parse_quote!(#whole: { #rest: #resumed #again })
}

/// Points the `continue`s and `break`s of a loop, in the rest of its first iteration, at the
/// labels of the resumed loop.
struct Exits<'a> {
    /// The loop's own label, if it has one.
    label: Option<&'a Lifetime>,
    whole: &'a Lifetime,
    rest: &'a Lifetime,
    /// How many loops inside the rest the walk is in: an unlabelled exit there is theirs.
    depth: usize,
}

impl Exits<'_> {
    /// Whether an exit with `label` (or none) leaves the resumed loop.
    fn ours(&self, label: Option<&Lifetime>) -> bool {
        match label {
            Some(label) => self.label == Some(label),
            None => self.depth == 0,
        }
    }

    fn inner_loop(&mut self, expr: &mut Expr) {
        self.depth += 1;
        visit_mut::visit_expr_mut(self, expr);
        self.depth -= 1;
    }
}

impl VisitMut for Exits<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Continue(exit) if self.ours(exit.label.as_ref()) => {
                let rest = self.rest;
                *expr = syn::parse_quote!(break #rest);
            }
            Expr::Break(exit) if self.ours(exit.label.as_ref()) => {
                exit.label = Some(self.whole.clone());
                if let Some(value) = &mut exit.expr {
                    self.visit_expr_mut(value);
                }
            }
            Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_) => self.inner_loop(expr),
            // No exit in a closure or an `async` block leaves a loop around it.
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
