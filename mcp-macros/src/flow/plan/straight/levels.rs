//! One level of a nest, as code: the locals it brings out of a question's statement, restored
//! from the point's state or computed by running the statements before it (see `straight`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Ident, Local, Stmt};

use super::{Branch, Within};
use crate::flow::analyse::point::Carried;
use crate::flow::scope::{self, Binding};
use crate::flow::step;

/// After a level: the `let`s of [`again_at`](super::again_at) run again, which the statements after it may
/// leave unused; in the level's branch that runs from the start: a use of each of their
/// locals, which that branch leaves unused where only the statements after the level use
/// them.
pub(super) fn had_again(again: &[Local]) -> (TokenStream, TokenStream) {
    let lets = again.iter().map(|local| {
        quote! {
            #[allow(unused_variables)]
            #local
        }
    });
    let idents: Vec<Ident> = again
        .iter()
        .flat_map(scope::let_bindings)
        .map(|binding| binding.ident)
        .collect();
    (quote!(#(#lets)*), quote!(#(let _ = &#idents;)*))
}

/// `reader.take(&slot)` for each of `carried`, in order, the step stopping where one fails.
pub(super) fn takes(carried: &[Carried]) -> impl Iterator<Item = TokenStream> + '_ {
    carried.iter().map(|c| step::take(c.slot))
}

/// The level of a question at the head of a statement: the locals `carried` it needs,
/// restored from point `id`'s state or computed by `inner` and `before`.
pub(super) fn head_level(
    inner: TokenStream,
    before: &[&Stmt],
    carried: &[Carried],
    id: usize,
    reader: &Ident,
    uses: &TokenStream,
) -> TokenStream {
    let point = step::number(id);
    if carried.is_empty() && inner.is_empty() && before.is_empty() {
        // Nothing to bring along, and nothing to skip.
        return inner;
    }
    let here = step::at(reader, &[point]);
    resumed_here((inner, before), carried, &here, uses, None)
}

/// A level whose statement runs as written once `here` (a test of the reader: whether the
/// flow resumes at the level's points) has either restored `carried` from the state or
/// computed them by running `inner` and `before`. With `branch`, it also brings out which
/// branch of the statement's `if` runs (see [`Branch`]).
pub(crate) fn resumed_here<S: ToTokens>(
    (inner, before): (TokenStream, &[S]),
    carried: &[Carried],
    here: &TokenStream,
    uses: &TokenStream,
    branch: Option<&Branch>,
) -> TokenStream {
    let (resumed, cond) = match branch {
        Some(Branch {
            resumed,
            cond,
            local,
            ty,
        }) => (quote!(#resumed,), quote!(let #local: #ty = #cond;)),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let then = branch.map(|branch| {
        let local = &branch.local;
        quote!(#local,)
    });
    if carried.is_empty() && branch.is_none() {
        // Nothing to bring along: the statements before run unless resuming here.
        return quote! {
            if !(#here) {
                #inner
                #(#before)*
                #uses
            }
        };
    }
    let (bindings, keep_mut, idents) = out_of_level(carried.iter().map(|c| (&c.ident, c.mutable)));
    if let ([binding], [ident], None, [one]) = (&*bindings, &*idents, branch, carried) {
        let take = step::take(one.slot);
        // One local: itself, not a tuple of one, which the compiler would build and take
        // apart again at every level.
        return quote! {
            #[allow(unused_mut)]
            let #binding = if #here {
                #take
            } else {
                #inner
                #(#before)*
                #uses
                #(#keep_mut)*
                #ident
            };
        };
    }
    let takes = takes(carried);
    quote! {
        #[allow(unused_mut)]
        let (#(#bindings,)* #then) = if #here {
            (#(#takes,)* #resumed)
        } else {
            #inner
            #(#before)*
            #uses
            #cond
            #(#keep_mut)*
            (#(#idents,)* #then)
        };
    }
}

/// The level of the questions inside statement `k`, the last of `upto`: the locals `live` the
/// statements after it need, out of `inner` and `upto` run from the start or out of the resume
/// arm of the point the state names; or, when `live` is `None`, the body's value.
pub(super) fn within_level(
    inner: TokenStream,
    upto: &[&Stmt],
    live: Option<&[Binding]>,
    points: &Within,
    reader: &Ident,
    uses: &TokenStream,
) -> TokenStream {
    let numbers: Vec<u32> = (points.arms.iter())
        .flat_map(|(numbers, _)| numbers.iter().copied())
        .collect();
    let resumed = resumed_arms(points, reader);
    let here = step::at(reader, &numbers);
    let Some(live) = live.filter(|live| !live.is_empty()) else {
        // The body's value, or nothing brought out.
        return quote! {
            if !(#here) {
                #inner
                #(#upto)*
            } else {
                #resumed
            }
        };
    };
    let (bindings, keep_mut, idents) =
        out_of_level(live.iter().map(|binding| (&binding.ident, binding.mutable)));
    quote! {
        #[allow(unused_mut)]
        let (#(#bindings,)*) = if !(#here) {
            #inner
            #(#upto)*
            #uses
            #(#keep_mut)*
            (#(#idents,)*)
        } else {
            #resumed
        };
    }
}

/// The arms of the points inside one statement, for a state whose point is one of theirs:
/// the one arm, or a `match` on the point.
pub(super) fn resumed_arms(points: &Within, reader: &Ident) -> TokenStream {
    let last = points.arms.len().saturating_sub(1);
    let arms = points.arms.iter().enumerate().map(|(i, (numbers, arm))| {
        // The state's point is one of the level's numbers here, so the last arm takes
        // whatever the others do not.
        let pattern = if i == last {
            quote!(_)
        } else {
            quote!(::core::option::Option::Some(#(#numbers)|*))
        };
        // A resumed copy of the statement: its lints are the start's (the statement as
        // written) again, plus what splicing adds (a label whose `break` came before the
        // question), so they are silenced here and only here.
        quote! {
            #[allow(clippy::all, clippy::pedantic, unreachable_code, unused_braces, unused_labels)]
            #pattern => { #arm }
        }
    });
    match points.arms.as_slice() {
        [(_, arm)] => quote! {
            #[allow(clippy::all, clippy::pedantic, unreachable_code, unused_braces, unused_labels)]
            { #arm }
        },
        _ => quote! {
            match #reader.point() {
                #(#arms,)*
            }
        },
    }
}

/// For the locals a level brings out: their bindings after it, the borrows that keep a `mut`
/// declaration's `mut` in use (the local moves into the tuple unchanged, and is mutated, if
/// at all, through its rebinding), and their names.
pub(super) fn out_of_level<'a>(
    locals: impl Iterator<Item = (&'a Ident, bool)>,
) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<&'a Ident>) {
    let mut bindings = Vec::new();
    let mut keep_mut = Vec::new();
    let mut idents = Vec::new();
    for (ident, mutable) in locals {
        if mutable {
            bindings.push(quote!(mut #ident));
            keep_mut.push(quote!(let _ = &mut #ident;));
        } else {
            bindings.push(quote!(#ident));
        }
        idents.push(ident);
    }
    (bindings, keep_mut, idents)
}
