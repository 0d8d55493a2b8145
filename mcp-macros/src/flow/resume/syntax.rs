//! What the resumer reads of the syntax along a point's path.

use syn::{Expr, Pat};

use crate::flow::sites::{Head, Step};

/// The `let` patterns of an `if` or `while` condition, each with what it matches, in order.
pub(super) fn cond_lets(cond: &Expr) -> Vec<(&Pat, &Expr)> {
    fn walk<'e>(cond: &'e Expr, out: &mut Vec<(&'e Pat, &'e Expr)>) {
        match cond {
            Expr::Let(e) => out.push((&e.pat, &e.expr)),
            Expr::Binary(e) if matches!(e.op, syn::BinOp::And(_)) => {
                walk(&e.left, out);
                walk(&e.right, out);
            }
            Expr::Paren(e) => walk(&e.expr, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(cond, &mut out);
    out
}

/// A match arm's pattern as a `let` statement takes it: without its guard (which held when
/// the arm was taken, and is not run again), an or-pattern without its leading `|`.
pub(super) fn let_pattern(pat: &Pat) -> Pat {
    match pat {
        Pat::Guard(guarded) => let_pattern(&guarded.pat),
        Pat::Or(or) if or.leading_vert.is_some() => Pat::Or(syn::PatOr {
            leading_vert: None,
            ..or.clone()
        }),
        _ => pat.clone(),
    }
}

/// Whether the rest of a point's path, after its statement, is the statement's head.
pub(super) fn at_head(rest: &[Step]) -> bool {
    matches!(rest, [Step::LocalInit | Step::ExprStmt, heads @ ..]
        if heads.iter().all(|step| matches!(step, Step::Head(_))))
}

/// The sub-expression a head step enters.
pub(super) fn head_child(expr: &mut Expr, head: Head) -> Option<&mut Expr> {
    Some(match (head, expr) {
        (Head::Try, Expr::Try(e)) => &mut e.expr,
        (Head::Field, Expr::Field(e)) => &mut e.base,
        (Head::Receiver, Expr::MethodCall(e)) => &mut e.receiver,
        (Head::Paren, Expr::Paren(e)) => &mut e.expr,
        (Head::Cast, Expr::Cast(e)) => &mut e.expr,
        (Head::Unary, Expr::Unary(e)) => &mut e.expr,
        (Head::Reference, Expr::Reference(e)) => &mut e.expr,
        (Head::BinaryLeft, Expr::Binary(e)) => &mut e.left,
        (Head::IfCond, Expr::If(e)) => &mut e.cond,
        (Head::LetExpr, Expr::Let(e)) => &mut e.expr,
        (Head::Scrutinee, Expr::Match(e)) => &mut e.expr,
        (Head::Return, Expr::Return(e)) => e.expr.as_mut()?,
        (Head::AssignRight, Expr::Assign(e)) => &mut e.right,
        (Head::WhileCond, Expr::While(e)) => &mut e.cond,
        _ => return None,
    })
}
