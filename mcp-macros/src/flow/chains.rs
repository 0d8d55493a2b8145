//! An `if` whose condition chains a `let` before a question, split at the question, so the
//! question starts a condition of its own, where the flow resumes any other.
//!
//! Input:
//! ```text
//! if let Some(first) = args.items.first() && cx.elicit::<Sure>(..).await?.ok && ready {
//!     kept.push(first.clone());
//! }
//! ```
//! Output:
//! ```text
//! if let Some(first) = args.items.first() {
//!     if cx.elicit::<Sure>(..).await?.ok && ready {
//!         kept.push(first.clone());
//!     }
//! }
//! ```
//! The conjuncts keep their tokens and the inner `if` the user's `if` token. An `if` with an
//! `else` cannot be split so without running the `else` on two ways; it is refused with the
//! nesting to write instead. A chain whose question comes first, or after conjuncts that bind
//! nothing, is left to the site finder, which splits `&&` there itself.

use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Block, Expr, ExprBinary, ExprIf, Ident, Stmt};

use super::Errors;
use super::questions::asks;

/// Splits, in `body`, each `if` condition that chains a `let` before a question.
pub(super) fn split(body: &mut Block, cx: &Ident, errors: &mut Errors) {
    Splitter { cx, errors }.visit_block_mut(body);
}

struct Splitter<'a, 'e> {
    cx: &'a Ident,
    errors: &'e mut Errors,
}

impl VisitMut for Splitter<'_, '_> {
    fn visit_expr_if_mut(&mut self, e: &mut ExprIf) {
        visit_mut::visit_expr_if_mut(self, e);
        self.split_if(e);
    }

    // Items, closures and `async` blocks: questions there are refused elsewhere.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
}

impl Splitter<'_, '_> {
    /// Splits `e`'s condition at its first question with a `let` before it, and the inner
    /// `if` again, at its own.
    fn split_if(&mut self, e: &mut ExprIf) {
        let mut conjuncts = Vec::new();
        flatten(&e.cond, &mut conjuncts);
        let Some(at) = (0..conjuncts.len()).find(|&at| {
            asks(&conjuncts[at], self.cx)
                && conjuncts[..at].iter().any(|c| matches!(c, Expr::Let(_)))
        }) else {
            return;
        };
        if let Some((else_token, _)) = &e.else_branch {
            self.errors.error_at(
                else_token,
                "a question in an `if` condition after a `let` of its chain cannot be split \
                 where the `if` has an `else`; nest the question's `if` in the `let`'s: \
                 `if let Some(x) = .. { if cx.elicit(..).await?.ok { .. } else { .. } } else \
                 { .. }`",
            );
            return;
        }
        let mut inner = ExprIf {
            attrs: Vec::new(),
            if_token: e.if_token,
            cond: Box::new(chain(conjuncts.split_off(at))),
            then_branch: e.then_branch.clone(),
            else_branch: None,
        };
        self.split_if(&mut inner);
        *e.cond = chain(conjuncts);
        e.then_branch.stmts = vec![Stmt::Expr(Expr::If(inner), None)];
    }
}

/// The conjuncts of `expr`, a chain of `&&` (`a && b && c` parses as `(a && b) && c`).
fn flatten(expr: &Expr, out: &mut Vec<Expr>) {
    match expr {
        Expr::Binary(ExprBinary {
            left,
            op: BinOp::And(_),
            right,
            attrs,
        }) if attrs.is_empty() => {
            flatten(left, out);
            out.push((**right).clone());
        }
        other => out.push(other.clone()),
    }
}

/// `conjuncts` joined by `&&` again, left to right.
fn chain(conjuncts: Vec<Expr>) -> Expr {
    let mut conjuncts = conjuncts.into_iter();
    let first = conjuncts.next().expect("a chain has a conjunct");
    conjuncts.fold(first, |left, right| {
        Expr::Binary(ExprBinary {
            attrs: Vec::new(),
            left: Box::new(left),
            op: BinOp::And(Default::default()),
            right: Box::new(right),
        })
    })
}

#[cfg(test)]
mod tests {
    use quote::{format_ident, quote};

    use super::*;

    fn split_str(body: &str) -> Result<String, String> {
        let mut block: Block = syn::parse_str(body).expect("the body parses");
        let mut errors = Errors::new();
        split(&mut block, &format_ident!("cx"), &mut errors);
        match errors.finish() {
            Ok(()) => Ok(quote!(#block).to_string()),
            Err(error) => Err(error.to_string()),
        }
    }

    fn tokens(body: &str) -> String {
        let block: Block = syn::parse_str(body).expect("the expected body parses");
        quote!(#block).to_string()
    }

    #[test]
    fn a_chain_splits_at_its_first_question_after_a_let() {
        let split = split_str(
            "{ if let Some(x) = f() && ready && cx.elicit::<S>(\"?\").await?.ok && x > 1 { g(x); } }",
        );
        let expected = tokens(
            "{ if let Some(x) = f() && ready { if cx.elicit::<S>(\"?\").await?.ok && x > 1 { g(x); } } }",
        );
        assert_eq!(split, Ok(expected));
    }

    #[test]
    fn chains_the_site_finder_splits_are_left_alone() {
        for body in [
            "{ if ready && cx.elicit::<S>(\"?\").await?.ok { g(); } }",
            "{ if let Ok(s) = cx.elicit::<S>(\"?\").await && s.ok { g(); } else { h(); } }",
            "{ if let Some(x) = f() && x > 1 { g(x); } else { h(); } }",
            "{ let c = |v: Option<u8>| if let Some(x) = v && cx.elicit::<S>(\"?\").await.is_ok() { x } else { 0 }; }",
        ] {
            assert_eq!(split_str(body), Ok(tokens(body)), "{body}");
        }
    }

    #[test]
    fn a_split_chain_with_an_else_is_refused() {
        let refused = split_str(
            "{ if let Some(x) = f() && cx.elicit::<S>(\"?\").await?.ok { g(x); } else { h(); } }",
        );
        assert!(refused.is_err_and(|message| message.contains("nest the question's `if`")));
    }
}
