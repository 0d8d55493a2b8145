//! Output: the handler value, its step function and its handler impl.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Ident};

use super::hoist::Hoisted;
use super::literals::literal_locals;
use super::model::{Handler, Kind};
use super::resume::{Group, Resumed};
use super::scope::local_key;
use super::settle::{self, SiteCode};
use super::shadow;
use super::sites::Site;
use super::straight::{self, Placement};

pub(crate) struct Plan<'a> {
    pub(crate) handler: &'a Handler,
    pub(crate) forward: Block,
    pub(crate) sites: &'a [Site],
    /// The queues of the `for` loops whose items are carried (see `sites::loops`).
    pub(crate) taken: &'a [Ident],
    /// The statements declared again rather than carried (see `hoist`).
    pub(crate) hoisted: &'a Hoisted,
    /// Where each point resumes.
    pub(crate) placements: &'a [Placement],
    pub(crate) resumed: Vec<Resumed>,
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
    let reader = settle::reader();
    let label = settle::stop_label();
    let sub_value = Ident::new("__mcp_sub", Span::mixed_site());
    let sub_resume = Ident::new("__mcp_sub_resume", Span::mixed_site());
    let p = quote!(::mcp_runtime::__private);
    let resumed = plan.resumed;
    let slots = plan.slots;
    let literals = literal_locals(&plan.forward);
    let literals: Vec<Option<&Vec<String>>> = slots
        .iter()
        .map(|local| literals.get(&local_key(local)))
        .collect();

    let mut sites = SiteCode {
        sites: plan.sites,
        resumed: &resumed,
        cx,
        reader: &reader,
        sub_value: &sub_value,
        sub_resume: &sub_resume,
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
    sites.visit_block_mut(&mut forward);
    // The points in the body's own statements, and inside the constructs among them, resume
    // in the start's arm, whose body nests them (see `straight`); the others keep an arm of
    // their own.
    let mut same_as_start = Vec::new();
    let mut within: HashMap<usize, straight::Within> = HashMap::new();
    let mut arms = Vec::new();
    for (id, point) in resumed.iter().enumerate() {
        let n = u32::try_from(id).unwrap_or(u32::MAX);
        let placement = &plan.placements[id];
        if placement.stmt().is_some() {
            same_as_start.push(n);
        }
        if matches!(placement, Placement::At { .. }) {
            continue;
        }
        let group = plan.groups.iter().find(|group| group.points.contains(&id));
        let (numbers, mut body, carried) = match group {
            Some(group) if group.points[0] != id => continue,
            Some(group) => {
                let numbers = group
                    .points
                    .iter()
                    .map(|&id| u32::try_from(id).unwrap_or(u32::MAX));
                (numbers.collect(), group.body.clone(), &group.carried)
            }
            None => (vec![n], point.body.clone(), &point.carried),
        };
        sites.visit_block_mut(&mut body);
        let takes = carried.iter().map(|c| {
            let (value, take) = (&c.value, settle::take(c.slot));
            quote!(let #value = #take;)
        });
        let resume = if plan.sites[id].is_sub() {
            let take = settle::taken(&quote!(#reader.take_sub()));
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
    if !same_as_start.is_empty() {
        forward = straight::nest(
            &forward,
            plan.placements,
            &resumed,
            &within,
            plan.hoisted,
            &reader,
        );
    }

    let (inputs, context) = step_inputs(handler);
    let mut shape = shape(plan.sites, &resumed);
    for (n, literals) in literals.iter().enumerate() {
        if let Some(literals) = literals {
            shape.push_str(&format!(";{n}:{literals:?}"));
        }
    }
    let step = Ident::new("__mcp_step", Span::mixed_site());
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
        let slot = settle::slot(n);
        if let Some(literals) = literals[n] {
            return quote_spanned! {local.span()=>
                let #slot = ::mcp_runtime::__private::Slot::literals(&[#(#literals),*]);
            };
        }
        let carry = if plan.taken.contains(local) {
            quote!(CarryItems)
        } else if handler.moved.contains(&local_key(&shadow::shown_ident(local))) {
            quote!(CarryArgument)
        } else {
            quote!(Carry)
        };
        quote_spanned!(local.span()=> let #slot = <_ as ::mcp_runtime::flow::carry::#carry>::slot();)
    });
    let slot_names = (0..slots.len()).map(|n| {
        let slot = settle::slot(n);
        quote!(#slot.name())
    });
    // The start comes first: the compiler types the slots from the locals the start writes
    // into them before it reads the arms that take them back.
    // `None | Some(0 | 1)`, nested as clippy's `unnested_or_patterns` asks.
    let start_points = (!same_as_start.is_empty())
        .then(|| quote!(| ::core::option::Option::Some(#(#same_as_start)|*)));
    let run = if plan.sites.is_empty() {
        quote!(#forward)
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
    let open = settle::taken(&quote! {
        #state_param.open(&__mcp_cx, #shape, &[#(#slot_names),*], &[#(#fields),*])
    });
    let (stopped, done) = (
        Ident::new("__mcp_stopped", Span::mixed_site()),
        Ident::new("__mcp_done", Span::mixed_site()),
    );
    // Every place the step stops breaks out of the block with its `Stopped`, so the step's
    // future has one suspension point for all of them. The body's value is returned from a
    // statement of its own, where a body that never completes (`todo!()`) makes only that
    // statement unreachable, not the user's code.
    let step_fn = quote_spanned! {body_span=>
        async fn #step(
            #inputs
            __mcp_cx: ::mcp_runtime::Cx,
            #state_param: ::mcp_runtime::__private::Resume,
        ) -> #output {
            #(#items)*
            #(#slot_decls)*
            let #stopped: ::mcp_runtime::__private::Stopped = #label: {
                #[allow(unused_mut, unused_variables)]
                let mut #reader = #open;
                #context
                let #done: #output = #run;
                #[allow(unreachable_code)]
                return #done;
            };
            match #stopped.await {}
        }
    };
    match handler.kind {
        Kind::Elicit => expand_sub_flow(handler, &step, step_fn),
        _ => expand_handler(handler, &step, step_fn),
    }
}

/// Numbers the carried locals' slots: one per local, by its declaration, whichever points
/// carry it. Returns each slot's local.
pub(crate) fn slots(resumed: &mut [Resumed]) -> Vec<Ident> {
    let mut locals: Vec<(String, Ident)> = Vec::new();
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
    let context = match &handler.cx_ty {
        Some(ty @ syn::Type::Reference(_)) => quote!(let #cx: #ty = &__mcp_cx;),
        Some(ty) => quote!(let #cx: #ty = __mcp_cx;),
        None => quote!(let _ = __mcp_cx;),
    };
    (inputs, quote!(#(#states)* #context))
}

/// Input:  `#[tool] pub async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult { ... }`
/// Output: the function, returning its handler; every item behind it lives in its body, so it
/// names no hidden type, works as an associated function of an `impl` block, and takes only
/// the visibility the user wrote:
/// ```text
/// pub fn deploy() -> impl ToolHandler + Copy {
///     struct __mcp_tool_deploy;
///     async fn __mcp_step(args: DeployArgs, __mcp_cx: Cx, __mcp_state: Resume) -> ToolResult {
///         let __mcp_s0 = <_ as Carry>::slot();   // one per carried local, at its name
///         // every place the step stops breaks out of this block with its `Stopped`
///         let __mcp_stopped: Stopped = '__mcp_stop: {
///             let mut __mcp_r = match __mcp_state.open(&__mcp_cx, "|target,|confirm,;replicas#0", &[__mcp_s0.name()], &[0, 1]) {
///                 Ok(reader) => reader,
///                 Err(stopped) => break '__mcp_stop stopped,
///             };
///             let cx = __mcp_cx;
///             let __mcp_done: ToolResult = match __mcp_r.point() {
///                 None | Some(0 | 1) => {
///                     BODY, nested so that it resumes at either point (see `straight`), each
///                     question stopping with
///                     `break '__mcp_stop __mcp_r.write(N).put(&local, &__mcp_s0, "local").stop(..)`
///                 }
///                 // only for a sub-flow call, or a point the nest leaves out:
///                 Some(2) => { let __mcp_v0 = TAKE(__mcp_s0); REST OF BODY }
///                 Some(_) => break '__mcp_stop __mcp_r.unknown_point(),
///             };
///             return __mcp_done;
///         };
///         match __mcp_stopped.await {}   // the step's one suspension point
///     }
///     impl ToolHandler for __mcp_tool_deploy {
///         fn definition(&self) -> Tool { .. }
///         fn call(&self, request: Request) -> BoxFuture<..> {
///             drive_tool(Flow { step: __mcp_step, max_rounds: None, restart: false }, request, ..)
///         }
///     }
///     __mcp_tool_deploy
/// }
/// ```
fn expand_handler(handler: &Handler, step: &Ident, body: TokenStream) -> TokenStream {
    let ident = &handler.ident;
    let handler_ty = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let handler_impl = handler_impl(handler, step);
    let kind = handler.kind.attr();
    let made = format!(
        " Returns the handler `#[{kind}]` made of this function; register it with \
         `.{kind}({ident})`."
    );
    let separator = (!handler.docs.is_empty()).then(|| quote!(#[doc = ""]));
    let handler_trait = match handler.kind {
        Kind::Prompt => quote!(PromptHandler),
        Kind::Resource => quote!(ResourceHandler),
        Kind::Tool | Kind::Elicit => quote!(ToolHandler),
    };
    quote! {
        #(#attrs)*
        #separator
        #[doc = #made]
        #vis fn #ident() -> impl ::mcp_runtime::server::#handler_trait + ::core::marker::Copy {
            #[allow(non_camel_case_types)]
            #[derive(::core::clone::Clone, ::core::marker::Copy)]
            struct #handler_ty;

            #body

            #handler_impl

            #handler_ty
        }
    }
}

/// Input:  `#[elicit] async fn confirm(cx: &Cx, total: u32) -> R { ... }`
/// Output: the function, capturing its arguments into the sub-flow the caller awaits, with
/// the state machine behind it in its body:
/// ```text
/// fn confirm(cx: &Cx, total: u32) -> SubFlow<impl SubFlowStep<Output = R> + use<>> {
///     let _ = cx;
///     struct __mcp_elicit_confirm { total: u32 }
///     async fn __mcp_step(total: u32, __mcp_cx: Cx, __mcp_state: Resume) -> R { ... }
///     impl SubFlowStep for __mcp_elicit_confirm { ... }
///     SubFlow::new(__mcp_elicit_confirm { total })
/// }
/// ```
fn expand_sub_flow(handler: &Handler, step: &Ident, body: TokenStream) -> TokenStream {
    let ident = &handler.ident;
    let hidden = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let output = &handler.output;
    let cx = &handler.cx;
    let cx_ty = &handler.cx_ty;
    // The arguments as the user named them; the step function's may be renamed
    // (`shadow::rename`).
    let names: Vec<Ident> = handler
        .params
        .iter()
        .map(|(name, _)| shadow::shown_ident(name))
        .collect();
    let types: Vec<_> = handler.params.iter().map(|(_, ty)| ty).collect();
    let params = names
        .iter()
        .zip(&types)
        .map(|(name, ty)| quote!(#name: #ty));
    quote! {
        #(#attrs)*
        #vis fn #ident(#cx: #cx_ty, #(#params),*)
            -> ::mcp_runtime::SubFlow<impl ::mcp_runtime::flow::SubFlowStep<Output = #output> + use<>>
        {
            // The context is the caller's: the sub-flow runs on the one its caller awaits it with.
            let _ = #cx;

            #[allow(non_camel_case_types)]
            struct #hidden { #(#names: #types),* }

            #body

            #[automatically_derived]
            impl ::mcp_runtime::flow::SubFlowStep for #hidden {
                type Output = #output;
                fn step(
                    self,
                    cx: ::mcp_runtime::Cx,
                    state: ::mcp_runtime::__private::Resume,
                ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 'static {
                    #step(#(self.#names,)* cx, state)
                }
            }

            ::mcp_runtime::SubFlow::new(#hidden { #(#names),* })
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

/// The hidden type of the handler value.
fn handler_type(handler: &Handler) -> Ident {
    let name = handler.ident.to_string();
    format_ident!(
        "__mcp_{}_{}",
        handler.kind.attr(),
        name.trim_start_matches("r#")
    )
}

fn handler_impl(handler: &Handler, step: &Ident) -> TokenStream {
    let ident = handler_type(handler);
    let max_rounds = match &handler.options.max_rounds {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let restart = handler.options.restart_on_new_shape.unwrap_or(false);
    let name = handler.wire_name();
    let title = option_str(handler.options.title.as_ref());
    let description = option_str(handler.description().as_ref());
    let args_ty = match &handler.args {
        Some((_, ty)) => quote!(#ty),
        None => quote!(::mcp_runtime::__private::NoArgs),
    };
    let p = quote!(::mcp_runtime::__private);
    let s = quote!(::mcp_runtime::server);
    let output = &handler.output;
    // Spanned at the return type: a type that is no handler result is reported there, once.
    let output_span = syn::spanned::Spanned::span(output);
    // The conversions are named at the return type, through the public traits: a type that
    // is no handler result is reported there, once, in the trait's own words.
    let f = quote!(::mcp_runtime::flow);
    let flow = quote!(#p::Flow { step: #step, max_rounds: #max_rounds, restart: #restart });
    let (drive, output_schema) = match handler.kind {
        Kind::Tool => (
            quote_spanned!(output_span=> #p::drive_tool(#flow, request, <#output as #f::IntoToolResult>::into_tool_result)),
            quote_spanned!(output_span=> <#output as #f::IntoToolResult>::output_schema),
        ),
        Kind::Prompt => (
            quote_spanned!(output_span=> #p::drive_prompt(#flow, request, <#output as #f::IntoPromptResult>::into_prompt_result)),
            TokenStream::new(),
        ),
        Kind::Resource => {
            let uri = handler.options.uri.as_ref();
            (
                quote_spanned!(output_span=> #p::drive_resource(#flow, #uri, request, <#output as #f::IntoResourceResult>::into_resource_result)),
                TokenStream::new(),
            )
        }
        Kind::Elicit => (TokenStream::new(), TokenStream::new()),
    };
    let presentation = handler.options.presentation.to_tokens(handler.kind);
    let required = (!handler.state_params.is_empty()).then(|| {
        let types = handler.state_params.iter().map(|(_, ty)| ty);
        quote! {
            fn required_state(&self) -> ::std::vec::Vec<#p::StateType> {
                ::std::vec![#(#p::state_requirement::<#types>()),*]
            }
        }
    });
    let single_use = handler.options.single_use.as_ref().map(|_| {
        quote!(
            fn single_use(&self) -> bool {
                true
            }
        )
    });
    let cached = |ty: TokenStream, init: TokenStream| {
        quote! {
            static DEFINITION: #p::Cached<#ty> = #p::Cached::new();
            DEFINITION.get(|| #init)
        }
    };
    match handler.kind {
        Kind::Tool => {
            let definition = cached(
                quote!(::mcp_runtime::protocol::Tool),
                quote!(#p::tool_definition(#p::arguments_schema::<#args_ty>(), #name, #title, #description, #presentation, #output_schema)),
            );
            quote! {
                #[automatically_derived]
                impl #s::ToolHandler for #ident {
                    fn definition(&self) -> ::mcp_runtime::protocol::Tool { #definition }
                    fn call(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::CallToolResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                }
            }
        }
        Kind::Prompt => {
            let definition = cached(
                quote!(::mcp_runtime::protocol::Prompt),
                quote!(#p::prompt_definition(#p::arguments_schema::<#args_ty>(), #name, #title, #description, #presentation)),
            );
            let complete = handler.options.complete.as_ref().map(|path| {
                quote! {
                    fn complete(&self, argument: &str, value: &str) -> ::std::vec::Vec<::std::string::String> {
                        #path(argument, value)
                    }
                }
            });
            quote! {
                #[automatically_derived]
                impl #s::PromptHandler for #ident {
                    fn definition(&self) -> ::mcp_runtime::protocol::Prompt { #definition }
                    fn get(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::GetPromptResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                    #complete
                }
            }
        }
        // A sub-flow is no handler: it has no handler impl.
        Kind::Elicit => TokenStream::new(),
        Kind::Resource => {
            let uri = handler
                .options
                .uri
                .clone()
                .unwrap_or_else(|| syn::LitStr::new("", handler.span()));
            let mime = option_str(handler.options.mime_type.as_ref());
            let definition = cached(
                quote!(#s::ResourceDefinition),
                quote!(#p::resource_definition(#uri, #name, #title, #description, #mime, #presentation)),
            );
            quote! {
                #[automatically_derived]
                impl #s::ResourceHandler for #ident {
                    fn definition(&self) -> #s::ResourceDefinition { #definition }
                    fn matches(&self, uri: &str) -> bool { #p::uri_matches(#uri, uri) }
                    fn read(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::ReadResourceResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                }
            }
        }
    }
}

fn option_str(value: Option<&syn::LitStr>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// Site number → question expression, for the free-variable walk.
pub(crate) fn question_map(sites: &[Site]) -> HashMap<usize, Expr> {
    sites
        .iter()
        .enumerate()
        .map(|(id, site)| (id, site.question.clone()))
        .collect()
}
