//! The form derives expand to absolute paths only: with the prelude's names shadowed at the
//! top level, warnings denied and clippy pedantic on, forms and choices still compile cleanly.

#![deny(warnings)]
#![warn(clippy::pedantic)]

use mcp_runtime::{ElicitChoice, ElicitForm};

#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Option;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Result;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct String;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Some;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct None;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Ok;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Err;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Vec;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Box;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Default;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct From;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Into;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Map;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Value;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct OnceLock;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Serialize;
#[allow(dead_code, reason = "only here to shadow the prelude")]
struct Deserialize;
#[allow(
    dead_code,
    non_camel_case_types,
    reason = "only here to shadow the primitive"
)]
struct str;

/// Where the service goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "lowercase")]
pub enum Environment {
    /// For trying things.
    Staging,
    /// The real thing.
    #[choice(title = "Production (live)")]
    Production,
}

/// A deployment target.
#[derive(Debug, PartialEq, ElicitForm)]
#[form(rename_all = "camelCase")]
pub struct Target {
    /// Where the service goes.
    #[form(default = Environment::Staging)]
    pub environment: Environment,
    /// How many copies run.
    #[form(minimum = 1, maximum = 12, default = 2)]
    pub replicas: u32,
    /// Why now.
    #[form(max_length = 200, default = "routine")]
    pub reason: ::core::option::Option<::std::string::String>,
    /// Who to tell.
    #[form(format = "email")]
    pub notify_email: ::core::option::Option<::std::string::String>,
    /// Where else.
    #[form(max_items = 2)]
    pub also: ::std::vec::Vec<Environment>,
    /// Share of traffic.
    #[form(minimum = 0.0, maximum = 1.0)]
    pub share: f64,
    /// Ship now.
    pub now: bool,
}

/// A form without fields.
#[derive(Debug, ElicitForm)]
pub struct Nothing {}

#[test]
fn shadowed_names_do_not_leak_into_the_expansion() {
    let schema = Target::requested_schema();
    assert_eq!(schema.properties.len(), 7);
    let content = serde_json::json!({
        "environment": "production",
        "replicas": 3,
        "notifyEmail": "ops@example.com",
        "also": ["staging"],
        "share": 0.25,
        "now": true,
    });
    let target = Target::from_content(content.as_object().expect("object")).expect("valid");
    assert_eq!(target.environment, Environment::Production);
    assert_eq!(target.reason, ::core::option::Option::None);
    assert_eq!(
        Target::from_content(&target.to_content()).expect("round trip"),
        target
    );
    assert_eq!(Environment::Production.to_wire(), "production");
    assert!(Nothing::from_content(&serde_json::Map::new()).is_ok());
    assert!(Nothing::requested_schema().properties.is_empty());
}
