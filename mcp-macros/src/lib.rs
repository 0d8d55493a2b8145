//! Procedural macros of `mcp-runtime`. Depend on `mcp-runtime`, which re-exports them; this
//! crate is an implementation detail and its version is pinned by `mcp-runtime`.

use proc_macro::TokenStream;

mod errors;
mod form;

/// Derives `mcp_runtime::form::ElicitForm` for a flat struct. See the `mcp-runtime` docs.
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    form::derive_form(input.into()).into()
}

/// Derives `mcp_runtime::form::ElicitChoice` for a unit-only enum. See the `mcp-runtime` docs.
#[proc_macro_derive(ElicitChoice, attributes(choice))]
pub fn derive_elicit_choice(input: TokenStream) -> TokenStream {
    form::derive_choice(input.into()).into()
}

mod flow;

/// Compiles an `async fn` into a multi-round tool. See the `mcp-runtime` docs.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Tool, attr.into(), item.into()).into()
}

/// Compiles an `async fn` into a multi-round prompt. See the `mcp-runtime` docs.
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Prompt, attr.into(), item.into()).into()
}

/// Compiles an `async fn` into a multi-round resource or resource template. See the
/// `mcp-runtime` docs.
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Resource, attr.into(), item.into()).into()
}
