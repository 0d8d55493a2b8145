//! The contents the explorer tries in a form, drawn from its `requestedSchema` as it goes on
//! the wire.
//!
//! Choice and boolean fields (and an optional field's absence) decide where a flow goes, so
//! they are combined in full, up to a cap. Every other field is varied one at a time around
//! the first combination: its default, its bounds and one value beyond each, a short string
//! and one at the maximum length, a valid value of its format and one that is not.

use mcp_formats::Format;
use serde_json::{Map, Value, json};

use super::combine::cover;

/// The longest string the explorer writes: a field allowing more is tried at this length,
/// and its maximum is not crossed.
const LONGEST: u64 = 4096;

/// A value a field is given in one content, or its absence (`None`).
#[derive(Debug, Clone)]
struct Tried {
    value: Option<Value>,
    /// Whether the server must accept it; when not, it must ask again.
    valid: bool,
}

impl Tried {
    fn valid(value: Value) -> Self {
        Self {
            value: Some(value),
            valid: true,
        }
    }

    fn invalid(value: Value) -> Self {
        Self {
            value: Some(value),
            valid: false,
        }
    }

    fn absent() -> Self {
        Self {
            value: None,
            valid: true,
        }
    }
}

/// One field of a form, and what the explorer gives it.
struct Field {
    name: String,
    /// The values combined in full with the other fields' (choices, booleans).
    combined: Vec<Tried>,
    /// The value it has while other fields vary; `None` when a required field cannot be
    /// filled.
    base: Option<Tried>,
    /// The values tried one at a time around the first combination.
    varied: Vec<Tried>,
    has_default: bool,
}

/// One content of a form the explorer sends, and whether it must be accepted.
#[derive(Debug, Clone)]
pub(super) struct Content {
    pub(super) content: Value,
    pub(super) valid: bool,
}

/// The contents to try in the form `schema` (a `requestedSchema`), the combinations of its
/// choice and boolean fields capped at `cap`. Empty when a required field is of a kind the
/// explorer cannot fill.
pub(super) fn contents(schema: &Value, cap: usize) -> Vec<Content> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return vec![Content {
            content: json!({}),
            valid: true,
        }];
    };
    let fields: Vec<Field> = properties
        .iter()
        .map(|(name, field_schema)| field(name, field_schema, required.contains(&name.as_str())))
        .collect();
    if fields.iter().any(|field| field.base.is_none()) {
        return Vec::new();
    }
    let discrete: Vec<&Field> = fields
        .iter()
        .filter(|field| !field.combined.is_empty())
        .collect();
    let lists: Vec<Vec<Tried>> = discrete
        .iter()
        .map(|field| field.combined.clone())
        .collect();
    let combinations = cover(&lists, cap.max(1));
    let base = |field: &Field| field.base.clone().unwrap_or_else(Tried::absent);
    // The content with every field at its base, and the discrete ones at `row`.
    let at = |row: &[usize]| -> Vec<(&str, Tried)> {
        fields
            .iter()
            .map(|field| {
                let tried = discrete
                    .iter()
                    .position(|d| d.name == field.name)
                    .map_or_else(|| base(field), |i| lists[i][row[i]].clone());
                (field.name.as_str(), tried)
            })
            .collect()
    };
    let mut out: Vec<Content> = combinations.iter().map(|row| build(&at(row))).collect();
    let first = combinations.first().map(|row| at(row)).unwrap_or_default();
    for (index, field) in fields.iter().enumerate() {
        for tried in &field.varied {
            let mut values = first.clone();
            values[index].1 = tried.clone();
            out.push(build(&values));
        }
    }
    if fields.iter().any(|field| field.has_default) {
        let mut values = first;
        for (index, field) in fields.iter().enumerate() {
            if field.has_default {
                values[index].1 = Tried::absent();
            }
        }
        out.push(build(&values));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|content| seen.insert(content.content.to_string()));
    out
}

fn build(values: &[(&str, Tried)]) -> Content {
    let mut content = Map::new();
    let mut valid = true;
    for (name, tried) in values {
        valid &= tried.valid;
        if let Some(value) = &tried.value {
            content.insert((*name).to_owned(), value.clone());
        }
    }
    Content {
        content: Value::Object(content),
        valid,
    }
}

/// What the explorer gives the field `name` of schema `schema`.
fn field(name: &str, schema: &Value, required: bool) -> Field {
    let default = schema.get("default").cloned();
    let kind = schema.get("type").and_then(Value::as_str);
    let mut field = Field {
        name: name.to_owned(),
        combined: Vec::new(),
        base: None,
        varied: Vec::new(),
        has_default: default.is_some(),
    };
    let mut valid: Vec<Value> = Vec::new();
    let mut invalid: Vec<Value> = Vec::new();
    if let Some(choices) = choices(schema) {
        field.combined = choices.into_iter().map(Tried::valid).collect();
        field
            .varied
            .push(Tried::invalid(json!("not one of the choices")));
    } else if kind == Some("boolean") {
        field.combined = vec![Tried::valid(json!(true)), Tried::valid(json!(false))];
    } else {
        match kind {
            Some("integer" | "number") => numbers(schema, &mut valid, &mut invalid),
            Some("string") => strings(schema, &mut valid, &mut invalid),
            Some("array") => arrays(schema, &mut valid, &mut invalid),
            _ => {}
        }
    }
    if !field.combined.is_empty() {
        if !required {
            field.combined.push(Tried::absent());
        }
        field.base = default
            .map(Tried::valid)
            .or_else(|| field.combined.first().cloned());
        return field;
    }
    if let Some(default) = &default
        && !valid.contains(default)
    {
        valid.insert(0, default.clone());
    }
    field.base = match (required, default, valid.first()) {
        (false, _, _) => Some(Tried::absent()),
        (true, Some(default), _) => Some(Tried::valid(default)),
        (true, None, Some(first)) => Some(Tried::valid(first.clone())),
        (true, None, None) => None,
    };
    let base_value = field.base.as_ref().and_then(|base| base.value.clone());
    field.varied = valid
        .into_iter()
        .filter(|value| Some(value) != base_value.as_ref())
        .map(Tried::valid)
        .chain(invalid.into_iter().map(Tried::invalid))
        .collect();
    field
}

/// The values of a single-select field: its `enum`, or the `const` of each `oneOf`.
fn choices(schema: &Value) -> Option<Vec<Value>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    let options = schema.get("oneOf").and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|option| option.get("const").cloned())
            .collect(),
    )
}

/// A number as JSON: an integer where it is one that JSON numbers hold exactly.
fn number(value: f64, integer: bool) -> Value {
    if integer && value.fract() == 0.0 && value.abs() < 9.0e15 {
        // Exact: the value is an integer well inside the range of `i64`.
        #[allow(clippy::cast_possible_truncation, reason = "checked just above")]
        return json!(value as i64);
    }
    json!(value)
}

fn numbers(schema: &Value, valid: &mut Vec<Value>, invalid: &mut Vec<Value>) {
    let integer = schema.get("type").and_then(Value::as_str) == Some("integer");
    let bound = |name: &str| schema.get(name).and_then(Value::as_f64);
    let (minimum, maximum) = (bound("minimum"), bound("maximum"));
    match (minimum, maximum) {
        (None, None) => valid.push(number(0.0, integer)),
        _ => {
            valid.extend(minimum.map(|min| number(min, integer)));
            valid.extend(maximum.map(|max| number(max, integer)));
        }
    }
    invalid.extend(minimum.map(|min| number(min - 1.0, integer)));
    invalid.extend(maximum.map(|max| number(max + 1.0, integer)));
    valid.dedup();
}

/// A value of `format` padded to `length` characters, if the format allows one that long:
/// an e-mail address's local part (up to 64 characters) or a URI's path.
fn padded(format: Format, length: usize) -> Option<String> {
    let example = format.example();
    let pad = length.checked_sub(example.len())?;
    let text = match format {
        Format::Email => format!("{}{example}", "a".repeat(pad)),
        Format::Uri => format!("{example}{}", "a".repeat(pad)),
        Format::Date | Format::DateTime => return None,
    };
    format.matches(&text).then_some(text)
}

fn strings(schema: &Value, valid: &mut Vec<Value>, invalid: &mut Vec<Value>) {
    let length = |name: &str| schema.get(name).and_then(Value::as_u64);
    let min = length("minLength").unwrap_or(0);
    let max = length("maxLength");
    let fits = |text: &str| {
        let chars = text.chars().count() as u64;
        chars >= min && max.is_none_or(|max| chars <= max)
    };
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        if let Some(format) = Format::from_name(format) {
            let long = max
                .filter(|&max| max <= LONGEST)
                .and_then(|max| padded(format, usize::try_from(max).ok()?));
            let short = format.example().to_owned();
            valid.extend(
                std::iter::once(short)
                    .chain(long)
                    .filter(|text| fits(text))
                    .map(Value::from),
            );
        }
        invalid.push(json!("not a valid value"));
    } else {
        let text = |chars: u64| Value::from("a".repeat(usize::try_from(chars).unwrap_or(0)));
        let short = min.max(1).min(max.unwrap_or(u64::MAX));
        valid.push(text(short));
        if let Some(max) = max.filter(|&max| max <= LONGEST && max != short) {
            valid.push(text(max));
        }
        if min > 0 {
            invalid.push(text(min - 1));
        }
        if let Some(max) = max.filter(|&max| max < LONGEST) {
            invalid.push(text(max + 1));
        }
    }
    valid.dedup();
}

/// A multi-select field: one choice, every choice the field allows at once, none when that
/// is allowed, and a value that is no choice.
fn arrays(schema: &Value, valid: &mut Vec<Value>, invalid: &mut Vec<Value>) {
    let Some(items) = schema.get("items") else {
        return;
    };
    let options = items
        .get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| {
            items.get("anyOf").and_then(Value::as_array).map(|options| {
                options
                    .iter()
                    .filter_map(|option| option.get("const").cloned())
                    .collect()
            })
        })
        .unwrap_or_default();
    let count = |name: &str| {
        schema
            .get(name)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    let (min, max) = (count("minItems").unwrap_or(0), count("maxItems"));
    let allowed = |n: usize| n >= min && max.is_none_or(|max| n <= max);
    let first: Vec<Value> = options.iter().take(min.max(1)).cloned().collect();
    let most: Vec<Value> = options
        .iter()
        .take(max.unwrap_or(usize::MAX))
        .cloned()
        .collect();
    for chosen in [first, most, Vec::new()] {
        if allowed(chosen.len()) && chosen.len() <= options.len() {
            valid.push(Value::Array(chosen));
        }
    }
    valid.dedup();
    invalid.push(json!(["not one of the choices"]));
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::contents;

    fn tried(schema: &serde_json::Value) -> Vec<(String, bool)> {
        contents(schema, 16)
            .into_iter()
            .map(|content| (content.content.to_string(), content.valid))
            .collect()
    }

    /// Choices are combined in full; numbers vary alone around the first combination, with
    /// one value beyond each bound; the defaults are tried by leaving their fields out.
    #[test]
    fn choices_combine_and_bounds_vary_alone() {
        let schema = json!({
            "type": "object",
            "properties": {
                "env": {"type": "string", "enum": ["staging", "production"], "default": "staging"},
                "go": {"type": "boolean"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
            },
            "required": ["env", "go", "replicas"],
        });
        let tried = tried(&schema);
        let expected = [
            (r#"{"env":"staging","go":true,"replicas":2}"#, true),
            (r#"{"env":"production","go":false,"replicas":2}"#, true),
            (r#"{"env":"staging","go":false,"replicas":2}"#, true),
            (r#"{"env":"production","go":true,"replicas":2}"#, true),
            (
                r#"{"env":"not one of the choices","go":true,"replicas":2}"#,
                false,
            ),
            (r#"{"env":"staging","go":true,"replicas":1}"#, true),
            (r#"{"env":"staging","go":true,"replicas":12}"#, true),
            (r#"{"env":"staging","go":true,"replicas":0}"#, false),
            (r#"{"env":"staging","go":true,"replicas":13}"#, false),
            (r#"{"go":true}"#, true),
        ];
        let expected: Vec<(String, bool)> = expected
            .iter()
            .map(|(content, valid)| ((*content).to_owned(), *valid))
            .collect();
        assert_eq!(tried, expected);
    }

    /// An optional string is absent at first, then short, at its maximum length, and one
    /// character over it; a format gets a valid value and one that is not.
    #[test]
    fn strings_are_short_long_and_too_long() {
        let schema = json!({
            "type": "object",
            "properties": {
                "why": {"type": "string", "maxLength": 5},
                "mail": {"type": "string", "format": "email", "maxLength": 20},
            },
            "required": ["mail"],
        });
        let tried = tried(&schema);
        let with = |content: serde_json::Value, valid: bool| (content.to_string(), valid);
        assert_eq!(
            tried,
            [
                with(json!({"mail": "name@example.com"}), true),
                with(json!({"mail": "aaaaname@example.com"}), true),
                with(json!({"mail": "not a valid value"}), false),
                with(json!({"mail": "name@example.com", "why": "a"}), true),
                with(json!({"mail": "name@example.com", "why": "aaaaa"}), true),
                with(json!({"mail": "name@example.com", "why": "aaaaaa"}), false),
            ]
        );
    }

    /// A required field of a kind no form has cannot be filled: only refusals are tried.
    #[test]
    fn an_unfillable_form_gets_no_content() {
        let schema = json!({
            "type": "object",
            "properties": {"blob": {"type": "object"}},
            "required": ["blob"],
        });
        assert!(contents(&schema, 16).is_empty());
    }
}
