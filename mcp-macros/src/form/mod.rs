//! `#[derive(ElicitForm)]` and `#[derive(ElicitChoice)]`: parse → validate → expand.

mod attr;
mod case;
mod choice;
mod defaults;
mod expand;
mod model;
mod validate;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::errors::with_fallback;

pub(crate) fn derive_form(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let (form, mut errors) = model::parse(&input);
    validate::form(&form, &mut errors);
    match errors.finish() {
        Ok(()) => expand::form(&form),
        Err(error) => with_fallback(&error, expand::fallback(&input)),
    }
}

pub(crate) fn derive_choice(input: TokenStream) -> TokenStream {
    match syn::parse2::<DeriveInput>(input) {
        Ok(input) => choice::derive(&input),
        Err(error) => error.to_compile_error(),
    }
}
