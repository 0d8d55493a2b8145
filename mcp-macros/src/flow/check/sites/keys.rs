//! The keys of the questions, checked once every point is found: unique among the questions
//! one run can reach.

use std::collections::{HashMap, HashSet};

use syn::LitStr;

use super::{Site, Step};
use crate::flow::Errors;

/// Keys are unique among the questions one run can reach, so an answer can never be read for
/// the wrong question: two questions may share a key only in branches that exclude each other
/// (two arms of one `match`, the two sides of one `if`). A key the macro made (a binding's
/// name, or else the question's method's) that an earlier question already has (`let answer
/// = ..` shadowed by a later `let answer = ..`) is numbered apart (`answer_2`); a key written
/// with `.key(..)` is refused.
pub(crate) fn check_keys(sites: &mut [Site], errors: &mut Errors) {
    let mut taken: HashSet<String> = sites
        .iter()
        .flat_map(|site| site.keys.iter().map(LitStr::value))
        .collect();
    let mut seen: HashMap<String, Vec<usize>> = HashMap::new();
    for id in 0..sites.len() {
        for k in 0..sites[id].keys.len() {
            let key = &sites[id].keys[k];
            let value = key.value();
            if value.is_empty() {
                continue;
            }
            let clashes = seen.get(&value).is_some_and(|earlier| {
                earlier
                    .iter()
                    .any(|&other| !exclusive(&sites[other].path, &sites[id].path))
            });
            if !clashes {
                seen.entry(value).or_default().push(id);
                continue;
            }
            if !sites[id].derived[k] {
                errors.push(syn::Error::new(
                    key.span(),
                    format!(
                        "another question of this handler is already asked under the key \
                         `{value}`; give this question a key of its own with `.key(\"...\")`"
                    ),
                ));
                continue;
            }
            let renamed = (2..)
                .map(|n| format!("{value}_{n}"))
                .find(|name| !taken.contains(name))
                .expect("some number is free");
            taken.insert(renamed.clone());
            sites[id].keys[k] = LitStr::new(&renamed, key.span());
            seen.entry(renamed).or_default().push(id);
        }
    }
}

/// Whether the question points at `a` and `b` lie in branches of which one run takes one.
fn exclusive(a: &[Step], b: &[Step]) -> bool {
    let Some((x, y)) = a.iter().zip(b).find(|(x, y)| x != y) else {
        return false;
    };
    matches!(
        (x, y),
        (Step::Arm(_), Step::Arm(_)) | (Step::IfThen, Step::IfElse) | (Step::IfElse, Step::IfThen)
    )
}
