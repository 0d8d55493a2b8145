//! `first_self`'s walk finds the `Self` the body's tokens show first.

use quote::ToTokens;
use syn::visit::Visit;

use super::{FirstSelf, names_self};

/// Where a `Self` is: its first and last line and column.
fn place(span: proc_macro2::Span) -> (usize, usize, usize, usize) {
    let (start, end) = (span.start(), span.end());
    (start.line, start.column, end.line, end.column)
}

#[test]
fn the_walk_finds_the_first_self_of_the_tokens() {
    let bodies = [
        "{ let a = 1; a }",
        "{ let x: Self = Self::new(); x }",
        "{ let x = Vec::<u8>::new(); let y: Self = todo!(); }",
        "{ let t = format!(\"{}\", <Self as Tr>::N); let u: Self = t; }",
        "{ #[cfg(feature = \"Self\")] let a = 1; #[allow(Self)] let b: Self = a; }",
        "{ let c = |v: u8| -> Self { Self { v } }; }",
        "{ match s { Self::A => 1, _ => 2 } }",
        "{ struct P; impl P { fn f(&self) -> Self { P } } }",
        "{ fn g<T: Into<Self>>(t: T) {} let q: Option<Self> = None; }",
        "{ let (a, b) = (x as Self, y); a.method::<Self>(b) }",
        "{ if let Some(v) = w { v } else { Self::default() } }",
        "{ 'l: loop { break 'l Self::one(); } }",
    ];
    for text in bodies {
        let block: syn::Block = syn::parse_str(text).expect("a block");
        let mut walk = FirstSelf(None);
        walk.visit_block(&block);
        let tokens = names_self(block.to_token_stream());
        assert_eq!(walk.0.map(place), tokens.map(place), "in `{text}`");
    }
}
