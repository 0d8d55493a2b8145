//! What the whole function tells of each binding, found once (by `hoist::Hoisted::of`) and
//! read by every later stage, by binding id: which are bound once, never changed, or bound
//! to a stable borrow, which is the context, and which locals are constants declared again
//! where the flow resumes.

use std::collections::HashMap;

use syn::{Expr, Ident, Local, Pat, Stmt};

use super::{free, literals};
use crate::flow::lower::bindings::{BindingId, BindingKind, Bindings};
use crate::flow::lower::items;
use crate::flow::syntax::literal;

/// What a handler's blocks may declare again where the flow resumes.
pub(crate) struct Hoisted {
    /// The locals whose name the whole function binds only by `let`s of a literal without
    /// `mut`, one to a block.
    pub(super) constants: Vec<BindingId>,
    /// Each binding of the whole function (parameters and locals alike), by id: how often
    /// the function binds its name, and whether ever `mut`.
    pub(super) bindings: HashMap<BindingId, Bound>,
    /// The locals bound once in the whole function, without `mut`, to a stable borrow (see
    /// `reborrow::stable`): matched again, they give the same borrows.
    pub(super) borrowing: Vec<BindingId>,
    /// The context parameter, if the function binds its name once: what its accessors give
    /// (see `reborrow::CONTEXT_ACCESSORS`) is had again, never carried.
    pub(super) context: Option<BindingId>,
}

/// How often a function binds a name, and whether ever `mut`.
#[derive(Clone, Copy, Default)]
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

    /// Whether binding `id` is a local bound once, without `mut`, to a stable borrow.
    pub(crate) fn borrowing(&self, id: BindingId) -> bool {
        self.borrowing.contains(&id)
    }

    /// Whether binding `id` is the context, its name bound once in the function.
    pub(crate) fn is_context(&self, id: BindingId) -> bool {
        self.context == Some(id)
    }

    /// Whether binding `id` has a name the whole function binds once, as a parameter or a
    /// local: where the name is written, it names that one binding.
    pub(crate) fn bound_once(&self, id: BindingId) -> bool {
        self.bindings.get(&id).is_some_and(|bound| bound.count == 1)
    }

    /// Whether binding `id`, where the function names it, always has the same value: it is
    /// no binding of the function (an item), or its name is bound once, without `mut`.
    pub(crate) fn unchanging(&self, id: BindingId) -> bool {
        self.bindings
            .get(&id)
            .is_none_or(|bound| bound.count == 1 && !bound.mutable)
    }

    /// Whether `stmt` is declared again where the flow resumes, rather than carried: an item
    /// (`use`, `const`, `fn`, `struct`, `macro_rules!`) or a constant local (its binding
    /// found in `bindings`).
    pub(crate) fn holds(&self, stmt: &Stmt, bindings: &Bindings) -> bool {
        match stmt {
            _ if items::is_lifted(stmt) => false,
            Stmt::Item(_) => true,
            Stmt::Macro(mac) => mac.mac.path.is_ident("macro_rules"),
            Stmt::Local(local) => {
                constant(local).is_some_and(|name| self.constants.contains(&bindings.id(name)))
            }
            Stmt::Expr(..) => false,
        }
    }
}

/// The name `local` binds, if it binds one name without `mut` to a literal.
pub(super) fn constant(local: &Local) -> Option<&Ident> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || !literal(&init.expr) {
        return None;
    }
    single(local)
}

/// The name `local` binds, if it binds one name, by value and without `mut`.
pub(super) fn single(local: &Local) -> Option<&Ident> {
    let pat = match &local.pat {
        Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    match pat {
        Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => {
            Some(&p.ident)
        }
        _ => None,
    }
}
