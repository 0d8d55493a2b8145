//! Conditions that chain a `let` before a question, split at the question, so the question
//! starts a condition of its own, where the flow resumes any other.
//!
//! An `if` with no `else`:
//! ```text
//! if let Some(first) = args.items.first() && cx.elicit::<Sure>(..).await?.ok && ready {
//!     kept.push(first.clone());
//! }
//! ```
//! becomes nested `if`s:
//! ```text
//! if let Some(first) = args.items.first() {
//!     if cx.elicit::<Sure>(..).await?.ok && ready {
//!         kept.push(first.clone());
//!     }
//! }
//! ```
//! An `if` with an `else` becomes a labelled block, whose `else` runs once, where either part of
//! the chain fails, and whose value is the branch's that ran:
//! ```text
//! '__mcp_chain_0: {
//!     if let Some(first) = args.items.first() {
//!         if cx.elicit::<Sure>(..).await?.ok && ready {
//!             break '__mcp_chain_0 ({ /* then */ });
//!         }
//!     }
//!     /* else */
//! }
//! ```
//! A `then` that ends by leaving (`return`, `break 'outer`, `panic!`) stays as written, with no
//! `break` after it to be unreachable code.
//! A `break` or `continue` without a label cannot leave a loop from inside a labelled block;
//! such an `if` is refused at it, with the label to write.
//!
//! A `while` becomes a labelled `loop` (its own label, or one of the flow's), whose `if`s break
//! it where the chain fails; a `continue` or `break` in its body means what it meant:
//! ```text
//! 'label: loop {
//!     if let Some(top) = stack.pop() {
//!         if cx.elicit::<Sure>(..).await?.ok { /* body */ } else { break 'label; }
//!     } else {
//!         break 'label;
//!     }
//! }
//! ```
//! The conjuncts keep their tokens and the inner `if` the user's `if` token. A chain whose
//! question comes first, or after conjuncts that bind nothing, is left to the site finder,
//! which splits `&&` there itself.

use proc_macro2::Span;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{
    BinOp, Block, Expr, ExprBinary, ExprBlock, ExprBreak, ExprIf, ExprLoop, ExprWhile, Ident,
    Label, Lifetime, Stmt, Token,
};

use crate::flow::Errors;
use crate::flow::questions::asks;
use crate::flow::std_facts;

/// Splits, in `body`, each `if` or `while` condition that chains a `let` before a question.
pub(crate) fn split(body: &mut Block, cx: &Ident, errors: &mut Errors) {
    Splitter {
        cx,
        errors,
        labels: 0,
    }
    .visit_block_mut(body);
}

struct Splitter<'a, 'e> {
    cx: &'a Ident,
    errors: &'e mut Errors,
    /// Labels made so far, each block its own.
    labels: usize,
}

impl VisitMut for Splitter<'_, '_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        let replaced = match e {
            Expr::If(chain) => self.split_if(chain),
            Expr::While(chain) => self.unroll_while(chain),
            _ => None,
        };
        if let Some(replaced) = replaced {
            *e = replaced;
        }
    }

    fn visit_expr_if_mut(&mut self, e: &mut ExprIf) {
        visit_mut::visit_expr_if_mut(self, e);
        // An `else if` that became a labelled block: `else 'label: { .. }` does not parse.
        if let Some((_, branch)) = &mut e.else_branch
            && matches!(&**branch, Expr::Block(block) if block.label.is_some())
        {
            let labelled = std::mem::replace(&mut **branch, Expr::Verbatim(Default::default()));
            **branch = Expr::Block(ExprBlock {
                attrs: Vec::new(),
                label: None,
                block: Block {
                    brace_token: Default::default(),
                    stmts: vec![Stmt::Expr(labelled, None)],
                },
            });
        }
    }

    // Items, closures and `async` blocks: questions there are refused elsewhere.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
}

impl Splitter<'_, '_> {
    /// Where `conjuncts` split: at the first question with a `let` before it.
    fn split_point(&self, conjuncts: &[Expr]) -> Option<usize> {
        (0..conjuncts.len()).find(|&at| {
            asks(&conjuncts[at], self.cx)
                && conjuncts[..at].iter().any(|c| matches!(c, Expr::Let(_)))
        })
    }

    /// Splits `e`'s condition at its first question with a `let` before it, and the inner
    /// `if` again, at its own. An `if` with no `else` is split in place; one with an `else`
    /// is returned as the labelled block to put in its place.
    fn split_if(&mut self, e: &mut ExprIf) -> Option<Expr> {
        let mut conjuncts = Vec::new();
        flatten(&e.cond, &mut conjuncts);
        let at = self.split_point(&conjuncts)?;
        if e.else_branch.is_some() {
            return self.label_if(e);
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
        None
    }

    /// The labelled block that replaces `e`, an `if` with an `else` whose chain splits.
    fn label_if(&mut self, e: &mut ExprIf) -> Option<Expr> {
        let mut jumps = Jumps(None);
        jumps.visit_expr_if(e);
        if let Some(jump) = jumps.0 {
            self.errors.error_at(
                &jump,
                format!(
                    "a `{jump}` without a label cannot leave its loop from an `if` that has an \
                     `else` and asks a question after a `let` of its chain; label the loop \
                     (`'items: for ..`) and write `{jump} 'items`"
                ),
            );
            return None;
        }
        let (_, otherwise) = e.else_branch.take()?;
        let label = Lifetime::new(&format!("'__mcp_chain_{}", self.labels), Span::mixed_site());
        self.labels += 1;
        // A branch that leaves by itself stays as written: a `break` around it would be
        // unreachable code.
        if !diverges(&e.then_branch) {
            let then = Block {
                brace_token: e.then_branch.brace_token,
                stmts: std::mem::take(&mut e.then_branch.stmts),
            };
            let taken = Expr::Break(ExprBreak {
                attrs: Vec::new(),
                break_token: Token![break](e.if_token.span),
                label: Some(label.clone()),
                // In parentheses: `break 'label { .. }` reads as a break with a labelled block.
                expr: Some(Box::new(Expr::Paren(syn::ExprParen {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    expr: Box::new(block(then)),
                }))),
            });
            e.then_branch.stmts = vec![Stmt::Expr(taken, Some(Token![;](e.if_token.span)))];
        }
        let attrs = std::mem::take(&mut e.attrs);
        self.split_if(e);
        Some(Expr::Block(ExprBlock {
            attrs,
            label: Some(Label {
                name: label,
                colon_token: Token![:](e.if_token.span),
            }),
            block: Block {
                brace_token: Default::default(),
                stmts: vec![
                    Stmt::Expr(Expr::If(e.clone()), None),
                    Stmt::Expr(*otherwise, None),
                ],
            },
        }))
    }

    /// The `loop` that replaces `w`, a `while` whose chain splits: its `if` breaks the loop
    /// where the chain fails.
    fn unroll_while(&mut self, w: &mut ExprWhile) -> Option<Expr> {
        let mut conjuncts = Vec::new();
        flatten(&w.cond, &mut conjuncts);
        let at = self.split_point(&conjuncts)?;
        let span = w.while_token.span;
        let label = match &w.label {
            Some(label) => label.name.clone(),
            None => {
                self.labels += 1;
                Lifetime::new(
                    &format!("'__mcp_while_{}", self.labels - 1),
                    Span::mixed_site(),
                )
            }
        };
        let leave = || {
            let leave = Expr::Break(ExprBreak {
                attrs: Vec::new(),
                break_token: Token![break](span),
                label: Some(label.clone()),
                expr: None,
            });
            let stmts = vec![Stmt::Expr(leave, Some(Token![;](span)))];
            Some((
                Token![else](span),
                Box::new(block(Block {
                    brace_token: Default::default(),
                    stmts,
                })),
            ))
        };
        let body = std::mem::take(&mut w.body.stmts);
        let mut inner = ExprIf {
            attrs: Vec::new(),
            if_token: Token![if](span),
            cond: Box::new(chain(conjuncts.split_off(at))),
            then_branch: Block {
                brace_token: w.body.brace_token,
                stmts: body,
            },
            else_branch: leave(),
        };
        let inner = self.split_if(&mut inner).unwrap_or(Expr::If(inner));
        let outer = ExprIf {
            attrs: Vec::new(),
            if_token: Token![if](span),
            cond: Box::new(chain(conjuncts)),
            then_branch: Block {
                brace_token: Default::default(),
                stmts: vec![Stmt::Expr(inner, None)],
            },
            else_branch: leave(),
        };
        Some(Expr::Loop(ExprLoop {
            attrs: std::mem::take(&mut w.attrs),
            label: Some(Label {
                name: label,
                colon_token: Token![:](span),
            }),
            loop_token: Token![loop](span),
            body: Block {
                brace_token: w.body.brace_token,
                stmts: vec![Stmt::Expr(Expr::If(outer), None)],
            },
        }))
    }
}

/// The first `break` or `continue` without a label that leaves a loop around the visited
/// code (not one of a loop inside it).
struct Jumps(Option<Ident>);

impl Visit<'_> for Jumps {
    fn visit_expr_break(&mut self, e: &ExprBreak) {
        if e.label.is_none() {
            self.0
                .get_or_insert(Ident::new("break", e.break_token.span));
        }
        visit::visit_expr_break(self, e);
    }

    fn visit_expr_continue(&mut self, e: &syn::ExprContinue) {
        if e.label.is_none() {
            self.0
                .get_or_insert(Ident::new("continue", e.continue_token.span));
        }
    }

    fn visit_expr_loop(&mut self, _: &ExprLoop) {}
    fn visit_expr_while(&mut self, _: &ExprWhile) {}
    fn visit_expr_for_loop(&mut self, _: &syn::ExprForLoop) {}
    fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &syn::ExprAsync) {}
    fn visit_item(&mut self, _: &syn::Item) {}
}

/// Whether `block` ends by leaving: in a `return`, `break` or `continue`, or a macro that
/// panics.
fn diverges(block: &Block) -> bool {
    let path = match block.stmts.last() {
        Some(Stmt::Expr(Expr::Return(_) | Expr::Break(_) | Expr::Continue(_), _)) => {
            return true;
        }
        Some(Stmt::Expr(Expr::Macro(call), _)) => &call.mac.path,
        Some(Stmt::Macro(call)) => &call.mac.path,
        _ => return false,
    };
    path.segments
        .last()
        .is_some_and(|name| std_facts::panics(&name.ident.to_string()))
}

/// `block` as an expression.
fn block(block: Block) -> Expr {
    Expr::Block(ExprBlock {
        attrs: Vec::new(),
        label: None,
        block,
    })
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
    use crate::flow::parsed::tokens;

    fn split_str(body: &str) -> Result<String, String> {
        let mut block: Block = syn::parse_str(body).expect("the body parses");
        let mut errors = Errors::new();
        split(&mut block, &format_ident!("cx"), &mut errors);
        match errors.finish() {
            Ok(()) => Ok(quote!(#block).to_string()),
            Err(error) => Err(error.to_string()),
        }
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
    fn a_chain_with_an_else_becomes_a_labelled_block() {
        let split = split_str(
            "{ let n = if let Some(x) = f() && cx.elicit::<S>(\"?\").await?.ok { x } else { 0 }; }",
        );
        let expected = tokens(
            "{ let n = '__mcp_chain_0: { \
                 if let Some(x) = f() { \
                     if cx.elicit::<S>(\"?\").await?.ok { break '__mcp_chain_0 ({ x }); } \
                 } \
                 { 0 } \
             }; }",
        );
        assert_eq!(split, Ok(expected));
    }

    #[test]
    fn a_branch_that_leaves_by_itself_is_not_broken_out_of() {
        let split = split_str(
            "{ if let Some(x) = f() && cx.elicit::<S>(\"?\").await?.ok { return g(x); } else { h(); } }",
        );
        let expected = tokens(
            "{ '__mcp_chain_0: { \
                 if let Some(x) = f() { if cx.elicit::<S>(\"?\").await?.ok { return g(x); } } \
                 { h(); } \
             } }",
        );
        assert_eq!(split, Ok(expected));
    }

    #[test]
    fn an_else_if_that_becomes_a_block_is_wrapped() {
        let split = split_str(
            "{ if a { g(); } else if let Some(x) = f() && cx.elicit::<S>(\"?\").await?.ok { g(); } else { h(); } }",
        );
        let expected = tokens(
            "{ if a { g(); } else { '__mcp_chain_0: { \
                 if let Some(x) = f() { \
                     if cx.elicit::<S>(\"?\").await?.ok { break '__mcp_chain_0 ({ g(); }); } \
                 } \
                 { h(); } \
             } } }",
        );
        assert_eq!(split, Ok(expected));
    }

    #[test]
    fn a_while_chain_becomes_a_loop_that_breaks_where_it_fails() {
        let split = split_str(
            "{ 'top: while let Some(x) = s.pop() && cx.elicit::<S>(\"?\").await?.ok { g(x); } }",
        );
        let expected = tokens(
            "{ 'top: loop { \
                 if let Some(x) = s.pop() { \
                     if cx.elicit::<S>(\"?\").await?.ok { g(x); } else { break 'top; } \
                 } else { break 'top; } \
             } }",
        );
        assert_eq!(split, Ok(expected));
    }

    #[test]
    fn a_break_out_of_a_chain_with_an_else_is_refused_at_the_break() {
        let refused = split_str(
            "{ loop { if let Some(x) = f() && cx.elicit::<S>(\"?\").await?.ok { for _ in 0..2 { break; } } else { break; } } }",
        );
        assert!(refused.is_err_and(|message| {
            message.contains("a `break` without a label cannot leave its loop")
        }));
    }
}
