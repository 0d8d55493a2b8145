//! Bindings: the locals a pattern or a `let` introduces, and what the macro can tell of them
//! (a borrow, code, how the flow has them again). Free variables are `free`'s.

use syn::visit::Visit;
use syn::visit_mut::{self as visit_mut, VisitMut};
use syn::{Expr, Ident, Local, Pat, Type};

use super::std_facts::{ADAPTS, ITERATES, ITERATES_MUT, LENDS, LENDS_MUT, method_is};

/// A local introduced by a pattern.
#[derive(Clone)]
pub(crate) struct Binding {
    pub(crate) ident: Ident,
    pub(crate) mutable: bool,
    pub(crate) by_ref: bool,
    /// The type written for it, if any.
    pub(crate) ty: Option<Type>,
    /// For `let` bindings: the initialiser is plainly a borrow, if it is one.
    pub(crate) init_borrow: Option<Borrowed>,
    /// For `let` bindings: the initialiser is code, which no state can hold.
    pub(crate) init_is_code: Option<Code>,
    /// How the local is had again where the flow resumes, if it is not carried.
    pub(crate) rederive: Option<Rederive>,
}

/// Code a `let` binds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    Closure,
    Async,
}

/// How a local is had again where the flow resumes, rather than carried.
#[derive(Clone)]
pub(crate) enum Rederive {
    /// The iterator of the resumable `for` loop `n`, rebuilt from its position.
    Loop(usize),
    /// A borrow of a place: its `let` statement runs again (see `reborrow`).
    Borrow(Box<Local>),
    /// A local declared without a value (`let label;`) that may still have none at the
    /// question: whatever comes after assigns it before reading it, or the function would not
    /// compile, so it is declared again, without a value.
    Unassigned,
}

/// Every binding of `pat`, with the types written in it where they can be matched up.
pub(crate) fn pattern_bindings(pat: &Pat, ty: Option<&Type>, out: &mut Vec<Binding>) {
    match pat {
        Pat::Ident(p) => {
            out.push(Binding {
                ident: p.ident.clone(),
                mutable: p.mutability.is_some(),
                by_ref: p.by_ref.is_some(),
                ty: ty.cloned(),
                init_borrow: None,
                init_is_code: None,
                rederive: None,
            });
            if let Some((_, sub)) = &p.subpat {
                pattern_bindings(sub, None, out);
            }
        }
        Pat::Type(p) => pattern_bindings(&p.pat, Some(&p.ty), out),
        Pat::Tuple(p) => {
            let types = match ty {
                Some(Type::Tuple(t)) if t.elems.len() == p.elems.len() => {
                    t.elems.iter().map(Some).collect()
                }
                _ => vec![None; p.elems.len()],
            };
            for (elem, ty) in p.elems.iter().zip(types) {
                pattern_bindings(elem, ty, out);
            }
        }
        Pat::TupleStruct(p) => p.elems.iter().for_each(|e| pattern_bindings(e, None, out)),
        Pat::Struct(p) => p
            .fields
            .iter()
            .for_each(|f| pattern_bindings(&f.pat, None, out)),
        Pat::Slice(p) => p.elems.iter().for_each(|e| pattern_bindings(e, None, out)),
        Pat::Reference(p) => pattern_bindings(&p.pat, None, out),
        Pat::Paren(p) => pattern_bindings(&p.pat, ty, out),
        Pat::Guard(p) => pattern_bindings(&p.pat, ty, out),
        // Every alternative binds the same names.
        Pat::Or(p) => {
            if let Some(first) = p.cases.first() {
                pattern_bindings(first, None, out);
            }
        }
        _ => {}
    }
}

/// Whether `call` is of one of `std`'s methods that lend from their receiver (see
/// `std_facts`: [`LENDS`], [`ITERATES`], [`LENDS_MUT`]). A `for` loop over a chain that
/// starts with one on a local can evaluate it again on resume: the borrow it holds for the
/// whole loop keeps the local unchanged.
pub(crate) fn lends(call: &syn::ExprMethodCall) -> bool {
    method_is(&call.method.to_string(), LENDS | ITERATES | LENDS_MUT)
}

/// Whether `method` is one of `std`'s methods that lend from their receiver by a shared
/// borrow ([`LENDS`], [`ITERATES`]).
pub(crate) fn lends_shared(method: &str) -> bool {
    method_is(&method, LENDS | ITERATES)
}

/// What a `let`'s initialiser plainly borrows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Borrowed {
    /// A value: `&x`, or a call that lends from its receiver ([`lends`]).
    Value,
    /// An iterator over its receiver's items: a lending call that iterates
    /// (`items.iter()`, `line.split(',')`), or an adapter on one.
    Iterator,
}

/// Whether `expr` is plainly a borrow, and of what. The compiler catches every other borrow
/// at the local's slot, in its own words.
fn borrowed(expr: &Expr) -> Option<Borrowed> {
    match expr {
        Expr::Reference(_) => Some(Borrowed::Value),
        Expr::MethodCall(call) if method_is(&call.method.to_string(), ITERATES | ITERATES_MUT) => {
            Some(Borrowed::Iterator)
        }
        Expr::MethodCall(call) if lends(call) => Some(Borrowed::Value),
        // An adapter on an iterator that borrows (`items.iter().map(..)`) is one too; what
        // consumes it (`sum`, `count`, `next`, `collect`) gives a value of its own.
        Expr::MethodCall(call) if method_is(&call.method.to_string(), ADAPTS) => {
            (borrowed(&call.receiver) == Some(Borrowed::Iterator)).then_some(Borrowed::Iterator)
        }
        Expr::Paren(inner) => borrowed(&inner.expr),
        _ => None,
    }
}

/// Whether `ty` holds a borrow anywhere: a reference or a lifetime (`&str`, `Vec<&str>`,
/// `Cow<'a, str>`, `&'static str`, which deserialises only from a borrowed input), but not a
/// `'static` lifetime alone (`Cow<'static, str>`, which deserialises owned).
pub(crate) fn holds_borrow(ty: &Type) -> bool {
    finds_borrow(ty, false)
}

/// Whether `ty` holds a borrow that does not last as long as the program: a reference or a
/// lifetime other than `'static` (`&str`, `Cow<'a, str>`; not `&'static str`). A sub-flow's
/// argument may be `'static`: it is given again each round, never carried.
pub(crate) fn holds_passing_borrow(ty: &Type) -> bool {
    finds_borrow(ty, true)
}

/// Whether `ty` holds a lifetime other than `'static`, or a reference (but for a `'static`
/// one where `static_references` pass).
fn finds_borrow(ty: &Type, static_references: bool) -> bool {
    struct Finder {
        static_references: bool,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            let lasting = reference
                .lifetime
                .as_ref()
                .is_some_and(|lifetime| lifetime.ident == "static");
            self.found |= !(self.static_references && lasting);
            syn::visit::visit_type_reference(self, reference);
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            self.found |= lifetime.ident != "static";
        }
    }
    let mut finder = Finder {
        static_references,
        found: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// The owned type to write for the borrowed type `ty`, where there is an obvious one: every
/// `&str` made a `String`, every `&[T]` a `Vec<T>` and every other `&T` a `T`
/// (`Vec<&str>` → `Vec<String>`); `None` where a named lifetime remains.
pub(crate) fn owned_for(ty: &Type) -> Option<String> {
    struct Owned;
    impl VisitMut for Owned {
        fn visit_type_mut(&mut self, ty: &mut Type) {
            if let Type::Reference(reference) = ty {
                let elem = &*reference.elem;
                *ty = match elem {
                    Type::Path(path) if path.path.is_ident("str") => {
                        syn::parse_quote!(String)
                    }
                    Type::Slice(slice) => {
                        let elem = &slice.elem;
                        syn::parse_quote!(Vec<#elem>)
                    }
                    other => other.clone(),
                };
            }
            visit_mut::visit_type_mut(self, ty);
        }
    }
    let mut owned = ty.clone();
    Owned.visit_type_mut(&mut owned);
    (!holds_borrow(&owned)).then(|| quote::quote!(#owned).to_string().replace(' ', ""))
}

/// The bindings of a `let` statement, marked as such.
pub(crate) fn let_bindings(local: &Local) -> Vec<Binding> {
    let mut out = Vec::new();
    pattern_bindings(&local.pat, None, &mut out);
    let borrow = local.init.as_ref().and_then(|init| borrowed(&init.expr));
    let code = local.init.as_ref().and_then(|init| match &*init.expr {
        Expr::Closure(_) => Some(Code::Closure),
        Expr::Async(_) => Some(Code::Async),
        _ => None,
    });
    for binding in &mut out {
        binding.init_borrow = borrow;
        binding.init_is_code = code;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{holds_borrow, holds_passing_borrow};

    #[test]
    fn a_sub_flows_argument_may_borrow_for_static() {
        let passing = |ty: &str| holds_passing_borrow(&syn::parse_str(ty).expect("a type"));
        for ty in [
            "&str",
            "&'a str",
            "Vec<&str>",
            "&'static Cow<'a, str>",
            "Cow<'_, str>",
        ] {
            assert!(passing(ty), "{ty}");
        }
        for ty in [
            "String",
            "&'static str",
            "&'static [&'static str]",
            "Cow<'static, str>",
        ] {
            assert!(!passing(ty), "{ty}");
        }
    }

    #[test]
    fn a_static_lifetime_alone_is_no_borrow_but_a_static_reference_is() {
        let borrow = |ty: &str| holds_borrow(&syn::parse_str(ty).expect("a type"));
        for ty in [
            "&str",
            "&'static str",
            "Vec<&str>",
            "Cow<'_, str>",
            "Cow<'a, str>",
        ] {
            assert!(borrow(ty), "{ty}");
        }
        for ty in ["String", "Cow<'static, str>", "Vec<Cow<'static, [u8]>>"] {
            assert!(!borrow(ty), "{ty}");
        }
    }
}
