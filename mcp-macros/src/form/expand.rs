//! Code generation of `#[derive(ElicitForm)]`.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, Lit};

use mcp_formats::Format;

use super::attr::Number;
use super::model::{Field, Form, Kind};
use super::validate::wire_name;

// Input:  struct Target { #[form(maximum = 12)] replicas: u32, reason: Option<String> }
// Output: const _: () = {
//             const __MCP_META_0: FieldMeta = FieldMeta { maximum: Some(Bound::Int(12)), ..FieldMeta::new("replicas") };
//             const __MCP_META_1: FieldMeta = FieldMeta::new("reason");
//             impl ElicitForm for Target { /* schema once, parse, write: one call per field */ }
//             impl Serialize for Target { /* through to_content */ }
//             impl<'de> Deserialize<'de> for Target { /* through from_content */ }
//         };
pub(crate) fn form(form: &Form<'_>) -> TokenStream {
    let ident = form.ident;
    let name = ident.unraw().to_string();
    let count = form.fields.len();
    let mut items = Vec::new();
    let mut schema = Vec::new();
    let mut parse = Vec::new();
    let mut write = Vec::new();
    let mut locals = Vec::new();
    let mut idents = Vec::new();
    for (index, field) in form.fields.iter().enumerate() {
        let meta = format_ident!("__MCP_META_{}", index);
        let local = format_ident!("__mcp_field_{}", index, span = Span::mixed_site());
        let kind = kind_tokens(field);
        // Every use of the field's kind carries the span of the field's type: a type that is
        // no form field is then reported once, on that type, with the message of `FormField`.
        let span = kind_span(field);
        let wire = wire_name(field.ident, field.attrs.rename.as_ref(), &form.attrs);
        let meta_value = meta_tokens(field, &wire);
        items.push(quote_spanned! {span=>
            #[doc(hidden)]
            const #meta: ::mcp_runtime::__private::form::FieldMeta = #meta_value;
            const _: () = {
                let _ = <#kind as ::mcp_runtime::__private::form::Kind>::expected;
            };
        });
        let default_fn = field.attrs.default.as_ref().map(|default| {
            let name = format_ident!("__mcp_default_{}", index);
            let expr = default_expr(field, &default.value);
            items.push(quote_spanned! {span=>
                #[doc(hidden)]
                fn #name() -> <#kind as ::mcp_runtime::__private::form::Kind>::Value {
                    #expr
                }
            });
            name
        });
        let schema_default = match &default_fn {
            Some(name) => quote!(::core::option::Option::Some(&#name())),
            None => quote!(::core::option::Option::None),
        };
        let field_ident = field.ident;
        if field.optional.is_some() {
            schema.push(quote_spanned! {span=>
                __mcp_schema.optional::<#kind>(&#meta, #schema_default);
            });
            parse.push(quote_spanned! {span=>
                let #local = __mcp_parser.optional::<#kind>(&#meta);
            });
            write.push(quote_spanned! {span=>
                __mcp_writer.optional::<#kind>(&#meta, ::core::option::Option::as_ref(&self.#field_ident));
            });
        } else {
            let parse_default = match &default_fn {
                Some(name) => quote!(::core::option::Option::Some(#name)),
                None => quote!(::core::option::Option::None),
            };
            schema.push(quote_spanned! {span=>
                __mcp_schema.required::<#kind>(&#meta, #schema_default);
            });
            parse.push(quote_spanned! {span=>
                let #local = __mcp_parser.required::<#kind>(&#meta, #parse_default);
            });
            write.push(quote_spanned! {span=>
                __mcp_writer.required::<#kind>(&#meta, &self.#field_ident);
            });
        }
        locals.push(local);
        idents.push(field_ident);
    }
    let content = quote!(__mcp_content);
    let build = if count == 0 {
        quote! {
            let _ = __mcp_parser;
            ::core::result::Result::Ok(Self {})
        }
    } else {
        quote! {
            if let (#(::core::option::Option::Some(#locals),)*) = (#(#locals,)*) {
                ::core::result::Result::Ok(Self { #(#idents: #locals,)* })
            } else {
                ::core::result::Result::Err(__mcp_parser.into_errors())
            }
        }
    };
    let serde = serde_impls(form.ident);
    quote! {
        const _: () = {
            #(#items)*

            #[automatically_derived]
            impl ::mcp_runtime::form::ElicitForm for #ident {
                fn requested_schema() -> &'static ::mcp_runtime::protocol::ElicitRequestedSchema {
                    static __MCP_SCHEMA: ::mcp_runtime::__private::form::OnceLock<
                        ::mcp_runtime::protocol::ElicitRequestedSchema,
                    > = ::mcp_runtime::__private::form::OnceLock::new();
                    __MCP_SCHEMA.get_or_init(|| {
                        let mut __mcp_schema = ::mcp_runtime::__private::form::SchemaBuilder::new(#name, #count);
                        #(#schema)*
                        __mcp_schema.finish()
                    })
                }

                fn from_content(
                    #content: &::mcp_runtime::__private::serde_json::Map<
                        ::mcp_runtime::__private::form::String,
                        ::mcp_runtime::__private::serde_json::Value,
                    >,
                ) -> ::core::result::Result<Self, ::mcp_runtime::form::FormErrors> {
                    let mut __mcp_parser = ::mcp_runtime::__private::form::Parser::new(#name, #content);
                    #(#parse)*
                    #build
                }

                fn to_content(
                    &self,
                ) -> ::mcp_runtime::__private::serde_json::Map<
                    ::mcp_runtime::__private::form::String,
                    ::mcp_runtime::__private::serde_json::Value,
                > {
                    let mut __mcp_writer = ::mcp_runtime::__private::form::Writer::new();
                    #(#write)*
                    __mcp_writer.finish()
                }

                fn serialize_content<__S: ::mcp_runtime::__private::serde::Serializer>(
                    &self,
                    __serializer: __S,
                ) -> ::core::result::Result<__S::Ok, __S::Error> {
                    let mut __mcp_writer =
                        ::mcp_runtime::__private::form::MapWriter::new(__serializer)?;
                    #(#write)*
                    __mcp_writer.finish()
                }
            }

            #serde
        };
    }
}

fn serde_impls(ident: &syn::Ident) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl ::mcp_runtime::__private::serde::Serialize for #ident {
            fn serialize<__S: ::mcp_runtime::__private::serde::Serializer>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                ::mcp_runtime::__private::form::serialize_form(self, __serializer)
            }
        }

        #[automatically_derived]
        impl<'__mcp_de> ::mcp_runtime::__private::serde::Deserialize<'__mcp_de> for #ident {
            fn deserialize<__D: ::mcp_runtime::__private::serde::Deserializer<'__mcp_de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                ::mcp_runtime::__private::form::deserialize_form(__deserializer)
            }
        }
    }
}

/// What a form that failed to compile still implements, so its uses raise no further errors.
pub(crate) fn fallback(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::mcp_runtime::form::ElicitForm for #ident #ty_generics #where_clause {
            fn requested_schema() -> &'static ::mcp_runtime::protocol::ElicitRequestedSchema {
                ::core::unreachable!()
            }
            fn from_content(
                _: &::mcp_runtime::__private::serde_json::Map<
                    ::mcp_runtime::__private::form::String,
                    ::mcp_runtime::__private::serde_json::Value,
                >,
            ) -> ::core::result::Result<Self, ::mcp_runtime::form::FormErrors> {
                ::core::unreachable!()
            }
            fn to_content(
                &self,
            ) -> ::mcp_runtime::__private::serde_json::Map<
                ::mcp_runtime::__private::form::String,
                ::mcp_runtime::__private::serde_json::Value,
            > {
                ::core::unreachable!()
            }
        }
    }
}

/// The span of the type that decides the field's kind (the `T` of an `Option<T>`).
fn kind_span(field: &Field<'_>) -> Span {
    match &field.kind {
        Kind::Integer(ty) | Kind::Float(ty) | Kind::Single(ty) | Kind::Multi(_, ty) => ty.span(),
        Kind::Text | Kind::Bool => field.optional.unwrap_or(field.ty).span(),
    }
}

fn kind_tokens(field: &Field<'_>) -> TokenStream {
    let span = kind_span(field);
    match &field.kind {
        Kind::Text => quote_spanned!(span=> ::mcp_runtime::__private::form::Text),
        Kind::Bool => quote_spanned!(span=> ::mcp_runtime::__private::form::Boolean),
        Kind::Integer(ty) => quote_spanned!(span=> ::mcp_runtime::__private::form::Integer<#ty>),
        Kind::Float(ty) => quote_spanned!(span=> ::mcp_runtime::__private::form::Float<#ty>),
        // Named through `FormField`: a type that is no form field is then reported at the
        // type, as not implementing that public trait, with no note about the kinds behind it.
        Kind::Single(ty) | Kind::Multi(ty, _) => {
            quote_spanned!(span=> <#ty as ::mcp_runtime::form::FormField>::Kind)
        }
    }
}

fn default_expr(field: &Field<'_>, expr: &Expr) -> TokenStream {
    if let (
        Kind::Text,
        Expr::Lit(ExprLit {
            lit: Lit::Str(lit), ..
        }),
    ) = (&field.kind, expr)
    {
        return quote_spanned!(lit.span()=> ::mcp_runtime::__private::form::String::from(#lit));
    }
    quote!(#expr)
}

fn some<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

fn bound_tokens(number: Number) -> TokenStream {
    match number {
        Number::Int(value) => {
            let abs = Literal::u128_unsuffixed(value.unsigned_abs());
            let sign = (value < 0).then(|| quote!(-));
            quote!(::mcp_runtime::__private::form::Bound::Int(#sign #abs))
        }
        Number::Float(value) => {
            let abs = Literal::f64_unsuffixed(value.abs());
            let sign = (value < 0.0).then(|| quote!(-));
            quote!(::mcp_runtime::__private::form::Bound::Float(#sign #abs))
        }
    }
}

fn meta_tokens(field: &Field<'_>, wire: &str) -> TokenStream {
    let attrs = &field.attrs;
    let title = some(attrs.title.as_ref().map(|s| s.value.clone()));
    let description = some(
        attrs
            .description
            .as_ref()
            .map(|s| s.value.clone())
            .or_else(|| field.doc.clone()),
    );
    let count = |setting: Option<&super::attr::Setting<u64>>| {
        some(setting.map(|s| Literal::u64_unsuffixed(s.value)))
    };
    let min_length = count(attrs.min_length.as_ref());
    let max_length = count(attrs.max_length.as_ref());
    let min_items = count(attrs.min_items.as_ref());
    let max_items = count(attrs.max_items.as_ref());
    let format = some(attrs.format.as_ref().map(|s| {
        let variant = match s.value {
            Format::Email => quote!(Email),
            Format::Uri => quote!(Uri),
            Format::Date => quote!(Date),
            Format::DateTime => quote!(DateTime),
        };
        quote!(::mcp_runtime::protocol::StringFormat::#variant)
    }));
    let minimum = some(attrs.minimum.as_ref().map(|s| bound_tokens(s.value)));
    let maximum = some(attrs.maximum.as_ref().map(|s| bound_tokens(s.value)));
    quote! {
        ::mcp_runtime::__private::form::FieldMeta {
            name: #wire,
            title: #title,
            description: #description,
            min_length: #min_length,
            max_length: #max_length,
            format: #format,
            minimum: #minimum,
            maximum: #maximum,
            min_items: #min_items,
            max_items: #max_items,
        }
    }
}
