//! Procedural macros of `mcp-runtime`. Depend on `mcp-runtime`, which re-exports them; this
//! crate is an implementation detail and its version is pinned by `mcp-runtime`.

use proc_macro::TokenStream;

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
