//! `#[choice(enum_names)]` compiles beside the other choice attributes, and a form field of
//! such a choice is written in the legacy `enum` + `enumNames` shape.

use mcp_runtime::protocol::PrimitiveSchema;
use mcp_runtime::{ElicitChoice, ElicitForm};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(enum_names, rename_all = "lowercase")]
enum Legacy {
    #[choice(title = "Option One")]
    Opt1,
    #[choice(rename = "two")]
    Opt2,
}

#[derive(Debug, ElicitForm)]
struct Form {
    #[form(default = Legacy::Opt1)]
    single: Legacy,
    optional: Option<Legacy>,
    multi: Vec<Legacy>,
}

fn main() {
    const { assert!(Legacy::ENUM_NAMES) };
    let schema = Form::requested_schema();
    assert!(matches!(
        schema.property("single"),
        Some(PrimitiveSchema::LegacyTitled(_))
    ));
    assert!(matches!(
        schema.property("optional"),
        Some(PrimitiveSchema::LegacyTitled(_))
    ));
    assert!(matches!(
        schema.property("multi"),
        Some(PrimitiveSchema::TitledMultiSelect(_))
    ));
}
