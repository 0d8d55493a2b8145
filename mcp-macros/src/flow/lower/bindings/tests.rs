//! Each use points at the binding Rust would resolve it to, whatever hides it elsewhere.

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{ToTokens, format_ident};
use syn::Block;

use super::{BindingId, BindingKind, Bindings};

/// The table of `body`, with the parameters `params`.
fn resolved(body: &str, params: &[&str]) -> (Block, Bindings) {
    let block: Block = syn::parse_str(body).expect("the body parses");
    let params: Vec<Ident> = params.iter().map(|p| format_ident!("{p}")).collect();
    let named: Vec<&Ident> = params.iter().collect();
    let bindings = Bindings::resolve(&named, &[], &block);
    (block, bindings)
}

/// The binding of each token named `name` in `body`, in the order written. Other stages'
/// tests find a binding by it too.
pub(crate) fn each(body: &impl ToTokens, bindings: &Bindings, name: &str) -> Vec<BindingId> {
    fn idents(tokens: TokenStream, name: &str, out: &mut Vec<Ident>) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(ident) if ident == name => out.push(ident),
                TokenTree::Group(group) => idents(group.stream(), name, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    idents(body.to_token_stream(), name, &mut out);
    out.iter().map(|ident| bindings.id(ident)).collect()
}

fn kind(bindings: &Bindings, id: BindingId) -> Option<BindingKind> {
    bindings.get(id).map(|binding| binding.kind)
}

#[test]
fn a_block_ends_the_scope_of_the_binding_that_hides_a_local() {
    let (body, bindings) = resolved("{ let x = 1; { let x = 2; use_it(x); } use_it(x); }", &[]);
    let [outer, inner, inner_use, outer_use] = each(&body, &bindings, "x")[..] else {
        panic!("four tokens");
    };
    assert_ne!(outer, inner);
    assert_eq!(inner_use, inner);
    assert_eq!(outer_use, outer);
    assert_eq!(kind(&bindings, outer), Some(BindingKind::Let));
}

#[test]
fn a_let_in_a_match_arm_hides_the_arms_pattern_for_the_rest_of_the_arm() {
    let (body, bindings) = resolved(
        "{ match v { Some(y) => { use_it(y); let y = y + 1; y } other => other } }",
        &["v"],
    );
    let [pattern, read, hider, hider_read, last] = each(&body, &bindings, "y")[..] else {
        panic!("five tokens");
    };
    assert_eq!(kind(&bindings, pattern), Some(BindingKind::Pattern));
    assert_eq!(read, pattern);
    assert_eq!(hider_read, pattern);
    assert_eq!(kind(&bindings, hider), Some(BindingKind::Let));
    assert_eq!(last, hider);
    assert_eq!(bindings.get(hider).and_then(|b| b.hides), Some(pattern));
    let [scrutinee] = each(&body, &bindings, "v")[..] else {
        panic!("one token");
    };
    assert_eq!(kind(&bindings, scrutinee), Some(BindingKind::Parameter));
}

#[test]
fn a_closures_parameter_hides_a_local_only_in_the_closure() {
    let (body, bindings) = resolved("{ let a = 1; let f = |a| a + 1; f(a) }", &[]);
    let [local, param, in_closure, after] = each(&body, &bindings, "a")[..] else {
        panic!("four tokens");
    };
    assert_eq!(in_closure, param);
    assert_eq!(after, local);
    assert_ne!(local, param);
    assert_eq!(kind(&bindings, param), Some(BindingKind::Pattern));
}

#[test]
fn a_for_loops_pattern_is_seen_in_its_body_and_not_after() {
    let (body, bindings) = resolved(
        "{ let item = 0; for item in items(item) { use_it(item); } item }",
        &[],
    );
    let [local, pattern, collection, in_body, after] = each(&body, &bindings, "item")[..] else {
        panic!("five tokens");
    };
    assert_eq!(collection, local);
    assert_eq!(in_body, pattern);
    assert_eq!(after, local);
    assert_eq!(kind(&bindings, pattern), Some(BindingKind::LoopPattern));
    // The pattern hides the local its collection reads.
    assert_eq!(bindings.get(pattern).and_then(|b| b.hides), Some(local));
}

#[test]
fn a_name_used_before_and_after_it_is_hidden_points_at_each_binding_in_turn() {
    let (body, bindings) = resolved("{ let n = 1; use_it(n); let n = n + 1; use_it(n) }", &[]);
    let [first, before, second, read, after] = each(&body, &bindings, "n")[..] else {
        panic!("five tokens");
    };
    assert_eq!(before, first);
    assert_eq!(read, first);
    assert_eq!(after, second);
    assert_ne!(first, second);
    assert_eq!(bindings.get(second).and_then(|b| b.hides), Some(first));
    assert_eq!(bindings.get(first).and_then(|b| b.hides), None);
}

#[test]
fn a_format_strings_capture_points_at_the_binding_in_scope() {
    let (body, bindings) = resolved(
        r#"{ let name = 1; { let name = 2; println!("{name}"); } format!("{name} {x}", x = name) }"#,
        &[],
    );
    let ids = each(&body, &bindings, "name");
    let [outer, inner, argument] = ids[..] else {
        panic!("three tokens outside the literals: {}", ids.len());
    };
    assert_eq!(argument, outer);
    let literals: Vec<syn::LitStr> = {
        let mut out = Vec::new();
        fn find(tokens: TokenStream, out: &mut Vec<syn::LitStr>) {
            for tree in tokens {
                match tree {
                    TokenTree::Literal(lit) => {
                        out.extend(syn::parse2(lit.into_token_stream()).ok())
                    }
                    TokenTree::Group(group) => find(group.stream(), out),
                    _ => {}
                }
            }
        }
        find(body.to_token_stream(), &mut out);
        out.into_iter()
            .filter(|lit| lit.value().contains('{'))
            .collect()
    };
    let [inner_literal, outer_literal] = &literals[..] else {
        panic!("two format strings");
    };
    assert_eq!(bindings.captured("name", inner_literal.span()), Some(inner));
    assert_eq!(bindings.captured("name", outer_literal.span()), Some(outer));
    // `x` is the macro's own argument, not a local.
    assert_eq!(bindings.captured("x", outer_literal.span()), None);
}

#[test]
fn another_macros_tokens_fix_the_names_they_may_name() {
    let (body, bindings) = resolved(
        "{ let status = 1; let kept = 2; info!(status = %status); use_it(kept) }",
        &[],
    );
    let status = each(&body, &bindings, "status")[0];
    let kept = each(&body, &bindings, "kept")[0];
    assert_eq!(bindings.get(status).map(|b| b.fixed), Some(true));
    assert_eq!(bindings.get(kept).map(|b| b.fixed), Some(false));
}

#[test]
fn a_local_the_macro_made_later_gets_one_id_for_all_its_tokens() {
    let (_, bindings) = resolved("{ let a = 1; a }", &[]);
    let made = format_ident!("__mcp_operand0");
    let id = bindings.id(&made);
    assert_eq!(bindings.id(&made.clone()), id);
    assert_eq!(bindings.get(id).map(|b| b.kind), None);
    assert_ne!(bindings.id(&format_ident!("__mcp_operand1")), id);
}

#[test]
fn a_renamed_binding_is_written_anew_at_each_of_its_tokens_and_no_other() {
    let (body, mut bindings) = resolved("{ let name = 1; let name = name + 1; name }", &[]);
    let mut tokens: Vec<Ident> = Vec::new();
    for stmt in &body.stmts {
        if let syn::Stmt::Local(local) = stmt
            && let syn::Pat::Ident(p) = &local.pat
        {
            tokens.push(p.ident.clone());
            if let Some(init) = &local.init
                && let syn::Expr::Binary(sum) = &*init.expr
                && let syn::Expr::Path(read) = &*sum.left
            {
                tokens.push(read.path.segments[0].ident.clone());
            }
        }
    }
    let [hidden, hider, read] = &tokens[..] else {
        panic!("two `let`s, the second reading the first");
    };
    assert!(bindings.same_name(hidden, hider) && !bindings.renames_any());
    bindings.rename(bindings.id(hidden), "__mcp_local0_name");
    assert!(bindings.renames_any());
    assert_eq!(bindings.written(hidden), "__mcp_local0_name");
    assert_eq!(bindings.written(read), "__mcp_local0_name");
    assert_eq!(bindings.written(read).span().start(), read.span().start());
    assert_eq!(bindings.renamed(hider), None);
    assert!(!bindings.same_name(hidden, hider) && bindings.same_name(hidden, read));
    // What users read keeps the name written.
    assert_eq!(bindings.shown(read).to_string(), "name");
}

#[test]
fn a_let_that_writes_an_owned_std_type_is_plain_and_no_other_binding_is() {
    let (body, bindings) = resolved(
        "{ let mut yes: u32 = 0; let names: Vec<String> = v; let guard = m.lock(); \
           let held: MutexGuard<u8> = m.lock(); let (a, b): (u8, u8) = p; \
           let n: u8 = 1; { let n = text(); use_it(n); } use_it(yes, names, guard, held, a, b, n); }",
        &["v", "m", "p"],
    );
    let plain = |name: &str| {
        let ids = each(&body, &bindings, name);
        ids.iter()
            .map(|&id| bindings.get(id).is_some_and(|binding| binding.plain))
            .collect::<Vec<_>>()
    };
    assert_eq!(plain("yes"), [true, true]);
    assert_eq!(plain("names"), [true, true]);
    // No type written, a guard's type, a tuple pattern (whose names its type does not type
    // one by one), a parameter.
    assert_eq!(plain("guard"), [false, false]);
    assert_eq!(plain("held"), [false, false]);
    assert_eq!(plain("a"), [false, false]);
    assert_eq!(plain("v"), [false]);
    // The inner `n` hides the outer one; only the outer's `let` writes `u8`.
    assert_eq!(plain("n"), [true, false, false, true]);
}

/// The arguments `plain` reads from the tokens: literals and names with fields, nothing else.
#[test]
fn plain_arguments_are_literals_and_names_with_fields() {
    let plain = [
        r#""Question {} of 2", args.service"#,
        r#""{}", a,"#,
        r#"f, "{} {a:>w$}", b.c.d"#,
        r#""{n}""#,
        "1, a",
        "r#type.r#match",
        "a",
    ];
    for tokens in plain {
        let tokens: TokenStream = tokens.parse().expect("the tokens lex");
        assert!(super::plain::plain_args(&tokens).is_some(), "{tokens}");
    }
    let parsed = [
        r#""{}", self.x"#,
        r#""{}", true"#,
        r#""{}", a.await"#,
        r#""{}", a.0"#,
        r#""{}", a.b()"#,
        r#""{}", x = a"#,
        r#""{}", -1"#,
        r#""{}", a::b"#,
        r#""{}", _"#,
        r#""{}", "a".len()"#,
        r#""{}", a..b"#,
        r#""{}", a."#,
        r#""{}", a b"#,
        r#""{}",, a"#,
        r#", a"#,
        "",
    ];
    for tokens in parsed {
        let tokens: TokenStream = tokens.parse().expect("the tokens lex");
        assert!(super::plain::plain_args(&tokens).is_none(), "{tokens}");
    }
}

/// A body's table read with plain macro arguments taken from their tokens, and with every
/// macro's arguments parsed by syn: the same bindings, the same token of each, the same uses.
#[test]
fn plain_macro_arguments_resolve_as_parsed_ones_do() {
    let bodies = [
        r#"{ let a = 1; let b = p; let c = format!("Question {} of {a}", b.x.y); c }"#,
        r#"{ let w = 3; let a = p; println!("{a:>w$} {}", a.name,); }"#,
        r#"{ let f = p; let n = 2; write!(f, "{n} {}", n).ok(); writeln!(f, "{}", f.x) }"#,
        r#"{ let r#type = p; let n = 1; assert!(n, "{} {n}", r#type.r#match); }"#,
        r#"{ let a = p; assert_eq!(a, a.b, "{a}"); debug_assert_ne!(1, a); }"#,
        r#"{ let v = vec![p, p.x]; dbg!(v); let s = format!("{}", 1); s }"#,
        r#"{ let x = p; { let x = x.y; println!("{x}", x); } println!("{}", x) }"#,
        r#"{ let s = format!("{}", self.x); let t = format!("{}", true, s); t }"#,
        r#"{ let a = p; let s = format!("{a} {}", x = a); let t = format!(a); (s, t) }"#,
        r#"{ let a = p; tracing::info!(a, "{}", a.b); unknown!(a.b); }"#,
    ];
    for body in bodies {
        let block: Block = syn::parse_str(body).expect("the body parses");
        let [plain, parsed] = [false, true].map(|parse_plain| {
            let mut walk = super::walk::Walk::default();
            walk.parse_plain = parse_plain;
            walk.declare(&format_ident!("p"), BindingKind::Parameter, None);
            syn::visit::Visit::visit_block(&mut walk, &block);
            walk
        });
        let fixed = |walk: &super::walk::Walk| -> Vec<(String, bool, Option<BindingId>)> {
            (walk.table.bindings.iter())
                .map(|binding| (binding.name.to_string(), binding.fixed, binding.hides))
                .collect()
        };
        assert_eq!(fixed(&plain), fixed(&parsed), "{body}");
        assert!(plain.table.tokens == parsed.table.tokens, "{body}");
        assert_eq!(plain.table.token_names, parsed.table.token_names, "{body}");
        assert_eq!(plain.uses, parsed.uses, "{body}");
    }
}
