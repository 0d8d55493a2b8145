//! The tasks tests' tools and a client that speaks to a server over HTTP or stdio alike.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

use super::client;

/// Every wait for a task to reach a status gives up after this long.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

static RUNS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// How often the code after the first question ran for `ticket`.
pub(crate) fn runs(ticket: &str) -> usize {
    let runs = RUNS.lock().unwrap();
    runs.as_ref()
        .and_then(|runs| runs.get(ticket).copied())
        .unwrap_or(0)
}

fn count_run(ticket: &str) {
    let mut runs = RUNS.lock().unwrap();
    *runs
        .get_or_insert_with(HashMap::new)
        .entry(ticket.to_owned())
        .or_default() += 1;
}

static DROPS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// How many rounds of `slow` for `ticket` were dropped before their end.
pub(crate) fn dropped(ticket: &str) -> usize {
    let drops = DROPS.lock().unwrap();
    drops
        .as_ref()
        .and_then(|drops| drops.get(ticket).copied())
        .unwrap_or(0)
}

/// Waits until a round of `slow` for `ticket` has been dropped; fails after [`WAIT`].
pub(crate) async fn until_dropped(ticket: &str) {
    let dropping = async {
        while dropped(ticket) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(WAIT, dropping)
        .await
        .unwrap_or_else(|_| panic!("the round for {ticket} was never dropped"));
}

struct CountsDrop(String);

impl Drop for CountsDrop {
    fn drop(&mut self) {
        let mut drops = DROPS.lock().unwrap();
        *drops
            .get_or_insert_with(HashMap::new)
            .entry(self.0.clone())
            .or_default() += 1;
    }
}

#[derive(ElicitForm)]
pub(crate) struct Go {
    ok: bool,
}

#[derive(ElicitForm)]
pub(crate) struct Count {
    #[form(minimum = 1, maximum = 5)]
    n: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(crate) struct Ticket {
    ticket: String,
}

/// Asks to ship, counts the run, reports progress, asks how many.
#[tool]
pub(crate) async fn ship(args: Ticket, cx: Cx) -> ToolResult {
    let go: Go = cx.elicit("Ship it?").await?;
    if !go.ok {
        return Ok(text("Kept."));
    }
    count_run(&args.ticket);
    cx.report_progress(1.0, Some(2.0), Some("packing".to_owned()));
    let count: Count = cx.elicit("How many?").await?;
    Ok(text(format!("Shipped {} x{}.", args.ticket, count.n)))
}

/// Asks two questions at once, then says both answers.
#[tool]
pub(crate) async fn pair(cx: Cx) -> ToolResult {
    let (first, second) = (cx.elicit::<Go>("First?"), cx.elicit::<Count>("Second?")).await;
    Ok(text(format!("{} {}", first?.ok, second?.n)))
}

/// Asks, then says who the caller is.
#[tool]
pub(crate) async fn whoami(cx: Cx) -> ToolResult {
    let go: Go = cx.elicit("Go?").await?;
    if !go.ok {
        return Ok(text("Stopped."));
    }
    Ok(text(cx.subject().unwrap_or("nobody").to_owned()))
}

/// Works for a minute, unless dropped first.
#[tool]
pub(crate) async fn slow(args: Ticket, cx: Cx) -> ToolResult {
    let _counts = CountsDrop(args.ticket.clone());
    cx.report_progress(0.0, None, Some(format!("working on {}", args.ticket)));
    tokio::time::sleep(Duration::from_secs(60)).await;
    Ok(text("done"))
}

/// `_meta` declaring form elicitation, and the tasks extension when `tasks`.
pub(crate) fn meta(tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {}});
    if tasks {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": client::VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// A client of one server: over HTTP (as the caller `bearer`, when given) or over stdio.
pub(crate) enum Wire {
    Http {
        addr: SocketAddr,
        bearer: Option<&'static str>,
    },
    Stdio {
        input: DuplexStream,
        lines: Lines<BufReader<DuplexStream>>,
        next_id: u64,
    },
}

impl Wire {
    pub(crate) fn http(addr: SocketAddr) -> Self {
        Self::Http { addr, bearer: None }
    }

    /// Serves `server` over stdio lines in this process.
    pub(crate) fn stdio(server: Server) -> Self {
        let (input, server_in) = tokio::io::duplex(256 * 1024);
        let (server_out, output) = tokio::io::duplex(256 * 1024);
        tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
        Self::Stdio {
            input,
            lines: BufReader::new(output).lines(),
            next_id: 1,
        }
    }

    /// Sends a request with `_meta` (declaring the extension unless `params` has a `_meta`)
    /// and answers the JSON-RPC response, with its HTTP status (200 over stdio).
    pub(crate) async fn send(&mut self, method: &str, mut params: Value) -> (u16, Value) {
        if params.get("_meta").is_none() {
            params["_meta"] = meta(true);
        }
        match self {
            Self::Http { addr, bearer } => {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
                let authorization = bearer.map(|bearer| format!("Bearer {bearer}"));
                let headers: Vec<(&str, &str)> = authorization
                    .as_deref()
                    .map(|value| vec![("Authorization", value)])
                    .unwrap_or_default();
                let answer =
                    client::send(*addr, "POST", &headers, body.to_string().as_bytes()).await;
                (answer.status, answer.json())
            }
            Self::Stdio {
                input,
                lines,
                next_id,
            } => {
                *next_id += 1;
                let id = *next_id;
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let mut line = body.to_string().into_bytes();
                line.push(b'\n');
                input.write_all(&line).await.expect("the server reads");
                loop {
                    let line = tokio::time::timeout(WAIT, lines.next_line())
                        .await
                        .expect("an answer in time")
                        .expect("the server writes")
                        .expect("a line");
                    let message: Value = serde_json::from_str(&line).expect("JSON");
                    if message["id"] == json!(id) {
                        return (200, message);
                    }
                }
            }
        }
    }

    /// The result of a request that must succeed.
    pub(crate) async fn result(&mut self, method: &str, params: Value) -> Value {
        let (status, answer) = self.send(method, params).await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.get("result").is_some(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// `tools/call` of `tool` for `ticket`.
    pub(crate) async fn call(&mut self, tool: &str, ticket: &str) -> Value {
        let params = json!({"name": tool, "arguments": {"ticket": ticket}});
        self.result("tools/call", params).await
    }

    pub(crate) async fn get(&mut self, task: &str) -> Value {
        self.result("tasks/get", json!({"taskId": task})).await
    }

    pub(crate) async fn update(&mut self, task: &str, answers: Value) -> Value {
        let params = json!({"taskId": task, "inputResponses": answers});
        self.result("tasks/update", params).await
    }

    /// Polls until the task is in `status` (and, for `input_required`, asks under `key`).
    pub(crate) async fn until(&mut self, task: &str, status: &str, key: Option<&str>) -> Value {
        let polling = async {
            loop {
                let got = self.get(task).await;
                let asked = key.is_none_or(|key| got["inputRequests"].get(key).is_some());
                if got["status"] == status && asked {
                    return got;
                }
                assert!(
                    !is_terminal(&got) || got["status"] == status,
                    "waiting for {status}: {got}"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(WAIT, polling)
            .await
            .unwrap_or_else(|_| panic!("task {task} never reached {status}"))
    }
}

pub(crate) fn is_terminal(task: &Value) -> bool {
    matches!(
        task["status"].as_str(),
        Some("completed" | "failed" | "cancelled")
    )
}

/// An accepted form answer.
pub(crate) fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// The empty result of `tasks/update` and of `tasks/cancel` on a finished task, from the
/// `shipping` servers of these tests: it names the server, as every 2026-07-28 result does.
pub(crate) fn acknowledged() -> Value {
    json!({
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {
            "name": "shipping",
            // The builder's default: the library's version, which the workspace shares.
            "version": env!("CARGO_PKG_VERSION"),
        }},
    })
}
