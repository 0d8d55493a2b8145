//! A binding that hides the local of its name while reading it (`let name = name.trim();`,
//! `for line in &lines { let line = line.trim(); .. }`, `let args = &args.items;` on the
//! arguments, `let question = question.trim();` on a sub-flow's): one of the two gets a new
//! name in the output, so that each name the resumed code uses names one binding. The hider
//! is then a borrow of a place bound once, which the flow takes again where it resumes, and
//! what it borrows travels.
//!
//! This stage only decides which binding gets which name, and records it in the binding
//! table (`Bindings::rename`). The body keeps the names as written through every stage, each
//! of which asks the table which binding a token is, and where two names are one name in
//! the output (`Bindings::same_name`); the output is written under the new names when it is
//! emitted (`emit/renamed.rs`).
//!
//! Input:
//! ```text
//! let name = args.name.clone();
//! let name = name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! Output, as emitted:
//! ```text
//! let __mcp_local0_name = args.name.clone();
//! let name = __mcp_local0_name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! The hidden local is renamed, or its hider where another macro's tokens may name the hidden
//! one (those tokens are not known to be code: `tracing`'s `status = %status`) or a
//! parameter's pattern binds it (`State(db)`); where such macros may name both, neither is.
//! Each new name is `__mcp_local{N}_{name}`, `N` counting the new names; what the user reads
//! names the local as written.

use std::collections::HashSet;

use syn::Block;

use super::bindings::{BindingId, Bindings};
use crate::flow::questions::awaits;
use crate::flow::syntax::RENAMED;

/// Records in `bindings` a new name for one of each hidden local and its hider, as
/// `bindings` resolved them: the first of the two whose name can change. The parameters a
/// pattern binds (`State(db)`) are `fixed` in the table and keep their names, as does a
/// binding one of whose tokens stands for another binding too ([`Bindings::clashing`]).
/// Nothing is renamed in a `body` that awaits nothing.
pub(crate) fn decide(body: &Block, bindings: &mut Bindings) {
    if !awaits(body) {
        return;
    }
    let hiders: Vec<(BindingId, BindingId)> = (bindings.iter())
        .filter_map(|(id, binding)| binding.hides.map(|hidden| (hidden, id)))
        .collect();
    let mut renamed: HashSet<BindingId> = HashSet::new();
    for (outer, inner) in hiders {
        if renamed.contains(&outer) || renamed.contains(&inner) {
            continue;
        }
        let free = [outer, inner]
            .into_iter()
            .filter(|&id| !bindings.clashing(id))
            .find_map(|id| bindings.get(id).filter(|b| !b.fixed).map(|b| (id, b)));
        if let Some((id, binding)) = free {
            let name = binding.name.to_string();
            let name = name.trim_start_matches("r#");
            let new = format!("{RENAMED}{}_{name}", renamed.len());
            bindings.rename(id, &new);
            renamed.insert(id);
        }
    }
}
