//! The items a handler's body declares (`struct`, `enum`, `fn`, `const`, `static`, `use`,
//! `impl`, ...), declared once at the top of the step function rather than copied to every
//! place the body resumes: each copy would be an item of its own, so a value of a `struct`
//! carried across a question would not be of the type its copy builds, and a `static`
//! would count twice.
//!
//! Input:  `{ struct Acc { n: u32 } let mut acc = Acc { n: 0 }; ... __mcp_site!().0 ... }`
//! Output: `struct Acc { n: u32 }`, to go at the top of the step function, and the body with
//! an empty item in its place, so that no statement moves and the question points' paths
//! still lead to them: `{ ; let mut acc = Acc { n: 0 }; ... }`.
//!
//! An inner block's items go too when nothing outside that block names them, so that
//! declaring them for the whole function hides nothing the rest of it means. `macro_rules!`
//! stays: a macro is visible only after its definition, so it is copied as before.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Item, Stmt, UseTree};

/// Takes the items of `body`'s blocks out of them, leaving an empty item in each one's
/// place. Returns them in order.
pub(crate) fn lift(body: &mut Block) -> Vec<Item> {
    // The body's tokens, which only an inner block's items are checked against: made only
    // where there is one.
    let mut inner = InnerItems {
        depth: 0,
        found: false,
    };
    inner.visit_block(body);
    let whole = match inner.found {
        true => body.to_token_stream(),
        false => TokenStream::new(),
    };
    let mut lifter = Lifter {
        whole,
        names: HashSet::new(),
        lifted: Vec::new(),
        top: true,
    };
    lifter.visit_block_mut(body);
    lifter.lifted
}

/// Whether `stmt` is what [`lift`] leaves in an item's place.
pub(crate) fn is_lifted(stmt: &Stmt) -> bool {
    matches!(stmt, Stmt::Item(Item::Verbatim(tokens)) if tokens.is_empty())
}

/// Whether a block inside the body (not the body itself) holds an item [`lift`] might take,
/// seen through what [`Lifter`] walks through.
struct InnerItems {
    depth: usize,
    found: bool,
}

impl<'a> Visit<'a> for InnerItems {
    fn visit_block(&mut self, block: &'a Block) {
        let items =
            (block.stmts.iter()).any(|stmt| matches!(stmt, Stmt::Item(item) if liftable(item)));
        self.found |= self.depth > 0 && items;
        self.depth += 1;
        visit::visit_block(self, block);
        self.depth -= 1;
    }

    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'a Item) {}
}

struct Lifter {
    /// The body's tokens as written, where an inner block holds an item (see [`InnerItems`]).
    whole: TokenStream,
    names: HashSet<String>,
    lifted: Vec<Item>,
    /// Whether the next block is the body itself.
    top: bool,
}

impl VisitMut for Lifter {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let items: Vec<&Item> = block
            .stmts
            .iter()
            .filter_map(|stmt| match stmt {
                Stmt::Item(item) if liftable(item) => Some(item),
                _ => None,
            })
            .collect();
        let top = std::mem::replace(&mut self.top, false);
        let names: Vec<String> = items.iter().flat_map(|item| names(item)).collect();
        let unique = names.iter().all(|name| {
            !self.names.contains(name) && names.iter().filter(|other| *other == name).count() == 1
        });
        // The body's own items are visible in all of it already. An inner block's go only if
        // nothing outside the block names them; a glob import names what it brings in
        // nowhere, so it stays.
        let own = unique
            && (top
                || !items.is_empty() && {
                    let glob = items
                        .iter()
                        .any(|item| matches!(item, Item::Use(u) if has_glob(&u.tree)));
                    let inside = block.to_token_stream();
                    !glob
                        && names.iter().all(|name| {
                            occurrences(&self.whole, name) == occurrences(&inside, name)
                        })
                });
        if own && !items.is_empty() {
            self.names.extend(names);
            for stmt in &mut block.stmts {
                if let Stmt::Item(item) = stmt
                    && liftable(item)
                {
                    let item = std::mem::replace(item, Item::Verbatim(TokenStream::new()));
                    self.lifted.push(item);
                }
            }
        }
        visit_mut::visit_block_mut(self, block);
    }

    // What a closure, an `async` block or an item holds is not the body's to resume.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut Item) {}
}

/// Whether `item` is declared once for the whole step function: any but `macro_rules!` and
/// what [`lift`] leaves behind.
fn liftable(item: &Item) -> bool {
    !matches!(item, Item::Macro(_)) && !matches!(item, Item::Verbatim(tokens) if tokens.is_empty())
}

/// The names `item` declares.
fn names(item: &Item) -> Vec<String> {
    let ident = match item {
        Item::Const(item) => &item.ident,
        Item::Enum(item) => &item.ident,
        Item::Fn(item) => &item.sig.ident,
        Item::Mod(item) => &item.ident,
        Item::Static(item) => &item.ident,
        Item::Struct(item) => &item.ident,
        Item::Trait(item) => &item.ident,
        Item::TraitAlias(item) => &item.ident,
        Item::Type(item) => &item.ident,
        Item::Union(item) => &item.ident,
        Item::Use(item) => {
            let mut out = Vec::new();
            use_names(&item.tree, &mut out);
            return out;
        }
        _ => return Vec::new(),
    };
    vec![ident.to_string()]
}

fn use_names(tree: &UseTree, out: &mut Vec<String>) {
    match tree {
        UseTree::Path(path) => use_names(&path.tree, out),
        UseTree::Name(name) if name.ident != "self" => out.push(name.ident.to_string()),
        UseTree::Rename(rename) if rename.rename != "_" => out.push(rename.rename.to_string()),
        UseTree::Group(group) => group.items.iter().for_each(|tree| use_names(tree, out)),
        _ => {}
    }
}

fn has_glob(tree: &UseTree) -> bool {
    match tree {
        UseTree::Path(path) => has_glob(&path.tree),
        UseTree::Glob(_) => true,
        UseTree::Group(group) => group.items.iter().any(has_glob),
        _ => false,
    }
}

/// How often `name` occurs as an identifier in `tokens`.
pub(crate) fn occurrences(tokens: &TokenStream, name: &str) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) => usize::from(ident == name),
            TokenTree::Group(group) => occurrences(&group.stream(), name),
            _ => 0,
        })
        .sum()
}
