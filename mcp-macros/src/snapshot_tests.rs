//! Expansion snapshots of representative inputs, reviewed like code: a two-question tool
//! (`deploy`), a `for` loop that asks, questions in a `while` loop's body resumed in place (one at
//! the head of a statement, two inside an `if`), an `#[elicit]` sub-flow, a tool whose body
//! names `Self` (stepped beside its function), a form and a choice.
//!
//! Each expansion is pretty-printed and compared with its committed file
//! `tests/snapshots/NAME.expanded.rs`. After a deliberate change to the macros' output,
//! regenerate them with `UPDATE_SNAPSHOTS=1 cargo test -p mcp-macros --lib snapshot_tests`
//! and review the diff like code. `deploy`'s input is a file of its own, which the `mcp-tests`
//! crate also compiles through `#[tool]`, and its snapshot is compiled there too.

use proc_macro2::TokenStream;
use quote::quote;

use crate::flow::{self, Kind};
use crate::form;

/// `deploy`'s input, `tests/snapshots/deploy.input.rs`, without its `#[tool]`.
fn deploy() -> TokenStream {
    let mut function: syn::ItemFn =
        syn::parse_str(include_str!("../tests/snapshots/deploy.input.rs"))
            .expect("the snapshot's input is a function");
    function.attrs.retain(|attr| !attr.path().is_ident("tool"));
    quote!(#function)
}

/// Macro output, pretty-printed.
fn pretty(out: TokenStream) -> String {
    let file: syn::File = match syn::parse2(out.clone()) {
        Ok(file) => file,
        Err(error) => panic!("the expansion does not parse as items: {error}\n{out}"),
    };
    prettyplease::unparse(&file)
}

fn check(name: &str, actual: &str) {
    let path = format!(
        "{}/tests/snapshots/{name}.expanded.rs",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, actual).expect("the snapshot file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("cannot read `{path}` ({error}); create it with `UPDATE_SNAPSHOTS=1`")
    });
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "the expansion of `{name}` differs from its snapshot from line {}; review the \
             change and regenerate with `UPDATE_SNAPSHOTS=1`\n\n--- actual ---\n{actual}",
            first + 1
        );
    }
}

#[test]
fn deploy_expansion_matches_snapshot() {
    let actual = pretty(flow::expand(Kind::Tool, TokenStream::new(), deploy()));
    check("deploy", &actual);
}

#[test]
fn for_loop_expansion_matches_snapshot() {
    let item = quote! {
        /// Keeps the names the user confirms, one question per name.
        async fn review(args: Names, cx: Cx) -> ToolResult {
            let names: Vec<String> = args.names;
            let mut kept: Vec<String> = Vec::new();
            for name in names {
                let keep: Keep = cx.elicit(format!("Keep {name}?")).await?;
                if keep.ok {
                    kept.push(name);
                }
            }
            Ok(text(kept.join(", ")))
        }
    };
    check(
        "for_loop",
        &pretty(flow::expand(Kind::Tool, TokenStream::new(), item)),
    );
}

#[test]
fn in_a_loop_expansion_matches_snapshot() {
    let item = quote! {
        /// Tags each round with the words the user gives, asking only some rounds.
        async fn tag(args: Rounds, cx: Cx) -> ToolResult {
            let mut log = Vec::new();
            let mut round = 0_u32;
            while round < args.rounds {
                let label = format!("r{round}");
                if round.is_multiple_of(2) {
                    let first: Word = cx.elicit("First?").await?;
                    log.push(format!("{label}:{}", first.word));
                }
                let more: Keep = cx.elicit("More?").await?;
                if more.ok {
                    let second: Word = cx.elicit("Second?").await?;
                    log.push(second.word);
                }
                round += 1;
            }
            Ok(text(log.join(" ")))
        }
    };
    check(
        "in_a_loop",
        &pretty(flow::expand(Kind::Tool, TokenStream::new(), item)),
    );
}

#[test]
fn question_free_expansion_matches_snapshot() {
    let item = quote! {
        /// Greets the caller: asks nothing, so its step is its body.
        async fn greet(args: Greeting, cx: &Cx) -> ToolResult {
            cx.log(format!("greeting {}", args.name));
            Ok(text(format!("Hello, {}!", args.name)))
        }
    };
    check(
        "question_free",
        &pretty(flow::expand(Kind::Tool, TokenStream::new(), item)),
    );
}

#[test]
fn naming_self_expansion_matches_snapshot() {
    let item = quote! {
        /// Asks before naming `Self`'s helper.
        async fn greet(args: Args, cx: Cx) -> ToolResult {
            let sure: Confirm = cx.elicit("Greet?").await?;
            Ok(text(Self::greeting(&args.name, sure.ok)))
        }
    };
    check(
        "naming_self",
        &pretty(flow::expand(Kind::Tool, TokenStream::new(), item)),
    );
}

#[test]
fn sub_flow_expansion_matches_snapshot() {
    let item = quote! {
        /// Asks to confirm `what`, asking again once on a no.
        async fn confirm(cx: &Cx, what: String) -> Result<bool, Refusal> {
            let first: Confirm = cx.elicit(format!("{what}?")).await?;
            if first.ok {
                return Ok(true);
            }
            let really: Confirm = cx.elicit(format!("Really not {what}?")).await?;
            Ok(!really.ok)
        }
    };
    check(
        "sub_flow",
        &pretty(flow::expand(Kind::Elicit, TokenStream::new(), item)),
    );
}

#[test]
fn form_expansion_matches_snapshot() {
    let item = quote! {
        /// Where a service goes.
        #[form(rename_all = "camelCase")]
        struct Target {
            /// The environment.
            environment: Environment,
            /// How many copies run.
            #[form(minimum = 1, maximum = 12, default = 2)]
            replicas: u32,
            /// Who to tell.
            #[form(format = "email")]
            notify_email: Option<String>,
        }
    };
    check("form", &pretty(form::derive_form(item)));
}

#[test]
fn choice_expansion_matches_snapshot() {
    let item = quote! {
        /// Where a service runs.
        #[choice(rename_all = "lowercase")]
        enum Environment {
            /// For trying things.
            Staging,
            /// The real thing.
            #[choice(title = "Production (live)")]
            Production,
        }
    };
    check("choice", &pretty(form::derive_choice(item)));
}

#[test]
fn expansion_is_deterministic() {
    let first = pretty(flow::expand(Kind::Tool, TokenStream::new(), deploy()));
    let second = pretty(flow::expand(Kind::Tool, TokenStream::new(), deploy()));
    assert_eq!(first, second);
}

#[test]
fn a_literal_local_travels_through_a_slot_of_its_literals_which_the_shape_covers() {
    let pick = |first: &str, second: &str| {
        let function = quote! {
            async fn pick(cx: Cx) -> ToolResult {
                let go: Yes = cx.elicit("Go?").await?;
                let mut kind = #first;
                if go.ok {
                    kind = #second;
                }
                let sure: Yes = cx.elicit("Sure?").await?;
                Ok(text(format!("{kind} {}", sure.ok)))
            }
        };
        pretty(flow::expand(Kind::Tool, TokenStream::new(), function))
    };
    let (ab, ba) = (pick("a", "b"), pick("b", "a"));
    assert!(ab.contains(r#"Slot::literals(&["a", "b"])"#), "{ab}");
    let shape = |expansion: &str| {
        let open = expansion.find(".open(").expect("the state is opened");
        let start = open + expansion[open..].find('"').expect("the shape") + 1;
        let end = start + expansion[start..].find("\",").expect("the shape's end");
        expansion[start..end].to_owned()
    };
    assert_ne!(
        shape(&ab),
        shape(&ba),
        "the literals' order is part of the shape"
    );
}
