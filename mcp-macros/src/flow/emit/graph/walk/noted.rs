//! What the walk notes of the types a `let` gives, for the graph's questions and loops.

use syn::{Expr, Pat};

use super::{Walk, marker, unparen};

impl Walk<'_> {
    /// What a `let` tells of types: the local's type as written, the answer's type where
    /// it binds a point's answer, the collection of a rewritten `for` loop.
    pub(super) fn note_type(&mut self, pat: &Pat, init: Option<&Expr>) {
        if let (Pat::Ident(binding), Some(init)) = (pat, init) {
            let name = binding.ident.to_string();
            if let Some(collection) = loop_collection(&name, init) {
                self.collections.insert(name, collection.clone());
            }
        }
        let Pat::Type(typed) = pat else { return };
        if let Pat::Ident(binding) = &*typed.pat {
            let types = self.local_types.entry(binding.ident.to_string());
            types.or_default().push((*typed.ty).clone());
        }
        match init.map(unparen) {
            Some(Expr::Try(tried)) => {
                if let Some(id) = marker(&tried.expr) {
                    self.answer_types.insert(id, (*typed.ty).clone());
                }
            }
            // `let x: Result<T, Refusal> = <point>;`
            Some(expr) => {
                if let (Some(id), Some(ty)) = (marker(expr), first_argument(&typed.ty)) {
                    self.answer_types.insert(id, ty.clone());
                }
            }
            None => {}
        }
    }
}

/// `T` of `Result<T, E>` (or of any type with arguments).
fn first_argument(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    arguments.args.iter().find_map(|argument| match argument {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

/// The collection a rewritten `for` loop iterates, from the `let` of its walker `name`:
/// `__mcp_iter_N = Rewind::rewind(&(EXPR), ..)` or `__mcp_items_N = collect(into_iter(EXPR))`.
fn loop_collection<'e>(name: &str, init: &'e Expr) -> Option<&'e Expr> {
    let Expr::Call(call) = init else { return None };
    let first = call.args.first()?;
    if name.starts_with("__mcp_iter_") {
        let Expr::Reference(borrow) = first else {
            return None;
        };
        return Some(unparen(&borrow.expr));
    }
    if name.starts_with("__mcp_items_") {
        let Expr::Call(into_iter) = first else {
            return None;
        };
        return into_iter.args.first();
    }
    None
}
