//! What the whole function tells of each name, found once (by `hoist::Hoisted::of`) and read
//! by every later stage: which locals are constants declared again where the flow resumes,
//! which are bound once, never changed, or bound to a stable borrow, and which is the
//! context.

use std::collections::HashMap;

use syn::{Expr, Local, Pat, Stmt};

use super::{free, literals};
use crate::flow::lower::bindings::{BindingKind, Bindings};
use crate::flow::lower::items;
use crate::flow::syntax::literal;

/// What a handler's blocks may declare again where the flow resumes.
pub(crate) struct Hoisted {
    /// The locals bound once in the whole function, by a `let` of a literal without `mut`.
    pub(super) constants: Vec<String>,
    /// Each name bound in the whole function (parameters and locals alike): how often, and
    /// whether ever `mut`.
    pub(super) bindings: HashMap<String, Bound>,
    /// The locals bound once in the whole function, without `mut`, to a stable borrow (see
    /// `reborrow::stable`): matched again, they give the same borrows.
    pub(super) borrowing: Vec<String>,
    /// The context parameter's name: what its accessors give (see
    /// `reborrow::CONTEXT_ACCESSORS`) is had again, never carried.
    pub(super) context: String,
}

#[derive(Default)]
pub(super) struct Bound {
    pub(super) count: usize,
    pub(super) mutable: bool,
}

impl Hoisted {
    /// Whether `init` chooses between string literals by reading a local
    /// (`match opened { Ok(()) => "opened", Err(_) => "not opened" }`): what it gives travels
    /// as the index of its literal (see `literals`), rather than being chosen again from what
    /// it read, which would travel in its place. A choice made by the parameters alone, had
    /// again each round, is made again.
    pub(crate) fn literal_choice(&self, init: &Expr, bindings: &Bindings) -> bool {
        let lookup = free::Lookup {
            questions: &HashMap::new(),
            bindings,
        };
        let parameter = |id| {
            bindings
                .get(id)
                .is_some_and(|binding| binding.kind == BindingKind::Parameter)
        };
        literals::only_literals(init)
            && !free::free_in_stmts(&[syn::parse_quote!(let _ = #init;)], lookup)
                .into_iter()
                .all(parameter)
    }

    /// Whether `name` is a local bound once, without `mut`, to a stable borrow.
    pub(crate) fn borrowing(&self, name: &str) -> bool {
        self.borrowing.iter().any(|local| local == name)
    }

    /// Whether `name` names the context, bound once in the function.
    pub(crate) fn is_context(&self, name: &str) -> bool {
        self.context == name && self.bound_once(name)
    }

    /// Whether `name` is bound once in the whole function, as a parameter or a local: where
    /// it is named, it names that one binding.
    pub(crate) fn bound_once(&self, name: &str) -> bool {
        self.bindings
            .get(name)
            .is_some_and(|bound| bound.count == 1)
    }

    /// Whether `name`, where the function names it, always has the same value: it is bound
    /// nowhere in the function (an item), or once and without `mut`.
    pub(crate) fn unchanging(&self, name: &str) -> bool {
        self.bindings
            .get(name)
            .is_none_or(|bound| bound.count == 1 && !bound.mutable)
    }

    /// Whether `stmt` is declared again where the flow resumes, rather than carried: an item
    /// (`use`, `const`, `fn`, `struct`, `macro_rules!`) or a constant local.
    pub(crate) fn holds(&self, stmt: &Stmt) -> bool {
        match stmt {
            _ if items::is_lifted(stmt) => false,
            Stmt::Item(_) => true,
            Stmt::Macro(mac) => mac.mac.path.is_ident("macro_rules"),
            Stmt::Local(local) => {
                constant(local).is_some_and(|name| self.constants.contains(&name))
            }
            Stmt::Expr(..) => false,
        }
    }
}

/// The name `local` binds, if it binds one name without `mut` to a literal.
pub(super) fn constant(local: &Local) -> Option<String> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || !literal(&init.expr) {
        return None;
    }
    single(local)
}

/// The name `local` binds, if it binds one name, by value and without `mut`.
pub(super) fn single(local: &Local) -> Option<String> {
    let pat = match &local.pat {
        Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    match pat {
        Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => {
            Some(p.ident.to_string())
        }
        _ => None,
    }
}
