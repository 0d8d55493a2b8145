//! What a task's changes do to its stored record: a lease renewed, a task failed, a record
//! read and written over its version, and the errors a task ends with.

use std::time::Duration;

use serde_json::json;

use super::Hub;
use super::record::{Status, TaskRecord};
use crate::protocol::{ErrorCode, ErrorObject};

/// Renews the lease of a working task (and sets its status message); `false` when the task
/// is no longer `working`.
pub(super) async fn touch(hub: &Hub, id: &str, message: Option<String>) -> bool {
    let store = &hub.settings.store;
    for _ in 0..4 {
        let found = match store.get(id).await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!(%error, "a task's lease could not be renewed");
                return true;
            }
        };
        let Some((version, record)) = found.and_then(decode) else {
            return false;
        };
        if record.status != Status::Working {
            return false;
        }
        let mut next = record;
        let now = hub.now_ms();
        next.lease_ms = Some(now + millis(hub.settings.lease));
        if let Some(message) = &message {
            next.message = Some(message.clone());
            next.updated_ms = now;
        }
        match replace(hub, id, version, &next, message.is_some()).await {
            Ok(true) => return true,
            Ok(false) => {}
            Err(()) => return true,
        }
    }
    true
}

/// The record of a task that failed with `error`.
pub(super) fn failed(record: &TaskRecord, error: &ErrorObject, now: u64) -> TaskRecord {
    let mut next = record.moved(Status::Failed, now);
    next.message = Some(error.message.clone());
    next.error = serde_json::to_value(error).ok();
    next
}

/// Marks a working task failed with `error`.
pub(crate) async fn fail(hub: &Hub, id: &str, error: ErrorObject) {
    let store = &hub.settings.store;
    for _ in 0..4 {
        let Ok(Some((version, record))) = store.get(id).await.map(|found| found.and_then(decode))
        else {
            return;
        };
        if record.status.is_terminal() {
            return;
        }
        match replace(
            hub,
            id,
            version,
            &failed(&record, &error, hub.now_ms()),
            true,
        )
        .await
        {
            Ok(true) | Err(()) => return,
            Ok(false) => {}
        }
    }
}

/// A stored task with its version, when the bytes are a record of ours.
pub(crate) fn decode(found: crate::tasks::Versioned) -> Option<(u64, TaskRecord)> {
    match serde_json::from_slice(&found.record) {
        Ok(record) => Some((found.version, record)),
        Err(error) => {
            tracing::error!(%error, "a stored task is not a task record");
            None
        }
    }
}

/// Writes `next` over version `version`; `Err` when the store failed (logged), or the record
/// grew past the bound (then the task fails instead). Once written, a change a client sees
/// (`announce`: anything but a renewed lease) goes to the listen streams following the task.
pub(crate) async fn replace(
    hub: &Hub,
    id: &str,
    version: u64,
    next: &TaskRecord,
    announce: bool,
) -> Result<bool, ()> {
    let mut written = std::borrow::Cow::Borrowed(next);
    let mut bytes = serde_json::to_vec(next).map_err(|_| ())?;
    if bytes.len() > hub.settings.max_task_bytes {
        let limit = hub.settings.max_task_bytes;
        let error = internal(format!(
            "the task's stored state would exceed {limit} bytes"
        ));
        written = std::borrow::Cow::Owned(failed(next, &error, hub.now_ms()));
        bytes = serde_json::to_vec(&*written).map_err(|_| ())?;
    }
    let stored = hub
        .settings
        .store
        .replace(id, version, &bytes)
        .await
        .map_err(|error| tracing::warn!(%error, "a task could not be written"))?;
    if stored && announce {
        hub.announce(id, &written);
    }
    Ok(stored)
}

pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

pub(crate) fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// The error of a task whose instance stopped renewing it.
pub(crate) fn instance_stopped() -> ErrorObject {
    internal("the server instance running this task stopped before it finished")
        .with_data(json!({"reason": "lease expired"}))
}
