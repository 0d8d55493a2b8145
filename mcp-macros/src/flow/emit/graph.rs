//! The handler's flow graph (`mcp_runtime::graph`), drawn from the records that build its
//! step function: the question points (`sites::Site`: keys, questions), the marked body they
//! stand in (walked for the branches, loops and ways out between them, see [`walk`]), and
//! the locals each point carries (`point::Resumed`).
//!
//! Input:  the marked body `{ let target: Target = __mcp_site!().0?; if c { .. } .. }`
//! Output: the handler impl's method, which reads the graph from static records once (see
//! `mcp_runtime::graph`'s `spec`: records, not calls, so that no code is compiled per node):
//! ```text
//! fn flow_graph(&self) -> Option<&'static FlowGraph> {
//!     static __MCP_GRAPH: OnceLock<FlowGraph> = OnceLock::new();
//!     static __MCP_SPEC: GraphSpec = GraphSpec {
//!         points: &[GraphPoint { asks: &[GraphAsk { key: "target", kind: AskKind::Form,
//!             message: Some("\"Where?\""), form: Some(("Target", 0)),
//!             call: None }], in_loop: false, carried: &[("replicas", Some("u32"))] }, ..],
//!         exits: &[(ExitKind::Tail, Some("Ok(done)")), ..],
//!         // The walk's steps, through joins; the runtime takes the joins out (see `walk`).
//!         steps: &[GraphStep(GraphEnd::Start, GraphEnd::Point(0), false, false, &[]), ..],
//!         sub_points: &[/* points that call a sub-flow */],
//!         branch_exits: &[/* exits a condition leads to */],
//!         schemas: __mcp_schemas,
//!     };
//!     // One reader of the named forms' schemas, by number: one body, not one per question.
//!     fn __mcp_schemas(form: u32) -> Option<&'static ElicitRequestedSchema> {
//!         match form { 0 => probe::<Target>(), _ => None }
//!     }
//!     Some(flow_graph(&__MCP_GRAPH, &__MCP_SPEC))
//! }
//! ```

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Block, Expr, Ident, Item, UseTree};

use crate::flow::analyse::point::Resumed;
use crate::flow::check::sites::{Loop, Site, Taken};
use crate::flow::lower::bindings::{Bindings, Made};

mod text;
mod walk;

use walk::{Id, Walk, Way};

/// What the graph is drawn from.
pub(crate) struct Records<'a> {
    pub(crate) sites: &'a [Site],
    pub(crate) resumed: &'a [Resumed],
    /// The body with its question points marked.
    pub(crate) body: &'a Block,
    /// The body's items, declared in the step function, out of the graph's reach.
    pub(crate) items: &'a [Item],
    /// The rewritten `for` loops: their collections, shown as written.
    pub(crate) loops: &'a [Loop],
    pub(crate) taken: &'a [Taken],
    /// Which binding each local is, its name as the user wrote it, and what a local the
    /// macro made holds.
    pub(crate) bindings: &'a Bindings,
}

/// The handler impl's `fn flow_graph`, or nothing for a handler that asks nothing.
pub(crate) fn method(records: &Records<'_>) -> TokenStream {
    let sites = records.sites;
    if sites.is_empty() {
        return TokenStream::new();
    }
    let source = text::Source {
        sites,
        bindings: records.bindings,
    };
    let mut walk = Walk::new(source, records.loops, records.taken);
    walk.body(records.body);
    let g = quote!(::mcp_runtime::graph);
    let hidden = Hidden::of(records.items);
    let mut forms = Vec::new();
    let points: Vec<TokenStream> = sites
        .iter()
        .enumerate()
        .map(|(id, site)| point(&walk, records, &hidden, &mut forms, id, site))
        .collect();
    let form_numbers = (0..forms.len()).map(number);
    let exits = walk.exits.iter().map(|exit| {
        let way = match exit.way {
            Way::Return => quote!(Return),
            Way::Try => quote!(Try),
            Way::Refusal => quote!(Refused),
            Way::Tail => quote!(Tail),
        };
        let source = text_or_none(exit.source.as_deref());
        quote!((#g::ExitKind::#way, #source))
    });
    let p = quote!(::mcp_runtime::__private);
    let steps = walk.edges.iter().map(|edge| {
        let (from, to) = (step_end(edge.from), step_end(edge.to));
        let (back, turn) = (edge.back, edge.turn);
        let conditions = &edge.conditions;
        quote!(#p::GraphStep(#p::GraphEnd::#from, #p::GraphEnd::#to, #back, #turn, &[#(#conditions),*]))
    });
    let sub_points = sites
        .iter()
        .enumerate()
        .filter(|(_, site)| site.is_sub())
        .map(|(n, _)| number(n));
    let branch_exits = walk
        .exits
        .iter()
        .enumerate()
        .filter(|(_, exit)| matches!(exit.way, Way::Try | Way::Refusal))
        .map(|(n, _)| number(n));
    let graph = Ident::new("__MCP_GRAPH", Span::mixed_site());
    let spec = Ident::new("__MCP_SPEC", Span::mixed_site());
    let schemas = Ident::new("__mcp_schemas", Span::mixed_site());
    quote! {
        fn flow_graph(&self) -> ::core::option::Option<&'static #g::FlowGraph> {
            static #graph: ::std::sync::OnceLock<#g::FlowGraph> = ::std::sync::OnceLock::new();
            static #spec: #p::GraphSpec = #p::GraphSpec {
                points: &[#(#points),*],
                exits: &[#(#exits),*],
                steps: &[#(#steps),*],
                sub_points: &[#(#sub_points),*],
                branch_exits: &[#(#branch_exits),*],
                schemas: #schemas,
            };
            // Through the probe: a type that is no form gives no schema, and no second error
            // beside the one where it is asked.
            fn #schemas(
                form: u32,
            ) -> ::core::option::Option<&'static ::mcp_runtime::protocol::ElicitRequestedSchema> {
                #[allow(unused_imports)]
                use ::mcp_runtime::__private::{SchemaOfAny as _, SchemaOfForm as _};
                match form {
                    #(#form_numbers => (&&::mcp_runtime::__private::SchemaProbe::<#forms>::new()).schema(),)*
                    _ => ::core::option::Option::None,
                }
            }
            ::core::option::Option::Some(#p::flow_graph(&#graph, &#spec))
        }
    }
}

/// The `GraphPoint { .. }` record of point `id`.
fn point(
    walk: &Walk<'_>,
    records: &Records<'_>,
    hidden: &Hidden,
    forms: &mut Vec<syn::Type>,
    id: usize,
    site: &Site,
) -> TokenStream {
    let resumed = &records.resumed[id];
    let g = quote!(::mcp_runtime::graph);
    let questions = match &site.question {
        Expr::Tuple(tuple) => tuple.elems.iter().collect(),
        question => vec![question],
    };
    let p = quote!(::mcp_runtime::__private);
    let none = quote!(::core::option::Option::None);
    let asks = site
        .calls
        .iter()
        .zip(&site.keys)
        .enumerate()
        .map(|(n, (call, key))| {
            let (mut message, mut form, mut called) = (none.clone(), none.clone(), none.clone());
            let kind = if call.sub {
                let source = text::expr(&site.question, walk.source(), text::MESSAGE);
                called = quote!(::core::option::Option::Some(#source));
                quote!(SubFlowCall)
            } else {
                let question = questions.get(n).map(|question| unkeyed(question));
                let method = call.method.to_string();
                let call_expr = question.and_then(|question| match question {
                    Expr::MethodCall(call) => Some(call),
                    _ => None,
                });
                if let Some(text) = call_expr
                    .filter(|_| matches!(method.as_str(), "elicit" | "elicit_url"))
                    .and_then(|call| call.args.first())
                {
                    let text = text::expr(text, walk.source(), text::MESSAGE);
                    message = quote!(::core::option::Option::Some(#text));
                }
                if method == "elicit"
                    && let Some(named) = form_named(walk, hidden, forms, id, site, call_expr)
                {
                    form = named;
                }
                match method.as_str() {
                    "elicit" => quote!(Form),
                    "elicit_url" => quote!(Url),
                    "sample" => quote!(Sampling),
                    _ => quote!(Roots),
                }
            };
            quote! {
                #p::GraphAsk {
                    key: #key,
                    kind: #g::AskKind::#kind,
                    message: #message,
                    form: #form,
                    call: #called,
                }
            }
        });
    let in_loop = walk.in_loop[id];
    let carried = resumed.carried.iter().map(|carried| {
        let (name, ty) = carried_name(walk, records.bindings, &carried.ident);
        let ty = text_or_none(ty.as_deref());
        quote!((#name, #ty))
    });
    quote! {
        #p::GraphPoint { asks: &[#(#asks),*], in_loop: #in_loop, carried: &[#(#carried),*] }
    }
}

/// A form question's `Some((type name, n))`, where the handler names the form's type (by a
/// turbofish, or by the `let` of a point that asks one question): `n` is its number among
/// `forms`, the types whose schema the graph's one reader gives. A type the graph cannot
/// reach is numbered past them, and has none.
fn form_named(
    walk: &Walk<'_>,
    hidden: &Hidden,
    forms: &mut Vec<syn::Type>,
    id: usize,
    site: &Site,
    call: Option<&syn::ExprMethodCall>,
) -> Option<TokenStream> {
    let turbofish = call
        .and_then(|call| call.turbofish.as_ref())
        .and_then(|turbofish| turbofish.args.first())
        .and_then(|argument| match argument {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        });
    let annotated = (site.calls.len() == 1)
        .then(|| walk.answer_types.get(&id))
        .flatten();
    let ty = turbofish.or(annotated)?;
    let name = text::ty(ty)?;
    let n = match hidden.hides(ty) {
        true => u32::MAX,
        false => {
            forms.push(ty.clone());
            u32::try_from(forms.len() - 1).unwrap_or(u32::MAX)
        }
    };
    Some(quote!(::core::option::Option::Some((#name, #n))))
}

/// The question of `expr`, without its `.key(..)`.
fn unkeyed(expr: &Expr) -> &Expr {
    match expr {
        Expr::MethodCall(call) if call.method == "key" => unkeyed(&call.receiver),
        Expr::Paren(inner) => unkeyed(&inner.expr),
        expr => expr,
    }
}

/// How the graph names a carried local, and its type where its `let` writes one. The locals
/// the macro makes are named for what they hold.
fn carried_name(walk: &Walk<'_>, bindings: &Bindings, local: &Ident) -> (String, Option<String>) {
    let collection = || {
        walk.collection(local)
            .map(|collection| text::expr(collection, walk.source(), text::SHORT))
            .unwrap_or_default()
    };
    match bindings.made(local) {
        Some(Made::Position(_)) => {
            let shown = format!("position in {}", collection());
            return (shown, Some("usize".to_owned()));
        }
        Some(Made::Items(_)) => return (format!("items left of {}", collection()), None),
        Some(Made::Operand) => return ("a value held within its expression".to_owned(), None),
        Some(Made::Iterator(_)) | None => {}
    }
    let ty = walk.local_types.get(&bindings.id(local)).and_then(text::ty);
    (bindings.shown_name(local), ty)
}

/// The names the body's own items and `use`s declare: a type that names one is not in
/// scope where the graph is built, so its schema is left out.
struct Hidden {
    names: HashSet<String>,
    /// A `use ...::*` brings names the macro cannot list.
    glob: bool,
}

impl Hidden {
    fn of(items: &[Item]) -> Self {
        let mut hidden = Self {
            names: HashSet::new(),
            glob: false,
        };
        for item in items {
            let ident = match item {
                Item::Struct(item) => Some(&item.ident),
                Item::Enum(item) => Some(&item.ident),
                Item::Union(item) => Some(&item.ident),
                Item::Type(item) => Some(&item.ident),
                Item::Trait(item) => Some(&item.ident),
                Item::Mod(item) => Some(&item.ident),
                Item::Use(item) => {
                    hidden.used(&item.tree);
                    None
                }
                _ => None,
            };
            if let Some(ident) = ident {
                hidden.names.insert(ident.to_string());
            }
        }
        hidden
    }

    fn used(&mut self, tree: &UseTree) {
        match tree {
            UseTree::Path(path) => self.used(&path.tree),
            UseTree::Name(name) => _ = self.names.insert(name.ident.to_string()),
            UseTree::Rename(rename) => _ = self.names.insert(rename.rename.to_string()),
            UseTree::Glob(_) => self.glob = true,
            UseTree::Group(group) => group.items.iter().for_each(|tree| self.used(tree)),
        }
    }

    /// Whether `ty` may name what the graph cannot reach or name alone: one of the body's
    /// items, `Self`, a type left to inference (`_`), a lifetime.
    fn hides(&self, ty: &syn::Type) -> bool {
        fn idents(tokens: TokenStream, out: &mut Vec<String>) {
            for tree in tokens {
                match tree {
                    TokenTree::Ident(ident) => out.push(ident.to_string()),
                    TokenTree::Group(group) => idents(group.stream(), out),
                    TokenTree::Punct(punct) if punct.as_char() == '\'' => out.push("'".into()),
                    TokenTree::Punct(_) | TokenTree::Literal(_) => {}
                }
            }
        }
        let mut names = Vec::new();
        idents(ty.to_token_stream(), &mut names);
        self.glob
            || names.iter().any(|name| {
                ["Self", "_", "'"].contains(&name.as_str()) || self.names.contains(name)
            })
    }
}

/// A step's end, as `GraphEnd` names it.
fn step_end(id: Id) -> TokenStream {
    let (kind, n) = match id {
        Id::Start => return quote!(Start),
        Id::Point(n) => (quote!(Point), n),
        Id::Exit(n) => (quote!(Exit), n),
        Id::Join(n) => (quote!(Join), n),
    };
    let n = number(n);
    quote!(#kind(#n))
}

fn number(n: usize) -> TokenStream {
    let n = u32::try_from(n).unwrap_or(u32::MAX);
    quote!(#n)
}

/// `Some("text")`, or `None`.
fn text_or_none(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}
