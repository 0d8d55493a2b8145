//! On a macro error, [`fallback`]: the errors, a stand-in for the handler, and beside it the
//! function as written, its questions answered by stand-ins, so that the compiler still reads
//! the body. The names it uses then count as used (no "unused
//! import" beside the macro's error) and its own mistakes are reported in the same build. The
//! copy is never called. It sits beside the handler's stand-in, where the user declared the
//! handler, so in an `impl` block it may name `Self` and take `self`.
//!
//! Input:  `async fn ship(args: Args, cx: Cx) -> ToolResult { let ok: Yes = cx.elicit("Ship?").await?; .. }`
//! Output:
//! ```text
//! #[allow(dead_code)]
//! async fn __mcp_unbuilt_ship(args: Args, cx: Cx) -> ToolResult {
//!     let ok: Yes = unbuilt_answers(cx.elicit("Ship?"))?; ..
//! }
//! ```
//! and a sub-flow call `check(&cx).await` becomes `unbuilt_result(check(&cx))`, a tuple of
//! them a tuple of their stand-ins. A question not awaited before its `?` (`cx.elicit(..)?`,
//! which the macro reports) is answered the same way. Where the copy would fail where the body
//! as written would not (a question built and awaited later, or in a macro whose arguments are
//! not expressions), there is no copy.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, ItemFn, Token};

use crate::flow::parse::kind::Kind;
use crate::flow::parse::model::{context, sub_flow_generics};
use crate::flow::questions::{awaited_in_macro, is_question_base, is_question_call, strip_parens};

/// On error: the errors, and in place of the handler a stand-in every registration and call
/// site accepts, beside the body as written for the compiler to read (see [`checked_copy`]), so
/// that what is reported is the macro's errors and the body's own.
pub(crate) fn fallback(kind: Kind, function: &ItemFn, error: syn::Error) -> TokenStream {
    let error = error.to_compile_error();
    let ItemFn {
        attrs, vis, sig, ..
    } = function;
    let ident = &sig.ident;
    let copy = checked_copy(function);
    let unbuilt = quote!(::mcp_runtime::__private::Unbuilt);
    if kind != Kind::Elicit {
        return quote! {
            #error
            #(#attrs)*
            #vis fn #ident() -> #unbuilt {
                #unbuilt::new()
            }
            #copy
        };
    }
    let inputs = &sig.inputs;
    let output = match &sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(()),
    };
    let generics = sub_flow_generics(&sig.generics);
    let (generics, _, where_clause) = generics.split_for_impl();
    quote! {
        #error
        #(#attrs)*
        #[allow(unused_variables)]
        #vis fn #ident #generics(#inputs) -> ::mcp_runtime::SubFlow<#unbuilt<#output>> #where_clause {
            ::mcp_runtime::SubFlow::new(#unbuilt::new())
        }
        #copy
    }
}

/// The copy of `function` to emit beside its macro's error, if it can be read as written.
pub(crate) fn checked_copy(function: &ItemFn) -> Option<TokenStream> {
    let sig = &function.sig;
    let cx = context(sig).unwrap_or_else(|| Ident::new("__mcp_no_context", Span::mixed_site()));
    let mut body = (*function.block).clone();
    let mut locals = Locals(HashSet::new());
    syn::visit::Visit::visit_block(&mut locals, &body);
    let mut answers = Answers {
        cx: &cx,
        locals: &locals.0,
        ok: true,
        nested: false,
        replaced_nested: false,
    };
    answers.visit_block_mut(&mut body);
    if !answers.ok {
        return None;
    }
    // A question in a closure or an `async` block is asked of `unbuilt_cx()`: the context
    // stays used, as it is in the body as written.
    if answers.replaced_nested {
        body.stmts.insert(0, syn::parse_quote!(let _ = &#cx;));
    }
    let mut sig = sig.clone();
    sig.ident = format_ident!("__mcp_unbuilt_{}", sig.ident, span = Span::mixed_site());
    // A handler written without `async` is reported as such; its body awaits all the same.
    sig.asyncness = Some(Token![async](sig.fn_token.span));
    Some(quote! {
        #[allow(dead_code)]
        #sig #body
    })
}

/// Replaces each awaited question and sub-flow call with its stand-in; clears `ok` where the
/// copy would not compile as the body would.
struct Answers<'a> {
    cx: &'a Ident,
    /// The names the body binds: a call of one given the context (`ask(&cx).await`, an
    /// `async` closure) awaits an ordinary future, not a sub-flow.
    locals: &'a HashSet<Ident>,
    ok: bool,
    /// Inside a closure or an `async` block, where a question is refused: it is asked of
    /// `unbuilt_cx()`, so the copy captures no context for the compiler to report.
    nested: bool,
    /// Whether any question was asked of `unbuilt_cx()`.
    replaced_nested: bool,
}

impl VisitMut for Answers<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Await(awaited)
                if is_question_base(&awaited.base, self.cx) && !self.calls_local(&awaited.base) =>
            {
                match self.answered(&awaited.base) {
                    Some(answers) => *expr = answers,
                    None => self.ok = false,
                }
            }
            // `cx.elicit(..)?`: a question not awaited where its answer is wanted.
            Expr::Try(tried)
                if matches!(strip_keys(&tried.expr),
                    Expr::MethodCall(call) if is_question_call(call, self.cx)) =>
            {
                match self.answered(&tried.expr) {
                    Some(answers) => *tried.expr = answers,
                    None => self.ok = false,
                }
            }
            // A question built and not awaited where it is built.
            Expr::MethodCall(call) if is_question_call(call, self.cx) => self.ok = false,
            Expr::Closure(_) | Expr::Async(_) => {
                let outer = std::mem::replace(&mut self.nested, true);
                visit_mut::visit_expr_mut(self, expr);
                self.nested = outer;
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        if awaited_in_macro(mac, self.cx).is_none() {
            return;
        }
        // `format!("{}", cx.elicit::<Word>(..).await?.word)`: arguments that are expressions
        // are read as such; any other macro keeps its tokens, and the copy is dropped.
        let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
        match syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
            Ok(mut args) => {
                args.iter_mut().for_each(|arg| self.visit_expr_mut(arg));
                mac.tokens = args.to_token_stream();
                self.ok &= awaited_in_macro(mac, self.cx).is_none();
            }
            Err(_) => self.ok = false,
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Answers<'_> {
    /// Whether `base` calls a name the body binds.
    fn calls_local(&self, base: &Expr) -> bool {
        matches!(strip_keys(base), Expr::Call(call)
            if matches!(&*call.func, Expr::Path(path)
                if path.path.get_ident().is_some_and(|name| self.locals.contains(name))))
    }

    /// The stand-in for what awaiting `base` gives: a question's answer, a sub-flow's result,
    /// or a tuple of them.
    fn answered(&mut self, base: &Expr) -> Option<Expr> {
        let stand_in = match strip_keys(base) {
            Expr::Tuple(tuple) => {
                let answers: Vec<Expr> = tuple
                    .elems
                    .iter()
                    .map(|question| self.answered(question))
                    .collect::<Option<_>>()?;
                return Some(syn::parse_quote!((#(#answers,)*)));
            }
            Expr::Call(_) => quote!(::mcp_runtime::__private::unbuilt_result),
            Expr::MethodCall(call) if is_question_call(call, self.cx) => {
                quote!(::mcp_runtime::__private::unbuilt_answers)
            }
            _ => return None,
        };
        let mut base = base.clone();
        self.visit_parts(&mut base);
        if self.nested {
            self.replaced_nested |= unbuilt_receiver(&mut base, self.cx);
        }
        Some(syn::parse_quote!(#stand_in(#base)))
    }

    /// Visits what an awaited question or call evaluates besides itself: its arguments.
    fn visit_parts(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Paren(paren) => self.visit_parts(&mut paren.expr),
            Expr::MethodCall(call) if call.method == "key" => {
                self.visit_parts(&mut call.receiver);
                call.args
                    .iter_mut()
                    .for_each(|arg| self.visit_expr_mut(arg));
            }
            Expr::MethodCall(call) => call
                .args
                .iter_mut()
                .for_each(|arg| self.visit_expr_mut(arg)),
            Expr::Call(call) => call
                .args
                .iter_mut()
                .for_each(|arg| self.visit_expr_mut(arg)),
            other => self.visit_expr_mut(other),
        }
    }
}

/// Replaces the context a question is asked of (`cx` in `cx.elicit(..).key(..)`) with
/// `unbuilt_cx()`; returns whether it found it.
fn unbuilt_receiver(expr: &mut Expr, cx: &Ident) -> bool {
    match expr {
        Expr::Paren(paren) => unbuilt_receiver(&mut paren.expr, cx),
        Expr::Path(path) if path.path.is_ident(cx) => {
            *expr = syn::parse_quote!(::mcp_runtime::__private::unbuilt_cx());
            true
        }
        Expr::MethodCall(call) => unbuilt_receiver(&mut call.receiver, cx),
        _ => false,
    }
}

/// The names bound anywhere in a body, outside its items.
struct Locals(HashSet<Ident>);

impl syn::visit::Visit<'_> for Locals {
    fn visit_pat_ident(&mut self, pat: &syn::PatIdent) {
        self.0.insert(pat.ident.clone());
        syn::visit::visit_pat_ident(self, pat);
    }

    fn visit_item(&mut self, _: &syn::Item) {}
}

/// `expr` without the `.key(..)` calls around it.
fn strip_keys(expr: &Expr) -> &Expr {
    match strip_parens(expr) {
        Expr::MethodCall(call) if call.method == "key" => strip_keys(&call.receiver),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::checked_copy;

    fn copy(function: proc_macro2::TokenStream) -> Option<String> {
        checked_copy(&syn::parse2(function).expect("a function")).map(|copy| copy.to_string())
    }

    #[test]
    fn questions_sub_flows_and_batches_are_answered_by_stand_ins() {
        let copied = copy(quote! {
            async fn ship(args: Args, cx: &Cx) -> ToolResult {
                let ok: Yes = cx.elicit("Ship?").key("ship").await?;
                let sure = confirm(cx, 1).await?;
                let (a, b) = (cx.elicit::<Word>("A?"), check(&cx)).await;
                Ok(text(format!("{} {}", ok.ok, cx.elicit::<Word>("W?").await?.word)))
            }
        })
        .expect("a copy");
        let answers = quote!(::mcp_runtime::__private::unbuilt_answers).to_string();
        let result = quote!(::mcp_runtime::__private::unbuilt_result).to_string();
        for expected in [
            format!("{answers} (cx . elicit (\"Ship?\") . key (\"ship\")) ?"),
            format!("{result} (confirm (cx , 1)) ?"),
            format!("({answers} (cx . elicit :: < Word > (\"A?\")) , {result} (check (& cx)) ,)"),
            format!("{answers} (cx . elicit :: < Word > (\"W?\")) ? . word"),
        ] {
            assert!(copied.contains(&expected), "{expected}\nin\n{copied}");
        }
        assert!(!copied.contains("await"), "{copied}");
        assert!(copied.contains("async fn __mcp_unbuilt_ship (args : Args , cx : & Cx)"));
    }

    #[test]
    fn a_call_of_a_local_awaits_an_ordinary_future() {
        let copied = copy(quote! {
            async fn ship(cx: Cx) -> ToolResult {
                let ask = async |cx: &Cx| cx.elicit::<Word>("W?").await;
                let word = ask(&cx).await?;
                Ok(text(word.word))
            }
        })
        .expect("a copy");
        assert!(copied.contains("ask (& cx) . await ?"), "{copied}");
    }

    #[test]
    fn a_question_not_awaited_before_its_question_mark_is_answered() {
        let copied = copy(quote! {
            async fn greet(cx: Cx) -> ToolResult {
                let who: Name = cx.elicit("Who?")?;
                Ok(text(check(&cx)?))
            }
        })
        .expect("a copy");
        let answers = quote!(::mcp_runtime::__private::unbuilt_answers).to_string();
        let expected = format!("{answers} (cx . elicit (\"Who?\")) ?");
        assert!(copied.contains(&expected), "{expected}\nin\n{copied}");
        assert!(copied.contains("text (check (& cx) ?)"), "{copied}");
    }

    #[test]
    fn a_copy_beside_the_stand_in_keeps_self_and_the_receiver() {
        let copied = copy(quote! {
            async fn greet(&self, cx: Cx) -> ToolResult {
                Ok(Self::g(self, cx.elicit("Q?").await?))
            }
        })
        .expect("a copy");
        assert!(copied.contains("async fn __mcp_unbuilt_greet (& self , cx : Cx)"));
        assert!(copied.contains("Self :: g (self ,"), "{copied}");
    }

    #[test]
    fn no_copy_where_it_would_fail_where_the_body_does_not() {
        for function in [
            quote!(
                async fn f(cx: Cx) -> R {
                    let q = cx.elicit("Q?");
                    Ok(q.await?)
                }
            ),
            quote!(
                async fn f(cx: Cx) -> R {
                    info!(a = %cx.elicit("Q?").await?.ok);
                    Ok(())
                }
            ),
        ] {
            assert_eq!(copy(function.clone()), None, "{function}");
        }
    }
}
