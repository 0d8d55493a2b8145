//! The summaries found from a block's end agree with the finder run over each run of
//! statements as a whole.

use std::collections::HashMap;

use syn::Block;

use super::{free_and_assigned_in_stmts, suffixes};

/// Bodies whose statements bind, shadow, assign before reading, assign on some ways only,
/// and read through macros, closures, loops and patterns.
const BODIES: &[&str] = &[
    "{ let x = a + 1; let x = x * b; y = x; let z; if x > 0 { z = 1; } else { z = 2; } use_(z, y); x }",
    "{ total = 0; for item in &items { total += item.len(); } let label; match total { 0 => label = \"none\", n if n > 3 => { label = \"many\"; } _ => return total } format!(\"{label} {total} {extra}\") }",
    "{ let Some(first) = items.first() else { return fallback; }; let shout = |s: &str| s.to_uppercase() + first; 'outer: loop { if done { picked = 1; break 'outer; } picked = 2; break; } shout(name); picked }",
    "{ let (a, b) = pair; while a < limit && { b > 0 } { count = count + 1; } let v = async { a }; tracing_like!(status = %b, other); let c = matches!(a, Some(_)); c }",
    "{ x = 1; let y = { let x = 5; x + w }; if let Some(v) = opt { seen = v; } z = y + x + seen; z }",
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
