//! `#[tool]`, `#[prompt]`, `#[resource]` and `#[elicit]`: an `async fn` compiled into a state
//! machine whose suspended states are a serialisable continuation, typed by the compiler.
//!
//! # Pipeline
//!
//! [`expand()`] makes one copy of the function for each way the `#[cfg]`s of its statements fall
//! ([`cfgs`]) and compiles each ([`compile`]), stage by stage. Each stage reads what the ones
//! before it made and nothing they threw away; the errors of a stage all come out before the
//! next stage runs (see [`stage_errors`]).
//!
//! | stage | folder: modules | input | output | errors raised |
//! | --- | --- | --- | --- | --- |
//! | parse | `parse/`: [`model`], [`parse::presentation`], [`parse::kind`], [`parse::receiver`] | the attribute's tokens, the `ItemFn` | `model::Options`, `model::Handler` (parameters, context, arguments, body) | unknown, repeated or ill-typed keys; a signature of the wrong shape; a resource without its URI |
//! | lower | `lower/`: [`mutable`], [`chains`], [`bindings`], [`shadow`], [`items`] | the handler's body | `mut` parameters made locals, conditions that chain a `let` before a question split there, the scopes resolved once (`bindings::Bindings`: every binding a `BindingId`, every use its binding's), the new name of each local hidden by a binding that reads it (or of that binding) decided and recorded in that table, the body keeping the names written, the body's items lifted out | a chain the split cannot keep |
//! | check | `check/`: [`valid`], [`sites`] (keys: `check/sites/keys.rs`), [`check::forbidden`] | the lowered body | each question point marked (`__mcp_site!().N`, [`syntax::marker`]) and recorded as a `sites::Site` (its path, keys, question), the resumable `for` loops (`sites::Loop`, `sites::Taken`); each local the walk makes recorded in the binding table with what it holds (`bindings::Made`: a loop's position, iterator or items, an operand taken first) | a question where the body cannot be split (in a closure, an `async` block, a macro's tokens, a larger expression), a key two questions share |
//! | analyse | `analyse/`: [`analyse::facts`] (found by [`hoist`]), [`analyse::literals`], [`analyse::reborrow`], [`analyse::free`], [`analyse::point`]; per point, [`straight`] (`place`) and [`resume`] for its locals alone ([`analyse()`]) | the marked body | what the whole function tells of each binding, by binding id (`facts::Hoisted`: bound once, unchanging, a stable borrow, the context, a constant declared again; how often a name is bound counted by the name the output writes), the locals that only hold string literals (by binding id), per run of statements the bindings it reads and assigns before reading (`free::Summary`, by binding id), per block what its `let`s declare (`straight::Lets`, `plan/resume/prefix.rs`: found once per block, read by each point by binding id); each point's `straight::Placement` and locals (`point::Resumed` without its body), with the locals it would carry that cannot travel (`refusals::Refusal`) | none |
//! | check (travel) | `check/`: [`refusals`] ([`refused`]) | the points' analysed locals | the errors, each once by its identity (`errors::Identity`: the mistake and the binding) | a local that cannot travel: a borrow, code, a value held in a `while` loop's condition, a local hidden at its question by a binding that cannot borrow it first |
//! | plan | `plan/`: [`resume`] (`plan/resume/hidden.rs`: the hiding `let`s rewritten to borrow first, every point then analysed and checked again; `plan/resume/in_place.rs`: the statements whose points resume in place, written once; `plan/resume/group.rs`, whose `group/planner.rs` plans each group's nest, for the points of the other statements), [`straight`] (the placements) | the checked analysis | the body rewritten for hidden locals, the statements resumed in place (`straight::InPlace`), the points resumed together (`resume::Group`) | none |
//! | emit | `emit/`: [`mod@expand`] (with `emit/expand/handler.rs`, `emit/expand/trait_impl.rs`, `emit/expand/sub_flow.rs`, `emit/expand/stepper.rs`, `emit/expand/probes.rs`: the checks of carried locals for a borrow or a lock guard), [`emit::settle`], [`emit::graph`] (the flow graph), [`emit::renamed`] (the step function written under the new names the table gives hidden locals, once: the only place a hidden local is renamed); on error [`unbuilt`] (`unbuilt::fallback`: the errors, a stand-in, the body as written). The code `plan/` builds: each point's resumed body, once ([`resume_body`]; the walk down its path `plan/resume/walk.rs`, with what the points of one block share found once, `plan/resume/suffixes.rs`; `plan/resume/restore.rs`, `plan/resume/looped.rs`), and the nest ([`straight`]) | the plan | the step function and the items around it; on error, a stand-in beside the body as written | none |
//!
//! Two modules span stages and sit in `plan/`: [`straight`] places each point and builds the
//! nest, and [`resume`] finds a point's locals, rewrites hidden locals, groups points and
//! builds resumed bodies. One walk (`resume::Resumer`) does all of that for `resume`, with or
//! without the body (`locals_only`); parting it along the stage line would copy the walk.
//! Its state is five records, each saying who writes and who reads it: the analysis it reads
//! (`resume::Stages`, made once per body), what its caller asks (`Asked`), where it is on the
//! path (`Position`), what it passed on the way down (`Passed`) and what it found (`Found`).
//! Emit calls both (through [`resume_body`] and `expand::expand`).
//!
//! At the top of `flow/` are the leaves every stage may read: [`syntax`] (the marker,
//! literals, the names the macro writes), [`std_facts`] (one table of what the macro knows of
//! `std`'s methods and macros), [`scope`] (the bindings a pattern or `let` makes, and what a
//! type tells of them), [`questions`] (what a question is) and [`step`] (the step function's
//! names and the read of a carried value). [`cfgs`] runs before the stages, from [`expand()`],
//! and reads the signature through `parse/`. A stage reads only the stages before it and the
//! leaves, and no module of `flow` imports one that imports it back.
//!
//! A point is analysed without its resumed body: the code after it stands in the walk as its
//! summary (see `free::StandIn`). Only a point in a copy of its statement or in an arm of its
//! own, and not in a group, then gets its resumed body, once; one at the head of a statement
//! or in a statement resumed in place has none (the nest resumes it where it stands). So each
//! point costs the macro its own statement, not the rest of the body.
//!
//! # Glossary
//!
//! - **question point**, **point**, **site**: an awaited question or sub-flow call where the
//!   flow may stop; numbered in the order of the body (`sites::Site`), marked in the body by
//!   `__mcp_site!().N` until `emit/settle.rs` writes its code.
//! - **path**, **step**: the way from the body's block down to a point (`sites::Step`); a
//!   **head** is a sub-expression evaluated before anything else of its parent (`sites::Head`).
//! - **carried**: a local whose value travels in the state (`point::Carried`), written and read
//!   through its **slot**, one per local in the step function, typed by the compiler.
//! - **had again**, **derived again**: not carried but made again where the flow resumes: an
//!   item or a constant local (**hoisted**), a stable borrow (`reborrow`), a `for` loop's
//!   iterator rebuilt from its position (`scope::Rederive::Loop`), a local with no value at the
//!   question declared again without one (`scope::Rederive::Unassigned`).
//! - **binding**: a name a parameter, a `let`, a pattern (of a `match` arm, an `if let`, a
//!   `while let`, a closure's parameter) or a `for` loop's pattern introduces; recorded once
//!   in `bindings::Bindings` with its name as written, its token and its kind.
//! - **binding id**: the number of one binding (`bindings::BindingId`); the analysis keys what
//!   it finds of a local by it (what the function tells of it, what a run of statements
//!   reads and assigns, the `let`s a point has again or restores, carried locals, slots,
//!   literal locals, refusals, the type the graph shows), not by name. A name the resolver
//!   did not meet (a local the macro made after lowering, such as an operand taken first or
//!   a loop's position, or an item) gets one the first time a stage asks, the same for every
//!   token of that name; the walk that makes a local records what it holds
//!   (`bindings::Made`), which later stages read rather than its name.
//! - **made local**: a local the macro writes into the body (`__mcp_operand0`, `__mcp_pos_0`,
//!   `__mcp_items_0`); users read it named for what it holds ("position in items"), from its
//!   `Made` record. A parameter bound `mut` and moved into the body (`mutable`) keeps in the
//!   table the name the user wrote (`Bindings::written_as`).
//! - **use**: a path of one segment, or a name a standard macro's format string captures
//!   (`"{name}"`), that reads a binding; the table maps its token to that binding
//!   (`Bindings::id`), a token being its text and the line and column it starts at.
//! - **hidden**, **hider**: a carried local that a binding of its name hides at the question;
//!   the hider borrows it first (`plan/resume/hidden.rs`). Hiding is a relation between
//!   names as the output writes them (`Bindings::same_name`). **Renamed**: a local hidden by
//!   a binding that reads it (or that binding), given a name of its own in the output
//!   (`__mcp_local0_name`): `shadow` decides which and records it in the table
//!   (`Bindings::written`); every stage reads the body as written, and `emit::renamed`
//!   writes the step function under the new names.
//! - **resumed body**: the body as it runs when the flow resumes at one point (`resume`).
//! - **nest**: the body from the start, where the points in the body's own statements resume
//!   in place (`straight`). **Placement**: a point `At` the head of a body statement, `Within`
//!   one (resumed in the nest's arm for it), or in an arm of its `Own`.
//! - **in place**: a statement of the body holding points (a plain `if`, `loop`, `while` or
//!   block; an `else if` chain, `if let` or `match` whose branches read nothing their
//!   patterns bind) written once in the nest, the reader steering its control flow, rather
//!   than copied for its points (`plan/resume/in_place.rs`, `straight::InPlace`). **Arm
//!   number**: which branch of such a chain or `match` runs, found at the end of its level
//!   (`plan/resume/in_place/arms.rs`, `straight::Branch`).
//! - **group**: points inside one statement resumed together in one arm (`resume::group`).
//! - **level**: the depth of a scope down a path, where a carried local is restored.
//! - **summary**, **stand-in**: the bindings a run of statements reads and assigns first
//!   (`free::Summary`, by binding id), and the marker that stands for such a run in a walk
//!   (`free::StandIn`).
//! - **prefix**: what the statements of a block declare, found once per block
//!   (`plan/resume/prefix.rs`; `straight::Lets` for the nest): a point finds in it, by id,
//!   each binding its rest reads, rather than walking the statements before it.
//! - **settle**: the code at a question: ask it, read its answer, or stop with the state
//!   (`emit/settle.rs`).
//! - **stage**: one step of the pipeline above, one folder of `flow/`.
//! - **refusal**: an error of the macro, at the user's token, saying what to write instead;
//!   for a local that cannot travel, first a typed record (`refusals::Refusal`) the analysis
//!   makes and the check stage words.
//!
//! # Where to change
//!
//! - **How a `for` loop resumes**: `check/sites/loops.rs` (which loops resume, rewritten to a
//!   `while let` over a `Rewind` at a counted position; the locals it makes recorded as
//!   `Made`, which the graph reads to show the loop as written), `plan/resume/looped.rs` (the rest of
//!   the iteration stopped in runs once, then the loop; the current item taken afresh),
//!   `plan/resume/restore.rs` (`Rederive::Loop`: the iterator rebuilt from its position).
//! - **Which statements resume in place** (no copy of the statement per point), and how:
//!   `plan/resume/in_place.rs` (which constructs, the conditions on their locals, the code;
//!   `in_place/arms.rs` for `else if` chains, `if let`s and `match`es),
//!   `plan/straight/levels.rs` (`resumed_here`: the level), and `Reader::arrive` in
//!   `mcp-runtime/src/flow/continuation.rs` (a loop's later iterations run as written).
//! - **How a new operand position is accepted** (a question as an argument or element): a
//!   `sites::Head` for it with its `child`, the walk into it in `check/sites.rs`
//!   (`Analyzer::expr`, which calls `operand`), `check/sites/operands.rs` (what is taken first
//!   into a local), and `plan/resume/syntax.rs` (`block_in`, following the step).
//! - **How a refusal is worded**: at the stage that raises it (the table's last column):
//!   `parse/model.rs` and `parse/presentation.rs` (the attribute), `check/forbidden.rs`
//!   (where a question stands; `questions.rs` for one in a macro's tokens),
//!   `check/sites/record.rs` (keys), `check/valid.rs`, `lower/chains.rs`,
//!   `check/refusals.rs` (what cannot travel: its words; `plan/resume/travel.rs` finds it).
//!   Each has a UI case under `trybuild/tests/ui` whose `.stderr` shows it.
//! - **What the walk of a point keeps as it goes**: the records of `resume::Resumer` in
//!   `plan/resume.rs`; each submodule of `plan/resume/` says at its top which it reads and
//!   writes.
//! - **What the macro knows of a `std` method**: its row in `std_facts.rs`.
//! - **Which carried locals are checked for a borrow or a lock guard**: `emit/expand/probes.rs`
//!   (the checks), `std_facts.rs` (`plainly_owned`: the written types that need none), recorded
//!   once per binding as `Binding::plain` by `lower/bindings/walk.rs`.
//! - **What is a binding, what is a use, and which binding a use reads** (a new pattern
//!   position, a macro whose arguments are code): `lower/bindings/walk.rs` (the walk),
//!   `lower/bindings/plain.rs` (the arguments of such a macro read from its tokens where each
//!   is a literal or a name with fields, else parsed), and `std_facts.rs` (`EXPRESSIONS`, the
//!   macros read as code); `lower/bindings/tests.rs` shows each scope rule.
//! - **Which hidden locals get a name of their own, and how the output writes it**:
//!   `lower/shadow.rs` (which of a hidden local and its hider, and the new name) and
//!   `emit/renamed.rs` (which tokens are written anew: paths, patterns, shorthand fields,
//!   the captures of a standard macro's format string); `emit/renamed/tests.rs` shows each.
//! - **What is had again rather than carried**: `analyse/facts.rs` and `analyse/hoist.rs`
//!   (constants, stable borrows), `analyse/reborrow.rs` (which borrows are stable),
//!   `analyse/literals.rs` (literal locals).

mod analyse;
mod cfgs;
mod check;
mod emit;
mod lower;
#[cfg(test)]
mod odd_inputs;
mod parse;
#[cfg(test)]
mod parsed;
mod plan;
mod questions;
mod scope;
mod std_facts;
mod step;
mod syntax;

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use analyse::hoist;
use check::{refusals, sites, valid};
use emit::{expand, unbuilt};
use lower::{bindings, chains, items, mutable, shadow};
pub(crate) use parse::kind::Kind;
use parse::model;
use plan::{resume, straight};

pub(crate) use crate::errors::Errors;

/// Ends a stage: the errors it found, combined, if there are any. The collector is left
/// empty for the next stage.
fn stage_errors(errors: &mut Errors) -> Option<syn::Error> {
    std::mem::take(errors).finish().err()
}

/// The handler `item` declares, or the errors that stop it beside a stand-in (see
/// [`unbuilt::fallback`]).
pub(crate) fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(_) => {
            let shape = match kind {
                Kind::Elicit => "async fn name(cx: &Cx, ...) -> ...",
                _ => "async fn name(args: Args, cx: Cx) -> ...",
            };
            let error = syn::Error::new_spanned(
                &item,
                format!("`#[{}]` goes on an `async fn`: `{shape}`", kind.attr()),
            );
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    let Some(variants) = cfgs::variants(&function) else {
        // The function goes to `compile` whole; the fallback, on error only, reads it parsed
        // again from the same tokens rather than from a copy made for every expansion.
        return compile(kind, attr, function).unwrap_or_else(|error| {
            let function = syn::parse2(item).expect("the item parsed as a function before");
            unbuilt::fallback(kind, &function, error)
        });
    };
    // One copy per way the `#[cfg]`s of the body's statements fall (see [`cfgs`]); the errors
    // of all, each once.
    let mut built = Vec::new();
    let mut errors = Errors::default();
    let mut seen = HashSet::new();
    for cfgs::Variant {
        predicate,
        mut function,
    } in variants
    {
        // On the function: the items made of it take its `#[cfg]`s.
        function.attrs.push(syn::parse_quote!(#[cfg(#predicate)]));
        match compile(kind, attr.clone(), function) {
            Ok(tokens) => built.push(tokens),
            Err(error) => {
                // Each copy reads the same tokens: an error they share has one span.
                for error in error {
                    if seen.insert((error.to_string(), format!("{:?}", error.span()))) {
                        errors.push(error);
                    }
                }
            }
        }
    }
    match stage_errors(&mut errors) {
        Some(error) => unbuilt::fallback(kind, &function, error),
        None => quote!(#(#built)*),
    }
}

/// The handler compiled from `function`, or the errors that stop it.
fn compile(kind: Kind, attr: TokenStream, function: ItemFn) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let options = model::parse_options(kind, attr, &mut errors);
    if kind == Kind::Resource && options.uri.is_none() {
        errors.push(syn::Error::new(
            function.sig.ident.span(),
            "a resource needs its URI or URI template: `#[resource(uri = \"scheme://path\")]`",
        ));
    }
    if let (Kind::Resource, Some(uri), Some(complete)) = (kind, &options.uri, &options.complete)
        && !uri.value().contains('{')
    {
        errors.push(syn::Error::new_spanned(
            complete,
            "`complete` completes the variables of a URI template, and this `uri` has none; \
             remove `complete`, or give a template such as `uri = \"scheme://items/{id}\"`",
        ));
    }
    let (compiled, moved) = mutable::into_locals(kind, function);
    // What `hoist` reads beside the lowered body (see `Hoisted::of`).
    let signature = compiled.sig.clone();
    let mut handler = model::parse_handler(kind, options, compiled, &mut errors);
    chains::split(&mut handler.body, &handler.cx, &mut errors);
    valid::check_body(&handler.body, &handler.cx, &mut errors);
    if let Some(error) = stage_errors(&mut errors) {
        return Err(error);
    }

    // The scopes, resolved once: every binding an id, every use its binding's. A local hidden
    // by a binding that reads it is given a new name in the table, which the output is
    // written under when it is emitted (`emit::renamed`); the body keeps the names written.
    let patterns = handler.fixed_params();
    let mut named: Vec<&syn::Ident> = handler.params.iter().map(|(name, _)| name).collect();
    if let Some((syn::Pat::Ident(args), _)) = &handler.args {
        named.push(&args.ident);
    }
    let mut bindings = bindings::Bindings::resolve(&named, &patterns, &handler.body);
    for (param, written) in &moved.params {
        bindings.written_as(param, written);
    }
    shadow::decide(&handler.body, &mut bindings);
    let moved: Vec<_> = moved
        .locals
        .iter()
        .map(|local| bindings.id(local))
        .collect();
    let mut body = handler.body.clone();
    let own = (kind == Kind::Elicit).then(|| handler.ident.clone());
    let mut analyzer = sites::Analyzer::new(&handler.cx, own, &mut bindings, &mut errors);
    analyzer.block(&mut body);
    let mut sites = std::mem::take(&mut analyzer.sites);
    let loops = std::mem::take(&mut analyzer.loops);
    let taken = std::mem::take(&mut analyzer.taken);
    sites::check_keys(&mut sites, &mut errors);
    if let Some(error) = stage_errors(&mut errors) {
        return Err(error);
    }

    let items = items::lift(&mut body);
    // The function as lowered: its signature, and its body with the chains split.
    let hoisted = hoist::Hoisted::of((&signature, &handler.body), &handler.cx, &bindings);
    let questions = expand::question_map(&sites);
    let suffixes = resume::Suffixes::default();
    let base = resume::Stages {
        sites: &[],
        loops: &loops,
        hoisted: &hoisted,
        questions: &questions,
        aliases: None,
        suffixes: &suffixes,
        bindings: &bindings,
    };
    // Analyse, then check: each point's placement and locals, found without building its
    // resumed body, and what of those locals cannot travel, reported before any is built.
    let stages = resume::Stages {
        sites: &sites,
        ..base
    };
    let (mut placements, mut resumed) = analyse(&body, stages);
    if let Some(error) = refused(&resumed, &bindings, &mut errors) {
        return Err(error);
    }
    // A carried local hidden at its question by a `let` of its name: the `let` borrows it
    // first, and every point is analysed again in the body rewritten so.
    let hidden: Vec<_> = resumed
        .iter()
        .flat_map(|point| point.hidden.clone())
        .collect();
    let aliases = resume::hide(&mut body, &mut sites, &hidden, &bindings);
    let rewritten = resume::Suffixes::default();
    let stages = resume::Stages {
        sites: &sites,
        aliases: Some(&aliases),
        suffixes: if hidden.is_empty() {
            &suffixes
        } else {
            &rewritten
        },
        ..base
    };
    if !hidden.is_empty() {
        (placements, resumed) = analyse(&body, stages);
        if let Some(error) = refused(&resumed, &bindings, &mut errors) {
            return Err(error);
        }
    }
    // Emit: the points inside one statement resumed together, then each other point that
    // needs a resumed body, once, where its placement puts it.
    let mut slots = expand::slots(&mut resumed);
    let in_place = resume::in_place(&body, stages, &placements, &mut resumed);
    // Resumed in place: no group, no resumed body.
    let mut grouped: HashSet<usize> = in_place
        .iter()
        .flat_map(|level| level.points.iter().copied())
        .collect();
    let groups = resume::group(&body, stages, &placements, &mut resumed, &grouped);
    grouped.extend(groups.iter().flat_map(|group| group.points.iter().copied()));
    for (id, placement) in placements.iter().enumerate() {
        if !grouped.contains(&id)
            && let Some(point) = resume_body(&body, stages, id, placement)
        {
            resumed[id] = with_slots(point, &resumed, &mut slots);
        }
    }
    handler.body = body.clone();
    Ok(expand::expand(expand::Plan {
        handler: &handler,
        bindings: &bindings,
        moved: &moved,
        forward: body,
        sites: &sites,
        taken: &taken,
        loops: &loops,
        hoisted: &hoisted,
        placements: &placements,
        resumed,
        in_place,
        groups,
        slots,
        items,
    }))
}

/// Where each point resumes, and its locals, found without building its resumed body (see
/// `resume::Resumer::locals_only`): where the point's statement puts it (`straight::place`),
/// or in an arm of its own if its locals cannot go through the start's nest there.
fn analyse(
    body: &syn::Block,
    stages: resume::Stages<'_>,
) -> (Vec<straight::Placement>, Vec<resume::Resumed>) {
    let (summaries, lets) = stages.suffixes.of_body(body, &stages);
    let mut placements = straight::place(body, stages.sites, (&summaries, &lets), stages.lookup());
    let locals = |id: usize, placement: &straight::Placement| {
        let resumer = resume::Resumer::new(stages).locals_only();
        match placement {
            straight::Placement::Within { live, .. } => {
                resumer.resume(body, straight::cut_tail(live.as_deref()), id)
            }
            straight::Placement::At { .. } | straight::Placement::Own => {
                resumer.resume_whole(body, id)
            }
        }
    };
    let resumed = placements
        .iter_mut()
        .enumerate()
        .map(|(id, placement)| {
            let point = locals(id, placement);
            if through_nest(placement, &point, stages.bindings) {
                return point;
            }
            // Its locals in the whole body are those found at the head of its statement,
            // not those of the body cut after it.
            let cut = matches!(placement, straight::Placement::Within { .. });
            *placement = straight::Placement::Own;
            if cut { locals(id, placement) } else { point }
        })
        .collect();
    (placements, resumed)
}

/// The check stage: the errors of the locals the points would carry that cannot travel
/// (see [`refusals`]), if there are any.
fn refused(
    resumed: &[resume::Resumed],
    bindings: &bindings::Bindings,
    errors: &mut Errors,
) -> Option<syn::Error> {
    refusals::report(
        resumed.iter().flat_map(|point| &point.refusals),
        bindings,
        errors,
    );
    stage_errors(errors)
}

/// Point `id`'s resumed body, built where `placement` puts it: in the start's nest, in a copy
/// of its statement (`Within`), or in an arm of its own; `None` at the head of a statement,
/// where the nest resumes it in place and only its locals are wanted.
fn resume_body(
    body: &syn::Block,
    stages: resume::Stages<'_>,
    id: usize,
    placement: &straight::Placement,
) -> Option<resume::Resumed> {
    let resumer = resume::Resumer::new(stages);
    match placement {
        straight::Placement::At { .. } => None,
        straight::Placement::Within { live, .. } => {
            Some(resumer.resume(body, straight::cut_tail(live.as_deref()), id))
        }
        straight::Placement::Own => Some(resumer.resume_whole(body, id)),
    }
}

/// `point` with each carried local in the slot the analysis gave it (see `expand::slots`),
/// or a new one (`slots` gains it).
fn with_slots(
    mut point: resume::Resumed,
    analysed: &[resume::Resumed],
    slots: &mut Vec<syn::Ident>,
) -> resume::Resumed {
    for carried in &mut point.carried {
        let key = carried.local();
        let slot = analysed
            .iter()
            .flat_map(|point| &point.carried)
            .find(|other| other.local() == key)
            .map(|other| other.slot);
        carried.slot = slot.unwrap_or_else(|| {
            slots.push(carried.ident.clone());
            slots.len() - 1
        });
    }
    point
}

/// Whether `point`, as analysed, can hand its locals on through the start's nest where
/// `placement` puts it: not if its resumed body would declare a local it only assigns, or
/// borrows again one of the body's locals (by binding id) the nest does not have again after
/// its level (see `straight::again_at`); it then resumes in an arm of its own.
fn through_nest(
    placement: &straight::Placement,
    point: &resume::Resumed,
    bindings: &bindings::Bindings,
) -> bool {
    let borrowed: Vec<_> = (point.borrowed_again.iter())
        .map(|ident| bindings.id(ident))
        .collect();
    !point.declares
        && match placement {
            straight::Placement::At { again, .. } => {
                let again: Vec<_> = again
                    .iter()
                    .flat_map(scope::let_bindings)
                    .map(|binding| bindings.id(&binding.ident))
                    .collect();
                borrowed.iter().all(|id| again.contains(id))
            }
            straight::Placement::Within { live, .. } => live
                .iter()
                .flatten()
                .all(|binding| !borrowed.contains(&bindings.id(&binding.ident))),
            straight::Placement::Own => true,
        }
}
