//! Free variables: which locals a piece of code uses from outside itself, and which outer
//! locals it assigns before reading them.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Block, Expr, Pat, Stmt};

use super::scope::pattern_bindings;
use super::sites::marker_site;

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
