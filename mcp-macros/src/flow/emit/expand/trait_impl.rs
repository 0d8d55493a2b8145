//! The handler's trait impl: its definition, built once, and the call that drives its flow.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use super::stepper::Stepper;
use crate::flow::parse::model::{Handler, Kind};

/// The handler's trait impl; `graph` is its `fn flow_graph`, if it has one (see `graph`).
pub(super) fn handler_impl(
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
