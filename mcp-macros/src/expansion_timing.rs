//! The macro's own expansion time per handler, printed, never asserted: the chains of
//! `scripts/build-cost.sh` (K yes/no questions in a row, each in an `if`, in a row in a
//! loop's body, each in an `if` in a loop's body) and the snapshot inputs, each expanded by
//! `flow::expand` a few times, the median shown.
//!
//! `cargo test -p mcp-macros --lib expansion_timing -- --ignored --nocapture`
//! (the dev profile, as a crate that uses the macro builds it).

use std::time::{Duration, Instant};

use proc_macro2::TokenStream;

use crate::flow::{self, Kind};

/// K questions of `shape` (as `scripts/build-cost.py` writes them) in one `#[tool]`'s body.
fn chain(count: usize, shape: &str) -> TokenStream {
    let mut lines = Vec::new();
    for k in 0..count {
        let mut asked = format!(
            "let answer_{k}: Confirm = cx.elicit(format!(\"Question {k} for {{}}?\", \
             args.service)).await?; if answer_{k}.ok {{ yes += 1; }}"
        );
        if shape == "nested" || shape == "loop-if" {
            asked = format!("if args.replicas > 0 {{ {asked} }}");
        }
        lines.push(asked);
    }
    let mut body = lines.join("\n");
    if shape == "loop" || shape == "loop-if" {
        body = format!("loop {{ {body} break; }}");
    }
    let function = format!(
        "async fn chain(args: ChainArgs, cx: Cx) -> ToolResult {{ let mut yes: u32 = 0; {body} \
         Ok(text(format!(\"{{}} {{yes}}\", args.service))) }}"
    );
    function.parse().expect("the generated handler lexes")
}

/// One tool of `scripts/build-cost.py`'s leaves as it writes them, asking `count` yes/no
/// questions in a row (`leaf-macro-asking` at 2, `leaf-macro-q0` at 0).
fn leaf(count: usize) -> TokenStream {
    let mut body = String::new();
    if count > 0 {
        body.push_str("let mut yes: u32 = 0;");
    }
    for k in 0..count {
        body.push_str(&format!(
            "let answer_{k}: Confirm = cx.elicit(format!(\"Question {} of {count} (tool 0) for \
             {{}}?\", args.service)).await?; if answer_{k}.ok {{ yes += 1; }}",
            k + 1
        ));
    }
    let (cx, tally) = match count {
        0 => (String::new(), String::new()),
        _ => (", cx: Cx".to_owned(), format!(" {{yes}} of {count} yes")),
    };
    let function = format!(
        "/// Tool 0: says what it did.\npub async fn tool_0(args: Args0{cx}) -> ToolResult {{ \
         {body} Ok(text(format!(\"tool 0 (rev 0): {{}} x{{}} ({{}}){tally}\", args.service, \
         args.replicas, args.reason.as_deref().unwrap_or(\"no reason\")))) }}"
    );
    function.parse().expect("the generated handler lexes")
}

/// The `deploy` snapshot's input, without its `#[tool]`.
fn deploy() -> TokenStream {
    let mut deploy: syn::ItemFn =
        syn::parse_str(include_str!("../tests/snapshots/deploy.input.rs"))
            .expect("the snapshot's input is a function");
    deploy.attrs.retain(|attr| !attr.path().is_ident("tool"));
    quote::quote!(#deploy)
}

/// The median time of expanding `item` under `kind`, over `runs` expansions.
fn median(kind: Kind, item: &TokenStream, runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = flow::expand(kind, TokenStream::new(), item.clone());
            let spent = start.elapsed();
            assert!(
                !out.to_string().contains("compile_error"),
                "the handler expands without errors"
            );
            spent
        })
        .collect();
    times.sort();
    times[runs / 2]
}

#[test]
#[ignore = "a timing, printed: run with --ignored --nocapture"]
fn expansion_time_per_handler() {
    let deploy = deploy();
    println!("{:<28} {:>10}", "handler", "ms");
    println!(
        "{:<28} {:>10.2}",
        "deploy (snapshot)",
        median(Kind::Tool, &deploy, 9).as_secs_f64() * 1e3
    );
    for shape in ["row", "nested", "loop", "loop-if"] {
        let mut at = Vec::new();
        for k in [0, 5, 20, 40] {
            let ms = median(Kind::Tool, &chain(k, shape), 5).as_secs_f64() * 1e3;
            at.push(ms);
            println!("{:<28} {ms:>10.2}", format!("{shape} K={k}"));
        }
        let growth = (at[3] - at[0]) / (at[2] - at[0]);
        println!("{:<28} {growth:>10.2}x", format!("{shape} K=20->40 growth"));
    }
}

/// One chain expanded once, for a count of instructions (`valgrind --tool=callgrind`, which
/// is steady where a clock on a shared machine is not): `MCP_CHAIN` names the shape and K,
/// as `row:40`, or `leaf:Q` for one tool of `scripts/build-cost.py`'s leaves asking Q
/// questions, or is `deploy` for the snapshot's input. The growth from K = 20 to 40 is
/// (I40 - I0) / (I20 - I0) of the totals. Prints the size of the output, in bytes as written.
#[test]
#[ignore = "one expansion, for an instruction count: run with --ignored under callgrind"]
fn expansion_once() {
    let chosen = std::env::var("MCP_CHAIN").unwrap_or_else(|_| "row:20".to_owned());
    let item = match chosen.split_once(':') {
        Some(("leaf", count)) => leaf(count.parse().expect("Q is a number")),
        Some((shape, count)) => chain(count.parse().expect("K is a number"), shape),
        None if chosen == "deploy" => deploy(),
        None => panic!("MCP_CHAIN is `shape:K` or `deploy`"),
    };
    let out = flow::expand(Kind::Tool, TokenStream::new(), item).to_string();
    assert!(
        !out.contains("compile_error"),
        "the handler expands without errors"
    );
    println!("{chosen}: {} bytes out", out.len());
}
