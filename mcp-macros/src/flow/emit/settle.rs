//! The code that settles each question point: asks, or reads the round's answer, or stops.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident};

use crate::flow::analyse::point::Resumed;
use crate::flow::check::sites::Site;
use crate::flow::lower::bindings::Bindings;
use crate::flow::step::{self, slot, stop_label};
use crate::flow::syntax::marker_site;

/// Replaces each `__mcp_site!().N` marker with the code that settles question point `N`.
///
/// Input:  `__mcp_site!().1`
/// Output, for a form question:
/// ```text
/// match settle_form(<_ as ElicitForm>::read_answer, &cx, "confirm") {
///     Ok(answer) => answer,
///     Err(halt) => {
///         let halt = match halt {
///             Halt::Ask(asking) => asking.ask(&cx, cx.elicit("...")),
///             Halt::Stop(halt) => halt,
///         };
///         break 'stop reader.write(1).put(&target, &slot0, "target").stop(halt)
///     }
/// }
/// ```
/// and for any other question, or several asked together,
/// ```text
/// match Batch::settle(|| (q1, q2), &cx, &["a", "b"]) {
///     Settled::Answered(answer) => answer,
///     Settled::Stop(halt) => break 'stop reader.write(1).put(..).stop(halt),
/// }
/// ```
/// and a sub-flow call `check(&cx).await` at point `N` becomes
/// ```text
/// { let call = check(&cx); match run_sub(IntoSubFlow::into_sub_flow(call), &cx, "key", resume.take()).await {
///     SubSettled::Done(answer) => answer,
///     SubSettled::Stop(stop, sub) => break 'stop reader.write(2).put(&target, &slot0, "target").put_sub(&sub).stop(stop),
/// } }
/// ```
pub(crate) struct SiteCode<'a> {
    pub(crate) sites: &'a [Site],
    pub(crate) resumed: &'a [Resumed],
    pub(crate) cx: &'a Ident,
    /// The step function's opened state (`continuation::Reader`).
    pub(crate) reader: &'a Ident,
    pub(crate) sub_value: &'a Ident,
    pub(crate) sub_resume: &'a Ident,
    /// Which binding each local is, and its name as the user wrote it.
    pub(crate) bindings: &'a Bindings,
}

impl VisitMut for SiteCode<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Field(field) = expr
            && let Some(id) = marker_site(field)
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
        let p = quote!(::mcp_runtime::__private);
        let write = self.write(id);
        let answer = Ident::new("__mcp_answer", Span::mixed_site());
        let halt = Ident::new("__mcp_halt", Span::mixed_site());
        let label = stop_label();
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
                    #p::SubSettled::Stop(#halt, #sub_value) => break #label #write
                        .put_sub(&#sub_value)
                        .stop(#halt),
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
        let form = question_method(question).is_some_and(|method| method == "elicit");
        let (settle, answered, stopped, halted) = if form {
            // A form question takes no closure: its point compiles to this `match`, and the
            // question is made only in the arm that asks it.
            let key = &keys[0];
            let asking = Ident::new("__mcp_asking", Span::mixed_site());
            (
                quote_spanned! {span=>
                    ::mcp_runtime::__private::settle_form(
                        <_ as ::mcp_runtime::ElicitForm>::read_answer,
                        &#cx,
                        #key,
                    )
                },
                quote_spanned!(span=> ::core::result::Result::Ok(#answer)),
                quote_spanned!(span=> ::core::result::Result::Err(#halt)),
                // The question is made before the carried locals are written: it may borrow
                // one mutably, as the rest of the body before it may.
                quote_spanned! {span=>
                    let #halt = match #halt {
                        #p::Halt::Ask(#asking) => #asking.ask(&#cx, #question),
                        #p::Halt::Stop(#halt) => #halt,
                    };
                },
            )
        } else {
            (
                quote_spanned! {span=>
                    ::mcp_runtime::__private::Batch::settle(|| #question, &#cx, &[#(#keys),*])
                },
                quote_spanned!(span=> #p::Settled::Answered(#answer)),
                quote_spanned!(span=> #p::Settled::Stop(#halt)),
                TokenStream::new(),
            )
        };
        // Built, not parsed: a point's code is a `match` the compiler reads as written, and
        // parsing it back cost the macro more than writing it.
        let arm = |pat: TokenStream, body: TokenStream| syn::Arm {
            attrs: Vec::new(),
            pat: syn::Pat::Verbatim(pat),
            fat_arrow_token: syn::Token![=>](span),
            body: Box::new(Expr::Verbatim(body)),
            comma: Some(syn::Token![,](span)),
        };
        Expr::Match(syn::ExprMatch {
            attrs: Vec::new(),
            match_token: syn::Token![match](span),
            expr: Box::new(Expr::Verbatim(settle)),
            brace_token: syn::token::Brace(span),
            arms: vec![
                arm(answered, quote_spanned!(span=> #answer)),
                arm(
                    stopped,
                    quote_spanned!(span=> { #halted break #label #write.stop(#halt) }),
                ),
            ],
        })
    }
}

impl SiteCode<'_> {
    /// `reader.write(N).put(&a, &slot_a, "a")...`: the state of point `id`, its carried
    /// locals written through their slots.
    fn write(&self, id: usize) -> TokenStream {
        let reader = self.reader;
        let point = step::number(id);
        let puts = self.resumed[id].carried.iter().map(|c| {
            let local = &c.ident;
            let slot = slot(c.slot);
            let name = if self.bindings.is_operand(local) {
                "a value held across a question within its expression".to_owned()
            } else {
                self.bindings.shown_name(local)
            };
            // A local hidden here is written from the borrow its hider took (`resume::hide`).
            match &c.alias {
                Some(alias) => quote!(.put(#alias, &#slot, #name)),
                None => quote!(.put(&#local, &#slot, #name)),
            }
        });
        quote!(#reader.write(#point) #(#puts)*)
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
