//! The kinds of a single- or multi-select field: an enum deriving `ElicitChoice`, or a
//! collection of one.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::marker::PhantomData;

use serde_json::Value;

use crate::form::ElicitChoice;
use crate::protocol::{
    LegacyTitledEnumSchema, PrimitiveSchema, TitledItems, TitledMultiSelectEnumSchema,
    TitledOption, TitledSingleSelectEnumSchema, UntitledItems, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};

use super::{FieldMeta, Kind, Refusal, describe, refuse};

fn is_titled<T: ElicitChoice>() -> bool {
    T::CHOICES.iter().any(|choice| choice.title.is_some())
}

fn titled_options<T: ElicitChoice>() -> Vec<TitledOption> {
    T::CHOICES
        .iter()
        .map(|choice| TitledOption::new(choice.wire, choice.title.unwrap_or(choice.wire)))
        .collect()
}

/// Every variant's title, a variant without one named by its wire value.
fn enum_names<T: ElicitChoice>() -> Vec<String> {
    T::CHOICES
        .iter()
        .map(|choice| String::from(choice.title.unwrap_or(choice.wire)))
        .collect()
}

fn wire_values<T: ElicitChoice>() -> Vec<String> {
    T::CHOICES
        .iter()
        .map(|choice| String::from(choice.wire))
        .collect()
}

pub(super) fn one_of_words<T: ElicitChoice>() -> String {
    let mut out = String::new();
    for (index, choice) in T::CHOICES.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "`{}`", choice.wire);
    }
    out
}

/// An enum deriving `ElicitChoice`: a single-select field, in the legacy `enumNames` shape
/// when the enum asks for it, else titled once any variant has a title, else untitled.
pub struct Single<T>(PhantomData<T>);

impl<T: ElicitChoice> Kind for Single<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        let default = default.map(|value| String::from(value.to_wire()));
        if T::ENUM_NAMES {
            PrimitiveSchema::LegacyTitled(LegacyTitledEnumSchema {
                title: meta.title(),
                description: meta.description(),
                values: wire_values::<T>(),
                enum_names: enum_names::<T>(),
                default,
                ..LegacyTitledEnumSchema::default()
            })
        } else if is_titled::<T>() {
            PrimitiveSchema::TitledSingleSelect(TitledSingleSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                one_of: titled_options::<T>(),
                default,
                ..TitledSingleSelectEnumSchema::default()
            })
        } else {
            PrimitiveSchema::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                values: wire_values::<T>(),
                default,
                ..UntitledSingleSelectEnumSchema::default()
            })
        }
    }

    fn expected(_meta: &FieldMeta) -> String {
        format!("one of {}", one_of_words::<T>())
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        value
            .as_str()
            .and_then(T::from_wire)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Value::String(value.to_wire().into())
    }

    fn write_entry<M: serde::ser::SerializeMap>(
        map: &mut M,
        name: &str,
        value: &T,
    ) -> Result<(), M::Error> {
        map.serialize_entry(name, value.to_wire())
    }
}

/// A collection a multi-select parses into.
pub trait Selection: Sized {
    /// The choice enum.
    type Item: ElicitChoice;
    /// The selection from distinct values, in the order sent.
    fn from_distinct(items: Vec<Self::Item>) -> Self;
    /// The selected values.
    fn items(&self) -> impl Iterator<Item = Self::Item>;
}

impl<T: ElicitChoice> Selection for Vec<T> {
    type Item = T;
    fn from_distinct(items: Vec<T>) -> Self {
        items
    }
    fn items(&self) -> impl Iterator<Item = T> {
        self.iter().copied()
    }
}

impl<T: ElicitChoice + Ord> Selection for BTreeSet<T> {
    type Item = T;
    fn from_distinct(items: Vec<T>) -> Self {
        items.into_iter().collect()
    }
    fn items(&self) -> impl Iterator<Item = T> {
        self.iter().copied()
    }
}

/// A `Vec` or `BTreeSet` of an enum deriving `ElicitChoice`: a multi-select field, titled
/// once any variant has a title. `ElicitChoice::ENUM_NAMES` plays no part: the schema has no
/// `enumNames` form for arrays.
pub struct Multi<C>(PhantomData<C>);

impl<C: Selection> Kind for Multi<C> {
    type Value = C;

    fn schema(meta: &FieldMeta, default: Option<&C>) -> PrimitiveSchema {
        let default = default.map(|selection| {
            selection
                .items()
                .map(|item| String::from(item.to_wire()))
                .collect()
        });
        if is_titled::<C::Item>() {
            PrimitiveSchema::TitledMultiSelect(TitledMultiSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                min_items: meta.min_items,
                max_items: meta.max_items,
                items: TitledItems {
                    any_of: titled_options::<C::Item>(),
                },
                default,
                ..TitledMultiSelectEnumSchema::default()
            })
        } else {
            PrimitiveSchema::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                min_items: meta.min_items,
                max_items: meta.max_items,
                items: UntitledItems {
                    values: wire_values::<C::Item>(),
                    ..UntitledItems::default()
                },
                default,
                ..UntitledMultiSelectEnumSchema::default()
            })
        }
    }

    fn expected(meta: &FieldMeta) -> String {
        let among = one_of_words::<C::Item>();
        match (meta.min_items, meta.max_items) {
            (Some(min), Some(max)) => {
                format!("an array of {min} to {max} distinct values among {among}")
            }
            (Some(min), None) => {
                format!("an array of at least {min} distinct values among {among}")
            }
            (None, Some(max)) => format!("an array of at most {max} distinct values among {among}"),
            (None, None) => format!("an array of distinct values among {among}"),
        }
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<C, Refusal> {
        let Value::Array(items) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        let count = items.len() as u64;
        if meta.min_items.is_some_and(|min| count < min)
            || meta.max_items.is_some_and(|max| count > max)
        {
            let unit = if count == 1 { "item" } else { "items" };
            return Err(refuse::<Self>(meta, format!("{count} {unit}")));
        }
        let mut chosen: Vec<C::Item> = Vec::with_capacity(items.len());
        for item in items {
            let Some(choice) = item.as_str().and_then(C::Item::from_wire) else {
                return Err(refuse::<Self>(meta, describe(item)));
            };
            if chosen.iter().any(|seen| seen.to_wire() == choice.to_wire()) {
                return Err(refuse::<Self>(meta, format!("{} twice", describe(item))));
            }
            chosen.push(choice);
        }
        Ok(C::from_distinct(chosen))
    }

    fn to_json(value: &C) -> Value {
        Value::Array(
            value
                .items()
                .map(|item| Value::String(item.to_wire().into()))
                .collect(),
        )
    }
}
