//! How a handler's impl reaches its step function ([`Stepper`]), and the names and types the
//! handler's items share: read by the item that declares the handler (`handler.rs`), its
//! trait impl (`trait_impl.rs`) and a sub-flow's (`sub_flow.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::names_self;
use crate::flow::parse::model::{Handler, Kind};

/// How a handler's impl reaches its step function: by name where it is nested in the
/// function the user declared, or through the pointer the handler holds where it is beside.
pub(super) struct Stepper {
    /// The impl's generics and their bounds, and the handler type it is for.
    pub(super) generics: TokenStream,
    pub(super) bounds: TokenStream,
    pub(super) self_ty: TokenStream,
    pub(super) step: TokenStream,
    /// The step's output and arguments, and its `State<T>` requirements, as the impl names
    /// them.
    pub(super) output: TokenStream,
    pub(super) args_ty: TokenStream,
    pub(super) states: TokenStream,
}

impl Stepper {
    pub(super) fn nested(handler: &Handler, step: &Ident) -> Self {
        let ty = handler_type(handler);
        let (output, args_ty) = written_types(handler);
        Self {
            generics: TokenStream::new(),
            bounds: TokenStream::new(),
            self_ty: quote!(#ty),
            step: quote!(#step),
            output,
            args_ty,
            states: state_requirements(handler),
        }
    }

    /// The impl names the result and arguments types as written, where they do not name
    /// `Self` (a wrong result is then reported at it, as where the step is nested); else
    /// through the step's future and a parameter.
    pub(super) fn beside(handler: &Handler) -> Self {
        let ty = handler_type(handler);
        let p = quote!(::mcp_runtime::__private);
        let (written_output, written_args) = written_types(handler);
        let future = quote!(::core::future::Future);
        let (mut generics, mut bounds) = (vec![quote!(F)], Vec::new());
        let output = match names_self(written_output.clone()) {
            None => {
                bounds.push(quote! {
                    F: #future<Output = #written_output> + ::core::marker::Send + 'static
                });
                written_output
            }
            Some(_) => {
                let result = match handler.kind {
                    Kind::Prompt => quote!(IntoPromptResult),
                    Kind::Resource => quote!(IntoResourceResult),
                    Kind::Tool | Kind::Elicit => quote!(IntoToolResult),
                };
                bounds.push(quote!(F: #future + ::core::marker::Send + 'static));
                bounds.push(quote!(F::Output: ::mcp_runtime::flow::#result));
                quote!(<F as #future>::Output)
            }
        };
        let args_ty = match names_self(written_args.clone()) {
            None => written_args,
            Some(_) => {
                generics.push(quote!(A));
                bounds.push(quote! {
                    A: #p::serde::de::DeserializeOwned + #p::schemars::JsonSchema
                        + ::core::marker::Send + 'static
                });
                quote!(A)
            }
        };
        Self {
            generics: quote!(<#(#generics),*>),
            bounds: quote!(where #(#bounds,)*),
            self_ty: quote!(#ty<F, #args_ty>),
            step: quote!(self.0),
            output,
            args_ty,
            states: quote!((self.1)()),
        }
    }
}

/// The requirements of a handler's `State<T>` parameters, as a `Vec<StateType>`.
pub(super) fn state_requirements(handler: &Handler) -> TokenStream {
    let p = quote!(::mcp_runtime::__private);
    let states = handler.state_params.iter().map(|(_, ty)| ty);
    quote!(::std::vec![#(#p::state_requirement::<#states>()),*])
}

/// A handler's result and arguments types as written (`NoArgs` where it takes none).
fn written_types(handler: &Handler) -> (TokenStream, TokenStream) {
    let output = &handler.output;
    let args = match &handler.args {
        Some((_, ty)) => quote!(#ty),
        None => quote!(::mcp_runtime::__private::NoArgs),
    };
    (quote!(#output), args)
}

/// The hidden type of the handler value.
pub(super) fn handler_type(handler: &Handler) -> Ident {
    let name = handler.ident.to_string();
    format_ident!(
        "__mcp_{}_{}",
        handler.kind.attr(),
        name.trim_start_matches("r#")
    )
}
