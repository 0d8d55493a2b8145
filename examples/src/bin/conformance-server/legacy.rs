//! The fixtures only the 2025-11-25 scenarios call: questions the server asks the client while
//! a call is open (sampling, elicitation with defaults and every enum shape), on legacy
//! sessions. On the 2026-07-28 wire the same tools ask through `input_required`.

use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};

use super::{question, sampled};

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct SamplingArgs {
    /// The prompt to send to the client's model.
    prompt: String,
}

/// Sends the given prompt to the client's model (`sampling/createMessage`, 100 tokens at
/// most) and returns its answer.
#[tool]
pub(crate) async fn test_sampling(args: SamplingArgs, cx: Cx) -> ToolResult {
    let reply = cx.sample(question(&args.prompt)).await;
    Ok(text(format!("LLM response: {}", sampled(&reply))))
}

#[derive(ElicitForm)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

/// Asks the user for a username and an email address with the given message, and returns
/// the answer.
#[tool]
pub(crate) async fn test_elicitation(args: ElicitationArgs, cx: Cx) -> ToolResult {
    let info: UserInfo = cx.elicit(args.message).await?;
    Ok(text(format!(
        "User response: action=accept, content={}",
        serde_json::to_string(&info).unwrap_or_default()
    )))
}

#[derive(Clone, Copy, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// A form whose every field has a default (SEP-1034); none is required.
#[derive(ElicitForm)]
struct WithDefaults {
    /// User name
    #[form(default = "John Doe")]
    name: Option<String>,
    /// User age
    #[form(default = 30)]
    age: Option<i64>,
    /// User score
    #[form(default = 95.5)]
    score: Option<f64>,
    /// User status
    #[form(default = Status::Active)]
    status: Option<Status>,
    /// Verification status
    #[form(default = true)]
    verified: Option<bool>,
}

/// Asks for a form whose string, integer, number, enum and boolean fields all have defaults.
#[tool]
pub(crate) async fn test_elicitation_sep1034_defaults(cx: Cx) -> ToolResult {
    let form: WithDefaults = cx
        .elicit("Please review and update the form fields with defaults")
        .await?;
    Ok(text(format!(
        "Elicitation completed: action=accept, content={}",
        serde_json::to_string(&form).unwrap_or_default()
    )))
}

#[derive(Clone, Copy, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Untitled {
    Option1,
    Option2,
    Option3,
}

#[derive(Clone, Copy, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum TitledOption {
    #[choice(title = "First Option")]
    Value1,
    #[choice(title = "Second Option")]
    Value2,
    #[choice(title = "Third Option")]
    Value3,
}

/// Offered in the legacy `enum` + `enumNames` shape (`LegacyTitledEnumSchema`).
#[derive(Clone, Copy, ElicitChoice)]
#[choice(rename_all = "lowercase", enum_names)]
enum Legacy {
    #[choice(title = "Option One")]
    Opt1,
    #[choice(title = "Option Two")]
    Opt2,
    #[choice(title = "Option Three")]
    Opt3,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum TitledChoice {
    #[choice(title = "First Choice")]
    Value1,
    #[choice(title = "Second Choice")]
    Value2,
    #[choice(title = "Third Choice")]
    Value3,
}

/// The enum shapes of SEP-1330; none is required.
#[derive(ElicitForm)]
#[form(rename_all = "camelCase")]
struct EnumShapes {
    /// Select one option
    untitled_single: Option<Untitled>,
    /// Select one option with titles
    titled_single: Option<TitledOption>,
    /// Select one option (legacy)
    legacy_enum: Option<Legacy>,
    /// Select multiple options
    #[form(min_items = 1, max_items = 3)]
    untitled_multi: Option<Vec<Untitled>>,
    /// Select multiple options with titles
    #[form(min_items = 1, max_items = 3)]
    titled_multi: Option<Vec<TitledChoice>>,
}

/// Asks for a form with untitled, titled and legacy single-selects and untitled and titled
/// multi-selects.
#[tool]
pub(crate) async fn test_elicitation_sep1330_enums(cx: Cx) -> ToolResult {
    let form: EnumShapes = cx
        .elicit("Please select options from the enum fields")
        .await?;
    Ok(text(format!(
        "Elicitation completed: action=accept, content={}",
        serde_json::to_string(&form).unwrap_or_default()
    )))
}
