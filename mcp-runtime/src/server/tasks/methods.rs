//! `tasks/get`, `tasks/update` and `tasks/cancel`.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::record::{Status, TaskRecord};
use super::runner::{self, is_task_id};
use super::stored::{self, decode, instance_stopped, replace};
use super::{Hub, declared_in, missing_extension, subject_digest};
use crate::protocol::InputResponses;
use crate::server::Server;
use crate::server::error::RpcError;

/// The methods of the extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Get,
    Update,
    Cancel,
}

impl Method {
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "tasks/get" => Self::Get,
            "tasks/update" => Self::Update,
            "tasks/cancel" => Self::Cancel,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Get => "tasks/get",
            Self::Update => "tasks/update",
            Self::Cancel => "tasks/cancel",
        }
    }
}

/// The answer for a task that does not exist, has expired, or belongs to another subject:
/// the same in every case, so that a caller learns nothing of other callers' tasks.
fn unknown() -> RpcError {
    RpcError::invalid_params("Failed to retrieve task: Task not found")
}

/// Answers one request of the extension, `params` checked for `_meta` by dispatch already.
pub(crate) async fn answer(
    hub: Arc<Hub>,
    server: Server,
    method: Method,
    mut params: Map<String, Value>,
    subject: Option<String>,
) -> Result<Value, RpcError> {
    if !declared_in(&params)? {
        return Err(missing_extension(&format!("`{}`", method.name())));
    }
    let id = match params.remove("taskId") {
        Some(Value::String(id)) => id,
        Some(_) => return Err(RpcError::invalid_params("`taskId` must be a string")),
        None => return Err(RpcError::invalid_params("missing `taskId`")),
    };
    let answers = match (method, params.remove("inputResponses")) {
        (Method::Update, Some(responses @ Value::Object(_))) => {
            let responses: InputResponses = serde_json::from_value(responses).map_err(|error| {
                RpcError::invalid_params(format!("invalid `inputResponses`: {error}"))
            })?;
            if responses.values().any(|answer| !answer.is_object()) {
                return Err(RpcError::invalid_params(
                    "every `inputResponses` entry must be an object",
                ));
            }
            Some(responses)
        }
        (Method::Update, _) => {
            return Err(RpcError::invalid_params(
                "`inputResponses` must be an object",
            ));
        }
        _ => None,
    };
    if !is_task_id(&id) {
        return Err(unknown());
    }
    if method == Method::Get && hub.polled_too_often(&id) {
        let interval = stored::millis(hub.settings.poll_interval);
        return Err(RpcError::too_many(format!(
            "this task was polled more than {} times in {interval} ms; poll at its `pollIntervalMs`",
            super::POLLS_PER_INTERVAL
        )));
    }
    let (version, record) = read(&hub, &id, subject.as_deref()).await?;
    match method {
        Method::Get => get(&hub, &id, version, record).await,
        Method::Cancel => cancel(&hub, &id, version, record).await,
        Method::Update => {
            let answers = answers.unwrap_or_default();
            update(&hub, &server, &id, version, record, subject, answers).await
        }
    }
}

/// The task, when it exists, has not expired and belongs to `subject`.
async fn read(hub: &Hub, id: &str, subject: Option<&str>) -> Result<(u64, TaskRecord), RpcError> {
    let found = hub.settings.store.get(id).await.map_err(|error| {
        tracing::warn!(%error, "a task could not be read");
        RpcError::overloaded("the task store did not answer; retry later")
    })?;
    let (version, record) = found.and_then(decode).ok_or_else(unknown)?;
    let expired = hub.now_ms() >= record.created_ms.saturating_add(record.ttl_ms);
    if expired || record.subject != subject_digest(subject) {
        return Err(unknown());
    }
    Ok((version, record))
}

async fn get(hub: &Hub, id: &str, version: u64, record: TaskRecord) -> Result<Value, RpcError> {
    let now = hub.now_ms();
    let stopped =
        record.status == Status::Working && record.lease_ms.is_some_and(|lease| lease < now);
    if !stopped {
        return Ok(record.view(id, "complete"));
    }
    // The instance running it stopped renewing it: it died, or lost the store. The round
    // cannot be resumed exactly once from here (it may have run part way), so the task fails.
    let error = instance_stopped();
    let mut next = record.moved(Status::Failed, now);
    next.message = Some(error.message.clone());
    next.error = serde_json::to_value(&error).ok();
    match replace(hub, id, version, &next, true).await {
        Ok(true) => Ok(next.view(id, "complete")),
        _ => {
            let (_, record) = read_any(hub, id).await?;
            Ok(record.view(id, "complete"))
        }
    }
}

async fn read_any(hub: &Hub, id: &str) -> Result<(u64, TaskRecord), RpcError> {
    let found = hub
        .settings
        .store
        .get(id)
        .await
        .map_err(|_| RpcError::overloaded("the task store did not answer; retry later"))?;
    found.and_then(decode).ok_or_else(unknown)
}

async fn cancel(hub: &Hub, id: &str, version: u64, record: TaskRecord) -> Result<Value, RpcError> {
    let (mut version, mut record) = (version, record);
    for _ in 0..4 {
        if record.status.is_terminal() {
            break;
        }
        let mut next = record.moved(Status::Cancelled, hub.now_ms());
        next.message = Some("cancelled by the client".to_owned());
        match replace(hub, id, version, &next, true).await {
            Ok(true) => break,
            Ok(false) => (version, record) = read_any(hub, id).await?,
            Err(()) => {
                return Err(RpcError::overloaded(
                    "the task store did not answer; retry later",
                ));
            }
        }
    }
    hub.abort(id);
    Ok(json!({"resultType": "complete"}))
}

/// Delivers answers to an `input_required` task and runs its next round here. Answers under
/// keys the task is not waiting for are ignored, as the extension says; an update that
/// answers none of them (or comes when the task waits for nothing) changes nothing.
async fn update(
    hub: &Arc<Hub>,
    server: &Server,
    id: &str,
    version: u64,
    record: TaskRecord,
    subject: Option<String>,
    answers: InputResponses,
) -> Result<Value, RpcError> {
    let ack = Ok(json!({"resultType": "complete"}));
    if record.status != Status::InputRequired {
        return ack;
    }
    // Answers to outstanding questions only; others are ignored.
    let mut pending = record.requests.clone().unwrap_or_default();
    let mut answered = record.answered.clone().unwrap_or_default();
    let before = answered.len();
    for (key, answer) in answers {
        if pending.remove(&key).is_some() {
            answered.insert(key, answer);
        }
    }
    if answered.len() == before {
        return ack;
    }
    if !pending.is_empty() {
        // Some questions still wait: keep the answers, show only what is still asked.
        let mut next = record.clone();
        next.requests = Some(pending);
        next.answered = Some(answered);
        next.updated_ms = hub.now_ms();
        return match replace(hub, id, version, &next, true).await {
            Ok(_) => ack,
            Err(()) => Err(RpcError::overloaded(
                "the task store did not answer; retry later",
            )),
        };
    }
    let prefix = format!("{}:", record.round);
    let answers: InputResponses = answered
        .into_iter()
        .filter_map(|(key, answer)| Some((key.strip_prefix(&prefix)?.to_owned(), answer)))
        .collect();
    if hub.is_busy() {
        return Err(RpcError::overloaded(
            "this instance runs too many tasks; retry later",
        ));
    }
    // A round that asked without a continuation starts the flow over with these answers, as
    // answers without a `requestState` do.
    let binding = runner::binding(server, id, record.subject.as_deref());
    let opened = record
        .state
        .as_deref()
        .map(|token| server.inner.signer.open_with_binding(&binding, token));
    let state = match opened {
        None => None,
        Some(Ok(opened)) => Some(opened.into_payload()),
        Some(Err(reason)) => {
            tracing::error!(%reason, "a task's stored continuation did not verify");
            stored::fail(
                hub,
                id,
                stored::internal("the task's continuation did not verify"),
            )
            .await;
            return ack;
        }
    };
    let now = hub.now_ms();
    let mut next = record.moved(Status::Working, now);
    next.lease_ms = Some(now + stored::millis(hub.settings.lease));
    match replace(hub, id, version, &next, true).await {
        // Another update (or a cancel) got there first: these answers are not needed.
        Ok(false) => ack,
        Err(()) => Err(RpcError::overloaded(
            "the task store did not answer; retry later",
        )),
        Ok(true) => {
            let (hub, server) = (Arc::clone(hub), server.clone());
            runner::resume(hub, server, id.to_owned(), subject, state, Some(answers)).await;
            ack
        }
    }
}
