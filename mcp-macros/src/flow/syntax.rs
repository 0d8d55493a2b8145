//! Small facts of syntax every stage reads, and the names the macro writes: the marker a
//! question point leaves in the body, what a literal is, the compound assignments, the
//! names a format string reads inline, Rust's keywords, and the names the macro gives
//! renamed locals and parameters (with the name the user wrote, for messages). Nearly a
//! leaf: of `flow`'s modules it names only `step`, which names none.

use proc_macro2::{Ident, Span};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

use crate::flow::step;

/// The prefix of a parameter moved into the body (see `mutable`).
pub(crate) const ARG: &str = "__mcp_arg";

/// The prefix of a local renamed because a binding that reads it hides it (see `shadow`).
pub(crate) const RENAMED: &str = "__mcp_local";

/// The macro whose value's field marks a question point inside the rewritten body.
const MARKER: &str = "__mcp_site";

/// The marker question point `id` leaves in the body until its code is written (`settle`):
/// `__mcp_site!().N`, the point's number the index of an unnamed field, read back as a number
/// by [`marker_site`]. The macro names nothing and is never expanded; every stage that reads
/// places or values sees a macro call, which it treats as code it cannot evaluate again.
pub(crate) fn marker(id: usize) -> Expr {
    Expr::Field(syn::ExprField {
        attrs: Vec::new(),
        base: Box::new(Expr::Macro(syn::ExprMacro {
            attrs: Vec::new(),
            mac: syn::Macro {
                path: Ident::new(MARKER, Span::call_site()).into(),
                bang_token: Default::default(),
                delimiter: syn::MacroDelimiter::Paren(Default::default()),
                tokens: proc_macro2::TokenStream::new(),
            },
        })),
        dot_token: Default::default(),
        member: syn::Member::Unnamed(syn::Index {
            index: step::number(id),
            span: Span::call_site(),
        }),
    })
}

/// The number of the question point whose marker `field` is.
pub(crate) fn marker_site(field: &syn::ExprField) -> Option<usize> {
    let (Expr::Macro(base), syn::Member::Unnamed(index)) = (&*field.base, &field.member) else {
        return None;
    };
    base.mac
        .path
        .is_ident(MARKER)
        .then(|| usize::try_from(index.index).ok())
        .flatten()
}

/// A literal, or a negation, tuple, array or `vec!` of literals: the same value however
/// often it is evaluated, and nothing moved to make it.
pub(crate) fn literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && literal(&u.expr),
        Expr::Tuple(t) => t.elems.iter().all(literal),
        Expr::Array(a) => a.elems.iter().all(literal),
        Expr::Paren(p) => literal(&p.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .is_ok_and(|elems| elems.iter().all(literal)),
        _ => false,
    }
}

/// Whether `op` assigns (`+=`, `-=`, ...).
pub(crate) fn compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Where a format string names an argument inline (`{name}`, `{name:?}`, `{name:>8}`, and a
/// width or precision taken from one: `{:>width$}`, `{:.prec$}`): the byte range of each
/// name in `text`.
pub(crate) fn inline_args(text: &str) -> Vec<std::ops::Range<usize>> {
    let is_name = |name: &str| {
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    };
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(open) = text[at..].find('{') {
        at += open + 1;
        if text[at..].starts_with('{') {
            at += 1;
            continue;
        }
        let close = text[at..].find('}').map_or(text.len(), |end| at + end);
        let end = text[at..close].find(':').map_or(close, |end| at + end);
        if is_name(&text[at..end]) {
            names.push(at..end);
        }
        // In the spec, a name ending in `$` is a width or precision argument.
        let mut spec = end;
        while let Some(dollar) = text[spec..close].find('$') {
            let stop = spec + dollar;
            let start = text[..stop]
                .char_indices()
                .rfind(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
                .map_or(0, |(i, c)| i + c.len_utf8())
                .max(end + 1);
            if start < stop && is_name(&text[start..stop]) {
                names.push(start..stop);
            }
            spec = stop + 1;
        }
        at = close;
    }
    names
}

/// Whether `word` is one of Rust's keywords (strict, reserved or weak, in any edition), `_`,
/// or a word syn reads specially at the start of an expression (`builtin`, `raw`, `safe`).
/// Where the macro reads or writes plain names without syn (a standard macro's plain
/// arguments, a message's text), such a word leaves the work to syn or prettyplease.
pub(crate) fn keyword(word: &str) -> bool {
    KEYWORDS.binary_search(&word).is_ok()
}

/// The words of [`keyword`], in byte order.
const KEYWORDS: &[&str] = &[
    "Self",
    "_",
    "abstract",
    "as",
    "async",
    "auto",
    "await",
    "become",
    "box",
    "break",
    "builtin",
    "const",
    "continue",
    "crate",
    "default",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "macro_rules",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "pub",
    "raw",
    "ref",
    "return",
    "safe",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "union",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
];

#[test]
fn the_keywords_are_in_byte_order() {
    assert!(KEYWORDS.is_sorted());
}
