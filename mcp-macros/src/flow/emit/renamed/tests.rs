//! Renaming writes exactly the hidden local and its uses anew, in code and in the format
//! strings of the standard macros, and leaves alone what it cannot read or need not touch.

use proc_macro2::Ident;
use quote::{ToTokens, format_ident};
use syn::{Block, ItemFn};

use super::written;
use crate::flow::lower::bindings::Bindings;
use crate::flow::lower::shadow::decide;
use crate::flow::parsed::tokens;

/// `function` as the lower stage decides and the emit stage writes it (each step function is
/// written so), with the table.
fn emitted(function: ItemFn, named: &[&Ident], patterns: &[syn::Pat]) -> (ItemFn, Bindings) {
    let mut bindings = Bindings::resolve(named, patterns, &function.block);
    decide(&function.block, &mut bindings);
    let out = written(function.to_token_stream(), &bindings);
    let function = syn::parse2(out).expect("the function written anew parses");
    (function, bindings)
}

/// The names the parameters of `function` bind.
fn param_names(function: &ItemFn) -> Vec<Ident> {
    (function.sig.inputs.iter())
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => match &*typed.pat {
                syn::Pat::Ident(p) => Some(p.ident.clone()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// `body` as emitted, as tokens printed, with the names of the parameters `params` as the
/// step function binds them.
fn renamed(body: &str, params: &[&str]) -> (String, Vec<String>) {
    let typed: Vec<String> = params.iter().map(|p| format!("{p}: T")).collect();
    let function: ItemFn = syn::parse_str(&format!("async fn f({}) {body}", typed.join(", ")))
        .expect("the function parses");
    let named = param_names(&function);
    let named: Vec<&Ident> = named.iter().collect();
    let (function, _) = emitted(function.clone(), &named, &[]);
    let params = param_names(&function)
        .iter()
        .map(ToString::to_string)
        .collect();
    (function.block.to_token_stream().to_string(), params)
}

/// `block` as emitted, the body of a function without parameters, with the table.
fn emitted_block(block: Block) -> (Block, Bindings) {
    let function: ItemFn = syn::parse_quote!(async fn f() #block);
    let (function, bindings) = emitted(function, &[], &[]);
    (*function.block, bindings)
}

#[test]
fn a_binding_that_reads_the_local_it_hides_renames_that_local() {
    let (out, _) = renamed(
        "{ let name = args.name.clone(); let name = name.trim(); let ok = ask().await; (name, ok) }",
        &[],
    );
    let want = "{ let __mcp_local0_name = args.name.clone(); \
                let name = __mcp_local0_name.trim(); let ok = ask().await; (name, ok) }";
    assert_eq!(out, tokens(want));
}

#[test]
fn inline_captures_of_standard_macros_follow_the_rename() {
    let (out, _) = renamed(
        "{ let line = read(); { let line = line.trim(); ask(line).await; } \
         println!(\"{line} {line:?} {}\", line.len()); format!(\"{x}\", x = line) }",
        &[],
    );
    let want = "{ let __mcp_local0_line = read(); { let line = __mcp_local0_line.trim(); ask(line).await; } \
                println!(\"{__mcp_local0_line} {__mcp_local0_line:?} {}\", __mcp_local0_line.len()); \
                format!(\"{x}\", x = __mcp_local0_line) }";
    assert_eq!(out, tokens(want));
}

#[test]
fn shorthand_fields_keep_the_name_they_stand_for() {
    let (out, _) = renamed(
        "{ let x = 1; let x = x + 1; ask().await; let p = Point { x, y: 2 }; \
         let Point { x: inner, .. } = p; inner }",
        &[],
    );
    // `x` here is the hider: the literal's shorthand field names it and is left as written.
    assert_eq!(
        out,
        tokens(
            "{ let __mcp_local0_x = 1; let x = __mcp_local0_x + 1; ask().await; \
         let p = Point { x, y: 2 }; let Point { x: inner, .. } = p; inner }"
        )
    );
    let (out, _) = renamed(
        "{ let x = 1; { let x = x + 1; ask(x).await; } Point { x } }",
        &[],
    );
    assert_eq!(
        out,
        tokens(
            "{ let __mcp_local0_x = 1; { let x = __mcp_local0_x + 1; ask(x).await; } \
         Point { x: __mcp_local0_x } }"
        )
    );
}

#[test]
fn a_hidden_local_that_an_unknown_macro_may_name_keeps_its_name() {
    // The hider is renamed instead.
    let (out, _) = renamed(
        "{ let status = code(); info!(status); let status = status.trim(); ask().await; \
         status }",
        &[],
    );
    let want = "{ let status = code(); info!(status); let __mcp_local0_status = status.trim(); \
                ask().await; __mcp_local0_status }";
    assert_eq!(out, tokens(want));
    // Named by such a macro on both sides, neither is.
    let body = "{ let status = code(); { let status = status.trim(); info!(%status); \
                ask(status).await; } info!(status = %status, \"done\"); status }";
    assert_eq!(renamed(body, &[]).0, tokens(body));
}

#[test]
fn loop_variables_and_match_arms_hide_what_they_read() {
    let (out, _) = renamed(
        "{ let item = first(); for item in &item.parts { let item = item.trim(); ask(item).await; } \
         match item.next { Some(item) if item > 0 => item, _ => 0 } }",
        &[],
    );
    // The `for` reads the outer `item` (renamed); the `let` inside reads the loop variable
    // (renamed in the loop); the arm's `item` reads a field of the outer one.
    assert_eq!(
        out,
        tokens(
            "{ let __mcp_local0_item = first(); for __mcp_local1_item in &__mcp_local0_item.parts { \
         let item = __mcp_local1_item.trim(); ask(item).await; } \
         match __mcp_local0_item.next { Some(item) if item > 0 => item, _ => 0 } }"
        )
    );
}

#[test]
fn a_sub_flow_argument_that_is_hidden_is_renamed_with_its_uses() {
    let (out, params) = renamed(
        "{ let question = question.trim(); ask(question).await }",
        &["question", "other"],
    );
    assert_eq!(params, ["__mcp_local0_question", "other"]);
    assert_eq!(
        out,
        tokens("{ let question = __mcp_local0_question.trim(); ask(question).await }")
    );
}

#[test]
fn a_body_without_await_or_without_a_reading_hider_is_left_as_written() {
    for body in [
        "{ let name = x(); let name = name.trim(); name }",
        "{ let name = x(); let name = other(); ask().await; name }",
        "{ let f = |name: &str| name.len(); let name = y(); ask().await; f(name) }",
    ] {
        assert_eq!(renamed(body, &[]).0, tokens(body));
    }
}

#[test]
fn the_table_shows_a_renamed_local_by_the_name_written() {
    let block: Block =
        syn::parse_str("{ let line = read(); let line = line.trim(); ask(line).await; }")
            .expect("the body parses");
    let (emitted, bindings) = emitted_block(block.clone());
    let first = |block: &Block| match &block.stmts[0] {
        syn::Stmt::Local(syn::Local {
            pat: syn::Pat::Ident(p),
            ..
        }) => p.ident.clone(),
        _ => panic!("the first statement is a `let` of a name"),
    };
    // The body the stages read keeps the name; the output has the new one, at its token.
    let (written, renamed) = (first(&block), first(&emitted));
    assert_eq!(written, "line");
    assert_eq!(renamed, "__mcp_local0_line");
    assert_eq!(renamed.span().start(), written.span().start());
    assert_eq!(bindings.shown(&written), "line");
    assert_eq!(bindings.shown_name(&written), "line");
}

#[test]
fn only_the_format_string_of_a_macro_captures_names() {
    // A string that is a value, not a format string, is left as written: `vec!`'s elements,
    // a `format!` argument, `assert_eq!`'s operands; the message after them is a format.
    let (out, _) = renamed(
        "{ let x = a(); { let x = x.trim(); ask(x).await; } \
         let v = vec![\"{x}\", x]; let s = format!(\"{}{x}\", \"{x}\"); \
         assert_eq!(\"{x}\", x, \"{x} {y}\", y = x); (v, s) }",
        &[],
    );
    let want = "{ let __mcp_local0_x = a(); { let x = __mcp_local0_x.trim(); ask(x).await; } \
                let v = vec![\"{x}\", __mcp_local0_x]; \
                let s = format!(\"{}{__mcp_local0_x}\", \"{x}\"); \
                assert_eq!(\"{x}\", __mcp_local0_x, \"{__mcp_local0_x} {y}\", y = __mcp_local0_x); (v, s) }";
    assert_eq!(out, tokens(want));
}

#[test]
fn a_name_a_parameters_pattern_binds_stays_and_its_hider_is_renamed() {
    // One source, as the compiler gives the macro: each token has a place of its own.
    let function: syn::ItemFn = syn::parse_str(
        "async fn f(State(spare): State<S>, db: Db) { let spare = &spare.0; ask().await; \
         let db = db.clone(); ask().await; (spare, db) }",
    )
    .expect("the function parses");
    let patterns: Vec<syn::Pat> = (function.sig.inputs.iter())
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some((*typed.pat).clone()),
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let (function, _) = emitted(function, &[], &patterns);
    let want = "{ let __mcp_local0_spare = &spare.0; ask().await; \
                let __mcp_local1_db = db.clone(); ask().await; (__mcp_local0_spare, __mcp_local1_db) }";
    assert_eq!(function.block.to_token_stream().to_string(), tokens(want));
    // The parameters keep their names.
    assert_eq!(
        function.sig.inputs.to_token_stream().to_string(),
        "State (spare) : State < S > , db : Db"
    );
}

#[test]
fn widths_and_precisions_named_in_a_format_spec_follow_the_rename() {
    let (out, _) = renamed(
        "{ let w = n(); { let w = w + 1; ask(w).await; } \
         format!(\"{x:>w$} {:.w$} {{w$}} {w}\", y) }",
        &[],
    );
    let want = "{ let __mcp_local0_w = n(); { let w = __mcp_local0_w + 1; ask(w).await; } \
                format!(\"{x:>__mcp_local0_w$} {:.__mcp_local0_w$} {{w$}} {__mcp_local0_w}\", y) }";
    assert_eq!(out, tokens(want));
}

#[test]
fn a_format_spec_with_wide_characters_is_read_without_panicking() {
    // Not valid specs for `format!`, whose own error the user should see: reading them must
    // not panic the macro.
    for text in [
        "{:…w$}",
        "{x:é$}",
        "{:—<w$} {ü}",
        "{:.€$}",
        "{",
        "{:",
        "{:$}",
    ] {
        let _ = crate::flow::syntax::inline_args(text);
    }
    assert_eq!(
        crate::flow::syntax::inline_args("{:—<w$}")
            .into_iter()
            .map(|range| &"{:—<w$}"[range])
            .collect::<Vec<_>>(),
        ["w"]
    );
}

#[test]
fn a_name_an_unknown_macros_string_may_hold_keeps_it() {
    // `log!` may read `w` from its `w$`: the hider is renamed instead.
    let (out, _) = renamed(
        "{ let w = n(); { let w = w + 1; ask(w).await; } log!(\"{:>w$}\", 1); w }",
        &[],
    );
    let want = "{ let w = n(); { let __mcp_local0_w = w + 1; ask(__mcp_local0_w).await; } \
                log!(\"{:>w$}\", 1); w }";
    assert_eq!(out, tokens(want));
}

#[test]
fn a_binding_whose_token_stands_for_another_keeps_its_name_and_the_rest_are_renamed() {
    // One token bound twice, as a declarative macro repeating `$x` makes it: its two bindings
    // cannot be told apart by the token, so neither is renamed; `name` still is.
    let x = format_ident!("x");
    let mut block: Block = syn::parse_str(
        "{ let name = args.name.clone(); let name = name.trim(); ask(name).await; }",
    )
    .expect("the body parses");
    let repeated: Block = syn::parse_quote!({ let #x = 1; let #x = #x + 1; use_it(#x); });
    block.stmts.extend(repeated.stmts);
    let (block, bindings) = emitted_block(block);
    let repeated = bindings.find(&x).expect("`x` is a binding");
    assert!(bindings.clashing(repeated));
    let want = "{ let __mcp_local0_name = args.name.clone(); let name = __mcp_local0_name.trim(); \
                ask(name).await; let x = 1; let x = x + 1; use_it(x); }";
    assert_eq!(block.to_token_stream().to_string(), tokens(want));
}

#[test]
fn a_chain_of_hiders_gives_each_binding_but_the_last_a_name_of_its_own() {
    let (out, _) = renamed(
        "{ let x = 1; let x = x + 1; let x = x * 2; ask(x).await; x }",
        &[],
    );
    let want = "{ let __mcp_local0_x = 1; let __mcp_local1_x = __mcp_local0_x + 1; \
                let x = __mcp_local1_x * 2; ask(x).await; x }";
    assert_eq!(out, tokens(want));
}

#[test]
fn a_step_function_is_written_anew_only_where_a_binding_is_renamed() {
    let step = "async fn step(question: T) { let question = question.trim(); ask(question).await }";
    let function: ItemFn = syn::parse_str(step).expect("the function parses");
    let named = param_names(&function);
    let named: Vec<&Ident> = named.iter().collect();
    let mut bindings = Bindings::resolve(&named, &[], &function.block);
    let tokens = function.to_token_stream();
    assert_eq!(
        written(tokens.clone(), &bindings).to_string(),
        tokens.to_string()
    );
    decide(&function.block, &mut bindings);
    let want: ItemFn = syn::parse_str(
        "async fn step(__mcp_local0_question: T) { let question = __mcp_local0_question.trim(); \
         ask(question).await }",
    )
    .expect("the function parses");
    assert_eq!(
        written(tokens, &bindings).to_string(),
        want.to_token_stream().to_string()
    );
}

#[test]
fn a_step_that_does_not_parse_where_a_shorthand_is_written_out_is_the_macros_error() {
    let block: Block =
        syn::parse_str("{ let x = 1; { let x = x + 1; ask(x).await; } Point { x } }")
            .expect("the body parses");
    let mut bindings = Bindings::resolve(&[], &[], &block);
    decide(&block, &mut bindings);
    assert!(bindings.renames_a_shorthand());
    // Not written half renamed: said to be the macro's own mistake, at the step.
    let unread = written(
        quote::quote!(
            struct S;
        ),
        &bindings,
    )
    .to_string();
    assert!(unread.contains("compile_error") && unread.contains("could not read back"));
}
