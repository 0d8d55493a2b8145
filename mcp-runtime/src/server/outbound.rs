//! What a request sends before its answer, on the stream that carries the answer: progress
//! and log notifications, and on legacy sessions the server-to-client requests of its flow.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::protocol::{
    JsonRpcNotification, LoggingLevel, LoggingMessageNotificationParams, method,
};

/// The sending half of a request's message channel: complete JSON-RPC messages, in order.
pub(crate) type Outbound = mpsc::UnboundedSender<Message>;

/// One message on a request's channel: a JSON value, or a message already written as JSON
/// text (a legacy session's question, written without a value built for it).
#[derive(Debug)]
pub(crate) enum Message {
    Value(Value),
    /// Compact JSON text: one JSON-RPC message, written by `serde_json`.
    Text(Vec<u8>),
}

impl From<Value> for Message {
    fn from(value: Value) -> Self {
        Self::Value(value)
    }
}

impl Message {
    /// The message as compact JSON text, as a transport writes it.
    pub(crate) fn into_text(self) -> Vec<u8> {
        match self {
            Self::Value(value) => serde_json::to_vec(&value).expect("a JSON value serialises"),
            Self::Text(text) => text,
        }
    }

    fn into_value(self) -> Value {
        match self {
            Self::Value(value) => value,
            // Written by `serde_json` as one JSON value, so it reads back as one.
            Self::Text(text) => serde_json::from_slice(&text).expect("a message reads back"),
        }
    }
}

/// A request's message channel: the sender handlers and the flow loop write to, and the
/// receiver the transport drains before (and, over HTTP, around) the answer.
pub(crate) fn channel() -> (Outbound, MessageReceiver) {
    let (sender, receiver) = mpsc::unbounded_channel();
    (
        sender,
        MessageReceiver {
            receiver: Receiving::Unbounded(receiver),
        },
    )
}

/// The receiving end of a request's message channel: each item is a complete JSON-RPC
/// notification or (on a legacy session) a server-to-client request.
#[derive(Debug)]
pub struct MessageReceiver {
    receiver: Receiving,
}

/// A request's channel is unbounded (its handler sends a bounded number of messages); a
/// listen stream's is bounded, since what it carries comes from elsewhere.
#[derive(Debug)]
enum Receiving {
    Unbounded(mpsc::UnboundedReceiver<Message>),
    Bounded(mpsc::Receiver<Value>),
}

impl MessageReceiver {
    /// The receiving end of a bounded channel (a listen stream's).
    pub(crate) fn bounded(receiver: mpsc::Receiver<Value>) -> Self {
        Self {
            receiver: Receiving::Bounded(receiver),
        }
    }

    /// The next message, or `None` once every sender is dropped.
    pub async fn recv(&mut self) -> Option<Value> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// Polls for the next message; `Ready(None)` once every sender is dropped.
    pub fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Value>> {
        self.poll_message(cx)
            .map(|message| message.map(Message::into_value))
    }

    /// A message already sent, without waiting.
    pub fn try_recv(&mut self) -> Option<Value> {
        self.try_message().map(Message::into_value)
    }

    /// The next message as it was sent, or `None` once every sender is dropped.
    pub(crate) async fn recv_message(&mut self) -> Option<Message> {
        std::future::poll_fn(|cx| self.poll_message(cx)).await
    }

    /// Polls for the next message as it was sent.
    pub(crate) fn poll_message(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Message>> {
        match &mut self.receiver {
            Receiving::Unbounded(receiver) => receiver.poll_recv(cx),
            Receiving::Bounded(receiver) => receiver.poll_recv(cx).map(|v| v.map(Message::Value)),
        }
    }

    /// A message already sent, as it was sent, without waiting.
    pub(crate) fn try_message(&mut self) -> Option<Message> {
        match &mut self.receiver {
            Receiving::Unbounded(receiver) => receiver.try_recv().ok(),
            Receiving::Bounded(receiver) => receiver.try_recv().ok().map(Message::Value),
        }
    }
}

/// The least severe log level a client wants, shared by everything that logs for it: a legacy
/// session's `logging/setLevel`, or one request's `_meta` level. Unset means no log messages.
#[derive(Debug, Default)]
pub(crate) struct LevelCell(AtomicU8);

impl LevelCell {
    pub(crate) fn new(level: Option<LoggingLevel>) -> Self {
        let cell = Self::default();
        cell.set(level);
        cell
    }

    pub(crate) fn set(&self, level: Option<LoggingLevel>) {
        self.0
            .store(level.map_or(0, |level| level as u8 + 1), Ordering::Relaxed);
    }

    fn allows(&self, level: LoggingLevel) -> bool {
        match self.0.load(Ordering::Relaxed) {
            0 => false,
            least => level as u8 + 1 >= least,
        }
    }
}

/// Sends `notifications/message` log messages for one request, when the client asked for
/// messages of that severity (on a legacy session through `logging/setLevel`; in 2026-07-28
/// through the request's `io.modelcontextprotocol/logLevel`). Cheap to clone.
#[derive(Clone, Default)]
pub struct Logger {
    sink: Option<(Outbound, Arc<LevelCell>)>,
}

impl std::fmt::Debug for Logger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logger")
            .field("active", &self.sink.is_some())
            .finish()
    }
}

impl Logger {
    /// A logger that sends nothing.
    pub fn none() -> Self {
        Self { sink: None }
    }

    pub(crate) fn new(sender: Outbound, level: Arc<LevelCell>) -> Self {
        Self {
            sink: Some((sender, level)),
        }
    }

    /// Whether a message at `level` would be sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.sink
            .as_ref()
            .is_some_and(|(_, cell)| cell.allows(level))
    }

    /// Sends a log message at `level` from `logger` (a name, optional) carrying `data` (any
    /// JSON value), if the client asked for that severity.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) {
        let Some((sender, cell)) = &self.sink else {
            return;
        };
        if !cell.allows(level) {
            return;
        }
        let params = LoggingMessageNotificationParams {
            level,
            logger: logger.map(str::to_owned),
            data,
            meta: None,
        };
        let params = serde_json::to_value(params).ok();
        let notification = JsonRpcNotification::new(method::NOTIFICATION_MESSAGE, params);
        if let Ok(notification) = serde_json::to_value(notification) {
            // The receiver is gone once the request has been answered; late messages drop.
            let _ = sender.send(notification.into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_at_or_above_the_chosen_one_are_sent() {
        let (sender, mut receiver) = channel();
        let cell = Arc::new(LevelCell::new(Some(LoggingLevel::Warning)));
        let logger = Logger::new(sender, Arc::clone(&cell));
        logger.log(LoggingLevel::Info, None, Value::from("quiet"));
        logger.log(LoggingLevel::Error, Some("db"), Value::from("loud"));
        let sent = receiver.try_recv().unwrap();
        assert_eq!(sent["method"], "notifications/message");
        assert_eq!(sent["params"]["level"], "error");
        assert_eq!(sent["params"]["logger"], "db");
        assert_eq!(sent["params"]["data"], "loud");
        assert!(receiver.try_recv().is_none());
        cell.set(None);
        logger.log(LoggingLevel::Emergency, None, Value::Null);
        assert!(receiver.try_recv().is_none());
        cell.set(Some(LoggingLevel::Debug));
        assert!(logger.enabled(LoggingLevel::Debug));
    }
}
