//! The checks of carried locals' slots for a borrow or a lock guard (see `mcp-runtime`'s
//! `carry::CarryProbe`), for the slots whose local's `let` does not already rule both out.
//!
//! Input:  the slots `__mcp_s0` (of `let names = first_words(&text);`) and `__mcp_s1` (of
//!         `let mut yes: u32 = 0;`)
//! Output, in a closure never called:
//! ```text
//! let _ = || {
//!     NotABorrow::check({ use {ProbeBorrowed as _, ProbeNoBorrow as _};
//!         (&CarryProbe(&__mcp_s0)).borrow_shape() }, &__mcp_s0);
//!     NotAGuard::check({ use {ProbeGuarded as _, ProbeNoGuard as _};
//!         (&CarryProbe(&__mcp_s0)).guard_shape() }, &__mcp_s0);
//! };
//! ```
//! No check for `__mcp_s1`: a `u32` is neither, and each check costs the build a method
//! lookup through autoref.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Ident;

use crate::flow::lower::bindings::Bindings;
use crate::flow::step;

/// The closure that checks the slots of `slots` (each slot's local) that need it: not a
/// literal slot (`literal[n]`), whose `&'static str` travels as an index, nor one whose
/// local's `let` writes a type that can hold neither a borrow nor a guard (the binding
/// table's `plain`).
pub(super) fn slot_checks(
    slots: &[Ident],
    literal: &[bool],
    bindings: &Bindings,
) -> Option<TokenStream> {
    let checks = slots.iter().enumerate().filter(|(n, local)| {
        let plain = || bindings.of(local).is_some_and(|binding| binding.plain);
        !literal[*n] && !plain()
    });
    let checks = checks.map(|(n, local)| {
        let slot = step::slot(n);
        let carry = quote_spanned!(local.span()=> ::mcp_runtime::flow::carry);
        quote_spanned! {local.span()=>
            #carry::NotABorrow::check({
                // One of the two resolves the call, so the other is unused.
                #[allow(unused_imports)]
                use #carry::{ProbeBorrowed as _, ProbeNoBorrow as _};
                (&#carry::CarryProbe(&#slot)).borrow_shape()
            }, &#slot);
            #carry::NotAGuard::check({
                #[allow(unused_imports)]
                use #carry::{ProbeGuarded as _, ProbeNoGuard as _};
                (&#carry::CarryProbe(&#slot)).guard_shape()
            }, &#slot);
        }
    });
    // In a closure never called: typed with the step, once its slots' types are known, but
    // with no path of the step's own to clean up after, nor code of its own.
    let checks: Vec<TokenStream> = checks.collect();
    (!checks.is_empty()).then(|| quote!(let _ = || { #(#checks)* };))
}
