//! Shared test support: validation against the vendored JSON Schemas of 2026-07-28 and of the
//! legacy revision 2025-11-25.
//!
//! Use it from any integration test of this crate with `mod common;`, then call
//! [`schema_validate`] (2026-07-28) or [`legacy_schema_validate`] (2025-11-25) with the name
//! of a `$defs` entry and the JSON value under test. Each schema is compiled once per test
//! process (every `$defs` entry up front), with format assertions on, so `"format": "uri"` and
//! friends are checked too.

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

/// Location of the vendored schema of the legacy revision 2025-11-25.
pub const LEGACY_SCHEMA_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../spec/2025-11-25/schema.json"
);

/// Folder holding `examples/<TypeName>/*.json` for the vendored revision.
pub const EXAMPLES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/2026-07-28/examples");

const SCHEMA_URL: &str = "https://modelcontextprotocol.invalid/2026-07-28/schema.json";
const LEGACY_SCHEMA_URL: &str = "https://modelcontextprotocol.invalid/2025-11-25/schema.json";

struct Compiled {
    schemas: boon::Schemas,
    defs: HashMap<String, boon::SchemaIndex>,
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| compile(SCHEMA_PATH, SCHEMA_URL))
}

fn legacy_compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| compile(LEGACY_SCHEMA_PATH, LEGACY_SCHEMA_URL))
}

fn compile(path: &str, url: &str) -> Compiled {
    let text = std::fs::read_to_string(path)
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
        .add_resource(url, schema)
        .expect("the schema is a valid resource");
    let mut schemas = boon::Schemas::new();
    let mut defs = HashMap::new();
    for name in names {
        let location = format!("{url}#/$defs/{name}");
        let index = compiler
            .compile(&location, &mut schemas)
            .unwrap_or_else(|err| panic!("`$defs/{name}` does not compile: {err:?}"));
        defs.insert(name, index);
    }
    Compiled { schemas, defs }
}

/// Whether `value` is valid against `#/$defs/<def>`; `Err` carries the validator's report.
///
/// Panics if the schema has no `$defs` entry called `def`.
pub fn schema_check(def: &str, value: &Value) -> Result<(), String> {
    check(compiled(), def, value)
}

/// [`schema_check`] against the legacy revision 2025-11-25.
pub fn legacy_schema_check(def: &str, value: &Value) -> Result<(), String> {
    check(legacy_compiled(), def, value)
}

fn check(compiled: &Compiled, def: &str, value: &Value) -> Result<(), String> {
    let index = *compiled
        .defs
        .get(def)
        .unwrap_or_else(|| panic!("the schema has no `$defs/{def}`"));
    compiled
        .schemas
        .validate(value, index)
        .map_err(|err| format!("{err:#}"))
}

/// Whether `value` is valid against `schema`, a JSON Schema of its own (a tool's
/// `outputSchema`, say), compiled with format assertions on.
pub fn check_against(schema: &Value, value: &Value) -> Result<(), String> {
    const URL: &str = "https://schemas.invalid/under-test.json";
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource(URL, schema.clone())
        .map_err(|err| format!("the schema is no resource: {err:?}"))?;
    let mut schemas = boon::Schemas::new();
    let index = compiler
        .compile(URL, &mut schemas)
        .map_err(|err| format!("the schema does not compile: {err:?}"))?;
    schemas
        .validate(value, index)
        .map_err(|err| format!("{err:#}"))
}

/// Asserts that `value` is valid against `#/$defs/<def>` of the vendored schema, panicking
/// with the validator's full report (and the value) otherwise.
pub fn schema_validate(def: &str, value: &Value) {
    report(def, value, schema_check(def, value));
}

/// [`schema_validate`] against the legacy revision 2025-11-25.
pub fn legacy_schema_validate(def: &str, value: &Value) {
    report(def, value, legacy_schema_check(def, value));
}

fn report(def: &str, value: &Value, checked: Result<(), String>) {
    if let Err(report) = checked {
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
