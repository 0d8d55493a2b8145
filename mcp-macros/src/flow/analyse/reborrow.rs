//! Borrows taken again where a flow resumes, rather than carried.
//!
//! A borrow cannot cross a question, but the place it borrows from can: while the borrow
//! lives the place cannot change, so the same expression evaluated again on resume borrows
//! the same thing. That is how `let name = args.name.trim();`, `if let Some(name) =
//! &args.name` and `match args.items.first() { Some(first) => .. }` cross a question: the
//! `let` runs again, or the pattern is matched again, against the place.
//!
//! Input, resumed at a question inside the arm:
//! `match args.items.first() { Some(first) => { let ok: Yes = __mcp_site!().0?; use(first, ok) } None => .. }`
//! Output:
//! `{ let Some(first) = args.items.first() else { match reader.no_longer_matches().await {} }; { let ok: Yes = __mcp_site!().0?; use(first, ok) } }`

use std::collections::HashMap;

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Local, Pat, Stmt, Token};

use super::facts::Hoisted;
use super::free;
use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::scope::{self, Binding};
use crate::flow::std_facts::{self, BY_VALUE, PASSES, TAKES_FUNCTIONS};
use crate::flow::syntax::{compound, literal};

/// The context's methods that only read what the runtime gave this round, the same every
/// round of a call: application state, the client's capabilities and the caller. What they
/// give (`Option<State<T>>`, `&ClientCapabilities`, `Option<&str>`) cannot travel, but can
/// be had again from the context where the flow resumes.
const CONTEXT_ACCESSORS: &[&str] = &[
    "state",
    "capabilities",
    "subject",
    "claims",
    "supports_form_elicitation",
    "supports_url_elicitation",
    "supports_sampling",
    "supports_roots",
];

/// Whether `expr` borrows from a place rooted at a local `roots` accepts, and gives the same
/// borrow however often it is evaluated while that borrow lives: `&place`, a chain of
/// `std`'s lending methods ([`scope::lends`]), ones that hand on a part of what their
/// receiver borrows ([`PASSES`]) with arguments that cannot change ([`unchanging`]) and ones
/// given functions ([`TAKES_FUNCTIONS`]: iterator adapters, `unwrap_or_else`) on a place, a tuple of those, or a `match` or
/// `if let` on one whose every branch gives a literal or such a borrow (of what its pattern
/// binds, too). A place is a local, its fields, and its elements at indices that cannot
/// change (literals, ranges of them, [`unchanging`] values). A chain may also start at one of
/// the [`CONTEXT_ACCESSORS`] (`cx.state::<Db>()`, `cx.subject().unwrap_or("anonymous")`).
pub(crate) fn stable(expr: &Expr, roots: Roots<'_>) -> bool {
    match expr {
        Expr::Reference(reference) => place(&reference.expr, roots),
        Expr::MethodCall(call)
            if CONTEXT_ACCESSORS.iter().any(|name| call.method == name)
                && id_of(&call.receiver, roots).is_some_and(|cx| roots.hoisted.is_context(cx)) =>
        {
            call.args.is_empty()
        }
        Expr::MethodCall(call) => {
            let facts = std_facts::method(&call.method.to_string());
            let adapter = facts.any(TAKES_FUNCTIONS);
            // A method that takes its receiver by value hands on a borrow only from one.
            let by_value = facts.any(BY_VALUE);
            (scope::lends(call) || adapter || facts.any(PASSES))
                && (call.turbofish.is_none() || call.method == "collect")
                && call
                    .args
                    .iter()
                    .all(|arg| unchanging(arg, roots) || adapter && function(arg, roots))
                && (!by_value && place(&call.receiver, roots) || stable(&call.receiver, roots))
        }
        Expr::Tuple(tuple) => {
            !tuple.elems.is_empty() && tuple.elems.iter().all(|elem| stable(elem, roots))
        }
        // A `match` or `if` that chooses between borrows, by a borrow of a place (its
        // branches may borrow from what the pattern binds) or by an unchanging value.
        Expr::Match(matched) => {
            let borrowed = stable(&matched.expr, roots);
            (borrowed || unchanging(&matched.expr, roots))
                && matched.arms.iter().all(|arm| {
                    let pat = borrowed.then_some(&arm.pat);
                    !matches!(arm.pat, Pat::Guard(_)) && branch(&arm.body, pat, roots)
                })
        }
        Expr::If(branches) => {
            let Some((_, otherwise)) = &branches.else_branch else {
                return false;
            };
            let pat = match &*branches.cond {
                Expr::Let(cond) if stable(&cond.expr, roots) => Some(&*cond.pat),
                Expr::Let(_) => return false,
                cond if unchanging(cond, roots) => None,
                _ => return false,
            };
            block_value(&branches.then_branch).is_some_and(|then| branch(then, pat, roots))
                && branch(otherwise, None, roots)
        }
        Expr::Paren(inner) => stable(&inner.expr, roots),
        Expr::Group(inner) => stable(&inner.expr, roots),
        _ => false,
    }
}

/// A branch of a stable `match` or `if`, whose pattern `pat`, if any, binds borrows of the
/// place matched: a literal, a stable borrow, a place within what the pattern binds, or a
/// block of one of those.
fn branch(value: &Expr, pat: Option<&Pat>, roots: Roots<'_>) -> bool {
    if let Expr::Block(block) = value {
        return block.label.is_none()
            && block_value(&block.block).is_some_and(|value| branch(value, pat, roots));
    }
    let mut bindings = Vec::new();
    if let Some(pat) = pat {
        scope::pattern_bindings(pat, None, &mut bindings);
    }
    if !bindings_rematch(&bindings) {
        return false;
    }
    let ids: Vec<BindingId> = bindings
        .iter()
        .map(|b| roots.bindings.id(&b.ident))
        .collect();
    let bound: Vec<BindingId> = roots.bound.iter().copied().chain(ids.clone()).collect();
    let within = Roots {
        bound: &bound,
        ..roots
    };
    literal(value)
        || stable(value, within)
        || place(value, within) && id_of(root(value), roots).is_some_and(|id| ids.contains(&id))
}

/// The binding `expr` names, if it is a name.
fn id_of(expr: &Expr, roots: Roots<'_>) -> Option<BindingId> {
    match expr {
        Expr::Path(path) => path.path.get_ident().map(|ident| roots.bindings.id(ident)),
        _ => None,
    }
}

/// Whether `expr` has the same value however often it is evaluated: a literal, a place whose
/// root is bound once without `mut` (or is an item), or a negation or comparison of those
/// (`args.verbose`, `args.count > 3`).
fn unchanging(expr: &Expr, roots: Roots<'_>) -> bool {
    let roots = Roots {
        once: true,
        bound: &[],
        ..roots
    };
    match expr {
        Expr::Path(_) => id_of(expr, roots).is_some_and(|id| roots.hoisted.unchanging(id)),
        Expr::Field(_) | Expr::Index(_) => place(expr, roots) && unchanging(root(expr), roots),
        Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Not(_)) && unchanging(&unary.expr, roots)
        }
        Expr::Binary(binary) => {
            use syn::BinOp::*;
            matches!(
                binary.op,
                Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)
            ) && unchanging(&binary.left, roots)
                && unchanging(&binary.right, roots)
        }
        Expr::Paren(inner) => unchanging(&inner.expr, roots),
        expr => literal(expr),
    }
}

/// The local a place is rooted at.
fn root(expr: &Expr) -> &Expr {
    match expr {
        Expr::Field(field) => root(&field.base),
        Expr::Index(index) => root(&index.expr),
        Expr::Paren(inner) => root(&inner.expr),
        expr => expr,
    }
}

/// The value of a block that is one expression.
fn block_value(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.as_slice() {
        [Stmt::Expr(value, None)] => Some(value),
        _ => None,
    }
}

/// Which locals a stable borrow may be rooted at.
#[derive(Clone, Copy)]
pub(crate) struct Roots<'a> {
    pub(crate) hoisted: &'a Hoisted,
    /// Which binding each name is (see `lower::bindings`).
    pub(crate) bindings: &'a Bindings,
    /// Only those bound once in the function, or in `bound`; otherwise any.
    pub(crate) once: bool,
    /// Bindings a pattern on the way in binds to borrows of what it matched.
    pub(crate) bound: &'a [BindingId],
}

/// A function given to an adapter: a path to one (`str::trim`), or a closure that assigns
/// nothing and reads no local that can change (run again on resume, like a `for` loop's
/// chain evaluated again).
fn function(expr: &Expr, roots: Roots<'_>) -> bool {
    struct Assigns(bool);
    impl<'ast> Visit<'ast> for Assigns {
        fn visit_expr_assign(&mut self, _: &'ast syn::ExprAssign) {
            self.0 = true;
        }
        fn visit_expr_binary(&mut self, binary: &'ast syn::ExprBinary) {
            self.0 |= compound(&binary.op);
            visit::visit_expr_binary(self, binary);
        }
    }
    match expr {
        // A path of one segment may name a local, which may have changed since.
        Expr::Path(path) => path.qself.is_none() && path.path.segments.len() > 1,
        Expr::Closure(closure) => {
            let mut assigns = Assigns(false);
            assigns.visit_expr_closure(closure);
            let stmt = Stmt::Expr(expr.clone(), None);
            let lookup = free::Lookup {
                questions: &HashMap::new(),
                bindings: roots.bindings,
            };
            let reads = free::free_in_stmts(std::slice::from_ref(&stmt), lookup);
            closure.capture.is_none()
                && !assigns.0
                && reads.iter().all(|&id| roots.hoisted.unchanging(id))
        }
        _ => false,
    }
}

fn place(expr: &Expr, roots: Roots<'_>) -> bool {
    match expr {
        Expr::Path(path) => {
            path.qself.is_none()
                && path.path.get_ident().is_some_and(|ident| {
                    let id = roots.bindings.id(ident);
                    !roots.once || roots.hoisted.bound_once(id) || roots.bound.contains(&id)
                })
        }
        Expr::Field(field) => place(&field.base, roots),
        Expr::Index(index) => {
            (index_literal(&index.index) || unchanging(&index.index, roots))
                && place(&index.expr, roots)
        }
        Expr::Paren(inner) => place(&inner.expr, roots),
        _ => false,
    }
}

/// A literal index, or a range of them (`items[..2]`).
fn index_literal(index: &Expr) -> bool {
    match index {
        Expr::Range(range) => {
            range.start.as_deref().is_none_or(literal) && range.end.as_deref().is_none_or(literal)
        }
        index => literal(index),
    }
}

/// Whether what `pat` binds from `scrutinee` is had again by matching it again: it binds
/// without `mut` by value from a stable borrow or from a local bound once to one, or binds
/// only by `ref` or `ref mut` from a place.
pub(crate) fn rematch(pat: &Pat, scrutinee: &Expr, roots: Roots<'_>) -> bool {
    let mut bindings = Vec::new();
    scope::pattern_bindings(pat, None, &mut bindings);
    let borrowing = id_of(scrutinee, roots).is_some_and(|id| roots.hoisted.borrowing(id));
    !bindings.is_empty()
        && bindings_rematch(&bindings)
        && (stable(scrutinee, roots)
            || borrowing
            || place(scrutinee, roots) && bindings.iter().all(|binding| binding.by_ref))
}

/// Whether the bindings of a pattern matched against a stable borrow may be had by matching
/// it again: none is `mut` by value, which a copy changed before the question would make
/// differ (a `ref mut` one borrows the place, which holds what was changed through it).
fn bindings_rematch(bindings: &[Binding]) -> bool {
    bindings
        .iter()
        .all(|binding| !binding.mutable || binding.by_ref)
}

/// Whether the `let` statement `local` is run again where the flow resumes, rather than its
/// locals carried: it binds without `mut` a stable borrow of a place whose root local is
/// bound once in the function, so that no other binding of that name can stand between the
/// statement and where it runs again; or a literal (which `hoist` could not move, its name
/// being bound elsewhere too); or a closure that borrows what it captures. At the body's top
/// level, a literal runs again only if it holds a string, which could not be carried: a
/// number or a `bool` travels, rather than run again after every question (see
/// `straight::again_at`).
pub(crate) fn again(local: &Local, hoisted: &Hoisted, bindings: &Bindings, top: bool) -> bool {
    let Some(init) = &local.init else {
        return false;
    };
    let roots = Roots {
        hoisted,
        bindings,
        once: true,
        bound: &[],
    };
    let constant = init.diverge.is_none()
        && literal(&init.expr)
        && (!top || holds_string(&init.expr))
        && !binds_mut(&local.pat);
    constant
        || init.diverge.is_none() && made_again(&init.expr)
        || rematch(&local.pat, &init.expr, roots) && !hoisted.literal_choice(&init.expr, bindings)
}

/// Whether `expr` is a closure that borrows what it captures (not `move`, not `async`): it
/// holds nothing of its own, so one made again where the flow resumes, from the same locals,
/// is the same closure. (One that consumes what it captures could be made only once, and
/// the handler as written could call it only once.)
fn made_again(expr: &Expr) -> bool {
    match expr {
        Expr::Closure(closure) => closure.capture.is_none() && closure.asyncness.is_none(),
        Expr::Paren(inner) => made_again(&inner.expr),
        _ => false,
    }
}

/// Whether `pat` binds anything `mut`.
fn binds_mut(pat: &Pat) -> bool {
    let mut bindings = Vec::new();
    scope::pattern_bindings(pat, None, &mut bindings);
    bindings.iter().any(|binding| binding.mutable)
}

/// Whether the literal `expr` holds a string (`"prod"`, `["eu", "us"]`): a borrow, which a
/// state cannot hold.
fn holds_string(expr: &Expr) -> bool {
    struct Strings(bool);
    impl<'ast> Visit<'ast> for Strings {
        fn visit_lit(&mut self, lit: &'ast syn::Lit) {
            self.0 |= matches!(
                lit,
                syn::Lit::Str(_) | syn::Lit::ByteStr(_) | syn::Lit::CStr(_)
            );
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            // `vec!["eu", "us"]`: its elements are tokens until parsed.
            let elems = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated);
            self.0 |= elems.is_ok_and(|elems| elems.iter().any(holds_string));
        }
    }
    let mut strings = Strings(false);
    strings.visit_expr(expr);
    strings.0
}
