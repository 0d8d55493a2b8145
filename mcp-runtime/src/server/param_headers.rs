//! `x-mcp-header`: tool arguments that clients mirror as `Mcp-Param-{Name}` headers on
//! 2026-07-28 `tools/call` requests over HTTP, so that intermediaries can route on them.
//!
//! A tool marks an argument with the keyword in its `inputSchema` property; with a schemars
//! arguments struct, `#[schemars(extend("x-mcp-header" = "Region"))]` on the field. The
//! server reads the marks once, at build, and refuses a tool whose marks clients would refuse
//! (see [`ParamHeader::all_of`]). On each call, an argument a mark names that has a value
//! needs its header, equal to the value once decoded; an argument without one (absent or
//! `null`) needs none.

use axum::http::HeaderMap;
use serde_json::{Map, Value};

use super::error::RpcError;
use super::headers::{decode, mismatch, single};
use crate::logfield::untrusted;

/// The keyword marking an argument.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// What type of value a marked argument holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Integer,
    Boolean,
}

/// One marked argument of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    /// The header, `Mcp-Param-{Name}` as the mark spells it.
    header: String,
    /// The chain of `properties` keys from the schema's root to the argument.
    path: Vec<String>,
    kind: Kind,
}

impl ParamHeader {
    /// Every mark of `input_schema`, or why the tool cannot carry them: a name that is empty
    /// or not an HTTP token, two names equal but for case, a mark on a property that is not a
    /// string, integer or boolean, or a mark not reachable from the root through `properties`
    /// alone (under `items`, `anyOf`, `$ref` and the like).
    pub(crate) fn all_of(input_schema: &Map<String, Value>) -> Result<Vec<Self>, String> {
        let mut found = Vec::new();
        collect(input_schema, &mut Vec::new(), &mut found)?;
        let total: usize = input_schema.values().map(count_marks).sum::<usize>()
            + usize::from(input_schema.contains_key(KEYWORD));
        if total != found.len() {
            return Err(format!(
                "`{KEYWORD}` marks a property not reachable from the root through `properties` \
                 alone"
            ));
        }
        let mut names: Vec<String> = found
            .iter()
            .map(|mark| mark.header.to_ascii_lowercase())
            .collect();
        names.sort();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(format!(
                "two `{KEYWORD}` marks name the header `{}`",
                pair[0]
            ));
        }
        Ok(found)
    }

    /// Checks this mark's header against the call's arguments.
    fn check(
        &self,
        arguments: Option<&Map<String, Value>>,
        headers: &HeaderMap,
    ) -> Result<(), RpcError> {
        let header = single(headers, &self.header)?;
        match (
            self.argument(arguments).filter(|value| !value.is_null()),
            header,
        ) {
            (None, None) => Ok(()),
            (Some(_), None) => Err(mismatch(format!(
                "missing `{}` header: the arguments give `{}`",
                self.header,
                self.path.join(".")
            ))),
            (None, Some(_)) => Err(mismatch(format!(
                "the `{}` header gives a value the arguments do not",
                self.header
            ))),
            (Some(body), Some(text)) => {
                let text = decode(text)
                    .ok_or_else(|| mismatch(format!("malformed `{}` header", self.header)))?;
                if self.matches(body, &text) {
                    Ok(())
                } else {
                    Err(mismatch(format!(
                        "the `{}` header `{}` does not match the argument `{}`",
                        self.header,
                        untrusted(&text),
                        self.path.join(".")
                    )))
                }
            }
        }
    }

    /// The argument at this mark's path, if the call gives it.
    fn argument<'a>(&self, arguments: Option<&'a Map<String, Value>>) -> Option<&'a Value> {
        let (last, parents) = self.path.split_last()?;
        let mut object = arguments?;
        for key in parents {
            object = object.get(key)?.as_object()?;
        }
        object.get(last)
    }

    /// Whether a header's decoded `text` stands for the argument `body`: the same string, the
    /// same number (`42.0` is `42`), or `true`/`false`.
    fn matches(&self, body: &Value, text: &str) -> bool {
        match (self.kind, body) {
            (Kind::String, Value::String(body)) => body == text,
            (Kind::Integer, Value::Number(body)) => text
                .parse::<f64>()
                .ok()
                .zip(body.as_f64())
                .is_some_and(|(header, body)| header == body),
            (Kind::Boolean, Value::Bool(body)) => text == if *body { "true" } else { "false" },
            // An argument of another type than its schema's: no header stands for it.
            _ => false,
        }
    }
}

/// Checks every mark of a tool against a `tools/call`'s arguments and headers.
pub(crate) fn check_all(
    marks: &[ParamHeader],
    arguments: Option<&Map<String, Value>>,
    headers: &HeaderMap,
) -> Result<(), RpcError> {
    marks
        .iter()
        .try_for_each(|mark| mark.check(arguments, headers))
}

/// The marks reachable from `schema` through `properties`, at `path`.
fn collect(
    schema: &Map<String, Value>,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Ok(());
    };
    for (key, property) in properties {
        let Value::Object(property) = property else {
            continue;
        };
        path.push(key.clone());
        if let Some(name) = property.get(KEYWORD) {
            found.push(mark(name, property, path)?);
        }
        collect(property, path, found)?;
        path.pop();
    }
    Ok(())
}

fn mark(
    name: &Value,
    property: &Map<String, Value>,
    path: &[String],
) -> Result<ParamHeader, String> {
    let at = path.join(".");
    let Value::String(name) = name else {
        return Err(format!("`{KEYWORD}` of `{at}` must be a string"));
    };
    let token = |byte: u8| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(format!(
            "`{KEYWORD}` of `{at}` must be an HTTP token (letters, digits and `!#$%&'*+-.^_`|~`), \
             not `{name}`"
        ));
    }
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut kinds = types.into_iter().filter(|kind| *kind != "null");
    let kind = match (kinds.next(), kinds.next()) {
        (Some("string"), None) => Kind::String,
        (Some("integer"), None) => Kind::Integer,
        (Some("boolean"), None) => Kind::Boolean,
        _ => {
            return Err(format!(
                "`{KEYWORD}` of `{at}` marks a property that is not a string, an integer or a \
                 boolean"
            ));
        }
    };
    Ok(ParamHeader {
        header: format!("Mcp-Param-{name}"),
        path: path.to_vec(),
        kind,
    })
}

/// How many marks `value` holds anywhere.
fn count_marks(value: &Value) -> usize {
    match value {
        Value::Object(object) => {
            usize::from(object.contains_key(KEYWORD))
                + object.values().map(count_marks).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_marks).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use serde_json::json;

    use super::*;

    fn schema(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn marks(value: Value) -> Result<Vec<ParamHeader>, String> {
        ParamHeader::all_of(&schema(value))
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn marks_are_found_through_properties_and_checked() {
        let found = marks(json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
                "shard": {"type": "integer", "minimum": 0, "maximum": 64, "x-mcp-header": "Shard"},
                "options": {"type": "object", "properties": {
                    "dry": {"type": ["boolean", "null"], "x-mcp-header": "Dry-Run"},
                }},
            },
        }))
        .unwrap();
        let found: Vec<_> = found
            .iter()
            .map(|mark| (mark.header.as_str(), mark.kind))
            .collect();
        assert_eq!(
            found,
            [
                ("Mcp-Param-Dry-Run", Kind::Boolean),
                ("Mcp-Param-Region", Kind::String),
                ("Mcp-Param-Shard", Kind::Integer),
            ]
        );
    }

    #[test]
    fn marks_clients_would_refuse_are_refused() {
        for (bad, says) in [
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                "HTTP token",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                "HTTP token",
            ),
            (
                json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                "not a string",
            ),
            (
                json!({"properties": {
                    "a": {"type": "string", "x-mcp-header": "Name"},
                    "b": {"type": "string", "x-mcp-header": "NAME"},
                }}),
                "two",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "not reachable",
            ),
            (
                json!({"properties": {"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}}),
                "not reachable",
            ),
            (
                json!({"$defs": {"x": {"type": "string", "x-mcp-header": "A"}}, "properties": {}}),
                "not reachable",
            ),
        ] {
            let error = marks(bad.clone()).unwrap_err();
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn calls_must_carry_each_marked_value_as_it_is_in_the_body() {
        let found = marks(json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "shard": {"type": "integer", "minimum": 0, "maximum": 64, "x-mcp-header": "Shard"},
            "dry": {"type": "boolean", "x-mcp-header": "Dry"},
        }}))
        .unwrap();
        let arguments = schema(json!({"region": "Hello, 世界", "shard": 42, "dry": false}));
        let good = headers(&[
            ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("MCP-PARAM-SHARD", "42.0"),
            ("mcp-param-dry", "false"),
        ]);
        assert!(check_all(&found, Some(&arguments), &good).is_ok());
        let refused = |pairs: &[(&'static str, &str)], arguments: &Map<String, Value>| {
            let error = check_all(&found, Some(arguments), &headers(pairs)).unwrap_err();
            (error.code(), error.status)
        };
        // A value missing from the headers, or not the body's.
        assert_eq!(
            refused(
                &[("mcp-param-shard", "42"), ("mcp-param-dry", "false")],
                &arguments
            ),
            (-32020, 400)
        );
        assert_eq!(
            refused(
                &[
                    ("mcp-param-region", "Hello"),
                    ("mcp-param-shard", "42"),
                    ("mcp-param-dry", "false"),
                ],
                &arguments
            ),
            (-32020, 400)
        );
        assert_eq!(
            refused(
                &[
                    ("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
                    ("mcp-param-shard", "41"),
                    ("mcp-param-dry", "False"),
                ],
                &arguments
            ),
            (-32020, 400)
        );
        // Absent or null arguments need no header, and may not have one.
        let sparse = schema(json!({"region": null}));
        assert!(check_all(&found, Some(&sparse), &HeaderMap::new()).is_ok());
        assert!(check_all(&found, None, &HeaderMap::new()).is_ok());
        assert_eq!(
            refused(&[("mcp-param-region", "x")], &sparse),
            (-32020, 400)
        );
    }
}
