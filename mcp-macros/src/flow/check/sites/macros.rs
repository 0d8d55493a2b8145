//! Questions among the arguments of a standard macro that evaluates each of them once, in
//! the order written (`format!`, `println!`, `write!`, `vec!`, ...), as the arguments of a
//! call are: the question, and any argument before it that runs code, is taken first into a
//! local of its own, as an argument of a call is (see `operands`), and the macro reads the
//! local.
//!
//! Input:  `format!("{} of {}", count, cx.elicit::<Word>(..).await?.word)`
//! Output: `{ let __mcp_operand0 = __mcp_site!().N?.word; format!("{} of {}", count, __mcp_operand0) }`
//!
//! Any other macro may evaluate an argument more than once, or not at all (`assert!`'s
//! message, a `tracing` field of a level that is off), or not as code: a question in it is
//! refused, as before.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

use super::operands::Asking;
use super::{Analyzer, Position};
use crate::flow::questions::asks;
use crate::flow::std_facts::each_argument_once;

type Args = Punctuated<Expr, Token![,]>;

/// The arguments of `mac` if it is one of `std`'s that evaluate each argument once ([`each_argument_once`]) and they are expressions (not
/// `vec![item; count]`).
fn arguments(mac: &syn::Macro) -> Option<Args> {
    let name = mac.path.segments.last()?.ident.to_string();
    if !each_argument_once(&name) {
        return None;
    }
    mac.parse_body_with(Args::parse_terminated).ok()
}

/// Whether `arg` is a named argument (`name = value` in `format!`).
fn named(arg: &Expr) -> bool {
    matches!(arg, Expr::Assign(named)
        if matches!(&*named.left, Expr::Path(path) if path.path.get_ident().is_some()))
}

/// What an argument evaluates: the value of a named one.
fn value(arg: &Expr) -> &Expr {
    match arg {
        Expr::Assign(assign) if named(arg) => &assign.right,
        other => other,
    }
}

/// [`value`], to replace.
fn value_mut(arg: &mut Expr) -> &mut Expr {
    if !named(arg) {
        return arg;
    }
    match arg {
        Expr::Assign(assign) => &mut assign.right,
        other => other,
    }
}

/// A macro statement whose arguments ask, as an expression statement's expression, if the
/// macro is one of `std`'s that evaluate each argument once.
pub(super) fn as_expr(mac: &syn::StmtMacro, cx: &Ident) -> Option<Expr> {
    let braced = matches!(mac.mac.delimiter, syn::MacroDelimiter::Brace(_));
    let args = arguments(&mac.mac)?;
    let asks = args.iter().any(|arg| asks(arg, cx));
    (asks && !(braced && mac.semi_token.is_none())).then(|| {
        Expr::Macro(syn::ExprMacro {
            attrs: mac.attrs.clone(),
            mac: mac.mac.clone(),
        })
    })
}

impl Analyzer<'_> {
    /// `expr`, a macro call: the first argument that asks, or that runs code before one that
    /// asks, taken first into a local, if the macro is one of `std`'s that evaluate each argument once; otherwise each
    /// question in it is refused.
    pub(super) fn macro_call(&mut self, expr: &mut Expr) {
        let Expr::Macro(call) = expr else {
            return;
        };
        let Some(mut args) = arguments(&call.mac) else {
            self.forbid_macro(&call.mac);
            return;
        };
        let Some(at) = self.asking(args.iter().map(value)).map(Asking::first) else {
            args.iter()
                .for_each(|arg| self.forbid(arg, Position::Nested));
            return;
        };
        let local = self.operand_local(value(&args[at]).span());
        let operand = std::mem::replace(value_mut(&mut args[at]), syn::parse_quote!(#local));
        call.mac.tokens = args.to_token_stream();
        self.first_into_local(expr, &local, operand);
    }
}
