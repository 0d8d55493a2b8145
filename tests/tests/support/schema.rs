//! Validation against the vendored 2026-07-28 JSON Schema, compiled once per test process.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

const SCHEMA_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../spec/2026-07-28/schema.json"
);

const SCHEMA_URL: &str = "https://modelcontextprotocol.invalid/2026-07-28/schema.json";

struct Compiled {
    schemas: boon::Schemas,
    defs: HashMap<String, boon::SchemaIndex>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let text = std::fs::read_to_string(SCHEMA_PATH)
            .unwrap_or_else(|error| panic!("cannot read the vendored schema: {error}"));
        let schema: Value = serde_json::from_str(&text).expect("the vendored schema is JSON");
        let names: Vec<String> = schema["$defs"]
            .as_object()
            .expect("the schema has `$defs`")
            .keys()
            .cloned()
            .collect();
        let mut compiler = boon::Compiler::new();
        compiler.enable_format_assertions();
        compiler
            .add_resource(SCHEMA_URL, schema)
            .expect("the schema is a valid resource");
        let mut schemas = boon::Schemas::new();
        let mut defs = HashMap::new();
        for name in names {
            let location = format!("{SCHEMA_URL}#/$defs/{name}");
            let index = compiler
                .compile(&location, &mut schemas)
                .unwrap_or_else(|error| panic!("`$defs/{name}` does not compile: {error:?}"));
            defs.insert(name, index);
        }
        Compiled { schemas, defs }
    })
}

/// Panics unless `value` is valid against `#/$defs/<def>`.
pub(crate) fn assert_valid(def: &str, value: &Value) {
    let compiled = compiled();
    let index = *compiled
        .defs
        .get(def)
        .unwrap_or_else(|| panic!("the schema has no `$defs/{def}`"));
    if let Err(error) = compiled.schemas.validate(value, index) {
        panic!("not a valid `{def}`: {error:#}\n{value:#}");
    }
}
