//! The items around the step function: the function the user declared, returning its handler
//! (or, for `#[elicit]`, its sub-flow), and the handler's trait impl.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::super::model::{Handler, Kind};
use super::super::shadow;

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
///     }
///     __mcp_tool_deploy
/// }
/// ```
/// A handler that asks nothing has no state to open and never stops: its step is
/// `async fn __mcp_step(args: DeployArgs, __mcp_cx: Cx, _: Resume) -> ToolResult { let cx =
/// __mcp_cx; BODY }`, and its `Flow` says `asks: false` (the driver checks the state for it).
pub(super) fn expand_handler(
    handler: &Handler,
    step: &Ident,
    body: TokenStream,
    asks: bool,
) -> TokenStream {
    let ident = &handler.ident;
    let handler_ty = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let handler_impl = handler_impl(handler, step, asks);
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
pub(super) fn expand_sub_flow(handler: &Handler, step: &Ident, body: TokenStream) -> TokenStream {
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

/// The hidden type of the handler value.
fn handler_type(handler: &Handler) -> Ident {
    let name = handler.ident.to_string();
    format_ident!(
        "__mcp_{}_{}",
        handler.kind.attr(),
        name.trim_start_matches("r#")
    )
}

fn handler_impl(handler: &Handler, step: &Ident, asks: bool) -> TokenStream {
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
