//! What resuming inside a loop adds: the values restored inside it moved in once (the
//! loop's first iteration runs the resumed body, put together as a syntax tree around it,
//! and the later ones a copy of the loop's body), and a `for` loop's current item bound
//! again.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Block, Expr, Ident, Stmt};

use super::syntax::{cond_lets, evaluated};
use super::{Hider, Resumer, block_expr, in_block};
use crate::flow::scope;
use crate::flow::sites::{Loop, Step};

impl Resumer<'_> {
    /// Input:  `'l: loop { BODY }`, resuming inside BODY by `rest`
    /// Output: `{ let mut first = Some((v0, ..)); 'l: loop {
    ///            if let Some((v0, ..)) = first.take() { RESUMED } else { BODY } } }`
    ///
    /// The carried values restored inside the loop move in through the `Option`, so the
    /// compiler sees them moved once, not once per iteration.
    pub(super) fn resumed_loop(&mut self, looped: &syn::ExprLoop, rest: &[Step]) -> Expr {
        let start = self.carried.len();
        let resumed = self.block(&looped.body, rest);
        let (first, values) = self.first_iteration(start);
        let otherwise = block_expr(self.body_again(&looped.body, rest));
        first_then(&first, &values, looped.label.as_ref(), resumed, otherwise)
    }

    /// Input:  `'l: while COND { BODY }`, resuming inside BODY by `path` (from the step into
    /// BODY, which says whether the loop is a rewritten `for`)
    /// Output: as for `loop`, with `else if COND { BODY } else { break; }`
    pub(super) fn resumed_while(&mut self, looped: &syn::ExprWhile, path: &[Step]) -> Expr {
        let Some((step, rest)) = path.split_first() else {
            return Expr::While(looped.clone());
        };
        let start = self.carried.len();
        let block = self.block(&looped.body, rest);
        let item = match step {
            Step::ForBody(n) => {
                let loops = self.loops;
                let here = self.here(path);
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
                let at = (self.here(path), (evaluated(&looped.cond), false));
                let resumed = self.with_pattern(&cond_lets(&looped.cond), block, at);
                in_block(resumed)
            }
        };
        let (first, values) = self.first_iteration(start);
        let mut otherwise: syn::ExprIf = syn::parse_quote!(if true {
        } else {
            break;
        });
        otherwise.cond = looped.cond.clone();
        otherwise.then_branch = self.body_again(&looped.body, rest);
        let otherwise = Expr::If(otherwise);
        first_then(&first, &values, looped.label.as_ref(), resumed, otherwise)
    }

    /// A copy of a loop's body, whose point's path goes on into it by `rest`: the body, or
    /// where only the locals are wanted, a marker that stands for it.
    fn body_again(&mut self, body: &Block, rest: &[Step]) -> Block {
        if !self.locals_only {
            return body.clone();
        }
        let summaries = self.suffixes.of(&self.here(rest), body, self.questions);
        Block {
            brace_token: body.brace_token,
            stmts: vec![self.stand_in(body, &summaries[0])],
        }
    }

    /// The flag of a resumed loop's first iteration, and the carried values restored inside
    /// the loop (those added since `start`).
    pub(super) fn first_iteration(&self, start: usize) -> (Ident, Vec<Ident>) {
        let values = self.carried[start..]
            .iter()
            .map(|c| c.value.clone())
            .collect();
        (Ident::new("__mcp_first", Span::mixed_site()), values)
    }

    /// For a rewritten `for` loop whose pattern binds nothing mutable or by reference: the
    /// statement that binds the pattern again to the item the loop stopped at, taken afresh
    /// from the collection, so the item is not carried and needs no written type.
    ///
    /// Output: `let Some(PAT) = next(&mut Rewind::rewind(&(EXPR), __mcp_pos_N - 1)) else { break };`
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
        let level = self.level.saturating_sub(1);
        self.hiding.extend(pattern.iter().map(|binding| {
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
        Some(syn::parse_quote! {
            #[allow(unused_variables)]
            let #pat = ::core::iter::Iterator::next(&mut #rewind) else {
                break;
            };
        })
    }
}

/// `{ let mut first = Some((v0, ..)); 'l: loop {
///     if let Some((v0, ..)) = first.take() { RESUMED } else OTHERWISE } }`
pub(super) fn first_then(
    first: &Ident,
    values: &[Ident],
    label: Option<&syn::Label>,
    resumed: Block,
    otherwise: Expr,
) -> Expr {
    let mut wrapper: syn::ExprBlock = syn::parse_quote!({
        let mut #first = ::core::option::Option::Some((#(#values,)*));
        #label loop {
            if let ::core::option::Option::Some((#(#values,)*)) = #first.take() {} else {}
        }
    });
    if let Some(Stmt::Expr(Expr::Loop(looped), _)) = wrapper.block.stmts.get_mut(1)
        && let Some(Stmt::Expr(Expr::If(branch), _)) = looped.body.stmts.first_mut()
    {
        branch.then_branch = resumed;
        if let Some((_, els)) = &mut branch.else_branch {
            **els = otherwise;
        }
    }
    Expr::Block(wrapper)
}
