//! Finding the question points of a handler body, checking that each stands where the body
//! can be split, and replacing each with a numbered marker.
//!
//! Input:  `let target: Target = cx.elicit("Where?").await?;`
//! Output: `let target: Target = __mcp_site!().0?;` plus a [`Site`] recording the question
//! expression, its keys and the path from the body block down to the marker.

use syn::visit::Visit;
use syn::{Block, Expr, Ident, LitStr, Pat, Stmt};

use super::forbidden::{Forbidden, Position};
use crate::flow::Errors;
use crate::flow::lower::bindings::Bindings;
use crate::flow::questions::{asks, awaited_in_macro, has_question};
use crate::flow::syntax::compound;

mod keys;
mod loops;
mod macros;
mod operands;
mod record;

pub(crate) use keys::check_keys;
pub(crate) use loops::{Loop, Taken, collection};
use operands::{by_reference, is_place, place_name, pure};

/// One step from the body block down to a question point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Step {
    /// Statement `i` of the current block.
    Stmt(usize),
    /// The initialiser of a `let` statement.
    LocalInit,
    /// The `else` block of a `let ... else` statement.
    LetElse,
    /// The expression of an expression statement.
    ExprStmt,
    /// A sub-expression evaluated before anything else in its parent.
    Head(Head),
    /// The `then` block of an `if`.
    IfThen,
    /// The `else` branch of an `if`.
    IfElse,
    /// The body of match arm `j`.
    Arm(usize),
    /// The block of a block expression.
    BlockExpr,
    /// The body of a `loop`.
    LoopBody,
    /// The body of a `while` or `while let`.
    WhileBody,
    /// The body of the `for` loop of [`Loop`] `n`, rewritten into a `while let`.
    ForBody(usize),
}

/// Which sub-expression a [`Step::Head`] enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Head {
    Try,
    Field,
    Receiver,
    Paren,
    Cast,
    Unary,
    Reference,
    BinaryLeft,
    /// The right operand of a binary operator whose left only reads places and literals.
    BinaryRight,
    IfCond,
    LetExpr,
    Scrutinee,
    Return,
    /// The value of a `break`.
    Break,
    AssignRight,
    /// The right of a compound assignment (`+=`, ...) to a place.
    CompoundRight,
    WhileCond,
    /// An element of a tuple; the first is also the value of a hiding `let` once it borrows
    /// what it hides (see `resume::hide`).
    Element(usize),
    /// An argument of a call to a path.
    CallArg(usize),
    /// The collection a `for` loop iterates.
    ForIter,
    /// An argument of a method called on a place.
    MethodArg(usize),
    /// An element of an array.
    ArrayElement(usize),
    /// A field's value in a struct literal.
    StructField(usize),
}

impl Head {
    /// The sub-expression of `expr` this step enters.
    pub(crate) fn child(self, expr: &mut Expr) -> Option<&mut Expr> {
        Some(match (self, expr) {
            (Self::Try, Expr::Try(e)) => &mut e.expr,
            (Self::Field, Expr::Field(e)) => &mut e.base,
            (Self::Receiver, Expr::MethodCall(e)) => &mut e.receiver,
            (Self::Paren, Expr::Paren(e)) => &mut e.expr,
            (Self::Cast, Expr::Cast(e)) => &mut e.expr,
            (Self::Unary, Expr::Unary(e)) => &mut e.expr,
            (Self::Reference, Expr::Reference(e)) => &mut e.expr,
            (Self::BinaryLeft, Expr::Binary(e)) => &mut e.left,
            (Self::BinaryRight, Expr::Binary(e)) => &mut e.right,
            (Self::IfCond, Expr::If(e)) => &mut e.cond,
            (Self::LetExpr, Expr::Let(e)) => &mut e.expr,
            (Self::Scrutinee, Expr::Match(e)) => &mut e.expr,
            (Self::Return, Expr::Return(e)) => e.expr.as_mut()?,
            (Self::Break, Expr::Break(e)) => e.expr.as_mut()?,
            (Self::AssignRight, Expr::Assign(e)) => &mut e.right,
            (Self::CompoundRight, Expr::Binary(e)) => &mut e.right,
            (Self::WhileCond, Expr::While(e)) => &mut e.cond,
            (Self::Element(k), Expr::Tuple(e)) => e.elems.iter_mut().nth(k)?,
            (Self::CallArg(k), Expr::Call(e)) => e.args.iter_mut().nth(k)?,
            (Self::ForIter, Expr::ForLoop(e)) => &mut e.expr,
            (Self::MethodArg(k), Expr::MethodCall(e)) => e.args.iter_mut().nth(k)?,
            (Self::ArrayElement(k), Expr::Array(e)) => e.elems.iter_mut().nth(k)?,
            (Self::StructField(k), Expr::Struct(e)) => &mut e.fields.iter_mut().nth(k)?.expr,
            _ => return None,
        })
    }
}

/// One question point.
pub(crate) struct Site {
    /// The awaited expression: one question, or a tuple of them.
    pub(crate) question: Expr,
    /// The questions asked at this point, in order.
    pub(crate) calls: Vec<Call>,
    /// The input key of each question.
    pub(crate) keys: Vec<LitStr>,
    /// Whether each key is made by the macro (the name of the binding the answer goes to, or
    /// else of the question's method), rather than written with `.key(..)`.
    pub(crate) derived: Vec<bool>,
    /// From the body block down to the marker.
    pub(crate) path: Vec<Step>,
}

/// One question built by a method of the context.
pub(crate) struct Call {
    /// The context's method, or the sub-flow called.
    pub(crate) method: Ident,
    /// A call of an `#[elicit]` sub-flow (a function given the context).
    pub(crate) sub: bool,
}

impl Site {
    /// Whether this point is a sub-flow call.
    pub(crate) fn is_sub(&self) -> bool {
        self.calls.first().is_some_and(|call| call.sub)
    }

    /// The statement of the body this question is evaluated first in, inside no construct,
    /// if it is one of the body's own statements.
    pub(crate) fn body_stmt(&self) -> Option<usize> {
        match self.path.as_slice() {
            [Step::Stmt(i), Step::LocalInit | Step::ExprStmt, heads @ ..]
                if heads.iter().all(|step| matches!(step, Step::Head(_))) =>
            {
                Some(*i)
            }
            _ => None,
        }
    }
}

/// What names a question's key, while the walk is still in a position that binds it.
#[derive(Clone)]
enum Naming {
    Pat(Pat),
    Ident(Ident),
}

pub(crate) struct Analyzer<'a> {
    cx: &'a Ident,
    pub(crate) sites: Vec<Site>,
    errors: &'a mut Errors,
    path: Vec<Step>,
    naming: Option<Naming>,
    pub(crate) loops: Vec<Loop>,
    /// The `for` loops whose items are taken once into a queue, which is carried.
    pub(crate) taken: Vec<Taken>,
    /// The sub-flow being compiled, to refuse a call of itself.
    own: Option<Ident>,
    /// How many operands were taken first into locals of their own (see `operands`).
    operands: usize,
    /// Which binding each local is, and its name as the user wrote it (see `record`); the
    /// locals the walk makes are recorded in it.
    bindings: &'a mut Bindings,
}

impl<'a> Analyzer<'a> {
    pub(crate) fn new(
        cx: &'a Ident,
        own: Option<Ident>,
        bindings: &'a mut Bindings,
        errors: &'a mut Errors,
    ) -> Self {
        Self {
            bindings,
            own,
            cx,
            sites: Vec::new(),
            errors,
            path: Vec::new(),
            naming: None,
            loops: Vec::new(),
            taken: Vec::new(),
            operands: 0,
        }
    }

    pub(crate) fn block(&mut self, block: &mut Block) {
        for (i, stmt) in block.stmts.iter_mut().enumerate() {
            self.path.push(Step::Stmt(i));
            self.stmt(stmt);
            self.path.pop();
        }
    }

    fn stmt(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let Some(init) = &mut local.init else { return };
                self.path.push(Step::LocalInit);
                self.naming = Some(Naming::Pat(local.pat.clone()));
                self.head(&mut init.expr);
                self.naming = None;
                self.path.pop();
                if let Some((_, diverge)) = &mut init.diverge {
                    self.path.push(Step::LetElse);
                    self.head(diverge);
                    self.path.pop();
                }
            }
            Stmt::Expr(expr, _) => {
                self.path.push(Step::ExprStmt);
                self.head(expr);
                self.path.pop();
            }
            // `println!("{}", cx.elicit::<Name>(..).await?.name);`: as an expression.
            Stmt::Macro(mac) => {
                let Some(mut expr) = macros::as_expr(mac, self.cx) else {
                    self.forbid_macro(&mac.mac);
                    return;
                };
                let semi = mac.semi_token;
                self.path.push(Step::ExprStmt);
                self.head(&mut expr);
                self.path.pop();
                *stmt = Stmt::Expr(expr, semi);
            }
            Stmt::Item(_) => {}
        }
    }

    /// Walks `expr`, which is evaluated before anything else in the statement that holds it.
    fn head(&mut self, expr: &mut Expr) {
        if let Some(calls) = self.question(expr) {
            self.record(expr, calls);
            return;
        }
        let naming = self.naming.take();
        // The binding a question's answer flows into names it through what it starts or is
        // the first or right operand of (`let ok = cx.elicit::<Sure>(..).await?.ok;`,
        // `let total = base + ask(&cx).await?;`).
        let keeps_naming = matches!(
            expr,
            Expr::Try(_)
                | Expr::Paren(_)
                | Expr::Field(_)
                | Expr::MethodCall(_)
                | Expr::Cast(_)
                | Expr::Call(_)
                | Expr::Binary(_)
                | Expr::Reference(_)
                | Expr::Unary(_)
                | Expr::Tuple(_)
                | Expr::Array(_)
                | Expr::Macro(_)
        );
        if keeps_naming {
            self.naming = naming.clone();
        }
        match expr {
            Expr::Try(e) => self.enter(Head::Try, &mut e.expr),
            Expr::Field(e) => self.enter(Head::Field, &mut e.base),
            Expr::Paren(e) => self.enter(Head::Paren, &mut e.expr),
            Expr::Cast(e) => self.enter(Head::Cast, &mut e.expr),
            Expr::Unary(e) => self.enter(Head::Unary, &mut e.expr),
            Expr::Reference(e) => self.enter(Head::Reference, &mut e.expr),
            // `names.push(cx.elicit::<Name>(..).await?.name)`, `Some(ask(&cx).await?)`,
            // `counts.insert(name, ask(&cx).await?)`: an argument of a method of a place, or
            // of a call to a path (see `operands`).
            Expr::MethodCall(e) => match is_place(&e.receiver).then(|| self.asking(&e.args)) {
                Some(at @ Some(_)) => {
                    if self.naming.is_none() {
                        self.naming = place_name(&e.receiver).map(Naming::Ident);
                    }
                    self.operand(expr, at, Head::MethodArg);
                }
                // `greeting().replace("NAME", &ask(&cx).await?)`: the receiver runs first,
                // into a local of its own, whose method the question is then an argument of.
                None if !asks(&e.receiver, self.cx) && self.asking(&e.args).is_some() => {
                    self.operand_first(expr, Head::Receiver);
                }
                _ => {
                    self.enter(Head::Receiver, &mut e.receiver);
                    e.args.iter().for_each(|a| self.forbid(a, Position::Nested));
                }
            },
            Expr::Call(e) if matches!(&*e.func, Expr::Path(_)) => {
                let at = self.asking(&e.args);
                self.operand(expr, at, Head::CallArg);
            }
            // The same in a tuple, an array or a struct literal (asked under the field's
            // name), whose parts run in the order written.
            Expr::Tuple(e) => {
                let at = self.asking(&e.elems);
                self.operand(expr, at, Head::Element);
            }
            Expr::Array(e) => {
                let at = self.asking(&e.elems);
                self.operand(expr, at, Head::ArrayElement);
            }
            Expr::Struct(e) if e.rest.is_none() => {
                let at = self.asking(e.fields.iter().map(|field| &field.expr));
                if let Some(syn::Member::Named(name)) = at.map(|asking| &e.fields[asking.at].member)
                {
                    self.naming = Some(Naming::Ident(name.clone()));
                }
                self.operand(expr, at, Head::StructField);
            }
            // `total += ask(..).await?`: the place is read only after the question. So is
            // one a call finds (`*counts.entry(name).or_insert(0) += ..`): on primitive
            // operands Rust evaluates the right first too.
            Expr::Binary(e) if compound(&e.op) => {
                if is_place(&e.left) {
                    self.naming = place_name(&e.left).map(Naming::Ident);
                }
                self.enter(Head::CompoundRight, &mut e.right);
            }
            // `total > 3 && cx.elicit::<Sure>(..).await?.ok`: a left that only reads places
            // and literals does nothing before the right, and reads the same again where the
            // flow resumes. A comparison borrows it, and `&&` and `||` read a `bool`.
            Expr::Binary(e) if by_reference(&e.op) && pure(&e.left) => {
                self.enter(Head::BinaryRight, &mut e.right);
            }
            // `base + ask(&cx).await?`, `prefix + &cx.elicit::<Word>(..).await?.word`.
            Expr::Binary(e) if !compound(&e.op) && pure(&e.left) && asks(&e.right, self.cx) => {
                self.operand_first(expr, Head::BinaryRight);
            }
            // `words.join(",") + &ask(&cx).await?`: the left runs first, into a local.
            Expr::Binary(e) if !compound(&e.op) && asks(&e.right, self.cx) => {
                self.operand_first(expr, Head::BinaryLeft);
            }
            Expr::Binary(e) => {
                self.enter(Head::BinaryLeft, &mut e.left);
                self.forbid(&e.right, Position::Nested);
            }
            Expr::Let(e) => self.enter(Head::LetExpr, &mut e.expr),
            Expr::Return(e) => {
                if let Some(value) = &mut e.expr {
                    self.enter(Head::Return, value);
                }
            }
            // `break cx.elicit::<Word>(..).await?.word;`, to a loop's or a labelled block's
            // value: evaluated before the `break` leaves, as a `return`'s is.
            Expr::Break(e) => {
                if let Some(value) = &mut e.expr {
                    self.enter(Head::Break, value);
                }
            }
            Expr::Assign(e) => {
                // The right is evaluated before the left, whatever the left is.
                if is_place(&e.left) {
                    self.naming = place_name(&e.left).map(Naming::Ident);
                }
                self.enter(Head::AssignRight, &mut e.right);
            }
            Expr::If(e) => {
                self.enter(Head::IfCond, &mut e.cond);
                self.path.push(Step::IfThen);
                self.block(&mut e.then_branch);
                self.path.pop();
                if let Some((_, els)) = &mut e.else_branch {
                    self.path.push(Step::IfElse);
                    self.head(els);
                    self.path.pop();
                }
            }
            Expr::Match(e) => {
                self.enter(Head::Scrutinee, &mut e.expr);
                for (j, arm) in e.arms.iter_mut().enumerate() {
                    if let Pat::Guard(guarded) = &arm.pat {
                        self.forbid(&guarded.guard, Position::Guard);
                    }
                    self.path.push(Step::Arm(j));
                    self.head(&mut arm.body);
                    self.path.pop();
                }
            }
            Expr::Block(e) => {
                self.path.push(Step::BlockExpr);
                self.block(&mut e.block);
                self.path.pop();
            }
            Expr::Loop(e) => {
                self.path.push(Step::LoopBody);
                self.block(&mut e.body);
                self.path.pop();
            }
            Expr::While(e) => {
                self.enter(Head::WhileCond, &mut e.cond);
                self.path.push(Step::WhileBody);
                self.block(&mut e.body);
                self.path.pop();
            }
            // `for c in cx.elicit::<Word>(..).await?.word.chars() { .. }`: the collection is
            // evaluated first. A loop that asks too then iterates a local holding it.
            Expr::ForLoop(e) if asks(&e.expr, self.cx) => {
                if has_question(&e.body, self.cx) {
                    self.operand_first(expr, Head::ForIter);
                } else {
                    self.enter(Head::ForIter, &mut e.expr);
                }
            }
            Expr::ForLoop(e) if has_question(&e.body, self.cx) => {
                self.forbid(&e.expr, Position::Nested);
                self.resumable_for(expr);
            }
            Expr::Macro(_) => self.macro_call(expr),
            other => self.forbid(other, Position::Nested),
        }
        self.naming = None;
    }

    fn enter(&mut self, head: Head, expr: &mut Expr) {
        self.path.push(Step::Head(head));
        self.head(expr);
        self.path.pop();
    }

    /// Reports every question inside `expr`, which is not a position the body can split at.
    fn forbid(&mut self, expr: &Expr, position: Position) {
        let mut finder = Forbidden {
            cx: self.cx,
            position,
            errors: self.errors,
        };
        finder.visit_expr(expr);
    }

    fn forbid_macro(&mut self, mac: &syn::Macro) {
        if let Some(error) = awaited_in_macro(mac, self.cx) {
            self.errors.push(error);
        }
    }
}
