//! Odd but possible inputs expand without panicking: each gives items that parse, either the
//! flow or the compile error that explains it.

use proc_macro2::TokenStream;

use super::{Kind, expand};

/// Handler bodies at the edges of what the walk reads: raw and non-ASCII names, macros in
/// every position, format specs the walk must skip, empty and diverging bodies, patterns of
/// every shape, questions where they are refused.
const BODIES: &[&str] = &[
    "{}",
    "{ loop {} }",
    "{ return Ok(text(\"x\")); }",
    "{ let r#type = args.r#type.clone(); let r#type = r#type.trim(); let ok: Yes = cx.elicit(r#type.to_owned()).await?; Ok(text(format!(\"{type} {}\", ok.ok))) }",
    "{ let café = args.name.clone(); let café = café.trim(); let ok: Yes = cx.elicit(\"?\").await?; Ok(text(format!(\"{café:—>w$} {:.p$}\", ok.ok))) }",
    "{ let w = 3; { let w = w + 1; let _: Yes = cx.elicit(\"?\").await?; } Ok(text(format!(\"{:…w$} {{w}} {w:}\", 1))) }",
    "{ let x = 1; let x = vec![x; 2]; let _: Yes = cx.elicit(\"?\").await?; m!(x, x = x, \"{x}\"); Ok(text(format!(\"{x:?}\"))) }",
    "{ let (a, [b, .., c], P { d, e: f @ 1..=2, .. }) = v; let a = a + b; let _: Yes = cx.elicit(\"?\").await?; Ok(text(format!(\"{a}{b}{c}{d}{f}\"))) }",
    "{ let x = items[cx.elicit::<Yes>(\"?\").await?.ok as usize].clone(); Ok(text(x)) }",
    "{ let f = async { cx.elicit::<Yes>(\"?\").await }; Ok(text(\"\")) }",
    "{ match cx.elicit::<Yes>(\"?\").await { Ok(Yes { ok }) if ok => {} Ok(_) | Err(_) => {} } Ok(text(\"\")) }",
    "{ 'a: for x in 0..3 { let x = x * 2; for x in 0..x { if cx.elicit::<Yes>(\"?\").await?.ok { continue 'a; } } } Ok(text(\"\")) }",
    "{ let s = String::new(); let s = &s; let s = s.as_str(); let _: Yes = cx.elicit(\"?\").await?; println!(\"{s}\"); Ok(text(s)) }",
    "{ #[cfg(any())] let x = 1; let _: Yes = cx.elicit(\"?\").await?; Ok(text(\"\")) }",
];

#[test]
fn odd_bodies_expand_to_items_that_parse() {
    for body in BODIES {
        for (signature, kind) in [
            ("async fn odd(args: Args, cx: Cx) -> ToolResult", Kind::Tool),
            (
                "async fn odd(mut args: Args, cx: Cx) -> ToolResult",
                Kind::Tool,
            ),
            (
                "async fn odd(cx: &Cx, mut args: Args) -> Result<String, Refusal>",
                Kind::Elicit,
            ),
        ] {
            let item: TokenStream = format!("{signature} {body}")
                .parse()
                .unwrap_or_else(|error| panic!("`{body}` lexes: {error}"));
            let out = expand(kind, TokenStream::new(), item);
            if let Err(error) = syn::parse2::<syn::File>(out.clone()) {
                panic!("`{body}` expands to items that do not parse: {error}\n{out}");
            }
        }
    }
}
