use proc_macro2::TokenStream;

pub(crate) fn derive_form(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}

pub(crate) fn derive_choice(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
