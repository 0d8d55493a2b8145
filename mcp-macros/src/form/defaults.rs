//! The validate stage's checks of a `#[form(default = ...)]` the derive can read as a literal,
//! against the field's own constraints and by the rules the runtime applies to answers: the
//! same bounds, lengths counted in `char`s, the formats of `mcp-formats`, and item counts.
//! A default it cannot evaluate (a `const`, a call) is checked at run time instead, when the
//! form's schema is built.

use std::cmp::Ordering;

use mcp_formats::Format;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprCall, ExprLit, ExprMacro, ExprMethodCall, Lit, LitStr};

use super::attr::{FieldAttrs, Number, Setting, literal_number, signed_literal};
use super::model::{Field, Kind};
use super::validate::type_name;
use crate::errors::Errors;

pub(super) fn check(errors: &mut Errors, field: &Field<'_>) {
    let Some(default) = &field.attrs.default else {
        return;
    };
    let attrs = &field.attrs;
    match &field.kind {
        Kind::Integer(ty) => number(errors, attrs, &default.value, &type_name(ty), false),
        Kind::Float(ty) => number(errors, attrs, &default.value, &type_name(ty), true),
        Kind::Text => text(errors, attrs, &default.value),
        Kind::Multi(..) => selection(errors, attrs, &default.value),
        // A `bool` has no constraints; a choice default is a variant, which the compiler checks.
        Kind::Bool | Kind::Single(_) => {}
    }
}

fn plural(count: u64, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

/// Whether both settings are there and the first is above the second: already reported, and
/// then no default could fit, so it is not judged again.
fn inverted<T>(
    min: Option<&Setting<T>>,
    max: Option<&Setting<T>>,
    above: impl Fn(&T, &T) -> bool,
) -> bool {
    matches!((min, max), (Some(min), Some(max)) if above(&min.value, &max.value))
}

/// Numbers as the runtime compares them: integers exactly, anything else as `f64` (where
/// `-0.0` equals `0.0`; both are finite).
fn compare(a: Number, b: Number) -> Ordering {
    match (a, b) {
        (Number::Int(a), Number::Int(b)) => a.cmp(&b),
        _ => a
            .as_f64()
            .partial_cmp(&b.as_f64())
            .unwrap_or(Ordering::Equal),
    }
}

fn show(number: Number) -> String {
    match number {
        Number::Int(value) => value.to_string(),
        Number::Float(value) => format!("{value:?}"),
    }
}

/// The value an `f32` field holds for `value`, as the runtime sends and reads it back: the
/// nearest `f32`, written in its shortest decimal form.
#[allow(
    clippy::cast_possible_truncation,
    reason = "rounding to the nearest `f32` is the point"
)]
fn as_f32(value: f64) -> f64 {
    (value as f32).to_string().parse().unwrap_or(value)
}

/// A number default outside `minimum`/`maximum`, such as `default = 20` under
/// `maximum = 12`. `float` tells a float field from an integer one of type `ty`.
fn number(errors: &mut Errors, attrs: &FieldAttrs, expr: &Expr, ty: &str, float: bool) {
    let Some((negative, lit)) = signed_literal(expr) else {
        return;
    };
    // A literal of the wrong kind or suffix is the compiler's to report, as a type mismatch.
    let suffix = match lit {
        Lit::Int(lit) if !float => lit.suffix(),
        Lit::Float(lit) if float => lit.suffix(),
        _ => return,
    };
    if !suffix.is_empty() && suffix != ty {
        return;
    }
    let Some(mut value) = literal_number(negative, lit) else {
        return;
    };
    if let (Number::Float(written), "f32") = (value, ty) {
        value = Number::Float(as_f32(written));
    }
    let (min, max) = (attrs.minimum.as_ref(), attrs.maximum.as_ref());
    let integer_bounds = [min, max]
        .into_iter()
        .flatten()
        .all(|bound| matches!(bound.value, Number::Int(_)));
    if (!float && !integer_bounds) || inverted(min, max, |a, b| compare(*a, *b).is_gt()) {
        return;
    }
    let range = match (min, max) {
        (Some(min), Some(max)) => format!("within `{}..={}`", show(min.value), show(max.value)),
        (Some(min), None) => format!("of at least `{}`", show(min.value)),
        (None, Some(max)) => format!("of at most `{}`", show(max.value)),
        (None, None) => return,
    };
    let written = format!(
        "{}{lit}",
        if negative { "-" } else { "" },
        lit = lit_text(lit)
    );
    let (side, bound) = match (min, max) {
        (Some(min), _) if compare(value, min.value).is_lt() => ("below", min),
        (_, Some(max)) if compare(value, max.value).is_gt() => ("above", max),
        _ => return,
    };
    errors.error_at(
        expr,
        format!(
            "the default `{written}` is {side} `#[form({key} = {bound})]`; pick a default \
             {range} or drop it",
            key = bound.key,
            bound = show(bound.value),
        ),
    );
}

/// The last two segments of a called path: `("String", "from")` for `std::string::String::from`.
fn call_path(func: &Expr) -> Option<(String, String)> {
    let Expr::Path(path) = func else {
        return None;
    };
    let mut segments = path.path.segments.iter().rev();
    let function = segments.next()?.ident.to_string();
    let ty = segments.next()?.ident.to_string();
    Some((ty, function))
}

fn lit_text(lit: &Lit) -> String {
    match lit {
        Lit::Int(lit) => lit.to_string(),
        Lit::Float(lit) => lit.to_string(),
        _ => String::new(),
    }
}

/// The string literal a `String` default is made of: `"..."`, `String::from("...")`, or
/// `"..."` followed by `.to_owned()`, `.to_string()` or `.into()`.
fn string_literal(expr: &Expr) -> Option<&LitStr> {
    fn lit(expr: &Expr) -> Option<&LitStr> {
        match expr {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => Some(lit),
            _ => None,
        }
    }

    match expr {
        Expr::Call(ExprCall { func, args, .. }) if args.len() == 1 => {
            let (ty, function) = call_path(func)?;
            (ty == "String" && function == "from")
                .then(|| lit(&args[0]))
                .flatten()
        }
        Expr::MethodCall(ExprMethodCall {
            receiver,
            method,
            args,
            turbofish: None,
            ..
        }) if args.is_empty()
            && ["to_owned", "to_string", "into"].contains(&&*method.to_string()) =>
        {
            lit(receiver)
        }
        other => lit(other),
    }
}

/// A string default shorter than `min_length`, longer than `max_length`, or not in `format`.
fn text(errors: &mut Errors, attrs: &FieldAttrs, expr: &Expr) {
    let Some(lit) = string_literal(expr) else {
        return;
    };
    let value = lit.value();
    // Characters as the runtime counts them: Unicode scalar values.
    let count = value.chars().count() as u64;
    let (min, max) = (attrs.min_length.as_ref(), attrs.max_length.as_ref());
    if !inverted(min, max, |a, b| a > b) {
        if let Some(max) = max
            && count > max.value
        {
            errors.error_at(
                lit,
                format!(
                    "the default is {} long, longer than `#[form(max_length = {})]` allows; \
                     shorten it to at most {} or drop it",
                    plural(count, "character", "characters"),
                    max.value,
                    plural(max.value, "character", "characters"),
                ),
            );
        }
        if let Some(min) = min
            && count < min.value
        {
            errors.error_at(
                lit,
                format!(
                    "the default is {} long, shorter than `#[form(min_length = {})]` allows; \
                     lengthen it to at least {} or drop it",
                    plural(count, "character", "characters"),
                    min.value,
                    plural(min.value, "character", "characters"),
                ),
            );
        }
    }
    if let Some(format) = &attrs.format
        && !format.value.matches(&value)
    {
        let format = format.value;
        // The runtime's description, less the example it gives for a date-time: the fix
        // names one.
        let what = match format {
            Format::DateTime => "an RFC 3339 date-time",
            other => other.describe(),
        };
        errors.error_at(
            lit,
            format!(
                "the default `{value:?}` is not {what}, as `#[form(format = \"{name}\")]` \
                 requires; write one such as `{example:?}` or drop it",
                name = format.name(),
                example = format.example(),
            ),
        );
    }
}

/// How many values a multi-select default selects, where the derive can count them exactly:
/// `vec![a, b]`, `vec![]`, `Vec::from([a, b])`, `Vec::new()`, `BTreeSet::new()`. A
/// `BTreeSet::from([...])` is not counted: equal values written differently collapse.
fn selection_size(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Macro(ExprMacro { mac, .. }) if mac.path.is_ident("vec") => mac
            .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok()
            .map(|items| items.len() as u64),
        Expr::Call(ExprCall { func, args, .. }) => {
            let (collection, function) = call_path(func)?;
            match (collection.as_str(), function.as_str()) {
                ("Vec" | "BTreeSet", "new") if args.is_empty() => Some(0),
                ("Vec", "from") if args.len() == 1 => match &args[0] {
                    Expr::Array(array) => Some(array.elems.len() as u64),
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// A multi-select default selecting fewer than `min_items` or more than `max_items` values.
fn selection(errors: &mut Errors, attrs: &FieldAttrs, expr: &Expr) {
    let Some(count) = selection_size(expr) else {
        return;
    };
    let (min, max) = (attrs.min_items.as_ref(), attrs.max_items.as_ref());
    if inverted(min, max, |a, b| a > b) {
        return;
    }
    let selects = plural(count, "value", "values");
    if let Some(max) = max
        && count > max.value
    {
        errors.error_at(
            expr,
            format!(
                "the default selects {selects}, more than `#[form(max_items = {max})]` allows; \
                 select at most {max} or drop it",
                max = max.value,
            ),
        );
    }
    if let Some(min) = min
        && count < min.value
    {
        errors.error_at(
            expr,
            format!(
                "the default selects {selects}, fewer than `#[form(min_items = {min})]` allows; \
                 select at least {min} or drop it",
                min = min.value,
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::form::{model, validate};

    /// The messages the derive reports for `input`, in order.
    fn messages(input: syn::DeriveInput) -> Vec<String> {
        let (form, mut errors) = model::parse(&input);
        validate::form(&form, &mut errors);
        errors
            .finish()
            .err()
            .map(|error| error.into_iter().map(|error| error.to_string()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn numbers_compare_as_the_runtime_does() {
        let accepted = messages(syn::parse_quote! {
            struct Edges {
                // `-0.0` is not below `0`: the runtime compares floats as `f64`.
                #[form(minimum = 0, default = -0.0)]
                zero: f64,
                // `0.1` narrows to the `f32` the runtime writes back as `0.1`.
                #[form(maximum = 0.1, default = 0.100_000_001)]
                tenth: f32,
                #[form(minimum = -128, maximum = 127, default = -128i8)]
                low: i8,
                // A literal of another type is the compiler's to refuse, as a mismatch.
                #[form(maximum = 1, default = 5u8)]
                mismatched: u32,
                #[form(maximum = 1, default = 5.0)]
                float_for_integer: u32,
                // Inverted bounds are reported once, on the bounds.
                #[form(minimum = 5, maximum = 1, default = 9)]
                inverted: u32,
                // What the derive cannot evaluate is left to run time.
                #[form(maximum = 1, default = FIVE)]
                constant: u32,
            }
        });
        assert_eq!(
            accepted,
            [
                "`#[form(minimum = ...)]` is above `#[form(maximum = ...)]`, so no answer could \
              fit; make `minimum` at most `maximum`"
            ]
        );
        assert_eq!(
            messages(syn::parse_quote! {
                struct Over {
                    #[form(maximum = 0.1, default = 0.100_000_01)]
                    tenth: f64,
                    #[form(minimum = -1.5, default = -2e0)]
                    low: f64,
                }
            }),
            [
                "the default `0.100_000_01` is above `#[form(maximum = 0.1)]`; pick a default \
                 of at most `0.1` or drop it",
                "the default `-2e0` is below `#[form(minimum = -1.5)]`; pick a default of at \
                 least `-1.5` or drop it",
            ]
        );
    }

    #[test]
    fn defaults_at_the_bounds_are_accepted() {
        let accepted = messages(syn::parse_quote! {
            struct Edges {
                #[form(minimum = 1, maximum = 12, default = 1)]
                at_minimum: u32,
                #[form(minimum = 1, maximum = 12, default = 12)]
                at_maximum: u32,
                #[form(minimum = -0.5, maximum = 0.5, default = -0.5)]
                float_at_minimum: f64,
                #[form(minimum = -0.5, maximum = 0.5, default = 0.5)]
                float_at_maximum: f64,
                #[form(min_length = 2, max_length = 3, default = "ab")]
                at_min_length: String,
                #[form(min_length = 2, max_length = 3, default = "abc")]
                at_max_length: String,
                #[form(min_items = 1, max_items = 2, default = vec![Tag::A])]
                at_min_items: Vec<Tag>,
                #[form(min_items = 1, max_items = 2, default = vec![Tag::A, Tag::B])]
                at_max_items: Vec<Tag>,
                #[form(format = "date-time", default = "2026-07-28T23:59:60Z")]
                leap_second: String,
            }
        });
        assert_eq!(accepted, Vec::<String>::new());
    }

    #[test]
    fn strings_count_characters_and_every_failure_is_reported() {
        assert_eq!(
            messages(syn::parse_quote! {
                struct Mail {
                    #[form(min_length = 4, max_length = 4, default = "çà")]
                    short: String,
                    #[form(max_length = 3, format = "email", default = "ab".to_string())]
                    both: Option<String>,
                    #[form(max_length = 3, default = "éèêë".repeat(1))]
                    call: String,
                }
            }),
            [
                "the default is 2 characters long, shorter than `#[form(min_length = 4)]` \
                 allows; lengthen it to at least 4 characters or drop it",
                "the default `\"ab\"` is not an e-mail address, as `#[form(format = \"email\")]` \
                 requires; write one such as `\"name@example.com\"` or drop it",
            ]
        );
    }

    #[test]
    fn selections_are_counted_only_where_exact() {
        assert_eq!(
            messages(syn::parse_quote! {
                struct Pick {
                    #[form(max_items = 1, default = Vec::from([Tag::A, Tag::B]))]
                    from_array: Vec<Tag>,
                    #[form(min_items = 1, default = vec![])]
                    empty: Vec<Tag>,
                    // A set collapses equal values, however they are written: not counted.
                    #[form(max_items = 1, default = BTreeSet::from([Tag::A, self::Tag::A]))]
                    set: BTreeSet<Tag>,
                    #[form(max_items = 1, default = vec![Tag::A; 2])]
                    repeated: Vec<Tag>,
                }
            }),
            [
                "the default selects 2 values, more than `#[form(max_items = 1)]` allows; \
                 select at most 1 or drop it",
                "the default selects 0 values, fewer than `#[form(min_items = 1)]` allows; \
                 select at least 1 or drop it",
            ]
        );
    }
}
