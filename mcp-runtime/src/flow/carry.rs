//! Serialisation of carried locals, with an error that speaks of flows.

use std::cell::{Ref, RefMut};
use std::collections::VecDeque;
use std::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

use serde::{Deserialize, Serialize};

use super::slot::Slot;

/// A value a flow can carry across a question: any type that is `Serialize` and
/// `DeserializeOwned` (deserialisable for every lifetime, [`ABorrowCannotCrossAQuestion`]).
///
/// A local used after a question travels in the request state, so its value must be written
/// and read back. Implemented for every such type; it exists so that a local of another type
/// is reported once, at its name, in these words.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across a question",
    label = "this local is used after a question, so it travels in the request state",
    note = "a carried local must implement `serde::Serialize` and `serde::Deserialize`; derive \
            them, or convert the value to a type that does before the question"
)]
pub trait Carry: Sized {
    /// The slot of a carried local of this type, declared by the step function the macro
    /// writes.
    #[doc(hidden)]
    fn slot() -> Slot<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + for<'de> ABorrowCannotCrossAQuestion<'de>> Carry for T {
    fn slot() -> Slot<T> {
        Slot::of()
    }
}

/// `Deserialize<'de>` under a name that reads as the rule it enforces on a carried value.
///
/// A carried local is read back from the request state, which nothing can borrow from, so its
/// type must be deserialisable for every lifetime. A borrow the macro cannot see as one (a
/// function's result, `first_word(&args.name)`, or a `&'static str` from a method) is
/// deserialisable only for the lifetime it borrows. The compiler reports that as a region
/// error, which no trait's message can word, but it names the trait whose bound failed:
/// "implementation of `ABorrowCannotCrossAQuestion` is not general enough", at the local.
pub trait ABorrowCannotCrossAQuestion<'de>: Deserialize<'de> {}

impl<'de, T: Deserialize<'de>> ABorrowCannotCrossAQuestion<'de> for T {}

/// A parameter bound `mut` that a flow carries across a question: [`Carry`], in words about
/// the parameter.
///
/// Arguments are given again each round, but one bound `mut` may have changed before the
/// question, so it travels in the request state like a local.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across a question",
    label = "this parameter is bound `mut` and used after a question, so it travels in the \
             request state",
    note = "derive `serde::Serialize` and `serde::Deserialize` on it, or bind it without `mut` \
            and take what changes into a local that can travel (`let mut items = args.items;`)"
)]
pub trait CarryArgument: Sized {
    /// The slot of a carried parameter.
    #[doc(hidden)]
    fn slot() -> Slot<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + for<'de> ABorrowCannotCrossAQuestion<'de>> CarryArgument for T {
    fn slot() -> Slot<T> {
        Slot::of()
    }
}

/// The items a `for` loop that asks questions has yet to take, when its collection is a
/// call, a macro or a chain that owns its items: [`Carry`], for the queue of those items.
///
/// Such a collection is evaluated once; its items wait in a queue that travels in the request
/// state, so they must be written and read back.
#[diagnostic::on_unimplemented(
    message = "the items of this `for` loop cannot be carried across a question",
    label = "this loop asks questions, so the items it has yet to take travel in the request state",
    note = "the items must implement `serde::Serialize` and `serde::Deserialize`; derive them, \
            or loop over values that do and look the others up inside the loop"
)]
pub trait CarryItems: Sized {
    /// The slot of a loop's queue of items.
    #[doc(hidden)]
    fn slot() -> Slot<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + for<'de> ABorrowCannotCrossAQuestion<'de>> CarryItems for T {
    fn slot() -> Slot<T> {
        Slot::of()
    }
}

/// A collection a `for` loop that asks questions can iterate over.
///
/// Such a loop iterates over a copy, so the flow can resume it on a later round by copying the
/// collection again and skipping the items it already took; the position travels in the
/// request state.
#[diagnostic::on_unimplemented(
    message = "a `for` loop that asks questions cannot iterate over `{Self}`",
    label = "the flow resumes this loop from a fresh copy of this collection",
    note = "iterate over an owned collection or a range that implements `Clone` and \
            `IntoIterator`, such as `Vec<T>` or `0..n`"
)]
pub trait Rewind {
    /// The iterator positioned after `taken` items.
    type Iter: Iterator;
    /// A fresh iterator over a copy, with the first `taken` items skipped.
    fn rewind(&self, taken: usize) -> Self::Iter;
}

#[diagnostic::do_not_recommend]
impl<T: Clone + IntoIterator> Rewind for T {
    type Iter = std::iter::Skip<T::IntoIter>;
    fn rewind(&self, taken: usize) -> Self::Iter {
        self.clone().into_iter().skip(taken)
    }
}

/// The collection of a `for` loop that asks questions, probed for the order it iterates in:
/// `(&Probe(&collection)).rewind_order()` is [`HashOrdered`] for the hash maps and sets of
/// `std`, whose order is drawn anew when a carried one is read back (so a resumed loop would
/// skip or repeat items), and [`InOrder`] for anything else.
#[doc(hidden)]
pub struct Probe<'a, T>(pub &'a T);

/// The probe's answer for a collection that iterates in the same order every round.
#[doc(hidden)]
pub struct InOrder;

/// The probe's answer for a `HashMap` or `HashSet`.
#[doc(hidden)]
pub struct HashOrdered;

/// The probe's method for hash-ordered collections, found before [`ProbeAny`]'s.
#[doc(hidden)]
pub trait ProbeHash {
    fn rewind_order(&self) -> HashOrdered {
        HashOrdered
    }
}

impl<K, V, S> ProbeHash for Probe<'_, std::collections::HashMap<K, V, S>> {}
impl<T, S> ProbeHash for Probe<'_, std::collections::HashSet<T, S>> {}

/// The probe's method for every other collection.
#[doc(hidden)]
pub trait ProbeAny {
    fn rewind_order(&self) -> InOrder {
        InOrder
    }
}

impl<T> ProbeAny for &Probe<'_, T> {}

/// A probe's answer that a resumable loop accepts: [`InOrder`] only.
#[diagnostic::on_unimplemented(
    message = "a `for` loop that asks questions cannot iterate over a `HashMap` or `HashSet`",
    label = "read back on the next round, it iterates in another order, so the loop would \
             skip or repeat items",
    note = "collect it into a `Vec` before the loop, or keep it in a `BTreeMap` or `BTreeSet`"
)]
pub trait RewindsInOrder {
    /// Accepts the probe's answer; named by the loop the macro writes.
    #[doc(hidden)]
    fn in_order(self);
}

impl RewindsInOrder for InOrder {
    fn in_order(self) {}
}

/// A carried local's slot, probed once the whole step is typed for the shapes that can never
/// travel, so they are reported at the local in words of their own, before the compiler's: a
/// borrow (a function's `&str`, a `Vec<&str>`) would otherwise be a region error,
/// "implementation of `ABorrowCannotCrossAQuestion` is not general enough", and a lock guard
/// a request to derive `Serialize`.
///
/// `(&CarryProbe(&slot)).borrow_shape()` is [`Borrowed`] for a reference, or a `Vec`,
/// `VecDeque`, `Option` or `Box` of one, and [`NoBorrow`] for anything else;
/// `(&CarryProbe(&slot)).guard_shape()` is [`Guarded`] for the lock guards of `std` and
/// `tokio` and `RefCell`'s borrows, and [`NoGuard`] for anything else. [`NotABorrow`] and
/// [`NotAGuard`] refuse an answer through a bound on the slot's type that no type meets: where
/// a mistake in the local's value leaves that type unknown, the check stays undecided, and the
/// compiler reports the mistake alone rather than a borrow or a guard the local may not be.
#[doc(hidden)]
pub struct CarryProbe<'a, T>(pub &'a T);

/// The borrow probe's answer for a reference, or a collection of references.
#[doc(hidden)]
pub struct Borrowed;

/// The borrow probe's answer for any other type.
#[doc(hidden)]
pub struct NoBorrow;

/// The guard probe's answer for a lock guard.
#[doc(hidden)]
pub struct Guarded;

/// The guard probe's answer for any other type.
#[doc(hidden)]
pub struct NoGuard;

/// The borrow probe's method for references, found before [`ProbeNoBorrow`]'s.
#[doc(hidden)]
pub trait ProbeBorrowed {
    fn borrow_shape(&self) -> Borrowed {
        Borrowed
    }
}

impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<&T>> {}
impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<&mut T>> {}
impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<Vec<&T>>> {}
impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<VecDeque<&T>>> {}
impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<Option<&T>>> {}
impl<T: ?Sized> ProbeBorrowed for CarryProbe<'_, Slot<Box<&T>>> {}

/// The borrow probe's method for every other type.
#[doc(hidden)]
pub trait ProbeNoBorrow {
    fn borrow_shape(&self) -> NoBorrow {
        NoBorrow
    }
}

impl<T> ProbeNoBorrow for &CarryProbe<'_, T> {}

/// The guard probe's method for lock guards, found before [`ProbeNoGuard`]'s.
#[doc(hidden)]
pub trait ProbeGuarded {
    fn guard_shape(&self) -> Guarded {
        Guarded
    }
}

impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<MutexGuard<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<RwLockReadGuard<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<RwLockWriteGuard<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<Ref<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<RefMut<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<tokio::sync::MutexGuard<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<tokio::sync::OwnedMutexGuard<T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<tokio::sync::RwLockReadGuard<'_, T>>> {}
impl<T: ?Sized> ProbeGuarded for CarryProbe<'_, Slot<tokio::sync::RwLockWriteGuard<'_, T>>> {}

/// The guard probe's method for every other type.
#[doc(hidden)]
pub trait ProbeNoGuard {
    fn guard_shape(&self) -> NoGuard {
        NoGuard
    }
}

impl<T> ProbeNoGuard for &CarryProbe<'_, T> {}

/// The borrow probe's answer a carried local must give: [`NoBorrow`] only.
#[diagnostic::on_unimplemented(
    message = "a borrow cannot be carried across a question",
    label = "this local holds a reference (or a `Vec`, `Option` or `Box` of references) and is \
             used after a question, but the request state cannot borrow",
    note = "carry an owned value instead: `.to_owned()` or `.to_string()` on a `&str`, \
            `.clone()` on a borrowed value, `.map(str::to_owned).collect::<Vec<String>>()` for \
            borrowed items; or take the borrow again after the question"
)]
pub trait NotABorrow<T> {
    /// Accepts the probe's answer for `slot`; named by the step the macro writes.
    #[doc(hidden)]
    fn check(self, slot: &Slot<T>);
}

impl<T> NotABorrow<T> for NoBorrow {
    fn check(self, _: &Slot<T>) {}
}

// Refused through a bound no type meets (see `CarryProbe`); a known type in the trait's words.
#[diagnostic::do_not_recommend]
impl<T: Uncarried> NotABorrow<T> for Borrowed {
    fn check(self, _: &Slot<T>) {}
}

/// The guard probe's answer a carried local must give: [`NoGuard`] only.
#[diagnostic::on_unimplemented(
    message = "a lock guard cannot be held across a question",
    label = "this guard is used after a question, but a question ends the request: the lock \
             cannot be held until the answer comes",
    note = "take the lock after the question, where the guard is used, and carry what you \
            read from it as an owned value"
)]
pub trait NotAGuard<T> {
    /// Accepts the probe's answer for `slot`; named by the step the macro writes.
    #[doc(hidden)]
    fn check(self, slot: &Slot<T>);
}

impl<T> NotAGuard<T> for NoGuard {
    fn check(self, _: &Slot<T>) {}
}

// Refused through a bound no type meets (see `CarryProbe`); a known type in the trait's words.
#[diagnostic::do_not_recommend]
impl<T: Uncarried> NotAGuard<T> for Guarded {
    fn check(self, _: &Slot<T>) {}
}

/// A bound no type meets: what refuses a [`Borrowed`] or a [`Guarded`] slot.
#[doc(hidden)]
pub trait Uncarried: sealed::Never {}

mod sealed {
    /// Implemented by no type.
    pub trait Never {}
}
