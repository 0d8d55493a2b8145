//! Syntactic rules of a handler body that no later stage needs to know about: each broken
//! rule is an error at the user's token, saying what to write instead.

use proc_macro2::Span;
use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident};

use crate::flow::Errors;
use crate::flow::questions::{awaits, is_question_base, is_question_call};

/// Checks `body`, whose context is `cx`.
pub(crate) fn check_body(body: &Block, cx: &Ident, errors: &mut Errors) {
    let mut rules = Rules {
        cx,
        unawaited: Vec::new(),
        rebound: Vec::new(),
    };
    rules.visit_block(body);
    if awaits(body) {
        for span in rules.rebound {
            errors.push(syn::Error::new(
                span,
                format!(
                    "this `{cx}` hides the handler's context, which its questions are asked on \
                     and which the flow gives again each round; use `{cx}` itself (pass it to a \
                     sub-flow as `&{cx}`) and give this local another name"
                ),
            ));
        }
    }
    for span in rules.unawaited {
        errors.push(syn::Error::new(
            span,
            "this question is never asked: a question is asked by awaiting it; write \
             `.await` after the call (`cx.elicit(...).await?`)",
        ));
    }
}

struct Rules<'a> {
    cx: &'a Ident,
    /// Questions used as values without `.await`: under `?`, or as a `let` initialiser.
    unawaited: Vec<Span>,
    /// `let`s that bind the context's own name (`let cx = &cx;`), refused in a body that
    /// awaits anything.
    rebound: Vec<Span>,
}

impl Rules<'_> {
    /// `expr` is a question call standing where its answer was meant.
    fn check_awaited(&mut self, expr: &Expr) {
        let mut expr = expr;
        while let Expr::Paren(inner) = expr {
            expr = &inner.expr;
        }
        if let Expr::MethodCall(call) = expr
            && (is_question_call(call, self.cx)
                || (call.method == "key" && is_question_base(&call.receiver, self.cx)))
        {
            self.unawaited.push(call.method.span());
        }
    }
}

impl<'ast> Visit<'ast> for Rules<'_> {
    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_try(&mut self, tried: &'ast syn::ExprTry) {
        self.check_awaited(&tried.expr);
        visit::visit_expr_try(self, tried);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            self.check_awaited(&init.expr);
        }
        let mut pat = &local.pat;
        while let syn::Pat::Type(typed) = pat {
            pat = &typed.pat;
        }
        if let syn::Pat::Ident(bound) = pat
            && bound.ident == *self.cx
        {
            self.rebound.push(bound.ident.span());
        }
        visit::visit_local(self, local);
    }
}
