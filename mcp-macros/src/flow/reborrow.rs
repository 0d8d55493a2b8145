//! Borrows taken again where a flow resumes, rather than carried.
//!
//! A borrow cannot cross a question, but the place it borrows from can: while the borrow
//! lives the place cannot change, so the same expression evaluated again on resume borrows
//! the same thing. That is how `let name = args.name.trim();`, `if let Some(name) =
//! &args.name` and `match args.items.first() { Some(first) => .. }` cross a question: the
//! `let` runs again, or the pattern is matched again, against the place.
//!
//! Input, resumed at a question inside the arm:
//! `match args.items.first() { Some(first) => { let ok: Yes = __mcp_site!(0)?; use(first, ok) } None => .. }`
//! Output:
//! `{ let Some(first) = args.items.first() else { match reader.no_longer_matches().await {} }; { let ok: Yes = __mcp_site!(0)?; use(first, ok) } }`

use syn::{Expr, Ident, Local};

use super::hoist::literal;
use super::scope::{self, Binding};

/// Methods of `std` that hand on a part of what their receiver borrows, given literal
/// arguments (`items.first()`, `map.get("key")`, `name.as_deref().unwrap_or("anon")`).
const PASSING: &[&str] = &[
    "first",
    "last",
    "get",
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
];

/// Whether `expr` borrows from a place rooted at a local `root` accepts, and gives the same
/// borrow however often it is evaluated while that borrow lives: `&place`, a chain of
/// `std`'s lending methods ([`scope::lends`]) and [`PASSING`] ones with literal arguments on
/// a place, or a tuple of those. A place is a local, its fields, and its elements at literal
/// indices.
pub(crate) fn stable(expr: &Expr, root: &dyn Fn(&Ident) -> bool) -> bool {
    match expr {
        Expr::Reference(reference) => place(&reference.expr, root),
        Expr::MethodCall(call) => {
            (scope::lends(call) || PASSING.iter().any(|name| call.method == name))
                && call.turbofish.is_none()
                && call.args.iter().all(literal)
                && (place(&call.receiver, root) || stable(&call.receiver, root))
        }
        Expr::Tuple(tuple) => {
            !tuple.elems.is_empty() && tuple.elems.iter().all(|elem| stable(elem, root))
        }
        Expr::Paren(inner) => stable(&inner.expr, root),
        Expr::Group(inner) => stable(&inner.expr, root),
        _ => false,
    }
}

fn place(expr: &Expr, root: &dyn Fn(&Ident) -> bool) -> bool {
    match expr {
        Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some_and(root),
        Expr::Field(field) => place(&field.base, root),
        Expr::Index(index) => literal(&index.index) && place(&index.expr, root),
        Expr::Paren(inner) => place(&inner.expr, root),
        _ => false,
    }
}

/// Whether the bindings of a pattern matched against a stable borrow may be had by matching
/// it again: none is `mut`, which a copy changed before the question would make differ.
pub(crate) fn bindings_rematch(bindings: &[Binding]) -> bool {
    bindings.iter().all(|binding| !binding.mutable)
}

/// Whether the `let` statement `local` is run again where the flow resumes, rather than its
/// locals carried: it binds without `mut` a stable borrow of a place whose root local is
/// bound once in the function (`once`), so that no other binding of that name can stand
/// between the statement and where it runs again.
pub(crate) fn again(local: &Local, once: &dyn Fn(&Ident) -> bool) -> bool {
    let Some(init) = &local.init else {
        return false;
    };
    let mut bindings = Vec::new();
    scope::pattern_bindings(&local.pat, None, &mut bindings);
    !bindings.is_empty()
        && bindings_rematch(&bindings)
        && bindings.iter().all(|binding| !binding.by_ref)
        && stable(&init.expr, once)
}
