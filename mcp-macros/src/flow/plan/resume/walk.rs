//! The walk down a point's path: each block resumed at the statement the path goes into,
//! with the locals the rest of it uses restored ahead of it, and each statement and
//! expression on the way resumed inside it (see the expansion sketch in `resume`).
//!
//! Reads `stages` and `asked` (taking its `cut` and `group`); moves `at` down the path;
//! writes `passed` and `found`.

use std::rc::Rc;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Block, Expr, Ident, Stmt};

use super::syntax::{at_head, cond_lets, declare_assigned, evaluated};
use super::{HeadOf, HidingLets, Location, Resumer};
use crate::flow::analyse::free;
use crate::flow::check::sites::{Head, Step};
use crate::flow::scope::{self, Binding};

impl Resumer<'_> {
    /// `block`, resumed at its statement the first step of `path` names: that statement
    /// resumed inside it, the rest of the block after it, and ahead of them what the block
    /// declared before it and the rest uses, restored or declared again.
    pub(super) fn block(&mut self, block: &Block, path: &[Step]) -> Block {
        let Some((Step::Stmt(i), rest)) = path.split_first() else {
            return block.clone();
        };
        let i = *i;
        let top = std::mem::replace(&mut self.at.top, false);
        let cut = self.asked.cut.take();
        let level = self.at.level;
        let at_head = !top && at_head(rest);
        let here = self.at.here(path);
        if let Some(heads) = self.asked.group_at(&here) {
            return self.heads_block(block, &heads);
        }
        let prefix = self.stages.suffixes.prefix(&self.stages, block, &here, top);
        // Each block further down tells the locals declared here without a value what it
        // assigns before the question (see `restore`); found only where one is declared.
        let lookup = self.stages.lookup();
        if let Some(assigned) = &mut self.passed.assigned_on_path {
            assigned.extend(free::assigned_by_stmts(&block.stmts[..i], lookup));
        } else if prefix.any_unassigned(&self.stages, block, i) {
            self.passed.assigned_on_path = Some(free::Ids::new());
        }
        self.passed.hiding_lets.push(HidingLets {
            prefix: Rc::clone(&prefix),
            stmt: i,
            level,
            here: here.clone(),
        });
        self.at.level = level + 2;
        let mut stmts = vec![self.stmt(&block.stmts[i], rest)];
        self.at.level = level;
        // The rest of a block the body's summaries describe is summarised; a cut block's,
        // or a `let`'s `else` (which has no rest), is walked.
        let walked = cut.is_some() || rest.first() == Some(&Step::LetElse);
        let after = (!walked).then(|| self.stages.suffixes.of(&here, block, self.stages.lookup()));
        // A `let`'s `else` never goes on to the statements after it.
        if rest.first() != Some(&Step::LetElse) {
            match (cut, &after) {
                (Some(tail), _) => stmts.extend(tail),
                (None, _) if top && self.asked.locals_only => {}
                (None, Some(after)) if self.asked.locals_only && i + 1 < block.stmts.len() => {
                    stmts.push(self.found.stand_in(block, &after[i + 1]));
                }
                (None, _) => stmts.extend(block.stmts[i + 1..].iter().cloned()),
            }
        }
        let (free, assigned) = match &after {
            None => {
                free::free_and_assigned_with(&stmts, self.stages.lookup(), &self.found.stand_ins)
            }
            Some(after) => {
                let (lookup, stand_ins) = (self.stages.lookup(), &self.found.stand_ins);
                let summary = free::before(&stmts[0], &after[i + 1], lookup, stand_ins);
                (summary.free, summary.assigned)
            }
        };
        // Items declared before the question that are not declared once for the whole step
        // function (`macro_rules!`, and items whose names the rest of the body also uses; see
        // `items`) are the block's wherever they stand: they go along, ahead of the restored
        // locals, and so do the constant locals the rest uses (see `hoist`). A `fn` the rest
        // does not call stays behind; any other item goes along as a copy the rest may leave
        // unused, which is no concern of the handler as written.
        let used = |ident: &Ident| free.contains(&self.stages.bindings.id(ident));
        // The borrows the hiding `let`s before the question take, taken again first, while
        // the names still mean what they hide.
        let mut restores: Vec<Stmt> = self
            .stages
            .aliases
            .iter()
            .flat_map(|aliases| aliases.iter())
            .filter_map(|(at, hiding)| match at {
                Location::Let { block, stmt } if *block == here && *stmt < i => {
                    Some((*stmt, hiding))
                }
                _ => None,
            })
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_values()
            .flat_map(|hiding| &hiding.borrows)
            .map(|(hidden, alias)| {
                syn::parse_quote! {
                    #[allow(unused_variables)]
                    let #alias = &#hidden;
                }
            })
            .collect();
        for &j in prefix.hoisted.iter().take_while(|&&j| j < i) {
            let stmt = &block.stmts[j];
            match stmt {
                Stmt::Local(local) => {
                    if scope::let_bindings(local).iter().all(|b| used(&b.ident)) {
                        restores.push(stmt.clone());
                    }
                }
                Stmt::Item(syn::Item::Fn(function)) => {
                    if used(&function.sig.ident) {
                        restores.push(stmt.clone());
                    }
                }
                _ => restores.push(syn::parse_quote! {
                    #[allow(dead_code, unused_imports, unused_macros)]
                    #stmt
                }),
            }
        }
        let declared: Vec<Binding> = prefix
            .declared(i, &free, &assigned)
            .into_iter()
            .map(|at| prefix.binding(&self.stages, block, at, i))
            .collect();
        let restored = self.restore(&declared, &free, level);
        let declarations = declare_assigned(&declared, (&free, &assigned), self.stages.bindings);
        if at_head {
            self.found.head_of = Some(HeadOf {
                level,
                plain: !restored.looped && declarations.is_empty(),
                again: restored.again.clone(),
            });
        }
        if top {
            self.found.borrowed_again.extend(restored.again);
        }
        restores.extend(restored.stmts);
        self.found.declares |= !declarations.is_empty();
        restores.extend(declarations);
        restores.extend(stmts);
        Block {
            brace_token: block.brace_token,
            stmts: restores,
        }
    }

    /// Statement `stmt` resumed inside it, at the end of `path`. Resumed inside a `let`'s
    /// `else`, it is that block alone, as a statement: the `let` binds nothing on that way.
    /// Only what stays of the statement is copied, not the constructs the point's path
    /// replaces (a loop's body, an `if`'s other branch).
    pub(super) fn stmt(&mut self, stmt: &Stmt, path: &[Step]) -> Stmt {
        match (stmt, path.split_first()) {
            (Stmt::Local(local), Some((Step::LocalInit, rest))) => {
                let Some(init) = &local.init else {
                    return stmt.clone();
                };
                Stmt::Local(syn::Local {
                    attrs: local.attrs.clone(),
                    modifiers: local.modifiers.clone(),
                    let_token: local.let_token,
                    pat: local.pat.clone(),
                    init: Some(syn::LocalInit {
                        eq_token: init.eq_token,
                        expr: Box::new(self.resumed(&init.expr, rest)),
                        diverge: init.diverge.clone(),
                    }),
                    semi_token: local.semi_token,
                })
            }
            (Stmt::Local(local), Some((Step::LetElse, rest))) => {
                match local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                    Some((_, els)) => Stmt::Expr(self.resumed(els, rest), Some(Default::default())),
                    None => stmt.clone(),
                }
            }
            (Stmt::Expr(expr, semi), Some((Step::ExprStmt, rest))) => {
                Stmt::Expr(self.resumed(expr, rest), *semi)
            }
            _ => stmt.clone(),
        }
    }

    /// `expr` resumed inside it, at the end of `path`.
    pub(super) fn resumed(&mut self, expr: &Expr, path: &[Step]) -> Expr {
        let Some((step, rest)) = path.split_first() else {
            return expr.clone();
        };
        match (step, expr) {
            (Step::Head(head), _) => {
                let mut expr = expr.clone();
                if let Some(child) = head.child(&mut expr) {
                    let written = std::mem::replace(child, Expr::Verbatim(TokenStream::new()));
                    let outer = self.at.in_loop_condition;
                    self.at.in_loop_condition |= *head == Head::WhileCond;
                    *child = self.resumed(&written, rest);
                    self.at.in_loop_condition = outer;
                }
                expr
            }
            (Step::IfThen, Expr::If(branch)) => {
                let block = self.block(&branch.then_branch, rest);
                let once = matches!(&*branch.cond, Expr::Let(_));
                let at = (self.at.here(path), (evaluated(&branch.cond), once));
                self.with_pattern(&cond_lets(&branch.cond), block, at)
            }
            (Step::IfElse, Expr::If(branch)) => match &branch.else_branch {
                Some((_, els)) => self.resumed(els, rest),
                None => expr.clone(),
            },
            (Step::Arm(j), Expr::Match(matched)) => {
                let arm = &matched.arms[*j];
                let body = self.resumed(&arm.body, rest);
                let block = Block {
                    brace_token: Default::default(),
                    stmts: vec![Stmt::Expr(body, None)],
                };
                let at = (self.at.here(path), (matched.expr.to_token_stream(), true));
                self.with_pattern(&[(&arm.pat, &matched.expr)], block, at)
            }
            (Step::BlockExpr, Expr::Block(block)) => Expr::Block(syn::ExprBlock {
                attrs: block.attrs.clone(),
                label: block.label.clone(),
                block: self.block(&block.block, rest),
            }),
            (Step::LoopBody, Expr::Loop(looped)) => self.resumed_loop(looped, rest),
            (Step::WhileBody | Step::ForBody(_), Expr::While(looped)) => {
                self.resumed_while(looped, path)
            }
            _ => expr.clone(),
        }
    }
}
