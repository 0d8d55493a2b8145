//! The typed model of a handler: its attribute arguments and its signature.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Block, FnArg, Generics, Ident, ItemFn, LitInt, LitStr, Pat, ReturnType, Token, Type,
    Visibility,
};

use super::presentation::Presentation;
use crate::flow::Errors;

pub(crate) use super::kind::Kind;

/// The arguments of `#[tool(...)]`, `#[prompt(...)]` or `#[resource(...)]`.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) uri: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) max_rounds: Option<LitInt>,
    pub(crate) complete: Option<syn::Path>,
    /// `on_new_shape = "restart"`: a state of another flow shape restarts the flow.
    pub(crate) restart_on_new_shape: Option<bool>,
    /// `single_use`: each state this handler hands out is used once.
    pub(crate) single_use: Option<Ident>,
    /// `annotations(...)`, `icon(...)`, `meta = "..."`.
    pub(crate) presentation: Presentation,
}

pub(crate) fn parse_options(kind: Kind, attr: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        let Some(key) = meta.path.get_ident().map(Ident::to_string) else {
            return Err(meta.error("expected a key such as `name = \"...\"`"));
        };
        if !kind.keys().contains(&key.as_str()) {
            return Err(meta.error(format!(
                "unknown key `{key}` in `#[{}(...)]`; expected one of {}",
                kind.attr(),
                kind.keys()
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let duplicate = || meta.error(format!("`{key}` is given twice; keep one"));
        match key.as_str() {
            "max_rounds" => {
                let value: LitInt = meta.value()?.parse()?;
                value.base10_parse::<u32>()?;
                if options.max_rounds.replace(value).is_some() {
                    return Err(duplicate());
                }
            }
            "on_new_shape" => {
                let value: LitStr = meta.value()?.parse()?;
                let restart = match value.value().as_str() {
                    "refuse" => false,
                    "restart" => true,
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            "expected `on_new_shape = \"refuse\"` (the default) or \
                             `on_new_shape = \"restart\"`",
                        ));
                    }
                };
                if options.restart_on_new_shape.replace(restart).is_some() {
                    return Err(duplicate());
                }
            }
            "single_use" => {
                if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                    return Err(syn::Error::new(
                        meta.input.span(),
                        format!(
                            "`single_use` takes no value; write `#[{}(single_use)]`",
                            kind.attr()
                        ),
                    ));
                }
                let word = meta.path.get_ident().cloned();
                if std::mem::replace(&mut options.single_use, word).is_some() {
                    return Err(duplicate());
                }
            }
            "annotations" | "icon" | "meta" => options.presentation.parse(kind, &key, &meta)?,
            "complete" => {
                let value: syn::Path = meta.value()?.parse()?;
                if options.complete.replace(value).is_some() {
                    return Err(duplicate());
                }
            }
            _ => {
                let value: LitStr = meta.value()?.parse()?;
                let slot = match key.as_str() {
                    "name" => &mut options.name,
                    "title" => &mut options.title,
                    "description" => &mut options.description,
                    "uri" => &mut options.uri,
                    _ => &mut options.mime_type,
                };
                if slot.replace(value).is_some() {
                    return Err(duplicate());
                }
            }
        }
        Ok(())
    });
    if let Err(error) = parser.parse2(attr) {
        errors.push(error);
    }
    if let Some(name) = &options.name {
        let value = name.value();
        let valid = !value.is_empty()
            && value.len() <= 128
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if kind == Kind::Tool && !valid {
            errors.push(syn::Error::new(
                name.span(),
                "a tool name has 1 to 128 characters of `A-Z`, `a-z`, `0-9`, `_`, `-` and `.`",
            ));
        }
    }
    options
}

/// A handler function, taken apart.
pub(crate) struct Handler {
    pub(crate) kind: Kind,
    pub(crate) options: Options,
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) ident: Ident,
    pub(crate) docs: String,
    pub(crate) args: Option<(Pat, Type)>,
    /// The parameters of a sub-flow, other than its context.
    pub(crate) params: Vec<(Ident, Type)>,
    /// A handler's `State<T>` parameters, filled from the server's application state.
    pub(crate) state_params: Vec<(Pat, Type)>,
    pub(crate) cx: Ident,
    /// The context's type as written (`Cx`, `mcp_runtime::Cx`), if the handler takes one.
    pub(crate) cx_ty: Option<Type>,
    pub(crate) output: Type,
    /// A sub-flow's type parameters, each bound `Send + 'static` besides its own bounds (see
    /// [`sub_flow_generics`]); none for a handler.
    pub(crate) generics: Generics,
    /// Where a handler takes `&self`, which its body reads from a `State<Self>` (see
    /// `receiver`).
    pub(crate) reads_self: Option<Span>,
    pub(crate) body: Block,
}

impl Handler {
    /// The parameters whose names the flow cannot rename: an arguments struct bound by a
    /// pattern (`Args { items, .. }`), and the `State<T>` parameters.
    pub(crate) fn fixed_params(&self) -> Vec<Pat> {
        let args = self
            .args
            .iter()
            .map(|(pat, _)| pat)
            .filter(|pat| !matches!(pat, Pat::Ident(_)));
        let states = self.state_params.iter().map(|(pat, _)| pat);
        args.chain(states).cloned().collect()
    }
}

pub(crate) fn parse_handler(
    kind: Kind,
    options: Options,
    item: ItemFn,
    errors: &mut Errors,
) -> Handler {
    let sig = &item.sig;
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new(
            sig.fn_token.span,
            format!(
                "a `#[{}]` {} must be an `async fn`; write `async fn {}(...)`",
                kind.attr(),
                if kind == Kind::Elicit {
                    "sub-flow"
                } else {
                    "handler"
                },
                sig.ident
            ),
        ));
    }
    if kind == Kind::Elicit {
        for param in &sig.generics.params {
            let what = match param {
                syn::GenericParam::Type(_) => continue,
                syn::GenericParam::Lifetime(_) => {
                    "a sub-flow runs on across questions, and a borrow cannot cross a \
                     question, so it cannot be generic over a lifetime; take owned arguments \
                     (`String`, not `&'a str`)"
                }
                syn::GenericParam::Const(_) => {
                    "a sub-flow may be generic over types only; pass this value as an argument"
                }
            };
            errors.push(syn::Error::new_spanned(param, what));
        }
    } else if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "a handler cannot be generic; name concrete types for its arguments",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            variadic,
            "a handler cannot be variadic",
        ));
    }
    let mut args = None;
    let mut params = Vec::new();
    let mut state_params = Vec::new();
    let mut cx = None;
    let mut cx_ty = None;
    let mut receiver_at = None;
    for input in &sig.inputs {
        match input {
            // `&self`: the value registered for the handler's type (see `receiver`).
            FnArg::Receiver(receiver) if kind != Kind::Elicit => {
                match super::receiver::state_param(receiver) {
                    Ok(param) => {
                        state_params.push(param);
                        receiver_at = Some(receiver.self_token.span);
                    }
                    Err(error) => errors.push(error),
                }
            }
            FnArg::Receiver(receiver) => errors.push(syn::Error::new_spanned(
                receiver,
                "a sub-flow takes no `self`: its caller passes what it needs as arguments \
                 (`Self::name(&cx, self.value.clone())`)",
            )),
            FnArg::Typed(typed) => {
                if is_cx_type(&typed.ty) {
                    match &*typed.pat {
                        Pat::Ident(p) if cx.is_none() => {
                            cx = Some(p.ident.clone());
                            cx_ty = Some((*typed.ty).clone());
                        }
                        Pat::Ident(_) => errors.push(syn::Error::new_spanned(
                            typed,
                            "a handler takes the context once",
                        )),
                        other => errors.push(syn::Error::new_spanned(
                            other,
                            "bind the context to a name: `cx: Cx`",
                        )),
                    }
                } else if kind != Kind::Elicit && is_state_type(&typed.ty) {
                    state_params.push(((*typed.pat).clone(), (*typed.ty).clone()));
                } else if kind == Kind::Elicit {
                    match &*typed.pat {
                        Pat::Ident(p) if crate::flow::scope::holds_passing_borrow(&typed.ty) => {
                            let name = &p.ident;
                            let owned = crate::flow::scope::owned_for(&typed.ty)
                                .map(|ty| format!("`{name}: {ty}`"))
                                .unwrap_or_else(|| "an owned value".to_owned());
                            errors.push(syn::Error::new_spanned(
                                &typed.ty,
                                format!(
                                    "a sub-flow's argument cannot be a borrow: the sub-flow \
                                     runs on across questions, and a borrow cannot cross a \
                                     question; take {owned} instead"
                                ),
                            ));
                        }
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            params.push((p.ident.clone(), (*typed.ty).clone()));
                        }
                        other => errors.push(syn::Error::new_spanned(
                            other,
                            "bind each argument of a sub-flow to a name: `name: Type`",
                        )),
                    }
                } else if args.is_none() {
                    args = Some(((*typed.pat).clone(), (*typed.ty).clone()));
                } else {
                    errors.push(syn::Error::new_spanned(
                        typed,
                        "a handler takes one arguments struct, the context and `State<T>` \
                         parameters; gather the arguments in one struct: \
                         `async fn name(args: Args, cx: Cx)`",
                    ));
                }
            }
        }
    }
    if kind == Kind::Elicit && cx.is_none() {
        errors.push(syn::Error::new(
            sig.paren_token.span.open(),
            "an `#[elicit]` sub-flow asks through the caller's context: take it as a \
             parameter, `cx: &Cx`",
        ));
    }
    let output = match &sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default if kind == Kind::Elicit => syn::parse_quote!(()),
        ReturnType::Default => {
            let expected = match kind {
                Kind::Tool => "ToolResult",
                Kind::Prompt => "PromptResult",
                Kind::Resource | Kind::Elicit => "ResourceResult",
            };
            errors.push(syn::Error::new(
                sig.paren_token.span.close(),
                format!("a handler returns its result; write `-> {expected}` after the arguments"),
            ));
            syn::parse_quote!(())
        }
    };
    let (docs, attrs) = split_docs(item.attrs);
    let mut body = *item.block;
    // Bound only where the body reads it: an unread `&self` is no unused binding.
    let reads_self = match receiver_at {
        Some(at) if super::receiver::read_as_state(&mut body) => Some(at),
        _ => None,
    };
    Handler {
        kind,
        options,
        attrs,
        vis: item.vis,
        ident: sig.ident.clone(),
        docs,
        args,
        params,
        state_params,
        cx: cx.unwrap_or_else(|| Ident::new("__mcp_cx", Span::mixed_site())),
        cx_ty,
        output,
        generics: sub_flow_generics(&sig.generics),
        reads_self,
        body,
    }
}

pub(crate) fn is_cx_type(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path.path.segments.last().is_some_and(|s| s.ident == "Cx"),
        Type::Reference(reference) => reference.mutability.is_none() && is_cx_type(&reference.elem),
        _ => false,
    }
}

/// `State<T>` (or a path ending in it): a parameter the application state fills.
pub(crate) fn is_state_type(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => {
            path.qself.is_none()
                && path.path.segments.last().is_some_and(|segment| {
                    segment.ident == "State"
                        && matches!(segment.arguments, syn::PathArguments::AngleBracketed(_))
                })
        }
        _ => false,
    }
}

/// `generics` with each type parameter bound `Send + 'static` too: a sub-flow's step holds
/// and returns values of them, and is `Send + 'static`. The bounds join the parameter's own,
/// in its `where` predicate if it has one, else where it is declared.
pub(crate) fn sub_flow_generics(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    if !(generics.params.iter()).any(|param| matches!(param, syn::GenericParam::Type(_))) {
        // No type parameter to bound (a handler's case): the bounds need not be made.
        return generics;
    }
    let sent: Punctuated<syn::TypeParamBound, Token![+]> =
        syn::parse_quote!(::core::marker::Send + 'static);
    let Generics {
        params,
        where_clause,
        ..
    } = &mut generics;
    for param in params.iter_mut() {
        let syn::GenericParam::Type(param) = param else {
            continue;
        };
        let mut predicates = where_clause
            .iter_mut()
            .flat_map(|clause| &mut clause.predicates);
        let predicate = predicates.find_map(|predicate| match predicate {
            syn::WherePredicate::Type(bound)
                if matches!(&bound.bounded_ty, Type::Path(ty) if ty.path.is_ident(&param.ident)) =>
            {
                Some(bound)
            }
            _ => None,
        });
        match predicate {
            Some(predicate) => predicate.bounds.extend(sent.iter().cloned()),
            None => {
                param.colon_token.get_or_insert_default();
                param.bounds.extend(sent.iter().cloned());
            }
        }
    }
    generics
}

/// The doc comment joined into one description, and the other attributes.
fn split_docs(attrs: Vec<Attribute>) -> (String, Vec<Attribute>) {
    let mut lines = Vec::new();
    let mut rest = Vec::new();
    for attr in attrs {
        if attr.path().is_ident("doc")
            && let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let line = s.value();
            lines.push(line.strip_prefix(' ').unwrap_or(&line).to_owned());
        }
        rest.push(attr);
    }
    let docs = lines.join("\n").trim().to_owned();
    (docs, rest)
}

impl Handler {
    /// The name the handler is served under.
    pub(crate) fn wire_name(&self) -> LitStr {
        self.options.name.clone().unwrap_or_else(|| {
            let name = self.ident.to_string();
            LitStr::new(name.trim_start_matches("r#"), self.ident.span())
        })
    }

    /// The description: the attribute's, else the doc comment.
    pub(crate) fn description(&self) -> Option<LitStr> {
        self.options
            .description
            .clone()
            .or_else(|| (!self.docs.is_empty()).then(|| LitStr::new(&self.docs, Span::call_site())))
    }

    pub(crate) fn span(&self) -> Span {
        self.ident.span()
    }

    /// The body's span: its braces', which is what `Spanned::span` finds, one group, without
    /// printing the whole body to tokens first.
    pub(crate) fn body_span(&self) -> Span {
        self.body.brace_token.span.join()
    }
}

/// The context parameter's name: the first whose type names `Cx`, however borrowed.
pub(crate) fn context(sig: &syn::Signature) -> Option<Ident> {
    // Looser than the model's rule: a context it refused (`&mut Cx`) still asks in the copy.
    fn names_cx(ty: &Type) -> bool {
        match ty {
            Type::Reference(reference) => names_cx(&reference.elem),
            Type::Paren(paren) => names_cx(&paren.elem),
            other => is_cx_type(other),
        }
    }
    sig.inputs.iter().find_map(|input| match input {
        FnArg::Typed(typed) if names_cx(&typed.ty) => match &*typed.pat {
            syn::Pat::Ident(pat) => Some(pat.ident.clone()),
            _ => None,
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use syn::spanned::Spanned;

    use crate::flow::Kind;

    /// The body's span is the one `Spanned` finds for the body, from its first line and
    /// column to its last.
    #[test]
    fn the_body_span_is_the_body_s_own() {
        let function: syn::ItemFn = syn::parse_str(
            "async fn f(args: A, cx: Cx) -> ToolResult {\n    let x = 1;\n    Ok(text(x))\n}",
        )
        .expect("a function");
        let mut errors = crate::flow::Errors::default();
        let options = super::parse_options(Kind::Tool, TokenStream::new(), &mut errors);
        let handler = super::parse_handler(Kind::Tool, options, function, &mut errors);
        let (ours, spanned) = (handler.body_span(), handler.body.span());
        assert_eq!((ours.start(), ours.end()), (spanned.start(), spanned.end()));
        assert_eq!((ours.start().line, ours.end().line), (1, 4));
    }
}
