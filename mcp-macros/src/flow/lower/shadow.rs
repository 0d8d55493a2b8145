//! A binding that hides the local of its name while reading it (`let name = name.trim();`,
//! `for line in &lines { let line = line.trim(); .. }`, `let args = &args.items;` on the
//! arguments, `let question = question.trim();` on a sub-flow's): one of the two is renamed,
//! so that each name the body uses names one binding. The hider is then a borrow of a place
//! bound once, which the flow takes again where it resumes, and what it borrows travels.
//!
//! Input:
//! ```text
//! let name = args.name.clone();
//! let name = name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! Output:
//! ```text
//! let __mcp_local0_name = args.name.clone();
//! let name = __mcp_local0_name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! The hidden local is renamed, or its hider where another macro's tokens may name the hidden
//! one (those tokens are not known to be code: `tracing`'s `status = %status`) or a
//! parameter's pattern binds it (`State(db)`); where such macros may name both, neither is.
//! The standard macros whose arguments are expressions (`format!`, `println!`, `assert_eq!`,
//! `vec!`, ..) are read as such, and a `{name}` their format string captures is renamed with
//! the rest. Each use keeps its span, and what the user reads names the
//! local as written ([`shown`](crate::flow::syntax::shown)).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, FnArg, ItemFn, LitStr, Pat, Stmt, Token};

use super::mutable::bound;
use crate::flow::questions::awaits;
use crate::flow::syntax::{RENAMED, inline_args, shown_ident};

/// Renames in `body` each local that a binding of its name hides while reading it. `params`
/// are the handler's parameters bound to a name (a sub-flow's arguments, a tool's arguments
/// struct), renamed in place where one is hidden so (the step function binds them under the
/// new name); `patterns` are its parameters bound by a pattern (`State(db)`), whose names
/// stay. Nothing is renamed in a body that awaits nothing.
pub(crate) fn rename(body: &mut Block, params: &mut [&mut Ident], patterns: &[Pat]) {
    if !awaits(body) {
        return;
    }
    let mut walk = Walk::default();
    walk.declare_params(params, patterns);
    walk.visit_block_mut(body);
    // Of a hidden local and its hider, the first whose name can change: one that no other
    // macro's tokens name and no parameter's pattern binds (both `tainted`).
    let mut renames = HashMap::new();
    for (outer, inner) in std::mem::take(&mut walk.hiders) {
        if outer == inner || renames.contains_key(&outer) || renames.contains_key(&inner) {
            continue;
        }
        if let Some(id) = [outer, inner]
            .into_iter()
            .find(|id| !walk.tainted.contains(id))
        {
            let name = walk.bindings[id].trim_start_matches("r#");
            renames.insert(id, format!("{RENAMED}{}_{name}", renames.len()));
        }
    }
    if renames.is_empty() {
        return;
    }
    let mut walk = Walk {
        renames,
        ..Walk::default()
    };
    walk.declare_params(params, patterns);
    walk.visit_block_mut(body);
    for (id, param) in params.iter_mut().enumerate() {
        if let Some(new) = walk.renames.get(&id) {
            **param = Ident::new(new, param.span());
        }
    }
}

/// Resolves each name the body uses to its binding, in the order `syn` visits them, which
/// is the same in both passes: the first finds the hidden locals, the second renames them.
#[derive(Default)]
struct Walk {
    /// The name of each binding, by its id.
    bindings: Vec<String>,
    /// The bindings in scope, innermost last: a name's use resolves to the last of its name.
    scope: Vec<usize>,
    /// Each use resolved, in order: what a hider's value reads is the tail it added.
    uses: Vec<usize>,
    /// The bindings whose names stay: those a macro's tokens may name, and a parameter's pattern
    /// binds.
    tainted: HashSet<usize>,
    /// (hidden, hider): a binding that hides one of its name its value reads.
    hiders: Vec<(usize, usize)>,
    /// The second pass: the new name of each binding renamed.
    renames: HashMap<usize, String>,
    /// How many uses the second pass has renamed so far.
    renamed: usize,
}

impl Walk {
    /// Declares the parameters, those bound by a pattern as if a macro named them: they keep
    /// their names.
    fn declare_params(&mut self, params: &[&mut Ident], patterns: &[Pat]) {
        for param in params {
            self.declare(param.to_string());
        }
        let mut names = Vec::new();
        patterns.iter().for_each(|pat| names_of(pat, &mut names));
        for name in names {
            let id = self.declare(name);
            self.tainted.insert(id);
        }
    }

    fn declare(&mut self, name: String) -> usize {
        let id = self.bindings.len();
        self.bindings.push(name);
        self.scope.push(id);
        id
    }

    fn resolve(&self, name: &str) -> Option<usize> {
        self.scope
            .iter()
            .rev()
            .copied()
            .find(|&id| self.bindings[id] == name)
    }

    /// Visits `value`, the expression a pattern binds from; returns the uses it made.
    fn value(&mut self, value: &mut Expr) -> Vec<usize> {
        let from = self.uses.len();
        self.visit_expr_mut(value);
        self.uses.split_off(from)
    }

    /// Binds the names `pat` binds, from a value that made `read` (its uses), renaming them
    /// in the second pass.
    fn bind(&mut self, pat: &mut Pat, read: &[usize]) {
        let mut names = Vec::new();
        names_of(pat, &mut names);
        for name in names {
            let hidden = read
                .iter()
                .copied()
                .find(|&used| self.bindings[used] == name);
            let id = self.declare(name.clone());
            if let Some(hidden) = hidden {
                self.hiders.push((hidden, id));
            }
            if let Some(new) = self.renames.get(&id) {
                rename_in(pat, &name, new);
            }
        }
    }

    /// Binds a condition's `let`s (`if let`, `while let`, a chain of them with `&&`) for
    /// what follows them, visiting its other operands.
    fn condition(&mut self, cond: &mut Expr) {
        match cond {
            Expr::Let(let_) => {
                let read = self.value(&mut let_.expr);
                self.bind(&mut let_.pat, &read);
            }
            Expr::Binary(binary) if matches!(binary.op, syn::BinOp::And(_)) => {
                self.condition(&mut binary.left);
                self.condition(&mut binary.right);
            }
            other => self.visit_expr_mut(other),
        }
    }

    /// Binds an arm's pattern, then visits its guard.
    fn arm_pattern(&mut self, pat: &mut Pat, read: &[usize]) {
        match pat {
            Pat::Guard(guarded) => {
                self.bind(&mut guarded.pat, read);
                self.visit_expr_mut(&mut guarded.guard);
            }
            pat => self.bind(pat, read),
        }
    }

    /// Marks what a macro's tokens may name: each identifier, and each word of its string
    /// literals (`"{name}"`, `"{:>width$}"`, or whatever the macro makes of them).
    fn taint(&mut self, tokens: TokenStream) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => self.taint_name(&ident.to_string()),
                TokenTree::Group(group) => self.taint(group.stream()),
                TokenTree::Literal(literal) => {
                    let text = literal.to_string();
                    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        self.taint_name(word);
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }

    /// Resolves the names a format string names inline (`"{name}"`), other than the macro's
    /// `named` arguments, renaming them in the second pass.
    fn format_string(&mut self, format: &mut LitStr, named: &[String]) {
        let text = format.value();
        let mut out = String::new();
        let mut from = 0;
        for range in inline_args(&text) {
            let name = &text[range.clone()];
            if named.iter().any(|arg| arg == name) {
                continue;
            }
            let Some(id) = self.resolve(name) else {
                continue;
            };
            self.uses.push(id);
            if let Some(new) = self.renames.get(&id) {
                out.push_str(&text[from..range.start]);
                out.push_str(new);
                from = range.end;
                self.renamed += 1;
            }
        }
        if from > 0 {
            out.push_str(&text[from..]);
            *format = LitStr::new(&out, format.span());
        }
    }

    fn taint_name(&mut self, name: &str) {
        if let Some(id) = self.resolve(name) {
            self.tainted.insert(id);
        }
    }
}

impl VisitMut for Walk {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let depth = self.scope.len();
        for stmt in &mut block.stmts {
            self.visit_stmt_mut(stmt);
        }
        self.scope.truncate(depth);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let mut read = Vec::new();
                if let Some(init) = &mut local.init {
                    read = self.value(&mut init.expr);
                    if let Some((_, diverge)) = &mut init.diverge {
                        self.visit_expr_mut(diverge);
                    }
                }
                self.bind(&mut local.pat, &read);
            }
            // Items name no local.
            Stmt::Item(_) => {}
            other => visit_mut::visit_stmt_mut(self, other),
        }
    }

    fn visit_expr_closure_mut(&mut self, closure: &mut syn::ExprClosure) {
        let depth = self.scope.len();
        for input in &mut closure.inputs {
            self.bind(input, &[]);
        }
        self.visit_expr_mut(&mut closure.body);
        self.scope.truncate(depth);
    }

    fn visit_expr_for_loop_mut(&mut self, each: &mut syn::ExprForLoop) {
        let read = self.value(&mut each.expr);
        let depth = self.scope.len();
        self.bind(&mut each.pat, &read);
        self.visit_block_mut(&mut each.body);
        self.scope.truncate(depth);
    }

    fn visit_expr_while_mut(&mut self, looped: &mut syn::ExprWhile) {
        let depth = self.scope.len();
        self.condition(&mut looped.cond);
        self.visit_block_mut(&mut looped.body);
        self.scope.truncate(depth);
    }

    fn visit_expr_if_mut(&mut self, branch: &mut syn::ExprIf) {
        let depth = self.scope.len();
        self.condition(&mut branch.cond);
        self.visit_block_mut(&mut branch.then_branch);
        self.scope.truncate(depth);
        if let Some((_, otherwise)) = &mut branch.else_branch {
            self.visit_expr_mut(otherwise);
        }
    }

    fn visit_expr_match_mut(&mut self, matched: &mut syn::ExprMatch) {
        let read = self.value(&mut matched.expr);
        for arm in &mut matched.arms {
            let depth = self.scope.len();
            self.arm_pattern(&mut arm.pat, &read);
            self.visit_expr_mut(&mut arm.body);
            self.scope.truncate(depth);
        }
    }

    fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
        let Some(ident) = path.path.get_ident() else {
            return;
        };
        if path.qself.is_some() {
            return;
        }
        let Some(id) = self.resolve(&ident.to_string()) else {
            return;
        };
        self.uses.push(id);
        if let Some(new) = self.renames.get(&id) {
            let span = ident.span();
            path.path.segments[0].ident = Ident::new(new, span);
            self.renamed += 1;
        }
    }

    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        visit_mut::visit_field_value_mut(self, field);
        // `Struct { name }` of a renamed local is `Struct { name: __mcp_local0_name }`.
        if field.colon_token.is_none()
            && let (syn::Member::Named(member), Expr::Path(path)) = (&field.member, &field.expr)
            && !path.path.is_ident(member)
        {
            field.colon_token = Some(Default::default());
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        let known = mac.path.segments.last().and_then(|last| {
            EXPRESSIONS
                .iter()
                .find(|(name, _)| last.ident == name)
                .map(|(_, format)| *format)
        });
        let Some((format, mut args)) = known.and_then(|format| {
            let args = mac.parse_body_with(Args::parse_terminated).ok()?;
            Some((format, args))
        }) else {
            self.taint(mac.tokens.clone());
            return;
        };
        let renamed = self.renamed;
        // Named arguments follow the format string (`format!("{x}", x = name)`).
        let after_format = |i: usize| format.is_some_and(|at| i > at);
        let named: Vec<String> = (args.iter().enumerate())
            .filter(|(i, _)| after_format(*i))
            .filter_map(|(_, arg)| named(arg))
            .collect();
        for (i, arg) in args.iter_mut().enumerate() {
            match arg {
                Expr::Assign(assign) if after_format(i) && named_arg(&assign.left).is_some() => {
                    self.visit_expr_mut(&mut assign.right);
                }
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) if format == Some(i) => self.format_string(text, &named),
                other => self.visit_expr_mut(other),
            }
        }
        if self.renamed > renamed {
            mac.tokens = args.to_token_stream();
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The standard macros whose arguments are expressions, each with the position of its format
/// string if it takes one: the names that string captures (`"{name}"`) and the other
/// arguments are renamed as code is. Any other macro's tokens may name a local other than as
/// a use (`tracing`'s `status = %status`).
const EXPRESSIONS: &[(&str, Option<usize>)] = &[
    ("format", Some(0)),
    ("format_args", Some(0)),
    ("print", Some(0)),
    ("println", Some(0)),
    ("eprint", Some(0)),
    ("eprintln", Some(0)),
    ("panic", Some(0)),
    ("todo", Some(0)),
    ("unimplemented", Some(0)),
    ("unreachable", Some(0)),
    ("write", Some(1)),
    ("writeln", Some(1)),
    ("assert", Some(1)),
    ("debug_assert", Some(1)),
    ("assert_eq", Some(2)),
    ("assert_ne", Some(2)),
    ("debug_assert_eq", Some(2)),
    ("debug_assert_ne", Some(2)),
    ("vec", None),
    ("dbg", None),
];

type Args = Punctuated<Expr, Token![,]>;

/// The name of a named argument (`name = value` in `format!`).
fn named(arg: &Expr) -> Option<String> {
    match arg {
        Expr::Assign(assign) => named_arg(&assign.left),
        _ => None,
    }
}

fn named_arg(left: &Expr) -> Option<String> {
    match left {
        Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// The names `pat` binds, each once.
fn names_of(pat: &Pat, out: &mut Vec<String>) {
    for ident in bound(pat) {
        let name = ident.ident.to_string();
        if !out.contains(&name) {
            out.push(name);
        }
    }
}

/// Renames each binding of `name` in `pat` to `new`, spelling out a field it bound in
/// shorthand (`Point { x }` binding `x` is `Point { x: new }`).
fn rename_in(pat: &mut Pat, name: &str, new: &str) {
    struct Renamer<'a>(&'a str, &'a str);
    impl VisitMut for Renamer<'_> {
        fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
            if pat.ident == self.0 {
                pat.ident = Ident::new(self.1, pat.ident.span());
            }
            visit_mut::visit_pat_ident_mut(self, pat);
        }
        fn visit_field_pat_mut(&mut self, field: &mut syn::FieldPat) {
            visit_mut::visit_field_pat_mut(self, field);
            if matches!(&*field.pat, Pat::Ident(p) if p.ident == self.1) {
                field.colon_token.get_or_insert_default();
            }
        }
        // A nested pattern's expressions (a range's bounds) bind nothing.
        fn visit_expr_mut(&mut self, _: &mut Expr) {}
    }
    Renamer(name, new).visit_pat_mut(pat);
}

/// `function` as the flow compiles it: `body`, the body renamed, and each argument under
/// its name in `params`, the arguments renamed.
pub(crate) fn renamed(function: &ItemFn, body: &Block, params: &[Ident]) -> ItemFn {
    let mut renamed = function.clone();
    renamed.block = Box::new(body.clone());
    for input in &mut renamed.sig.inputs {
        if let FnArg::Typed(typed) = input
            && let Pat::Ident(p) = &mut *typed.pat
            && let Some(new) = params.iter().find(|new| shown_ident(new) == p.ident)
        {
            p.ident = new.clone();
        }
    }
    renamed
}

#[cfg(test)]
mod tests;
