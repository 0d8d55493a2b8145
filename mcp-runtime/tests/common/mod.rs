//! Shared test support: validation against the vendored 2026-07-28 JSON Schema.
//!
//! Use it from any integration test of this crate with `mod common;`, then call
//! [`schema_validate`] with the name of a `$defs` entry and the JSON value under test.
//! The schema is compiled once per test process (every `$defs` entry up front), with format
//! assertions on, so `"format": "uri"` and friends are checked too.

#![allow(
    dead_code,
    reason = "each test binary uses a different subset of these helpers"
)]
#![allow(
    unreachable_pub,
    reason = "shared through `mod common;` by several test binaries"
)]

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

/// Location of the vendored schema, relative to this crate.
pub const SCHEMA_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../spec/2026-07-28/schema.json"
);

/// Folder holding `examples/<TypeName>/*.json` for the vendored revision.
pub const EXAMPLES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/2026-07-28/examples");

const SCHEMA_URL: &str = "https://modelcontextprotocol.invalid/2026-07-28/schema.json";

struct Compiled {
    schemas: boon::Schemas,
    defs: HashMap<String, boon::SchemaIndex>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let text = std::fs::read_to_string(SCHEMA_PATH)
            .unwrap_or_else(|err| panic!("cannot read the vendored schema: {err}"));
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
                .unwrap_or_else(|err| panic!("`$defs/{name}` does not compile: {err:?}"));
            defs.insert(name, index);
        }
        Compiled { schemas, defs }
    })
}

/// Whether `value` is valid against `#/$defs/<def>`; `Err` carries the validator's report.
///
/// Panics if the schema has no `$defs` entry called `def`.
pub fn schema_check(def: &str, value: &Value) -> Result<(), String> {
    let compiled = compiled();
    let index = *compiled
        .defs
        .get(def)
        .unwrap_or_else(|| panic!("the schema has no `$defs/{def}`"));
    compiled
        .schemas
        .validate(value, index)
        .map_err(|err| format!("{err:#}"))
}

/// Asserts that `value` is valid against `#/$defs/<def>` of the vendored schema, panicking
/// with the validator's full report (and the value) otherwise.
pub fn schema_validate(def: &str, value: &Value) {
    if let Err(report) = schema_check(def, value) {
        panic!(
            "value does not validate against `$defs/{def}`:\n{report}\nvalue: {}",
            serde_json::to_string_pretty(value).unwrap_or_default()
        );
    }
}

/// Every `(directory name, file name, parsed JSON)` under the examples folder, sorted.
pub fn examples() -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(EXAMPLES_DIR)
        .expect("the examples folder exists")
        .map(|entry| entry.expect("readable examples entry").path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let dir_name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("readable example folder")
            .map(|entry| entry.expect("readable example file").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable example");
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: not JSON: {err}", file.display()));
            let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
            out.push((dir_name.clone(), file_name, value));
        }
    }
    out
}
