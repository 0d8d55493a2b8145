//! Typed date and date-time fields: a form field of a date crate's type is a string field of
//! format `date` or `date-time`, checked by the same syntax as a `String` field of that
//! format, then parsed into the type; an answer either refuses is asked again with the
//! reason, as any invalid answer is.
//!
//! | feature | field type | wire format |
//! |---|---|---|
//! | `jiff` | `jiff::civil::Date` | `date` (`2026-07-28`) |
//! | `jiff` | `jiff::Timestamp` | `date-time` (`2026-07-28T09:30:00Z`, any offset) |
//! | `chrono` | `chrono::NaiveDate` | `date` |
//! | `chrono` | `chrono::DateTime<chrono::FixedOffset>` | `date-time`, keeping the offset sent |
//! | `chrono` | `chrono::DateTime<chrono::Utc>` | `date-time`, converted to UTC |

use std::marker::PhantomData;

use serde_json::Value;

use super::field::{FieldMeta, Kind, Refusal, describe, quote};
use super::formats;
use crate::protocol::{PrimitiveSchema, StringFormat, StringSchema};

/// A date or date-time type a form field may have (see the table above).
pub trait FormDate: Sized {
    /// The field's wire format.
    const FORMAT: StringFormat;
    /// Parses a value already checked to be syntactically of [`FORMAT`](Self::FORMAT).
    fn from_wire(text: &str) -> Option<Self>;
    /// The value as the client is shown it and sends it.
    fn to_wire(&self) -> String;
}

/// The kind of a [`FormDate`] field.
#[doc(hidden)]
pub struct Dated<T>(PhantomData<T>);

impl<T: FormDate> Kind for Dated<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        PrimitiveSchema::String(StringSchema {
            title: meta.title.map(String::from),
            description: meta.description.map(String::from),
            format: Some(T::FORMAT),
            default: default.map(T::to_wire),
            ..StringSchema::default()
        })
    }

    fn expected(_: &FieldMeta) -> String {
        formats::describe(T::FORMAT).to_owned()
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        let refused = |got| Refusal {
            expected: Self::expected(meta),
            got,
        };
        let Value::String(text) = value else {
            return Err(refused(describe(value)));
        };
        if !formats::matches(T::FORMAT, text) {
            return Err(refused(quote(text)));
        }
        T::from_wire(text).ok_or_else(|| refused(quote(text)))
    }

    fn to_json(value: &T) -> Value {
        Value::String(value.to_wire())
    }
}

macro_rules! date_field {
    ($feature:literal, $ty:ty, $format:ident, |$text:ident| $parse:expr, |$value:ident| $write:expr) => {
        #[cfg(feature = $feature)]
        impl FormDate for $ty {
            const FORMAT: StringFormat = StringFormat::$format;
            fn from_wire($text: &str) -> Option<Self> {
                $parse
            }
            fn to_wire(&self) -> String {
                let $value = self;
                $write
            }
        }

        #[cfg(feature = $feature)]
        impl super::FormField for $ty {
            type Kind = Dated<Self>;
        }
    };
}

date_field!(
    "jiff",
    jiff::civil::Date,
    Date,
    |text| text.parse().ok(),
    |value| value.to_string()
);
date_field!(
    "jiff",
    jiff::Timestamp,
    DateTime,
    |text| text.parse().ok(),
    |value| value.to_string()
);
date_field!(
    "chrono",
    chrono::NaiveDate,
    Date,
    |text| chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
    |value| value.format("%Y-%m-%d").to_string()
);
date_field!(
    "chrono",
    chrono::DateTime<chrono::FixedOffset>,
    DateTime,
    |text| chrono::DateTime::parse_from_rfc3339(text).ok(),
    |value| value.to_rfc3339()
);
date_field!(
    "chrono",
    chrono::DateTime<chrono::Utc>,
    DateTime,
    |text| chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|time| time.with_timezone(&chrono::Utc)),
    |value| value.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
);
