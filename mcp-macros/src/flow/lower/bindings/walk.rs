//! The walk that fills the binding table, in the order Rust evaluates the body (see
//! `bindings`).

use proc_macro2::{Ident, TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Block, Expr, LitStr, Pat, PatIdent, Stmt};

use super::plain::{Plain, plain_args};
use super::{Args, Binding, BindingId, BindingKind, Bindings, Token, argument_name};
use crate::flow::lower::mutable::bound;
use crate::flow::std_facts::{format_position, plainly_owned};
use crate::flow::syntax::inline_args;

/// The walk that fills the table: the bindings in scope, innermost last.
#[derive(Default)]
pub(super) struct Walk {
    pub(super) table: Bindings,
    scope: Vec<BindingId>,
    /// The name of each binding, by id, as a use spells it (without `r#`).
    names: Vec<String>,
    /// The uses so far, in order: what a value reads is the tail it added.
    pub(super) uses: Vec<BindingId>,
    /// Every macro's arguments parsed by syn, plain or not: what `plain` is tested against.
    #[cfg(test)]
    pub(super) parse_plain: bool,
}

impl Walk {
    pub(super) fn declare(
        &mut self,
        ident: &Ident,
        kind: BindingKind,
        hides: Option<BindingId>,
    ) -> BindingId {
        let id = BindingId(u32::try_from(self.table.bindings.len()).unwrap_or(u32::MAX));
        self.table.bindings.push(Binding {
            name: ident.clone(),
            kind,
            hides,
            fixed: false,
            plain: false,
        });
        let token = Token::of(ident);
        self.names.push(token.name.clone());
        self.table.point(token, id);
        self.scope.push(id);
        id
    }

    fn resolve(&self, name: &str) -> Option<BindingId> {
        let name = name.trim_start_matches("r#");
        (self.scope.iter().rev().copied()).find(|&id| self.names[id.index()] == name)
    }

    fn use_of(&mut self, ident: &Ident) {
        if let Some(id) = self.resolve(&ident.to_string()) {
            self.uses.push(id);
            self.table.point(Token::of(ident), id);
        }
    }

    /// Runs `inner` in a new scope, which ends with it.
    fn scoped(&mut self, inner: impl FnOnce(&mut Self)) {
        let depth = self.scope.len();
        inner(self);
        self.scope.truncate(depth);
    }

    /// Visits `value`, the expression a pattern binds from; returns the uses it made.
    fn value(&mut self, value: &Expr) -> Vec<BindingId> {
        let from = self.uses.len();
        self.visit_expr(value);
        self.uses.split_off(from)
    }

    /// Binds the names `pat` binds, from a value that made the uses `read`.
    fn bind(&mut self, pat: &Pat, kind: BindingKind, read: &[BindingId]) {
        // A pattern's expressions (a range's bounds, a constant's path) bind nothing.
        let mut seen: Vec<String> = Vec::new();
        let shorthand = shorthand_fields(pat);
        for binding in bound(pat) {
            let name = binding.ident.to_string();
            let name = name.trim_start_matches("r#");
            // The alternatives of an or-pattern bind the same names: the first binds them.
            let id = match (seen.iter().position(|n| n == name)).and_then(|_| self.resolve(name)) {
                Some(id) => {
                    self.table.point(Token::of(&binding.ident), id);
                    id
                }
                None => {
                    seen.push(name.to_owned());
                    let hides = read
                        .iter()
                        .copied()
                        .find(|&used| self.names[used.index()] == name);
                    self.declare(&binding.ident, kind, hides)
                }
            };
            if shorthand.iter().any(|field| std::ptr::eq(*field, binding)) {
                self.table.shorthand.insert(id);
            }
        }
    }

    /// Binds a condition's `let`s (`if let`, `while let`, a chain of them with `&&`) for
    /// what follows them, visiting its other operands.
    fn condition(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(let_) => {
                let read = self.value(&let_.expr);
                self.bind(&let_.pat, BindingKind::Pattern, &read);
            }
            Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
                self.condition(&binary.left);
                self.condition(&binary.right);
            }
            other => self.visit_expr(other),
        }
    }

    /// Marks the bindings another macro's tokens may name: each identifier, and each word of
    /// its string literals (`"{name}"`, `"{:>width$}"`, or whatever the macro makes of them),
    /// which the table points at the binding, a word at its literal's span (as a format
    /// string's capture is).
    fn taint(&mut self, tokens: TokenStream) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => {
                    if let Some(id) = self.resolve(&ident.to_string()) {
                        self.table.bindings[id.index()].fixed = true;
                        self.table.point(Token::of(&ident), id);
                    }
                }
                TokenTree::Group(group) => self.taint(group.stream()),
                TokenTree::Literal(literal) => {
                    let text = literal.to_string();
                    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        if let Some(id) = self.resolve(word) {
                            self.table.bindings[id.index()].fixed = true;
                            self.table.point(Token::new(word, literal.span()), id);
                        }
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }

    /// Resolves the names a format string captures (`"{name}"`), other than the macro's
    /// `named` arguments.
    fn format_string(&mut self, format: &LitStr, named: &[String]) {
        let text = format.value();
        for range in inline_args(&text) {
            let name = &text[range];
            if named.iter().any(|arg| arg == name) {
                continue;
            }
            if let Some(id) = self.resolve(name) {
                self.uses.push(id);
                self.table.point(Token::new(name, format.span()), id);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walk {
    fn visit_block(&mut self, block: &'ast Block) {
        self.scoped(|walk| block.stmts.iter().for_each(|stmt| walk.visit_stmt(stmt)));
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let mut read = Vec::new();
                if let Some(init) = &local.init {
                    read = self.value(&init.expr);
                    if let Some((_, diverge)) = &init.diverge {
                        self.visit_expr(diverge);
                    }
                }
                self.bind(&local.pat, BindingKind::Let, &read);
                if let Pat::Type(typed) = &local.pat
                    && let Pat::Ident(binding) = &*typed.pat
                    && binding.subpat.is_none()
                    && plainly_owned(&typed.ty)
                    && let Some(id) = self.resolve(&binding.ident.to_string())
                {
                    self.table.bindings[id.index()].plain = true;
                }
            }
            // Items name no local.
            Stmt::Item(_) => {}
            other => visit::visit_stmt(self, other),
        }
    }

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        self.scoped(|walk| {
            for input in &closure.inputs {
                walk.bind(input, BindingKind::Pattern, &[]);
            }
            walk.visit_expr(&closure.body);
        });
    }

    fn visit_expr_for_loop(&mut self, each: &'ast syn::ExprForLoop) {
        let read = self.value(&each.expr);
        self.scoped(|walk| {
            walk.bind(&each.pat, BindingKind::LoopPattern, &read);
            walk.visit_block(&each.body);
        });
    }

    fn visit_expr_while(&mut self, looped: &'ast syn::ExprWhile) {
        self.scoped(|walk| {
            walk.condition(&looped.cond);
            walk.visit_block(&looped.body);
        });
    }

    fn visit_expr_if(&mut self, branch: &'ast syn::ExprIf) {
        self.scoped(|walk| {
            walk.condition(&branch.cond);
            walk.visit_block(&branch.then_branch);
        });
        if let Some((_, otherwise)) = &branch.else_branch {
            self.visit_expr(otherwise);
        }
    }

    fn visit_expr_match(&mut self, matched: &'ast syn::ExprMatch) {
        let read = self.value(&matched.expr);
        for arm in &matched.arms {
            self.scoped(|walk| {
                match &arm.pat {
                    Pat::Guard(guarded) => {
                        walk.bind(&guarded.pat, BindingKind::Pattern, &read);
                        walk.visit_expr(&guarded.guard);
                    }
                    pat => walk.bind(pat, BindingKind::Pattern, &read),
                }
                walk.visit_expr(&arm.body);
            });
        }
    }

    fn visit_field_value(&mut self, field: &'ast syn::FieldValue) {
        visit::visit_field_value(self, field);
        if field.colon_token.is_none()
            && let Expr::Path(path) = &field.expr
            && let Some(ident) = path.path.get_ident()
            && let Some(id) = self.table.find(ident)
        {
            self.table.shorthand.insert(id);
        }
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
        {
            self.use_of(ident);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let format = format_position(&mac.path);
        // Plain arguments read as syn's parse would have them read (see `plain`): no named
        // argument among them, so the format string captures what it names.
        let plain = format.and_then(|_| plain_args(&mac.tokens));
        #[cfg(test)]
        let plain = plain.filter(|_| !self.parse_plain);
        if let Some(format) = format
            && let Some(args) = plain
        {
            for (i, arg) in args.into_iter().enumerate() {
                match arg {
                    Plain::Name(name) => self.use_of(&name),
                    Plain::Literal(literal) if format == Some(i) => {
                        if let syn::Lit::Str(text) = syn::Lit::new(literal) {
                            self.format_string(&text, &[]);
                        }
                    }
                    Plain::Literal(_) => {}
                }
            }
            return;
        }
        let Some((format, args)) = format.and_then(|format| {
            let args = mac.parse_body_with(Args::parse_terminated).ok()?;
            Some((format, args))
        }) else {
            self.taint(mac.tokens.clone());
            return;
        };
        // Named arguments follow the format string (`format!("{x}", x = name)`).
        let after_format = |i: usize| format.is_some_and(|at| i > at);
        let named: Vec<String> = (args.iter().enumerate())
            .filter(|(i, _)| after_format(*i))
            .filter_map(|(_, arg)| argument_name(arg))
            .collect();
        for (i, arg) in args.iter().enumerate() {
            match arg {
                Expr::Assign(assign) if after_format(i) && argument_name(arg).is_some() => {
                    self.visit_expr(&assign.right);
                }
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) if format == Some(i) => self.format_string(text, &named),
                other => self.visit_expr(other),
            }
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The bindings of `pat` that shorthand fields make (`Point { x, ref mut y }`).
fn shorthand_fields(pat: &Pat) -> Vec<&PatIdent> {
    struct Finder<'a>(Vec<&'a PatIdent>);
    impl<'a> Visit<'a> for Finder<'a> {
        fn visit_field_pat(&mut self, field: &'a syn::FieldPat) {
            if field.colon_token.is_none()
                && let Pat::Ident(binding) = &*field.pat
            {
                self.0.push(binding);
            }
            visit::visit_field_pat(self, field);
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_pat(pat);
    finder.0
}
