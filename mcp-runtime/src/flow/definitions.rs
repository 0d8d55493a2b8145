//! What `tools/list`, `prompts/list` and the resource lists show of a handler, and URI
//! template matching.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde_json::Value;

use crate::protocol::{
    Annotations, Icon, JsonObject, Prompt, PromptArgument, Resource, ResourceTemplate, Tool,
    ToolAnnotations,
};
use crate::server::ResourceDefinition;

/// What a handler's attribute says of its presentation beside its name and description:
/// annotations (`A`: none for prompts), icons, and `_meta` as JSON the macro has checked.
#[doc(hidden)]
pub struct Presentation<A = ()> {
    pub annotations: Option<A>,
    pub icons: Option<Vec<Icon>>,
    pub meta: Option<&'static str>,
}

impl<A> Presentation<A> {
    fn meta(&self) -> Option<JsonObject> {
        // The macro accepted only a JSON object here.
        self.meta.and_then(|meta| serde_json::from_str(meta).ok())
    }
}

/// A handler's definition, built the first time it is listed and cloned after.
///
/// Each handler has one, in a `static`. Its `get`s are written per definition type, not per
/// handler, so they are compiled once, here.
#[doc(hidden)]
pub struct Cached<T>(OnceLock<T>);

impl<T> Cached<T> {
    #[allow(clippy::new_without_default)] // only ever a `static`'s initialiser
    pub const fn new() -> Self {
        Self(OnceLock::new())
    }
}

fn cached<T: Clone>(cell: &OnceLock<T>, make: fn() -> T) -> T {
    cell.get_or_init(make).clone()
}

impl Cached<Tool> {
    pub fn get(&self, make: fn() -> Tool) -> Tool {
        cached(&self.0, make)
    }
}

impl Cached<Prompt> {
    pub fn get(&self, make: fn() -> Prompt) -> Prompt {
        cached(&self.0, make)
    }
}

impl Cached<ResourceDefinition> {
    pub fn get(&self, make: fn() -> ResourceDefinition) -> ResourceDefinition {
        cached(&self.0, make)
    }
}

/// The schema of a handler's arguments `A`: the one generic step of building its definition.
#[doc(hidden)]
pub fn arguments_schema<A: JsonSchema>() -> schemars::Schema {
    schemars::schema_for!(A)
}

/// The `Tool` of a `#[tool]` whose arguments' schema is `schema` ([`arguments_schema`]);
/// `output_schema` is its return type's
/// [`IntoToolResult::output_schema`](super::IntoToolResult::output_schema).
#[doc(hidden)]
pub fn tool_definition(
    schema: schemars::Schema,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    presentation: Presentation<ToolAnnotations>,
    output_schema: fn() -> Option<JsonObject>,
) -> Tool {
    let mut schema = match schema.to_value() {
        Value::Object(schema) => schema,
        _ => serde_json::Map::new(),
    };
    // The tool's own name and description say what `title` and `$schema` would.
    schema.remove("title");
    schema.insert("type".to_owned(), Value::from("object"));
    Tool {
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        input_schema: schema,
        output_schema: output_schema(),
        meta: presentation.meta(),
        annotations: presentation.annotations,
        icons: presentation.icons,
    }
}

/// The `Prompt` of a `#[prompt]` whose arguments' schema is `schema` ([`arguments_schema`]):
/// one argument per property.
#[doc(hidden)]
pub fn prompt_definition(
    schema: schemars::Schema,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    presentation: Presentation,
) -> Prompt {
    let schema = schema.to_value();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let arguments: Vec<PromptArgument> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| PromptArgument {
                    name: name.clone(),
                    title: property
                        .get("title")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    description: property
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    required: Some(required.contains(&name.as_str())),
                })
                .collect()
        })
        .unwrap_or_default();
    Prompt {
        name: name.to_owned(),
        title: title.map(str::to_owned),
        description: description.map(str::to_owned),
        arguments: (!arguments.is_empty()).then_some(arguments),
        meta: presentation.meta(),
        icons: presentation.icons,
    }
}

/// The resource, or the template when `uri` holds `{variables}`.
#[doc(hidden)]
pub fn resource_definition(
    uri: &str,
    name: &str,
    title: Option<&str>,
    description: Option<&str>,
    mime_type: Option<&str>,
    presentation: Presentation<Annotations>,
) -> ResourceDefinition {
    let meta = presentation.meta();
    let owned = |value: Option<&str>| value.map(str::to_owned);
    if uri.contains('{') {
        ResourceDefinition::Template(ResourceTemplate {
            uri_template: uri.to_owned(),
            name: name.to_owned(),
            title: owned(title),
            description: owned(description),
            mime_type: owned(mime_type),
            icons: presentation.icons,
            annotations: presentation.annotations,
            meta,
        })
    } else {
        ResourceDefinition::Resource(Resource {
            uri: uri.to_owned(),
            name: name.to_owned(),
            title: owned(title),
            description: owned(description),
            mime_type: owned(mime_type),
            icons: presentation.icons,
            annotations: presentation.annotations,
            meta,
            ..Resource::default()
        })
    }
}

/// Whether `uri` is the resource `template` names, or one its template matches.
#[doc(hidden)]
pub fn uri_matches(template: &str, uri: &str) -> bool {
    if template.contains('{') {
        template_variables(template, uri).is_some()
    } else {
        template == uri
    }
}

/// The values of the `{name}` variables of `template` in `uri` (simple string expansion of
/// RFC 6570: a value is a non-empty run of characters other than `/`, `?` and `#`).
pub(crate) fn template_variables(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let mut variables = Vec::new();
    let mut rest_template = template;
    let mut rest_uri = uri;
    while let Some(open) = rest_template.find('{') {
        let literal = &rest_template[..open];
        rest_uri = rest_uri.strip_prefix(literal)?;
        let close = rest_template[open..].find('}')? + open;
        let name = &rest_template[open + 1..close];
        rest_template = &rest_template[close + 1..];
        let next_literal = rest_template.split('{').next().unwrap_or("");
        let end = rest_uri.find(['/', '?', '#']).unwrap_or(rest_uri.len());
        let candidate = &rest_uri[..end];
        let value_end = if next_literal.is_empty() {
            candidate.len()
        } else {
            rest_uri[..].find(next_literal).filter(|&i| i <= end)?
        };
        let value = &rest_uri[..value_end];
        if value.is_empty() {
            return None;
        }
        variables.push((name.to_owned(), value.to_owned()));
        rest_uri = &rest_uri[value_end..];
    }
    (rest_uri == rest_template).then_some(variables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_and_extract_variables() {
        let template = "test://template/{id}/data";
        assert_eq!(
            template_variables(template, "test://template/42/data"),
            Some(vec![("id".to_owned(), "42".to_owned())])
        );
        assert!(uri_matches(template, "test://template/abc/data"));
        assert!(!uri_matches(template, "test://template//data"));
        assert!(!uri_matches(template, "test://template/1/2/data"));
        assert!(!uri_matches(template, "test://template/1/datax"));
        assert!(uri_matches("test://static", "test://static"));
        assert!(!uri_matches("test://static", "test://static2"));
        assert_eq!(
            template_variables("a://{x}-{y}", "a://1-2"),
            Some(vec![("x".into(), "1".into()), ("y".into(), "2".into())])
        );
    }
}
