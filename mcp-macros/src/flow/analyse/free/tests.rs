//! The summaries found from a block's end agree with the finder run over each run of
//! statements as a whole, a marker standing for a run walks as the run in its place, a
//! `let` under `#[cfg]` hides nothing, and what is read is told apart by binding, not name.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Stmt};

use super::{Ids, Lookup, StandIn, free_and_assigned_in_stmts, free_and_assigned_with, suffixes};
use crate::flow::lower::bindings::tests::each;
use crate::flow::lower::bindings::{BindingId, Bindings};

/// Bodies whose statements bind, shadow, assign before reading, assign on some ways only,
/// and read through macros, closures, loops and patterns.
const BODIES: &[&str] = &[
    "{ let x = a + 1; let x = x * b; y = x; let z; if x > 0 { z = 1; } else { z = 2; } use_(z, y); x }",
    "{ total = 0; for item in &items { total += item.len(); } let label; match total { 0 => label = \"none\", n if n > 3 => { label = \"many\"; } _ => return total } format!(\"{label} {total} {extra}\") }",
    "{ let Some(first) = items.first() else { return fallback; }; let shout = |s: &str| s.to_uppercase() + first; 'outer: loop { if done { picked = 1; break 'outer; } picked = 2; break; } shout(name); picked }",
    "{ let (a, b) = pair; while a < limit && { b > 0 } { count = count + 1; } let v = async { a }; tracing_like!(status = %b, other); let c = matches!(a, Some(_)); c }",
    "{ x = 1; let y = { let x = 5; x + w }; if let Some(v) = opt { seen = v; } z = y + x + seen; z }",
    "{ x = 1; if c { y = 2; break; } let w = 3; z = w; if d { total = z; break 'outer; } count = 1; break; }",
    "{ label = \"a\"; { let picked = 1; seen = picked; } 'b: { if c { x = 1; break 'b; } x = 2; } return x; }",
    "{ let y = 1; #[cfg(feature = \"mock\")] let x = y; #[cfg(not(feature = \"mock\"))] let x = 2; x + y }",
];

/// Code around a block (`BLOCK`): read after it, in a loop or a labelled block that its
/// `break`s leave, in a branch beside another that assigns or returns.
const AROUND: &[&str] = &[
    "{ BLOCK }",
    "{ 'outer: loop { if c { BLOCK } else { break; } } (x, y, z, w, total, label, picked, count, seen) }",
    "{ let r = 'outer: { loop { BLOCK } }; (x, y, z, total, label, picked, count, seen, r) }",
    "{ let v = if c { BLOCK } else { x = 0; z = 0; total = 0; label = \"\"; picked = 0; 0 }; (x, z, total, label, picked, seen, v) }",
    "{ let v = match c { 0 => BLOCK, _ => return }; (x, z, total, label, seen, v) }",
    "{ let f = || { 'outer: loop { BLOCK } }; (x, z, seen, f) }",
];

/// The binding table of `body`.
fn resolved(body: &Block) -> Bindings {
    Bindings::resolve(&[], &[], body)
}

fn lookup<'a>(questions: &'a HashMap<usize, Expr>, bindings: &'a Bindings) -> Lookup<'a> {
    Lookup {
        questions,
        bindings,
    }
}

/// The name of each of `ids`, as the tokens of `code` spell it, sorted.
fn names(ids: &Ids, code: &impl ToTokens, bindings: &Bindings) -> Vec<String> {
    fn each(tokens: TokenStream, out: &mut Vec<Ident>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) => out.push(ident),
                TokenTree::Group(group) => each(group.stream(), out),
                _ => {}
            }
        }
    }
    let mut idents = Vec::new();
    each(code.to_token_stream(), &mut idents);
    let mut names: Vec<String> = ids
        .iter()
        .map(|&id| {
            let ident = idents.iter().find(|ident| bindings.id(ident) == id);
            ident.map_or_else(|| format!("{id:?}"), ToString::to_string)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn summaries_from_the_end_agree_with_the_whole_run() {
    let sites = HashMap::new();
    for text in BODIES {
        let block: Block = syn::parse_str(text).expect("the body parses");
        let bindings = resolved(&block);
        let lookup = lookup(&sites, &bindings);
        let summaries = suffixes(&block.stmts, lookup);
        assert_eq!(summaries.len(), block.stmts.len() + 1);
        for (j, summary) in summaries.iter().enumerate() {
            let (free, assigned) = free_and_assigned_in_stmts(&block.stmts[j..], lookup);
            assert_eq!(summary.free, free, "free from statement {j} of {text}");
            assert_eq!(
                summary.assigned, assigned,
                "assigned from statement {j} of {text}"
            );
        }
    }
}

/// `around` (a body with `BLOCK` in it) with `block` in place of `BLOCK`, its tokens those of
/// `block` (not printed and parsed again), so that one binding table covers both.
fn around_block(around: &str, block: &Block) -> Block {
    struct Put<'b>(&'b Block);
    impl VisitMut for Put<'_> {
        fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
            if matches!(stmt, Stmt::Macro(mac) if mac.mac.path.is_ident("BLOCK")) {
                *stmt = Stmt::Expr(block_expr(self.0), None);
            }
            visit_mut::visit_stmt_mut(self, stmt);
        }
        fn visit_expr_mut(&mut self, expr: &mut Expr) {
            if matches!(expr, Expr::Macro(mac) if mac.mac.path.is_ident("BLOCK")) {
                *expr = block_expr(self.0);
            }
            visit_mut::visit_expr_mut(self, expr);
        }
    }
    fn block_expr(block: &Block) -> Expr {
        Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: block.clone(),
        })
    }
    let mut whole: Block = syn::parse_str(&around.replace("BLOCK", "BLOCK!()")).expect("parses");
    Put(block).visit_block_mut(&mut whole);
    whole
}

#[test]
fn a_marker_walks_as_the_run_it_stands_for() {
    let sites = HashMap::new();
    for text in BODIES {
        let block: Block = syn::parse_str(text).expect("the body parses");
        for around in AROUND {
            let whole = around_block(around, &block);
            let bindings = resolved(&whole);
            let lookup = lookup(&sites, &bindings);
            let summaries = suffixes(&block.stmts, lookup);
            let expected = free_and_assigned_in_stmts(&whole.stmts, lookup);
            for (j, summary) in summaries.iter().enumerate().take(block.stmts.len()) {
                let stand_ins = [StandIn::rest_of(&block, summary.clone())];
                let mut cut = block.clone();
                cut.stmts.truncate(j);
                cut.stmts.push(StandIn::marker(0));
                let marked = around_block(around, &cut);
                let walked = free_and_assigned_with(&marked.stmts, lookup, &stand_ins);
                assert_eq!(walked, expected, "from statement {j} of {text} in {around}");
            }
        }
    }
}

#[test]
fn a_let_under_cfg_may_be_compiled_out_and_hides_nothing() {
    let block: Block =
        syn::parse_str("{ #[cfg(feature = \"mock\")] let url = local(); #[allow(unused)] let port = 1; fetch(url, port) }")
            .expect("the body parses");
    let bindings = resolved(&block);
    let free = free_and_assigned_in_stmts(&block.stmts, lookup(&HashMap::new(), &bindings)).0;
    assert_eq!(names(&free, &block, &bindings), ["fetch", "local", "url"]);
}

/// The binding of the token named `name` that is the `n`th of that name in `body`.
fn nth(body: &Block, bindings: &Bindings, name: &str, n: usize) -> BindingId {
    each(body, bindings, name)[n]
}

#[test]
fn two_bindings_of_one_name_in_nested_scopes_are_read_apart() {
    // The inner block reads its own `x`; the statement after it, the outer one.
    let body: Block =
        syn::parse_str("{ let x = 1; { let x = 2; ask(x); } keep(x) }").expect("parses");
    let bindings = resolved(&body);
    let (outer, inner) = (nth(&body, &bindings, "x", 0), nth(&body, &bindings, "x", 2));
    assert_ne!(outer, inner);
    let questions = HashMap::new();
    let lookup = lookup(&questions, &bindings);
    let Stmt::Expr(Expr::Block(nested), _) = &body.stmts[1] else {
        panic!("the second statement is a block");
    };
    // After the inner `let`, the rest of the inner block reads the inner `x` alone.
    let rest = free_and_assigned_in_stmts(&nested.block.stmts[1..], lookup).0;
    assert!(rest.contains(&inner) && !rest.contains(&outer));
    // From the inner block on, the outer `x` is read, and the inner one is not: its `let`
    // is walked, so it is not free, though it has the name the outer one has.
    let summaries = suffixes(&body.stmts, lookup);
    assert!(summaries[1].free.contains(&outer) && !summaries[1].free.contains(&inner));
    // The whole body reads neither: it declares both.
    assert!(!summaries[0].free.contains(&outer) && !summaries[0].free.contains(&inner));
}

#[test]
fn a_moved_then_reassigned_local_is_assigned_not_read() {
    // `current` is moved into the push, then given a new value before any read: what follows
    // the push assigns it first, and reads nothing of the value moved away.
    let body: Block = syn::parse_str(
        "{ let mut current = start(); batches.push(current); let first = next(); \
         current = vec![first]; keep(current) }",
    )
    .expect("parses");
    let bindings = resolved(&body);
    let current = nth(&body, &bindings, "current", 0);
    let questions = HashMap::new();
    let summaries = suffixes(&body.stmts, lookup(&questions, &bindings));
    // From the push on, `current` is read (the push moves it).
    assert!(summaries[1].free.contains(&current));
    // After the push, it is assigned before it is read: declared, not carried.
    assert!(!summaries[2].free.contains(&current));
    assert!(summaries[2].assigned.contains(&current));
    assert_eq!(
        names(&summaries[2].free, &body, &bindings),
        ["keep", "next"]
    );
}
