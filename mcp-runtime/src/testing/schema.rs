//! Every structured result a tester sees is checked against the tool's declared
//! `outputSchema`, so a schema that drifts from the results fails the user's own tests.

use serde_json::Value;

use crate::server::Server;

/// Checks the `structuredContent` of `result`, a completed call of the tool `name` on
/// `server`, against the tool's `outputSchema` (with format assertions on).
///
/// # Panics
///
/// When the content does not validate, or a tool declaring an output schema completes
/// without structured content (and without `isError`): the protocol requires it.
pub(super) fn check_structured(server: &Server, name: &str, result: &Value) {
    let snapshot = server.inner.registry.snapshot();
    let Some(handler) = snapshot
        .tool_index
        .get(name)
        .map(|&index| &snapshot.tools[index])
    else {
        return;
    };
    let Some(schema) = handler.definition().output_schema else {
        return;
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return;
    }
    let Some(content) = result.get("structuredContent") else {
        panic!(
            "the tool `{name}` declares an `outputSchema` but its result has no \
             `structuredContent`: {result}"
        );
    };
    if let Err(report) = validate(&Value::Object(schema), content) {
        panic!(
            "the `structuredContent` of the tool `{name}` does not match its `outputSchema`:\n\
             {report}\nstructuredContent: {content}"
        );
    }
}

fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    const URL: &str = "urn:mcp-runtime:output-schema";
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource(URL, schema.clone())
        .map_err(|error| format!("the schema is no JSON Schema: {error}"))?;
    let mut schemas = boon::Schemas::new();
    let index = compiler
        .compile(URL, &mut schemas)
        .map_err(|error| format!("the schema does not compile: {error}"))?;
    schemas
        .validate(value, index)
        .map_err(|error| format!("{error:#}"))
}
