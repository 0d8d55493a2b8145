//! The function the user declared, returning its handler, with the step function and the
//! handler's type in its body or beside it. The trait impl is `trait_impl.rs`'s; a sub-flow's
//! function is `sub_flow.rs`'s.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::Ident;

use super::stepper::{Stepper, handler_type, state_requirements};
use super::trait_impl::handler_impl;
use crate::flow::parse::model::{Handler, Kind};

/// Input:  `#[tool] pub async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult { ... }`
/// Output: the function, returning its handler; every item behind it lives in its body, so it
/// names no hidden type, works as an associated function of an `impl` block, and takes only
/// the visibility the user wrote:
/// ```text
/// pub fn deploy() -> impl ToolHandler + Copy {
///     struct __mcp_tool_deploy;
///     async fn __mcp_step(__mcp_args_in: DeployArgs, __mcp_cx_in: Cx, __mcp_state: Resume) -> ToolResult {
///         // all the step owns lives in this block, which ends before the await
///         let __mcp_stopped: Stopped = {
///             let args = __mcp_args_in;              // the arguments' pattern as written
///             let __mcp_cx = __mcp_cx_in;
///             let __mcp_s0 = <_ as Carry>::slot();   // one per carried local, at its name
///             // every place the step stops breaks out of this block with its `Stopped`
///             let __mcp_stopped: Stopped = '__mcp_stop: {
///                 let mut __mcp_r = match __mcp_state.open(&__mcp_cx, "|target,|confirm,;replicas#0", &[__mcp_s0.name()], &[0, 1]) {
///                     Ok(reader) => reader,
///                     Err(stopped) => break '__mcp_stop stopped,
///                 };
///                 let cx = __mcp_cx;
///                 // the `match` only where a point has an arm of its own (a sub-flow call, or
///                 // a point the nest leaves out); otherwise the value is BODY alone
///                 let __mcp_done: ToolResult = match __mcp_r.point() {
///                     None | Some(0 | 1) => {
///                         BODY, nested so that it resumes at either point (see `straight`),
///                         each question stopping with
///                         `break '__mcp_stop __mcp_r.ask(.., &[&(&local, &__mcp_s0, "local")])`
///                     }
///                     Some(2) => { let __mcp_v0 = TAKE(__mcp_s0); REST OF BODY }
///                     Some(_) => break '__mcp_stop __mcp_r.unknown_point(),
///                 };
///                 return __mcp_done;
///             };
///             let _ = || { PROBES };   // each slot checked for a borrow or a lock guard, but
///                                      // one whose `let` writes a type that is neither (`probes`)
///             __mcp_stopped
///         };
///         match __mcp_stopped.await {}   // the step's one suspension point
///     }
///     impl ToolHandler for __mcp_tool_deploy {
///         fn definition(&self) -> Tool { .. }
///         fn call(&self, request: Request) -> BoxFuture<..> {
///             drive_tool(Flow { step: __mcp_step, asks: true, max_rounds: None, restart: false }, request, ..)
///         }
///         fn flow_graph(&self) -> Option<&'static FlowGraph> { .. }   // if it asks (see `graph`)
///     }
///     __mcp_tool_deploy
/// }
/// ```
/// A handler that asks nothing has no state to open and never stops: its step is
/// `async fn __mcp_step(args: DeployArgs, __mcp_cx: Cx, _: Resume) -> ToolResult { let cx =
/// __mcp_cx; BODY }`, and its `Flow` says `asks: false` (the driver checks the state for it).
///
/// A body or signature that names `Self` is stepped by a function beside this one (`beside`),
/// in the `impl` block where `Self` is the type, which the handler holds as a function
/// pointer. The nested items cannot name `Self`: the handler is generic over the step's
/// future and arguments, and the compiler infers them. Its impl names the result and
/// arguments types as written where they do not name `Self` (else `F::Output`, with an
/// `IntoToolResult` bound, and `A`); its `State<T>` requirements, if it has any, are a second
/// function it holds (`|| vec![state_requirement::<State<Self>>()]`).
/// ```text
/// pub fn deploy() -> impl ToolHandler + Copy {
///     struct __mcp_tool_deploy<F, A>(fn(A, Cx, Resume) -> F);
///     impl<F, A> Clone for __mcp_tool_deploy<F, A> { .. }   // and Copy
///     impl<F> ToolHandler for __mcp_tool_deploy<F, DeployArgs>
///     where F: Future<Output = ToolResult> + Send + 'static
///     {
///         .. Flow { step: self.0, .. } ..
///     }
///     __mcp_tool_deploy(Self::__mcp_step_deploy)
/// }
/// async fn __mcp_step_deploy(__mcp_args_in: DeployArgs, __mcp_cx_in: Cx, __mcp_state: Resume) -> ToolResult { .. }
/// ```
pub(super) fn expand_handler(
    handler: &Handler,
    step: &Ident,
    body: TokenStream,
    asks: bool,
    beside: Option<Span>,
    graph: TokenStream,
) -> TokenStream {
    let ident = &handler.ident;
    let handler_ty = handler_type(handler);
    let vis = &handler.vis;
    let attrs = &handler.attrs;
    let stepper = match beside {
        Some(_) => Stepper::beside(handler),
        None => Stepper::nested(handler, step),
    };
    let handler_impl = handler_impl(handler, &stepper, asks, &graph);
    let kind = handler.kind.attr();
    let made = format!(
        " Returns the handler `#[{kind}]` made of this function; register it with \
         `.{kind}({ident})`."
    );
    let separator = (!handler.docs.is_empty()).then(|| quote!(#[doc = ""]));
    let handler_trait = match handler.kind {
        Kind::Prompt => quote!(PromptHandler),
        Kind::Resource => quote!(ResourceHandler),
        Kind::Tool | Kind::Elicit => quote!(ToolHandler),
    };
    let made_fn = |inside: TokenStream, value: TokenStream| {
        quote! {
            #(#attrs)*
            #separator
            #[doc = #made]
            #vis fn #ident() -> impl ::mcp_runtime::server::#handler_trait + ::core::marker::Copy {
                #inside

                #handler_impl

                #value
            }
        }
    };
    let Some(beside) = beside else {
        let inside = quote! {
            #[allow(non_camel_case_types)]
            #[derive(::core::clone::Clone, ::core::marker::Copy)]
            struct #handler_ty;

            #body
        };
        return made_fn(inside, quote!(#handler_ty));
    };
    // At the body's own `Self`: outside an `impl` block, the compiler's error is there, once.
    let self_ty = quote_spanned!(beside=> Self);
    // The `State<T>` requirements, which may name `Self`, are listed by a function the
    // handler holds too.
    let p = quote!(::mcp_runtime::__private);
    let (states_ty, states) = match handler.state_params.is_empty() {
        true => (None, None),
        false => {
            let states = state_requirements(handler);
            (
                Some(quote!(fn() -> ::std::vec::Vec<#p::StateType>,)),
                Some(quote!(|| #states,)),
            )
        }
    };
    let inside = quote! {
        #[allow(non_camel_case_types)]
        struct #handler_ty<F, A>(
            fn(A, ::mcp_runtime::Cx, #p::Resume) -> F,
            #states_ty
        );
        impl<F, A> ::core::clone::Clone for #handler_ty<F, A> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<F, A> ::core::marker::Copy for #handler_ty<F, A> {}
    };
    let made = made_fn(inside, quote!(#handler_ty(#self_ty::#step, #states)));
    let cfgs = cfgs(handler);
    quote! {
        #made
        #(#cfgs)*
        #[doc(hidden)]
        #body
    }
}

/// The `#[cfg]`s on the user's function, which a step beside it takes too.
pub(super) fn cfgs(handler: &Handler) -> impl Iterator<Item = &syn::Attribute> {
    handler
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
}
