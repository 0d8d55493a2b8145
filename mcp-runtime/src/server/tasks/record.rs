//! A task as the store keeps it, and as the wire shows it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A task's status, as the extension names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Cancelled,
    Failed,
}

impl Status {
    /// Whether the task is over: a terminal status never changes again.
    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Cancelled | Self::Failed)
    }
}

/// Everything stored about one task: its status and what the wire shows of it, and what the
/// next round needs (the tool, its arguments, the creating request's capabilities, the
/// signed continuation). Serialised as JSON into the [`TaskStore`](crate::tasks::TaskStore).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TaskRecord {
    pub(crate) status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<String>,
    pub(crate) created_ms: u64,
    pub(crate) updated_ms: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_ms: u64,
    /// A digest of the creating subject (hex); only that subject sees the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<String>,
    pub(crate) tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) arguments: Option<Map<String, Value>>,
    /// The creating request's client capabilities, which every round of the task asks under.
    pub(crate) capabilities: Value,
    /// How many times the task has asked; keys of its `inputRequests` carry it.
    pub(crate) round: u32,
    /// `input_required`: the questions not answered yet, under task-unique keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) requests: Option<Map<String, Value>>,
    /// `input_required`: the answers `tasks/update` delivered so far, while others are still
    /// outstanding; the round runs once every question has its answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answered: Option<Map<String, Value>>,
    /// `input_required`: the flow's continuation, signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<Value>,
    /// `working`: until when the instance running the task vouches for it (milliseconds since
    /// the epoch); past it, the instance is taken for dead and the task fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lease_ms: Option<u64>,
}

impl TaskRecord {
    /// The task as `tasks/get` answers it (and, with `resultType: "task"`, as
    /// `CreateTaskResult`).
    pub(crate) fn view(&self, id: &str, result_type: &str) -> Value {
        let mut view = json!({
            "resultType": result_type,
            "taskId": id,
            "status": self.status,
            "createdAt": rfc3339(self.created_ms),
            "lastUpdatedAt": rfc3339(self.updated_ms),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": self.poll_ms,
        });
        let fields = view.as_object_mut().expect("an object");
        if let Some(message) = &self.message {
            fields.insert("statusMessage".into(), message.clone().into());
        }
        match self.status {
            Status::InputRequired => {
                let requests = self.requests.clone().unwrap_or_default();
                fields.insert("inputRequests".into(), Value::Object(requests));
            }
            Status::Completed => {
                let result = self.result.clone().unwrap_or_else(|| json!({}));
                fields.insert("result".into(), result);
            }
            Status::Failed => {
                let error = self.error.clone().unwrap_or_else(|| json!({}));
                fields.insert("error".into(), error);
            }
            Status::Working | Status::Cancelled => {}
        }
        view
    }

    /// The record moved to `status` at `now`, with the fields of its old status dropped.
    pub(crate) fn moved(&self, status: Status, now: u64) -> Self {
        let mut next = self.clone();
        next.status = status;
        next.updated_ms = now;
        next.requests = None;
        next.answered = None;
        next.state = None;
        next.lease_ms = None;
        if status != Status::Working {
            next.message = None;
        }
        next
    }
}

/// `ms` since the epoch as an RFC 3339 UTC timestamp with milliseconds
/// (`2026-07-28T10:30:00.000Z`): days to a civil date by the proleptic Gregorian calendar.
pub(crate) fn rfc3339(ms: u64) -> String {
    let (days, in_day) = (ms / 86_400_000, ms % 86_400_000);
    // Shifted so that the era starts on 0000-03-01 (H. Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let (hours, minutes) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (seconds, millis) = (in_day / 1000 % 60, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{hours:02}:{minutes:02}:{seconds:02}.{millis:03}Z")
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(1_785_231_000_123), "2026-07-28T09:30:00.123Z");
        assert_eq!(rfc3339(4_102_444_799_999), "2099-12-31T23:59:59.999Z");
    }
}
