//! The stdio transport's bound on requests in flight: with 1,024 requests of one connection
//! being handled, the next line is not read until one of them ends. In process, through
//! `Server::serve_lines` on in-memory pipes large enough to hold every line at once, so only
//! the bound can hold a request back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::server::{BoxFuture, HandlerResult, Reply, Request, Server, ToolHandler};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Notify, Semaphore};

/// The bound the README states.
const IN_FLIGHT: usize = 1024;
/// Every wait for something the server should do gives up after this long.
const WAIT: Duration = Duration::from_secs(20);

/// Waits, once entered, until the test lets one call through.
struct Gate {
    entered: Arc<AtomicUsize>,
    changed: Arc<Notify>,
    release: Arc<Semaphore>,
}

impl ToolHandler for Gate {
    fn definition(&self) -> Tool {
        let Value::Object(input_schema) = json!({ "type": "object" }) else {
            unreachable!()
        };
        Tool {
            name: "gate".to_owned(),
            input_schema,
            ..Tool::default()
        }
    }

    fn call(&self, _request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let (entered, changed) = (Arc::clone(&self.entered), Arc::clone(&self.changed));
        let release = Arc::clone(&self.release);
        Box::pin(async move {
            entered.fetch_add(1, Ordering::SeqCst);
            changed.notify_waiters();
            release.acquire().await.expect("never closed").forget();
            Ok(Reply::Complete(CallToolResult::new(vec![
                ContentBlock::text("through"),
            ])))
        })
    }
}

fn line(id: Value, method: &str, params: Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes();
    line.push(b'\n');
    line
}

#[tokio::test]
async fn past_1024_requests_in_flight_the_next_line_waits_for_one_to_end() {
    let (entered, changed) = (Arc::new(AtomicUsize::new(0)), Arc::new(Notify::new()));
    let release = Arc::new(Semaphore::new(0));
    let gate = Gate {
        entered: Arc::clone(&entered),
        changed: Arc::clone(&changed),
        release: Arc::clone(&release),
    };
    let server = Server::builder().tool(gate).build();
    let (mut input, server_in) = tokio::io::duplex(4 << 20);
    let (server_out, output) = tokio::io::duplex(4 << 20);
    let serving = tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
    let mut lines = BufReader::new(output).lines();

    let mut all = Vec::new();
    for id in 0..IN_FLIGHT {
        all.extend(line(json!(id), "tools/call", json!({"name": "gate"})));
    }
    all.extend(line(json!("next"), "tools/list", json!({})));
    input.write_all(&all).await.unwrap();

    let all_entered = async {
        loop {
            let notified = changed.notified();
            if entered.load(Ordering::SeqCst) >= IN_FLIGHT {
                return;
            }
            notified.await;
        }
    };
    tokio::time::timeout(WAIT, all_entered)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{} of {IN_FLIGHT} calls entered",
                entered.load(Ordering::SeqCst)
            )
        });
    // The line after them is written and waiting, and needs no handler: only the bound keeps
    // it from being answered at once.
    let early = tokio::time::timeout(Duration::from_millis(300), lines.next_line()).await;
    assert!(
        early.is_err(),
        "answered with {IN_FLIGHT} requests in flight: {early:?}"
    );
    assert_eq!(entered.load(Ordering::SeqCst), IN_FLIGHT);

    // One call ends: its answer, then the waiting line's.
    release.add_permits(1);
    let mut read = async || -> Value {
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("a line in time")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    };
    let first = read().await;
    assert_eq!(first["result"]["content"][0]["text"], "through", "{first}");
    let next = read().await;
    assert_eq!(next["id"], "next", "{next}");
    assert!(next["result"]["tools"].is_array(), "{next}");

    // The rest end too, each answered.
    release.add_permits(IN_FLIGHT - 1);
    let mut answered = std::collections::HashSet::from([first["id"].as_u64().unwrap()]);
    for _ in 1..IN_FLIGHT {
        let done = read().await;
        assert!(answered.insert(done["id"].as_u64().unwrap()), "{done}");
    }
    assert_eq!(answered.len(), IN_FLIGHT);
    drop(input);
    tokio::time::timeout(WAIT, serving)
        .await
        .expect("the server ends with its input")
        .unwrap()
        .unwrap();
}
