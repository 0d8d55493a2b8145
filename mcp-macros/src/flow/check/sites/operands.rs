//! Questions as operands: a question that is an argument of a call, an element of a tuple or
//! an array, a field of a struct literal or the right of an operator is taken first into a
//! local of its own, and the rest of the expression reads the local. An operand before it
//! that runs code (`greet(greeting(), ask(&cx).await?)`, or the receiver of a method the
//! question is an argument of) is taken into a local first, as plain Rust evaluates it
//! first: that local travels across the question, like any local used after one.
//!
//! Input:  `greet(greeting(), cx.elicit::<Word>(..).await?.word)`
//! Output: `{ let __mcp_operand0 = greeting(); { let __mcp_operand1 = __mcp_site!().N?.word; greet(__mcp_operand0, __mcp_operand1) } }`

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Stmt};

use super::{Analyzer, Head, Position, Step};
use crate::flow::lower::bindings::Made;
use crate::flow::questions::asks;
use crate::flow::syntax::compound;

/// What the macro names the locals it takes operands into.
const OPERAND: &str = "__mcp_operand";

/// Where the operands of an expression, in the order they run, ask.
#[derive(Clone, Copy)]
pub(super) struct Asking {
    /// The first that asks.
    pub(super) at: usize,
    /// The first before it that runs code, if one does; the others only read places and
    /// literals.
    code: Option<usize>,
}

impl Asking {
    /// The operand to take first: the first that runs code, or else the question.
    pub(super) fn first(self) -> usize {
        self.code.unwrap_or(self.at)
    }
}

impl Analyzer<'_> {
    /// Where `operands` ask, if one does.
    pub(super) fn asking<'e>(
        &self,
        operands: impl IntoIterator<Item = &'e Expr>,
    ) -> Option<Asking> {
        let mut code = None;
        for (k, operand) in operands.into_iter().enumerate() {
            if asks(operand, self.cx) {
                return Some(Asking { at: k, code });
            }
            if code.is_none() && !pure(operand) {
                code = Some(k);
            }
        }
        None
    }

    /// `expr`, whose operands ask as `at` says (the steps into them made by `head`): the first
    /// of them that runs code or asks taken first into a local of its own, then the rest of
    /// `expr` read again, which takes the next; with no question, each question in `expr` is
    /// refused.
    pub(super) fn operand(&mut self, expr: &mut Expr, at: Option<Asking>, head: fn(usize) -> Head) {
        match at {
            Some(asking) => self.operand_first(expr, head(asking.first())),
            None => self.forbid(expr, Position::Nested),
        }
    }

    /// `expr` with its operand at `head` evaluated first into a local of its own, then the
    /// rest of `expr` read as any other expression. What `expr` evaluates before that operand
    /// only reads places, or names a function, so nothing that could tell is reordered; and
    /// where a question in it stops, nothing of `expr` has run that could have moved a local
    /// its state reads (`opt.unwrap_or(..)` and a `String`'s `+` take their left by value),
    /// nor begun a `for` loop that asks over the collection it evaluates.
    ///
    /// Input:  `opt.unwrap_or(cx.elicit::<Word>(..).await?.word)`
    /// Output: `{ let __mcp_operand0 = __mcp_site!().N?.word; opt.unwrap_or(__mcp_operand0) }`
    pub(super) fn operand_first(&mut self, expr: &mut Expr, head: Head) {
        let Some(operand) = head.child(expr) else {
            return;
        };
        let value = self.operand_local(operand.span());
        let operand = std::mem::replace(operand, syn::parse_quote!(#value));
        self.first_into_local(expr, &value, operand);
    }

    /// A local of its own for an operand taken first, named where the operand stands, so
    /// that what the compiler says of it (that it cannot travel) points there; recorded in
    /// the binding table as an operand (`Made::Operand`).
    pub(super) fn operand_local(&mut self, at: Span) -> Ident {
        let name = format!("{OPERAND}{}", self.operands);
        self.operands += 1;
        let local = Ident::new(&name, at);
        self.bindings.make(&local, Made::Operand);
        local
    }

    /// `expr`, which reads the local `value` in place of `operand`, after a `let` of `value`
    /// to `operand`; both read as any other expression. An operand that does not ask leaves
    /// the name a question further on is asked under to that question.
    pub(super) fn first_into_local(&mut self, expr: &mut Expr, value: &Ident, operand: Expr) {
        let naming = (!asks(&operand, self.cx)).then(|| self.naming.clone());
        let rest = std::mem::replace(expr, Expr::PLACEHOLDER);
        let mut block: syn::ExprBlock = syn::parse_quote!({ let #value = (); });
        block.block.stmts.push(Stmt::Expr(rest, None));
        if let [Stmt::Local(local), Stmt::Expr(rest, None)] = block.block.stmts.as_mut_slice()
            && let Some(init) = &mut local.init
        {
            *init.expr = operand;
            let at = self.path.len();
            self.path
                .extend([Step::BlockExpr, Step::Stmt(0), Step::LocalInit]);
            self.head(&mut init.expr);
            self.path.truncate(at);
            if let Some(naming) = naming {
                self.naming = naming;
            }
            self.path
                .extend([Step::BlockExpr, Step::Stmt(1), Step::ExprStmt]);
            self.head(rest);
            self.path.truncate(at);
        }
        *expr = Expr::Block(block);
    }
}

/// Whether assigning to `expr` evaluates nothing that could run code or ask: a local, its
/// fields, its elements at literal or named indices, or what it points to.
pub(super) fn is_place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        Expr::Field(field) => is_place(&field.base),
        Expr::Index(index) => {
            matches!(&*index.index, Expr::Lit(_) | Expr::Path(_)) && is_place(&index.expr)
        }
        Expr::Paren(inner) => is_place(&inner.expr),
        Expr::Unary(unary) => matches!(unary.op, syn::UnOp::Deref(_)) && is_place(&unary.expr),
        _ => false,
    }
}

/// The name a question assigned to `place` is asked under: its last named field, or its
/// local (`total`, `stats.count`, `counts[0]`).
pub(super) fn place_name(place: &Expr) -> Option<Ident> {
    match place {
        Expr::Path(path) => path.path.get_ident().cloned(),
        Expr::Field(field) => match &field.member {
            syn::Member::Named(name) => Some(name.clone()),
            syn::Member::Unnamed(_) => place_name(&field.base),
        },
        Expr::Index(index) => place_name(&index.expr),
        Expr::Paren(inner) => place_name(&inner.expr),
        Expr::Unary(unary) => place_name(&unary.expr),
        _ => None,
    }
}

/// Whether `op` reads its left operand by reference or as a `bool`: a comparison, `&&` or
/// `||`.
pub(super) fn by_reference(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)
    )
}

/// Whether evaluating `expr` only reads places and literals: it runs no code of the handler's
/// and gives the same value again while those places do not change (`total > 3`, `-base`,
/// `args.limit as usize`).
pub(super) fn pure(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(field) => pure(&field.base),
        Expr::Index(index) => pure(&index.expr) && pure(&index.index),
        Expr::Paren(inner) => pure(&inner.expr),
        Expr::Unary(unary) => pure(&unary.expr),
        Expr::Cast(cast) => pure(&cast.expr),
        Expr::Reference(reference) => pure(&reference.expr),
        Expr::Binary(binary) => !compound(&binary.op) && pure(&binary.left) && pure(&binary.right),
        _ => false,
    }
}
