//! The summaries found from a block's end agree with the finder run over each run of
//! statements as a whole, a marker standing for a run walks as the run in its place, and a
//! `let` under `#[cfg]` hides nothing.

use std::collections::HashMap;

use syn::Block;

use super::{StandIn, free_and_assigned_in_stmts, free_and_assigned_with, suffixes};

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

#[test]
fn summaries_from_the_end_agree_with_the_whole_run() {
    let sites = HashMap::new();
    for text in BODIES {
        let block: Block = syn::parse_str(text).expect("the body parses");
        let summaries = suffixes(&block.stmts, &sites);
        assert_eq!(summaries.len(), block.stmts.len() + 1);
        for (j, summary) in summaries.iter().enumerate() {
            let (free, assigned) = free_and_assigned_in_stmts(&block.stmts[j..], &sites);
            assert_eq!(summary.free, free, "free from statement {j} of {text}");
            assert_eq!(
                summary.assigned, assigned,
                "assigned from statement {j} of {text}"
            );
        }
    }
}

#[test]
fn a_marker_walks_as_the_run_it_stands_for() {
    let sites = HashMap::new();
    for text in BODIES {
        let block: Block = syn::parse_str(text).expect("the body parses");
        let summaries = suffixes(&block.stmts, &sites);
        for around in AROUND {
            let whole: Block = syn::parse_str(&around.replace("BLOCK", text)).expect("parses");
            let expected = free_and_assigned_in_stmts(&whole.stmts, &sites);
            for (j, summary) in summaries.iter().enumerate().take(block.stmts.len()) {
                let stand_ins = [StandIn::rest_of(&block, summary.clone())];
                let mut cut = block.clone();
                cut.stmts.truncate(j);
                cut.stmts.push(StandIn::marker(0));
                let cut = quote::quote!(#cut).to_string();
                let marked: Block = syn::parse_str(&around.replace("BLOCK", &cut)).expect("parses");
                let walked = free_and_assigned_with(&marked.stmts, &sites, &stand_ins);
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
    let free = free_and_assigned_in_stmts(&block.stmts, &HashMap::new()).0;
    let free: Vec<&str> = free.iter().map(String::as_str).collect();
    assert_eq!(free, ["fetch", "local", "url"]);
}
