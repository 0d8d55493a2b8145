//! Which statements resume in place and which keep a copy per question: the shapes of
//! `mcp-runtime/tests/flow_in_place.rs` and the chains of `scripts/build-cost.py`, told apart
//! by the reader's test that only a point resumed in place makes (`Reader::arrive`).

use proc_macro2::TokenStream;

use crate::flow::{self, Kind};

/// Whether `body`, the body of a tool taking `args: Args, cx: Cx`, resumes any point in
/// place.
fn in_place(body: &str) -> bool {
    let item: TokenStream = format!("async fn tool(args: Args, cx: Cx) -> ToolResult {{ {body} }}")
        .parse()
        .expect("the handler lexes");
    let out = flow::expand(Kind::Tool, TokenStream::new(), item).to_string();
    assert!(!out.contains("compile_error"), "expands: {out}");
    out.contains("arrive")
}

#[test]
fn an_if_in_a_loop_resumes_in_place() {
    assert!(in_place(
        "let mut log = Vec::new(); let mut round = 0_u32;
         loop {
             if round != 1 { let word: Word = cx.elicit(\"Word?\").await?; log.push(word.word); }
             round += 1;
             if round == 3 { break; }
         }
         Ok(text(log.join(\" \")))"
    ));
}

#[test]
fn both_branches_of_an_if_resume_in_place() {
    assert!(in_place(
        "let label = format!(\"#{}\", args.start); let mut seen = Vec::new();
         if args.start > 1 {
             let even: Word = cx.elicit(\"Even?\").await?; seen.push(even.word);
         } else {
             let odd: Word = cx.elicit(\"Odd?\").await?; seen.push(odd.word);
             let more: Word = cx.elicit(\"More?\").await?; seen.push(more.word);
         }
         seen.push(label);
         Ok(text(seen.join(\", \")))"
    ));
}

#[test]
fn a_local_only_the_condition_reads_need_not_be_carried() {
    assert!(in_place(
        "let first: Yes = cx.elicit(\"First?\").await?;
         let mut log = vec![first.ok.to_string()];
         if first.ok { let second: Word = cx.elicit(\"Second?\").await?; log.push(second.word); }
         Ok(text(log.join(\" \")))"
    ));
}

#[test]
fn a_while_loop_and_a_block_resume_in_place() {
    assert!(in_place(
        "let mut total = String::new(); let mut n = 0_u32;
         while n < args.start { let part: Word = cx.elicit(\"Part?\").await?; total.push_str(&part.word); n += 1; }
         Ok(text(total))"
    ));
    assert!(in_place(
        "let mut total = String::new();
         { let last: Word = cx.elicit(\"Last?\").await?; total.push_str(&last.word); }
         Ok(text(total))"
    ));
}

#[test]
fn the_build_cost_chains_resume_in_place() {
    let asked = "let answer: Confirm = cx.elicit(\"Go?\").await?; if answer.ok { yes += 1; }";
    let nested = format!("if args.replicas > 0 {{ {asked} }}");
    for body in [
        format!("{nested} {nested}"),
        format!("loop {{ {asked} {asked} break; }}"),
        format!("loop {{ {nested} {nested} break; }}"),
    ] {
        assert!(
            in_place(&format!(
                "let mut yes: u32 = 0; {body} Ok(text(yes.to_string()))"
            )),
            "{body}"
        );
    }
}

#[test]
fn a_local_moved_before_a_question_and_given_a_value_after_it_keeps_a_copy() {
    assert!(!in_place(
        "let mut batches: Vec<Vec<String>> = Vec::new(); let mut current = vec![String::new()];
         let mut round = 0_u32;
         loop {
             if round < 2 {
                 batches.push(current);
                 let first: Word = cx.elicit(\"First?\").await?;
                 current = vec![first.word];
             }
             round += 1;
             if round == 3 { break; }
         }
         batches.push(current);
         Ok(text(format!(\"{batches:?}\")))"
    ));
}

#[test]
fn a_match_whose_arms_bind_nothing_they_read_resumes_in_place() {
    assert!(in_place(
        "let mut log = Vec::new();
         loop {
             match log.len() < 2 {
                 true => { let pick: Word = cx.elicit(\"Pick?\").await?; log.push(pick.word); }
                 false => break,
             }
         }
         Ok(text(log.join(\" \")))"
    ));
    assert!(in_place(
        "let mut log = Vec::new();
         match args.mode {
             Mode::Slow(n) if n > 3 => log.push(String::new()),
             Mode::Slow(_) => { let slow: Word = cx.elicit(\"Slow?\").await?; log.push(slow.word); }
             Mode::Fast => { let fast: Word = cx.elicit(\"Fast?\").await?; log.push(fast.word); }
         }
         Ok(text(log.join(\" \")))"
    ));
    assert!(in_place(
        "let mut log = Vec::new(); let mut turn = 0_u32;
         while turn < 3 {
             match turn % 3 {
                 0 => { let a: Word = cx.elicit(\"A?\").await?; log.push(a.word); }
                 1 => log.push(String::new()),
                 _ => { let b: Word = cx.elicit(\"B?\").await?; log.push(b.word); }
             }
             match turn == 1 { true => { let c: Word = cx.elicit(\"C?\").await?; log.push(c.word); } false => {} }
             turn += 1;
         }
         Ok(text(log.join(\" \")))"
    ));
}

#[test]
fn an_else_if_chain_and_an_if_let_resume_in_place() {
    assert!(in_place(
        "let mut log = Vec::new();
         if args.start == 0 { log.push(String::new()); }
         else if args.start == 1 { let one: Word = cx.elicit(\"One?\").await?; log.push(one.word); }
         else if args.start == 2 { log.push(String::new()); }
         else { let many: Word = cx.elicit(\"Many?\").await?; log.push(many.word); }
         Ok(text(log.join(\" \")))"
    ));
    assert!(in_place(
        "let mut log = Vec::new();
         if let Some(item) = args.items.first() && !item.is_empty() {
             let keep: Yes = cx.elicit(\"Keep?\").await?; log.push(keep.ok.to_string());
         }
         Ok(text(log.join(\" \")))"
    ));
}

#[test]
fn an_arm_that_reads_what_its_pattern_binds_keeps_a_copy() {
    // Read after the question: the binding is carried.
    assert!(!in_place(
        "let mut log = Vec::new();
         if let Some(item) = args.items.first() {
             let keep: Yes = cx.elicit(\"Keep?\").await?;
             if keep.ok { log.push(item.clone()); }
         }
         Ok(text(log.join(\" \")))"
    ));
    // Read only before it, or in an arm without questions: the arm's number holds none.
    assert!(!in_place(
        "let mut log = Vec::new();
         match args.mode {
             Mode::Slow(n) => { log.push(n.to_string()); let w: Word = cx.elicit(\"W?\").await?; log.push(w.word); }
             Mode::Fast => log.push(String::new()),
         }
         Ok(text(log.join(\" \")))"
    ));
    assert!(!in_place(
        "let mut log = Vec::new();
         match args.mode {
             Mode::Slow(n) => log.push(format!(\"{n}\")),
             Mode::Fast => { let w: Word = cx.elicit(\"W?\").await?; log.push(w.word); }
         }
         Ok(text(log.join(\" \")))"
    ));
}

#[test]
fn a_local_read_only_before_the_question_keeps_a_copy() {
    assert!(!in_place(
        "let note = format!(\"n{}\", args.start); let mut log = Vec::new();
         if args.start > 0 { log.push(note); let word: Word = cx.elicit(\"Word?\").await?; log.push(word.word); }
         Ok(text(log.join(\" \")))"
    ));
}
