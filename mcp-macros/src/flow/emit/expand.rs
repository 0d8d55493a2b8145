//! Output: the step function, the state machine behind a handler or sub-flow; the items around
//! it are `handler`'s, whose `expand_handler` sketches the whole output (the handler's trait
//! impl is `trait_impl`'s), and `sub_flow`'s for an `#[elicit]`.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::visit::{self, Visit};
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident};

use super::settle::SiteCode;
use super::{graph, renamed};
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::analyse::literals::literal_locals;
use crate::flow::analyse::point::Resumed;
use crate::flow::check::sites::{Loop, Site, Taken};
use crate::flow::lower::bindings::{BindingId, Bindings, Made};
use crate::flow::parse::model::{Handler, Kind};
use crate::flow::plan::resume::Group;
use crate::flow::plan::straight::{self, Placement};
use crate::flow::step;

mod handler;
mod probes;
mod stepper;
mod sub_flow;
mod trait_impl;

#[cfg(test)]
mod tests;

use handler::expand_handler;
use sub_flow::expand_sub_flow;

pub(crate) struct Plan<'a> {
    pub(crate) handler: &'a Handler,
    /// Which binding each local is (see `lower::bindings`).
    pub(crate) bindings: &'a Bindings,
    /// The locals bound by parameters bound `mut`, moved into the body (`mutable`).
    pub(crate) moved: &'a [BindingId],
    pub(crate) forward: Block,
    pub(crate) sites: &'a [Site],
    /// The `for` loops whose items are taken once and carried (see `sites::loops`).
    pub(crate) taken: &'a [Taken],
    /// The `for` loops whose position is carried (see `sites::loops`).
    pub(crate) loops: &'a [Loop],
    /// The statements declared again rather than carried (see `hoist`).
    pub(crate) hoisted: &'a Hoisted,
    /// Where each point resumes.
    pub(crate) placements: &'a [Placement],
    pub(crate) resumed: Vec<Resumed>,
    /// The statements of the body whose points resume in place (see `resume::in_place`).
    pub(crate) in_place: Vec<straight::InPlace>,
    /// The points inside one statement resumed in one arm (see `resume::group`).
    pub(crate) groups: Vec<Group>,
    /// Each slot's local (see [`slots`]).
    pub(crate) slots: Vec<Ident>,
    /// The body's items, declared once for every arm (see `items`).
    pub(crate) items: Vec<syn::Item>,
}

pub(crate) fn expand(plan: Plan<'_>) -> TokenStream {
    let handler = plan.handler;
    let cx = &handler.cx;
    let output = &handler.output;
    let reader = step::reader();
    let label = step::stop_label();
    let sub_value = Ident::new("__mcp_sub", Span::mixed_site());
    let sub_resume = Ident::new("__mcp_sub_resume", Span::mixed_site());
    let p = quote!(::mcp_runtime::__private);
    let resumed = plan.resumed;
    let slots = plan.slots;
    let bindings = plan.bindings;
    let literals = literal_locals(&plan.forward, bindings);
    let literals: Vec<Option<&Vec<String>>> = slots
        .iter()
        .map(|local| literals.get(&bindings.id(local)))
        .collect();

    let mut sites = SiteCode {
        sites: plan.sites,
        resumed: &resumed,
        cx,
        reader: &reader,
        sub_value: &sub_value,
        sub_resume: &sub_resume,
        bindings,
    };
    let graph = match handler.kind {
        Kind::Elicit => TokenStream::new(),
        _ => graph::method(&graph::Records {
            sites: plan.sites,
            resumed: &resumed,
            body: &plan.forward,
            items: &plan.items,
            loops: plan.loops,
            taken: plan.taken,
            bindings,
        }),
    };
    let has_subs = plan.sites.iter().any(Site::is_sub);
    let no_resume = has_subs.then(|| {
        quote! {
            #[allow(unused_mut, unused_variables)]
            let mut #sub_resume: ::core::option::Option<#p::SubState> =
                ::core::option::Option::None;
        }
    });
    let mut forward = plan.forward.clone();
    // The statements whose points resume in place, as the nest writes them.
    for level in &plan.in_place {
        forward.stmts[level.stmt] = level.code.clone();
    }
    sites.visit_block_mut(&mut forward);
    // The points in the body's own statements, and inside the constructs among them, resume
    // in the start's arm, whose body nests them (see `straight`); the others keep an arm of
    // their own.
    let mut same_as_start = Vec::new();
    let mut within: HashMap<usize, straight::Within> = HashMap::new();
    let mut arms = Vec::new();
    for (id, point) in resumed.iter().enumerate() {
        let n = step::number(id);
        let placement = &plan.placements[id];
        if placement.stmt().is_some() {
            same_as_start.push(n);
        }
        let in_place = plan.in_place.iter().any(|level| level.points.contains(&id));
        if in_place || matches!(placement, Placement::At { .. }) {
            continue;
        }
        let group = plan.groups.iter().find(|group| group.points.contains(&id));
        let (numbers, mut body, carried) = match group {
            Some(group) if group.points[0] != id => continue,
            Some(group) => {
                let numbers = step::numbers(&group.points);
                (numbers, group.body.clone(), &group.carried)
            }
            None => (vec![n], point.body.clone(), &point.carried),
        };
        sites.visit_block_mut(&mut body);
        let takes = carried.iter().map(|c| {
            let (value, take) = (&c.value, step::take(c.slot));
            quote!(let #value = #take;)
        });
        let resume = if plan.sites[id].is_sub() {
            let take = step::taken(&quote!(#reader.take_sub()));
            quote!(#[allow(unused_mut)] let mut #sub_resume = ::core::option::Option::Some(#take);)
        } else {
            no_resume.clone().unwrap_or_default()
        };
        let arm = quote! {
            #(#takes)*
            #resume
            #body
        };
        if let Placement::Within { stmt, .. } = placement {
            within.entry(*stmt).or_default().arms.push((numbers, arm));
            continue;
        }
        // A resumed arm is a generated copy of the rest of the body: its lints are the
        // forward arm's (the body as written) again, plus what splicing adds (code after a
        // block that returned, braces around a carried value, a label whose `break` came
        // before the question), so they are silenced here and only here.
        arms.push(quote! {
            #[allow(clippy::all, clippy::pedantic, unreachable_code, unused_braces, unused_labels)]
            ::core::option::Option::Some(#n) => { #arm }
        });
    }
    let forward = match same_as_start.is_empty() {
        true => forward.into_token_stream(),
        false => straight::nest(
            &forward,
            (plan.placements, &plan.in_place),
            &resumed,
            &within,
            (plan.hoisted, bindings),
            &reader,
        ),
    };

    let (inputs, context) = step_inputs(handler);
    let mut shape = shape(plan.sites, &resumed);
    for (n, literals) in literals.iter().enumerate() {
        if let Some(literals) = literals {
            shape.push_str(&format!(";{n}:{literals:?}"));
        }
    }
    // A body or signature that names `Self` is stepped beside the handler's function (see
    // `handler::expand_handler`), where its name must be its own.
    let beside = first_self(handler);
    let step = match beside {
        Some(_) => format_ident!("__mcp_step_{}", handler.ident, span = Span::mixed_site()),
        None => Ident::new("__mcp_step", Span::mixed_site()),
    };
    let items = &plan.items;
    let body_span = handler.body_span();
    let state_param = Ident::new("__mcp_state", Span::mixed_site());
    let fields = plan
        .sites
        .iter()
        .zip(&resumed)
        .map(|(site, point)| point.carried.len() + usize::from(site.is_sub()));
    // Each slot is declared at the name of the local it carries: a type that cannot be
    // carried is reported there, once, in `Carry`'s words (a loop's queue of items and a
    // parameter bound `mut` in words of their own).
    let slot_decls = slots.iter().enumerate().map(|(n, local)| {
        let slot = step::slot(n);
        if let Some(literals) = literals[n] {
            return quote_spanned! {local.span()=>
                let #slot = ::mcp_runtime::__private::Slot::literals(&[#(#literals),*]);
            };
        }
        let carry = if let Some(Made::Items(_)) = bindings.made(local) {
            quote!(CarryItems)
        } else if plan.moved.contains(&bindings.id(local)) {
            quote!(CarryArgument)
        } else {
            quote!(Carry)
        };
        quote_spanned!(local.span()=> let #slot = <_ as ::mcp_runtime::flow::carry::#carry>::slot();)
    });
    // Once the whole step is typed, each slot's type is known: a borrow or a lock guard is
    // reported at its local, in words of its own, before the compiler's region error or
    // `Carry`'s request for serde (`carry::CarryProbe`).
    let literal: Vec<bool> = literals.iter().map(Option::is_some).collect();
    let slot_checks = probes::slot_checks(&slots, &literal, bindings);
    let slot_names = (0..slots.len()).map(|n| {
        let slot = step::slot(n);
        quote!(#slot.name())
    });
    // The start comes first: the compiler types the slots from the locals the start writes
    // into them before it reads the arms that take them back.
    // `None | Some(0 | 1)`, nested as clippy's `unnested_or_patterns` asks.
    let start_points = (!same_as_start.is_empty())
        .then(|| quote!(| ::core::option::Option::Some(#(#same_as_start)|*)));
    let run = if plan.sites.is_empty() {
        quote!(#forward)
    } else if arms.is_empty() && same_as_start.len() == resumed.len() {
        // The nest resumes every point, and the state's point is one of them (`Resume::open`
        // refuses any other): nothing to choose.
        quote!({ #no_resume #forward })
    } else {
        quote! {
            match #reader.point() {
                ::core::option::Option::None #start_points => {
                    #no_resume
                    #forward
                }
                #(#arms,)*
                ::core::option::Option::Some(_) => break #label #reader.unknown_point(),
            }
        }
    };
    let open = step::taken(&quote! {
        #state_param.open(&__mcp_cx, #shape, &[#(#slot_names),*], &[#(#fields),*])
    });
    let (stopped, done) = (
        Ident::new("__mcp_stopped", Span::mixed_site()),
        Ident::new("__mcp_done", Span::mixed_site()),
    );
    let asks = !plan.sites.is_empty();
    if !asks && handler.kind != Kind::Elicit {
        // A handler that asks nothing has no state to open (the driver checks the one it is
        // sent) and never stops: its step is its body. Beside, where the handler reaches it by
        // a path the compiler resolves late (`Self::..`), its future is an `async` block, so
        // that a body without `.await` is not an `async fn` without one (`plain_step` names
        // its output).
        let step_fn = if beside.is_some() {
            quote_spanned! {body_span=>
                fn #step(
                    #inputs
                    __mcp_cx: ::mcp_runtime::Cx,
                    _: ::mcp_runtime::__private::Resume,
                ) -> impl ::core::future::Future<Output = #output> + ::core::marker::Send + 'static {
                    ::mcp_runtime::__private::plain_step::<#output, _>(async move {
                        #(#items)*
                        #context
                        #forward
                    })
                }
            }
        } else {
            quote_spanned! {body_span=>
                async fn #step(
                    #inputs
                    __mcp_cx: ::mcp_runtime::Cx,
                    _: ::mcp_runtime::__private::Resume,
                ) -> #output {
                    #(#items)*
                    #context
                    #forward
                }
            }
        };
        let step_fn = renamed::written(step_fn, bindings);
        return expand_handler(handler, &step, step_fn, asks, beside, TokenStream::new());
    }
    // Every place the step stops breaks out of the block with its `Stopped`, so the step's
    // future has one suspension point for all of them. The body's value is returned from a
    // statement of its own, where a body that never completes (`todo!()`) makes only that
    // statement unreachable, not the user's code. A generic sub-flow's step has its type
    // parameters. A handler's arguments and the context, and the slots, are moved into a
    // block that ends before the await, so that none of them is alive there: a handler's
    // suspended step holds nothing, and has nothing to drop (a sub-flow's keeps its
    // parameters, and arguments bound to `_` are not moved).
    let (generics, _, where_clause) = handler.generics.split_for_impl();
    let (inputs, moves) = moved_inputs(handler, inputs);
    let given_cx = Ident::new("__mcp_cx_in", Span::mixed_site());
    let step_fn = quote_spanned! {body_span=>
        async fn #step #generics(
            #inputs
            #given_cx: ::mcp_runtime::Cx,
            #state_param: ::mcp_runtime::__private::Resume,
        ) -> #output #where_clause {
            #(#items)*
            let #stopped: ::mcp_runtime::__private::Stopped = {
                #moves
                let __mcp_cx = #given_cx;
                #(#slot_decls)*
                let #stopped: ::mcp_runtime::__private::Stopped = #label: {
                    #[allow(unused_mut, unused_variables)]
                    let mut #reader = #open;
                    #context
                    let #done: #output = #run;
                    #[allow(unreachable_code)]
                    return #done;
                };
                #slot_checks
                #stopped
            };
            match #stopped.await {}
        }
    };
    // Written under the names the lower stage gave hidden locals, once, here.
    let step_fn = renamed::written(step_fn, bindings);
    match handler.kind {
        Kind::Elicit => expand_sub_flow(handler, bindings, &step, step_fn, beside),
        _ => expand_handler(handler, &step, step_fn, asks, beside, graph),
    }
}

/// Numbers the carried locals' slots: one per local, by its declaration, whichever points
/// carry it. Returns each slot's local.
pub(crate) fn slots(resumed: &mut [Resumed]) -> Vec<Ident> {
    let mut locals: Vec<(BindingId, Ident)> = Vec::new();
    for point in resumed {
        for carried in &mut point.carried {
            let key = carried.local();
            carried.slot = match locals.iter().position(|(seen, _)| *seen == key) {
                Some(n) => n,
                None => {
                    locals.push((key, carried.ident.clone()));
                    locals.len() - 1
                }
            };
        }
    }
    locals.into_iter().map(|(_, ident)| ident).collect()
}

/// The step function's inputs before the context, and the statement binding the user's
/// context parameter (by value or by reference) from the owned one.
fn step_inputs(handler: &Handler) -> (TokenStream, TokenStream) {
    let inputs = match handler.kind {
        Kind::Elicit => {
            let params = handler.params.iter().map(|(name, ty)| quote!(#name: #ty,));
            quote!(#(#params)*)
        }
        _ => match &handler.args {
            Some((pat, ty)) => quote!(#pat: #ty,),
            None => quote!(_: ::mcp_runtime::__private::NoArgs,),
        },
    };
    let cx = &handler.cx;
    let states = handler
        .state_params
        .iter()
        .map(|(pat, ty)| quote!(let #pat: #ty = ::mcp_runtime::__private::app_state(&__mcp_cx);));
    let this = handler
        .reads_self
        .map(crate::flow::parse::receiver::binding);
    let context = match &handler.cx_ty {
        Some(ty @ syn::Type::Reference(_)) => quote!(let #cx: #ty = &__mcp_cx;),
        Some(ty) => quote!(let #cx: #ty = __mcp_cx;),
        None => quote!(let _ = __mcp_cx;),
    };
    (inputs, quote!(#(#states)* #this #context))
}

/// The inputs of a step that stops, `inputs` as [`step_inputs`] wrote them, with a handler's
/// arguments taken under a hidden name, and the `let` that binds the handler's own pattern
/// from it, in the block the step stops out of (see `expand`). A sub-flow's parameters, which
/// the lower stage may have renamed, are taken as written.
fn moved_inputs(handler: &Handler, inputs: TokenStream) -> (TokenStream, TokenStream) {
    match (&handler.kind, &handler.args) {
        (Kind::Elicit, _) | (_, None) => (inputs, TokenStream::new()),
        (_, Some((pat, ty))) => {
            let given = Ident::new("__mcp_args_in", Span::mixed_site());
            (quote!(#given: #ty,), quote!(let #pat = #given;))
        }
    }
}

/// The macro's part of the flow's shape: its question points, their keys, and the names and
/// slots of the locals each one carries, as text. The runtime fingerprints it together with
/// the types the compiler chose for the slots (`Resume::open`).
fn shape(sites: &[Site], resumed: &[Resumed]) -> String {
    let mut text = String::new();
    for (site, resumed) in sites.iter().zip(resumed) {
        text.push('|');
        for key in &site.keys {
            text.push_str(&key.value());
            text.push(',');
        }
        for carried in &resumed.carried {
            text.push_str(&format!(";{}#{}", carried.field, carried.slot));
        }
    }
    text
}

/// The first `Self` that the handler's body names (in a macro's tokens too), or else the types
/// of its arguments, parameters and result.
fn first_self(handler: &Handler) -> Option<Span> {
    let args = handler.args.iter().map(|(_, ty)| ty);
    let params = handler.params.iter().map(|(_, ty)| ty);
    let states = handler.state_params.iter().map(|(_, ty)| ty);
    let types = args.chain(params).chain(states).chain([&handler.output]);
    let mut body = FirstSelf(None);
    body.visit_block(&handler.body);
    body.0.or_else(|| names_self(quote!(#(#types)*)))
}

/// The first `Self` of a syntax tree, in source order, found by walking the tree rather than
/// its tokens (printing a body to tokens cost the macro more than the walk): every identifier
/// the tree holds, and the tokens it keeps unparsed (a macro's, an attribute's, a verbatim
/// node's), as [`names_self`] reads them.
struct FirstSelf(Option<Span>);

impl FirstSelf {
    fn tokens(&mut self, tokens: &TokenStream) {
        if self.0.is_none() {
            self.0 = names_self(tokens.clone());
        }
    }
}

impl<'ast> Visit<'ast> for FirstSelf {
    fn visit_ident(&mut self, ident: &'ast Ident) {
        if self.0.is_none() && ident == "Self" {
            self.0 = Some(ident.span());
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(&mac.tokens);
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        self.visit_path(&list.path);
        self.tokens(&list.tokens);
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_type(&mut self, ty: &'ast syn::Type) {
        match ty {
            syn::Type::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_type(self, ty),
        }
    }

    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        match pat {
            syn::Pat::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_pat(self, pat),
        }
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        match item {
            syn::Item::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        match item {
            syn::ImplItem::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_impl_item(self, item),
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        match item {
            syn::TraitItem::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_trait_item(self, item),
        }
    }

    fn visit_foreign_item(&mut self, item: &'ast syn::ForeignItem) {
        match item {
            syn::ForeignItem::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_foreign_item(self, item),
        }
    }

    fn visit_type_param_bound(&mut self, bound: &'ast syn::TypeParamBound) {
        match bound {
            syn::TypeParamBound::Verbatim(tokens) => self.tokens(tokens),
            _ => visit::visit_type_param_bound(self, bound),
        }
    }
}

/// The first `Self` in `tokens`.
pub(crate) fn names_self(tokens: TokenStream) -> Option<Span> {
    tokens.into_iter().find_map(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) if ident == "Self" => Some(ident.span()),
        proc_macro2::TokenTree::Group(group) => names_self(group.stream()),
        _ => None,
    })
}

/// Site number → question expression, for the free-variable walk.
pub(crate) fn question_map(sites: &[Site]) -> HashMap<usize, Expr> {
    sites
        .iter()
        .enumerate()
        .map(|(id, site)| (id, site.question.clone()))
        .collect()
}
