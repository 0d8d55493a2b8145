//! The body from the start, resumable at the questions in its own statements, including those
//! inside an `if`, a `match`, a block or a loop among them: so that code grows in proportion
//! to the number of questions, not to its square. A resume arm of its own repeats the rest of
//! the body after its question; here the statements after each question's statement appear
//! once, shared by the start and by every point before them.
//!
//! Two kinds of level, built from the first question's statement outwards:
//!
//! - A question that is the head of statement `k` (`let x = __mcp_site!().1?;`): the locals it
//!   needs are restored from its state, or computed by running the statements before it, and
//!   statement `k` then runs as written, its question reading the round's answer:
//!   ```text
//!   let (a, b) = if reader.at == 1 {
//!       (TAKE(slot_a), TAKE(slot_b))
//!   } else {
//!       INNER LEVELS; S.. up to k; let _ = &mut a /* if `mut` */; (a, b)
//!   };
//!   Sk ..
//!   ```
//!   `TAKE(slot_a)` reads a carried value back, the step stopping if it does not decode
//!   (`step::take`). The restored values come first: their types are inference variables
//!   there, which the branch that computes them settles, and nothing is done with them before
//!   it does. A level that brings one local along brings it as itself, not in a tuple
//!   (`let a = if reader.at == 1 { TAKE(slot_a) } else { ..; a };`); one that brings nothing
//!   along is `if !(reader.at == 1) { .. }`. `reader.at` is the point the state names, a
//!   field compared, not a method called (`step::at`).
//!
//! - Questions inside the construct of statement `k` (points 2 and 3): the locals the
//!   statements after `k` need come out of statement `k` as run from the start, or out of a
//!   copy of statement `k` alone resumed at the point (`resume`, given the body cut after `k`
//!   with those locals as its value):
//!   ```text
//!   let (c,) = if !matches!(reader.at, 2 | 3) {
//!       INNER LEVELS; S.. up to k; Sk; (c,)
//!   } else {
//!       match reader.point() {
//!           Some(2) => { TAKES; RESTORES; Sk resumed at 2; (c,) }
//!           _ /* 3 */ => { .. }
//!       }
//!   };
//!   Sk+1 ..
//!   ```
//!   Here the start comes first, so that the copies, which use the values they restore, see
//!   types already settled. When `k` is the body's last statement, its value is the body's:
//!   the level is that `if` itself.
//!
//! - Questions inside statement `k` where it can resume in place (a plain `if`, `loop`,
//!   `while` or block; an `else if` chain, `if let` or `match` choosing its branch by an
//!   `__mcp_arm` number, see `resume::in_place`): no copy; the level is tested as a head's is,
//!   on all the statement's points, and statement `k` is written once, its blocks nested the
//!   same way ([`InPlace`]):
//!   ```text
//!   let (c, __mcp_then) = if matches!(reader.at, 2 | 3) {
//!       (TAKE(slot_c), reader.at == 2)
//!   } else {
//!       INNER LEVELS; S.. up to k; let __mcp_then: bool = COND; (c, __mcp_then)
//!   };
//!   if __mcp_then { NESTED THEN } else { NESTED ELSE }
//!   Sk+1 ..
//!   ```
//!
//! Every statement before the last level appears once. The body's items and constant locals
//! (see `hoist`) move to its top, where they are visible from every level as they were from
//! every statement. A `let` had again rather than carried (see `reborrow`) cannot travel out
//! of a level in its tuple beside what it borrows from; it runs again after each level that
//! ends before a use of it ([`again_at`]):
//! ```text
//! let a = if reader.at == 1 { TAKE(slot_a) } else {
//!     let name = args.name.trim(); S1 .. Sk-1; let _ = &name; a
//! };
//! let name = args.name.trim();      // had again
//! Sk ..
//! ```
//! The points inside one statement of the body that stand in one inner block nest the same
//! way inside one copy of that block, at the heads of its statements and inside them
//! (`resume::group`, [`heads`]).

use std::collections::{BTreeSet, HashMap};

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Block, Ident, Local, Stmt};

use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::analyse::point::{Carried, Resumed};
use crate::flow::check::sites::{Site, Step};
use crate::flow::lower::bindings::Bindings;
use crate::flow::scope::{self, Binding};
use crate::flow::step;

mod again;
mod levels;
pub(crate) use again::{Lets, again_at};
pub(crate) use levels::resumed_here;
use levels::{had_again, head_level, out_of_level, resumed_arms, takes, within_level};

/// Where a question point resumes.
pub(crate) enum Placement {
    /// In the start's nest, at the head of statement `k` of the body, after which the `let`s
    /// `again` run again (see [`again_at`]).
    At { stmt: usize, again: Vec<Local> },
    /// In the start's nest, in a copy of statement `k` of the body resumed at the point; the
    /// body is cut after `k` with `live` as its value, unless `k` is its last statement, and
    /// the `let`s `again` run again after its level. Where the statement's points can, they
    /// resume in place instead ([`InPlace`]), and `live` and `again` are not read.
    Within {
        stmt: usize,
        live: Option<Vec<Binding>>,
        again: Vec<Local>,
    },
    /// In an arm of its own, which repeats the rest of the body: a sub-flow call, a point
    /// whose resumed body declares a local it only assigns, and a point inside a statement
    /// that also holds a question at its head.
    Own,
}

impl Placement {
    /// The statement of the body the point's level stands at, if it is in the start's nest.
    pub(crate) fn stmt(&self) -> Option<usize> {
        match self {
            Self::At { stmt: k, .. } | Self::Within { stmt: k, .. } => Some(*k),
            Self::Own => None,
        }
    }
}

/// Where each of `sites` resumes, in `body` (after the site finder), given the summaries of
/// the runs of the body's statements (see `free::suffixes`) and its `let`s, which resuming
/// reads too (`resume::Suffixes::of_body`).
pub(crate) fn place(
    body: &Block,
    sites: &[Site],
    (summaries, lets): (&[free::Summary], &Lets),
    lookup: free::Lookup<'_>,
) -> Vec<Placement> {
    let heads: BTreeSet<usize> = sites
        .iter()
        .filter(|site| !site.is_sub())
        .filter_map(Site::body_stmt)
        .collect();
    let last = body.stmts.len().saturating_sub(1);
    sites
        .iter()
        .map(|site| {
            if site.is_sub() {
                return Placement::Own;
            }
            if let Some(k) = site.body_stmt() {
                let again = again_at(body, k, lets, lookup, summaries)
                    .into_iter()
                    .cloned();
                return Placement::At {
                    stmt: k,
                    again: again.collect(),
                };
            }
            match site.path.first() {
                Some(Step::Stmt(k)) if !heads.contains(k) => {
                    // After the last statement nothing is live, and nothing had again.
                    let (live, again) = live_after(body, *k, lets, lookup, summaries);
                    let live = (*k != last).then_some(live);
                    Placement::Within {
                        stmt: *k,
                        live,
                        again,
                    }
                }
                _ => Placement::Own,
            }
        })
        .collect()
}

/// What follows statement `k` in the body cut after it, in place of the body's own statements
/// after `k`, which a point inside statement `k` resumes with: the tuple of the locals `live`
/// that those statements use, or nothing where they use none; `None` where `k` is the last
/// statement (`live` is `None`), whose rest is the body's own, empty.
pub(crate) fn cut_tail(live: Option<&[Binding]>) -> Option<Vec<Stmt>> {
    let live = live?;
    if live.is_empty() {
        return Some(Vec::new());
    }
    let idents = live.iter().map(|binding| &binding.ident);
    Some(vec![Stmt::Expr(syn::parse_quote!((#(#idents,)*)), None)])
}

/// The locals declared in the body's statements up to `k` that the statements after `k`
/// read (each binding found by its id), but for those had again after the level; and the
/// `let`s that have those again (see [`again_at`]). `summaries` are those of the body's
/// statements (see `free::suffixes`), `lets` its `let`s.
pub(crate) fn live_after(
    body: &Block,
    k: usize,
    lets: &Lets,
    lookup: free::Lookup<'_>,
    summaries: &[free::Summary],
) -> (Vec<Binding>, Vec<Local>) {
    let again = again_at(body, k + 1, lets, lookup, summaries);
    // The `let`s had again, then the statements after `k`.
    let after = again
        .iter()
        .rev()
        .fold(summaries[k + 1].clone(), |after, local| {
            free::before(&Stmt::Local((*local).clone()), &after, lookup, &[])
        });
    let skipped: Vec<_> = again
        .iter()
        .flat_map(|local| scope::let_bindings(local))
        .map(|binding| lookup.bindings.id(&binding.ident))
        .collect();
    let declared = again::declared_up_to(lets, k, &after.free, &skipped);
    (declared, again.into_iter().cloned().collect())
}

/// What the nest writes for the points inside one statement: the arms that resume them,
/// each with the numbers of its points and its body (its takes, then its resumed copy of
/// the statement).
#[derive(Default)]
pub(crate) struct Within {
    pub(crate) arms: Vec<(Vec<u32>, TokenStream)>,
}

/// A statement of the body whose points resume in place (see `resume::in_place`): a level
/// of the nest tested as a statement's head is, the statement after it written once.
pub(crate) struct InPlace {
    /// The statement of the body.
    pub(crate) stmt: usize,
    pub(crate) points: Vec<usize>,
    /// The body's locals the points carry, the same for each, taken at the level.
    pub(crate) carried: Vec<Carried>,
    /// The body's `let`s had again after the level (see [`again_at`]).
    pub(crate) again: Vec<Local>,
    /// The statement as the nest writes it, its points still marked.
    pub(crate) code: Stmt,
    /// Where the statement is an `if`, which branch runs.
    pub(crate) branch: Option<Branch>,
}

/// Which branch of an `if` (or arm of a `match`) resumed in place runs: `resumed` (a test
/// of the reader) where the flow resumes at one of its points, else `cond`, the `if`'s
/// condition (or the arm's number, found by matching the scrutinee), evaluated at the end of
/// the level's branch that runs from the start, into `local` of type `ty`. The statement
/// then tests `local`, so that a local only its condition reads need not come out of the
/// level.
pub(crate) struct Branch {
    pub(crate) resumed: TokenStream,
    pub(crate) cond: TokenStream,
    pub(crate) local: Ident,
    pub(crate) ty: TokenStream,
}

impl Branch {
    /// The local that holds whether an `if`'s `then` block runs.
    pub(crate) fn taken() -> Ident {
        Ident::new("__mcp_then", proc_macro2::Span::mixed_site())
    }

    /// The local that holds the number of the arm (or branch of an `if` chain) that runs.
    pub(crate) fn arm() -> Ident {
        Ident::new("__mcp_arm", proc_macro2::Span::mixed_site())
    }
}

/// A level of an inner block whose points resume together (see `resume::group`).
pub(crate) enum BlockLevel {
    /// A point at the head of statement `stmt`, and its locals of the block.
    Head {
        stmt: usize,
        id: usize,
        carried: Vec<Carried>,
        again: Vec<Local>,
    },
    /// Points inside statement `stmt`, which brings `live` out (or, when `None`, is the
    /// block's last and gives its value), each arm resuming a copy of that statement alone.
    Within {
        stmt: usize,
        live: Option<Vec<Binding>>,
        again: Vec<Local>,
        points: Within,
    },
}

/// Inner block `block`, resumed at any of the points of `levels` (in statement order):
/// nested as the body is, from the first level's statement on. The innermost level is
/// reached only at its own points: a head takes its locals without a test, points inside a
/// statement go straight to their arms, and nothing before that statement is run.
pub(crate) fn heads(
    block: &Block,
    levels: &[BlockLevel],
    (hoisted, bindings): (&Hoisted, &Bindings),
    reader: &Ident,
) -> Block {
    // The block's items go along, ahead of everything, as in `Resumer::block`.
    let items = block
        .stmts
        .iter()
        .filter(|stmt| hoisted.holds(stmt, bindings));
    let code = |range: std::ops::Range<usize>| -> Vec<&Stmt> {
        block.stmts[range]
            .iter()
            .filter(|stmt| !hoisted.holds(stmt, bindings))
            .collect()
    };
    let mut inner = TokenStream::new();
    let mut start = None;
    for level in levels {
        // The block's borrows had again run again after the level, as the body's do.
        let (BlockLevel::Head { again, .. } | BlockLevel::Within { again, .. }) = level;
        let (lets, uses) = had_again(again);
        inner = match (level, start) {
            (
                BlockLevel::Head {
                    stmt, id, carried, ..
                },
                Some(start),
            ) => head_level(inner, &code(start..*stmt), carried, *id, reader, &uses),
            (BlockLevel::Head { carried, .. }, None) if carried.is_empty() => TokenStream::new(),
            (BlockLevel::Head { carried, .. }, None) => {
                let takes = takes(carried);
                let (bindings, _, _) = out_of_level(carried.iter().map(|c| (&c.ident, c.mutable)));
                quote! {
                    #[allow(unused_mut)]
                    let (#(#bindings,)*) = (#(#takes,)*);
                }
            }
            (
                BlockLevel::Within {
                    stmt, live, points, ..
                },
                Some(start),
            ) => {
                let upto = code(start..stmt + 1);
                within_level(inner, &upto, live.as_deref(), points, reader, &uses)
            }
            (BlockLevel::Within { live, points, .. }, None) => {
                let resumed = resumed_arms(points, reader);
                match live {
                    Some(live) if !live.is_empty() => {
                        let (bindings, _, _) =
                            out_of_level(live.iter().map(|b| (&b.ident, b.mutable)));
                        quote! {
                            #[allow(unused_mut)]
                            let (#(#bindings,)*) = { #resumed };
                        }
                    }
                    // The block's value, or nothing brought out.
                    _ => resumed,
                }
            }
        };
        inner.extend(lets);
        start = Some(match level {
            BlockLevel::Head { stmt, .. } => *stmt,
            BlockLevel::Within { stmt, .. } => stmt + 1,
        });
    }
    let after = code(start.unwrap_or(0)..block.stmts.len());
    syn::parse_quote!({
        #(
            #[allow(dead_code, unused_imports, unused_macros, unused_variables)]
            #items
        )*
        #inner
        #(#after)*
    })
}

/// The body, resumable at every point `placements` put in the start's nest, for the step
/// function's opened state `reader`; `within[k]` holds the arms of the points inside
/// statement `k`, or `in_place` the level of statement `k`, which `body` holds as
/// [`InPlace::code`] writes it.
pub(crate) fn nest(
    body: &Block,
    (placements, in_place): (&[Placement], &[InPlace]),
    resumed: &[Resumed],
    within: &HashMap<usize, Within>,
    (hoisted, bindings): (&Hoisted, &Bindings),
    reader: &Ident,
) -> TokenStream {
    let items: Vec<&Stmt> = body
        .stmts
        .iter()
        .filter(|stmt| hoisted.holds(stmt, bindings))
        .collect();
    let code = |range: std::ops::Range<usize>| -> Vec<&Stmt> {
        body.stmts[range]
            .iter()
            .filter(|stmt| !hoisted.holds(stmt, bindings))
            .collect()
    };
    // By statement; a statement holds questions at its head or inside, not both (`place`).
    let mut levels: Vec<Level<'_>> = Vec::new();
    for (id, placement) in placements.iter().enumerate() {
        match placement {
            Placement::At { stmt, again } => levels.push(Level {
                stmt: *stmt,
                head: Some(id),
                live: None,
                again,
            }),
            Placement::Within { stmt, live, again } => {
                if !levels.iter().any(|l| l.stmt == *stmt && l.head.is_none()) {
                    levels.push(Level {
                        stmt: *stmt,
                        head: None,
                        live: live.as_deref(),
                        again,
                    });
                }
            }
            Placement::Own => {}
        }
    }
    levels.sort_unstable_by_key(|level| (level.stmt, level.head));
    let mut start = 0;
    let mut inner = TokenStream::new();
    for Level {
        stmt: k,
        head,
        live,
        again,
    } in levels
    {
        if let (None, Some(level)) = (head, in_place.iter().find(|level| level.stmt == k)) {
            let (lets, uses) = had_again(&level.again);
            let points = step::numbers(&level.points);
            let here = step::at(reader, &points);
            let before = code(start..k);
            let branch = level.branch.as_ref();
            inner = resumed_here((inner, &before), &level.carried, &here, &uses, branch);
            inner.extend(lets);
            start = k;
            continue;
        }
        let (lets, uses) = had_again(again);
        match (head, within.get(&k)) {
            (Some(id), _) => {
                let carried = &resumed[id].carried;
                inner = head_level(inner, &code(start..k), carried, id, reader, &uses);
                inner.extend(lets);
                start = k;
            }
            (None, Some(points)) => {
                inner = within_level(inner, &code(start..k + 1), live, points, reader, &uses);
                inner.extend(lets);
                start = k + 1;
            }
            (None, None) => {}
        }
    }
    let after = code(start..body.stmts.len());
    // Tokens, not a parsed `Block`: nothing reads the nest again, and parsing the whole
    // body back was most of what building it cost.
    quote!({
        #(#items)*
        #inner
        #(#after)*
    })
}

/// One level of the nest: statement `stmt`, with the question point `head` at its head, or
/// points inside it whose statement brings `live` out.
struct Level<'a> {
    stmt: usize,
    head: Option<usize>,
    live: Option<&'a [Binding]>,
    again: &'a [Local],
}
