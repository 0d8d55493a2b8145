//! The typed model of a form: each field with its kind, judged from the type's syntax, and
//! its attributes. Shapes that can never be a form field are refused here.

use syn::{Data, DeriveInput, Fields, GenericArgument, Ident, PathArguments, Type, TypePath};

use super::attr::{self, ContainerAttrs, FieldAttrs};
use crate::errors::Errors;

pub(crate) struct Form<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) attrs: ContainerAttrs,
    pub(crate) fields: Vec<Field<'a>>,
}

pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    pub(crate) kind: Kind<'a>,
    /// The `T` of an `Option<T>` field.
    pub(crate) optional: Option<&'a Type>,
    pub(crate) attrs: FieldAttrs,
    pub(crate) doc: Option<String>,
}

pub(crate) enum Kind<'a> {
    Text,
    Integer(&'a Type),
    Float(&'a Type),
    Bool,
    /// A type the derive takes for an `ElicitChoice` enum; the compiler checks it.
    Single(&'a Type),
    /// `Vec<E>` or `BTreeSet<E>`: the collection type, and `E`.
    Multi(&'a Type, &'a Type),
}

impl Kind<'_> {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Self::Text => "a `String` field",
            Self::Integer(_) => "an integer field",
            Self::Float(_) => "a float field",
            Self::Bool => "a `bool` field",
            Self::Single(_) => "a single-select field",
            Self::Multi(..) => "a multi-select field",
        }
    }
}

pub(crate) const FIELD_TYPES: &str = "a form field is a `String`, an integer, `f32`, `f64`, \
    `bool`, an enum deriving `ElicitChoice`, a `Vec` or `BTreeSet` of such an enum, a date type \
    of `jiff` or `chrono` (with `mcp-runtime`'s feature of that name), or an `Option` of one \
    of these";

const INTEGERS: [&str; 10] = [
    "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
];

/// The form and the errors found. A field with an error is left out of the model, so the
/// rest can still be validated and every mistake reported in one build.
pub(crate) fn parse(input: &DeriveInput) -> (Form<'_>, Errors) {
    let mut errors = Errors::new();
    let container = attr::form_container_attrs(&mut errors, &input.attrs);
    if !input.generics.params.is_empty() {
        errors.error_at(
            &input.generics,
            "a form cannot be generic; write a form struct per concrete type",
        );
    } else if let Some(clause) = &input.generics.where_clause {
        errors.error_at(clause, "a form cannot have a `where` clause; remove it");
    }
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named.named.iter().collect::<Vec<_>>()),
            Fields::Unit => Some(Vec::new()),
            Fields::Unnamed(unnamed) => {
                errors.error_at(
                    unnamed,
                    "a form needs named fields, which become the wire names; write \
                     `struct Name { field: Type }`",
                );
                None
            }
        },
        Data::Enum(data) => {
            errors.error_at(
                data.enum_token,
                "`#[derive(ElicitForm)]` applies to structs with named fields; for a \
                 single-select field, derive `ElicitChoice` on the enum instead",
            );
            None
        }
        Data::Union(data) => {
            errors.error_at(
                data.union_token,
                "`#[derive(ElicitForm)]` applies to structs with named fields; write a `struct`",
            );
            None
        }
    };
    let mut fields = Vec::new();
    for field in named.unwrap_or_default() {
        let mut field_errors = Errors::new();
        let attrs = attr::field_attrs(&mut field_errors, &field.attrs);
        let classified = field_errors.ok(classify_field(&field.ty));
        let clean = field_errors.is_empty();
        errors.extend(field_errors);
        let (Some(ident), Some((kind, optional)), true) = (field.ident.as_ref(), classified, clean)
        else {
            continue;
        };
        fields.push(Field {
            ident,
            ty: &field.ty,
            kind,
            optional,
            attrs,
            doc: attr::doc_comment(&field.attrs),
        });
    }
    let form = Form {
        ident: &input.ident,
        attrs: container,
        fields,
    };
    (form, errors)
}

fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Paren(inner) => strip(&inner.elem),
        Type::Group(inner) => strip(&inner.elem),
        other => other,
    }
}

/// The last segment's name and its single type argument (if it has exactly one).
fn last_segment(path: &TypePath) -> Option<(String, &PathArguments)> {
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    Some((segment.ident.to_string(), &segment.arguments))
}

fn single_type_argument(arguments: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = arguments else {
        return None;
    };
    let mut types = args.args.iter();
    match (types.next(), types.next()) {
        (Some(GenericArgument::Type(ty)), None) => Some(ty),
        _ => None,
    }
}

fn classify_field(ty: &Type) -> syn::Result<(Kind<'_>, Option<&Type>)> {
    if let Type::Path(path) = strip(ty)
        && let Some((name, arguments)) = last_segment(path)
        && name == "Option"
    {
        let Some(inner) = single_type_argument(arguments) else {
            return Err(syn::Error::new_spanned(ty, "expected `Option<T>`"));
        };
        if let Type::Path(inner_path) = strip(inner)
            && let Some((inner_name, _)) = last_segment(inner_path)
            && inner_name == "Option"
        {
            return Err(syn::Error::new_spanned(
                inner,
                "a form field cannot be `Option<Option<_>>`; an absent answer is already \
                 `None`: write `Option<T>`",
            ));
        }
        return Ok((classify(inner)?, Some(inner)));
    }
    Ok((classify(ty)?, None))
}

fn classify(ty: &Type) -> syn::Result<Kind<'_>> {
    let refuse = |message: String| Err(syn::Error::new_spanned(ty, message));
    let path = match strip(ty) {
        Type::Path(path) => path,
        Type::Reference(_) => {
            return refuse(
                "a reference cannot be a form field: the form owns its answers; use an owned \
                 type such as `String`"
                    .into(),
            );
        }
        Type::Tuple(tuple) if tuple.elems.is_empty() => {
            return refuse(format!("`()` cannot be a form field; {FIELD_TYPES}"));
        }
        Type::Tuple(_) => {
            return refuse(
                "a tuple cannot be a form field: forms are flat; give each element a field \
                 of its own"
                    .into(),
            );
        }
        Type::Array(_) | Type::Slice(_) => {
            return refuse(
                "an array cannot be a form field; for a multi-select, use `Vec<E>` where `E` \
                 derives `ElicitChoice`"
                    .into(),
            );
        }
        _ => return refuse(format!("this type cannot be a form field; {FIELD_TYPES}")),
    };
    let Some((name, arguments)) = last_segment(path) else {
        return refuse(format!(
            "a qualified path cannot be a form field; {FIELD_TYPES}, written out by name"
        ));
    };
    let has_arguments = !matches!(arguments, PathArguments::None);
    match name.as_str() {
        "Vec" | "BTreeSet" => {
            let Some(elem) = single_type_argument(arguments) else {
                return refuse(format!(
                    "expected `{name}<E>` where `E` derives `ElicitChoice`"
                ));
            };
            return match classify(elem) {
                Ok(Kind::Single(_)) => Ok(Kind::Multi(ty, elem)),
                _ => Err(syn::Error::new_spanned(
                    elem,
                    format!(
                        "a multi-select holds an enum deriving `ElicitChoice`, so `{name}<{}>` \
                         cannot be a form field; declare a unit-only enum with one variant per \
                         value and use `{name}<ThatEnum>`",
                        quote::quote!(#elem).to_string().replace(' ', "")
                    ),
                )),
            };
        }
        "HashMap" | "BTreeMap" | "IndexMap" | "Map" => {
            return refuse(
                "a map cannot be a form field: forms are flat; give each entry a field of its \
                 own"
                .into(),
            );
        }
        "HashSet" | "IndexSet" => {
            return refuse(format!(
                "`{name}` cannot be a form field; for a multi-select, use `BTreeSet<E>` or \
                 `Vec<E>` where `E` derives `ElicitChoice`"
            ));
        }
        "Option" => {
            return refuse("a form field cannot be `Option<Option<_>>`; write `Option<T>`".into());
        }
        _ => {}
    }
    // `chrono::DateTime<Tz>` is a date-time field (`mcp_runtime::form::FormDate`), checked
    // through `FormField` like a choice.
    if has_arguments && name != "DateTime" {
        return refuse(format!(
            "`{name}<...>` cannot be a form field; {FIELD_TYPES}"
        ));
    }
    Ok(match name.as_str() {
        "String" => Kind::Text,
        "f32" | "f64" => Kind::Float(ty),
        "bool" => Kind::Bool,
        "str" => return refuse("`str` cannot be a form field; use `String`".into()),
        "i128" | "u128" => {
            return refuse(format!(
                "`{name}` cannot be a form field: form integers are at most 64 bits wide; use \
                 `{}64`",
                &name[..1]
            ));
        }
        integer if INTEGERS.contains(&integer) => Kind::Integer(ty),
        _ => Kind::Single(ty),
    })
}
