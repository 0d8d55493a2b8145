//! The body from the start, resumable at the questions that stand in its own statements: so
//! that a run of straight-line questions costs code in proportion to its length, not to its
//! square (a resume arm of its own repeats the rest of the body after its question).
//!
//! Input (questions 1 and 2 in statements `i` and `j` of the body, `a` live at `i`, `a` and
//! `b` at `j`):
//! ```text
//! { S0 .. Si-1; let x = __mcp_site!(1)?; Si+1 .. Sj-1; let y = __mcp_site!(2)?; Sj+1 .. }
//! ```
//! Output: each question's statement is preceded by the locals it needs, either restored
//! from its state or computed by running the statements before it, which nest the same way:
//! ```text
//! { ITEMS
//!   let (a, b) = if reader.at(2) {
//!       (reader.take(&slot_a).await, reader.take(&slot_b).await)
//!   } else {
//!       let (a,) = if reader.at(1) {
//!           (reader.take(&slot_a).await,)
//!       } else {
//!           S0 .. Si-1; let _ = &mut a /* if `mut` */; (a,)
//!       };
//!       let x = __mcp_site!(1)?; Si+1 .. Sj-1;
//!       (a, b)
//!   };
//!   let y = __mcp_site!(2)?; Sj+1 .. }
//! ```
//! A level that brings nothing along is `if !reader.at(N) { .. }`. The restored values come
//! first: their types are inference variables there, which the branch that computes them
//! settles, and nothing is done with them before it does.
//! Every statement appears once. The body's items and constant locals (see `hoist`) move to
//! its top, where they are visible from every level as they were from every statement.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Block, Ident, Stmt};

use super::hoist::Hoisted;
use super::resume::Resumed;
use super::settle::slot;

/// A question point in a statement of the body itself.
pub(crate) struct Straight {
    /// Its statement in the body.
    pub(crate) stmt: usize,
    /// Its question point.
    pub(crate) site: usize,
}

/// The body, resumable at `points` (in statement order), for the step function's opened
/// state `reader`.
pub(crate) fn nest(
    body: &Block,
    points: &[Straight],
    resumed: &[Resumed],
    hoisted: &Hoisted,
    reader: &Ident,
) -> Block {
    let items: Vec<&Stmt> = body
        .stmts
        .iter()
        .filter(|stmt| hoisted.holds(stmt))
        .collect();
    let code = |range: std::ops::Range<usize>| -> Vec<&Stmt> {
        body.stmts[range]
            .iter()
            .filter(|stmt| !hoisted.holds(stmt))
            .collect()
    };
    let mut start = 0;
    let mut inner: TokenStream = TokenStream::new();
    for point in points {
        let before = code(start..point.stmt);
        let carried = &resumed[point.site].carried;
        let idents: Vec<&Ident> = carried.iter().map(|c| &c.ident).collect();
        let takes = carried.iter().map(|c| {
            let slot = slot(c.slot);
            quote!(#reader.take(&#slot).await)
        });
        let bindings = carried.iter().map(|c| {
            let ident = &c.ident;
            if c.mutable {
                quote!(mut #ident)
            } else {
                quote!(#ident)
            }
        });
        // A `mut` local moves into the tuple unchanged and is mutated, if at all, through
        // its rebinding: the borrow keeps its declaration's `mut` in use, as it was.
        let keep_mut = carried.iter().filter(|c| c.mutable).map(|c| {
            let ident = &c.ident;
            quote!(let _ = &mut #ident;)
        });
        let point_id = u32::try_from(point.site).unwrap_or(u32::MAX);
        if carried.is_empty() {
            // Nothing to bring along: the statements before run unless resuming here.
            if inner.is_empty() && before.is_empty() {
                start = point.stmt;
                continue;
            }
            inner = quote! {
                if !#reader.at(#point_id) {
                    #inner
                    #(#before)*
                }
            };
            start = point.stmt;
            continue;
        }
        inner = quote! {
            #[allow(unused_mut)]
            let (#(#bindings,)*) = if #reader.at(#point_id) {
                (#(#takes,)*)
            } else {
                #inner
                #(#before)*
                #(#keep_mut)*
                (#(#idents,)*)
            };
        };
        start = point.stmt;
    }
    let after = code(start..body.stmts.len());
    syn::parse_quote!({
        #(#items)*
        #inner
        #(#after)*
    })
}
