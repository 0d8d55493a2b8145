//! A carried local hidden at its question by a `let` of the same name further down the path:
//! the state written at the question cannot name it there, so the hiding `let` borrows it
//! first, and the state is written from that borrow.
//!
//! Input, where `base` is used after the block and so travels across the question:
//! ```text
//! let base = args.start;
//! { let base = base + 10; let go: Yes = __mcp_site!().0?; .. }
//! use(base)
//! ```
//! Output: the hiding `let` binds the borrow beside its own pattern, its value evaluated
//! first, and the question's state is written from the borrow:
//! ```text
//! { let (base, __mcp_hid0) = (base + 10, &base); let go: Yes = __mcp_site!().0?; .. }
//! ```
//! Where the flow resumes past the hiding `let`, the borrow is taken again at the top of its
//! block, before the block's restored locals hide the name again (`Resumer::block`). The
//! borrow lives from the `let` to the question, while nothing can name what it borrows.

use std::collections::HashMap;

use proc_macro2::Span;
use quote::format_ident;
use syn::{Block, Ident, Stmt};

use super::Binding;
use super::syntax::block_at;
use crate::flow::sites::{Head, Site, Step};

/// Rewrites the hiding `let`s of `hidden` (each with a name it hides) in `body` to borrow
/// what they hide, and the paths of the points inside their values to match. Returns the
/// borrows, by statement.
pub(crate) fn hide(body: &mut Block, sites: &mut [Site], hidden: &[(Location, Ident)]) -> Aliases {
    let mut by_stmt: HashMap<Location, Vec<Ident>> = HashMap::new();
    for (at, ident) in hidden {
        let names = by_stmt.entry(at.clone()).or_default();
        if !names.iter().any(|name| name == ident) {
            names.push(ident.clone());
        }
    }
    let mut aliases = Aliases::new();
    for (n, (at, names)) in by_stmt.into_iter().enumerate() {
        let Some(Stmt::Local(local)) =
            block_at(body, &at.block).and_then(|block| block.stmts.get_mut(at.stmt))
        else {
            continue;
        };
        let written = local.clone();
        let Some(init) = &mut local.init else {
            continue;
        };
        let borrows: Vec<(Ident, Ident)> = names
            .into_iter()
            .enumerate()
            .map(|(k, name)| {
                (
                    name,
                    format_ident!("__mcp_hid{n}_{k}", span = Span::mixed_site()),
                )
            })
            .collect();
        let alias_idents = borrows.iter().map(|(_, alias)| alias);
        let hidden_names = borrows.iter().map(|(name, _)| name);
        let value = &init.expr;
        *init.expr = syn::parse_quote!((#value, #(&#hidden_names),*));
        local.pat = match &local.pat {
            syn::Pat::Type(typed) => {
                let (pat, ty) = (&typed.pat, &typed.ty);
                let holes = borrows.iter().map(|_| quote::quote!(&_));
                syn::Pat::Type(syn::PatType {
                    pat: Box::new(syn::parse_quote!((#pat, #(#alias_idents),*))),
                    ty: Box::new(syn::parse_quote!((#ty, #(#holes),*))),
                    ..typed.clone()
                })
            }
            pat => syn::parse_quote!((#pat, #(#alias_idents),*)),
        };
        // The points inside the value now sit in the tuple's first element.
        let mut init_path = at.block.clone();
        init_path.extend([Step::Stmt(at.stmt), Step::LocalInit]);
        for site in sites.iter_mut() {
            if site.path.starts_with(&init_path) {
                site.path
                    .insert(init_path.len(), Step::Head(Head::TupleFirst));
            }
        }
        aliases.insert(at.clone(), Hiding { borrows, written });
    }
    aliases
}

/// A statement of the body: statement `stmt` of the block at the end of path `block`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Location {
    pub(crate) block: Vec<Step>,
    pub(crate) stmt: usize,
}

/// The hiding `let` statements rewritten to borrow what they hide (see `hidden`).
pub(crate) type Aliases = HashMap<Location, Hiding>;

/// A hiding `let` rewritten to borrow what it hides.
pub(crate) struct Hiding {
    /// The names it hides, each with its borrow.
    pub(crate) borrows: Vec<(Ident, Ident)>,
    /// The `let` as written: what it declares, and how it is had again where it is not
    /// carried.
    pub(crate) written: syn::Local,
}

/// A local declared down a point's path, before its question, and the scope it is declared
/// in; where it is declared by a `let` with a value, that statement.
pub(super) struct Hider {
    pub(super) level: usize,
    pub(super) ident: Ident,
    pub(super) at: Option<Location>,
}

impl Hider {
    pub(super) fn pattern(level: usize, binding: &Binding) -> Self {
        Self {
            level,
            ident: binding.ident.clone(),
            at: None,
        }
    }
}
