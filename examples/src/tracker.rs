//! A small issue tracker, shaped like a real integration: its store is application state, its
//! tools say how they behave, ask for what is missing, and answer structured results.
//!
//! - `create_issue` files an issue; when the call lacks a title or a priority, it asks for them
//!   in a form.
//! - `close_issues` closes the open issues with a label, after the user confirms: it is marked
//!   destructive.
//! - `list_issues` lists issues, read-only.
//! - the resource `tracker://issues/{number}` reads one issue as JSON. Filing or closing an
//!   issue announces `notifications/resources/updated` for it, to the listen streams (and
//!   legacy sessions) subscribed to its URI.
//! - `set_tool_enabled` disables or enables another tool while the server runs (an admin's
//!   switch): clients listening for tool-list changes hear of it.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use mcp_runtime::protocol::{ReadResourceResult, ResourceContents, TextResourceContents};
use mcp_runtime::server::{Registry, ServerBuilder};
use mcp_runtime::{
    Cx, ElicitChoice, ElicitForm, HandlerError, Json, Refusal, ResourceResult, State, ToolResult,
    resource, tool,
};
use serde::{Deserialize, Serialize};

/// Registers the tracker's tools and resource, and an empty store.
pub fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .state(Tracker::default())
        .tool(create_issue)
        .tool(close_issues)
        .tool(list_issues)
        .tool(set_tool_enabled)
        .resource(issue)
}

/// The URI of issue `number`.
pub fn issue_uri(number: u64) -> String {
    format!("tracker://issues/{number}")
}

/// The issues, in memory: the tracker's application state.
#[derive(Debug, Default)]
pub struct Tracker {
    issues: Mutex<BTreeMap<u64, Issue>>,
}

impl Tracker {
    /// The most issues the store keeps; filing more is refused.
    pub const CAPACITY: usize = 10_000;

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Issue>> {
        self.issues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Files an issue and returns it as stored.
    pub fn file(
        &self,
        title: String,
        priority: Priority,
        labels: Vec<String>,
    ) -> Result<Issue, HandlerError> {
        let mut issues = self.lock();
        if issues.len() >= Self::CAPACITY {
            return Err("the tracker is full; close and remove issues first".into());
        }
        let number = issues.keys().next_back().map_or(1, |last| last + 1);
        let issue = Issue {
            number,
            title,
            priority,
            labels,
            open: true,
        };
        issues.insert(number, issue.clone());
        Ok(issue)
    }

    /// The open issues carrying `label`, by number.
    pub fn open_with(&self, label: &str) -> Vec<u64> {
        self.lock()
            .values()
            .filter(|issue| issue.open && issue.labels.iter().any(|l| l == label))
            .map(|issue| issue.number)
            .collect()
    }

    /// Closes `numbers`, returning those that were still open.
    pub fn close(&self, numbers: &[u64]) -> Vec<u64> {
        let mut issues = self.lock();
        numbers
            .iter()
            .filter(|number| {
                issues
                    .get_mut(number)
                    .is_some_and(|issue| std::mem::replace(&mut issue.open, false))
            })
            .copied()
            .collect()
    }

    /// Every issue, or only the open ones, by number.
    pub fn list(&self, open_only: bool) -> Vec<Issue> {
        self.lock()
            .values()
            .filter(|issue| issue.open || !open_only)
            .cloned()
            .collect()
    }

    /// One issue.
    pub fn get(&self, number: u64) -> Option<Issue> {
        self.lock().get(&number).cloned()
    }
}

/// How urgent an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
pub enum Priority {
    /// Whenever.
    Low,
    /// Soon.
    Normal,
    /// Now.
    Urgent,
}

/// An issue, as the tracker stores and answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Issue {
    /// Its number, from 1.
    pub number: u64,
    /// What it is about.
    pub title: String,
    /// How urgent it is.
    pub priority: Priority,
    /// Its labels.
    pub labels: Vec<String>,
    /// Whether it is still open.
    pub open: bool,
}

/// The arguments of `create_issue`: anything missing is asked for.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct NewIssue {
    /// What it is about.
    pub title: Option<String>,
    /// How urgent it is: `low`, `normal` or `urgent`.
    pub priority: Option<String>,
    /// Labels to file it under.
    #[serde(default)]
    pub labels: Vec<String>,
}

/// The form that asks for a missing title (and the priority with it).
#[derive(Debug, ElicitForm)]
pub struct IssueForm {
    /// What is the issue about?
    #[form(min_length = 3, max_length = 120)]
    pub title: String,
    /// How urgent is it?
    #[form(default = Priority::Normal)]
    pub priority: Priority,
}

/// The form that asks for a missing priority alone.
#[derive(Debug, ElicitForm)]
pub struct PriorityForm {
    /// How urgent is it?
    #[form(default = Priority::Normal)]
    pub priority: Priority,
}

/// File an issue; asks for the title and priority when the call leaves them out.
#[tool(
    title = "File an issue",
    annotations(destructive = false, idempotent = false, open_world = false)
)]
pub async fn create_issue(
    args: NewIssue,
    cx: Cx,
    State(tracker): State<Tracker>,
) -> ToolResult<Json<Issue>> {
    if args.title.is_none() {
        let details: IssueForm = cx.elicit("What is the new issue about?").await?;
        let issue = tracker.file(details.title, details.priority, args.labels)?;
        cx.notify_resource_updated(&issue_uri(issue.number));
        return Ok(Json(issue));
    }
    let title: String = args.title.unwrap_or_default();
    let priority = match args.priority.as_deref().and_then(Priority::from_wire) {
        Some(priority) => priority,
        None => {
            let urgency: PriorityForm = cx.elicit(format!("How urgent is \"{title}\"?")).await?;
            urgency.priority
        }
    };
    let issue = tracker.file(title, priority, args.labels)?;
    cx.notify_resource_updated(&issue_uri(issue.number));
    Ok(Json(issue))
}

/// The arguments of `close_issues`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CloseArgs {
    /// Close the open issues with this label.
    pub label: String,
}

/// The confirmation `close_issues` asks for.
#[derive(Debug, ElicitForm)]
pub struct CloseConfirm {
    /// Close them?
    pub close: bool,
}

/// What `close_issues` answers.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Closed {
    /// The issues it closed, by number.
    pub closed: Vec<u64>,
}

/// Close every open issue with a label, once the user confirms the list.
#[tool(
    title = "Close issues by label",
    annotations(destructive, idempotent, open_world = false)
)]
pub async fn close_issues(
    args: CloseArgs,
    cx: Cx,
    State(tracker): State<Tracker>,
    State(registry): State<Registry>,
) -> ToolResult<Json<Closed>> {
    let numbers: Vec<u64> = tracker.open_with(&args.label);
    if numbers.is_empty() {
        return Ok(Json(Closed { closed: numbers }));
    }
    let listed: Vec<String> = numbers.iter().map(|n| format!("#{n}")).collect();
    let answer: CloseConfirm = cx
        .elicit(format!(
            "Close {} issues labelled \"{}\": {}?",
            numbers.len(),
            args.label,
            listed.join(", ")
        ))
        .await?;
    if !answer.close {
        return Err(Refusal::Declined.into());
    }
    let closed = tracker.close(&numbers);
    for number in &closed {
        registry.notify_resource_updated(&issue_uri(*number));
    }
    Ok(Json(Closed { closed }))
}

/// The arguments of `set_tool_enabled`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ToolSwitch {
    /// The tool to switch.
    pub name: String,
    /// Whether it should be listed and callable.
    pub enabled: bool,
}

/// What `set_tool_enabled` answers.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct Switched {
    /// Whether the tool's state changed (`false` when it already was as asked).
    pub changed: bool,
}

/// Disable or enable one of the tracker's tools while it runs (an admin's switch).
#[tool(
    title = "Switch a tool on or off",
    annotations(destructive, idempotent, open_world = false)
)]
pub async fn set_tool_enabled(
    args: ToolSwitch,
    State(registry): State<Registry>,
) -> ToolResult<Json<Switched>> {
    if args.name == "set_tool_enabled" {
        return Err("`set_tool_enabled` cannot switch itself off; name another tool".into());
    }
    if !registry.tools().iter().any(|(name, _)| *name == args.name) {
        return Err(format!("no tool `{}`; name one of `tools/list`", args.name).into());
    }
    let changed = if args.enabled {
        registry.enable_tool(&args.name)
    } else {
        registry.disable_tool(&args.name)
    };
    Ok(Json(Switched { changed }))
}

/// The arguments of `list_issues`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    /// Only the open issues (default: all).
    #[serde(default)]
    pub open_only: bool,
}

/// What `list_issues` answers.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct IssueList {
    /// The issues, by number.
    pub issues: Vec<Issue>,
}

/// List the issues.
#[tool(title = "List issues", annotations(read_only, open_world = false))]
pub async fn list_issues(
    args: ListArgs,
    State(tracker): State<Tracker>,
) -> ToolResult<Json<IssueList>> {
    Ok(Json(IssueList {
        issues: tracker.list(args.open_only),
    }))
}

/// The variables of `tracker://issues/{number}`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IssueUri {
    /// The issue's number.
    pub number: String,
}

/// One issue, as JSON.
#[resource(uri = "tracker://issues/{number}", mime_type = "application/json")]
pub async fn issue(uri: IssueUri, State(tracker): State<Tracker>) -> ResourceResult {
    let found = uri
        .number
        .parse()
        .ok()
        .and_then(|number| tracker.get(number))
        .ok_or_else(|| format!("no issue #{}", uri.number))?;
    let text = serde_json::to_string(&found)?;
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: format!("tracker://issues/{}", found.number),
            mime_type: Some("application/json".to_owned()),
            text,
            meta: None,
        })],
        ..ReadResourceResult::default()
    })
}

#[cfg(test)]
mod tests {
    use mcp_runtime::server::Server;
    use mcp_runtime::testing::ServerTester;
    use serde_json::json;

    use super::{CloseConfirm, IssueForm, Priority, register};

    /// Filing asks for what the call left out; listing and closing work on the same store.
    /// Every structured result is checked against its tool's `outputSchema` by the tester.
    #[tokio::test]
    async fn an_issue_is_filed_listed_and_closed() {
        let tester = ServerTester::new(register(Server::builder().name("tracker")).build());
        let details = IssueForm {
            title: "Checkout times out".to_owned(),
            priority: Priority::Urgent,
        };
        let filed = tester
            .tool("create_issue")
            .arguments(json!({"labels": ["checkout"]}))
            .start()
            .await
            .answer_form("details", &details)
            .await;
        assert_eq!(
            filed.structured(),
            Some(&json!({
                "number": 1, "title": "Checkout times out", "priority": "urgent",
                "labels": ["checkout"], "open": true
            })),
            "{filed}"
        );
        let close = tester
            .tool("close_issues")
            .arguments(json!({"label": "checkout"}));
        let closed = close
            .start()
            .await
            .answer_form("answer", &CloseConfirm { close: true })
            .await;
        assert_eq!(
            closed.structured(),
            Some(&json!({"closed": [1]})),
            "{closed}"
        );
        let listed = tester
            .tool("list_issues")
            .arguments(json!({"open_only": true}))
            .start()
            .await;
        assert_eq!(listed.structured(), Some(&json!({"issues": []})));
    }
}
