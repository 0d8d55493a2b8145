//! Macro calls, read as tokens: the walk cannot see what a macro's body means, so it takes
//! every identifier in it, and every name a format string in it names inline, for a use.

use proc_macro2::{TokenStream, TokenTree};

use super::FreeVars;

impl FreeVars<'_> {
    /// Macro bodies are opaque: every identifier in them, and every `{name}` in their string
    /// literals, counts as a use. Over-counting only carries a local that was not needed.
    pub(super) fn mac(&mut self, mac: &syn::Macro) {
        self.tokens(mac.tokens.clone());
    }

    /// An identifier counts as a use unless the tokens around it say it is a name of
    /// something else: a field after `.`, or a key before a lone `=` (`status = %value` in a
    /// `tracing` macro, `name = value` in `format!`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) => {
                    let after_dot = i
                        .checked_sub(1)
                        .and_then(|j| trees.get(j))
                        .is_some_and(|prev| is_punct(prev, '.'));
                    let before_assign = trees.get(i + 1).is_some_and(|next| {
                        matches!(next, TokenTree::Punct(p) if p.as_char() == '='
                            && p.spacing() == proc_macro2::Spacing::Alone)
                    });
                    if !after_dot && !before_assign {
                        self.use_name(ident.to_string());
                    }
                }
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(lit) => {
                    let lit = lit.clone();
                    let text = lit.to_string();
                    if text.starts_with('"') || text.starts_with('r') {
                        for name in format_args_in(&text) {
                            self.use_name(name);
                        }
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c)
}

/// Identifiers named inline in a format string: `{name}`, `{name:?}`, `{name:>8}`.
fn format_args_in(text: &str) -> Vec<String> {
    inline_args(text)
        .into_iter()
        .map(|range| text[range].to_owned())
        .collect()
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
