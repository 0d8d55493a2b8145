//! A session with the stdio fixture server, spawned as a child process: one JSON-RPC message
//! per line on its stdin, one answer per line on its stdout.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

pub(crate) struct Session {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) lines: Lines<BufReader<ChildStdout>>,
}

impl Session {
    /// The fixture serving the hand-written test handlers.
    pub(crate) fn spawn() -> Self {
        Self::spawn_with(&[])
    }

    /// The fixture started with `args` (`--deploy` serves the `deploy` example's tools).
    pub(crate) fn spawn_with(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stdio-fixture"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the stdio fixture starts");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            lines,
        }
    }

    /// Writes `line` and its newline.
    pub(crate) async fn write(&mut self, line: &[u8]) {
        self.stdin.write_all(line).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// The next line, as written; fails the test after ten seconds without one.
    pub(crate) async fn read_line(&mut self) -> String {
        tokio::time::timeout(std::time::Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a line arrives in time")
            .unwrap()
            .expect("an answer line")
    }

    /// The next line, parsed.
    pub(crate) async fn read(&mut self) -> Value {
        let line = self.read_line().await;
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
    }

    /// Sends a request (with a default `_meta` unless `params` has one) and reads its answer.
    pub(crate) async fn call(&mut self, id: Value, method: &str, mut params: Value) -> Value {
        if params.get("_meta").is_none() {
            params["_meta"] = meta();
        }
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        self.write(message.to_string().as_bytes()).await;
        self.read().await
    }
}

/// A `_meta` declaring no client capability.
pub(crate) fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}
