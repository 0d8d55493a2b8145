//! The `deploy` and `confirm_deploy` tools.

use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};
use serde::Deserialize;

/// Where a service can go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
pub enum Environment {
    /// The rehearsal stage.
    Staging,
    /// Real users.
    #[choice(title = "Production (live)")]
    Production,
}

/// The deployment target the user picks.
#[derive(Debug, ElicitForm)]
pub struct Target {
    /// Where the service goes.
    #[form(default = Environment::Staging)]
    pub environment: Environment,
    /// How many instances to run.
    #[form(minimum = 1, maximum = 12, default = 2)]
    pub replicas: u32,
    /// Why, for the change log.
    #[form(max_length = 200)]
    pub reason: Option<String>,
}

/// A yes-or-no confirmation.
#[derive(Debug, ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

/// The arguments of `deploy`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct DeployArgs {
    /// The service to deploy.
    pub service: String,
}

/// Deploy a service: asks where (and, for production, whether) before doing it.
#[tool]
pub async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult {
    let target: Target = cx
        .elicit(format!("Where should {} go?", args.service))
        .await?;
    if target.environment == Environment::Production {
        let confirm: Confirm = cx
            .elicit(format!(
                "Ship {} replicas of {} to production?",
                target.replicas, args.service
            ))
            .await?;
        if !confirm.ok {
            return Ok(text("Nothing deployed."));
        }
    }
    let reason = target
        .reason
        .map(|reason| format!(" ({reason})"))
        .unwrap_or_default();
    Ok(text(format!(
        "Deployed {} replicas of {} to {:?}{reason}.",
        target.replicas, args.service, target.environment
    )))
}

/// Confirm a production deployment: the classic minimal flow, one question.
#[tool]
pub async fn confirm_deploy(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Deploy to production?").await?;
    if confirm.ok {
        Ok(text("Deployment confirmed."))
    } else {
        Ok(text("Deployment not confirmed."))
    }
}
