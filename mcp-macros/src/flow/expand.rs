//! Output: the handler value, its continuation enum, its step function and its handler impl.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident};

use super::model::{Handler, Kind};
use super::resume::Resumed;
use super::scope::marker_site;
use super::sites::Site;

pub(crate) struct Plan<'a> {
    pub(crate) handler: &'a Handler,
    pub(crate) forward: Block,
    pub(crate) sites: &'a [Site],
    pub(crate) resumed: Vec<Resumed>,
}

fn variant(id: usize) -> Ident {
    format_ident!("S{}", id)
}

pub(crate) fn expand(plan: Plan<'_>) -> TokenStream {
    let handler = plan.handler;
    let ident = &handler.ident;
    let handler_ty = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let cx = &handler.cx;
    let output = &handler.output;
    let state = Ident::new("__mcp_State", Span::mixed_site());

    let variants = plan.resumed.iter().enumerate().map(|(id, resumed)| {
        let name = variant(id);
        let tag = id.to_string();
        let fields = resumed.carried.iter().map(|c| {
            let field = &c.field;
            let ty = &c.ty;
            quote_spanned!(ty_span(ty)=> #[serde(with = "::mcp_runtime::__private::carry")] #field: #ty)
        });
        quote!(#[serde(rename = #tag)] #name { #(#fields),* })
    });

    let mut sites = SiteCode {
        sites: plan.sites,
        resumed: &plan.resumed,
        cx,
        state: &state,
    };
    let mut forward = plan.forward.clone();
    sites.visit_block_mut(&mut forward);
    let arms = plan.resumed.iter().enumerate().map(|(id, resumed)| {
        let name = variant(id);
        let fields = resumed.carried.iter().map(|c| &c.field);
        let values = resumed.carried.iter().map(|c| &c.value);
        let mut body = resumed.body.clone();
        sites.visit_block_mut(&mut body);
        quote! {
            ::core::option::Option::Some(#state::#name { #(#fields: #values),* }) => #body
        }
    });

    let (args_pat, args_ty) = match &handler.args {
        Some((pat, ty)) => (quote!(#pat), quote!(#ty)),
        None => (quote!(_), quote!(::mcp_runtime::__private::NoArgs)),
    };
    let shape = shape(plan.sites, &plan.resumed);
    let max_rounds = match &handler.options.max_rounds {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    };
    let handler_impl = handler_impl(handler);
    let cx_allow = handler
        .cx_ty
        .is_none()
        .then(|| quote!(#[allow(unused_variables)]));
    let cx_ty = match &handler.cx_ty {
        Some(ty) => quote!(#ty),
        None => quote!(::mcp_runtime::Cx),
    };
    let step = Ident::new("__mcp_step", Span::mixed_site());
    let body_span = handler.body_span();
    let state_param = Ident::new("__mcp_state", Span::mixed_site());

    let step_fn = quote_spanned! {body_span=>
        #[allow(clippy::all, clippy::pedantic, unreachable_code, unused_braces)]
        async fn #step(
            #args_pat: #args_ty,
            #cx_allow #cx: #cx_ty,
            #state_param: ::core::option::Option<#state>,
        ) -> #output {
            match #state_param {
                ::core::option::Option::None => #forward,
                #(#arms,)*
            }
        }
    };

    let kind = handler.kind.attr();
    let made = format!(
        "Returns the handler `#[{kind}]` made of this function; register it with \
         `.{kind}({ident})`."
    );
    quote! {
        #(#attrs)*
        #[doc = ""]
        #[doc = #made]
        #vis fn #ident() -> #handler_ty {
            #handler_ty
        }

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #handler_ty;

        const _: () = {
            #[derive(
                ::mcp_runtime::__private::serde::Serialize,
                ::mcp_runtime::__private::serde::Deserialize,
            )]
            #[serde(crate = "::mcp_runtime::__private::serde")]
            #[allow(non_camel_case_types, clippy::all, clippy::pedantic)]
            #[doc(hidden)]
            pub enum #state { #(#variants,)* }

            #step_fn

            #[automatically_derived]
            impl ::mcp_runtime::__private::Flow for #handler_ty {
                type Args = #args_ty;
                type State = #state;
                type Output = #output;
                const SHAPE: u64 = #shape;
                const MAX_ROUNDS: ::core::option::Option<u32> = #max_rounds;
                fn step(
                    self,
                    args: Self::Args,
                    cx: ::mcp_runtime::Cx,
                    state: ::core::option::Option<Self::State>,
                ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 'static {
                    #step(args, cx, state)
                }
            }

            #handler_impl
        };
    }
}

fn ty_span(ty: &syn::Type) -> Span {
    syn::spanned::Spanned::span(ty)
}

/// A fingerprint of the flow's shape: its question points, their keys, and the names and
/// types of the locals each one carries. FNV-1a, computed here at compile time.
fn shape(sites: &[Site], resumed: &[Resumed]) -> u64 {
    let mut text = String::new();
    for (site, resumed) in sites.iter().zip(resumed) {
        text.push('|');
        for key in &site.keys {
            text.push_str(&key.value());
            text.push(',');
        }
        for carried in &resumed.carried {
            let ty = &carried.ty;
            text.push_str(&format!(";{}:{}", carried.field, quote!(#ty)));
        }
    }
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
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

fn handler_impl(handler: &Handler) -> TokenStream {
    let ident = handler_type(handler);
    let name = handler.wire_name();
    let title = option_str(handler.options.title.as_ref());
    let description = option_str(handler.description().as_ref());
    let args_ty = match &handler.args {
        Some((_, ty)) => quote!(#ty),
        None => quote!(::mcp_runtime::__private::NoArgs),
    };
    let p = quote!(::mcp_runtime::__private);
    let s = quote!(::mcp_runtime::server);
    let cached = |ty: TokenStream, init: TokenStream| {
        quote! {
            static DEFINITION: ::std::sync::OnceLock<#ty> = ::std::sync::OnceLock::new();
            ::core::clone::Clone::clone(DEFINITION.get_or_init(|| #init))
        }
    };
    match handler.kind {
        Kind::Tool => {
            let definition = cached(
                quote!(::mcp_runtime::protocol::Tool),
                quote!(#p::tool_definition::<#args_ty>(#name, #title, #description)),
            );
            quote! {
                #[automatically_derived]
                impl #s::ToolHandler for #ident {
                    fn definition(&self) -> ::mcp_runtime::protocol::Tool { #definition }
                    fn call(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::CallToolResult>>
                    {
                        #p::drive_tool(*self, request)
                    }
                }
            }
        }
        Kind::Prompt => {
            let definition = cached(
                quote!(::mcp_runtime::protocol::Prompt),
                quote!(#p::prompt_definition::<#args_ty>(#name, #title, #description)),
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
                        #p::drive_prompt(*self, request)
                    }
                    #complete
                }
            }
        }
        Kind::Resource => {
            let uri = handler
                .options
                .uri
                .clone()
                .unwrap_or_else(|| syn::LitStr::new("", handler.span()));
            let mime = option_str(handler.options.mime_type.as_ref());
            let definition = cached(
                quote!(#s::ResourceDefinition),
                quote!(#p::resource_definition(#uri, #name, #title, #description, #mime)),
            );
            quote! {
                #[automatically_derived]
                impl #s::ResourceHandler for #ident {
                    fn definition(&self) -> #s::ResourceDefinition { #definition }
                    fn matches(&self, uri: &str) -> bool { #p::uri_matches(#uri, uri) }
                    fn read(&self, request: #s::Request)
                        -> #s::BoxFuture<'static, #s::HandlerResult<::mcp_runtime::protocol::ReadResourceResult>>
                    {
                        #p::drive_resource(*self, #uri, request)
                    }
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

/// Replaces each `__mcp_site!(N)` marker with the code that settles question point `N`.
///
/// Input:  `__mcp_site!(1)`
/// Output:
/// ```text
/// match Batch::settle(cx.elicit("..."), &cx, &["confirm"]) {
///     Settled::Answered(answer) => answer,
///     Settled::Stop(stop) => match stop(&cx, stop, &State::S1 { target }).await {},
/// }
/// ```
struct SiteCode<'a> {
    sites: &'a [Site],
    resumed: &'a [Resumed],
    cx: &'a Ident,
    state: &'a Ident,
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
        let fields = self.resumed[id].carried.iter().map(|c| &c.field);
        let locals = self.resumed[id].carried.iter().map(|c| &c.ident);
        let p = quote!(::mcp_runtime::__private);
        let answer = Ident::new("__mcp_answer", Span::mixed_site());
        let halt = Ident::new("__mcp_halt", Span::mixed_site());
        syn::parse_quote_spanned! {syn::spanned::Spanned::span(question)=>
            match #p::Batch::settle(#question, &#cx, &[#(#keys),*]) {
                #p::Settled::Answered(#answer) => #answer,
                #p::Settled::Stop(#halt) => match #p::stop(
                    &#cx,
                    #halt,
                    &#state::#name { #(#fields: #locals),* },
                ).await {},
            }
        }
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
