//! What the walk notes of the types a `let` gives, for the graph's questions and loops.

use syn::{Expr, Pat};

use super::{Walk, marker, unparen};

impl Walk<'_> {
    /// What a `let` tells of types: the local's type as written, and the answer's type where
    /// it binds a point's answer.
    pub(super) fn note_type(&mut self, pat: &Pat, init: Option<&Expr>) {
        let Pat::Type(typed) = pat else { return };
        if let Pat::Ident(binding) = &*typed.pat {
            let id = self.source().bindings.id(&binding.ident);
            self.local_types.insert(id, (*typed.ty).clone());
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
