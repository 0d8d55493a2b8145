//! The source text the graph shows: expressions, patterns and types printed as the user wrote
//! them (a parameter the macro moved into the body under its own name, question markers as
//! the awaited question), on one line, shortened.

use proc_macro2::{Spacing, Span, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat, Type};

use crate::flow::check::sites::Site;
use crate::flow::lower::bindings::Bindings;
use crate::flow::syntax::{keyword, marker_site};

/// The most characters a condition or a way out shows; longer text ends in `…`.
pub(super) const SHORT: usize = 48;

/// The most characters a question's message shows.
pub(super) const MESSAGE: usize = 80;

/// What the text reads besides the code: the points, whose markers it shows as their
/// questions, and the binding table, which gives a renamed parameter's name as written.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub(super) sites: &'a [Site],
    pub(super) bindings: &'a Bindings,
}

/// Puts back what the stages before rewrote: a renamed parameter's name (see `mutable`), a
/// question marker's question.
struct AsWritten<'a> {
    source: Source<'a>,
}

impl VisitMut for AsWritten<'_> {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Field(field) = expr
            && let Some(site) = marker_site(field).and_then(|id| self.source.sites.get(id))
        {
            *expr = Expr::Await(syn::ExprAwait {
                attrs: Vec::new(),
                base: Box::new(site.question.clone()),
                dot_token: syn::token::Dot::default(),
                await_token: syn::token::Await::default(),
            });
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_ident_mut(&mut self, ident: &mut syn::Ident) {
        *ident = self.source.bindings.shown(ident);
    }
}

/// `expr` as written, on one line, at most `max` characters.
pub(super) fn expr(expr: &Expr, source: Source<'_>, max: usize) -> String {
    match plain(expr, source) {
        Some(text) => shorten(&text, max),
        None => shorten(&printed(expr, source), max),
    }
}

/// A local or a field of one (`done`, `answer.ok`, `args.target.name`), as prettyplease
/// prints it once its names are put back as written: those names joined by `.`; `None`
/// for any other expression.
fn plain(expr: &Expr, source: Source<'_>) -> Option<String> {
    match expr {
        Expr::Path(path)
            if path.attrs.is_empty()
                && path.qself.is_none()
                && path.path.leading_colon.is_none()
                && path.path.segments.len() == 1
                && path.path.segments[0].arguments.is_none() =>
        {
            Some(
                source
                    .bindings
                    .shown(&path.path.segments[0].ident)
                    .to_string(),
            )
        }
        Expr::Field(field) if field.attrs.is_empty() => {
            let syn::Member::Named(member) = &field.member else {
                return None;
            };
            let base = plain(&field.base, source)?;
            Some(format!("{base}.{}", source.bindings.shown(member)))
        }
        Expr::Macro(mac) if mac.attrs.is_empty() => plain_macro(&mac.mac, source),
        _ => None,
    }
}

/// A short message of the usual shape, `name!("text", a.b, c)` (a string and locals or
/// fields of them, on one line), as prettyplease prints a macro's tokens: a space after
/// each comma, none around a dot. `None` for any other macro, or one too long to be sure
/// prettyplease keeps it on one line.
fn plain_macro(mac: &syn::Macro, source: Source<'_>) -> Option<String> {
    let path = &mac.path;
    if path.leading_colon.is_some()
        || path.segments.len() != 1
        || !path.segments[0].arguments.is_none()
        || !matches!(mac.delimiter, syn::MacroDelimiter::Paren(_))
    {
        return None;
    }
    let name = source.bindings.shown(&path.segments[0].ident);
    let mut tokens = mac.tokens.clone().into_iter();
    let text = match tokens.next()? {
        TokenTree::Literal(literal) => literal.to_string(),
        _ => return None,
    };
    // One line, and nothing `one_line` would change: it is then the text as printed.
    let unchanged = |pair: &[u8]| {
        !matches!(
            pair,
            [b'\n' | b'\r', _] | [_, b'\n' | b'\r'] | [b'(' | b'[', b' '] | [b' ', b')' | b']']
        )
    };
    if !text.starts_with('"') || !text.as_bytes().windows(2).all(unchanged) {
        return None;
    }
    let mut line = format!("{name}!({text}");
    // What may come next: `,` then a name, or `.` then a name after a name.
    let mut after_name = false;
    while let Some(tree) = tokens.next() {
        let TokenTree::Punct(punct) = &tree else {
            return None;
        };
        let separator = match punct.as_char() {
            ',' => ", ",
            '.' if after_name => ".",
            _ => return None,
        };
        let Some(TokenTree::Ident(ident)) = tokens.next() else {
            return None;
        };
        let word = ident.to_string();
        if punct.spacing() != Spacing::Alone || keyword(&word) {
            return None;
        }
        line.push_str(separator);
        line.push_str(&word);
        after_name = true;
    }
    line.push(')');
    (line.chars().count() <= PLAIN_WIDTH).then_some(line)
}

/// The longest message [`plain_macro`] writes itself: with `const _: () = ` before it and
/// `;` after, well inside the width prettyplease breaks lines at.
const PLAIN_WIDTH: usize = 64;

/// `expr` as written, printed by prettyplease on one line.
fn printed(expr: &Expr, source: Source<'_>) -> String {
    let mut expr = expr.clone();
    AsWritten { source }.visit_expr_mut(&mut expr);
    // The user's syntax is set into a tree of the macro's, never parsed again: `const _: () =
    // <expr>;`, built rather than parsed from a template.
    let item = syn::ItemConst {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        modifiers: syn::ConstModifiers::default(),
        const_token: Default::default(),
        ident: syn::Ident::new("_", Span::call_site()),
        generics: syn::Generics::default(),
        colon_token: Default::default(),
        ty: Box::new(Type::Tuple(syn::TypeTuple {
            attrs: Vec::new(),
            paren_token: Default::default(),
            elems: Punctuated::new(),
        })),
        eq_token: Default::default(),
        expr: Box::new(expr),
        semi_token: Default::default(),
    };
    let text = unparse(syn::Item::Const(item));
    let text = text.strip_prefix("const _: () = ").unwrap_or(&text);
    text.strip_suffix(';').unwrap_or(text).to_owned()
}

/// `pat` as written, on one line, shortened.
pub(super) fn pat(pat: &Pat, source: Source<'_>) -> String {
    if let Pat::Guard(guarded) = pat {
        let (pat, guard) = (
            self::pat(&guarded.pat, source),
            expr(&guarded.guard, source, SHORT),
        );
        return shorten(&format!("{pat} if {guard}"), SHORT);
    }
    let mut pat = pat.clone();
    AsWritten { source }.visit_pat_mut(&mut pat);
    // `fn f() { let <pat>; }`, built.
    let local = syn::Local {
        attrs: Vec::new(),
        let_token: Default::default(),
        modifiers: syn::LocalModifiers::default(),
        pat,
        init: None,
        semi_token: Default::default(),
    };
    let item = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        modifiers: syn::FnModifiers::default(),
        sig: syn::Signature {
            constness: None,
            asyncness: None,
            safety: syn::Safety::Default,
            abi: None,
            fn_token: Default::default(),
            ident: syn::Ident::new("f", Span::call_site()),
            generics: syn::Generics::default(),
            paren_token: Default::default(),
            inputs: Punctuated::new(),
            variadic: None,
            output: syn::ReturnType::Default,
        },
        block: Box::new(syn::Block {
            brace_token: Default::default(),
            stmts: vec![syn::Stmt::Local(local)],
        }),
    };
    let text = unparse(syn::Item::Fn(item));
    let text = text.strip_prefix("fn f() { let ").unwrap_or(&text);
    shorten(text.strip_suffix("; }").unwrap_or(text), SHORT)
}

/// `ty` as written, on one line; `None` for `_`, which the compiler infers.
pub(super) fn ty(ty: &Type) -> Option<String> {
    if matches!(ty, Type::Infer(_)) {
        return None;
    }
    // A plain path (`u32`, `Confirm`, `model::Target`) prints as its names joined by `::`,
    // as prettyplease prints it, without building a file to print.
    if let Type::Path(path) = ty
        && path.qself.is_none()
        && path.path.leading_colon.is_none()
        && (path.path.segments.iter()).all(|segment| segment.arguments.is_none())
    {
        let names: Vec<String> = (path.path.segments.iter())
            .map(|segment| segment.ident.to_string())
            .collect();
        return Some(names.join("::"));
    }
    Some(printed_ty(ty))
}

/// `ty` printed by prettyplease, on one line.
fn printed_ty(ty: &Type) -> String {
    // `type T = <ty>;`, built.
    let item = syn::ItemType {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        modifiers: syn::TypeModifiers::default(),
        type_token: Default::default(),
        ident: syn::Ident::new("T", Span::call_site()),
        generics: syn::Generics::default(),
        eq_token: Default::default(),
        ty: Box::new(ty.clone()),
        semi_token: Default::default(),
        where_clause_placement: syn::WhereClausePlacement::Early,
    };
    let text = unparse(syn::Item::Type(item));
    let text = text.strip_prefix("type T = ").unwrap_or(&text);
    text.strip_suffix(';').unwrap_or(text).to_owned()
}

/// `item` printed, on one line.
fn unparse(item: syn::Item) -> String {
    let file = syn::File {
        shebang: None,
        frontmatter: None,
        attrs: Vec::new(),
        items: vec![item],
    };
    one_line(&prettyplease::unparse(&file))
}

/// `text` on one line: each line break and the indent after it made one space, and no space
/// left inside the brackets a break opened or closed.
fn one_line(text: &str) -> String {
    let lines: Vec<&str> = text.trim().lines().map(str::trim).collect();
    let mut line = lines.join(" ");
    for (from, to) in [
        ("( ", "("),
        (", )", ")"),
        (" )", ")"),
        ("[ ", "["),
        (", ]", "]"),
    ] {
        // Most lines hold none of these: no new string for them.
        if line.contains(from) {
            line = line.replace(from, to);
        }
    }
    line
}

/// `text`, cut to at most `max` characters, ending in `…` where it was cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(max - 1).collect();
    short.truncate(short.trim_end().len());
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::{Source, plain, printed, printed_ty, ty};
    use crate::flow::lower::bindings::Bindings;

    /// A local or a field of one reads as prettyplease prints it; other expressions are
    /// printed by it.
    #[test]
    fn a_plain_expression_reads_as_prettyplease_prints_it() {
        let bindings = Bindings::default();
        let source = Source {
            sites: &[],
            bindings: &bindings,
        };
        for written in ["done", "answer_0.ok", "args.target.name", "r#type.r#match"] {
            let parsed: syn::Expr = syn::parse_str(written).expect("an expression");
            assert_eq!(
                plain(&parsed, source),
                Some(printed(&parsed, source)),
                "{written}"
            );
        }
        for message in [
            "format!(\"Question 1 of 2 (tool 0) for {}?\", args.service)",
            "format!(\"Deploy {} to {}?\", args.service, target.name)",
            "format!(\"Pick one\", r#type.r#match)",
            "format!(\"Sure?\")",
            "text!(\"x\", a, b.c.d)",
        ] {
            let parsed: syn::Expr = syn::parse_str(message).expect("an expression");
            assert_eq!(
                plain(&parsed, source),
                Some(printed(&parsed, source)),
                "{message}"
            );
        }
        for other in [
            "a.0",
            "a::b",
            "f(x)",
            "a.b()",
            "(a)",
            "Self::X",
            "x?",
            "format!(\"{}\", self.name)",
            "format!(\"Pick ( one )\", a)",
            "format!(\"two\nlines\", a)",
            "format!(\"{}\", a,)",
            "format!(\"{}\", a + b)",
            "format!(\"{}\", a.b())",
            "format![\"{}\", a]",
            "std::format!(\"{}\", a)",
            "format!(\"a very long question about the service to deploy {} now\", args.service)",
        ] {
            let parsed: syn::Expr = syn::parse_str(other).expect("an expression");
            assert_eq!(plain(&parsed, source), None, "{other}");
        }
    }

    /// A plain path reads as prettyplease prints it, and other types are printed by it.
    #[test]
    fn a_type_reads_as_prettyplease_prints_it() {
        for written in [
            "u32",
            "Confirm",
            "model::Target",
            "r#type",
            "a::r#match::B",
            "::std::string::String",
            "Vec<u8>",
            "Option<(u32, String)>",
            "&'static str",
            "[u8; 4]",
            "<T as Trait>::Out",
        ] {
            let parsed: syn::Type = syn::parse_str(written).expect("a type");
            assert_eq!(
                ty(&parsed).as_deref(),
                Some(&*printed_ty(&parsed)),
                "{written}"
            );
        }
        assert_eq!(ty(&syn::parse_str("_").expect("a type")), None);
    }
}
