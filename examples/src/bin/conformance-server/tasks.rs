//! The fixtures of the suite's tasks-extension scenarios (`io.modelcontextprotocol/tasks`):
//! `greet` stays an ordinary tool; the others run as tasks for clients that declare the
//! extension (`task(..)`), `failing_job` and `test_tool_with_task` only so (`.required()`).

use std::time::Duration;

use mcp_runtime::server::{ServerBuilder, task};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    name: String,
}

/// Greets, at once: never a task.
#[tool]
async fn greet(args: Name) -> ToolResult {
    Ok(text(format!("Hello, {}!", args.name)))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Compute {
    /// How long the computation takes.
    seconds: u64,
    /// A label the result repeats.
    #[serde(default)]
    label: Option<String>,
}

/// Sleeps `seconds`, then answers; a cancel drops the sleep.
#[tool]
async fn slow_compute(args: Compute) -> ToolResult {
    tokio::time::sleep(Duration::from_secs(args.seconds.min(300))).await;
    let label = args.label.unwrap_or_default();
    Ok(text(format!("Computed for {}s {label}", args.seconds)))
}

/// The error a job reports as its result.
#[derive(Debug)]
struct JobFailed;

impl std::fmt::Display for JobFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the job failed")
    }
}

impl std::error::Error for JobFailed {}

/// Works a second, then reports a tool execution error (`isError`).
#[tool]
async fn failing_job() -> ToolResult {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(JobFailed)?
}

/// Panics: a protocol-level error, so the task fails.
#[tool]
async fn protocol_error_job() -> ToolResult {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job broke down");
}

#[derive(ElicitForm)]
struct Confirm {
    /// Delete it?
    confirm: bool,
}

/// Asks once, then completes.
#[tool]
async fn confirm_delete(cx: Cx) -> ToolResult {
    let answer: Confirm = cx.elicit("Delete the file?").await?;
    Ok(text(if answer.confirm { "Deleted." } else { "Kept." }))
}

#[derive(ElicitForm)]
struct UserName {
    /// Your name.
    name: String,
}

/// Asks two names at once; the client may answer them one at a time.
#[tool]
async fn multi_input(cx: Cx) -> ToolResult {
    let (first, second) = (
        cx.elicit::<UserName>("First name?"),
        cx.elicit::<UserName>("Second name?"),
    )
        .await;
    Ok(text(format!("{} and {}", first?.name, second?.name)))
}

/// Asks a name as an ordinary round, then works long enough to become a task, whose result
/// names the user.
#[tool]
async fn test_tool_with_task(cx: Cx) -> ToolResult {
    let user_name: UserName = cx.elicit("What is your name?").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(text(format!("Hello, {}, from a task.", user_name.name)))
}

/// Registers the fixtures but `protocol_error_job`.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(greet)
        .tool(task(slow_compute))
        .tool(task(failing_job).required())
        .tool(task(confirm_delete))
        .tool(task(multi_input))
        .tool(
            task(test_tool_with_task)
                .after(Duration::from_millis(100))
                .required(),
        )
}

/// Registers `protocol_error_job`, which fails with an internal error on purpose: only in the
/// binary the suite runs against, not in the server the fuzz targets drive, whose oracle
/// holds that no input answers `-32603`.
pub(crate) fn register_failing(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(task(protocol_error_job))
}
