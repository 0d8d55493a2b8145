//! The presentation keys of `#[tool(...)]`, `#[prompt(...)]` and `#[resource(...)]`:
//! `annotations(...)`, `icon(...)` (any number) and `meta = "{...}"`, checked here so that a
//! malformed value is a compile error at its token.
//!
//! Input:  `#[tool(annotations(read_only, open_world = false), icon(src = "https://…/a.png"))]`
//! Output: `Presentation { annotations: Some(ToolAnnotations { read_only_hint: Some(true),
//!          open_world_hint: Some(false), .. }), icons: Some(vec![Icon { src: "…", .. }]),
//!          meta: None }`

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitFloat, LitStr};

use super::kind::Kind;

/// The presentation of one handler.
#[derive(Default)]
pub(crate) struct Presentation {
    annotations: Vec<(Hint, bool)>,
    audience: Option<Vec<LitStr>>,
    priority: Option<LitFloat>,
    annotated: bool,
    icons: Vec<Icon>,
    meta: Option<LitStr>,
}

/// A tool annotation hint.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
}

const HINTS: &[(&str, Hint)] = &[
    ("read_only", Hint::ReadOnly),
    ("destructive", Hint::Destructive),
    ("idempotent", Hint::Idempotent),
    ("open_world", Hint::OpenWorld),
];

struct Icon {
    src: LitStr,
    mime_type: Option<LitStr>,
    sizes: Option<Vec<LitStr>>,
    dark: Option<bool>,
}

impl Presentation {
    /// Reads `key` (`annotations`, `icon` or `meta`) from the attribute.
    pub(crate) fn parse(
        &mut self,
        kind: Kind,
        key: &str,
        meta: &ParseNestedMeta<'_>,
    ) -> syn::Result<()> {
        match key {
            "annotations" => {
                if std::mem::replace(&mut self.annotated, true) {
                    return Err(meta.error("`annotations` is given twice; keep one"));
                }
                meta.parse_nested_meta(|inner| match kind {
                    Kind::Resource => self.resource_annotation(&inner),
                    _ => self.tool_annotation(&inner),
                })
            }
            "icon" => {
                let icon = parse_icon(meta)?;
                self.icons.push(icon);
                Ok(())
            }
            _ => {
                let value: LitStr = meta.value()?.parse()?;
                check_meta(&value)?;
                if self.meta.replace(value).is_some() {
                    return Err(meta.error("`meta` is given twice; keep one"));
                }
                Ok(())
            }
        }
    }

    fn tool_annotation(&mut self, inner: &ParseNestedMeta<'_>) -> syn::Result<()> {
        let name = inner.path.get_ident().map(ToString::to_string);
        let Some(&(_, hint)) = HINTS.iter().find(|(key, _)| name.as_deref() == Some(*key)) else {
            return Err(inner.error(
                "unknown tool annotation; expected `read_only`, `destructive`, `idempotent` \
                 or `open_world`, each alone (true) or `= true`/`= false`",
            ));
        };
        let value = if inner.input.peek(syn::Token![=]) {
            inner.value()?.parse::<LitBool>()?.value
        } else {
            true
        };
        if self.annotations.iter().any(|(seen, _)| *seen == hint) {
            return Err(inner.error("this annotation is given twice; keep one"));
        }
        self.annotations.push((hint, value));
        Ok(())
    }

    fn resource_annotation(&mut self, inner: &ParseNestedMeta<'_>) -> syn::Result<()> {
        if inner.path.is_ident("audience") {
            let mut roles = Vec::new();
            inner.parse_nested_meta(|role| {
                match role.path.get_ident().map(ToString::to_string).as_deref() {
                    Some(name @ ("user" | "assistant")) => {
                        roles.push(LitStr::new(
                            name,
                            role.path
                                .get_ident()
                                .map_or_else(proc_macro2::Span::call_site, syn::Ident::span),
                        ));
                        Ok(())
                    }
                    _ => Err(role.error("expected `user` or `assistant`")),
                }
            })?;
            if self.audience.replace(roles).is_some() {
                return Err(inner.error("`audience` is given twice; keep one"));
            }
            return Ok(());
        }
        if inner.path.is_ident("priority") {
            let value: LitFloat = inner.value()?.parse()?;
            let priority: f64 = value.base10_parse()?;
            if !(0.0..=1.0).contains(&priority) {
                return Err(syn::Error::new(
                    value.span(),
                    "a priority is a number from 0.0 (least important) to 1.0 (most)",
                ));
            }
            if self.priority.replace(value).is_some() {
                return Err(inner.error("`priority` is given twice; keep one"));
            }
            return Ok(());
        }
        Err(inner.error(
            "unknown resource annotation; expected `audience(user, assistant)` or \
             `priority = 0.5`",
        ))
    }

    /// The runtime's `Presentation` value.
    pub(crate) fn to_tokens(&self, kind: Kind) -> TokenStream {
        let p = quote!(::mcp_runtime::__private);
        let protocol = quote!(::mcp_runtime::protocol);
        let some = |value: TokenStream| quote!(::core::option::Option::Some(#value));
        let none = quote!(::core::option::Option::None);
        let annotations = match kind {
            Kind::Tool if self.annotated => {
                let fields = self.annotations.iter().map(|(hint, value)| {
                    let field = match hint {
                        Hint::ReadOnly => quote!(read_only_hint),
                        Hint::Destructive => quote!(destructive_hint),
                        Hint::Idempotent => quote!(idempotent_hint),
                        Hint::OpenWorld => quote!(open_world_hint),
                    };
                    quote!(#field: ::core::option::Option::Some(#value),)
                });
                some(quote!(#protocol::ToolAnnotations {
                    #(#fields)*
                    ..::core::default::Default::default()
                }))
            }
            Kind::Resource if self.annotated => {
                let audience = match &self.audience {
                    Some(roles) => {
                        let roles = roles.iter().map(|role| match role.value().as_str() {
                            "user" => quote!(#protocol::Role::User),
                            _ => quote!(#protocol::Role::Assistant),
                        });
                        some(quote!(::std::vec![#(#roles),*]))
                    }
                    None => none.clone(),
                };
                let priority = match &self.priority {
                    Some(priority) => some(quote!(#priority)),
                    None => none.clone(),
                };
                some(quote!(#protocol::Annotations {
                    audience: #audience,
                    priority: #priority,
                    last_modified: ::core::option::Option::None,
                }))
            }
            _ => none.clone(),
        };
        let icons = if self.icons.is_empty() {
            none.clone()
        } else {
            let icons = self.icons.iter().map(|icon| {
                let src = &icon.src;
                let mime = match &icon.mime_type {
                    Some(mime) => some(quote!(::std::string::String::from(#mime))),
                    None => none.clone(),
                };
                let sizes = match &icon.sizes {
                    Some(sizes) => some(quote!(
                        ::std::vec![#(::std::string::String::from(#sizes)),*]
                    )),
                    None => none.clone(),
                };
                let theme = match icon.dark {
                    Some(true) => some(quote!(#protocol::IconTheme::Dark)),
                    Some(false) => some(quote!(#protocol::IconTheme::Light)),
                    None => none.clone(),
                };
                quote!(#protocol::Icon {
                    src: ::std::string::String::from(#src),
                    mime_type: #mime,
                    sizes: #sizes,
                    theme: #theme,
                })
            });
            some(quote!(::std::vec![#(#icons),*]))
        };
        let meta = match &self.meta {
            Some(meta) => some(quote!(#meta)),
            None => none,
        };
        quote!(#p::Presentation { annotations: #annotations, icons: #icons, meta: #meta })
    }
}

/// `icon(src = "...", mime_type = "...", sizes = ["48x48"], theme = "light")`.
fn parse_icon(meta: &ParseNestedMeta<'_>) -> syn::Result<Icon> {
    let mut src = None;
    let mut mime_type = None;
    let mut sizes = None;
    let mut dark = None;
    meta.parse_nested_meta(|inner| {
        let duplicate = || inner.error("this icon key is given twice; keep one");
        if inner.path.is_ident("src") {
            let value: LitStr = inner.value()?.parse()?;
            let text = value.value();
            if !["https://", "http://", "data:"]
                .iter()
                .any(|scheme| text.starts_with(scheme))
            {
                return Err(syn::Error::new(
                    value.span(),
                    "an icon's `src` is an `https://` (or `http://`) URL or a `data:` URI",
                ));
            }
            if src.replace(value).is_some() {
                return Err(duplicate());
            }
        } else if inner.path.is_ident("mime_type") {
            let value: LitStr = inner.value()?.parse()?;
            if !value.value().starts_with("image/") {
                return Err(syn::Error::new(
                    value.span(),
                    "an icon's `mime_type` is an image type, such as \"image/png\"",
                ));
            }
            if mime_type.replace(value).is_some() {
                return Err(duplicate());
            }
        } else if inner.path.is_ident("sizes") {
            let list: syn::ExprArray = inner.value()?.parse()?;
            let mut values = Vec::new();
            for element in &list.elems {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(size),
                    ..
                }) = element
                else {
                    return Err(syn::Error::new_spanned(
                        element,
                        "a size is a string such as \"48x48\" or \"any\"",
                    ));
                };
                if !valid_size(&size.value()) {
                    return Err(syn::Error::new(
                        size.span(),
                        "a size is `WIDTHxHEIGHT` in pixels, such as \"48x48\", or \"any\"",
                    ));
                }
                values.push(size.clone());
            }
            if sizes.replace(values).is_some() {
                return Err(duplicate());
            }
        } else if inner.path.is_ident("theme") {
            let value: LitStr = inner.value()?.parse()?;
            let is_dark = match value.value().as_str() {
                "light" => false,
                "dark" => true,
                _ => {
                    return Err(syn::Error::new(
                        value.span(),
                        "an icon's `theme` is \"light\" or \"dark\"",
                    ));
                }
            };
            if dark.replace(is_dark).is_some() {
                return Err(duplicate());
            }
        } else {
            return Err(
                inner.error("unknown icon key; expected `src`, `mime_type`, `sizes` or `theme`")
            );
        }
        Ok(())
    })?;
    let Some(src) = src else {
        return Err(meta.error("an icon needs its image: `icon(src = \"https://...\")`"));
    };
    Ok(Icon {
        src,
        mime_type,
        sizes,
        dark,
    })
}

fn valid_size(size: &str) -> bool {
    if size == "any" {
        return true;
    }
    let Some((width, height)) = size.split_once('x') else {
        return false;
    };
    let pixels = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    pixels(width) && pixels(height)
}

/// `meta = "{...}"`: a JSON object whose keys are not reserved for the protocol.
fn check_meta(value: &LitStr) -> syn::Result<()> {
    let parsed: Result<serde_json::Map<String, serde_json::Value>, _> =
        serde_json::from_str(&value.value());
    let object = parsed.map_err(|error| {
        syn::Error::new(
            value.span(),
            format!(
                "`meta` is a JSON object, such as r#\"{{\"com.example/team\": \"ops\"}}\"#: {error}"
            ),
        )
    })?;
    if let Some(key) = object.keys().find(|key| !valid_key(key)) {
        return Err(syn::Error::new(
            value.span(),
            format!(
                "`{key}` is no valid `_meta` key; write `prefix/name` with a dotted prefix \
                 such as `com.example`, and a name of letters, digits, `-`, `_` and `.`"
            ),
        ));
    }
    if let Some(key) = object.keys().find(|key| reserved_key(key)) {
        return Err(syn::Error::new(
            value.span(),
            format!(
                "the `_meta` key `{key}` has a prefix reserved for the protocol; use a prefix \
                 of your own, such as `com.example/`"
            ),
        ));
    }
    Ok(())
}

/// Whether a `_meta` key follows the revision's naming rules: an optional prefix of dotted
/// labels (each starting with a letter, ending with a letter or digit, hyphens inside) and a
/// slash, then a name that, unless empty, starts and ends alphanumeric with `-`, `_` or `.`
/// inside.
fn valid_key(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    let label = |label: &str| {
        let bytes = label.as_bytes();
        bytes.first().is_some_and(u8::is_ascii_alphabetic)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
    };
    let name_ok = name.is_empty() || {
        let bytes = name.as_bytes();
        bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    name_ok && prefix.is_none_or(|prefix| prefix.split('.').all(label))
}

/// Whether a `_meta` key's prefix is reserved for the protocol: its second label is
/// `modelcontextprotocol` or `mcp` (`io.modelcontextprotocol/`, `dev.mcp/`).
fn reserved_key(key: &str) -> bool {
    let Some((prefix, _)) = key.split_once('/') else {
        return false;
    };
    matches!(
        prefix.split('.').nth(1),
        Some("modelcontextprotocol" | "mcp")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_reserved_keys() {
        assert!(valid_size("48x48"));
        assert!(valid_size("any"));
        assert!(!valid_size("48"));
        assert!(!valid_size("x48"));
        assert!(!valid_size("48 x48"));
        assert!(reserved_key("io.modelcontextprotocol/x"));
        assert!(reserved_key("dev.mcp/x"));
        assert!(reserved_key("org.modelcontextprotocol.api/x"));
        assert!(reserved_key("com.mcp.tools/x"));
        assert!(!reserved_key("com.example.mcp/x"));
        assert!(!reserved_key("com.example/x"));
        assert!(!reserved_key("plain"));
        assert!(valid_key("com.example/team"));
        assert!(valid_key("plain"));
        assert!(valid_key("com.example/"));
        assert!(!valid_key("com.example/-team"));
        assert!(!valid_key("1com.example/team"));
        assert!(!valid_key("com..example/team"));
        assert!(!valid_key("com.example/te am"));
    }
}
