//! What the statements of one block declare, found once per block and read by every point
//! resumed in it: each point then costs the bindings its rest reads, each found by its id,
//! not a walk of the statements before it.
//!
//! Of the walk's records, reads `stages` alone: a block's prefix is the same for every point.

use std::collections::{BTreeSet, HashMap};

use syn::{Block, Stmt};

use super::{Hider, Location, Stages};
use crate::flow::analyse::{free, reborrow};
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::BindingId;
use crate::flow::scope::{self, Binding, Rederive};

/// A block's `let`s, but for those declared again as items (see `hoist`): each binding in
/// order, and the statements declared again that stand among them.
pub(super) struct Prefix {
    bindings: Vec<Declared>,
    /// Where each binding stands in `bindings`, by its id.
    by_id: HashMap<BindingId, usize>,
    /// For each name, as the output writes it (see `shadow`), its first binding in
    /// `bindings`: what hides a carried local of that name declared further up (see
    /// `hider`).
    first_of_name: HashMap<String, usize>,
    /// The `bindings` of `let`s without a value.
    unvalued: Vec<usize>,
    /// The statements `hoisted` holds.
    pub(super) hoisted: Vec<usize>,
    /// The number of the block's statements.
    len: usize,
}

struct Declared {
    stmt: usize,
    /// Had again as a loop's iterator or a borrow, or else (`rederive` `None`) carried, or
    /// declared again without a value where nothing before the question assigns it.
    binding: Binding,
    /// Whether its `let` gives no value.
    unvalued: bool,
    /// What having it again reads.
    reads: free::Ids,
}

impl Prefix {
    /// The bindings of `block`'s `let`s as a walk reading `stages` has them again (the
    /// body's top level when `top`); `here` is the block's path.
    pub(super) fn of(stages: &Stages<'_>, block: &Block, here: &[Step], top: bool) -> Self {
        let mut prefix = Prefix {
            bindings: Vec::new(),
            by_id: HashMap::new(),
            first_of_name: HashMap::new(),
            unvalued: Vec::new(),
            hoisted: Vec::new(),
            len: block.stmts.len(),
        };
        for (j, stmt) in block.stmts.iter().enumerate() {
            if stages.hoisted.holds(stmt, stages.bindings) {
                prefix.hoisted.push(j);
                continue;
            }
            let Stmt::Local(local) = stmt else {
                continue;
            };
            let local = stages.written(here, j, local);
            let again = reborrow::again(local, stages.hoisted, stages.bindings, top);
            for mut binding in scope::let_bindings(local) {
                let looped = stages.loops.iter().position(|l| l.iter == binding.ident);
                let reads = match looped {
                    Some(n) => {
                        binding.rederive = Some(Rederive::Loop(n));
                        let looped = &stages.loops[n];
                        let position = &looped.position;
                        let init = looped.rewind(&syn::parse_quote!(#position));
                        free::free_in_stmts(&[syn::parse_quote!(let _ = #init;)], stages.lookup())
                    }
                    None if again => {
                        binding.rederive = Some(Rederive::Borrow(Box::new(local.clone())));
                        let stmt = Stmt::Local(local.clone());
                        free::free_in_stmts(std::slice::from_ref(&stmt), stages.lookup())
                    }
                    None => free::Ids::new(),
                };
                let at = prefix.bindings.len();
                if local.init.is_none() {
                    prefix.unvalued.push(at);
                }
                prefix.by_id.insert(stages.bindings.id(&binding.ident), at);
                prefix
                    .first_of_name
                    .entry(stages.bindings.written(&binding.ident).to_string())
                    .or_insert(at);
                prefix.bindings.push(Declared {
                    stmt: j,
                    binding,
                    unvalued: local.init.is_none(),
                    reads,
                });
            }
        }
        prefix
    }

    /// Whether this is what `block` declares (and not a block cut shorter).
    pub(super) fn describes(&self, block: &Block) -> bool {
        self.len == block.stmts.len()
    }

    /// Where binding `id` stands, if it is among the first `end` bindings.
    fn find(&self, id: BindingId, end: usize) -> Option<usize> {
        self.by_id.get(&id).copied().filter(|&at| at < end)
    }

    /// How many bindings stand before statement `i`.
    fn before(&self, i: usize) -> usize {
        self.bindings.partition_point(|declared| declared.stmt < i)
    }

    /// The bindings before statement `i` that restoring the bindings `free` reads may have
    /// again or carry, and those declaring again the bindings `assigned` (see
    /// `syntax::declare_assigned`), in order: each read, or read by a binding had again that
    /// stands after it. Any binding left out is one those skip.
    pub(super) fn declared(&self, i: usize, free: &free::Ids, assigned: &free::Ids) -> Vec<usize> {
        let end = self.before(i);
        let mut found = BTreeSet::new();
        let mut pending: Vec<usize> = free
            .iter()
            .chain(assigned)
            .filter_map(|&id| self.find(id, end))
            .collect();
        while let Some(at) = pending.pop() {
            if !found.insert(at) {
                continue;
            }
            let reads = &self.bindings[at].reads;
            pending.extend(reads.iter().filter_map(|&id| self.find(id, at)));
            if matches!(
                self.bindings[at].binding.rederive,
                Some(Rederive::Borrow(_))
            ) {
                // The other bindings of its `let`, which it marks as had.
                let stmt = self.bindings[at].stmt;
                let first = self
                    .bindings
                    .partition_point(|declared| declared.stmt < stmt);
                let last = self
                    .bindings
                    .partition_point(|declared| declared.stmt <= stmt);
                found.extend(first..last);
            }
        }
        found.into_iter().collect()
    }

    /// Binding `at`, as resumed at statement `i` of `block`: a local declared without a
    /// value that the statements between stay without one is declared again without it.
    pub(super) fn binding(
        &self,
        stages: &Stages<'_>,
        block: &Block,
        at: usize,
        i: usize,
    ) -> Binding {
        let declared = &self.bindings[at];
        let mut binding = declared.binding.clone();
        if declared.unvalued && binding.rederive.is_none() {
            let assigned =
                free::assigned_by_stmts(&block.stmts[declared.stmt + 1..i], stages.lookup());
            if !assigned.contains(&stages.bindings.id(&binding.ident)) {
                binding.rederive = Some(Rederive::Unassigned);
            }
        }
        binding
    }

    /// Whether a local declared before statement `i` without a value may still have none at
    /// it.
    pub(super) fn any_unassigned(&self, stages: &Stages<'_>, block: &Block, i: usize) -> bool {
        let end = self.before(i);
        self.unvalued.iter().take_while(|&&at| at < end).any(|&at| {
            matches!(
                self.binding(stages, block, at, i).rederive,
                Some(Rederive::Unassigned)
            )
        })
    }

    /// The first binding of `name` before statement `i`, as a hider at `level` of the block
    /// at `here` (see `hidden::Hider`).
    pub(super) fn hider(&self, name: &str, i: usize, level: usize, here: &[Step]) -> Option<Hider> {
        let first = *self.first_of_name.get(name)?;
        let declared = self.bindings.get(first).filter(|d| d.stmt < i)?;
        let at = (!declared.unvalued).then(|| Location::Let {
            block: here.to_vec(),
            stmt: declared.stmt,
        });
        Some(Hider {
            level,
            ident: declared.binding.ident.clone(),
            at,
            heads: proc_macro2::TokenStream::new(),
            once: true,
        })
    }
}
