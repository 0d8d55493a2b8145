//! The locals a resumed block needs from before its question, and those a pattern around it
//! binds: carried, or had again.
//!
//! Reads `stages`, `asked` (the first value's number), `at` and `passed` (what the path
//! assigns); writes `passed` (a pattern's locals hide) and `found` (the carried locals).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Block, Expr, Ident, Pat, Stmt};

use super::syntax::{declaration, let_pattern};
use super::{Carried, Hider, Resumer, block_expr};
use crate::flow::analyse::{free, reborrow};
use crate::flow::check::sites::Step;
use crate::flow::scope::{self, Binding, Rederive};
use crate::flow::step;

impl Resumer<'_> {
    /// `let` statements restoring the locals of `declared` that `free` reads, each binding
    /// once.
    pub(super) fn restore(
        &mut self,
        declared: &[Binding],
        free: &free::Ids,
        level: usize,
    ) -> Restored {
        let mut free = free.clone();
        let mut out = Vec::new();
        let mut again = Vec::new();
        let mut looped = false;
        let mut seen = HashSet::new();
        for binding in declared.iter().rev() {
            let id = self.stages.bindings.id(&binding.ident);
            if !free.contains(&id) || !seen.insert(id) {
                continue;
            }
            looped |= matches!(binding.rederive, Some(Rederive::Loop(_)));
            match &binding.rederive {
                // A resumable `for` loop's iterator is rebuilt, not carried: its initialiser
                // reads the carried position, declared just before it.
                Some(Rederive::Loop(n)) => {
                    let looped = &self.stages.loops[*n];
                    let position = &looped.position;
                    let init = looped.rewind(&syn::parse_quote!(#position));
                    free.extend(free::free_in_stmts(
                        &[syn::parse_quote!(let _ = #init;)],
                        self.stages.lookup(),
                    ));
                    let ident = &binding.ident;
                    out.push(syn::parse_quote!(let mut #ident = #init;));
                    continue;
                }
                // A borrow of a place runs its `let` again, which binds every name of its
                // pattern; the place's locals come before it.
                Some(Rederive::Borrow(local)) => {
                    let stmt = Stmt::Local((**local).clone());
                    free.extend(free::free_in_stmts(
                        std::slice::from_ref(&stmt),
                        self.stages.lookup(),
                    ));
                    for other in scope::let_bindings(local) {
                        seen.insert(self.stages.bindings.id(&other.ident));
                        again.push(other.ident);
                    }
                    out.push(syn::parse_quote! {
                        #[allow(unused_variables)]
                        #stmt
                    });
                    continue;
                }
                // Unless a block further down the path assigns it before the question.
                Some(Rederive::Unassigned)
                    if !self
                        .passed
                        .assigned_on_path
                        .as_ref()
                        .is_some_and(|assigned| assigned.contains(&id)) =>
                {
                    let declaration = declaration(binding);
                    out.push(syn::parse_quote! {
                        #[allow(unused_mut, unused_variables)]
                        #declaration
                    });
                    continue;
                }
                Some(Rederive::Unassigned) | None => {}
            }
            if !self.travels(binding) {
                continue;
            }
            let value = format_ident!(
                "__mcp_v{}",
                self.asked.first_value + self.found.carried.len(),
                span = Span::mixed_site()
            );
            let field = self.found.field_name(&binding.ident, self.stages.bindings);
            let ident = &binding.ident;
            out.push(restored_let(binding.mutable, ident, &value));
            self.found.carried.push(Carried {
                binding: self.stages.bindings.id(ident),
                mutable: binding.mutable,
                ident: ident.clone(),
                field,
                value,
                slot: 0,
                level,
                alias: None,
            });
        }
        out.reverse();
        Restored {
            stmts: out,
            again,
            looped,
        }
    }

    /// `block`, which its patterns (`if let` and `while let` conditions, a match arm's
    /// pattern, each with what it matches) enclose, as an expression with the bindings it
    /// uses had first: a pattern matched against a stable borrow (see `reborrow`) is matched
    /// again, any other's bindings are restored from the state. `at` is the construct's path
    /// and what it evaluates besides (see `hidden::Hider`).
    ///
    /// Output: `{ RESTORES; let PAT = SCRUTINEE else { break 'stop reader.no_longer_matches(); }; BLOCK }`
    pub(super) fn with_pattern(
        &mut self,
        patterns: &[(&Pat, &Expr)],
        block: Block,
        (here, heads): (Vec<Step>, (TokenStream, bool)),
    ) -> Expr {
        let (free, _) =
            free::free_and_assigned_with(&block.stmts, self.stages.lookup(), &self.found.stand_ins);
        let level = self.at.level.saturating_sub(1);
        let mut restored = Vec::new();
        let mut matched: Vec<Stmt> = Vec::new();
        for (pat, scrutinee) in patterns {
            let mut bindings = Vec::new();
            scope::pattern_bindings(pat, None, &mut bindings);
            self.passed.hiding.extend(
                bindings
                    .iter()
                    .map(|binding| Hider::pattern(level, binding, &here, heads.clone())),
            );
            let used = bindings
                .iter()
                .any(|binding| free.contains(&self.stages.bindings.id(&binding.ident)));
            let roots = reborrow::Roots {
                hoisted: self.stages.hoisted,
                bindings: self.stages.bindings,
                once: false,
                bound: &[],
            };
            if used && reborrow::rematch(pat, scrutinee, roots) {
                let pat = let_pattern(pat);
                let (reader, label) = (step::reader(), step::stop_label());
                matched.push(syn::parse_quote! {
                    #[allow(irrefutable_let_patterns, unused_variables)]
                    let #pat = #scrutinee else {
                        break #label #reader.no_longer_matches();
                    };
                });
            } else {
                restored.extend(bindings);
            }
        }
        let mut needed = free;
        needed.extend(free::free_in_stmts(&matched, self.stages.lookup()));
        let mut stmts = self.restore(&restored, &needed, level).stmts;
        stmts.extend(matched);
        if stmts.is_empty() {
            return block_expr(block);
        }
        stmts.extend(block.stmts);
        block_expr(Block {
            brace_token: block.brace_token,
            stmts,
        })
    }
}

/// `#[allow(unused_mut, unused_variables)] let [mut] ident = value;`, built as the tree
/// parsing it gives (one of these per carried local and point, where a parse cost more than
/// the rest of restoring it).
fn restored_let(mutable: bool, ident: &Ident, value: &Ident) -> Stmt {
    let span = Span::call_site();
    let allow = syn::Attribute {
        pound_token: Default::default(),
        style: syn::AttrStyle::Outer,
        bracket_token: Default::default(),
        meta: syn::Meta::List(syn::MetaList {
            path: Ident::new("allow", span).into(),
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens: quote!(unused_mut, unused_variables),
        }),
    };
    let pat = Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: mutable.then(Default::default),
        ident: ident.clone(),
        subpat: None,
    });
    let value = Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: value.clone().into(),
    });
    Stmt::Local(syn::Local {
        attrs: vec![allow],
        let_token: Default::default(),
        modifiers: Default::default(),
        pat,
        init: Some(syn::LocalInit {
            eq_token: Default::default(),
            expr: Box::new(value),
            diverge: None,
        }),
        semi_token: Default::default(),
    })
}

/// What [`Resumer::restore`] writes: the statements, the names it borrows again, and
/// whether it has a loop's iterator again rather than carrying it.
pub(super) struct Restored {
    pub(super) stmts: Vec<Stmt>,
    pub(super) again: Vec<Ident>,
    pub(super) looped: bool,
}
