//! The JSON Schema of a choice enum, as `schemars` sees it: the `JsonSchema` that
//! `#[derive(ElicitChoice)]` implements, so a result holding the enum lists in its tool's
//! `outputSchema` exactly the wire values it is written as.

use super::ElicitChoice;

/// `{"type": "string", "enum": [<wire values>]}`, with `oneOf` titled alternatives when any
/// variant has a title.
pub fn choice_schema<T: ElicitChoice>() -> schemars::Schema {
    let wires: Vec<&str> = T::CHOICES.iter().map(|choice| choice.wire).collect();
    let mut schema = schemars::json_schema!({"type": "string", "enum": wires});
    if T::CHOICES.iter().any(|choice| choice.title.is_some()) {
        let one_of: Vec<serde_json::Value> = T::CHOICES
            .iter()
            .map(|choice| match choice.title {
                Some(title) => serde_json::json!({"const": choice.wire, "title": title}),
                None => serde_json::json!({"const": choice.wire}),
            })
            .collect();
        schema.insert("oneOf".to_owned(), one_of.into());
    }
    schema
}
