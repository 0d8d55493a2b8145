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
    if let Some(violation) = violation(server, name, result) {
        panic!("{violation}");
    }
}

/// What is wrong with the `structuredContent` of `result`, a completed call of the tool
/// `name` on `server`, against the tool's `outputSchema`; `None` when nothing is.
pub(super) fn violation(server: &Server, name: &str, result: &Value) -> Option<String> {
    let snapshot = server.inner.registry.snapshot();
    let handler = snapshot
        .tool_index
        .get(name)
        .map(|&index| &snapshot.tools[index])?;
    let schema = handler.definition().output_schema?;
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let Some(content) = result.get("structuredContent") else {
        return Some(format!(
            "the tool `{name}` declares an `outputSchema` but its result has no \
             `structuredContent`: {result}"
        ));
    };
    validate(&Value::Object(schema), content)
        .err()
        .map(|report| {
            format!(
                "the `structuredContent` of the tool `{name}` does not match its `outputSchema`:\n\
             {report}\nstructuredContent: {content}"
            )
        })
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
