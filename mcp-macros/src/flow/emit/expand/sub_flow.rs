//! The function an `#[elicit]` declares: it captures its arguments into the sub-flow the
//! caller awaits, with the state machine behind it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::handler::cfgs;
use super::stepper::handler_type;
use crate::flow::lower::bindings::Bindings;
use crate::flow::parse::model::Handler;

/// Input:  `#[elicit] async fn confirm(cx: &Cx, total: u32) -> R { ... }`
/// Output: the function, capturing its arguments into the sub-flow the caller awaits, with
/// the state machine behind it in its body:
/// ```text
/// fn confirm(cx: &Cx, total: u32) -> SubFlow<impl SubFlowStep<Output = R> + use<>> {
///     let _ = cx;
///     struct __mcp_elicit_confirm { total: u32 }
///     async fn __mcp_step(total: u32, __mcp_cx_in: Cx, __mcp_state: Resume) -> R { ... }
///     impl SubFlowStep for __mcp_elicit_confirm { ... }
///     SubFlow::new(__mcp_elicit_confirm { total })
/// }
/// ```
/// A generic sub-flow (`async fn ask<F: ElicitForm>(cx: &Cx) -> Result<F, Refusal>`) keeps
/// its type parameters, each bound `Send + 'static` too, on the function (`use<F>`), its type
/// (with a `PhantomData<fn() -> (F,)>` marker), the impl and the step (`__mcp_step::<F>`).
/// One whose body names `Self` holds its step as a pointer, as a handler does, in a type
/// generic over the step's future and arguments, and its step is beside it:
/// ```text
/// struct __mcp_elicit_confirm<F, __mcp_T0> {
///     total: __mcp_T0,
///     __mcp_step: fn(__mcp_T0, Cx, Resume) -> F,
/// }
/// ```
pub(super) fn expand_sub_flow(
    handler: &Handler,
    bindings: &Bindings,
    step: &Ident,
    body: TokenStream,
    beside: Option<Span>,
) -> TokenStream {
    let ident = &handler.ident;
    let hidden = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let output = &handler.output;
    let cx = &handler.cx;
    let cx_ty = &handler.cx_ty;
    // The arguments as the user named them; the step function's may be renamed (moved into
    // the body by `mutable`, or hidden: see `shadow`).
    let names: Vec<Ident> = handler
        .params
        .iter()
        .map(|(name, _)| bindings.shown(name))
        .collect();
    let types: Vec<_> = handler.params.iter().map(|(_, ty)| ty).collect();
    let params = names
        .iter()
        .zip(&types)
        .map(|(name, ty)| quote!(#name: #ty));
    // A generic sub-flow's type parameters: its type and step take them, and a marker holds
    // them where no argument does.
    let (generics, ty_generics, where_clause) = handler.generics.split_for_impl();
    let turbofish = ty_generics.as_turbofish();
    let captured = handler.generics.type_params().map(|param| &param.ident);
    let captured: Vec<_> = captured.collect();
    let marker = (!captured.is_empty()).then(|| {
        (
            quote!(__mcp_marker: ::core::marker::PhantomData<fn() -> (#(#captured,)*)>,),
            quote!(__mcp_marker: ::core::marker::PhantomData,),
        )
    });
    let (marker_field, marker_value) = marker.unzip();
    // Beside (a body that names `Self`; see `expand_handler`), the sub-flow holds its step as
    // a pointer, and is generic over the step's future and arguments, which may name `Self`.
    let (inside, impl_head, call, value) = if let Some(beside) = beside {
        let self_ty = quote_spanned!(beside=> Self);
        let params: Vec<Ident> = (0..names.len())
            .map(|n| format_ident!("__mcp_T{}", n))
            .collect();
        let step_ty = quote! {
            fn(#(#params,)* ::mcp_runtime::Cx, ::mcp_runtime::__private::Resume) -> F
        };
        (
            quote!(struct #hidden<F, #(#params),*> { #(#names: #params,)* __mcp_step: #step_ty }),
            quote! {
                impl<F, #(#params),*> ::mcp_runtime::flow::SubFlowStep for #hidden<F, #(#params),*>
                where
                    F: ::core::future::Future + ::core::marker::Send + 'static,
                    F::Output: ::core::marker::Send + 'static,
                    #(#params: ::core::marker::Send + 'static,)*
            },
            quote!((self.__mcp_step)),
            quote!(#hidden { #(#names,)* __mcp_step: #self_ty::#step #turbofish }),
        )
    } else {
        (
            quote! {
                struct #hidden #generics #where_clause { #(#names: #types,)* #marker_field }
                #body
            },
            quote!(impl #generics ::mcp_runtime::flow::SubFlowStep for #hidden #ty_generics #where_clause),
            quote!(#step #turbofish),
            quote!(#hidden { #(#names,)* #marker_value }),
        )
    };
    let output_of = match beside {
        Some(_) => quote!(<F as ::core::future::Future>::Output),
        None => quote!(#output),
    };
    let made = quote! {
        #(#attrs)*
        #vis fn #ident #generics(#cx: #cx_ty, #(#params),*)
            -> ::mcp_runtime::SubFlow<impl ::mcp_runtime::flow::SubFlowStep<Output = #output> + use<#(#captured),*>>
            #where_clause
        {
            // The context is the caller's: the sub-flow runs on the one its caller awaits it with.
            let _ = #cx;

            #[allow(non_camel_case_types)]
            #inside

            #[automatically_derived]
            #impl_head {
                type Output = #output_of;
                fn step(
                    self,
                    cx: ::mcp_runtime::Cx,
                    state: ::mcp_runtime::__private::Resume,
                ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send + 'static {
                    #call(#(self.#names,)* cx, state)
                }
            }

            ::mcp_runtime::SubFlow::new(#value)
        }
    };
    let cfgs = cfgs(handler);
    match beside {
        Some(_) => quote!(#made #(#cfgs)* #[doc(hidden)] #body),
        None => made,
    }
}
