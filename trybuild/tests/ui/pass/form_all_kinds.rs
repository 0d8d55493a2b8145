//! Every field kind and attribute compiles, and the derived impls are usable.

use std::collections::BTreeSet;

use mcp_runtime::{ElicitChoice, ElicitForm};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "kebab-case")]
enum Region {
    EuWest,
    #[choice(title = "US East", rename = "us-east-1")]
    UsEast,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Tag {
    Fast,
    Cheap,
}

/// The form itself.
#[derive(Debug, ElicitForm)]
#[form(rename_all = "camelCase")]
struct Everything {
    /// Who you are.
    #[form(title = "Name", min_length = 1, max_length = 50, default = "anonymous")]
    user_name: String,
    #[form(format = "email", description = "Where we write")]
    email: Option<String>,
    #[form(format = "uri")]
    home_page: Option<String>,
    #[form(format = "date")]
    birthday: Option<String>,
    #[form(format = "date-time")]
    wake_up: Option<String>,
    #[form(minimum = -5, maximum = 5, default = 0)]
    offset: i8,
    small: u8,
    medium: i16,
    plain: u16,
    #[form(rename = "count")]
    counter: i32,
    big: u32,
    bigger: i64,
    biggest: u64,
    pointer: isize,
    size: usize,
    #[form(minimum = 0.5, maximum = 2)]
    ratio: f64,
    single: f32,
    #[form(default = true)]
    accept: bool,
    #[form(default = Region::EuWest)]
    region: Region,
    backup_region: Option<Region>,
    #[form(min_items = 1, max_items = 2, default = vec![Tag::Fast])]
    tags: Vec<Tag>,
    regions: Option<BTreeSet<Region>>,
    r#type: Option<String>,
}

#[derive(ElicitForm)]
struct Empty {}

#[derive(ElicitForm)]
struct Unit;

fn main() {
    let schema = Everything::requested_schema();
    assert_eq!(schema.properties.len(), 23);
    assert!(Empty::requested_schema().properties.is_empty());
    assert!(Unit::from_content(&Default::default()).is_ok());
    assert_eq!(Region::UsEast.to_wire(), "us-east-1");
}
