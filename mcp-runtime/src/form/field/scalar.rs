//! The kinds of a text, number or boolean field.

use std::marker::PhantomData;

use serde_json::{Number, Value};

use crate::form::formats;
use crate::protocol::{BooleanSchema, NumberKind, NumberSchema, PrimitiveSchema, StringSchema};

use super::{Bound, FieldMeta, Kind, Refusal, describe, quote, range_words, refuse};

/// `String`: a `string` field.
pub struct Text;

impl Kind for Text {
    type Value = String;

    fn schema(meta: &FieldMeta, default: Option<&String>) -> PrimitiveSchema {
        PrimitiveSchema::String(StringSchema {
            title: meta.title(),
            description: meta.description(),
            min_length: meta.min_length,
            max_length: meta.max_length,
            format: meta.format,
            default: default.cloned(),
            ..StringSchema::default()
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let mut out = match meta.format {
            Some(format) => String::from(formats::describe(format)),
            None => String::from("a string"),
        };
        let noun = if meta.max_length == Some(1)
            || (meta.max_length.is_none() && meta.min_length == Some(1))
        {
            " character"
        } else {
            " characters"
        };
        range_words(
            &mut out,
            noun,
            meta.min_length.map(|n| n.to_string()),
            meta.max_length.map(|n| n.to_string()),
        );
        out
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<String, Refusal> {
        let Value::String(text) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        if meta.min_length.is_some() || meta.max_length.is_some() {
            let count = text.chars().count() as u64;
            if meta.min_length.is_some_and(|min| count < min)
                || meta.max_length.is_some_and(|max| count > max)
            {
                let unit = if count == 1 {
                    "character"
                } else {
                    "characters"
                };
                return Err(refuse::<Self>(meta, format!("{count} {unit}")));
            }
        }
        if let Some(format) = meta.format
            && !formats::matches(format, text)
        {
            return Err(refuse::<Self>(meta, quote(text)));
        }
        Ok(text.clone())
    }

    fn to_json(value: &String) -> Value {
        Value::String(value.clone())
    }

    fn write_entry<M: serde::ser::SerializeMap>(
        map: &mut M,
        name: &str,
        value: &String,
    ) -> Result<(), M::Error> {
        map.serialize_entry(name, value)
    }
}

/// Integer types a form accepts, with their ranges.
pub trait FormInteger: Copy {
    /// Smallest value.
    const MIN: i128;
    /// Largest value.
    const MAX: i128;
    /// The value, if in range.
    fn from_i128(value: i128) -> Option<Self>;
    /// The value as JSON.
    fn to_number(self) -> Number;
}

macro_rules! form_integer {
    ($($ty:ty),*) => {$(
        impl FormInteger for $ty {
            const MIN: i128 = <$ty>::MIN as i128;
            const MAX: i128 = <$ty>::MAX as i128;
            fn from_i128(value: i128) -> Option<Self> {
                Self::try_from(value).ok()
            }
            fn to_number(self) -> Number {
                Number::from(self)
            }
        }
    )*};
}

form_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// An integer type: an `integer` field.
pub struct Integer<T>(PhantomData<T>);

impl<T: FormInteger> Integer<T> {
    fn bounds(meta: &FieldMeta) -> (i128, i128) {
        let low = match meta.minimum {
            Some(Bound::Int(min)) => min.max(T::MIN),
            _ => T::MIN,
        };
        let high = match meta.maximum {
            Some(Bound::Int(max)) => max.min(T::MAX),
            _ => T::MAX,
        };
        (low, high)
    }
}

/// The whole number a JSON number stands for, if any (`3.0` is 3; `3.5` is none).
#[allow(
    clippy::cast_possible_truncation,
    reason = "a whole float out of the i128 range saturates, and the range check refuses it"
)]
fn whole_number(number: &Number) -> Option<i128> {
    if let Some(value) = number.as_i64() {
        return Some(value.into());
    }
    if let Some(value) = number.as_u64() {
        return Some(value.into());
    }
    let float = number.as_f64()?;
    (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
}

impl<T: FormInteger> Kind for Integer<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        PrimitiveSchema::Number(NumberSchema {
            kind: NumberKind::Integer,
            title: meta.title(),
            description: meta.description(),
            minimum: meta.minimum.and_then(Bound::to_number),
            maximum: meta.maximum.and_then(Bound::to_number),
            default: default.map(|value| value.to_number()),
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let (low, high) = Self::bounds(meta);
        format!("an integer from {low} to {high}")
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        let Value::Number(number) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        let (low, high) = Self::bounds(meta);
        whole_number(number)
            .filter(|whole| (low..=high).contains(whole))
            .and_then(T::from_i128)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Value::Number(value.to_number())
    }
}

/// Float types a form accepts.
pub trait FormFloat: Copy {
    /// The value, if it is finite in this type.
    fn from_f64(value: f64) -> Option<Self>;
    /// The value as `f64`, as it goes on the wire.
    fn to_f64(self) -> f64;
}

impl FormFloat for f64 {
    fn from_f64(value: f64) -> Option<Self> {
        value.is_finite().then_some(value)
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl FormFloat for f32 {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "rounding to the nearest f32 is the conversion wanted; overflow is refused"
    )]
    fn from_f64(value: f64) -> Option<Self> {
        let narrow = value as f32;
        narrow.is_finite().then_some(narrow)
    }
    /// The shortest decimal that reads back as this `f32` (`0.1`, not `0.10000000149011612`):
    /// what the author or the user wrote, so a value at a bound stays within it on the wire.
    fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or_else(|_| self.into())
    }
}

/// `f32` or `f64`: a `number` field.
pub struct Float<T>(PhantomData<T>);

fn bound_words(bound: Option<Bound>) -> Option<String> {
    bound.map(|bound| match bound {
        Bound::Int(value) => value.to_string(),
        Bound::Float(value) => value.to_string(),
    })
}

impl<T: FormFloat> Kind for Float<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        PrimitiveSchema::Number(NumberSchema {
            kind: NumberKind::Number,
            title: meta.title(),
            description: meta.description(),
            minimum: meta.minimum.and_then(Bound::to_number),
            maximum: meta.maximum.and_then(Bound::to_number),
            default: default.and_then(|value| Number::from_f64(value.to_f64())),
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let mut out = String::from("a number");
        range_words(
            &mut out,
            "",
            bound_words(meta.minimum),
            bound_words(meta.maximum),
        );
        out
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        let Value::Number(number) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        number
            .as_f64()
            .filter(|float| {
                meta.minimum.is_none_or(|min| *float >= min.to_f64())
                    && meta.maximum.is_none_or(|max| *float <= max.to_f64())
            })
            .and_then(T::from_f64)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Number::from_f64(value.to_f64()).map_or(Value::Null, Value::Number)
    }
}

/// `bool`: a `boolean` field.
pub struct Boolean;

impl Kind for Boolean {
    type Value = bool;

    fn schema(meta: &FieldMeta, default: Option<&bool>) -> PrimitiveSchema {
        PrimitiveSchema::Boolean(BooleanSchema {
            title: meta.title(),
            description: meta.description(),
            default: default.copied(),
            ..BooleanSchema::default()
        })
    }

    fn expected(_meta: &FieldMeta) -> String {
        "`true` or `false`".into()
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<bool, Refusal> {
        value
            .as_bool()
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &bool) -> Value {
        Value::Bool(*value)
    }
}
