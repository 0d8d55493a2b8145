//! The handler's flow graph (`mcp_runtime::graph`), drawn from the records that build its
//! step function: the question points (`sites::Site`: keys, questions), the marked body they
//! stand in (walked for the branches, loops and ways out between them, see [`walk`]), and
//! the locals each point carries (`point::Resumed`).
//!
//! Input:  the marked body `{ let target: Target = __mcp_site!().0?; if c { .. } .. }`
//! Output: the handler impl's method, one call of the runtime's reader with one JSON text and
//! the array of the named forms' schemas, by value (see `mcp_runtime::graph`'s `spec`: a
//! string literal and constants cost the build little, where records written as Rust values
//! were type-checked and laid out, a `static`, a cell or a reader of the handler's own are
//! each compiled per handler, and so is a table behind a reference, promoted to a constant):
//! ```text
//! fn flow_graph(&self) -> Option<&'static FlowGraph> {
//!     use SchemaOfAny as _; // only where a form is named
//!     // Each object's keys in sorted order (see `json`). One plain string literal, its
//!     // quotes and backslashes escaped (the compiler writes it: a raw string would be lexed
//!     // again by proc_macro2's own lexer, built without optimisations).
//!     flow_graph("{\"branch_exits\":[/* exits a condition leads to */],
//!         \"exits\":[[\"tail\",\"Ok(done)\"]],
//!         \"points\":[{\"asks\":[{\"call\":null,\"form\":[\"Target\",0],\"key\":\"target\",
//!         \"kind\":\"form\",\"message\":\"\\\"Where?\\\"\"}],\"carried\":[[\"replicas\",\"u32\"]],
//!         \"in_loop\":false}],
//!         // The walk's steps, through joins; the runtime takes the joins out (see `walk`).
//!         \"steps\":[[\"start\",{\"point\":0},false,false,[]],..],
//!         \"sub_points\":[/* points that call a sub-flow */]}",
//!         // One entry per form type, however many points ask it, by the number the text
//!         // gives it: its schema, or none where the type is no form.
//!         [SchemaProbe::<Target>::SCHEMA])
//! }
//! ```

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Block, Expr, Ident, Item, UseTree};

use crate::flow::analyse::point::Resumed;
use crate::flow::check::sites::{Loop, Site, Taken};
use crate::flow::lower::bindings::{Bindings, Made};

mod json;
mod text;
mod walk;

use json::Json;

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
    // The records, as `json` writes them: each object's keys in sorted order.
    let mut json = Json::default();
    json.open();
    json.key("branch_exits", true);
    let branch_exits = (walk.exits.iter().enumerate())
        .filter(|(_, exit)| matches!(exit.way, Way::Try | Way::Refusal))
        .map(|(n, _)| n as u64);
    json.list(branch_exits, Json::number);
    json.key("exits", false);
    json.list(&walk.exits, |json, exit| {
        let way = match exit.way {
            Way::Return => "return",
            Way::Try => "try",
            Way::Refusal => "refusal",
            Way::Tail => "tail",
        };
        json.list([Some(way), exit.source.as_deref()], Json::maybe_str);
    });
    json.key("points", false);
    json.list(sites.iter().enumerate(), |json, (id, site)| {
        point(json, &walk, records, &hidden, &mut forms, id, site);
    });
    json.key("steps", false);
    json.list(&walk.edges, |json, edge| {
        json.open_list();
        step_end(json, edge.from);
        json.next();
        step_end(json, edge.to);
        json.next();
        json.bool(edge.back);
        json.next();
        json.bool(edge.turn);
        json.next();
        json.list(&edge.conditions, |json, condition| json.str(condition));
        json.close_list();
    });
    json.key("sub_points", false);
    let sub_points = (sites.iter().enumerate())
        .filter(|(_, site)| site.is_sub())
        .map(|(n, _)| n as u64);
    json.list(sub_points, Json::number);
    json.close();
    let text = json.finish();
    let p = quote!(::mcp_runtime::__private);
    // Through the probe: a type that is no form gives no schema, and no second error beside
    // the one where it is asked.
    let probe = (!forms.is_empty()).then(|| {
        quote! {
            #[allow(unused_imports)]
            use #p::SchemaOfAny as _;
        }
    });
    quote! {
        fn flow_graph(&self) -> ::core::option::Option<&'static #g::FlowGraph> {
            #probe
            #p::flow_graph(#text, [#(#p::SchemaProbe::<#forms>::SCHEMA),*])
        }
    }
}

/// The record of point `id`, written into `json`.
fn point(
    json: &mut Json,
    walk: &Walk<'_>,
    records: &Records<'_>,
    hidden: &Hidden,
    forms: &mut Vec<syn::Type>,
    id: usize,
    site: &Site,
) {
    let resumed = &records.resumed[id];
    let questions = match &site.question {
        Expr::Tuple(tuple) => tuple.elems.iter().collect(),
        question => vec![question],
    };
    let asks: Vec<Ask> = site
        .calls
        .iter()
        .zip(&site.keys)
        .enumerate()
        .map(|(n, (call, key))| {
            let (mut message, mut form, mut called) = (None, None, None);
            let kind = if call.sub {
                called = Some(text::expr(&site.question, walk.source(), text::MESSAGE));
                "sub_flow"
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
                    message = Some(text::expr(text, walk.source(), text::MESSAGE));
                }
                if method == "elicit" {
                    form = form_named(walk, hidden, forms, id, site, call_expr);
                }
                match method.as_str() {
                    "elicit" => "form",
                    "elicit_url" => "url",
                    "sample" => "sampling",
                    _ => "roots",
                }
            };
            Ask {
                key: key.value(),
                kind,
                message,
                form,
                called,
            }
        })
        .collect();
    let in_loop = walk.in_loop[id];
    let carried: Vec<(String, Option<String>)> = (resumed.carried.iter())
        .map(|carried| carried_name(walk, records.bindings, &carried.ident))
        .collect();
    json.open();
    json.key("asks", true);
    json.list(&asks, |json, ask| {
        json.open();
        json.key("call", true);
        json.maybe_str(ask.called.as_deref());
        json.key("form", false);
        match &ask.form {
            Some((name, n)) => {
                json.open_list();
                json.str(name);
                json.next();
                json.number(u64::from(*n));
                json.close_list();
            }
            None => json.maybe_str(None),
        }
        json.key("key", false);
        json.str(&ask.key);
        json.key("kind", false);
        json.str(ask.kind);
        json.key("message", false);
        json.maybe_str(ask.message.as_deref());
        json.close();
    });
    json.key("carried", false);
    json.list(&carried, |json, (name, ty)| {
        json.list([Some(name.as_str()), ty.as_deref()], Json::maybe_str);
    });
    json.key("in_loop", false);
    json.bool(in_loop);
    json.close();
}

/// What the graph tells of one question a point asks.
struct Ask {
    key: String,
    kind: &'static str,
    message: Option<String>,
    /// The form's type name and its number in the graph's table.
    form: Option<(String, u32)>,
    /// The sub-flow called, as written.
    called: Option<String>,
}

/// A form question's type name and number, where the handler names the form's type (by a
/// turbofish, or by the `let` of a point that asks one question): `n` is its number among
/// `forms`, the types whose schemas the graph's table gives, each once. A type the graph cannot
/// reach is numbered past them, and has none.
fn form_named(
    walk: &Walk<'_>,
    hidden: &Hidden,
    forms: &mut Vec<syn::Type>,
    id: usize,
    site: &Site,
    call: Option<&syn::ExprMethodCall>,
) -> Option<(String, u32)> {
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
    // One number a type, however many points ask it: each is one entry of the table.
    let n = match hidden.hides(ty) {
        true => u32::MAX,
        false => {
            let n = forms.iter().position(|form| form == ty).unwrap_or_else(|| {
                forms.push(ty.clone());
                forms.len() - 1
            });
            u32::try_from(n).unwrap_or(u32::MAX)
        }
    };
    Some((name, n))
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

/// A step's end, as the runtime's records name it.
fn step_end(json: &mut Json, id: Id) {
    let (key, n) = match id {
        Id::Start => return json.str("start"),
        Id::Point(n) => ("point", n),
        Id::Exit(n) => ("exit", n),
        Id::Join(n) => ("join", n),
    };
    json.open();
    json.key(key, true);
    json.number(n as u64);
    json.close();
}
