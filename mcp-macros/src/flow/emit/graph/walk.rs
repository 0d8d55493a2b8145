//! The walk: the marked body's control flow, in the order it runs, as edges between the
//! start, the question points (the markers `sites` left), the ways out, and joins: one per
//! loop, and one wherever several ways go on into the same statement. The runtime takes the
//! joins out when the graph is first read (`mcp_runtime::graph::__private::Steps`), so what
//! the macro writes grows with the body, not with the number of ways through it. How a loop
//! turns is `loops.rs`'s; what a `let` tells of types, `noted.rs`'s.
//!
//! What flows into the code being walked is a *frontier*: the nodes the handler may come from,
//! each with the conditions taken since. A marker ends every way of the frontier at its
//! point, and starts a new one there; a branch walks each arm from the frontier with its
//! condition, and joins the arms (a node every arm leaves unchanged leaves the branch without
//! the arms' conditions).

use std::collections::HashMap;

use syn::visit::Visit;
use syn::{Block, Expr, Pat, Stmt};

use super::text;
use crate::flow::check::sites::{Loop, Taken, collection};
use crate::flow::lower::bindings::BindingId;
use crate::flow::syntax::marker_site;

mod loops;
mod noted;

/// A node while walking: a loop's join stands where the loop starts each turn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Id {
    Start,
    Point(usize),
    Exit(usize),
    Join(usize),
}

/// How a way out leaves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    Return,
    Try,
    Refusal,
    Tail,
}

pub(super) struct Exit {
    pub(super) way: Way,
    pub(super) source: Option<String>,
}

#[derive(Clone, PartialEq, Eq)]
pub(super) struct Edge {
    pub(super) from: Id,
    pub(super) to: Id,
    /// Back to the start of a loop's turn.
    pub(super) back: bool,
    /// From a loop's join into its next turn.
    pub(super) turn: bool,
    pub(super) conditions: Vec<String>,
}

/// One way into the code being walked: from a node, under the conditions taken since.
#[derive(Clone, PartialEq, Eq)]
struct Entry {
    from: Id,
    conditions: Vec<String>,
    /// From a loop's join into its next turn (not out of the loop).
    turn: bool,
}

type Frontier = Vec<Entry>;

/// Where a `break` or `continue` goes: a loop (its join), or a labelled block.
struct Target {
    label: Option<String>,
    join: Option<Id>,
    breaks: Frontier,
}

pub(super) struct Walk<'a> {
    source: text::Source<'a>,
    /// The rewritten `for` loops, which the graph shows as written.
    loops: &'a [Loop],
    taken: &'a [Taken],
    pub(super) edges: Vec<Edge>,
    pub(super) exits: Vec<Exit>,
    joins: usize,
    targets: Vec<Target>,
    /// How many loops the walk is in.
    depth: usize,
    /// How many arms of branches the walk is in. Only outside them are several ways gathered
    /// into a join: inside, the branch still tells its ways apart by where they came from.
    arms: usize,
    /// Whether each point sits in a loop.
    pub(super) in_loop: Vec<bool>,
    /// The type a `let` gives the answer of a point: `let x: T = <point>?;`.
    pub(super) answer_types: HashMap<usize, syn::Type>,
    /// The type a `let` gives each local, by its binding id.
    pub(super) local_types: HashMap<BindingId, syn::Type>,
}

impl<'a> Walk<'a> {
    pub(super) fn new(source: text::Source<'a>, loops: &'a [Loop], taken: &'a [Taken]) -> Self {
        Self {
            source,
            loops,
            taken,
            edges: Vec::new(),
            exits: Vec::new(),
            joins: 0,
            targets: Vec::new(),
            depth: 0,
            arms: 0,
            in_loop: vec![false; source.sites.len()],
            answer_types: HashMap::new(),
            local_types: HashMap::new(),
        }
    }

    /// What the walk's text reads besides the code.
    pub(super) fn source(&self) -> text::Source<'a> {
        self.source
    }

    /// The collection the rewritten `for` loop a local the macro made belongs to iterates
    /// (see `sites::collection`).
    pub(super) fn collection(&self, local: &syn::Ident) -> Option<&'a Expr> {
        let made = self.source.bindings.made(local)?;
        collection(made, self.loops, self.taken)
    }

    /// Walks the handler's body from the start; what reaches its end leaves by its tail.
    pub(super) fn body(&mut self, body: &Block) {
        let start = vec![Entry {
            from: Id::Start,
            conditions: Vec::new(),
            turn: false,
        }];
        let end = self.block(body, start);
        if !end.is_empty() {
            let source = match body.stmts.last() {
                Some(Stmt::Expr(tail, None)) if !branches(tail) => {
                    Some(text::expr(tail, self.source, text::SHORT))
                }
                _ => None,
            };
            let exit = self.exit(Way::Tail, source);
            self.edges_to(&end, exit, false);
        }
    }

    fn exit(&mut self, way: Way, source: Option<String>) -> Id {
        self.exits.push(Exit { way, source });
        Id::Exit(self.exits.len() - 1)
    }

    fn join(&mut self) -> Id {
        self.joins += 1;
        Id::Join(self.joins - 1)
    }

    fn edges_to(&mut self, frontier: &[Entry], to: Id, back: bool) {
        for way in frontier {
            self.edges.push(Edge {
                from: way.from,
                to,
                back,
                turn: way.turn,
                conditions: way.conditions.clone(),
            });
        }
    }

    /// The frontier as one way, from a join all its ways go into, where it has several and
    /// no branch is being walked: each later edge is then one, not one per way.
    fn gathered(&mut self, frontier: Frontier) -> Frontier {
        if frontier.len() < 2 || self.arms > 0 {
            return frontier;
        }
        let join = self.join();
        self.edges_to(&frontier, join, false);
        vec![Entry {
            from: join,
            conditions: Vec::new(),
            // A way into a loop's turn stays one through the join.
            turn: frontier.iter().any(|way| way.turn),
        }]
    }

    fn block(&mut self, block: &Block, mut frontier: Frontier) -> Frontier {
        for stmt in &block.stmts {
            frontier = self.gathered(frontier);
            frontier = match stmt {
                Stmt::Local(local) => self.local(local, frontier),
                Stmt::Expr(expr, _) => self.expr(expr, frontier),
                Stmt::Item(_) | Stmt::Macro(_) => frontier,
            };
        }
        frontier
    }

    fn local(&mut self, local: &syn::Local, frontier: Frontier) -> Frontier {
        let Some(init) = &local.init else {
            self.note_type(&local.pat, None);
            return frontier;
        };
        self.note_type(&local.pat, Some(&init.expr));
        let frontier = self.expr(&init.expr, frontier);
        let Some((_, otherwise)) = &init.diverge else {
            return frontier;
        };
        let refuted = format!("not {}", text::pat(&local.pat, self.source));
        self.arms += 1;
        let otherwise = self.expr(otherwise, with(&frontier, refuted));
        self.arms -= 1;
        merge(&frontier, vec![frontier.clone(), otherwise])
    }

    fn expr(&mut self, expr: &Expr, frontier: Frontier) -> Frontier {
        match expr {
            Expr::Field(field) if marker_site(field).is_some() => {
                let id = marker_site(field).unwrap_or_default();
                self.edges_to(&frontier, Id::Point(id), false);
                if let Some(in_loop) = self.in_loop.get_mut(id) {
                    *in_loop = self.depth > 0;
                }
                vec![Entry {
                    from: Id::Point(id),
                    conditions: Vec::new(),
                    turn: false,
                }]
            }
            Expr::Try(tried) => {
                let frontier = self.expr(&tried.expr, frontier);
                let exit = match marker(&tried.expr) {
                    Some(_) => self.exit(Way::Refusal, None),
                    None => {
                        let source = text::expr(&tried.expr, self.source, text::SHORT);
                        self.exit(Way::Try, Some(source))
                    }
                };
                self.edges_to(&frontier, exit, false);
                frontier
            }
            Expr::Return(returned) => {
                let frontier = match &returned.expr {
                    Some(value) => self.expr(value, frontier),
                    None => frontier,
                };
                let source = returned
                    .expr
                    .as_ref()
                    .map(|value| text::expr(value, self.source, text::SHORT));
                let exit = self.exit(Way::Return, source);
                self.edges_to(&frontier, exit, false);
                Vec::new()
            }
            Expr::If(branch) => self.branch(branch, frontier),
            Expr::Match(matched) => {
                let frontier = self.expr(&matched.expr, frontier);
                let mut arms = Vec::new();
                self.arms += 1;
                for arm in &matched.arms {
                    let condition = text::pat(&arm.pat, self.source);
                    let mut arm_frontier = with(&frontier, condition);
                    if let Pat::Guard(guarded) = &arm.pat {
                        arm_frontier = self.expr(&guarded.guard, arm_frontier);
                    }
                    arms.push(self.expr(&arm.body, arm_frontier));
                }
                self.arms -= 1;
                merge(&frontier, arms)
            }
            Expr::Loop(looped) => {
                let label = looped.label.as_ref();
                self.looped(label, None, &looped.body, frontier)
            }
            Expr::While(looped) => {
                let label = looped.label.as_ref();
                self.looped(label, Some(&looped.cond), &looped.body, frontier)
            }
            Expr::ForLoop(looped) => {
                let frontier = self.expr(&looped.expr, frontier);
                let label = looped.label.as_ref();
                let condition = format!(
                    "for {} in {}",
                    text::pat(&looped.pat, self.source),
                    text::expr(&looped.expr, self.source, text::SHORT)
                );
                let condition = Some(text::shorten(&condition, text::SHORT));
                self.turns(label, condition, None, &looped.body, frontier)
            }
            Expr::Break(broken) => {
                let frontier = match &broken.expr {
                    Some(value) => self.expr(value, frontier),
                    None => frontier,
                };
                let label = broken.label.as_ref().map(|label| label.ident.to_string());
                if let Some(target) = self.target(label.as_deref()) {
                    target.breaks.extend(frontier);
                }
                Vec::new()
            }
            Expr::Continue(continued) => {
                let label = continued
                    .label
                    .as_ref()
                    .map(|label| label.ident.to_string());
                let join = self.target(label.as_deref()).and_then(|target| target.join);
                if let Some(join) = join {
                    self.edges_to(&frontier, join, true);
                }
                Vec::new()
            }
            Expr::Block(block) if block.label.is_some() => {
                let label = block
                    .label
                    .as_ref()
                    .map(|label| label.name.ident.to_string());
                self.targets.push(Target {
                    label,
                    join: None,
                    breaks: Vec::new(),
                });
                let mut end = self.block(&block.block, frontier);
                if let Some(target) = self.targets.pop() {
                    end.extend(target.breaks);
                }
                end
            }
            Expr::Block(block) => self.block(&block.block, frontier),
            Expr::Unsafe(block) => self.block(&block.block, frontier),
            // Their `return`s and `?`s leave them, not the handler, and no point stands in
            // them.
            Expr::Closure(_) | Expr::Async(_) | Expr::Macro(_) => frontier,
            expr => {
                let mut children = Children(Vec::new());
                syn::visit::visit_expr(&mut children, expr);
                children
                    .0
                    .into_iter()
                    .fold(frontier, |frontier, child| self.expr(child, frontier))
            }
        }
    }

    fn branch(&mut self, branch: &syn::ExprIf, frontier: Frontier) -> Frontier {
        let frontier = self.expr(&branch.cond, frontier);
        let condition = text::expr(&branch.cond, self.source, text::SHORT);
        self.arms += 1;
        let then = self.block(&branch.then_branch, with(&frontier, condition));
        let otherwise = match &branch.else_branch {
            Some((_, otherwise)) if matches!(**otherwise, Expr::If(_)) => {
                self.expr(otherwise, frontier.clone())
            }
            Some((_, otherwise)) => self.expr(otherwise, with(&frontier, "else".to_owned())),
            None => with(&frontier, "else".to_owned()),
        };
        self.arms -= 1;
        merge(&frontier, vec![then, otherwise])
    }
}

/// The direct sub-expressions of an expression, in the order they are written.
struct Children<'e>(Vec<&'e Expr>);

impl<'e> Visit<'e> for Children<'e> {
    fn visit_expr(&mut self, expr: &'e Expr) {
        self.0.push(expr);
    }
}

/// `frontier`, each way under `condition` too.
fn with(frontier: &[Entry], condition: String) -> Frontier {
    frontier
        .iter()
        .map(|way| {
            let mut way = way.clone();
            way.conditions.push(condition.clone());
            way
        })
        .collect()
}

/// The ways out of the arms of a branch entered from `before`: a way of `before` that every
/// arm leaves unchanged (no point reached on it) leaves without the arms' conditions.
fn merge(before: &[Entry], arms: Vec<Frontier>) -> Frontier {
    let from_way = |way: &Entry, before: &Entry| {
        way.from == before.from && way.conditions.starts_with(&before.conditions)
    };
    let kept: Vec<&Entry> = before
        .iter()
        .filter(|way| {
            arms.iter()
                .all(|arm| arm.iter().any(|other| from_way(other, way)))
        })
        .collect();
    let mut out: Frontier = kept.iter().map(|way| (*way).clone()).collect();
    for way in arms.into_iter().flatten() {
        if !kept.iter().any(|kept| from_way(&way, kept)) && !out.contains(&way) {
            out.push(way);
        }
    }
    out
}

/// The point `expr` is the marker of, under parentheses.
fn marker(expr: &Expr) -> Option<usize> {
    match unparen(expr) {
        Expr::Field(field) => marker_site(field),
        _ => None,
    }
}

fn unparen(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(inner) => unparen(&inner.expr),
        Expr::Group(inner) => unparen(&inner.expr),
        expr => expr,
    }
}

/// Whether `expr` is a branch whose arms give the value: its text tells nothing of one.
fn branches(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Loop(_) | Expr::Unsafe(_)
    )
}
