//! The locals a resumed block needs from before its question: carried, or had again.

use std::collections::{BTreeSet, HashSet};

use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::{Ident, Stmt};

use super::super::free;
use super::super::scope::{self, Binding, Rederive};
use super::syntax::{declaration, field_name};
use super::{Carried, Resumer};

impl Resumer<'_> {
    /// `let` statements restoring the locals of `declared` that `free` names, the last
    /// declaration of each name winning.
    pub(super) fn restore(
        &mut self,
        declared: &[Binding],
        free: &BTreeSet<String>,
        level: usize,
    ) -> Restored {
        let mut free = free.clone();
        let mut out = Vec::new();
        let mut again = Vec::new();
        let mut looped = false;
        let mut seen = HashSet::new();
        for binding in declared.iter().rev() {
            let name = binding.ident.to_string();
            if !free.contains(&name) || !seen.insert(name.clone()) {
                continue;
            }
            looped |= matches!(binding.rederive, Some(Rederive::Loop(_)));
            match &binding.rederive {
                // A resumable `for` loop's iterator is rebuilt, not carried: its initialiser
                // reads the carried position, declared just before it.
                Some(Rederive::Loop(n)) => {
                    let looped = &self.loops[*n];
                    let position = &looped.position;
                    let init = looped.rewind(&syn::parse_quote!(#position));
                    free.extend(free::free_in_stmts(
                        &[syn::parse_quote!(let _ = #init;)],
                        self.questions,
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
                        self.questions,
                    ));
                    for other in scope::let_bindings(local) {
                        seen.insert(other.ident.to_string());
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
                        .assigned_on_path
                        .as_ref()
                        .is_some_and(|assigned| assigned.contains(&name)) =>
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
            if !self.check(binding) {
                continue;
            }
            let value = format_ident!(
                "__mcp_v{}",
                self.first_value + self.carried.len(),
                span = Span::mixed_site()
            );
            let field = self.field_name(&binding.ident);
            let ident = &binding.ident;
            let mutability = binding.mutable.then(|| quote!(mut));
            out.push(syn::parse_quote! {
                #[allow(unused_mut, unused_variables)]
                let #mutability #ident = #value;
            });
            self.carried.push(Carried {
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

    pub(super) fn field_name(&self, ident: &Ident) -> Ident {
        field_name(ident, |name| self.carried.iter().any(|c| c.field == name))
    }
}

/// What [`Resumer::restore`] writes: the statements, the names it borrows again, and
/// whether it has a loop's iterator again rather than carrying it.
pub(super) struct Restored {
    pub(super) stmts: Vec<Stmt>,
    pub(super) again: Vec<Ident>,
    pub(super) looped: bool,
}
