//! The `release` tool: a release that asks for approval, builds for a while with progress,
//! asks a final confirmation and finishes; served as a task of the tasks extension.

use std::time::Duration;

use mcp_runtime::server::{ServerBuilder, task};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

/// What to release.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ReleaseArgs {
    /// The version to release, such as `1.4.0`.
    pub version: String,
}

/// The approval asked before anything is built.
#[derive(Debug, ElicitForm)]
pub struct Approval {
    /// Approve the release?
    pub approve: bool,
}

/// The confirmation asked once the release is built.
#[derive(Debug, ElicitForm)]
pub struct Publish {
    /// Publish the built release?
    pub publish: bool,
}

/// How many build steps a release takes.
pub const STEPS: u32 = 5;

/// How long one build step takes.
pub const STEP: Duration = Duration::from_millis(400);

/// How long a round runs before the call becomes a task: the approval (asked at once) is an
/// ordinary round; the build, which takes longer, turns the call into a task.
pub const TASK_AFTER: Duration = Duration::from_millis(200);

/// Release a version: asks for approval, builds it (reporting each step), asks whether to
/// publish it, and publishes it.
#[tool(title = "Release a version")]
pub async fn release(args: ReleaseArgs, cx: Cx) -> ToolResult {
    let approval: Approval = cx
        .elicit(format!("Approve the release of {}?", args.version))
        .await?;
    if !approval.approve {
        return Ok(text("Release not approved; nothing was built."));
    }
    for step in 1..=STEPS {
        let message = format!("building {}: step {step} of {STEPS}", args.version);
        cx.report_progress(f64::from(step - 1), Some(f64::from(STEPS)), Some(message));
        tokio::time::sleep(STEP).await;
    }
    let publish: Publish = cx
        .elicit(format!("{} is built. Publish it?", args.version))
        .await?;
    if !publish.publish {
        return Ok(text(format!(
            "{} was built but not published.",
            args.version
        )));
    }
    Ok(text(format!("Released {}.", args.version)))
}

/// Registers `release` as a task tool that becomes a task after [`TASK_AFTER`].
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(task(release).after(TASK_AFTER))
}
