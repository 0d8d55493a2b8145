//! Whether each local a point carries can travel: a local hidden at the question by a binding
//! of its name that cannot borrow it first, a borrow, code. What cannot is recorded as a
//! `Refusal`, which the check stage reports (see `flow::refusals`).
//!
//! Reads `stages`, `at` and `passed` (what hides a carried local); writes `found` (carried
//! locals' borrows, the hidden, the refusals).

use super::{Binding, Resumer, free};
use crate::flow::check::refusals::{Refusal, cannot_travel};
use crate::flow::lower::bindings::Bindings;
use crate::flow::scope;
use crate::flow::std_facts::{READS, TAKES_OUT, method_is};
use proc_macro2::{Ident, TokenStream, TokenTree};

impl Resumer<'_> {
    /// Settles each carried local that a local of its name declared further down the path,
    /// before the question, hides there: the state written at the question cannot name it.
    /// Hidden by a `let` with a value, or by a construct's pattern where the construct
    /// evaluates nothing that names it, it is written from a borrow of it taken just before
    /// (asked for in `hidden`, used once `aliases` has it); otherwise it is refused.
    pub(super) fn settle_hidden(&mut self) {
        let Self {
            stages,
            passed,
            found,
            ..
        } = self;
        let bindings = stages.bindings;
        for carried in &mut found.carried {
            let Some(hider) = passed.hider(carried, bindings) else {
                continue;
            };
            // A construct that takes the value out of the hidden local once, before it binds
            // (`if let Some(item) = item.take()`), has it evaluated first, then borrows it
            // (`hidden::hide`).
            let local = &carried.ident;
            let named = named_unshared(&hider.heads, local, bindings)
                && !(hider.once && takes_out(&hider.heads, local, bindings));
            if let Some(at) = hider.at.as_ref().filter(|_| !named) {
                let Some(aliases) = stages.aliases else {
                    found.hidden.push((at.clone(), carried.ident.clone()));
                    continue;
                };
                let alias = aliases.get(at).and_then(|hiding| {
                    hiding
                        .borrows
                        .iter()
                        .find(|(hidden, _)| bindings.id(hidden) == bindings.id(&carried.ident))
                        .map(|(_, alias)| alias.clone())
                });
                if let Some(alias) = alias {
                    carried.alias = Some(alias);
                    continue;
                }
            }
            found.refusals.push(Refusal::Hidden {
                hider: hider.ident.clone(),
                carried: carried.ident.clone(),
            });
        }
    }

    /// Whether a carried local can travel; where it cannot, the refusal is recorded for the
    /// check stage (see `flow::refusals`).
    pub(super) fn travels(&mut self, binding: &Binding) -> bool {
        let reads = || self.question_reads(&binding.ident);
        let operand = self.stages.bindings.is_operand(&binding.ident);
        let Some(what) = cannot_travel(binding, operand, self.at.in_loop_condition, reads) else {
            return true;
        };
        self.found.refusals.push(Refusal::Travels {
            local: binding.ident.clone(),
            what,
        });
        false
    }

    /// Whether the question of the point being resumed reads `local`.
    fn question_reads(&self, local: &syn::Ident) -> bool {
        let sites = self.stages.sites;
        let Some(site) = sites.iter().position(|site| site.path == self.at.full) else {
            return false;
        };
        let question = &sites[site].question;
        free::free_in_stmts(
            &[syn::parse_quote!(let _ = #question;)],
            self.stages.lookup(),
        )
        .contains(&self.stages.bindings.id(local))
    }
}

/// Whether `tokens` are `local.method(args)`, with `method` one of `std`'s that take a value
/// out ([`TAKES_OUT`]) and `args` not naming `local`: the local is borrowed for the call
/// alone, and what the call gives back borrows nothing of it. A token names `local` where
/// the output writes both under one name (`Bindings::same_name`).
fn takes_out(tokens: &TokenStream, local: &Ident, bindings: &Bindings) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    match trees.as_slice() {
        [
            TokenTree::Ident(receiver),
            TokenTree::Punct(dot),
            TokenTree::Ident(method),
            TokenTree::Group(args),
        ] => {
            bindings.same_name(receiver, local)
                && dot.as_char() == '.'
                && method_is(&method.to_string(), TAKES_OUT)
                && args.delimiter() == proc_macro2::Delimiter::Parenthesis
                && !names(&args.stream(), local, bindings)
        }
        _ => false,
    }
}

/// Whether `tokens` name `local` anywhere.
fn names(tokens: &TokenStream, local: &Ident, bindings: &Bindings) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => bindings.same_name(&ident, local),
        TokenTree::Group(group) => names(&group.stream(), local, bindings),
        _ => false,
    })
}

/// Whether `tokens` name `local` other than as `&local` or as the receiver of a method that
/// borrows it shared (`local.as_deref()`, `local.iter()`, `local.len()`), where a borrow of
/// it taken before them would stand in the way. A token names `local` where the output
/// writes both under one name (`Bindings::same_name`).
pub(super) fn named_unshared(tokens: &TokenStream, local: &Ident, bindings: &Bindings) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) if bindings.same_name(ident, local) => {
            let borrowed = i.checked_sub(1).is_some_and(
                |before| matches!(&trees[before], TokenTree::Punct(p) if p.as_char() == '&'),
            );
            !borrowed && !shared_receiver(&trees[i + 1..])
        }
        TokenTree::Group(group) => named_unshared(&group.stream(), local, bindings),
        _ => false,
    })
}

/// Whether `after`, the tokens after a local's name, call a method on it that borrows it
/// shared: `.method(..)` with `method` lending ([`scope::lends_shared`]) or reading ([`READS`]).
fn shared_receiver(after: &[TokenTree]) -> bool {
    match after {
        [
            TokenTree::Punct(dot),
            TokenTree::Ident(method),
            TokenTree::Group(args),
            ..,
        ] => {
            let method = method.to_string();
            dot.as_char() == '.'
                && args.delimiter() == proc_macro2::Delimiter::Parenthesis
                && (scope::lends_shared(&method) || method_is(&method, READS))
        }
        _ => false,
    }
}
