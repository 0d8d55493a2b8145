//! The code that settles each question point: asks, or reads the round's answer, or stops.

use proc_macro2::Span;
use quote::{quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident};

use super::expand::variant;
use super::resume::Resumed;
use super::scope::marker_site;
use super::sites::Site;

/// Replaces each `__mcp_site!(N)` marker with the code that settles question point `N`.
///
/// Input:  `__mcp_site!(1)`
/// Output, for a form question:
/// ```text
/// match settle_one(|| cx.elicit("..."), <_ as ElicitForm>::read_answer, &cx, "confirm") {
///     Settled::Answered(answer) => answer,
///     Settled::Stop(stop) => match stop(&cx, stop, &State::S1(target), &["target"]).await {},
/// }
/// ```
/// and for any other question, or several asked together, `Batch::settle(|| (q1, q2), &cx,
/// &["a", "b"])` in place of `settle_one(...)`.
/// and a sub-flow call `check(&cx).await` at point `N` becomes
/// ```text
/// { let call = check(&cx); match run_sub(IntoSubFlow::into_sub_flow(call), &cx, "key", resume.take()).await {
///     SubSettled::Done(answer) => answer,
///     SubSettled::Stop(stop, sub) => match stop(&cx, stop, &State::S2(target, sub), &["target"]).await {},
/// } }
/// ```
pub(super) struct SiteCode<'a> {
    pub(super) sites: &'a [Site],
    pub(super) resumed: &'a [Resumed],
    pub(super) cx: &'a Ident,
    pub(super) state: &'a Ident,
    pub(super) sub_value: &'a Ident,
    pub(super) sub_resume: &'a Ident,
}

impl VisitMut for SiteCode<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(mac) = expr
            && let Some(id) = marker_site(&mac.mac)
        {
            *expr = self.site(id);
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }
}

impl SiteCode<'_> {
    fn site(&self, id: usize) -> Expr {
        let site = &self.sites[id];
        let question = &site.question;
        let keys = &site.keys;
        let cx = self.cx;
        let state = self.state;
        let name = variant(id);
        let locals = self.resumed[id].carried.iter().map(|c| &c.ident);
        let names = self.resumed[id]
            .carried
            .iter()
            .map(|c| c.ident.to_string().trim_start_matches("r#").to_owned());
        let p = quote!(::mcp_runtime::__private);
        let answer = Ident::new("__mcp_answer", Span::mixed_site());
        let halt = Ident::new("__mcp_halt", Span::mixed_site());
        if site.is_sub() {
            let (sub_value, sub_resume) = (self.sub_value, self.sub_resume);
            let key = &keys[0];
            // The call is bound to a local and converted under one span, the call's first
            // token, with every path spelled out (an interpolated `#p` would keep the
            // attribute's span): a call that is no sub-flow is then reported once, there.
            let span = syn::spanned::Spanned::span(question);
            // Named at the call itself, not mixed-site: the user's expression is evaluated
            // before the binding exists, so it cannot see this name.
            let call = Ident::new("__mcp_call", span);
            return syn::parse_quote_spanned! {span=>
                {
                let #call = #question;
                match ::mcp_runtime::__private::run_sub(
                    ::mcp_runtime::flow::IntoSubFlow::into_sub_flow(#call),
                    &#cx,
                    #key,
                    #sub_resume.take(),
                ).await {
                    #p::SubSettled::Done(#answer) => #answer,
                    #p::SubSettled::Stop(#halt, #sub_value) => match #p::stop(
                        &#cx,
                        #halt,
                        &#state::#name(#(#locals,)* #sub_value),
                        &[#(#names),*],
                    ).await {},
                }
                }
            };
        }
        // Spanned at the question's method, the path spelled out so that no token of it keeps
        // the attribute's span: a bound its answer type breaks is reported there, as the
        // method's own bound is, and so only once. A form question names its form's reader
        // itself, so that a type that is no form fails the one bound `cx.elicit` states, not
        // a chain of the runtime's traits.
        let span = question_span(question);
        let settle = if question_method(question).is_some_and(|method| method == "elicit") {
            let key = &keys[0];
            quote_spanned! {span=>
                ::mcp_runtime::__private::settle_one(
                    || #question,
                    <_ as ::mcp_runtime::ElicitForm>::read_answer,
                    &#cx,
                    #key,
                )
            }
        } else {
            quote_spanned!(span=> ::mcp_runtime::__private::Batch::settle(|| #question, &#cx, &[#(#keys),*]))
        };
        syn::parse_quote_spanned! {span=>
            match #settle {
                #p::Settled::Answered(#answer) => #answer,
                #p::Settled::Stop(#halt) => match #p::stop(
                    &#cx,
                    #halt,
                    &#state::#name(#(#locals),*),
                    &[#(#names),*],
                ).await {},
            }
        }
    }
}

/// The span of a question's method (`elicit` in `cx.elicit("...").key("k")`), or of the
/// whole batch.
fn question_span(question: &Expr) -> Span {
    match question_method(question) {
        Some(method) => method.span(),
        None => syn::spanned::Spanned::span(question),
    }
}

/// The method of a single question (`elicit` in `cx.elicit("...").key("k")`).
fn question_method(question: &Expr) -> Option<&Ident> {
    match question {
        Expr::Paren(inner) => question_method(&inner.expr),
        Expr::Group(inner) => question_method(&inner.expr),
        Expr::MethodCall(call) if call.method == "key" => question_method(&call.receiver),
        Expr::MethodCall(call) => Some(&call.method),
        _ => None,
    }
}
