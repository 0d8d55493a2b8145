//! What the resumer reads of the syntax along a point's path, and the declarations and
//! names it writes.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Block, Expr, Ident, Pat, Stmt};

use super::Binding;

use crate::flow::analyse::free::Ids;
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::Bindings;

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

/// What an `if` or `while` condition evaluates: all of it but its `let` patterns.
pub(super) fn evaluated(cond: &Expr) -> TokenStream {
    match cond {
        Expr::Let(e) => e.expr.to_token_stream(),
        Expr::Binary(e) if matches!(e.op, syn::BinOp::And(_)) => {
            let mut tokens = evaluated(&e.left);
            tokens.extend(evaluated(&e.right));
            tokens
        }
        Expr::Paren(e) => evaluated(&e.expr),
        cond => cond.to_token_stream(),
    }
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

/// The block at the end of `path`, a prefix of a point's path ending where it enters a
/// block's statements.
pub(super) fn block_at<'b>(block: &'b mut Block, path: &[Step]) -> Option<&'b mut Block> {
    let Some((Step::Stmt(i), rest)) = path.split_first() else {
        return path.is_empty().then_some(block);
    };
    let (expr, rest) = match (block.stmts.get_mut(*i)?, rest.split_first()) {
        (Stmt::Local(local), Some((Step::LocalInit, rest))) => {
            (&mut *local.init.as_mut()?.expr, rest)
        }
        (Stmt::Local(local), Some((Step::LetElse, rest))) => {
            (&mut *local.init.as_mut()?.diverge.as_mut()?.1, rest)
        }
        (Stmt::Expr(expr, _), Some((Step::ExprStmt, rest))) => (expr, rest),
        _ => return None,
    };
    block_in(expr, rest)
}

fn block_in<'b>(expr: &'b mut Expr, path: &[Step]) -> Option<&'b mut Block> {
    let (step, rest) = path.split_first()?;
    match (step, expr) {
        (Step::Head(head), expr) => block_in(head.child(expr)?, rest),
        (Step::IfThen, Expr::If(e)) => block_at(&mut e.then_branch, rest),
        (Step::IfElse, Expr::If(e)) => block_in(&mut e.else_branch.as_mut()?.1, rest),
        (Step::Arm(j), Expr::Match(e)) => block_in(&mut e.arms.get_mut(*j)?.body, rest),
        (Step::BlockExpr, Expr::Block(e)) => block_at(&mut e.block, rest),
        (Step::LoopBody, Expr::Loop(e)) => block_at(&mut e.body, rest),
        (Step::WhileBody | Step::ForBody(_), Expr::While(e)) => block_at(&mut e.body, rest),
        _ => None,
    }
}

/// Declarations without values for the locals of `declared` that the resumed code assigns
/// before it reads them (`label = answer.word;` after a question that `label` was moved
/// before): nothing of theirs is carried, but the assignment needs them in scope.
pub(super) fn declare_assigned(
    declared: &[Binding],
    (free, assigned): (&Ids, &Ids),
    bindings: &Bindings,
) -> Vec<Stmt> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for binding in declared.iter().rev() {
        let id = bindings.id(&binding.ident);
        if free.contains(&id) || !assigned.contains(&id) || !seen.insert(id) {
            continue;
        }
        let declaration = declaration(binding);
        out.push(syn::parse_quote! {
            #[allow(unused_mut)]
            #declaration
        });
    }
    out
}

/// `let [mut] name [: Type];`: `binding` declared again, without a value.
pub(super) fn declaration(binding: &Binding) -> TokenStream {
    let ident = &binding.ident;
    let mutability = binding.mutable.then(|| quote!(mut));
    let ty = binding.ty.as_ref().map(|ty| quote!(: #ty));
    quote!(let #mutability #ident #ty;)
}

/// The field of the local `shown` (as the user wrote it, see `Bindings::shown_name`) in a state:
/// named after the local, unique among those `taken`; a local the macro made is named
/// without the macro's prefix.
pub(crate) fn field_name(shown: &str, taken: impl Fn(&str) -> bool) -> Ident {
    let base = shown.trim_start_matches("__mcp_").to_owned();
    let name = std::iter::once(base.clone())
        .chain((1..).map(|n| format!("{base}_{n}")))
        .find(|name| !taken(name))
        .unwrap_or(base);
    Ident::new(&name, Span::call_site())
}
