//! The statements a block may declare anywhere before a question point, because they mean
//! the same wherever they stand: items, and locals bound once to a literal.
//!
//! Such a statement never travels in the state. Where the flow resumes, it is declared again,
//! ahead of the locals read back from the state. That is how a string literal crosses a
//! question: `let env = "prod";` is a `&'static str`, which cannot be read back from a state,
//! but can be declared again.
//!
//! Input:  `let env = "prod"; let ok: Yes = __mcp_site!().0?; deploy(env, ok)`
//! Output, resumed at point 0: `{ let env = "prod"; let ok: Yes = __mcp_site!().0?; deploy(env, ok) }`

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Expr, ItemFn, Local};

use super::reborrow;
use crate::flow::lower::bindings::Bindings;

pub(crate) use super::facts::Hoisted;
use super::facts::{Bound, constant, single};

impl Hoisted {
    /// The constant locals of `function`: names whose every binding in the function is a
    /// `let` of a literal without `mut`, at most one to a block. A name also bound anywhere
    /// else (a parameter, another `let`, a pattern, a closure's parameter), or twice in one
    /// block, is left to travel as usual: declaring it again ahead of its place could hide
    /// another binding of the name.
    pub(crate) fn of(function: &ItemFn, context: &syn::Ident, bindings: &Bindings) -> Self {
        #[derive(Default)]
        struct Names {
            bound: HashMap<String, Bound>,
            /// Each constant `let`: its block and its name.
            literal: Vec<(usize, String)>,
            /// Each `let` of one name without `mut`: the name and its value.
            single: Vec<(String, Expr)>,
            blocks: usize,
            block: Vec<usize>,
        }
        impl<'ast> Visit<'ast> for Names {
            fn visit_block(&mut self, block: &'ast syn::Block) {
                self.blocks += 1;
                self.block.push(self.blocks);
                visit::visit_block(self, block);
                self.block.pop();
            }
            fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
                let bound = self.bound.entry(pat.ident.to_string()).or_default();
                bound.count += 1;
                bound.mutable |= pat.mutability.is_some();
                visit::visit_pat_ident(self, pat);
            }
            fn visit_local(&mut self, local: &'ast Local) {
                if let Some(name) = constant(local) {
                    let block = self.block.last().copied().unwrap_or(0);
                    self.literal.push((block, name));
                }
                if let (Some(name), Some(init)) = (single(local), &local.init)
                    && init.diverge.is_none()
                {
                    self.single.push((name, (*init.expr).clone()));
                }
                visit::visit_local(self, local);
            }
        }
        let mut names = Names::default();
        names.visit_item_fn(function);
        let Names {
            bound,
            literal,
            single,
            ..
        } = names;
        let mut constants: Vec<String> = Vec::new();
        for (_, name) in &literal {
            let lets: Vec<usize> = literal
                .iter()
                .filter(|(_, other)| other == name)
                .map(|(block, _)| *block)
                .collect();
            let mut blocks = lets.clone();
            blocks.sort_unstable();
            blocks.dedup();
            let only_constants = bound.get(name).map(|b| b.count) == Some(lets.len());
            if only_constants && blocks.len() == lets.len() && !constants.contains(name) {
                constants.push(name.clone());
            }
        }
        let context = context.to_string();
        let mut hoisted = Self {
            constants,
            bindings: bound,
            borrowing: Vec::new(),
            context,
        };
        let roots = reborrow::Roots {
            hoisted: &hoisted,
            bindings,
            once: true,
            bound: &[],
        };
        let borrowing = single
            .into_iter()
            .filter(|(name, init)| {
                hoisted.bound_once(name)
                    && reborrow::stable(init, roots)
                    && !hoisted.literal_choice(init, bindings)
            })
            .map(|(name, _)| name)
            .collect();
        hoisted.borrowing = borrowing;
        hoisted
    }
}
