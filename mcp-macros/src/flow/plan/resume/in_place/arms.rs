//! An `if` chain (`else if`, `if let`) or a `match` whose branches hold points, resumed in
//! place: the level finds the number of the branch that runs, and the statement chooses its
//! branch by that number.
//!
//! Input: point 1 in the second arm of a `match`, point 2 in the `else if` of an `if`:
//! ```text
//! match SCRUT { PAT_0 => E0, PAT_1 if GUARD => { S1; let a: A = __mcp_site!().1?; S2 } }
//! if A { S3 } else if B { let b: B = __mcp_site!().2?; S4 } else { S5 }
//! ```
//! Output: at the end of the level's branch that runs from the start, the arm's number, the
//! user's patterns, guards and conditions evaluated as written; resuming at a point of arm
//! `i`, `i` itself; then each branch written once, those holding points as nests of their
//! own:
//! ```text
//! let (x, __mcp_arm) = if reader.at == 1 {
//!     (TAKE(slot_x), 1)
//! } else {
//!     INNER LEVELS; S..; let __mcp_arm: u32 = match SCRUT { PAT_0 => 0, PAT_1 if GUARD => 1 };
//!     (x, __mcp_arm)
//! };
//! match __mcp_arm { 0 => E0, _ => { LEVEL OF S1; let a: A = __mcp_site!().1?; S2 } }
//! .. let __mcp_arm: u32 = if A { 0 } else if B { 1 } else { 2 }; ..
//! match __mcp_arm { 0 => { S3 } 1 => { reader.arrive(2); let b: B = ..; S4 } _ => { S5 } }
//! ```
//! The scrutinee (or each condition) runs once where the code as written reaches the
//! statement, and never on a resume inside it; its temporaries are dropped before the
//! branch runs. No branch may read a local its pattern (or its
//! condition's `let`) binds: the number carries none of them. Such a statement keeps a copy
//! per point (`straight::within_level`), as do arms with attributes and branches that are
//! not plain blocks.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Block, Expr, Ident, Pat, Stmt, Token};

use super::super::syntax::{cond_lets, let_pattern};
use super::{Builder, Written};
use crate::flow::analyse::free;
use crate::flow::check::sites::Step;
use crate::flow::plan::straight::Branch;
use crate::flow::scope;
use crate::flow::step;

/// One branch of an `if` chain or arm of a `match`.
struct Arm<'e> {
    /// The steps from the statement's expression to the statements of its block.
    at: Vec<Step>,
    /// Its block, where it is a plain one.
    block: Option<&'e Block>,
    /// Its body as written.
    body: Expr,
    /// The names its pattern (or its condition's `let`s) bind.
    bound: Vec<Ident>,
}

impl Builder<'_> {
    /// `expr`, an `if` chain or a `match` with `points` inside its branches, written in
    /// place (the statement's expression at `inside`); `None` where a branch holding points
    /// is no plain block, an arm has attributes, or a branch reads what its pattern binds.
    pub(super) fn arms(
        &self,
        expr: &Expr,
        semi: Option<Token![;]>,
        inside: &[Step],
        points: &[usize],
    ) -> Option<Written> {
        let (attrs, arms, number) = match expr {
            Expr::If(e) => {
                let (arms, number) = if_chain(e)?;
                (&e.attrs, arms, number)
            }
            Expr::Match(e) => {
                let (arms, number) = matched(e)?;
                (&e.attrs, arms, number)
            }
            _ => return None,
        };
        if arms.iter().any(|arm| self.reads_bound(arm)) {
            return None;
        }
        let sites = self.stages.sites;
        let mut held: Vec<Vec<usize>> = vec![Vec::new(); arms.len()];
        for &id in points {
            let rest = sites[id].path.get(inside.len()..)?;
            let j = arms
                .iter()
                .position(|arm| rest.len() > arm.at.len() && rest.starts_with(&arm.at))?;
            held[j].push(id);
        }
        let last = arms.len() - 1;
        let mut written = Vec::new();
        let mut resumed: Vec<(Literal, Vec<u32>)> = Vec::new();
        for (j, (arm, held)) in arms.iter().zip(&held).enumerate() {
            let code = match held.is_empty() {
                true => arm.body.to_token_stream(),
                false => {
                    let at = [inside, &arm.at].concat();
                    resumed.push((arm_number(j), step::numbers(held)));
                    self.block(arm.block?, &at, held)?
                }
            };
            let pattern = match j == last {
                true => quote!(_),
                false => arm_number(j).into_token_stream(),
            };
            written.push(quote!(#pattern => #code,));
        }
        let reader = &self.reader;
        let ((last, _), tests) = resumed.split_last()?;
        let mut chosen = last.to_token_stream();
        for (j, numbers) in tests.iter().rev() {
            let at = step::at(reader, numbers);
            chosen = quote!(if #at { #j } else { #chosen });
        }
        let local = Branch::arm();
        // What the branches and what follows read: one branch or another, the patterns and
        // conditions left to the level.
        let (last, others) = arms.split_last()?;
        let mut reads = Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: as_block(&last.body),
        });
        for arm in others.iter().rev() {
            reads = Expr::If(syn::ExprIf {
                attrs: Vec::new(),
                if_token: Token![if](Span::call_site()),
                cond: Box::new(syn::parse_quote!(true)),
                then_branch: as_block(&arm.body),
                else_branch: Some((Token![else](Span::call_site()), Box::new(reads))),
            });
        }
        Some(Written {
            code: quote!(#(#attrs)* match #local { #(#written)* } #semi),
            branch: Some(Branch {
                resumed: chosen,
                cond: number,
                local,
                ty: quote!(u32),
            }),
            reads: Stmt::Expr(reads, semi),
        })
    }

    /// Whether `arm`'s body reads a name its pattern binds.
    fn reads_bound(&self, arm: &Arm<'_>) -> bool {
        if arm.bound.is_empty() {
            return false;
        }
        let lookup = self.stages.lookup();
        let free = free::free_in_stmts(&[Stmt::Expr(arm.body.clone(), None)], lookup);
        (arm.bound.iter()).any(|ident| free.contains(&lookup.bindings.id(ident)))
    }
}

/// The branches of the `if` chain `e`, its last `else` (or nothing) the last of them, and
/// the expression that numbers the one that runs.
fn if_chain(e: &syn::ExprIf) -> Option<(Vec<Arm<'_>>, TokenStream)> {
    let mut arms = Vec::new();
    let mut conds = Vec::new();
    let mut at = Vec::new();
    let mut e = e;
    loop {
        let bound = cond_lets(&e.cond)
            .into_iter()
            .flat_map(|(pat, _)| bound_by(pat))
            .collect();
        let then = &e.then_branch;
        arms.push(Arm {
            at: [&at[..], &[Step::IfThen]].concat(),
            block: Some(then),
            body: block_expr(then),
            bound,
        });
        conds.push(&e.cond);
        at.push(Step::IfElse);
        match e.else_branch.as_ref().map(|(_, branch)| &**branch) {
            Some(Expr::If(inner)) if inner.attrs.is_empty() => e = inner,
            Some(Expr::If(_)) => return None,
            Some(Expr::Block(block)) => {
                let plain = block.label.is_none() && block.attrs.is_empty();
                arms.push(Arm {
                    at: [&at[..], &[Step::BlockExpr]].concat(),
                    block: plain.then_some(&block.block),
                    body: Expr::Block(block.clone()),
                    bound: Vec::new(),
                });
                break;
            }
            Some(_) => return None,
            None => {
                arms.push(Arm {
                    at: at.clone(),
                    block: None,
                    body: syn::parse_quote!({}),
                    bound: Vec::new(),
                });
                break;
            }
        }
    }
    let numbered = (0..conds.len()).map(arm_number);
    let otherwise = arm_number(conds.len());
    let number = quote!(#(if #conds { #numbered } else)* { #otherwise });
    Some((arms, number))
}

/// The arms of the `match` `e`, and the `match` of its scrutinee that numbers the one that
/// runs, with the user's patterns and guards.
fn matched(e: &syn::ExprMatch) -> Option<(Vec<Arm<'_>>, TokenStream)> {
    if e.arms.is_empty() || e.arms.iter().any(|arm| !arm.attrs.is_empty()) {
        return None;
    }
    let arms = e.arms.iter().enumerate().map(|(j, arm)| {
        let block = match &*arm.body {
            Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                Some(&block.block)
            }
            _ => None,
        };
        let body = &arm.body;
        Arm {
            at: vec![Step::Arm(j), Step::BlockExpr],
            block,
            body: (**body).clone(),
            bound: bound_by(&let_pattern(&arm.pat)),
        }
    });
    let patterns = e.arms.iter().map(|arm| &arm.pat);
    let numbered = (0..e.arms.len()).map(arm_number);
    let (token, scrutinee) = (&e.match_token, &e.expr);
    let number = quote!(#token #scrutinee { #(#patterns => #numbered,)* });
    Some((arms.collect(), number))
}

/// The names `pat` binds.
fn bound_by(pat: &Pat) -> Vec<Ident> {
    let mut bindings = Vec::new();
    scope::pattern_bindings(pat, None, &mut bindings);
    bindings.into_iter().map(|binding| binding.ident).collect()
}

/// `body` as a block: its own, where it is a plain block, else one that gives its value.
fn as_block(body: &Expr) -> Block {
    match body {
        Expr::Block(e) if e.label.is_none() && e.attrs.is_empty() => e.block.clone(),
        body => Block {
            brace_token: syn::token::Brace::default(),
            stmts: vec![Stmt::Expr(body.clone(), None)],
        },
    }
}

/// `block` as an expression.
fn block_expr(block: &Block) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block.clone(),
    })
}

/// Arm `j`'s number, as the statement's `match` and the level write it.
fn arm_number(j: usize) -> Literal {
    Literal::u32_unsuffixed(u32::try_from(j).unwrap_or(u32::MAX))
}
