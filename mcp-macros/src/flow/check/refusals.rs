//! The check stage's refusals of what cannot travel in a request state: a local hidden at its
//! question by a binding of its name, a borrow, code, a value held in a `while` loop's
//! condition. The analysis of each point (`resume`, for its locals alone) records a
//! [`Refusal`] where a local it would carry is one of these; [`report`] words them, each once,
//! at the user's token, before any resumed body is built.

use syn::Ident;

use crate::errors::Identity;
use crate::flow::Errors;
use crate::flow::lower::bindings::Bindings;
use crate::flow::scope::{self, Binding, Borrowed, Code};

/// A local a point would carry that cannot travel.
#[derive(Clone)]
pub(crate) enum Refusal {
    /// The carried local `carried` is hidden at the question by `hider`, a binding of its name
    /// whose declaration cannot borrow it first (see `resume::hidden`).
    Hidden { hider: Ident, carried: Ident },
    /// The carried local `local` is one of `what`.
    Travels { local: Ident, what: Cannot },
}

/// Why a carried local cannot travel.
#[derive(Clone)]
pub(crate) enum Cannot {
    /// It is held across a question in a `while` loop's condition.
    InLoopCondition,
    /// It is a borrow an operand gave, taken first into a local (see `sites::operands`).
    OperandBorrow,
    /// It is code an operand gave.
    OperandCode,
    /// Its written type holds a borrow; the owned type to write, where one can be named.
    BorrowingType(String),
    /// It is an iterator that borrows.
    Iterator,
    /// It is a borrow; `read_by_question` when the point's question reads it.
    Borrow { read_by_question: bool },
    /// It is an `async` block.
    Async,
    /// It is a `move` closure.
    Closure,
}

/// Whether `binding`, a local a point carries, can travel: `None` if it can, else why not.
/// Its type is the compiler's to check (at its slot); what is refused here is what the source
/// shows: a borrow, or code. `operand` says the local is one an operand was taken into
/// (`Made::Operand`); `in_loop_condition` that the point's question is in a `while` loop's
/// condition; `read_by_question` whether its question reads the local.
pub(crate) fn cannot_travel(
    binding: &Binding,
    operand: bool,
    in_loop_condition: bool,
    read_by_question: impl FnOnce() -> bool,
) -> Option<Cannot> {
    let owned = binding
        .ty
        .as_ref()
        .filter(|ty| scope::holds_borrow(ty))
        .map(scope::owned_for);
    let borrows = binding.by_ref || binding.init_borrow.is_some() || owned.is_some();
    Some(if in_loop_condition {
        Cannot::InLoopCondition
    } else if operand {
        if borrows {
            Cannot::OperandBorrow
        } else if binding.init_is_code.is_some() {
            Cannot::OperandCode
        } else {
            return None;
        }
    } else if let Some(Some(owned)) = owned {
        Cannot::BorrowingType(owned)
    } else if binding.init_borrow == Some(Borrowed::Iterator) {
        Cannot::Iterator
    } else if borrows {
        Cannot::Borrow {
            read_by_question: read_by_question(),
        }
    } else if binding.init_is_code == Some(Code::Async) {
        Cannot::Async
    } else if binding.init_is_code == Some(Code::Closure) {
        Cannot::Closure
    } else {
        return None;
    })
}

/// Records each of `refusals` in `errors`, once for each local (its binding in `bindings`):
/// the points that carry one local each find its refusal. Each names the local as the user
/// wrote it.
pub(crate) fn report<'r>(
    refusals: impl IntoIterator<Item = &'r Refusal>,
    bindings: &Bindings,
    errors: &mut Errors,
) {
    for refusal in refusals {
        match refusal {
            Refusal::Hidden { hider, carried } => {
                let identity = Identity::new("hidden", bindings.id(hider).number());
                errors.push_once(identity, || hidden(&bindings.shown(hider), carried));
            }
            Refusal::Travels { local, what } => {
                let identity = Identity::new("cannot travel", bindings.id(local).number());
                errors.push_once(identity, || {
                    let ident = bindings.shown(local);
                    syn::Error::new(ident.span(), cannot(&ident, what))
                });
            }
        }
    }
}

/// The error of a carried local hidden by `inner`, at the hider and at the local.
fn hidden(inner: &Ident, carried: &Ident) -> syn::Error {
    let mut error = syn::Error::new(
        inner.span(),
        format!(
            "this `{inner}` hides the `{inner}` declared above it, which travels across the \
             question below; the question can name only this one, so give one of them another \
             name"
        ),
    );
    error.combine(syn::Error::new(
        carried.span(),
        format!("the `{inner}` that travels is declared here"),
    ));
    error
}

/// What is wrong with carrying `ident`, and what to write instead.
fn cannot(ident: &Ident, what: &Cannot) -> String {
    let operand = |what: &str| {
        format!(
            "this value is held across a question later in its expression, so it travels in the \
             request state; it {what}, or bind the question's answer before the expression (`let \
             answer = cx.elicit(...).await?;`)"
        )
    };
    match what {
        Cannot::InLoopCondition => "this value is held across a question in a `while` loop's \
             condition, which runs again each time round the loop; ask in the loop's body \
             instead: `loop { let answer = cx.elicit(...).await?; if !(...) { break; } ... }`"
            .to_owned(),
        Cannot::OperandBorrow => operand(
            "is a borrow, and a borrow cannot cross a question; make it an owned value (for \
             example with `.to_owned()` or `.clone()`)",
        ),
        Cannot::OperandCode => {
            operand("is code, and no request state can hold code; write it after the question")
        }
        Cannot::BorrowingType(owned) => format!(
            "`{ident}` holds a borrow and is used after a question, and a borrow cannot cross a \
             question; carry an owned value instead: `let {ident}: {owned} = ...;`"
        ),
        Cannot::Iterator => format!(
            "`{ident}` is an iterator that borrows, used after a question, and a borrow cannot \
             cross a question; loop over the collection with `for` instead (it resumes at its \
             place), or collect what you need into a `Vec` before the question"
        ),
        // Where the flow resumes, a question whose answer does not come back is asked again,
        // so what it reads travels too.
        Cannot::Borrow { read_by_question } => {
            let used = if *read_by_question {
                "read by a question, which is asked again where its answer does not come back"
            } else {
                "used after a question"
            };
            format!(
                "`{ident}` is a borrow {used}, and a borrow cannot cross a question; make \
                 `{ident}` an owned value (for example with `.to_owned()` or `.clone()`) before \
                 the question"
            )
        }
        Cannot::Async => format!(
            "`{ident}` is an `async` block used after a question, and no request state can hold \
             code; define `{ident}` after the question instead"
        ),
        Cannot::Closure => format!(
            "`{ident}` is a `move` closure used after a question, and no request state can hold \
             code; drop `move`, so that the closure is made again where the flow resumes, or \
             define `{ident}` after the question"
        ),
    }
}
