//! Whether code goes on to what follows it, as far as its last statement shows.

use syn::{Block, Expr, Stmt};

use crate::flow::std_facts;

/// Whether `expr` never goes on to the code after it, as far as its last statement shows:
/// `return`, `break`, `continue` or a panicking macro.
pub(crate) fn diverges(expr: &Expr) -> bool {
    ends(expr, &panics)
}

pub(super) fn block_diverges(block: &Block) -> bool {
    block_ends(block, &panics)
}

/// [`diverges`], where `stmt_macro` says whether a macro statement never goes on.
pub(super) fn ends(expr: &Expr, stmt_macro: &dyn Fn(&syn::Macro) -> bool) -> bool {
    match expr {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(mac) => panics(&mac.mac),
        Expr::Block(block) if block.label.is_none() => block_ends(&block.block, stmt_macro),
        _ => false,
    }
}

/// Whether `block` never goes on past its end, as [`ends`] says of its last statement.
pub(super) fn block_ends(block: &Block, stmt_macro: &dyn Fn(&syn::Macro) -> bool) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, _)) => ends(expr, stmt_macro),
        Some(Stmt::Macro(mac)) => stmt_macro(&mac.mac),
        _ => false,
    }
}

pub(crate) fn panics(mac: &syn::Macro) -> bool {
    mac.path
        .get_ident()
        .is_some_and(|name| std_facts::panics(&name.to_string()))
}
