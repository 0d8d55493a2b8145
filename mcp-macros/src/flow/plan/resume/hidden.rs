//! A carried local hidden at its question by a `let` or a pattern binding of the same name
//! further down the path: the state written at the question cannot name it there, so it is
//! borrowed just before the hider, and the state is written from that borrow.
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
//! { let (base, __mcp_hid0_0) = (base + 10, &base); let go: Yes = __mcp_site!().0?; .. }
//! ```
//! A pattern (of an `if let`, a `while let`, a `match` arm, a `for` variable) borrows in a
//! block wrapped around its construct, which must not use the hidden local other than as
//! `&name`:
//! ```text
//! { let (__mcp_hid1_0,) = (&name,); if let Some(name) = &name { __mcp_site!().1 .. } }
//! ```
//! unless it is an `if let` or a `match` that takes a value out of it, evaluated first:
//! ```text
//! { let s = item.take(); let (__mcp_hid1_0,) = (&item,); if let Some(item) = s { .. } }
//! ```
//! Where the flow resumes past the hider, the borrow is taken again at the top of its
//! block, before the block's restored locals hide the name again (`Resumer::block`). The
//! borrow lives from the `let` to the question, while nothing can name what it borrows.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::{Block, Expr, Ident, Stmt};

use super::Binding;
use super::syntax::block_at;
use super::travel::named_unshared;
use crate::flow::analyse::point::Location;
use crate::flow::check::sites::{Head, Site, Step};
use crate::flow::lower::bindings::Bindings;

/// Rewrites the hiders of `hidden` (each with a name it hides) in `body` to borrow what they
/// hide first, and the paths of the points inside them to match. Returns the borrows, by
/// hider.
pub(crate) fn hide(
    body: &mut Block,
    sites: &mut [Site],
    hidden: &[(Location, Ident)],
    bindings: &Bindings,
) -> Aliases {
    let mut pending: Vec<(Location, Vec<Ident>)> = Vec::new();
    for (at, ident) in hidden {
        let id = bindings.id(ident);
        match pending.iter_mut().find(|(other, _)| other == at) {
            Some((_, names)) if names.iter().any(|name| bindings.id(name) == id) => {}
            Some((_, names)) => names.push(ident.clone()),
            None => pending.push((at.clone(), vec![ident.clone()])),
        }
    }
    // Outer hiders first: rewriting one moves the paths inside it, which are longer, and
    // which the hiders still to come are told of.
    pending.sort_by_key(|(at, _)| at.depth());
    let mut aliases = Aliases::new();
    for n in 0..pending.len() {
        let (at, names) = pending[n].clone();
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
        // Where the rewrite moved what is inside the hider, the steps it put there, and the
        // `let` the borrows are taken again after, where the flow resumes past it.
        let (moved_at, steps, key, written) = match &at {
            Location::Let { block, stmt } => {
                let Some(written) = borrow_in_let(body, block, *stmt, &borrows) else {
                    continue;
                };
                // What is inside the value now sits in the tuple's first element.
                let mut init = block.clone();
                init.extend([Step::Stmt(*stmt), Step::LocalInit]);
                (
                    init,
                    vec![Step::Head(Head::Element(0))],
                    at.clone(),
                    written,
                )
            }
            Location::Construct(path) => {
                // A question in what the construct evaluates first keeps its place (and its
                // path): the construct then keeps its scrutinee.
                let asks_first = sites.iter().any(|site| {
                    site.path.starts_with(path)
                        && matches!(site.path.get(path.len()), Some(Step::Head(_)))
                });
                let Some((written, first)) =
                    borrow_before(body, path, &borrows, !asks_first, bindings)
                else {
                    continue;
                };
                // The construct is now the last statement of a block of its own, whose
                // statement before it takes the borrows, after the construct's scrutinee where
                // that goes first.
                let at = usize::from(first);
                let inside = vec![Step::BlockExpr, Step::Stmt(at + 1), Step::ExprStmt];
                let mut construct = path.clone();
                construct.extend(inside.iter().copied());
                let hiding = Hiding {
                    borrows: borrows.clone(),
                    written: written.clone(),
                };
                aliases.insert(Location::Construct(construct), hiding);
                let mut block = path.clone();
                block.push(Step::BlockExpr);
                (
                    path.clone(),
                    inside,
                    Location::Let { block, stmt: at },
                    written,
                )
            }
        };
        for site in sites.iter_mut() {
            shift(&mut site.path, &moved_at, &steps);
        }
        for (later, _) in &mut pending[n + 1..] {
            match later {
                Location::Let { block, .. } => shift(block, &moved_at, &steps),
                Location::Construct(path) => shift(path, &moved_at, &steps),
            }
        }
        aliases.insert(key, Hiding { borrows, written });
    }
    aliases
}

/// `let PAT = VALUE;` becomes `let (PAT, b1, ..) = (VALUE, &x1, ..);`. Returns the `let` as
/// written.
fn borrow_in_let(
    body: &mut Block,
    block: &[Step],
    stmt: usize,
    borrows: &[(Ident, Ident)],
) -> Option<syn::Local> {
    let Some(Stmt::Local(local)) = block_at(body, block)?.stmts.get_mut(stmt) else {
        return None;
    };
    let written = local.clone();
    let init = local.init.as_mut()?;
    let aliases = borrows.iter().map(|(_, alias)| alias);
    let hidden = borrows.iter().map(|(name, _)| name);
    let value = &init.expr;
    *init.expr = syn::parse_quote!((#value, #(&#hidden),*));
    local.pat = match &local.pat {
        syn::Pat::Type(typed) => {
            let (pat, ty) = (&typed.pat, &typed.ty);
            let holes = borrows.iter().map(|_| quote!(&_));
            syn::Pat::Type(syn::PatType {
                pat: Box::new(syn::parse_quote!((#pat, #(#aliases),*))),
                ty: Box::new(syn::parse_quote!((#ty, #(#holes),*))),
                ..typed.clone()
            })
        }
        pat => syn::parse_quote!((#pat, #(#aliases),*)),
    };
    Some(written)
}

/// The construct at `path` (an `if let`, `while let`, `match` or `for` whose patterns hide)
/// becomes `{ let (b1, ..) = (&x1, ..); CONSTRUCT }`. An `if let` or `match` whose scrutinee
/// uses a hidden local other than by a shared borrow (`item.take()`, which `travel` lets
/// through) has it evaluated first: `{ let s = SCRUTINEE; let (b1, ..) = ..; CONSTRUCT on s }`.
/// Returns that `let` of the borrows, and whether the scrutinee goes first, which it may only
/// where `may_go_first`; `bindings` tells which of the scrutinee's tokens name a hidden local.
fn borrow_before(
    body: &mut Block,
    path: &[Step],
    borrows: &[(Ident, Ident)],
    may_go_first: bool,
    bindings: &Bindings,
) -> Option<(syn::Local, bool)> {
    let construct = expr_at(body, path)?;
    let aliases = borrows.iter().map(|(_, alias)| alias);
    let hidden = borrows.iter().map(|(name, _)| name);
    let local: syn::Local = match syn::parse_quote!(let (#(#aliases,)*) = (#(&#hidden,)*);) {
        Stmt::Local(local) => local,
        _ => return None,
    };
    let mut old = std::mem::replace(construct, syn::parse_quote!(()));
    let scrutinee = match &mut old {
        Expr::If(branch) => match &mut *branch.cond {
            Expr::Let(binding) => Some(&mut binding.expr),
            _ => None,
        },
        Expr::Match(matched) => Some(&mut matched.expr),
        _ => None,
    }
    .filter(|scrutinee| {
        let tokens = scrutinee.to_token_stream();
        may_go_first && (borrows.iter()).any(|(local, _)| named_unshared(&tokens, local, bindings))
    });
    let first = match scrutinee {
        Some(scrutinee) => {
            let value = Ident::new("__mcp_scrutinee", Span::mixed_site());
            let evaluated = std::mem::replace(&mut **scrutinee, syn::parse_quote!(#value));
            Some(quote!(let #value = #evaluated;))
        }
        None => None,
    };
    let is_first = first.is_some();
    *construct = syn::parse_quote!({
        #first
        #[allow(unused_variables)]
        #local
        #old
    });
    Some((local, is_first))
}

/// Inserts `steps` into `path`, if it passes through `at`, right after it.
fn shift(path: &mut Vec<Step>, at: &[Step], steps: &[Step]) {
    if path.len() > at.len() && path.starts_with(at) {
        let rest = path.split_off(at.len());
        path.extend_from_slice(steps);
        path.extend(rest);
    }
}

/// The hiders rewritten to borrow what they hide (see `hidden`).
pub(crate) type Aliases = HashMap<Location, Hiding>;

/// A hider rewritten to borrow what it hides.
pub(crate) struct Hiding {
    /// The names it hides, each with its borrow.
    pub(crate) borrows: Vec<(Ident, Ident)>,
    /// The hiding `let` as written (or the `let` of the borrows put before a construct): what
    /// it declares, and how it is had again where it is not carried.
    pub(crate) written: syn::Local,
}

/// A local declared down a point's path, before its question, and the scope it is declared
/// in; where it is declared by a `let` with a value or by a construct's pattern, there, and
/// for a pattern, what the construct evaluates again while the pattern's locals live (its
/// scrutinee), which must not name what the pattern hides: the borrow taken before the
/// construct would stand in its way.
#[derive(Clone)]
pub(super) struct Hider {
    pub(super) level: usize,
    pub(super) ident: Ident,
    pub(super) at: Option<Location>,
    pub(super) heads: TokenStream,
    /// Whether the construct evaluates `heads` once, before its pattern binds (an `if let`
    /// of one pattern, a `match`), rather than again while its locals live.
    pub(super) once: bool,
}

impl Hider {
    /// A binding of a pattern of the construct at `construct`, which evaluates `heads`, once
    /// before binding or (`once` false) again on every turn.
    pub(super) fn pattern(
        level: usize,
        binding: &Binding,
        construct: &[Step],
        (heads, once): (TokenStream, bool),
    ) -> Self {
        Self {
            level,
            ident: binding.ident.clone(),
            at: Some(Location::Construct(construct.to_vec())),
            heads,
            once,
        }
    }
}

/// The expression at the end of `path`, a prefix of a point's path.
fn expr_at<'b>(body: &'b mut Block, path: &[Step]) -> Option<&'b mut Expr> {
    // The last `Stmt` step of the path enters the block the expression stands in.
    let last = path
        .iter()
        .rposition(|step| matches!(step, Step::Stmt(_)))?;
    let block = block_at(body, &path[..last])?;
    let Step::Stmt(i) = path[last] else {
        return None;
    };
    let mut expr = match (block.stmts.get_mut(i)?, path.get(last + 1)?) {
        (Stmt::Local(local), Step::LocalInit) => &mut *local.init.as_mut()?.expr,
        (Stmt::Local(local), Step::LetElse) => &mut *local.init.as_mut()?.diverge.as_mut()?.1,
        (Stmt::Expr(expr, _), Step::ExprStmt) => expr,
        _ => return None,
    };
    for step in &path[last + 2..] {
        expr = match (step, expr) {
            (Step::Head(head), expr) => head.child(expr)?,
            (Step::IfElse, Expr::If(branch)) => &mut branch.else_branch.as_mut()?.1,
            (Step::Arm(j), Expr::Match(matched)) => &mut matched.arms.get_mut(*j)?.body,
            _ => return None,
        };
    }
    Some(expr)
}
