//! `for` loops that ask questions: rewritten so that their position travels in the state,
//! and recorded for the stages after the site finder.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Stmt};

use super::{Analyzer, Step, reevaluable};

/// A `for` loop that asks questions, rewritten so that its position travels in the state
/// (see [`Analyzer::resumable_for`]): what resuming it needs, by name.
pub(crate) struct Loop {
    /// The collection iterated, as written: evaluated again on resume.
    pub(crate) source: Expr,
    /// The local counting the items taken, carried.
    pub(crate) position: Ident,
    /// The local holding the iterator, rebuilt on resume from the other two.
    pub(crate) iter: Ident,
}

impl Loop {
    /// The iterator rebuilt from the collection with `taken` items skipped; spanned at the
    /// collection, every path spelled out, so that a collection that cannot be rewound is
    /// reported there, once, and not at the attribute.
    pub(crate) fn rewind(&self, taken: &Expr) -> Expr {
        let source = &self.source;
        syn::parse_quote_spanned! {source.span()=>
            ::mcp_runtime::__private::Rewind::rewind(&(#source), #taken)
        }
    }
}

impl Analyzer<'_> {
    /// A `for` loop that asks questions, rewritten so its position travels in the state, and
    /// recorded as [`Loop`] `N`.
    ///
    /// Input:  `'l: for PAT in EXPR { BODY }`
    /// Output:
    /// ```text
    /// { RewindsInOrder::in_order((&Probe(&(EXPR))).rewind_order());
    ///   let mut __mcp_pos_N: usize = 0;
    ///   let mut __mcp_iter_N = Rewind::rewind(&(EXPR), __mcp_pos_N);
    ///   'l: while let Some(PAT) = Iterator::next(&mut __mcp_iter_N) { __mcp_pos_N += 1; BODY } }
    /// ```
    /// On resume the iterator is rebuilt from `EXPR` and the carried position, so `EXPR` must
    /// be something the flow can evaluate again: a local, a field of one, or a range of those
    /// and literals.
    pub(super) fn resumable_for(&mut self, e: &syn::ExprForLoop) -> Option<Expr> {
        if !reevaluable(&e.expr) {
            self.errors.push(syn::Error::new_spanned(
                &e.expr,
                "a `for` loop that asks questions must iterate over a local, a field of one or a range, so the flow can resume it; bind the collection first: `let items = ...;` and write `for item in items`",
            ));
            return None;
        }
        let n = self.loops.len();
        let record = Loop {
            source: (*e.expr).clone(),
            position: quote::format_ident!("__mcp_pos_{}", n, span = Span::mixed_site()),
            iter: quote::format_ident!("__mcp_iter_{}", n, span = Span::mixed_site()),
        };
        let (label, pat, body) = (&e.label, &e.pat, &e.body);
        let (pos, iter) = (&record.position, &record.iter);
        let rewind = record.rewind(&syn::parse_quote!(#pos));
        let source = &record.source;
        // A `HashMap` or `HashSet` comes back in another order each round: refused at the
        // collection (the probe's method resolves to the hash one only for those types).
        let in_order = quote::quote_spanned! {source.span()=>
            ::mcp_runtime::__private::RewindsInOrder::in_order({
                // One of the two resolves the call, so the other is always unused.
                #[allow(unused_imports)]
                use ::mcp_runtime::__private::{ProbeAny as _, ProbeHash as _};
                (&::mcp_runtime::__private::Probe(&(#source))).rewind_order()
            });
        };
        let rewritten = syn::parse_quote! {{
            #in_order
            let mut #pos: usize = 0;
            let mut #iter = #rewind;
            #label while let ::core::option::Option::Some(#pat) =
                ::core::iter::Iterator::next(&mut #iter)
            {
                #pos += 1;
                #body
            }
        }};
        self.loops.push(record);
        Some(rewritten)
    }

    /// Walks the loop [`resumable_for`](Self::resumable_for) just wrote and recorded last:
    /// only its body can hold questions (its collection was checked, its pattern cannot), and
    /// the steps down to them name the loop's record.
    pub(super) fn rewritten_for(&mut self, expr: &mut Expr) {
        let n = self.loops.len() - 1;
        let Expr::Block(block) = expr else { return };
        let Some((index, looped)) =
            block
                .block
                .stmts
                .iter_mut()
                .enumerate()
                .find_map(|(index, stmt)| match stmt {
                    Stmt::Expr(Expr::While(looped), _) => Some((index, looped)),
                    _ => None,
                })
        else {
            return;
        };
        let steps = [
            Step::BlockExpr,
            Step::Stmt(index),
            Step::ExprStmt,
            Step::ForBody(n),
        ];
        self.path.extend(steps);
        self.block(&mut looped.body);
        self.path.truncate(self.path.len() - steps.len());
    }
}
