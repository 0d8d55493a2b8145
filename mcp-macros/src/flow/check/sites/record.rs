//! Recording a question point: the questions it awaits, the key each is asked under, and the
//! marker left in its place.

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Ident, LitStr, Pat};

use super::{Analyzer, Call, Naming, Site};
use crate::flow::check::forbidden::Position;
use crate::flow::questions::{is_context, is_question_call, question_args, strip_parens};
use crate::flow::syntax::marker;

impl Analyzer<'_> {
    /// The questions awaited by `expr`, if it is `QUESTION.await` or `(QUESTION, ...).await`
    /// on the handler's own context.
    pub(super) fn question(&mut self, expr: &Expr) -> Option<Vec<(Call, Option<LitStr>)>> {
        let Expr::Await(awaited) = expr else {
            return None;
        };
        match strip_parens(&awaited.base) {
            Expr::Tuple(tuple) if !tuple.elems.is_empty() => {
                let calls: Vec<_> = tuple.elems.iter().map(|e| self.call(e)).collect();
                if calls.iter().all(Option::is_none) {
                    return None;
                }
                let mut out = Vec::new();
                for (elem, call) in tuple.elems.iter().zip(calls) {
                    match call {
                        Some((call, _)) if call.sub => self.errors.push(syn::Error::new_spanned(
                            elem,
                            "a sub-flow cannot be awaited in a tuple with other questions; await it on its own: `let answer = sub_flow(&cx, ...).await;`",
                        )),
                        Some(call) => out.push(call),
                        None => self.errors.push(syn::Error::new_spanned(
                            elem,
                            "every element of an awaited tuple of questions must be a question; \
                             ask it with a method of the handler's context, such as \
                             `cx.elicit(...)`",
                        )),
                    }
                }
                Some(out)
            }
            base => self.call(base).map(|call| vec![call]),
        }
    }

    /// `cx.METHOD(...)` or `sub_flow(.., &cx, ..)`, optionally followed by `.key("...")`.
    fn call(&self, expr: &Expr) -> Option<(Call, Option<LitStr>)> {
        if let Expr::Call(call) = strip_parens(expr)
            && call.args.iter().any(|arg| is_context(arg, self.cx))
            && let Expr::Path(callee) = &*call.func
            && let Some(last) = callee.path.segments.last()
        {
            let call = Call {
                method: last.ident.clone(),
                sub: true,
            };
            return Some((call, None));
        }
        let Expr::MethodCall(call) = strip_parens(expr) else {
            return None;
        };
        if call.method == "key" && call.args.len() == 1 {
            let (inner, _) = self.call(&call.receiver)?;
            let key = match &call.args[0] {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(key),
                    ..
                }) => key.clone(),
                other => LitStr::new("", other.span()),
            };
            return Some((inner, Some(key)));
        }
        is_question_call(call, self.cx).then(|| {
            (
                Call {
                    method: call.method.clone(),
                    sub: false,
                },
                None,
            )
        })
    }

    pub(super) fn record(&mut self, expr: &mut Expr, calls: Vec<(Call, Option<LitStr>)>) {
        let Expr::Await(awaited) = &*expr else {
            return;
        };
        let question = (*awaited.base).clone();
        if let (Some(own), Some((call, _))) = (&self.own, calls.first())
            && call.sub
            && &call.method == own
        {
            self.errors.push(syn::Error::new_spanned(
                &question,
                format!(
                    "the sub-flow `{own}` cannot call itself, since each call would nest its \
                     state in the one before; loop inside it instead"
                ),
            ));
        }
        // Questions inside the question's own arguments have nowhere to resume.
        for arg in question_args(&question) {
            self.forbid(arg, Position::Nested);
        }
        let names = self.binding_names(calls.len());
        let mut keys = Vec::new();
        let mut derived = Vec::new();
        let mut call_infos = Vec::new();
        for (i, (call, explicit)) in calls.into_iter().enumerate() {
            derived.push(explicit.is_none());
            let key = match (explicit, &names) {
                (Some(key), _) if key.value().is_empty() => {
                    self.errors.push(syn::Error::new(
                        key.span(),
                        "the key of a question must be a non-empty string literal; \
                         write `.key(\"name\")`",
                    ));
                    key
                }
                (Some(key), _) => key,
                (None, Some(names)) if names[i].is_some() => {
                    let ident = names[i].as_ref().expect("checked above");
                    LitStr::new(&self.bindings.shown_name(ident), ident.span())
                }
                // No binding names the answer (`if cx.elicit::<Sure>(..).await?.ok`, a
                // question awaited as a statement): it is asked under its method's name
                // (or the sub-flow's), numbered apart from the others (`keys::check_keys`).
                (None, _) => {
                    let name = call.method.to_string();
                    LitStr::new(name.trim_start_matches("r#"), call.method.span())
                }
            };
            keys.push(key);
            call_infos.push(call);
        }
        self.sites.push(Site {
            question,
            calls: call_infos,
            keys,
            derived,
            path: self.path.clone(),
        });
        *expr = marker(self.sites.len() - 1);
    }

    /// The names the answers are bound to, one per question, where the binding says.
    fn binding_names(&self, count: usize) -> Option<Vec<Option<Ident>>> {
        match self.naming.as_ref()? {
            Naming::Ident(ident) if count == 1 => Some(vec![Some(ident.clone())]),
            Naming::Ident(_) => None,
            Naming::Pat(pat) => {
                let pat = strip_pat_type(pat);
                match pat {
                    Pat::Tuple(tuple) if tuple.elems.len() == count => {
                        Some(tuple.elems.iter().map(sole_binding).collect())
                    }
                    single if count == 1 => Some(vec![sole_binding(single)]),
                    _ => None,
                }
            }
        }
    }
}

fn strip_pat_type(pat: &Pat) -> &Pat {
    match pat {
        Pat::Type(p) => strip_pat_type(&p.pat),
        Pat::Paren(p) => strip_pat_type(&p.pat),
        other => other,
    }
}

/// The one name a pattern binds, if it binds exactly one: `name` in `name`, `Ok(name)`,
/// `Name { name }` or `Some(mut name)`.
fn sole_binding(pat: &Pat) -> Option<Ident> {
    struct Bindings(Vec<Ident>);
    impl<'ast> Visit<'ast> for Bindings {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            self.0.push(pat.ident.clone());
            syn::visit::visit_pat_ident(self, pat);
        }
    }
    let mut bindings = Bindings(Vec::new());
    bindings.visit_pat(pat);
    match <[Ident; 1]>::try_from(bindings.0) {
        Ok([name]) => Some(name),
        Err(_) => None,
    }
}
