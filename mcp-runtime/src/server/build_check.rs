//! What [`ServerBuilder::try_build`](super::ServerBuilder::try_build) refuses: the programming
//! errors a server's registrations can hold, each found at start-up instead of on a request.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use super::app_state::{AppState, StateType};
use super::param_headers::ParamHeader;
use crate::protocol::Tool;

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools, two prompts or two resources share a name or URI.
    Duplicate {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// The shared name.
        name: String,
    },
    /// A tool name is not 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
    InvalidToolName {
        /// The name.
        name: String,
    },
    /// A handler takes `State<T>` for a `T` no `.state(...)` registered.
    MissingState {
        /// The handler's name or URI.
        handler: String,
        /// The type it asks for, as the compiler spells it.
        type_name: &'static str,
    },
    /// A tool declares an `outputSchema` whose root is not an object: the protocol's
    /// `structuredContent` is a JSON object.
    OutputSchemaNotObject {
        /// The tool.
        tool: String,
    },
    /// A tool's `inputSchema` marks an argument with `x-mcp-header` in a way clients refuse
    /// (they would drop the tool from their lists).
    HeaderMark {
        /// The tool.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// [`tool_scopes`](super::ServerBuilder::tool_scopes) names a tool never registered, gives
    /// a scope that is not a scope token, or has no
    /// [`oauth`](super::ServerBuilder::oauth) to enforce it.
    ToolScopes {
        /// The tool named.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// [`expose_header`](super::ServerBuilder::expose_header) names something that is not an
    /// HTTP header name.
    HeaderName {
        /// The name given.
        name: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Duplicate { kind, name } => write!(f, "two {kind}s are named `{name}`"),
            Self::InvalidToolName { name } => write!(
                f,
                "tool name `{name}` must be 1 to 128 characters of `A-Z a-z 0-9 _ - .`"
            ),
            Self::MissingState { handler, type_name } => write!(
                f,
                "`{handler}` takes `State<{type_name}>`, but no value of that type is \
                 registered; add `.state(value)` with a `{type_name}` to the server builder"
            ),
            Self::OutputSchemaNotObject { tool } => write!(
                f,
                "tool `{tool}` returns structured content whose JSON Schema is not an object; \
                 wrap the value in a struct so that `structuredContent` is a JSON object"
            ),
            Self::HeaderMark { tool, problem } => write!(f, "tool `{tool}`: {problem}"),
            Self::ToolScopes { tool, problem } => {
                write!(f, "`tool_scopes` of `{tool}`: {problem}")
            }
            Self::HeaderName { name } => write!(
                f,
                "`expose_header(\"{name}\")` is not an HTTP header name; write a name of \
                 letters, digits and `-`, such as `x-tenant`"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// Position of each name in `names`, refusing a name given twice.
pub(super) fn index_by_name<'a>(
    names: impl Iterator<Item = &'a str>,
    kind: &'static str,
) -> Result<HashMap<String, usize>, BuildError> {
    let mut index = HashMap::new();
    for (position, name) in names.enumerate() {
        if index.insert(name.to_owned(), position).is_some() {
            return Err(BuildError::Duplicate {
                kind,
                name: name.to_owned(),
            });
        }
    }
    Ok(index)
}

/// Whether `name` is a valid tool name: 1 to 128 characters of `A-Z a-z 0-9 _ - .`.
pub(crate) fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.'))
}

/// The `x-mcp-header` marks of a tool's arguments, refused as clients would refuse them.
pub(super) fn header_marks(tool: &Tool) -> Result<Vec<ParamHeader>, BuildError> {
    ParamHeader::all_of(&tool.input_schema).map_err(|problem| BuildError::HeaderMark {
        tool: tool.name.clone(),
        problem,
    })
}

/// A tool's name and output schema.
pub(super) fn check_tool(tool: &Tool) -> Result<(), BuildError> {
    if !valid_tool_name(&tool.name) {
        return Err(BuildError::InvalidToolName {
            name: tool.name.clone(),
        });
    }
    if let Some(schema) = &tool.output_schema
        && schema.get("type") != Some(&Value::from("object"))
    {
        return Err(BuildError::OutputSchemaNotObject {
            tool: tool.name.clone(),
        });
    }
    Ok(())
}

/// The state types `handler` asks for are all registered.
pub(super) fn check_state(
    state: &AppState,
    handler: &str,
    required: &[StateType],
) -> Result<(), BuildError> {
    match required.iter().find(|required| !state.has(required)) {
        Some(missing) => Err(BuildError::MissingState {
            handler: handler.to_owned(),
            type_name: missing.name(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_allowed_alphabet_and_length() {
        assert!(valid_tool_name("test_simple-text.v2"));
        assert!(valid_tool_name(&"a".repeat(128)));
        assert!(!valid_tool_name(&"a".repeat(129)));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name("slash/name"));
    }

    #[test]
    fn a_missing_state_type_is_named() {
        let error = check_state(
            &AppState::default(),
            "deploy",
            &[StateType::of::<Vec<u8>>()],
        )
        .expect_err("nothing is registered");
        let message = error.to_string();
        assert!(message.contains("State<alloc::vec::Vec<u8>>"), "{message}");
        assert!(message.contains("`deploy`"), "{message}");
    }

    #[test]
    fn output_schemas_must_describe_objects() {
        let mut tool = Tool {
            name: "list".to_owned(),
            ..Tool::default()
        };
        assert_eq!(check_tool(&tool), Ok(()));
        let array: Value = serde_json::json!({ "type": "array" });
        tool.output_schema = array.as_object().cloned();
        assert_eq!(
            check_tool(&tool),
            Err(BuildError::OutputSchemaNotObject {
                tool: "list".to_owned()
            })
        );
    }
}
