//! Procedural macros of `mcp-runtime`. Depend on `mcp-runtime`, which re-exports them; this
//! crate is an implementation detail and its version is pinned by `mcp-runtime`.

use proc_macro::TokenStream;

mod errors;
mod form;
#[cfg(test)]
mod snapshot_tests;

/// Derives `mcp_runtime::form::ElicitForm` for a flat struct with named fields: its
/// requested schema and a validating parser of accepted content. See `mcp_runtime::form` for
/// the field kinds and the `#[form(...)]` attributes (`title`, `description`, `default`,
/// `rename`, `min_length`, `max_length`, `format`, `minimum`, `maximum`, `min_items`,
/// `max_items`; on the struct, `rename_all`).
///
/// Also implements `serde::Serialize` and `serde::Deserialize` as the form's content object
/// (deserialising re-validates it): do not also derive `Serialize` or `Deserialize` on the
/// struct, and do not add serde as a dependency for it.
#[proc_macro_derive(ElicitForm, attributes(form))]
pub fn derive_elicit_form(input: TokenStream) -> TokenStream {
    form::derive_form(input.into()).into()
}

/// Derives `mcp_runtime::form::ElicitChoice` for a unit-only enum, which must also be `Copy`:
/// a single-select field, or a multi-select as `Vec` or `BTreeSet` of it. Variants take
/// `#[choice(title = "...", rename = "...")]`, the enum `#[choice(rename_all = "...", enum_names)]`.
///
/// Also implements `serde::Serialize` and `serde::Deserialize` as the variant's wire string:
/// do not also derive `Serialize` or `Deserialize` on the enum.
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

/// Compiles an `async fn` taking the context into a reusable multi-round sub-flow, awaited
/// from a handler or another sub-flow. See the `mcp-runtime` docs.
#[proc_macro_attribute]
pub fn elicit(attr: TokenStream, item: TokenStream) -> TokenStream {
    flow::expand(flow::Kind::Elicit, attr.into(), item.into()).into()
}
