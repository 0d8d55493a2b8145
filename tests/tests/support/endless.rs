//! A tool that would run for an hour, and a probe that sees it start and sees its future
//! dropped: what the cancellation tests watch.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::server::{BoxFuture, HandlerResult, Reply, Request, ToolHandler};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// How long a test waits for a handler to start, or to be dropped.
pub(crate) const WAIT: Duration = Duration::from_secs(5);

/// What the running handlers of one test did.
#[derive(Debug, Default)]
pub(crate) struct Probe {
    started: AtomicUsize,
    dropped: AtomicUsize,
    /// Iterations of the handlers' loops, all together: it stops growing once they are gone.
    ticks: AtomicUsize,
    changed: Notify,
}

impl Probe {
    pub(crate) fn started(&self) -> usize {
        self.started.load(Ordering::SeqCst)
    }

    pub(crate) fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }

    pub(crate) fn ticks(&self) -> usize {
        self.ticks.load(Ordering::SeqCst)
    }

    /// Waits until `count` handlers have started; fails the test after [`WAIT`].
    pub(crate) async fn wait_started(&self, count: usize) {
        self.wait(|probe| probe.started() >= count, "the handler starts")
            .await;
    }

    /// Waits until `count` handlers have been dropped; fails the test after [`WAIT`].
    pub(crate) async fn wait_dropped(&self, count: usize) {
        self.wait(|probe| probe.dropped() >= count, "the handler is dropped")
            .await;
    }

    async fn wait(&self, done: impl Fn(&Self) -> bool, what: &str) {
        let waiting = async {
            loop {
                let changed = self.changed.notified();
                if done(self) {
                    return;
                }
                changed.await;
            }
        };
        tokio::time::timeout(WAIT, waiting)
            .await
            .unwrap_or_else(|_| panic!("{what} within {WAIT:?}; probe: {self:?}"));
    }
}

/// Counts the drop of the handler's future, wherever it was suspended.
struct Dropped(Arc<Probe>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

/// The tool `endless`: reports progress once (so an HTTP answer becomes an event stream when
/// the call asks for progress), then sleeps 10 ms at a time for an hour, and only then
/// answers.
pub(crate) struct Endless(pub(crate) Arc<Probe>);

impl ToolHandler for Endless {
    fn definition(&self) -> Tool {
        let Value::Object(input_schema) = json!({ "type": "object" }) else {
            unreachable!()
        };
        Tool {
            name: "endless".to_owned(),
            description: Some("runs for an hour".to_owned()),
            input_schema,
            ..Tool::default()
        }
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let probe = Arc::clone(&self.0);
        Box::pin(async move {
            let _dropped = Dropped(Arc::clone(&probe));
            probe.started.fetch_add(1, Ordering::SeqCst);
            probe.changed.notify_waiters();
            request
                .progress
                .report(0.0, None, Some("started".to_owned()));
            let until = tokio::time::Instant::now() + Duration::from_secs(3600);
            while tokio::time::Instant::now() < until {
                probe.ticks.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Ok(Reply::Complete(CallToolResult::new(vec![
                ContentBlock::text("an hour later"),
            ])))
        })
    }
}
