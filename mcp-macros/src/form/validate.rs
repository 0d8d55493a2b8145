//! Every semantic rule of a form, on a model that parsed cleanly.

use std::collections::HashMap;

use syn::ext::IdentExt as _;

use super::attr::{ContainerAttrs, Number, Setting};
use super::defaults;
use super::model::{Field, Form, Kind};
use crate::errors::Errors;

/// The wire name of a field or variant: its `rename`, else its identifier under `rename_all`.
pub(crate) fn wire_name(
    ident: &syn::Ident,
    rename: Option<&Setting<String>>,
    container: &ContainerAttrs,
) -> String {
    if let Some(rename) = rename {
        return rename.value.clone();
    }
    let name = ident.unraw().to_string();
    match &container.rename_all {
        Some(rule) => rule.value.apply(&name),
        None => name,
    }
}

pub(crate) fn form(form: &Form<'_>, errors: &mut Errors) {
    for field in &form.fields {
        check_fit(errors, field);
        check_order(
            errors,
            field.attrs.min_length.as_ref(),
            field.attrs.max_length.as_ref(),
            |n| *n as f64,
        );
        check_order(
            errors,
            field.attrs.min_items.as_ref(),
            field.attrs.max_items.as_ref(),
            |n| *n as f64,
        );
        check_order(
            errors,
            field.attrs.minimum.as_ref(),
            field.attrs.maximum.as_ref(),
            |n| n.as_f64(),
        );
        if let Kind::Integer(ty) = &field.kind {
            check_integer_bound(errors, field.attrs.minimum.as_ref(), ty);
            check_integer_bound(errors, field.attrs.maximum.as_ref(), ty);
        }
        defaults::check(errors, field);
    }
    let mut seen: HashMap<String, &syn::Ident> = HashMap::new();
    for field in &form.fields {
        let wire = wire_name(field.ident, field.attrs.rename.as_ref(), &form.attrs);
        if let Some(first) = seen.get(&wire) {
            let message = format!(
                "duplicate wire name `{wire}`: field `{first}` already uses it; give one of them \
                 a distinct `#[form(rename = \"...\")]`"
            );
            match &field.attrs.rename {
                Some(rename) => errors.error_span(rename.value_span, message),
                None => errors.error_at(field.ident, message),
            }
        } else {
            seen.insert(wire, field.ident);
        }
    }
}

fn check_fit(errors: &mut Errors, field: &Field<'_>) {
    let attrs = &field.attrs;
    let text = matches!(field.kind, Kind::Text);
    let numeric = matches!(field.kind, Kind::Integer(_) | Kind::Float(_));
    let multi = matches!(field.kind, Kind::Multi(..));
    let rules: [(Option<&syn::Ident>, bool, &str); 7] = [
        (
            attrs.min_length.as_ref().map(|s| &s.key),
            text,
            "`String` fields",
        ),
        (
            attrs.max_length.as_ref().map(|s| &s.key),
            text,
            "`String` fields",
        ),
        (
            attrs.format.as_ref().map(|s| &s.key),
            text,
            "`String` fields",
        ),
        (
            attrs.minimum.as_ref().map(|s| &s.key),
            numeric,
            "integer and float fields",
        ),
        (
            attrs.maximum.as_ref().map(|s| &s.key),
            numeric,
            "integer and float fields",
        ),
        (
            attrs.min_items.as_ref().map(|s| &s.key),
            multi,
            "multi-select fields (`Vec` or `BTreeSet` of an `ElicitChoice` enum)",
        ),
        (
            attrs.max_items.as_ref().map(|s| &s.key),
            multi,
            "multi-select fields (`Vec` or `BTreeSet` of an `ElicitChoice` enum)",
        ),
    ];
    for (key, fits, applies_to) in rules {
        if let Some(key) = key
            && !fits
        {
            errors.error_at(
                key,
                format!(
                    "`#[form({key} = ...)]` does not apply to {}; it applies to {applies_to}; \
                     remove it",
                    field.kind.describe()
                ),
            );
        }
    }
}

fn check_order<T>(
    errors: &mut Errors,
    min: Option<&Setting<T>>,
    max: Option<&Setting<T>>,
    value: impl Fn(&T) -> f64,
) {
    if let (Some(min), Some(max)) = (min, max)
        && value(&min.value) > value(&max.value)
    {
        let (low, high) = (&min.key, &max.key);
        errors.error_span(
            min.value_span,
            format!(
                "`#[form({low} = ...)]` is above `#[form({high} = ...)]`, so no answer could \
                 fit; make `{low}` at most `{high}`"
            ),
        );
    }
}

fn check_integer_bound(errors: &mut Errors, bound: Option<&Setting<Number>>, ty: &syn::Type) {
    let Some(bound) = bound else {
        return;
    };
    let key = &bound.key;
    let name = type_name(ty);
    let value = match bound.value {
        Number::Int(value) => value,
        Number::Float(_) => {
            errors.error_span(
                bound.value_span,
                format!(
                    "`#[form({key} = ...)]` of an integer field must be an integer; write it \
                     without a fraction"
                ),
            );
            return;
        }
    };
    let (low, high): (i128, i128) = match name.as_str() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" | "isize" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    };
    if !(low..=high).contains(&value) {
        errors.error_span(
            bound.value_span,
            format!(
                "`#[form({key} = {value})]` is out of range for `{name}`, which holds {low} to \
                 {high}; write a bound inside that range"
            ),
        );
    }
}

/// The last segment of a numeric field's type, as written: `u32` for `std::primitive::u32`.
pub(super) fn type_name(ty: &syn::Type) -> String {
    let written = quote::quote!(#ty).to_string();
    written
        .rsplit("::")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}
