//! Bindings and free variables: which locals a piece of code uses from outside itself.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::visit_mut::{self as visit_mut, VisitMut};
use syn::{Block, Expr, Ident, Local, Pat, Stmt, Type};

use super::sites::marker_site;

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

/// Methods of `std` that lend from their receiver: what they return borrows it
/// (`name.as_str()`, `text.trim()`; those that give an iterator are [`ITERATING`]).
const LENDING: &[&str] = &[
    "as_str",
    "as_slice",
    "as_bytes",
    "as_ref",
    "as_deref",
    "as_path",
    "as_os_str",
    "trim",
    "trim_start",
    "trim_end",
];

/// Methods of `std` that lend from their receiver an iterator over its items
/// (`items.iter()`, `line.split(',')`).
const ITERATING: &[&str] = &[
    "iter",
    "chars",
    "char_indices",
    "bytes",
    "lines",
    "split",
    "split_whitespace",
    "split_terminator",
    "keys",
    "values",
    "windows",
    "chunks",
    "chunks_exact",
];

/// Methods of `std` that lend from their receiver exclusively (`name.as_mut()`).
const LENDING_MUT: &[&str] = &["as_mut", "as_deref_mut", "as_mut_slice", "as_mut_str"];

/// Whether `call` is of one of `std`'s methods that lend from their receiver ([`LENDING`],
/// [`ITERATING`], [`LENDING_MUT`]). A `for` loop over a chain that starts with one on a
/// local can evaluate it again on resume: the borrow it holds for the whole loop keeps the
/// local unchanged.
pub(crate) fn lends(call: &syn::ExprMethodCall) -> bool {
    LENDING
        .iter()
        .chain(ITERATING)
        .chain(LENDING_MUT)
        .any(|name| call.method == name)
}

/// Whether `method` is one of `std`'s methods that lend from their receiver by a shared
/// borrow ([`LENDING`], [`ITERATING`]).
pub(crate) fn lends_shared(method: &str) -> bool {
    LENDING.contains(&method) || ITERATING.contains(&method)
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

/// Iterator adapters of `std`: what they give iterates what their receiver does.
const ADAPTING: &[&str] = &[
    "map",
    "filter",
    "filter_map",
    "flat_map",
    "flatten",
    "enumerate",
    "skip",
    "take",
    "skip_while",
    "take_while",
    "step_by",
    "rev",
    "zip",
    "chain",
    "peekable",
    "cloned",
    "copied",
    "inspect",
];

/// Whether `expr` is plainly a borrow, and of what. The compiler catches every other borrow
/// at the local's slot, in its own words.
fn borrowed(expr: &Expr) -> Option<Borrowed> {
    match expr {
        Expr::Reference(_) => Some(Borrowed::Value),
        Expr::MethodCall(call)
            if ITERATING.iter().any(|name| call.method == name)
                || call.method == "iter_mut"
                || call.method == "values_mut" =>
        {
            Some(Borrowed::Iterator)
        }
        Expr::MethodCall(call) if lends(call) => Some(Borrowed::Value),
        // An adapter on an iterator that borrows (`items.iter().map(..)`) is one too; what
        // consumes it (`sum`, `count`, `next`, `collect`) gives a value of its own.
        Expr::MethodCall(call) if ADAPTING.iter().any(|name| call.method == name) => {
            (borrowed(&call.receiver) == Some(Borrowed::Iterator)).then_some(Borrowed::Iterator)
        }
        Expr::Paren(inner) => borrowed(&inner.expr),
        _ => None,
    }
}

/// Whether `ty` holds a borrow anywhere: a reference or a lifetime (`&str`, `Vec<&str>`,
/// `Cow<'a, str>`).
pub(crate) fn holds_borrow(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
            self.0 = true;
        }
        fn visit_lifetime(&mut self, _: &'ast syn::Lifetime) {
            self.0 = true;
        }
    }
    let mut finder = Finder(false);
    finder.visit_type(ty);
    finder.0
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

/// Names used in `block`'s statements that no binding inside them introduces first.
pub(crate) fn free_in_stmts(stmts: &[Stmt], sites: &HashMap<usize, Expr>) -> BTreeSet<String> {
    free_and_assigned_in_stmts(stmts, sites).0
}

/// The free names of `stmts`, and the outer names they assign (`name = ...`) before reading
/// them: those need a declaration in scope, not a value.
pub(crate) fn free_and_assigned_in_stmts(
    stmts: &[Stmt],
    sites: &HashMap<usize, Expr>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut finder = FreeVars::new(sites);
    finder.stmts(stmts);
    (finder.free, finder.assigned)
}

struct FreeVars<'a> {
    scopes: Vec<Vec<String>>,
    free: BTreeSet<String>,
    /// Outer names assigned before any read: bound from there on, in the assigning scope.
    assigned: BTreeSet<String>,
    sites: &'a HashMap<usize, Expr>,
}

impl<'a> FreeVars<'a> {
    fn new(sites: &'a HashMap<usize, Expr>) -> Self {
        Self {
            scopes: vec![Vec::new()],
            free: BTreeSet::new(),
            assigned: BTreeSet::new(),
            sites,
        }
    }

    fn bound(&self, name: &str) -> bool {
        self.scopes
            .iter()
            .any(|scope| scope.iter().any(|n| n == name))
    }

    fn use_name(&mut self, name: String) {
        if !self.bound(&name) {
            self.free.insert(name);
        }
    }

    fn bind(&mut self, pat: &Pat) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, None, &mut bindings);
        let scope = self.scopes.last_mut().expect("a scope is always open");
        scope.extend(bindings.into_iter().map(|b| b.ident.to_string()));
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        self.scopes.push(Vec::new());
        for stmt in stmts {
            match stmt {
                Stmt::Local(local) => {
                    if let Some(init) = &local.init {
                        self.visit_expr(&init.expr);
                        if let Some((_, diverge)) = &init.diverge {
                            self.visit_expr(diverge);
                        }
                    }
                    self.bind(&local.pat);
                }
                Stmt::Expr(expr, _) => self.visit_expr(expr),
                Stmt::Macro(mac) => self.mac(&mac.mac),
                Stmt::Item(_) => {}
            }
        }
        self.scopes.pop();
    }

    /// Macro bodies are opaque: every identifier in them, and every `{name}` in their string
    /// literals, counts as a use. Over-counting only carries a local that was not needed.
    fn mac(&mut self, mac: &syn::Macro) {
        self.tokens(mac.tokens.clone());
    }

    /// An identifier counts as a use unless the tokens around it say it is a name of
    /// something else: a field after `.`, or a key before a lone `=` (`status = %value` in a
    /// `tracing` macro, `name = value` in `format!`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) => {
                    let after_dot = i
                        .checked_sub(1)
                        .and_then(|j| trees.get(j))
                        .is_some_and(|prev| is_punct(prev, '.'));
                    let before_assign = trees.get(i + 1).is_some_and(|next| {
                        matches!(next, TokenTree::Punct(p) if p.as_char() == '='
                            && p.spacing() == proc_macro2::Spacing::Alone)
                    });
                    if !after_dot && !before_assign {
                        self.use_name(ident.to_string());
                    }
                }
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(lit) => {
                    let lit = lit.clone();
                    let text = lit.to_string();
                    if text.starts_with('"') || text.starts_with('r') {
                        for name in format_args_in(&text) {
                            self.use_name(name);
                        }
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c)
}

/// Identifiers named inline in a format string: `{name}`, `{name:?}`, `{name:>8}`.
fn format_args_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find(['}', ':']).unwrap_or(rest.len());
        let name = &rest[..end];
        if !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            names.push(name.to_owned());
        }
    }
    names
}

impl<'ast> Visit<'ast> for FreeVars<'_> {
    fn visit_block(&mut self, block: &'ast Block) {
        self.stmts(&block.stmts);
    }

    /// A question point's marker uses what its question does.
    fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
        match marker_site(field) {
            Some(site) => {
                if let Some(question) = self.sites.get(&site) {
                    self.visit_expr(question);
                }
            }
            None => visit::visit_expr_field(self, field),
        }
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
        {
            self.use_name(ident.to_string());
        }
        visit::visit_expr_path(self, path);
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scopes.push(Vec::new());
        for input in &closure.inputs {
            self.bind(input);
        }
        self.visit_expr(&closure.body);
        self.scopes.pop();
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scopes.push(Vec::new());
        self.bind(&arm.pat);
        if let Pat::Guard(guarded) = &arm.pat {
            self.visit_expr(&guarded.guard);
        }
        self.visit_expr(&arm.body);
        self.scopes.pop();
    }

    fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
        self.scopes.push(Vec::new());
        self.cond(&expr.cond);
        self.visit_block(&expr.then_branch);
        self.scopes.pop();
        if let Some((_, els)) = &expr.else_branch {
            self.visit_expr(els);
        }
    }

    fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
        self.scopes.push(Vec::new());
        self.cond(&expr.cond);
        self.visit_block(&expr.body);
        self.scopes.pop();
    }

    fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
        self.visit_expr(&expr.expr);
        self.scopes.push(Vec::new());
        self.bind(&expr.pat);
        self.visit_block(&expr.body);
        self.scopes.pop();
    }

    /// `name = value` writes `name` without reading it: after it, in the same scope, `name`
    /// holds what this code put there, whatever it held before.
    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        self.visit_expr(&assign.right);
        if let Expr::Path(path) = &*assign.left
            && path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
        {
            let name = ident.to_string();
            if !self.bound(&name) {
                self.assigned.insert(name.clone());
            }
            let scope = self.scopes.last_mut().expect("a scope is always open");
            scope.push(name);
            return;
        }
        self.visit_expr(&assign.left);
    }

    fn visit_expr_macro(&mut self, mac: &'ast syn::ExprMacro) {
        self.mac(&mac.mac);
    }

    fn visit_stmt_macro(&mut self, mac: &'ast syn::StmtMacro) {
        self.mac(&mac.mac);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl FreeVars<'_> {
    /// A condition: `let` patterns in it bind into the scope the caller opened.
    fn cond(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(expr) => {
                self.visit_expr(&expr.expr);
                self.bind(&expr.pat);
            }
            Expr::Binary(expr) if matches!(expr.op, syn::BinOp::And(_)) => {
                self.cond(&expr.left);
                self.cond(&expr.right);
            }
            other => self.visit_expr(other),
        }
    }
}
