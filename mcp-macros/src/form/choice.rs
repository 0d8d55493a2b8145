//! `#[derive(ElicitChoice)]`: parse, validate and expand a unit-only enum.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident};

use super::attr::{self, ChoiceAttrs, VariantAttrs};
use super::validate::wire_name;
use crate::errors::Errors;

struct Choice<'a> {
    ident: &'a Ident,
    attrs: ChoiceAttrs,
    variants: Vec<Variant<'a>>,
}

struct Variant<'a> {
    ident: &'a Ident,
    attrs: VariantAttrs,
}

fn parse(input: &DeriveInput) -> syn::Result<Choice<'_>> {
    let mut errors = Errors::new();
    let container = attr::choice_container_attrs(&mut errors, &input.attrs);
    json_schema_elsewhere(&mut errors, &input.attrs);
    if !input.generics.params.is_empty() {
        errors.error_at(
            &input.generics,
            "a choice enum cannot be generic; its variants are fixed wire values: remove the \
             generic parameters",
        );
    }
    let mut variants = Vec::new();
    match &input.data {
        Data::Enum(data) => {
            if data.variants.is_empty() {
                errors.error_at(
                    &input.ident,
                    "a choice enum needs at least one variant; add one variant per value the \
                     user may choose",
                );
            }
            for variant in &data.variants {
                let attrs = attr::variant_attrs(&mut errors, &variant.attrs);
                match &variant.fields {
                    Fields::Unit => variants.push(Variant {
                        ident: &variant.ident,
                        attrs,
                    }),
                    fields => errors.error_at(
                        fields,
                        format!(
                            "a choice variant cannot carry data: the user picks `{}` from a \
                             fixed list; remove the fields, or make it a field of the form",
                            variant.ident
                        ),
                    ),
                }
            }
        }
        Data::Struct(data) => errors.error_at(
            data.struct_token,
            "`#[derive(ElicitChoice)]` applies to enums with unit variants; for a form, derive \
             `ElicitForm` on the struct instead",
        ),
        Data::Union(data) => errors.error_at(
            data.union_token,
            "`#[derive(ElicitChoice)]` applies to enums with unit variants; write an `enum`",
        ),
    }
    errors.finish_with(Choice {
        ident: &input.ident,
        attrs: container,
        variants,
    })
}

/// The derive implements `JsonSchema` from the wire values, so a schema derived apart (whose
/// names `#[choice(rename_all)]` never reaches) would publish names results never hold.
/// Refused where it shows: `JsonSchema` in a `#[derive]` the compiler still hands over, and
/// any `#[schemars(...)]`.
fn json_schema_elsewhere(errors: &mut Errors, attrs: &[syn::Attribute]) {
    for attr in attrs {
        if attr.path().is_ident("schemars") {
            errors.error_at(
                attr.path(),
                "`#[schemars(...)]` on an `ElicitChoice` enum: the derive implements \
                 `JsonSchema` from the wire values of `#[choice(...)]`; remove this attribute \
                 and `JsonSchema` from the derives",
            );
        } else if attr.path().is_ident("derive") {
            let derived = attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            );
            for path in derived.iter().flatten() {
                if path
                    .segments
                    .last()
                    .is_some_and(|last| last.ident == "JsonSchema")
                {
                    errors.error_at(
                        path,
                        "`ElicitChoice` implements `JsonSchema` from the enum's wire values; \
                         remove `JsonSchema` from this derive",
                    );
                }
            }
        }
    }
}

fn validate(choice: &Choice<'_>) -> syn::Result<()> {
    let mut errors = Errors::new();
    let mut seen: HashMap<String, &Ident> = HashMap::new();
    for variant in &choice.variants {
        let wire = wire_name(
            variant.ident,
            variant.attrs.rename.as_ref(),
            &choice.attrs.container,
        );
        if let Some(first) = seen.get(&wire) {
            let message = format!(
                "duplicate wire value `{wire}`: variant `{first}` already uses it; give one of \
                 them a distinct `#[choice(rename = \"...\")]`"
            );
            match &variant.attrs.rename {
                Some(rename) => errors.error_span(rename.value_span, message),
                None => errors.error_at(variant.ident, message),
            }
        } else {
            seen.insert(wire, variant.ident);
        }
    }
    errors.finish()
}

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    match parse(input).and_then(|choice| validate(&choice).map(|()| choice)) {
        Ok(choice) => expand(&choice),
        Err(error) => crate::errors::with_fallback(&error, fallback(input)),
    }
}

// Input:  enum Environment { Staging, #[choice(title = "Production (live)")] Production }
// Output: const _: () = {
//             impl ElicitChoice for Environment {
//                 CHOICES, from_wire, to_wire,
//                 ENUM_NAMES = true  /* only with #[choice(enum_names)] */
//             }
//             impl FormField for Environment { type Kind = Single<Self>; }
//             impl Serialize / Deserialize for Environment { /* as the wire value */ }
//             impl JsonSchema for Environment { /* the wire values */ }
//         };
fn expand(choice: &Choice<'_>) -> TokenStream {
    let ident = choice.ident;
    let variant_idents: Vec<_> = choice.variants.iter().map(|v| v.ident).collect();
    let wires: Vec<_> = choice
        .variants
        .iter()
        .map(|v| wire_name(v.ident, v.attrs.rename.as_ref(), &choice.attrs.container))
        .collect();
    let titles = choice.variants.iter().map(|v| match &v.attrs.title {
        Some(title) => {
            let title = &title.value;
            quote!(::core::option::Option::Some(#title))
        }
        None => quote!(::core::option::Option::None),
    });
    let enum_names = choice.attrs.enum_names.as_ref().map(|_| {
        quote!(
            const ENUM_NAMES: ::core::primitive::bool = true;
        )
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl ::mcp_runtime::form::ElicitChoice for #ident {
                const CHOICES: &'static [::mcp_runtime::form::Choice<Self>] = &[
                    #(::mcp_runtime::form::Choice {
                        value: Self::#variant_idents,
                        wire: #wires,
                        title: #titles,
                    },)*
                ];
                #enum_names

                fn from_wire(
                    __mcp_wire: &::core::primitive::str,
                ) -> ::core::option::Option<Self> {
                    match __mcp_wire {
                        #(#wires => ::core::option::Option::Some(Self::#variant_idents),)*
                        _ => ::core::option::Option::None,
                    }
                }

                fn to_wire(self) -> &'static ::core::primitive::str {
                    match self {
                        #(Self::#variant_idents => #wires,)*
                    }
                }
            }

            #[automatically_derived]
            impl ::mcp_runtime::form::FormField for #ident {
                type Kind = ::mcp_runtime::__private::form::Single<Self>;
            }

            #[automatically_derived]
            impl ::mcp_runtime::__private::serde::Serialize for #ident {
                fn serialize<__S: ::mcp_runtime::__private::serde::Serializer>(
                    &self,
                    __serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    ::mcp_runtime::__private::form::serialize_choice(self, __serializer)
                }
            }

            #[automatically_derived]
            impl<'__mcp_de> ::mcp_runtime::__private::serde::Deserialize<'__mcp_de> for #ident {
                fn deserialize<__D: ::mcp_runtime::__private::serde::Deserializer<'__mcp_de>>(
                    __deserializer: __D,
                ) -> ::core::result::Result<Self, __D::Error> {
                    ::mcp_runtime::__private::form::deserialize_choice(__deserializer)
                }
            }

            #[automatically_derived]
            impl ::mcp_runtime::__private::schemars::JsonSchema for #ident {
                fn schema_name() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                    ::std::borrow::Cow::Borrowed(::core::stringify!(#ident))
                }

                fn schema_id() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                    ::std::borrow::Cow::Borrowed(::core::concat!(
                        ::core::module_path!(),
                        "::",
                        ::core::stringify!(#ident)
                    ))
                }

                fn json_schema(
                    _: &mut ::mcp_runtime::__private::schemars::SchemaGenerator,
                ) -> ::mcp_runtime::__private::schemars::Schema {
                    ::mcp_runtime::__private::form::choice_schema::<Self>()
                }
            }
        };
    }
}

/// For an enum that failed to compile as a choice: implementations that raise no further
/// errors where it is used as a form field.
fn fallback(input: &DeriveInput) -> TokenStream {
    if !matches!(input.data, Data::Enum(_)) || !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    quote! {
        #[automatically_derived]
        impl ::mcp_runtime::form::ElicitChoice for #ident {
            const CHOICES: &'static [::mcp_runtime::form::Choice<Self>] = &[];
            fn from_wire(_: &::core::primitive::str) -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }
            fn to_wire(self) -> &'static ::core::primitive::str {
                ::core::unreachable!()
            }
        }
        #[automatically_derived]
        impl ::mcp_runtime::form::FormField for #ident {
            type Kind = ::mcp_runtime::__private::form::Single<Self>;
        }
    }
}
