//! The `deploy`, `confirm_deploy` and `deployments` tools, and the registry of deployments
//! they share as application state.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use mcp_runtime::server::ServerBuilder;
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, Json, State, ToolResult, text, tool};
use serde::{Deserialize, Serialize};

/// Registers the tools of this module and the registry they share.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .state(Deployments::default())
        .tool(deploy)
        .tool(confirm_deploy)
        .tool(deployments)
}

/// The deployments made since the server started, newest last: the application state of
/// `deploy`. In memory, and bounded: the oldest records go first.
#[derive(Debug, Default)]
pub struct Deployments {
    records: Mutex<VecDeque<Deployment>>,
}

impl Deployments {
    /// How many records the registry keeps.
    pub const CAPACITY: usize = 1000;

    /// Stores a deployment and returns it as stored, with its number.
    pub fn record(
        &self,
        service: &str,
        environment: Environment,
        replicas: u32,
        reason: Option<String>,
    ) -> Deployment {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let number = records.back().map_or(1, |last| last.number + 1);
        let record = Deployment {
            number,
            service: service.to_owned(),
            environment: environment.to_wire().to_owned(),
            replicas,
            reason,
        };
        if records.len() == Self::CAPACITY {
            records.pop_front();
        }
        records.push_back(record.clone());
        record
    }

    /// The records, oldest first.
    pub fn list(&self) -> Vec<Deployment> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.iter().cloned().collect()
    }
}

/// One deployment, as the registry stores it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Deployment {
    /// Its number, counting from 1 since the server started.
    pub number: u64,
    /// The service deployed.
    pub service: String,
    /// `staging` or `production`.
    pub environment: String,
    /// How many instances run.
    pub replicas: u32,
    /// Why, for the change log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What `deployments` answers.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct DeploymentList {
    /// The deployments, oldest first.
    pub deployments: Vec<Deployment>,
}

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
#[tool(
    title = "Deploy a service",
    annotations(destructive = false, open_world = false)
)]
pub async fn deploy(args: DeployArgs, cx: Cx, State(registry): State<Deployments>) -> ToolResult {
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
    let stored = registry.record(
        &args.service,
        target.environment,
        target.replicas,
        target.reason,
    );
    // The answer is told from the record as stored.
    let reason = stored
        .reason
        .as_deref()
        .map(|reason| format!(" ({reason})"))
        .unwrap_or_default();
    Ok(text(format!(
        "Deployed {} replicas of {} to {:?}{reason}.",
        stored.replicas, stored.service, target.environment
    )))
}

/// The deployments made since the server started, oldest first.
#[tool(title = "List deployments", annotations(read_only, open_world = false))]
pub async fn deployments(State(registry): State<Deployments>) -> ToolResult<Json<DeploymentList>> {
    Ok(Json(DeploymentList {
        deployments: registry.list(),
    }))
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

#[cfg(test)]
mod tests {
    use mcp_runtime::server::Server;
    use mcp_runtime::testing::{ServerTester, decline};
    use serde_json::json;

    use super::{Confirm, Environment, Target, register};

    /// A whole deployment through the server the binary builds, then the listing that shows
    /// it: every round goes to one server and its one registry.
    #[tokio::test]
    async fn a_production_deploy_is_confirmed_then_listed() {
        let tester = ServerTester::new(register(Server::builder().name("deploy")).build());
        let deploy = tester
            .tool("deploy")
            .arguments(json!({"service": "checkout"}));
        let target = Target {
            environment: Environment::Production,
            replicas: 3,
            reason: None,
        };
        let asked = deploy.start().await.answer_form("target", &target).await;
        assert_eq!(asked.questions(), ["confirm"], "{asked}");
        let done = asked.answer_form("confirm", &Confirm { ok: true }).await;
        assert_eq!(
            done.text(),
            Some("Deployed 3 replicas of checkout to Production.")
        );
        let listed = tester.tool("deployments").start().await;
        assert_eq!(
            listed.structured(),
            Some(&json!({"deployments": [{
                "number": 1, "service": "checkout", "environment": "production", "replicas": 3
            }]}))
        );
        let declined = deploy
            .start()
            .await
            .answer(json!({"target": decline()}))
            .await;
        assert!(
            declined
                .text()
                .is_some_and(|text| text.contains("declined"))
        );
    }
}
