//! The step function's own names, and the reading of a carried value out of its state: what the
//! nest, the resumed bodies and the settled questions all write. A leaf: it names no other
//! module of `flow`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// The step function's opened state (`continuation::Reader`).
pub(crate) fn reader() -> Ident {
    Ident::new("__mcp_r", Span::mixed_site())
}

/// Question point `id`'s number, as the step's state and its markers write it
/// (`reader.at == N`, `reader.form(N, ..)`, `__mcp_site!().N`).
pub(crate) fn number(id: usize) -> u32 {
    u32::try_from(id).unwrap_or(u32::MAX)
}

/// The numbers of question points `ids` (see [`number`]).
pub(crate) fn numbers(ids: &[usize]) -> Vec<u32> {
    ids.iter().map(|&id| number(id)).collect()
}

/// Whether the flow resumes at one of the points `numbers`: `reader`'s field compared
/// (`reader.at == 1`, `matches!(reader.at, 1 | 2)`), where a call to a method
/// would be one more path for the compiler to check and clean up after at every level.
pub(crate) fn at(reader: &Ident, numbers: &[u32]) -> TokenStream {
    match numbers {
        [one] => quote!(#reader.at == #one),
        _ => quote!(::core::matches!(#reader.at, #(#numbers)|*)),
    }
}

/// The label of the block holding the step's body, which every place the step stops breaks
/// out of with its `continuation::Stopped`, for the one await of it after the block.
pub(crate) fn stop_label() -> syn::Lifetime {
    syn::Lifetime::new("'__mcp_stop", Span::mixed_site())
}

/// `reader.take(&slot)`, the step stopping where it fails: the value of a carried local.
pub(crate) fn take(slot: usize) -> TokenStream {
    let (reader, slot) = (reader(), self::slot(slot));
    taken(&quote!(#reader.take(&#slot)))
}

/// The value of `result`, a `Result<_, Stopped>`, the step stopping where it is an error.
pub(crate) fn taken(result: &TokenStream) -> TokenStream {
    let label = stop_label();
    let value = Ident::new("__mcp_value", Span::mixed_site());
    let stopped = Ident::new("__mcp_stopped", Span::mixed_site());
    quote! {
        match #result {
            ::core::result::Result::Ok(#value) => #value,
            ::core::result::Result::Err(#stopped) => break #label #stopped,
        }
    }
}

/// The step function's local holding slot `n`.
pub(crate) fn slot(n: usize) -> Ident {
    format_ident!("__mcp_s{}", n, span = Span::mixed_site())
}
