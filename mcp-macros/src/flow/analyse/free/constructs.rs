//! How each construct scopes what it binds and what it assigns: the walk itself.

use syn::visit::{self, Visit};
use syn::{Block, Expr, Pat};

use super::{Break, FreeVars, Ids, both};
use crate::flow::syntax::marker_site;

impl<'ast> Visit<'ast> for FreeVars<'_> {
    fn visit_block(&mut self, block: &'ast Block) {
        self.stmts(&block.stmts);
    }

    /// A question point's marker uses what its question does.
    fn visit_expr_field(&mut self, field: &'ast syn::ExprField) {
        match marker_site(field) {
            Some(site) => {
                if let Some(question) = self.lookup.questions.get(&site) {
                    self.visit_expr(question);
                }
            }
            None => visit::visit_expr_field(self, field),
        }
    }

    fn visit_expr_path(&mut self, path: &'ast syn::ExprPath) {
        if path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
        {
            self.use_binding(self.id(ident));
        }
        visit::visit_expr_path(self, path);
    }

    // Code that may not run, or not to its end, before the code after it (a closure, an
    // `async` block, the body of a `while` or `for`, the right of `&&` and `||`) assigns
    // nothing for that code: its scope is left without passing on what it assigns.

    // No `break` in a closure or an `async` block leaves a construct around it.

    fn visit_expr_closure(&mut self, closure: &'ast syn::ExprClosure) {
        let exits = std::mem::take(&mut self.exits);
        self.opaque += 1;
        self.push();
        for input in &closure.inputs {
            self.bind(input);
        }
        self.visit_expr(&closure.body);
        self.pop();
        self.opaque -= 1;
        self.exits = exits;
    }

    fn visit_expr_async(&mut self, expr: &'ast syn::ExprAsync) {
        let exits = std::mem::take(&mut self.exits);
        self.opaque += 1;
        self.push();
        self.visit_block(&expr.block);
        self.pop();
        self.opaque -= 1;
        self.exits = exits;
    }

    /// A labelled block goes on after its end or after a `break` out of it.
    fn visit_expr_block(&mut self, expr: &'ast syn::ExprBlock) {
        if expr.label.is_none() {
            self.visit_block(&expr.block);
            return;
        }
        self.push_exit(expr.label.as_ref(), false);
        self.visit_block(&expr.block);
        let (breaks, end) = self.pop_exit();
        let assigned = if self.block_ends(&expr.block) {
            breaks
        } else {
            Some(both(breaks, end))
        };
        self.assigned_by(assigned);
    }

    fn visit_expr_break(&mut self, expr: &'ast syn::ExprBreak) {
        if let Some(value) = &expr.expr {
            self.visit_expr(value);
        }
        let label = expr.label.as_ref().map(|label| label.ident.to_string());
        match self.exit(label.as_ref()) {
            Some(target) => {
                let here = self.assigned_since(self.exits[target].depth);
                let exit = &mut self.exits[target];
                exit.assigned = Some(both(exit.assigned.take(), here));
            }
            None if self.opaque == 0 => self.escaping.push(Break {
                label,
                assigned: self.assigned_since(0),
            }),
            None => {}
        }
    }

    fn visit_expr_binary(&mut self, expr: &'ast syn::ExprBinary) {
        self.visit_expr(&expr.left);
        if matches!(expr.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
            self.push();
            self.visit_expr(&expr.right);
            self.pop();
        } else {
            self.visit_expr(&expr.right);
        }
    }

    /// A `loop` goes on only after a `break` out of it.
    fn visit_expr_loop(&mut self, expr: &'ast syn::ExprLoop) {
        self.push_exit(expr.label.as_ref(), true);
        self.visit_block(&expr.body);
        let (breaks, _) = self.pop_exit();
        self.assigned_by(breaks);
    }

    fn visit_expr_while(&mut self, expr: &'ast syn::ExprWhile) {
        self.push_exit(expr.label.as_ref(), true);
        self.cond(&expr.cond);
        self.visit_block(&expr.body);
        self.pop_exit();
    }

    fn visit_expr_for_loop(&mut self, expr: &'ast syn::ExprForLoop) {
        self.visit_expr(&expr.expr);
        self.push_exit(expr.label.as_ref(), true);
        self.bind(&expr.pat);
        self.visit_block(&expr.body);
        self.pop_exit();
    }

    // A branching construct assigns what all its branches that go on assign.

    fn visit_expr_match(&mut self, expr: &'ast syn::ExprMatch) {
        self.visit_expr(&expr.expr);
        let mut assigned = None;
        for arm in &expr.arms {
            self.push();
            self.bind(&arm.pat);
            if let Pat::Guard(guarded) = &arm.pat {
                self.visit_expr(&guarded.guard);
            }
            self.visit_expr(&arm.body);
            let arm_assigned = self.pop();
            if !self.ends(&arm.body) {
                assigned = Some(both(assigned, arm_assigned));
            }
        }
        self.assigned_by(assigned);
    }

    fn visit_expr_if(&mut self, expr: &'ast syn::ExprIf) {
        self.push();
        self.cond(&expr.cond);
        self.visit_block(&expr.then_branch);
        let then = self.pop();
        let mut assigned = (!self.block_ends(&expr.then_branch)).then_some(then);
        match &expr.else_branch {
            Some((_, els)) => {
                self.push();
                self.visit_expr(els);
                let els_assigned = self.pop();
                if !self.ends(els) {
                    assigned = Some(both(assigned, els_assigned));
                }
            }
            None => assigned = Some(Ids::new()),
        }
        self.assigned_by(assigned);
    }

    /// `name = value` writes `name` without reading it: after it, in the same scope, `name`
    /// holds what this code put there, whatever it held before.
    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        self.visit_expr(&assign.right);
        if let Expr::Path(path) = &*assign.left
            && path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
        {
            let id = self.id(ident);
            if !self.bound(id) {
                self.assigned.insert(id);
            }
            self.assign(id);
            return;
        }
        self.visit_expr(&assign.left);
    }

    fn visit_expr_macro(&mut self, mac: &'ast syn::ExprMacro) {
        self.mac(&mac.mac);
    }

    fn visit_stmt_macro(&mut self, mac: &'ast syn::StmtMacro) {
        self.mac(&mac.mac);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl FreeVars<'_> {
    /// A condition: `let` patterns in it bind into the scope the caller opened.
    fn cond(&mut self, cond: &Expr) {
        match cond {
            Expr::Let(expr) => {
                self.visit_expr(&expr.expr);
                self.bind(&expr.pat);
            }
            Expr::Binary(expr) if matches!(expr.op, syn::BinOp::And(_)) => {
                self.cond(&expr.left);
                self.cond(&expr.right);
            }
            other => self.visit_expr(other),
        }
    }
}
