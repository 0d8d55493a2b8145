//! The handler's flow graph (`mcp_runtime::graph`), drawn from the records that build its
//! step function: the question points (`sites::Site`: keys, questions), the marked body they
//! stand in (walked for the branches, loops and ways out between them, see [`walk`]), and
//! the locals each point carries (`point::Resumed`).
//!
//! Input:  the marked body `{ let target: Target = __mcp_site!().0?; if c { .. } .. }`
//! Output: the handler impl's method, which builds the graph once:
//! ```text
//! fn flow_graph(&self) -> Option<&'static FlowGraph> {
//!     static __MCP_GRAPH: OnceLock<FlowGraph> = OnceLock::new();
//!     Some(__MCP_GRAPH.get_or_init(|| FlowGraph::new(
//!         vec![Node::Start, Node::Point(Point::new(0, vec![Ask::new("target", AskKind::Form)
//!             .message("\"Where?\"").form("Target", Some(<Target as ElicitForm>::requested_schema()))])), ..],
//!         // The walk's steps, through joins; the runtime takes the joins out (see `walk`).
//!         graph_edges(&[GraphStep(GraphEnd::Start, GraphEnd::Point(0), false, false, &[]), ..],
//!             &[/* points that call a sub-flow */], &[/* exits a condition leads to */]),
//!     )))
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
    let points = sites
        .iter()
        .enumerate()
        .map(|(id, site)| point(&walk, records, &hidden, id, site));
    let exits = walk.exits.iter().enumerate().map(|(n, exit)| {
        let n = number(n);
        let way = match exit.way {
            Way::Return => quote!(Return),
            Way::Try => quote!(Try),
            Way::Refusal => quote!(Refused),
            Way::Tail => quote!(Tail),
        };
        let source = owned(exit.source.as_deref());
        quote!(#g::Node::Exit(#g::Exit::new(#n, #g::ExitKind::#way, #source)))
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
    quote! {
        fn flow_graph(&self) -> ::core::option::Option<&'static #g::FlowGraph> {
            static #graph: ::std::sync::OnceLock<#g::FlowGraph> = ::std::sync::OnceLock::new();
            ::core::option::Option::Some(#graph.get_or_init(|| {
                #g::FlowGraph::new(
                    ::std::vec![#g::Node::Start, #(#points,)* #(#exits,)*],
                    #p::graph_edges(
                        &[#(#steps,)*],
                        &[#(#sub_points),*],
                        &[#(#branch_exits),*],
                    ),
                )
            }))
        }
    }
}

/// `Node::Point(..)` of point `id`.
fn point(
    walk: &Walk<'_>,
    records: &Records<'_>,
    hidden: &Hidden,
    id: usize,
    site: &Site,
) -> TokenStream {
    let resumed = &records.resumed[id];
    let g = quote!(::mcp_runtime::graph);
    let questions = match &site.question {
        Expr::Tuple(tuple) => tuple.elems.iter().collect(),
        question => vec![question],
    };
    let asks = site
        .calls
        .iter()
        .zip(&site.keys)
        .enumerate()
        .map(|(n, (call, key))| {
            if call.sub {
                let source = text::expr(&site.question, walk.source(), text::MESSAGE);
                return quote!(#g::Ask::new(#key, #g::AskKind::SubFlowCall).call(#source));
            }
            let question = questions.get(n).map(|question| unkeyed(question));
            let method = call.method.to_string();
            let kind = match method.as_str() {
                "elicit" => quote!(Form),
                "elicit_url" => quote!(Url),
                "sample" => quote!(Sampling),
                _ => quote!(Roots),
            };
            let mut ask = quote!(#g::Ask::new(#key, #g::AskKind::#kind));
            let call_expr = question.and_then(|question| match question {
                Expr::MethodCall(call) => Some(call),
                _ => None,
            });
            if let Some(message) = call_expr
                .filter(|_| matches!(method.as_str(), "elicit" | "elicit_url"))
                .and_then(|call| call.args.first())
            {
                let message = text::expr(message, walk.source(), text::MESSAGE);
                ask.extend(quote!(.message(#message)));
            }
            if method == "elicit" {
                let turbofish = call_expr
                    .and_then(|call| call.turbofish.as_ref())
                    .and_then(|turbofish| turbofish.args.first())
                    .and_then(|argument| match argument {
                        syn::GenericArgument::Type(ty) => Some(ty),
                        _ => None,
                    });
                let annotated = (site.calls.len() == 1)
                    .then(|| walk.answer_types.get(&id))
                    .flatten();
                if let Some(ty) = turbofish.or(annotated)
                    && let Some(name) = text::ty(ty)
                {
                    let schema = match hidden.hides(ty) {
                        true => quote!(::core::option::Option::None),
                        // Through the probe: a type that is no form gives no schema, and no
                        // second error beside the one where it is asked.
                        false => quote! {{
                            #[allow(unused_imports)]
                            use ::mcp_runtime::__private::{SchemaOfAny as _, SchemaOfForm as _};
                            (&&::mcp_runtime::__private::SchemaProbe::<#ty>::new()).schema()
                        }},
                    };
                    ask.extend(quote!(.form(#name, #schema)));
                }
            }
            ask
        });
    let in_loop = walk.in_loop[id].then(|| quote!(.in_loop()));
    let carried = resumed.carried.iter().map(|carried| {
        let (name, ty) = carried_name(walk, records.bindings, &carried.ident);
        let ty = owned(ty.as_deref());
        quote!(#g::Carried::new(#name, #ty))
    });
    let carrying =
        (!resumed.carried.is_empty()).then(|| quote!(.carrying(::std::vec![#(#carried),*])));
    let n = number(id);
    quote! {
        #g::Node::Point(#g::Point::new(#n, ::std::vec![#(#asks),*])#in_loop #carrying)
    }
}

/// The question of `expr`, without its `.key(..)`.
fn unkeyed(expr: &Expr) -> &Expr {
    match expr {
        Expr::MethodCall(call) if call.method == "key" => unkeyed(&call.receiver),
        Expr::Paren(inner) => unkeyed(&inner.expr),
        expr => expr,
    }
}

/// How the graph names a carried local, and its type where a `let` writes one (the same
/// everywhere the body declares it). The locals the macro makes are named for what they
/// hold.
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
    let name = local.to_string();
    let types = walk
        .local_types
        .get(&name)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let shown_types: HashSet<Option<String>> = types.iter().map(text::ty).collect();
    let ty = match (types.len(), shown_types.into_iter().next()) {
        (1.., Some(ty)) if types.iter().map(text::ty).all(|other| other == ty) => ty,
        _ => None,
    };
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

/// `Some(String::from("text"))`, or `None`.
fn owned(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(::std::string::String::from(#text))),
        None => quote!(::core::option::Option::None),
    }
}
