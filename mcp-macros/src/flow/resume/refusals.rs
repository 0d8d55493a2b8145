//! What the resumed body cannot carry, refused where the user wrote it: a local hidden at
//! the question by a pattern binding of its name, a borrow, code.

use super::{Binding, Resumer, free, scope};
use crate::flow::items::occurrences;
use crate::flow::scope::{Borrowed, Code};
use crate::flow::sites::is_operand;
use crate::flow::std_facts::{READS, TAKES_OUT, method_is};
use crate::flow::syntax;
use proc_macro2::{TokenStream, TokenTree};

impl Resumer<'_> {
    /// Settles each carried local that a local of its name declared further down the path,
    /// before the question, hides there: the state written at the question cannot name it.
    /// Hidden by a `let` with a value, or by a construct's pattern where the construct
    /// evaluates nothing that names it, it is written from a borrow of it taken just before
    /// (asked for in `hidden`, used once `aliases` has it); otherwise it is refused.
    pub(super) fn settle_hidden(&mut self) {
        for carried in &mut self.carried {
            let Some(hider) = self
                .hiding
                .iter()
                .filter(|hider| hider.level > carried.level && hider.ident == carried.ident)
                .min_by_key(|hider| hider.level)
            else {
                continue;
            };
            let name = carried.ident.to_string();
            // A construct that takes the value out of the hidden local once, before it binds
            // (`if let Some(item) = item.take()`), has it evaluated first, then borrows it
            // (`hidden::hide`).
            let named = named_unshared(&hider.heads, &name)
                && !(hider.once && takes_out(&hider.heads, &name));
            if let Some(at) = hider.at.as_ref().filter(|_| !named) {
                let Some(aliases) = self.aliases else {
                    self.hidden.push((at.clone(), carried.ident.clone()));
                    continue;
                };
                let alias = aliases.get(at).and_then(|hiding| {
                    hiding
                        .borrows
                        .iter()
                        .find(|(hidden, _)| *hidden == carried.ident)
                        .map(|(_, alias)| alias.clone())
                });
                if let Some(alias) = alias {
                    carried.alias = Some(alias);
                    continue;
                }
            }
            let inner = &syntax::shown_ident(&hider.ident);
            if self
                .reported
                .insert(format!("hides {inner}@{:?}", inner.span()))
            {
                let mut error = syn::Error::new(
                    inner.span(),
                    format!(
                        "this `{inner}` hides the `{inner}` declared above it, which travels \
                         across the question below; the question can name only this one, so \
                         give one of them another name"
                    ),
                );
                error.combine(syn::Error::new(
                    carried.ident.span(),
                    format!("the `{inner}` that travels is declared here"),
                ));
                self.errors.push(error);
            }
        }
    }

    /// Whether a carried local can travel, with an error saying why not where it cannot.
    /// Its type is the compiler's to check (at its slot); what the macro refuses here is what
    /// it sees in the source: a borrow, or code.
    pub(super) fn check(&mut self, binding: &Binding) -> bool {
        let ident = &syntax::shown_ident(&binding.ident);
        let owned = binding
            .ty
            .as_ref()
            .filter(|ty| scope::holds_borrow(ty))
            .map(scope::owned_for);
        let borrows = binding.by_ref || binding.init_borrow.is_some() || owned.is_some();
        let problem = if self.in_loop_condition {
            "this value is held across a question in a `while` loop's condition, which runs \
             again each time round the loop; ask in the loop's body instead: `loop { let \
             answer = cx.elicit(...).await?; if !(...) { break; } ... }`"
                .to_owned()
        } else if is_operand(ident) {
            // A value an operand gave, taken first into a local (see `sites::operands`).
            let what = if borrows {
                "is a borrow, and a borrow cannot cross a question; make it an owned value \
                 (for example with `.to_owned()` or `.clone()`)"
            } else if binding.init_is_code.is_some() {
                "is code, and no request state can hold code; write it after the question"
            } else {
                return true;
            };
            format!(
                "this value is held across a question later in its expression, so it travels \
                 in the request state; it {what}, or bind the question's answer before the \
                 expression (`let answer = cx.elicit(...).await?;`)"
            )
        } else if let Some(Some(owned)) = owned {
            format!(
                "`{ident}` holds a borrow and is used after a question, and a borrow cannot \
                 cross a question; carry an owned value instead: `let {ident}: {owned} = ...;`"
            )
        } else if binding.init_borrow == Some(Borrowed::Iterator) {
            format!(
                "`{ident}` is an iterator that borrows, used after a question, and a borrow \
                 cannot cross a question; loop over the collection with `for` instead (it \
                 resumes at its place), or collect what you need into a `Vec` before the \
                 question"
            )
        } else if borrows {
            // Where the flow resumes, a question whose answer does not come back is asked
            // again, so what it reads travels too.
            let used = if self.question_reads(&binding.ident) {
                "read by a question, which is asked again where its answer does not come back"
            } else {
                "used after a question"
            };
            format!(
                "`{ident}` is a borrow {used}, and a borrow cannot cross a question; make \
                 `{ident}` an owned value (for example with `.to_owned()` or `.clone()`) before \
                 the question"
            )
        } else if binding.init_is_code == Some(Code::Async) {
            format!(
                "`{ident}` is an `async` block used after a question, and no request state can \
                 hold code; define `{ident}` after the question instead"
            )
        } else if binding.init_is_code == Some(Code::Closure) {
            format!(
                "`{ident}` is a `move` closure used after a question, and no request state can \
                 hold code; drop `move`, so that the closure is made again where the flow \
                 resumes, or define `{ident}` after the question"
            )
        } else {
            return true;
        };
        if self.reported.insert(format!("{ident}@{:?}", ident.span())) {
            self.errors.push(syn::Error::new(ident.span(), problem));
        }
        false
    }

    /// Whether the question of the point being resumed reads `local`.
    fn question_reads(&self, local: &syn::Ident) -> bool {
        let Some(site) = self.sites.iter().position(|site| site.path == self.full) else {
            return false;
        };
        let question = &self.sites[site].question;
        free::free_in_stmts(&[syn::parse_quote!(let _ = #question;)], self.questions)
            .contains(&local.to_string())
    }
}

/// Whether `tokens` are `name.method(args)`, with `method` one of `std`'s that take a value out ([`TAKES_OUT`]) and `args`
/// not naming `name`: the local is borrowed for the call alone, and what the call gives back
/// borrows nothing of it.
fn takes_out(tokens: &TokenStream, name: &str) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    match trees.as_slice() {
        [
            TokenTree::Ident(local),
            TokenTree::Punct(dot),
            TokenTree::Ident(method),
            TokenTree::Group(args),
        ] => {
            local == name
                && dot.as_char() == '.'
                && method_is(&method.to_string(), TAKES_OUT)
                && args.delimiter() == proc_macro2::Delimiter::Parenthesis
                && occurrences(&args.stream(), name) == 0
        }
        _ => false,
    }
}

/// Whether `tokens` name `name` other than as `&name` or as the receiver of a method that
/// borrows it shared (`name.as_deref()`, `name.iter()`, `name.len()`), where a borrow of it
/// taken before them would stand in the way.
pub(super) fn named_unshared(tokens: &TokenStream, name: &str) -> bool {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    trees.iter().enumerate().any(|(i, tree)| match tree {
        TokenTree::Ident(ident) if ident == name => {
            let borrowed = i.checked_sub(1).is_some_and(
                |before| matches!(&trees[before], TokenTree::Punct(p) if p.as_char() == '&'),
            );
            !borrowed && !shared_receiver(&trees[i + 1..])
        }
        TokenTree::Group(group) => named_unshared(&group.stream(), name),
        _ => false,
    })
}

/// Whether `after`, the tokens after a local's name, call a method on it that borrows it
/// shared: `.method(..)` with `method` lending ([`scope::lends_shared`]) or reading ([`READS`]).
fn shared_receiver(after: &[TokenTree]) -> bool {
    match after {
        [
            TokenTree::Punct(dot),
            TokenTree::Ident(method),
            TokenTree::Group(args),
            ..,
        ] => {
            let method = method.to_string();
            dot.as_char() == '.'
                && args.delimiter() == proc_macro2::Delimiter::Parenthesis
                && (scope::lends_shared(&method) || method_is(&method, READS))
        }
        _ => false,
    }
}
