//! Points inside an `if`, a `loop`, a `while`, a block, an `else if` chain, an `if let` or a
//! `match` (the last three in `arms`) among the body's statements, resumed in place: the
//! statement appears once in the start's nest, the reader steering its control flow, and
//! each block holding points is written as a nest of its own (see `straight`), so that no
//! point's code is copied and each question costs the compiler its own statement.
//!
//! Input: point 1 at the head of a statement of an `if`'s `then` block, point 2 at the head
//! of one of a loop's body:
//! ```text
//! if COND { let a: A = __mcp_site!().1?; S1 }
//! loop { S2; let b: B = __mcp_site!().2?; S3 }
//! ```
//! Output: each statement a level of the start's nest, tested as a point at a statement's
//! head is (`straight::resumed_here`), and written once:
//! ```text
//! let (x, __mcp_then) = if reader.at == 1 {
//!     (TAKE(slot_x), true)                     // the branch the point stands in
//! } else {
//!     INNER LEVELS; S..; let __mcp_then: bool = COND; (x, __mcp_then)
//! };
//! if __mcp_then {
//!     reader.arrive(1);                        // the `then` block, nested
//!     let a: A = __mcp_site!().1?; S1
//! }
//! let y = if reader.at == 2 { TAKE(slot_y) } else { LEVEL ABOVE; if ..; y };
//! loop {
//!     let c = if reader.arrive(2) { TAKE(slot_c) } else { S2; c };
//!     let b: B = __mcp_site!().2?; S3
//! }
//! ```
//! Resuming at a point of the `then` block, `COND` is not evaluated, as the statement's
//! copy never did; resuming at an earlier point, or from the start, `COND` runs as written,
//! at the end of the level (so a local only it reads need not come out). A `while` tests
//! `matches!(reader.at, ..) || (COND)`. The innermost test of a point (`Reader::arrive`) leaves
//! the reader at no point, so a loop's next iteration runs as written.
//!
//! A statement is resumed in place only where every level can hand on its locals (in a
//! tuple, or one alone as itself): each of its points carries, at each level, exactly the
//! locals that the code from the level on reads (none moved before the question and given a
//! value after it, none read only before it, none had again rather than carried), and none
//! declares a local, hides one or borrows one again; and, for a chain or a `match`, where no
//! branch reads what its pattern (or its condition's `let`) binds. Otherwise its points keep
//! a copy of the statement each (`straight::within_level`, `group`): so do `for` and
//! `while let` loops.
//!
//! Of the walk's records, reads `stages` alone; it walks no point's path.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Block, Expr, Ident, Local, Stmt};

use super::syntax::{at_head, cond_lets};
use super::{Carried, Location, Resumed, Stages, level_of};
use crate::flow::analyse::free;
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::plan::straight::{self, Branch, InPlace, Placement};
use crate::flow::scope;
use crate::flow::step;

mod arms;
#[cfg(test)]
mod tests;

/// The statements of `body` whose points (placed `Within` them) resume in place. Each such
/// point's carried locals are put in the order its levels take them, the body's first.
pub(crate) fn in_place(
    body: &Block,
    stages: Stages<'_>,
    placements: &[Placement],
    resumed: &mut [Resumed],
) -> Vec<InPlace> {
    let mut by_stmt: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (id, placement) in placements.iter().enumerate() {
        if let Placement::Within { stmt, .. } = placement {
            by_stmt.entry(*stmt).or_default().push(id);
        }
    }
    let mut made = Vec::new();
    for (k, points) in by_stmt {
        let plain = points.iter().all(|&id| plain(stages, &resumed[id], k));
        if !plain {
            continue;
        }
        let builder = Builder {
            stages,
            resumed,
            reader: step::reader(),
        };
        if let Some(level) = builder.body_level(body, k, &points) {
            for &id in &points {
                resumed[id].carried.sort_by_key(|c| c.level);
            }
            made.push(level);
        }
    }
    made
}

/// Whether point `point`, inside statement `k` of the body, can resume in place as far as
/// its own analysis tells: no local declared, hidden or refused, its locals those of blocks
/// (not of a construct's patterns).
fn plain(stages: Stages<'_>, point: &Resumed, k: usize) -> bool {
    let hides = stages.aliases.is_some_and(|aliases| {
        aliases.keys().any(|at| match at {
            Location::Let { block, stmt } => block
                .first()
                .map_or(*stmt == k, |step| *step == Step::Stmt(k)),
            Location::Construct(path) => path.first() == Some(&Step::Stmt(k)),
        })
    });
    !hides
        && !point.declares
        && point.hidden.is_empty()
        && point.refusals.is_empty()
        && point
            .carried
            .iter()
            .all(|c| c.level % 2 == 0 && c.alias.is_none())
}

struct Builder<'a> {
    stages: Stages<'a>,
    resumed: &'a [Resumed],
    reader: Ident,
}

/// A statement holding points, written in place.
struct Written {
    code: TokenStream,
    /// Where it is an `if`, which branch runs (see `straight::Branch`).
    branch: Option<Branch>,
    /// What the locals it reads are found in: the `if` with its condition left out (the
    /// level evaluates it), or the statement.
    reads: Stmt,
}

impl Builder<'_> {
    /// Statement `k` of the body, holding `points`, as a level of the start's nest.
    fn body_level(&self, body: &Block, k: usize, points: &[usize]) -> Option<InPlace> {
        let written = self.construct(&body.stmts[k], &[Step::Stmt(k)], points)?;
        let (needed, again) = self.needed(body, &[], k, &written.reads)?;
        let again_ids = ids_of(&again, self.stages.bindings);
        let borrowed_ok = points.iter().all(|&id| {
            (self.resumed[id].borrowed_again.iter())
                .all(|ident| again_ids.contains(&self.stages.bindings.id(ident)))
        });
        if !borrowed_ok {
            return None;
        }
        let carried = self.shared(points, 0, &needed)?;
        Some(InPlace {
            stmt: k,
            points: points.to_vec(),
            carried,
            again: again.into_iter().cloned().collect(),
            code: syn::parse2(written.code).ok()?,
            branch: written.branch,
        })
    }

    /// `block`, the body's block at `prefix`, with `points` (all inside it) resumed in place:
    /// a level for each statement that holds points, at its head or inside.
    fn block(&self, block: &Block, prefix: &[Step], points: &[usize]) -> Option<TokenStream> {
        let sites = self.stages.sites;
        let hoisted = self.stages.hoisted;
        // An inner block's items and constant locals would have to move to its top.
        if (block.stmts.iter()).any(|stmt| hoisted.holds(stmt, self.stages.bindings)) {
            return None;
        }
        let level = level_of(prefix);
        let mut by_stmt: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &id in points {
            let Some(Step::Stmt(j)) = sites[id].path.get(prefix.len()) else {
                return None;
            };
            by_stmt.entry(*j).or_default().push(id);
        }
        let mut stmts: Vec<TokenStream> = block.stmts.iter().map(|s| quote!(#s)).collect();
        let mut inner = TokenStream::new();
        let mut start = 0;
        let reader = &self.reader;
        for (j, points) in by_stmt {
            let heads = points
                .iter()
                .filter(|&&id| at_head(&sites[id].path[prefix.len() + 1..]))
                .count();
            let (here, written) = match (heads, points.as_slice()) {
                (0, _) => {
                    let mut path = prefix.to_vec();
                    path.push(Step::Stmt(j));
                    let written = self.construct(&block.stmts[j], &path, &points)?;
                    let numbers = step::numbers(&points);
                    (step::at(reader, &numbers), Some(written))
                }
                // The innermost test of a point: the reader is at no point after it.
                (1, [id]) => {
                    let point = step::number(*id);
                    (quote!(#reader.arrive(#point)), None)
                }
                _ => return None,
            };
            let reads = written.as_ref().map_or(&block.stmts[j], |w| &w.reads);
            let (needed, again) = self.needed(block, prefix, j, reads)?;
            if !again.is_empty() {
                return None;
            }
            let carried = self.shared(&points, level, &needed)?;
            let branch = written.as_ref().and_then(|w| w.branch.as_ref());
            inner = match carried.is_empty() && branch.is_none() && inner.is_empty() && start == j {
                // Nothing to take and nothing to skip: only the point to pass.
                true if heads == 1 => quote!(#here;),
                true => inner,
                false => {
                    let before = (inner, &stmts[start..j]);
                    straight::resumed_here(before, &carried, &here, &quote!(), branch)
                }
            };
            if let Some(written) = written {
                stmts[j] = written.code;
            }
            start = j;
        }
        let after = &stmts[start..];
        Some(quote!({ #inner #(#after)* }))
    }

    /// Statement `stmt`, at `path`, with `points` inside it resumed in place: a plain `if`
    /// whose branches hold them, a `loop` or a plain `while` whose body does, or a block.
    fn construct(&self, stmt: &Stmt, path: &[Step], points: &[usize]) -> Option<Written> {
        let sites = self.stages.sites;
        let Stmt::Expr(expr, semi) = stmt else {
            return None;
        };
        let mut inside = path.to_vec();
        inside.push(Step::ExprStmt);
        let step = |id: usize, n: usize| sites[id].path.get(inside.len() + n);
        let entered = |id: usize| sites[id].path.get(path.len()) == Some(&Step::ExprStmt);
        if points
            .iter()
            .any(|&id| !entered(id) || step(id, 0).is_none())
        {
            return None;
        }
        // Whether every point stands in the construct's part `part` (its body, its block).
        let all_in = |part: Step| points.iter().all(|&id| step(id, 0) == Some(&part));
        let reader = &self.reader;
        let written = |code: TokenStream| Written {
            code,
            branch: None,
            reads: stmt.clone(),
        };
        match expr {
            Expr::If(e) if cond_lets(&e.cond).is_empty() && !else_if(e) => {
                let (then, other): (Vec<usize>, Vec<usize>) = points
                    .iter()
                    .partition(|&&id| step(id, 0) == Some(&Step::IfThen));
                if other.iter().any(|&id| step(id, 0) != Some(&Step::IfElse)) {
                    return None;
                }
                let then_block = match then.is_empty() {
                    true => {
                        let block = &e.then_branch;
                        quote!(#block)
                    }
                    false => {
                        let mut at = inside.clone();
                        at.push(Step::IfThen);
                        self.block(&e.then_branch, &at, &then)?
                    }
                };
                let else_branch = match (&e.else_branch, other.is_empty()) {
                    (None, _) => TokenStream::new(),
                    (Some((token, branch)), true) => quote!(#token #branch),
                    (Some((token, branch)), false) => {
                        let Expr::Block(branch) = &**branch else {
                            return None;
                        };
                        if branch.label.is_some() || !branch.attrs.is_empty() {
                            return None;
                        }
                        if other
                            .iter()
                            .any(|&id| step(id, 1) != Some(&Step::BlockExpr))
                        {
                            return None;
                        }
                        let mut at = inside.clone();
                        at.extend([Step::IfElse, Step::BlockExpr]);
                        let code = self.block(&branch.block, &at, &other)?;
                        quote!(#token #code)
                    }
                };
                let resumed = match (then.is_empty(), other.is_empty()) {
                    (false, true) => quote!(true),
                    (true, _) => quote!(false),
                    (false, false) => step::at(reader, &step::numbers(&then)),
                };
                let (attrs, taken) = (&e.attrs, Branch::taken());
                // What the branches and what follows read, the condition left to the level.
                let mut reads = e.clone();
                *reads.cond = syn::parse_quote!(true);
                Some(Written {
                    code: quote!(#(#attrs)* if #taken #then_block #else_branch #semi),
                    branch: Some(Branch {
                        resumed,
                        cond: e.cond.to_token_stream(),
                        local: taken,
                        ty: quote!(bool),
                    }),
                    reads: Stmt::Expr(Expr::If(reads), *semi),
                })
            }
            Expr::Loop(e) => {
                if !all_in(Step::LoopBody) {
                    return None;
                }
                inside.push(Step::LoopBody);
                let body = self.block(&e.body, &inside, points)?;
                let (attrs, label) = (&e.attrs, &e.label);
                Some(written(quote!(#(#attrs)* #label loop #body #semi)))
            }
            Expr::While(e) if cond_lets(&e.cond).is_empty() => {
                if !all_in(Step::WhileBody) {
                    return None;
                }
                inside.push(Step::WhileBody);
                let body = self.block(&e.body, &inside, points)?;
                let (attrs, label, cond) = (&e.attrs, &e.label, &e.cond);
                let numbers = step::numbers(points);
                // Resuming inside the body, the condition is not evaluated until the next
                // time round, by which time the reader is at no point.
                let at = step::at(reader, &numbers);
                let go = quote!(#at || (#cond));
                Some(written(quote!(#(#attrs)* #label while #go #body #semi)))
            }
            Expr::Block(e) => {
                if !all_in(Step::BlockExpr) {
                    return None;
                }
                inside.push(Step::BlockExpr);
                let block = self.block(&e.block, &inside, points)?;
                let (attrs, label) = (&e.attrs, &e.label);
                Some(written(quote!(#(#attrs)* #label #block #semi)))
            }
            Expr::If(_) | Expr::Match(_) => self.arms(expr, *semi, &inside, points),
            _ => None,
        }
    }

    /// The locals of `block` (the body's block at `prefix`) declared before statement `j`
    /// that `reads` (in place of statement `j`) and the statements after it read, by id,
    /// but for those had again at `j`, and the `let`s that have those again; `None` where
    /// one declared before `j` is given a value from `j` on before it is read, which a
    /// level's tuple would leave out of scope.
    fn needed<'b>(
        &self,
        block: &'b Block,
        prefix: &[Step],
        j: usize,
        reads: &Stmt,
    ) -> Option<(Vec<BindingId>, Vec<&'b Local>)> {
        let stages = self.stages;
        let lookup = stages.lookup();
        let summaries = stages.suffixes.of(prefix, block, lookup);
        let lets = (stages.suffixes).lets(prefix, block, stages.hoisted, lookup.bindings);
        let mut declared: Vec<BindingId> = Vec::new();
        for stmt in &block.stmts[..j] {
            if let Stmt::Local(local) = stmt
                && !stages.hoisted.holds(stmt, lookup.bindings)
            {
                declared.extend(ids_of(&[local], lookup.bindings));
            }
        }
        let after = free::before(reads, &summaries[j + 1], lookup, &[]);
        if declared
            .iter()
            .any(|id| after.assigned.contains(id) && !after.free.contains(id))
        {
            return None;
        }
        let again = straight::again_at(block, j, &lets, lookup, &summaries);
        let again_ids = ids_of(&again, lookup.bindings);
        let mut needed = Vec::new();
        for id in declared {
            if after.free.contains(&id) && !again_ids.contains(&id) && !needed.contains(&id) {
                needed.push(id);
            }
        }
        Some((needed, again))
    }

    /// The locals of `level` that each of `points` carries, the same for each, in order,
    /// and those `needed` (in any order).
    fn shared(&self, points: &[usize], level: usize, needed: &[BindingId]) -> Option<Vec<Carried>> {
        let at_level = |id: usize| -> Vec<Carried> {
            (self.resumed[id].carried.iter())
                .filter(|c| c.level == level)
                .cloned()
                .collect()
        };
        let first = at_level(*points.first()?);
        let ids = |carried: &[Carried]| carried.iter().map(Carried::local).collect::<Vec<_>>();
        if points.iter().any(|&id| ids(&at_level(id)) != ids(&first)) {
            return None;
        }
        let (mut have, mut want) = (ids(&first), needed.to_vec());
        have.sort_unstable();
        want.sort_unstable();
        (have == want).then_some(first)
    }
}

/// The ids of the bindings `lets` make.
fn ids_of(lets: &[&Local], bindings: &Bindings) -> Vec<BindingId> {
    lets.iter()
        .flat_map(|local| scope::let_bindings(local))
        .map(|binding| bindings.id(&binding.ident))
        .collect()
}

/// The points' numbers, as the reader's tests write them.
/// Whether `e`'s `else` branch is another `if`.
fn else_if(e: &syn::ExprIf) -> bool {
    matches!(&e.else_branch, Some((_, branch)) if matches!(**branch, Expr::If(_)))
}
