//! What the macro knows of `std`, in one place: its methods, by name, in one table, each row
//! with every fact the stages read of a method of that name (a name several types share, as
//! `take`, has the facts of each), and the macros it treats as `std`'s. The macro sees names,
//! not types: a fact is a promise about `std`'s methods of the name, which a user's method of
//! the same name may break (the compiler then reports it at the local's slot).
//!
//! A leaf: it names no other module of `flow`. To teach the macro a method, add its row.

/// What the macro knows of the methods of one name, a set of the facts below.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Facts(u16);

/// Gives a borrow of its receiver, which it borrows shared (`name.as_str()`, `text.trim()`).
pub(crate) const LENDS: Facts = Facts(1);
/// Gives an iterator over its receiver's items, which it borrows shared (`items.iter()`,
/// `line.split(',')`).
pub(crate) const ITERATES: Facts = Facts(1 << 1);
/// Gives a borrow of its receiver, which it borrows exclusively (`name.as_mut()`).
pub(crate) const LENDS_MUT: Facts = Facts(1 << 2);
/// Gives an iterator over its receiver's items, which it borrows exclusively
/// (`items.iter_mut()`).
pub(crate) const ITERATES_MUT: Facts = Facts(1 << 3);
/// An iterator adapter: what it gives iterates what its receiver does, and borrows what that
/// borrows (`items.iter().map(..)`).
pub(crate) const ADAPTS: Facts = Facts(1 << 4);
/// Hands on a part of what its receiver borrows (`items.first()`, `map.get("key")`,
/// `name.as_deref().unwrap_or("anon")`, `line.split(',').collect::<Vec<_>>()`).
pub(crate) const PASSES: Facts = Facts(1 << 5);
/// Takes its receiver by value (or, as `next`, changes it): on a place rather than a borrow,
/// it would move it.
pub(crate) const BY_VALUE: Facts = Facts(1 << 6);
/// Hands on what its receiver borrows, by value, given literals or functions run on what it
/// hands on (`.map(str::trim)`, `.filter(|s| !s.is_empty())`, `.unwrap_or_else(|| ..)`):
/// evaluated again on the same borrow, it gives the same. Not `cloned` and `copied` (on an
/// `Option` they give an owned value, which only travels), nor `zip` and `chain` (given
/// another iterator), nor the adapters not yet needed.
pub(crate) const TAKES_FUNCTIONS: Facts = Facts(1 << 7);
/// Takes an owned value out of its receiver, borrowing it only for the call
/// (`slot.take()`, `items.pop()`).
pub(crate) const TAKES_OUT: Facts = Facts(1 << 8);
/// Takes its receiver by a shared borrow and gives a value of its own (`items.len()`,
/// `name.clone()`).
pub(crate) const READS: Facts = Facts(1 << 9);

impl std::ops::BitOr for Facts {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl Facts {
    /// Whether any of `facts` holds.
    pub(crate) fn any(self, facts: Facts) -> bool {
        self.0 & facts.0 != 0
    }
}

/// An iterator adapter, which takes its receiver by value.
const ADAPTER: Facts = Facts(ADAPTS.0 | BY_VALUE.0);
/// An iterator adapter that also hands on a borrow given functions ([`TAKES_FUNCTIONS`]).
const PASSING_ADAPTER: Facts = Facts(ADAPTER.0 | TAKES_FUNCTIONS.0);

/// Every method of `std` the macro knows something of, in alphabetical order.
const METHODS: &[(&str, Facts)] = &[
    ("as_bytes", LENDS),
    ("as_deref", LENDS),
    ("as_deref_mut", LENDS_MUT),
    ("as_mut", LENDS_MUT),
    ("as_mut_slice", LENDS_MUT),
    ("as_mut_str", LENDS_MUT),
    ("as_os_str", LENDS),
    ("as_path", LENDS),
    ("as_ref", LENDS),
    ("as_slice", LENDS),
    ("as_str", LENDS),
    ("bytes", ITERATES),
    ("chain", ADAPTER),
    ("char_indices", ITERATES),
    ("chars", ITERATES),
    ("chunks", ITERATES),
    ("chunks_exact", ITERATES),
    ("clone", READS),
    ("cloned", ADAPTER),
    ("collect", Facts(PASSES.0 | BY_VALUE.0)),
    ("contains", READS),
    ("copied", ADAPTER),
    ("ends_with", READS),
    ("enumerate", PASSING_ADAPTER),
    ("expect", Facts(PASSES.0 | BY_VALUE.0)),
    ("filter", PASSING_ADAPTER),
    ("filter_map", PASSING_ADAPTER),
    ("first", Facts(PASSES.0 | READS.0)),
    ("first_mut", PASSES),
    ("flat_map", ADAPTER),
    ("flatten", ADAPTER),
    ("get", Facts(PASSES.0 | READS.0)),
    ("get_mut", PASSES),
    ("inspect", ADAPTER),
    ("is_empty", READS),
    ("is_err", READS),
    ("is_none", READS),
    ("is_ok", READS),
    ("is_some", READS),
    ("iter", ITERATES),
    ("iter_mut", ITERATES_MUT),
    ("keys", ITERATES),
    ("last", Facts(PASSES.0 | READS.0)),
    ("last_mut", PASSES),
    ("len", READS),
    ("lines", ITERATES),
    ("map", PASSING_ADAPTER),
    ("map_or", Facts(BY_VALUE.0 | TAKES_FUNCTIONS.0)),
    ("next", Facts(PASSES.0 | BY_VALUE.0)),
    ("nth", Facts(PASSES.0 | BY_VALUE.0)),
    ("peekable", ADAPTER),
    ("pop", TAKES_OUT),
    ("pop_back", TAKES_OUT),
    ("pop_front", TAKES_OUT),
    ("remove", TAKES_OUT),
    ("replace", TAKES_OUT),
    ("rev", PASSING_ADAPTER),
    ("rsplit_once", PASSES),
    ("skip", PASSING_ADAPTER),
    ("skip_while", ADAPTER),
    ("split", ITERATES),
    ("split_off", TAKES_OUT),
    ("split_once", PASSES),
    ("split_terminator", ITERATES),
    ("split_whitespace", ITERATES),
    ("starts_with", READS),
    ("step_by", ADAPTER),
    ("strip_prefix", PASSES),
    ("strip_suffix", PASSES),
    ("swap_remove", TAKES_OUT),
    ("take", Facts(PASSING_ADAPTER.0 | TAKES_OUT.0)),
    ("take_while", ADAPTER),
    ("to_owned", READS),
    ("to_string", READS),
    ("to_vec", READS),
    ("trim", LENDS),
    ("trim_end", LENDS),
    ("trim_end_matches", PASSES),
    ("trim_matches", PASSES),
    ("trim_start", LENDS),
    ("trim_start_matches", PASSES),
    ("unwrap", Facts(PASSES.0 | BY_VALUE.0)),
    ("unwrap_or", Facts(PASSES.0 | BY_VALUE.0)),
    ("unwrap_or_default", Facts(PASSES.0 | BY_VALUE.0)),
    ("unwrap_or_else", Facts(BY_VALUE.0 | TAKES_FUNCTIONS.0)),
    ("values", ITERATES),
    ("values_mut", ITERATES_MUT),
    ("windows", ITERATES),
    ("zip", ADAPTER),
];

/// What the macro knows of `std`'s methods named `name` (nothing, for a name it does not
/// know).
pub(crate) fn method(name: &str) -> Facts {
    METHODS
        .binary_search_by(|(known, _)| (*known).cmp(name))
        .map_or(Facts(0), |found| METHODS[found].1)
}

/// Whether `std`'s methods named `name` have any of `facts`.
pub(crate) fn method_is(name: &impl AsRef<str>, facts: Facts) -> bool {
    method(name.as_ref()).any(facts)
}

/// The macros of `std` that never go on to the code after them.
const PANICKING: &[&str] = &["panic", "todo", "unimplemented", "unreachable"];

/// The macros of `std` that evaluate each argument once, in the order written, and give a
/// value that borrows none of them (not `format_args!`, whose value the local an argument is
/// taken into would not outlive).
const EACH_ARGUMENT_ONCE: &[&str] = &[
    "eprint",
    "eprintln",
    "format",
    "panic",
    "print",
    "println",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// Whether the macro named `name` is one of `std`'s that never go on ([`PANICKING`]).
pub(crate) fn panics(name: &str) -> bool {
    PANICKING.contains(&name)
}

/// Whether the macro named `name` is one of `std`'s that evaluate each argument once
/// ([`EACH_ARGUMENT_ONCE`]).
pub(crate) fn each_argument_once(name: &str) -> bool {
    EACH_ARGUMENT_ONCE.contains(&name)
}

/// The macros of `std` whose arguments are expressions, each with the position of its format
/// string if it takes one: the names that string captures (`"{name}"`) and the other
/// arguments are uses of locals as code's are. Any other macro's tokens may name a local other
/// than as a use (`tracing`'s `status = %status`).
const EXPRESSIONS: &[(&str, Option<usize>)] = &[
    ("format", Some(0)),
    ("format_args", Some(0)),
    ("print", Some(0)),
    ("println", Some(0)),
    ("eprint", Some(0)),
    ("eprintln", Some(0)),
    ("panic", Some(0)),
    ("todo", Some(0)),
    ("unimplemented", Some(0)),
    ("unreachable", Some(0)),
    ("write", Some(1)),
    ("writeln", Some(1)),
    ("assert", Some(1)),
    ("debug_assert", Some(1)),
    ("assert_eq", Some(2)),
    ("assert_ne", Some(2)),
    ("debug_assert_eq", Some(2)),
    ("debug_assert_ne", Some(2)),
    ("vec", None),
    ("dbg", None),
];

/// Whether the macro at `path` is one of `std`'s whose arguments are expressions
/// ([`EXPRESSIONS`]): `Some` with the position of its format string, if it takes one.
pub(crate) fn format_position(path: &syn::Path) -> Option<Option<usize>> {
    let last = path.segments.last()?;
    EXPRESSIONS
        .iter()
        .find(|(name, _)| last.ident == name)
        .map(|(_, format)| *format)
}

/// `std`'s types that own what they hold and are no lock guard: a carried local whose `let`
/// writes one of them holds neither a borrow nor a guard, so the step checks neither.
const OWNED: &[&str] = &[
    "String", "bool", "char", "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8",
    "u16", "u32", "u64", "u128", "usize",
];

/// `std`'s containers of one type that hold a borrow or a guard only where their items do.
const OWNING: &[&str] = &["Box", "Option", "Vec", "VecDeque"];

/// Whether `ty`, written as it is, names a type of `std` that holds no borrow and no lock
/// guard ([`OWNED`]), or a container ([`OWNING`]), tuple or array of such types. By its name,
/// as the table's methods are: a type of the user's named `String` that borrows is taken for
/// `std`'s, and the compiler reports the borrow at the local's slot in its own words.
pub(crate) fn plainly_owned(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(inner) => plainly_owned(&inner.elem),
        syn::Type::Group(inner) => plainly_owned(&inner.elem),
        syn::Type::Array(array) => plainly_owned(&array.elem),
        syn::Type::Tuple(tuple) => tuple.elems.iter().all(plainly_owned),
        syn::Type::Path(path) if path.qself.is_none() => {
            let segments = &path.path.segments;
            let Some(last) = segments.last() else {
                return false;
            };
            let in_std = segments.len() == 1
                || ["std", "core", "alloc"]
                    .iter()
                    .any(|root| segments[0].ident == root);
            let plain = segments.iter().rev().skip(1).all(|s| s.arguments.is_none());
            let name = last.ident.to_string();
            in_std
                && plain
                && match &last.arguments {
                    syn::PathArguments::None => OWNED.contains(&name.as_str()),
                    syn::PathArguments::AngleBracketed(arguments) => {
                        OWNING.contains(&name.as_str())
                            && arguments.args.len() == 1
                            && matches!(&arguments.args[0],
                                syn::GenericArgument::Type(item) if plainly_owned(item))
                    }
                    syn::PathArguments::Parenthesized(_) => false,
                }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{LENDS, METHODS, PASSES, READS, TAKES_OUT, method, plainly_owned};

    #[test]
    fn the_table_is_in_order_with_one_row_a_name() {
        for pair in METHODS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
    }

    #[test]
    fn a_name_has_the_facts_of_every_method_of_that_name() {
        assert!(method("take").any(TAKES_OUT));
        assert!(method("first").any(PASSES) && method("first").any(READS));
        assert!(method("as_str").any(LENDS));
        assert!(!method("push").any(LENDS));
    }

    #[test]
    fn a_type_is_plainly_owned_where_nothing_it_names_can_borrow_or_lock() {
        let owned = |ty: &str| plainly_owned(&syn::parse_str(ty).expect("a type"));
        for ty in [
            "u32",
            "String",
            "std::string::String",
            "Vec<u8>",
            "Option<Vec<String>>",
            "(bool, i64)",
            "[u8; 4]",
            "::core::primitive::usize",
        ] {
            assert!(owned(ty), "{ty}");
        }
        for ty in [
            "&str",
            "Vec<&str>",
            "Option<MutexGuard<'_, u32>>",
            "Ref<'_, String>",
            "Target",
            "mymod::String",
            "Vec<u8, A>",
            "Box<dyn Fn()>",
            "_",
        ] {
            assert!(!owned(ty), "{ty}");
        }
    }
}
