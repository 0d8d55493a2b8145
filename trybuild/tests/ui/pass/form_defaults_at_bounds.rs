//! Literal defaults at the edges of their field's constraints compile, and the runtime,
//! which checks every default again when it builds the schema and when a default fills an
//! absent answer, accepts each of them too: the derive and the runtime agree.

use std::collections::BTreeSet;

use mcp_runtime::{ElicitChoice, ElicitForm};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Tag {
    Fast,
    Cheap,
    Good,
}

#[derive(Debug, ElicitForm)]
struct Edges {
    #[form(minimum = 1, maximum = 12, default = 1)]
    at_minimum: u32,
    #[form(minimum = 1, maximum = 12, default = 12)]
    at_maximum: u32,
    #[form(minimum = -5, maximum = 5, default = -5)]
    negative_minimum: i8,
    #[form(maximum = 255, default = 255u8)]
    suffixed: u8,
    #[form(minimum = 0.5, maximum = 2, default = 2.0)]
    float_at_maximum: f64,
    #[form(minimum = -0.5, default = -0.5)]
    float_at_minimum: Option<f64>,
    #[form(maximum = 0.1, default = 0.1)]
    narrow_at_maximum: f32,
    #[form(min_length = 3, max_length = 8, default = "abc")]
    at_min_length: String,
    #[form(max_length = 8, default = "kubectl!")]
    at_max_length: String,
    /// Five characters in seven bytes: lengths count characters.
    #[form(max_length = 5, default = "héllö")]
    characters_not_bytes: String,
    #[form(max_length = 4, default = String::from("four"))]
    string_from: String,
    #[form(format = "email", default = "first.last+tag@example.com")]
    email: String,
    #[form(format = "email", default = "\"quoted name\"@[192.0.2.1]".to_owned())]
    odd_email: Option<String>,
    #[form(format = "uri", default = "https://example.com/a?b=c#d")]
    uri: String,
    #[form(format = "uri", default = "urn:isbn:0451450523")]
    urn: String,
    #[form(format = "date", default = "2024-02-29")]
    leap_day: String,
    #[form(format = "date-time", default = "2026-07-28T23:59:60.5+02:00")]
    leap_second: String,
    #[form(format = "date-time", max_length = 20, default = "2026-07-28t09:30:00z")]
    lowercase: String,
    #[form(min_items = 1, max_items = 2, default = vec![Tag::Fast, Tag::Cheap])]
    at_max_items: Vec<Tag>,
    #[form(min_items = 1, default = vec![Tag::Good])]
    at_min_items: Vec<Tag>,
    #[form(max_items = 0, default = Vec::new())]
    empty: Vec<Tag>,
    #[form(min_items = 0, max_items = 3, default = Vec::from([Tag::Good, Tag::Fast, Tag::Cheap]))]
    from_array: Vec<Tag>,
    #[form(max_items = 1, default = BTreeSet::new())]
    empty_set: BTreeSet<Tag>,
}

fn main() {
    let schema = Edges::requested_schema();
    assert_eq!(schema.properties.len(), 23);
    let edges = Edges::from_content(&Default::default()).unwrap();
    assert_eq!((edges.at_minimum, edges.at_maximum), (1, 12));
    assert_eq!(edges.narrow_at_maximum, 0.1);
    assert_eq!(edges.characters_not_bytes, "héllö");
    assert_eq!(edges.at_max_items, [Tag::Fast, Tag::Cheap]);
    assert_eq!(edges.float_at_minimum, None);
}
