//! Procedural macros of `mcp-runtime`. Depend on `mcp-runtime`, which re-exports them; this
//! crate is an implementation detail and its version is pinned by `mcp-runtime`.

use proc_macro::TokenStream;

mod errors;
#[cfg(test)]
mod expansion_timing;
mod form;
#[cfg(test)]
mod snapshot_tests;

#[doc = include_str!("../docs/form.md")]
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    form::derive_form(input.into()).into()
}

#[doc = include_str!("../docs/choice.md")]
#[proc_macro_derive(ElicitChoice, attributes(choice))]
pub fn derive_elicit_choice(input: TokenStream) -> TokenStream {
    form::derive_choice(input.into()).into()
}

mod flow;

#[doc = include_str!("../docs/tool.md")]
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Tool, attr.into(), item.into()).into()
}

#[doc = include_str!("../docs/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Prompt, attr.into(), item.into()).into()
}

#[doc = include_str!("../docs/resource.md")]
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Resource, attr.into(), item.into()).into()
}

#[doc = include_str!("../docs/elicit.md")]
#[proc_macro_attribute]
pub fn elicit(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Elicit, attr.into(), item.into()).into()
}
