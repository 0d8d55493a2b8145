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

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::visit::Visit;
use syn::{Block, Ident, Pat, Type};

use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::std_facts::plainly_owned;
use crate::flow::step;

/// The closure that checks the slots of `slots` (each slot's local) that need it: not a
/// literal slot (`literal[n]`), whose `&'static str` travels as an index, nor one whose
/// local's `let` in `body` writes a type that can hold neither a borrow nor a guard.
pub(super) fn slot_checks(
    slots: &[Ident],
    literal: &[bool],
    body: &Block,
    bindings: &Bindings,
) -> Option<TokenStream> {
    let mut written = Written {
        bindings,
        types: HashMap::new(),
    };
    written.visit_block(body);
    let checks = slots.iter().enumerate().filter(|(n, local)| {
        let owned = || {
            let ty = bindings.find(local).and_then(|id| written.types.get(&id));
            ty.is_some_and(|ty| plainly_owned(ty))
        };
        !literal[*n] && !owned()
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

/// The type each `let name: Type` of the body writes, by binding.
struct Written<'a> {
    bindings: &'a Bindings,
    types: HashMap<BindingId, &'a Type>,
}

impl<'a> Visit<'a> for Written<'a> {
    fn visit_local(&mut self, local: &'a syn::Local) {
        if let Pat::Type(typed) = &local.pat
            && let Pat::Ident(binding) = &*typed.pat
            && binding.subpat.is_none()
            && let Some(id) = self.bindings.find(&binding.ident)
        {
            self.types.insert(id, &typed.ty);
        }
        syn::visit::visit_local(self, local);
    }

    fn visit_item(&mut self, _: &'a syn::Item) {}
}
