//! `#[form(...)]` and `#[choice(...)]` attributes, parsed into typed settings that keep the
//! spans of their keys and values.

use mcp_formats::Format;
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Ident, Lit, LitStr, UnOp};

use super::case::{RULE_NAMES, RenameRule};
use crate::errors::Errors;

/// One `key = value` as written.
pub(crate) struct Setting<T> {
    pub(crate) key: Ident,
    pub(crate) value: T,
    pub(crate) value_span: Span,
}

#[derive(Clone, Copy)]
pub(crate) enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub(crate) fn as_f64(self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss, reason = "only compared")]
            Self::Int(value) => value as f64,
            Self::Float(value) => value,
        }
    }
}

#[derive(Default)]
pub(crate) struct FieldAttrs {
    pub(crate) title: Option<Setting<String>>,
    pub(crate) description: Option<Setting<String>>,
    pub(crate) rename: Option<Setting<String>>,
    pub(crate) default: Option<Setting<Expr>>,
    pub(crate) min_length: Option<Setting<u64>>,
    pub(crate) max_length: Option<Setting<u64>>,
    pub(crate) format: Option<Setting<Format>>,
    pub(crate) minimum: Option<Setting<Number>>,
    pub(crate) maximum: Option<Setting<Number>>,
    pub(crate) min_items: Option<Setting<u64>>,
    pub(crate) max_items: Option<Setting<u64>>,
}

#[derive(Default)]
pub(crate) struct ContainerAttrs {
    pub(crate) rename_all: Option<Setting<RenameRule>>,
}

/// The attributes of a choice enum itself: `rename_all` as for a form, and the
/// `enum_names` flag (its key kept for spans).
#[derive(Default)]
pub(crate) struct ChoiceAttrs {
    pub(crate) container: ContainerAttrs,
    pub(crate) enum_names: Option<Ident>,
}

#[derive(Default)]
pub(crate) struct VariantAttrs {
    pub(crate) title: Option<Setting<String>>,
    pub(crate) rename: Option<Setting<String>>,
}

const FIELD_KEYS: &str = "`title`, `description`, `default`, `rename`, `min_length`, \
    `max_length`, `format`, `minimum`, `maximum`, `min_items`, `max_items`";

/// Parses every `#[name(...)]` among `attrs` with `each`, which returns whether it knew the key.
fn parse_all(
    errors: &mut Errors,
    attrs: &[Attribute],
    name: &str,
    mut each: impl FnMut(&mut Errors, &Ident, &ParseNestedMeta<'_>) -> syn::Result<bool>,
    unknown_hint: &str,
) {
    for attr in attrs.iter().filter(|attr| attr.path().is_ident(name)) {
        let result = attr.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().cloned() else {
                errors.error_at(&meta.path, format!("expected a key of `#[{name}(...)]`"));
                return skip_value(&meta);
            };
            if each(errors, &key, &meta)? {
                return Ok(());
            }
            let shape = if meta.input.peek(syn::Token![=]) {
                " = ..."
            } else {
                ""
            };
            errors.error_at(
                &key,
                format!("unknown attribute `#[{name}({key}{shape})]`; {unknown_hint}"),
            );
            skip_value(&meta)
        });
        errors.ok(result);
    }
}

fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

fn store<T>(
    errors: &mut Errors,
    slot: &mut Option<Setting<T>>,
    name: &str,
    key: &Ident,
    value: Option<(T, Span)>,
) {
    if slot.is_some() {
        errors.error_at(
            key,
            format!("duplicate `#[{name}({key} = ...)]`; write it once"),
        );
        return;
    }
    if let Some((value, value_span)) = value {
        *slot = Some(Setting {
            key: key.clone(),
            value,
            value_span,
        });
    }
}

fn string_value(
    errors: &mut Errors,
    name: &str,
    key: &Ident,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Option<(String, Span)>> {
    let expr: Expr = meta.value()?.parse()?;
    match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => Ok(Some((lit.value(), lit.span()))),
        _ => {
            errors.error_at(
                &expr,
                format!("expected a string literal; write `#[{name}({key} = \"...\")]`"),
            );
            Ok(None)
        }
    }
}

fn count_value(
    errors: &mut Errors,
    key: &Ident,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Option<(u64, Span)>> {
    let expr: Expr = meta.value()?.parse()?;
    if let Expr::Lit(ExprLit {
        lit: Lit::Int(lit), ..
    }) = &expr
        && let Ok(value) = lit.base10_parse::<u64>()
    {
        return Ok(Some((value, lit.span())));
    }
    errors.error_at(
        &expr,
        format!("expected a non-negative integer literal; write `#[form({key} = 3)]`"),
    );
    Ok(None)
}

/// A literal, possibly negated: whether it is, and the literal.
pub(crate) fn signed_literal(expr: &Expr) -> Option<(bool, &Lit)> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => Some((false, lit)),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) => match &**inner {
            Expr::Lit(ExprLit { lit, .. }) => Some((true, lit)),
            _ => None,
        },
        _ => None,
    }
}

/// The value of an integer or finite float literal, negated when `negative`.
pub(crate) fn literal_number(negative: bool, lit: &Lit) -> Option<Number> {
    match lit {
        Lit::Int(lit) => lit
            .base10_parse::<i128>()
            .ok()
            .map(|value| Number::Int(if negative { -value } else { value })),
        Lit::Float(lit) => lit
            .base10_parse::<f64>()
            .ok()
            .filter(|value| value.is_finite())
            .map(|value| Number::Float(if negative { -value } else { value })),
        _ => None,
    }
}

fn number_value(
    errors: &mut Errors,
    key: &Ident,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Option<(Number, Span)>> {
    let expr: Expr = meta.value()?.parse()?;
    let number = signed_literal(&expr).and_then(|(negative, lit)| literal_number(negative, lit));
    if number.is_none() {
        errors.error_at(
            &expr,
            format!("expected a number literal; write `#[form({key} = 1)]`"),
        );
    }
    Ok(number.map(|number| (number, expr.span())))
}

fn format_value(
    errors: &mut Errors,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Option<(Format, Span)>> {
    let lit: LitStr = match meta.value()?.parse::<Expr>()? {
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }) => lit,
        other => {
            errors.error_at(
                &other,
                "expected a string literal; write `#[form(format = \"email\")]`",
            );
            return Ok(None);
        }
    };
    let Some(format) = Format::from_name(&lit.value()) else {
        errors.error_at(
            &lit,
            format!(
                "unknown format `{:?}`; expected one of `\"email\"`, `\"uri\"`, `\"date\"`, \
                 `\"date-time\"`",
                lit.value()
            ),
        );
        return Ok(None);
    };
    Ok(Some((format, lit.span())))
}

fn rename_rule_value(
    errors: &mut Errors,
    name: &str,
    key: &Ident,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<Option<(RenameRule, Span)>> {
    let Some((rule, span)) = string_value(errors, name, key, meta)? else {
        return Ok(None);
    };
    match RenameRule::from_name(&rule) {
        Some(parsed) => Ok(Some((parsed, span))),
        None => {
            errors.error_span(
                span,
                format!("unknown case `{rule:?}`; expected one of {RULE_NAMES}"),
            );
            Ok(None)
        }
    }
}

pub(crate) fn field_attrs(errors: &mut Errors, attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    let hint = format!("the field attributes are {FIELD_KEYS}");
    parse_all(
        errors,
        attrs,
        "form",
        |errors, key, meta| {
            match key.to_string().as_str() {
                "title" => {
                    let value = string_value(errors, "form", key, meta)?;
                    store(errors, &mut out.title, "form", key, value);
                }
                "description" => {
                    let value = string_value(errors, "form", key, meta)?;
                    store(errors, &mut out.description, "form", key, value);
                }
                "rename" => {
                    let value = string_value(errors, "form", key, meta)?;
                    store(errors, &mut out.rename, "form", key, value);
                }
                "default" => {
                    let expr: Expr = meta.value()?.parse()?;
                    let span = expr.span();
                    store(errors, &mut out.default, "form", key, Some((expr, span)));
                }
                "min_length" => {
                    let value = count_value(errors, key, meta)?;
                    store(errors, &mut out.min_length, "form", key, value);
                }
                "max_length" => {
                    let value = count_value(errors, key, meta)?;
                    store(errors, &mut out.max_length, "form", key, value);
                }
                "min_items" => {
                    let value = count_value(errors, key, meta)?;
                    store(errors, &mut out.min_items, "form", key, value);
                }
                "max_items" => {
                    let value = count_value(errors, key, meta)?;
                    store(errors, &mut out.max_items, "form", key, value);
                }
                "format" => {
                    let value = format_value(errors, meta)?;
                    store(errors, &mut out.format, "form", key, value);
                }
                "minimum" => {
                    let value = number_value(errors, key, meta)?;
                    store(errors, &mut out.minimum, "form", key, value);
                }
                "maximum" => {
                    let value = number_value(errors, key, meta)?;
                    store(errors, &mut out.maximum, "form", key, value);
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        &hint,
    );
    out
}

pub(crate) fn form_container_attrs(errors: &mut Errors, attrs: &[Attribute]) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    parse_all(
        errors,
        attrs,
        "form",
        |errors, key, meta| {
            match key.to_string().as_str() {
                "rename_all" => {
                    let value = rename_rule_value(errors, "form", key, meta)?;
                    store(errors, &mut out.rename_all, "form", key, value);
                }
                "title" | "description" => {
                    errors.error_at(
                        key,
                        format!(
                            "`#[form({key} = ...)]` does not apply to a form: a requested \
                             schema has no {key}; say what the form is for in the elicitation \
                             message, or put `{key}` on a field"
                        ),
                    );
                    skip_value(meta)?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
        "the only attribute of a form itself is `rename_all`",
    );
    out
}

pub(crate) fn choice_container_attrs(errors: &mut Errors, attrs: &[Attribute]) -> ChoiceAttrs {
    let mut out = ChoiceAttrs::default();
    parse_all(
        errors,
        attrs,
        "choice",
        |errors, key, meta| {
            match key.to_string().as_str() {
                "rename_all" => {
                    let value = rename_rule_value(errors, "choice", key, meta)?;
                    store(errors, &mut out.container.rename_all, "choice", key, value);
                }
                "enum_names" => enum_names_flag(errors, &mut out.enum_names, key, meta)?,
                _ => return Ok(false),
            }
            Ok(true)
        },
        "the attributes of a choice enum itself are `rename_all` and `enum_names`",
    );
    out
}

/// `enum_names`: a bare word, written at most once.
fn enum_names_flag(
    errors: &mut Errors,
    slot: &mut Option<Ident>,
    key: &Ident,
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<()> {
    let message = "`#[choice(enum_names)]` takes no value; write the bare word \
                   `#[choice(enum_names)]`";
    if meta.input.peek(syn::Token![=]) {
        let value: Expr = meta.value()?.parse()?;
        errors.error_at(&value, message);
    } else if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
        let group: proc_macro2::Group = meta.input.parse()?;
        errors.error_span(group.span(), message);
    } else if slot.is_some() {
        errors.error_at(key, "duplicate `#[choice(enum_names)]`; write it once");
    } else {
        *slot = Some(key.clone());
    }
    Ok(())
}

pub(crate) fn variant_attrs(errors: &mut Errors, attrs: &[Attribute]) -> VariantAttrs {
    let mut out = VariantAttrs::default();
    parse_all(
        errors,
        attrs,
        "choice",
        |errors, key, meta| {
            let slot = match key.to_string().as_str() {
                "title" => &mut out.title,
                "rename" => &mut out.rename,
                "enum_names" | "rename_all" => {
                    errors.error_at(
                        key,
                        format!(
                            "`#[choice({key})]` applies to the enum, not to a variant; move it \
                             onto the enum"
                        ),
                    );
                    skip_value(meta)?;
                    return Ok(true);
                }
                _ => return Ok(false),
            };
            let value = string_value(errors, "choice", key, meta)?;
            store(errors, slot, "choice", key, value);
            Ok(true)
        },
        "the variant attributes are `title` and `rename`",
    );
    out
}

/// The doc comment, as a description: lines trimmed of the one space after `///`, joined.
pub(crate) fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("doc")) {
        if let syn::Meta::NameValue(name_value) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) = &name_value.value
        {
            let text = lit.value();
            for line in text.split('\n') {
                let line = line.strip_prefix(' ').unwrap_or(line);
                lines.push(line.trim_end().to_owned());
            }
        }
    }
    let joined = lines.join("\n");
    let trimmed = joined.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}
