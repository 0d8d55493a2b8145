//! The items around the step function: the function the user declared, returning its handler
//! (or, for `#[elicit]`, its sub-flow), and the handler's trait impl.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned as _;

use super::names_self;
use crate::flow::parse::model::{Handler, Kind};
use crate::flow::syntax;

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
///             drive_tool(Flow { step: __mcp_step, asks: true, max_rounds: None, restart: false }, request, ..)
///         }
///         fn flow_graph(&self) -> Option<&'static FlowGraph> { .. }   // if it asks (see `graph`)
///     }
///     __mcp_tool_deploy
/// }
/// ```
/// A handler that asks nothing has no state to open and never stops: its step is
/// `async fn __mcp_step(args: DeployArgs, __mcp_cx: Cx, _: Resume) -> ToolResult { let cx =
/// __mcp_cx; BODY }`, and its `Flow` says `asks: false` (the driver checks the state for it).
///
/// A body or signature that names `Self` is stepped by a function beside this one (`beside`),
/// in the `impl` block where `Self` is the type, which the handler holds as a function
/// pointer. The nested items cannot name `Self`: the handler is generic over the step's
/// future and arguments, and the compiler infers them. Its impl names the result and
/// arguments types as written where they do not name `Self` (else `F::Output`, with an
/// `IntoToolResult` bound, and `A`); its `State<T>` requirements, if it has any, are a second
/// function it holds (`|| vec![state_requirement::<State<Self>>()]`).
/// ```text
/// pub fn deploy() -> impl ToolHandler + Copy {
///     struct __mcp_tool_deploy<F, A>(fn(A, Cx, Resume) -> F);
///     impl<F, A> Clone for __mcp_tool_deploy<F, A> { .. }   // and Copy
///     impl<F> ToolHandler for __mcp_tool_deploy<F, DeployArgs>
///     where F: Future<Output = ToolResult> + Send + 'static
///     {
///         .. Flow { step: self.0, .. } ..
///     }
///     __mcp_tool_deploy(Self::__mcp_step_deploy)
/// }
/// async fn __mcp_step_deploy(args: DeployArgs, __mcp_cx: Cx, __mcp_state: Resume) -> ToolResult { .. }
/// ```
pub(super) fn expand_handler(
    handler: &Handler,
    step: &Ident,
    body: TokenStream,
    asks: bool,
    beside: Option<Span>,
    graph: TokenStream,
) -> TokenStream {
    let ident = &handler.ident;
    let handler_ty = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let stepper = match beside {
        Some(_) => Stepper::beside(handler),
        None => Stepper::nested(handler, step),
    };
    let handler_impl = handler_impl(handler, &stepper, asks, &graph);
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
    let made_fn = |inside: TokenStream, value: TokenStream| {
        quote! {
            #(#attrs)*
            #separator
            #[doc = #made]
            #vis fn #ident() -> impl ::mcp_runtime::server::#handler_trait + ::core::marker::Copy {
                #inside

                #handler_impl

                #value
            }
        }
    };
    let Some(beside) = beside else {
        let inside = quote! {
            #[allow(non_camel_case_types)]
            #[derive(::core::clone::Clone, ::core::marker::Copy)]
            struct #handler_ty;

            #body
        };
        return made_fn(inside, quote!(#handler_ty));
    };
    // At the body's own `Self`: outside an `impl` block, the compiler's error is there, once.
    let self_ty = quote_spanned!(beside=> Self);
    // The `State<T>` requirements, which may name `Self`, are listed by a function the
    // handler holds too.
    let p = quote!(::mcp_runtime::__private);
    let (states_ty, states) = match handler.state_params.is_empty() {
        true => (None, None),
        false => {
            let states = state_requirements(handler);
            (
                Some(quote!(fn() -> ::std::vec::Vec<#p::StateType>,)),
                Some(quote!(|| #states,)),
            )
        }
    };
    let inside = quote! {
        #[allow(non_camel_case_types)]
        struct #handler_ty<F, A>(
            fn(A, ::mcp_runtime::Cx, #p::Resume) -> F,
            #states_ty
        );
        impl<F, A> ::core::clone::Clone for #handler_ty<F, A> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<F, A> ::core::marker::Copy for #handler_ty<F, A> {}
    };
    let made = made_fn(inside, quote!(#handler_ty(#self_ty::#step, #states)));
    let cfgs = cfgs(handler);
    quote! {
        #made
        #(#cfgs)*
        #[doc(hidden)]
        #body
    }
}

/// The `#[cfg]`s on the user's function, which a step beside it takes too.
fn cfgs(handler: &Handler) -> impl Iterator<Item = &syn::Attribute> {
    handler
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
}

/// How a handler's impl reaches its step function: by name where it is nested in the
/// function the user declared, or through the pointer the handler holds where it is beside.
struct Stepper {
    /// The impl's generics and their bounds, and the handler type it is for.
    generics: TokenStream,
    bounds: TokenStream,
    self_ty: TokenStream,
    step: TokenStream,
    /// The step's output and arguments, and its `State<T>` requirements, as the impl names
    /// them.
    output: TokenStream,
    args_ty: TokenStream,
    states: TokenStream,
}

impl Stepper {
    fn nested(handler: &Handler, step: &Ident) -> Self {
        let ty = handler_type(handler);
        let (output, args_ty) = written_types(handler);
        Self {
            generics: TokenStream::new(),
            bounds: TokenStream::new(),
            self_ty: quote!(#ty),
            step: quote!(#step),
            output,
            args_ty,
            states: state_requirements(handler),
        }
    }

    /// The impl names the result and arguments types as written, where they do not name
    /// `Self` (a wrong result is then reported at it, as where the step is nested); else
    /// through the step's future and a parameter.
    fn beside(handler: &Handler) -> Self {
        let ty = handler_type(handler);
        let p = quote!(::mcp_runtime::__private);
        let (written_output, written_args) = written_types(handler);
        let future = quote!(::core::future::Future);
        let (mut generics, mut bounds) = (vec![quote!(F)], Vec::new());
        let output = match names_self(written_output.clone()) {
            None => {
                bounds.push(quote! {
                    F: #future<Output = #written_output> + ::core::marker::Send + 'static
                });
                written_output
            }
            Some(_) => {
                let result = match handler.kind {
                    Kind::Prompt => quote!(IntoPromptResult),
                    Kind::Resource => quote!(IntoResourceResult),
                    Kind::Tool | Kind::Elicit => quote!(IntoToolResult),
                };
                bounds.push(quote!(F: #future + ::core::marker::Send + 'static));
                bounds.push(quote!(F::Output: ::mcp_runtime::flow::#result));
                quote!(<F as #future>::Output)
            }
        };
        let args_ty = match names_self(written_args.clone()) {
            None => written_args,
            Some(_) => {
                generics.push(quote!(A));
                bounds.push(quote! {
                    A: #p::serde::de::DeserializeOwned + #p::schemars::JsonSchema
                        + ::core::marker::Send + 'static
                });
                quote!(A)
            }
        };
        Self {
            generics: quote!(<#(#generics),*>),
            bounds: quote!(where #(#bounds,)*),
            self_ty: quote!(#ty<F, #args_ty>),
            step: quote!(self.0),
            output,
            args_ty,
            states: quote!((self.1)()),
        }
    }
}

/// The requirements of a handler's `State<T>` parameters, as a `Vec<StateType>`.
fn state_requirements(handler: &Handler) -> TokenStream {
    let p = quote!(::mcp_runtime::__private);
    let states = handler.state_params.iter().map(|(_, ty)| ty);
    quote!(::std::vec![#(#p::state_requirement::<#states>()),*])
}

/// A handler's result and arguments types as written (`NoArgs` where it takes none).
fn written_types(handler: &Handler) -> (TokenStream, TokenStream) {
    let output = &handler.output;
    let args = match &handler.args {
        Some((_, ty)) => quote!(#ty),
        None => quote!(::mcp_runtime::__private::NoArgs),
    };
    (quote!(#output), args)
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
/// A generic sub-flow (`async fn ask<F: ElicitForm>(cx: &Cx) -> Result<F, Refusal>`) keeps
/// its type parameters, each bound `Send + 'static` too, on the function (`use<F>`), its type
/// (with a `PhantomData<fn() -> (F,)>` marker), the impl and the step (`__mcp_step::<F>`).
/// One whose body names `Self` holds its step as a pointer, as a handler does, in a type
/// generic over the step's future and arguments, and its step is beside it:
/// ```text
/// struct __mcp_elicit_confirm<F, __mcp_T0> {
///     total: __mcp_T0,
///     __mcp_step: fn(__mcp_T0, Cx, Resume) -> F,
/// }
/// ```
pub(super) fn expand_sub_flow(
    handler: &Handler,
    step: &Ident,
    body: TokenStream,
    beside: Option<Span>,
) -> TokenStream {
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
        .map(|(name, _)| syntax::shown_ident(name))
        .collect();
    let types: Vec<_> = handler.params.iter().map(|(_, ty)| ty).collect();
    let params = names
        .iter()
        .zip(&types)
        .map(|(name, ty)| quote!(#name: #ty));
    // A generic sub-flow's type parameters: its type and step take them, and a marker holds
    // them where no argument does.
    let (generics, ty_generics, where_clause) = handler.generics.split_for_impl();
    let turbofish = ty_generics.as_turbofish();
    let captured = handler.generics.type_params().map(|param| &param.ident);
    let captured: Vec<_> = captured.collect();
    let marker = (!captured.is_empty()).then(|| {
        (
            quote!(__mcp_marker: ::core::marker::PhantomData<fn() -> (#(#captured,)*)>,),
            quote!(__mcp_marker: ::core::marker::PhantomData,),
        )
    });
    let (marker_field, marker_value) = marker.unzip();
    // Beside (a body that names `Self`; see `expand_handler`), the sub-flow holds its step as
    // a pointer, and is generic over the step's future and arguments, which may name `Self`.
    let (inside, impl_head, call, value) = if let Some(beside) = beside {
        let self_ty = quote_spanned!(beside=> Self);
        let params: Vec<Ident> = (0..names.len())
            .map(|n| format_ident!("__mcp_T{}", n))
            .collect();
        let step_ty = quote! {
            fn(#(#params,)* ::mcp_runtime::Cx, ::mcp_runtime::__private::Resume) -> F
        };
        (
            quote!(struct #hidden<F, #(#params),*> { #(#names: #params,)* __mcp_step: #step_ty }),
            quote! {
                impl<F, #(#params),*> ::mcp_runtime::flow::SubFlowStep for #hidden<F, #(#params),*>
                where
                    F: ::core::future::Future + ::core::marker::Send + 'static,
                    F::Output: ::core::marker::Send + 'static,
                    #(#params: ::core::marker::Send + 'static,)*
            },
            quote!((self.__mcp_step)),
            quote!(#hidden { #(#names,)* __mcp_step: #self_ty::#step #turbofish }),
        )
    } else {
        (
            quote! {
                struct #hidden #generics #where_clause { #(#names: #types,)* #marker_field }
                #body
            },
            quote!(impl #generics ::mcp_runtime::flow::SubFlowStep for #hidden #ty_generics #where_clause),
            quote!(#step #turbofish),
            quote!(#hidden { #(#names,)* #marker_value }),
        )
    };
    let output_of = match beside {
        Some(_) => quote!(<F as ::core::future::Future>::Output),
        None => quote!(#output),
    };
    let made = quote! {
        #(#attrs)*
        #vis fn #ident #generics(#cx: #cx_ty, #(#params),*)
            -> ::mcp_runtime::SubFlow<impl ::mcp_runtime::flow::SubFlowStep<Output = #output> + use<#(#captured),*>>
            #where_clause
        {
            // The context is the caller's: the sub-flow runs on the one its caller awaits it with.
            let _ = #cx;

            #[allow(non_camel_case_types)]
            #inside

            #[automatically_derived]
            #impl_head {
                type Output = #output_of;
                fn step(
                    self,
                    cx: ::mcp_runtime::Cx,
                    state: ::mcp_runtime::__private::Resume,
                ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 'static {
                    #call(#(self.#names,)* cx, state)
                }
            }

            ::mcp_runtime::SubFlow::new(#value)
        }
    };
    let cfgs = cfgs(handler);
    match beside {
        Some(_) => quote!(#made #(#cfgs)* #[doc(hidden)] #body),
        None => made,
    }
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

/// The handler's trait impl; `graph` is its `fn flow_graph`, if it has one (see `graph`).
fn handler_impl(
    handler: &Handler,
    stepper: &Stepper,
    asks: bool,
    graph: &TokenStream,
) -> TokenStream {
    let Stepper {
        generics,
        bounds,
        self_ty,
        step,
        output,
        args_ty,
        states,
    } = stepper;
    let max_rounds = match &handler.options.max_rounds {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let restart = handler.options.restart_on_new_shape.unwrap_or(false);
    let name = handler.wire_name();
    let title = option_str(handler.options.title.as_ref());
    let description = option_str(handler.description().as_ref());
    let p = quote!(::mcp_runtime::__private);
    let s = quote!(::mcp_runtime::server);
    // Spanned at the return type: a type that is no handler result is reported there, once.
    let output_span = syn::spanned::Spanned::span(&handler.output);
    // The conversions are named at the return type, through the public traits: a type that
    // is no handler result is reported there, once, in the trait's own words.
    let f = quote!(::mcp_runtime::flow);
    let flow =
        quote!(#p::Flow { step: #step, asks: #asks, max_rounds: #max_rounds, restart: #restart });
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
        quote! {
            fn required_state(&self) -> ::std::vec::Vec<#p::StateType> {
                #states
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
                impl #generics #s::ToolHandler for #self_ty #bounds {
                    fn definition(&self) -> ::mcp_runtime::protocol::Tool { #definition }
                    fn call(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::CallToolResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                    #graph
                }
            }
        }
        Kind::Prompt => {
            let definition = cached(
                quote!(::mcp_runtime::protocol::Prompt),
                quote!(#p::prompt_definition(#p::arguments_schema::<#args_ty>(), #name, #title, #description, #presentation)),
            );
            let complete = completer(handler);
            quote! {
                #[automatically_derived]
                impl #generics #s::PromptHandler for #self_ty #bounds {
                    fn definition(&self) -> ::mcp_runtime::protocol::Prompt { #definition }
                    fn get(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::GetPromptResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                    #graph
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
            let complete = completer(handler);
            let definition = cached(
                quote!(#s::ResourceDefinition),
                quote!(#p::resource_definition(#uri, #name, #title, #description, #mime, #presentation)),
            );
            quote! {
                #[automatically_derived]
                impl #generics #s::ResourceHandler for #self_ty #bounds {
                    fn definition(&self) -> #s::ResourceDefinition { #definition }
                    fn matches(&self, uri: &str) -> bool { #p::uri_matches(#uri, uri) }
                    fn read(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::ReadResourceResult>>
                    {
                        #drive
                    }
                    #single_use
                    #required
                    #graph
                    #complete
                }
            }
        }
    }
}

/// `fn completer` of a prompt or resource with `complete = path`: the path's completer, its
/// misuse reported at the path.
fn completer(handler: &Handler) -> Option<TokenStream> {
    handler.options.complete.as_ref().map(|path| {
        let into = quote_spanned! {path.span()=>
            ::mcp_runtime::server::IntoCompleter::into_completer(#path)
        };
        quote! {
            fn completer(&self) -> ::core::option::Option<::mcp_runtime::server::Completer> {
                ::core::option::Option::Some(#into)
            }
        }
    })
}

fn option_str(value: Option<&syn::LitStr>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}
