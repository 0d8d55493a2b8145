//! Defaults the derive cannot read (a `const`, a call) are checked at run time: a default its
//! own field would refuse as an answer stops the program the first time the form's schema is
//! built, or a default fills an absent answer, with a message naming the form and the field.
//!
//! The forms here are those of the compile-fail cases `trybuild/tests/ui/form/default_*.rs`,
//! with each default moved behind a `const` or a call where the derive cannot see it: the
//! runtime must refuse every default the derive refuses.

use std::any::Any;
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use mcp_runtime::{ElicitChoice, ElicitForm};
use serde_json::{Map, json};

/// The message `run` panicked with; fails if it did not panic.
fn panic_message(run: impl FnOnce()) -> String {
    let payload: Box<dyn Any + Send> =
        catch_unwind(AssertUnwindSafe(run)).expect_err("the default should have been refused");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => (*payload.downcast::<&str>().expect("a text panic")).to_owned(),
    }
}

/// Both the schema and the parser of `F` refuse its default with `message`.
fn refused<F: ElicitForm + std::fmt::Debug>(message: &str) {
    assert_eq!(
        panic_message(|| {
            let _ = F::requested_schema();
        }),
        message
    );
    assert_eq!(
        panic_message(|| drop(F::from_content(&Map::new()))),
        message
    );
}

const TWENTY: u32 = 20;

#[derive(Debug, ElicitForm)]
struct Scale {
    #[form(minimum = 1, maximum = 12, default = TWENTY)]
    replicas: u32,
}

#[test]
fn integer_above_maximum() {
    refused::<Scale>(
        "form `Scale`, field `replicas`: the field refuses its own `#[form(default = ...)]`: \
         expected an integer from 1 to 12, got `20`; pick a default the field accepts, or drop \
         it",
    );
}

const MINUS_SIX: i8 = -6;

#[derive(Debug, ElicitForm)]
struct Tune {
    #[form(minimum = -5, default = MINUS_SIX)]
    offset: Option<i8>,
}

#[test]
fn optional_integer_below_minimum() {
    // An absent `Option` field is `None` whatever its default: only the schema uses it.
    assert_eq!(
        panic_message(|| {
            let _ = Tune::requested_schema();
        }),
        "form `Tune`, field `offset`: the field refuses its own `#[form(default = ...)]`: \
         expected an integer from -5 to 127, got `-6`; pick a default the field accepts, or \
         drop it"
    );
    assert_eq!(Tune::from_content(&Map::new()).unwrap().offset, None);
}

fn quarter() -> f64 {
    0.25
}

#[derive(Debug, ElicitForm)]
struct Mix {
    #[form(minimum = 0.5, maximum = 2, default = quarter())]
    ratio: f64,
}

#[test]
fn float_below_minimum() {
    refused::<Mix>(
        "form `Mix`, field `ratio`: the field refuses its own `#[form(default = ...)]`: \
         expected a number from 0.5 to 2, got `0.25`; pick a default the field accepts, or \
         drop it",
    );
}

const KUBERNETES: &str = "kubernetes";

#[derive(Debug, ElicitForm)]
struct Label {
    #[form(max_length = 8, default = KUBERNETES.into())]
    name: String,
}

#[test]
fn string_longer_than_max_length() {
    refused::<Label>(
        "form `Label`, field `name`: the field refuses its own `#[form(default = ...)]`: \
         expected a string of at most 8 characters, got 10 characters; pick a default the \
         field accepts, or drop it",
    );
}

const AB: &str = "ab";

#[derive(Debug, ElicitForm)]
struct ShortLabel {
    #[form(min_length = 3, default = AB.to_owned())]
    name: String,
}

#[test]
fn string_shorter_than_min_length() {
    refused::<ShortLabel>(
        "form `ShortLabel`, field `name`: the field refuses its own `#[form(default = ...)]`: \
         expected a string of at least 3 characters, got 2 characters; pick a default the \
         field accepts, or drop it",
    );
}

/// The defaults of the four `default_not_*` compile-fail cases, and a format each refuses.
const NOT_EMAIL: &str = "someone at example.com";
const NOT_URI: &str = "example.com/home";
const NOT_DATE: &str = "2026-02-29";
const NOT_DATE_TIME: &str = "2026-07-28 09:30:00Z";

#[derive(Debug, ElicitForm)]
struct Contact {
    #[form(format = "email", default = NOT_EMAIL.into())]
    email: String,
}

#[derive(Debug, ElicitForm)]
struct Link {
    #[form(format = "uri", default = NOT_URI.into())]
    home: String,
}

#[derive(Debug, ElicitForm)]
struct Trip {
    #[form(format = "date", default = NOT_DATE.into())]
    start: String,
}

#[derive(Debug, ElicitForm)]
struct Alarm {
    #[form(format = "date-time", default = NOT_DATE_TIME.into())]
    at: String,
}

#[test]
fn strings_not_in_their_format() {
    let message = |form: &str, field: &str, expected: &str, got: &str| {
        format!(
            "form `{form}`, field `{field}`: the field refuses its own \
             `#[form(default = ...)]`: expected {expected}, got `{got}`; pick a default the \
             field accepts, or drop it"
        )
    };
    refused::<Contact>(&message("Contact", "email", "an e-mail address", NOT_EMAIL));
    refused::<Link>(&message(
        "Link",
        "home",
        "an absolute URI (RFC 3986, with a scheme)",
        NOT_URI,
    ));
    refused::<Trip>(&message(
        "Trip",
        "start",
        "a date `YYYY-MM-DD` (RFC 3339 full-date)",
        NOT_DATE,
    ));
    refused::<Alarm>(&message(
        "Alarm",
        "at",
        "a date-time such as `2026-07-28T09:30:00Z` (RFC 3339)",
        NOT_DATE_TIME,
    ));
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Tag {
    Fast,
    Cheap,
    Good,
}

fn every_tag() -> Vec<Tag> {
    vec![Tag::Fast, Tag::Cheap, Tag::Good]
}

#[derive(Debug, ElicitForm)]
struct Pick {
    #[form(max_items = 2, default = every_tag())]
    tags: Vec<Tag>,
}

#[derive(Debug, ElicitForm)]
struct PickOne {
    #[form(min_items = 1, default = BTreeSet::default())]
    tags: BTreeSet<Tag>,
}

/// A duplicate the derive does not look for: the multi-select refuses it like an answer.
#[derive(Debug, ElicitForm)]
struct PickTwice {
    #[form(default = vec![Tag::Fast, Tag::Fast])]
    tags: Vec<Tag>,
}

#[test]
fn selections_outside_their_item_counts() {
    refused::<Pick>(
        "form `Pick`, field `tags`: the field refuses its own `#[form(default = ...)]`: \
         expected an array of at most 2 distinct values among `Fast`, `Cheap`, `Good`, got 3 \
         items; pick a default the field accepts, or drop it",
    );
    refused::<PickOne>(
        "form `PickOne`, field `tags`: the field refuses its own `#[form(default = ...)]`: \
         expected an array of at least 1 distinct values among `Fast`, `Cheap`, `Good`, got 0 \
         items; pick a default the field accepts, or drop it",
    );
    refused::<PickTwice>(
        "form `PickTwice`, field `tags`: the field refuses its own `#[form(default = ...)]`: \
         expected an array of distinct values among `Fast`, `Cheap`, `Good`, got `Fast` twice; \
         pick a default the field accepts, or drop it",
    );
}

const TENTH: f32 = 0.1;

#[derive(Debug, ElicitForm)]
struct Narrow {
    #[form(maximum = 0.1, default = TENTH)]
    share: f32,
}

/// An `f32` goes on the wire as the shortest decimal that reads back as it, so a default at
/// a bound stays within the bound the schema shows, and comes back as the same `f32`.
#[test]
fn f32_default_at_its_bound() {
    let schema = serde_json::to_value(Narrow::requested_schema()).unwrap();
    assert_eq!(
        schema["properties"]["share"],
        json!({"type": "number", "maximum": 0.1, "default": 0.1})
    );
    let narrow = Narrow::from_content(&Map::new()).unwrap();
    assert_eq!(narrow.share, TENTH);
    assert_eq!(narrow.to_content()["share"], json!(0.1));
    let back = Narrow::from_content(&narrow.to_content()).unwrap();
    assert_eq!(back.share, TENTH);
}

#[derive(Debug, ElicitForm)]
struct Share {
    share: f32,
}

proptest::proptest! {
    /// Every finite `f32` comes back as itself through its shortest decimal on the wire.
    #[test]
    fn f32_round_trips(bits in proptest::prelude::any::<u32>()) {
        let share = f32::from_bits(bits);
        proptest::prop_assume!(share.is_finite());
        let back = Share::from_content(&Share { share }.to_content()).unwrap();
        proptest::prop_assert_eq!(back.share.to_bits(), share.to_bits());
    }
}
