//! Recognising questions and sub-flow calls in a handler body, and the one refusal every stage
//! that walks a macro's tokens needs: a question awaited there. A leaf: it names no other
//! module of `flow`. Where else a question may not stand is the check stage's
//! (`check/forbidden.rs`).

use syn::visit::{self, Visit};
use syn::{Block, Expr, ExprMethodCall, Ident};

/// The methods of the context that build questions.
const QUESTION_METHODS: &[&str] = &["elicit", "elicit_url", "sample", "list_roots"];

/// Whether a question is awaited anywhere in `block`, outside nested items.
pub(super) fn has_question(block: &Block, cx: &Ident) -> bool {
    let mut finder = Finder { cx, found: false };
    finder.visit_block(block);
    finder.found
}

/// Whether `expr` awaits a question or a sub-flow call, outside any item.
pub(super) fn asks(expr: &Expr, cx: &Ident) -> bool {
    let mut finder = Finder { cx, found: false };
    finder.visit_expr(expr);
    finder.found
}

/// Looks for an awaited question or sub-flow call.
struct Finder<'a> {
    cx: &'a Ident,
    found: bool,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr_await(&mut self, awaited: &'ast syn::ExprAwait) {
        self.found |= is_question_base(&awaited.base, self.cx);
        visit::visit_expr_await(self, awaited);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.found |= awaited_in_tokens(mac.tokens.clone(), self.cx).is_some();
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

pub(super) fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

/// `cx`, `&cx` or `cx.clone()`: the context passed on.
pub(super) fn is_context(arg: &Expr, cx: &Ident) -> bool {
    match strip_parens(arg) {
        Expr::Path(p) => p.path.is_ident(cx),
        Expr::Reference(r) => is_context(&r.expr, cx),
        Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
            is_context(&m.receiver, cx)
        }
        _ => false,
    }
}

pub(crate) fn is_question_call(call: &ExprMethodCall, cx: &Ident) -> bool {
    let method = call.method.to_string();
    QUESTION_METHODS.contains(&method.as_str())
        && matches!(strip_parens(&call.receiver), Expr::Path(p) if p.path.is_ident(cx))
}

/// Whether an awaited expression is a question (or a tuple holding one) on `cx`.
pub(crate) fn is_question_base(expr: &Expr, cx: &Ident) -> bool {
    match strip_parens(expr) {
        Expr::MethodCall(call) if call.method == "key" => is_question_base(&call.receiver, cx),
        Expr::MethodCall(call) => is_question_call(call, cx),
        Expr::Call(call) => call.args.iter().any(|arg| is_context(arg, cx)),
        Expr::Tuple(tuple) => tuple.elems.iter().any(|e| is_question_base(e, cx)),
        _ => false,
    }
}

/// The argument expressions of every question call in an awaited expression.
pub(super) fn question_args(expr: &Expr) -> Vec<&Expr> {
    match strip_parens(expr) {
        Expr::MethodCall(call) if call.method == "key" => question_args(&call.receiver),
        Expr::MethodCall(call) => call.args.iter().collect(),
        Expr::Call(call) => call.args.iter().collect(),
        Expr::Tuple(tuple) => tuple.elems.iter().flat_map(question_args).collect(),
        _ => Vec::new(),
    }
}

/// The error for a macro call whose tokens await a question or a sub-flow, at those tokens:
/// but for the standard macros that evaluate each argument once, in order (see
/// `sites::macros`), the flow macro cannot tell how a macro's arguments run, so it cannot
/// split the body there.
pub(super) fn awaited_in_macro(mac: &syn::Macro, cx: &Ident) -> Option<syn::Error> {
    let (awaited, tokens) = awaited_in_tokens(mac.tokens.clone(), cx)?;
    let name = mac
        .path
        .segments
        .last()
        .map_or_else(String::new, |segment| segment.ident.to_string());
    let (what, bind) = match awaited {
        Awaited::Question => (
            "a question cannot be asked",
            "bind its answer first (`let answer = cx.elicit(...).await?;`)",
        ),
        Awaited::SubFlow => (
            "a sub-flow cannot be awaited",
            "bind its result first (`let answer = sub_flow(&cx, ...).await?;`)",
        ),
    };
    let message = format!(
        "{what} inside `{name}!`: of macros, only those that evaluate each argument once, in \
         the order written (`format!`, `println!`, `write!`, `vec!` and the like), can hold \
         one; {bind} and use `answer` in the macro"
    );
    Some(syn::Error::new_spanned(tokens, message))
}

/// What macro tokens await that only a handler body can.
enum Awaited {
    Question,
    SubFlow,
}

/// Where macro tokens hold `cx.METHOD` for a question method, or a call given the context
/// (`name(&cx, ...)`, a sub-flow) followed by `.await`: what, and its tokens.
fn awaited_in_tokens(
    tokens: proc_macro2::TokenStream,
    cx: &Ident,
) -> Option<(Awaited, proc_macro2::TokenStream)> {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let is_await = |t: &TokenTree| matches!(t, TokenTree::Ident(i) if i == "await");
    let is_dot = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == '.');
    if trees.iter().any(is_await) {
        let question = trees.windows(3).find(|w| match w {
            [TokenTree::Ident(recv), dot, TokenTree::Ident(method)] => {
                recv == cx && is_dot(dot) && QUESTION_METHODS.iter().any(|m| method == m)
            }
            _ => false,
        });
        if let Some(tokens) = question {
            return Some((Awaited::Question, tokens.iter().cloned().collect()));
        }
        let sub_flow = trees.windows(4).find(|w| match w {
            [TokenTree::Ident(_), TokenTree::Group(args), dot, awaited] => {
                args.delimiter() == Delimiter::Parenthesis
                    && args
                        .stream()
                        .into_iter()
                        .any(|t| matches!(&t, TokenTree::Ident(i) if i == cx))
                    && is_dot(dot)
                    && is_await(awaited)
            }
            _ => false,
        });
        if let Some(tokens) = sub_flow {
            return Some((Awaited::SubFlow, tokens.iter().cloned().collect()));
        }
    }
    trees.iter().find_map(|t| match t {
        TokenTree::Group(g) => awaited_in_tokens(g.stream(), cx),
        _ => None,
    })
}

/// Whether `body` awaits anything outside the items it declares: a body that does not asks
/// no question.
pub(crate) fn awaits(body: &syn::Block) -> bool {
    struct Finder(bool);
    impl syn::visit::Visit<'_> for Finder {
        fn visit_expr_await(&mut self, _: &syn::ExprAwait) {
            self.0 = true;
        }
        fn visit_item(&mut self, _: &syn::Item) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_block(&mut finder, body);
    finder.0
}
