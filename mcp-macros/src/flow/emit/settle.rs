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
/// match reader.form(1, <_ as ElicitForm>::read_answer, "confirm") {
///     Form::Answered(answer) => answer,
///     Form::Ask(asking) => break 'stop reader.ask(asking, cx.elicit("..."), &[&(&target, &slot0, "target")]),
///     Form::Failed(stopped) => break 'stop stopped,
/// }
/// ```
/// and for any other question, or several asked together,
/// ```text
/// match Batch::settle(|| (q1, q2), &cx, &["a", "b"]) {
///     Settled::Answered(answer) => answer,
///     Settled::Stop(halt) => break 'stop reader.halt(1, halt, &[..]),
/// }
/// ```
/// and a sub-flow call `check(&cx).await` at point `N` becomes
/// ```text
/// { let call = check(&cx); match run_sub(IntoSubFlow::into_sub_flow(call), &cx, "key", resume.take()).await {
///     SubSettled::Done(answer) => answer,
///     SubSettled::Stop(stop, sub) => break 'stop reader.halt(2, stop, &[&(&target, &slot0, "target"), &sub]),
/// } }
/// ```
/// A stopping arm is one call, given the carried locals as a slice (see `mcp-runtime`'s
/// `flow/point.rs`): each call the step function makes is a path the compiler checks and
/// cleans up after, in every handler.
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
        let reader = self.reader;
        let point = step::number(id);
        let p = quote!(::mcp_runtime::__private);
        let puts = self.puts(id);
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
                    #p::SubSettled::Stop(#halt, #sub_value) => break #label #reader
                        .halt(#point, #halt, &[#(#puts,)* &#sub_value]),
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
        let arm = |pat: TokenStream, body: TokenStream| syn::Arm {
            attrs: Vec::new(),
            pat: syn::Pat::Verbatim(pat),
            fat_arrow_token: syn::Token![=>](span),
            body: Box::new(Expr::Verbatim(body)),
            comma: Some(syn::Token![,](span)),
        };
        let (settle, arms) = if form {
            // A form question takes no closure, so that its message may hold a `?` or an
            // `.await` as the body's other expressions may: it is made only in the arm that
            // asks it, before the carried locals are written (it may borrow one mutably, as
            // the rest of the body before it may).
            let key = &keys[0];
            let asking = Ident::new("__mcp_asking", Span::mixed_site());
            let stopped = Ident::new("__mcp_stopped", Span::mixed_site());
            (
                quote_spanned! {span=>
                    #reader.form(#point, <_ as ::mcp_runtime::ElicitForm>::read_answer, #key)
                },
                vec![
                    arm(
                        quote_spanned!(span=> #p::Form::Answered(#answer)),
                        quote_spanned!(span=> #answer),
                    ),
                    arm(
                        quote_spanned!(span=> #p::Form::Ask(#asking)),
                        quote_spanned! {span=>
                            break #label #reader.ask(#asking, #question, &[#(#puts),*])
                        },
                    ),
                    arm(
                        quote_spanned!(span=> #p::Form::Failed(#stopped)),
                        quote_spanned!(span=> break #label #stopped),
                    ),
                ],
            )
        } else {
            (
                quote_spanned! {span=>
                    ::mcp_runtime::__private::Batch::settle(|| #question, &#cx, &[#(#keys),*])
                },
                vec![
                    arm(
                        quote_spanned!(span=> #p::Settled::Answered(#answer)),
                        quote_spanned!(span=> #answer),
                    ),
                    arm(
                        quote_spanned!(span=> #p::Settled::Stop(#halt)),
                        quote_spanned! {span=>
                            break #label #reader.halt(#point, #halt, &[#(#puts),*])
                        },
                    ),
                ],
            )
        };
        // Built, not parsed: a point's code is a `match` the compiler reads as written, and
        // parsing it back cost the macro more than writing it.
        Expr::Match(syn::ExprMatch {
            attrs: Vec::new(),
            match_token: syn::Token![match](span),
            expr: Box::new(Expr::Verbatim(settle)),
            brace_token: syn::token::Brace(span),
            arms,
        })
    }
}

impl SiteCode<'_> {
    /// `&(&a, &slot_a, "a")` for each of point `id`'s carried locals, written through their
    /// slots into its state.
    fn puts(&self, id: usize) -> Vec<TokenStream> {
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
                Some(alias) => quote!(&(#alias, &#slot, #name)),
                None => quote!(&(&#local, &#slot, #name)),
            }
        });
        puts.collect()
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
