//! A session with the stdio fixture server, spawned as a child process: one JSON-RPC message
//! per line on its stdin, one answer per line on its stdout. Every read gives up after
//! [`READ_TIMEOUT`]; what the fixture writes to stderr is kept, and shown when a test fails.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Every read from the fixture gives up after this long.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Whether a failure already showed the stderr.
    shown: std::cell::Cell<bool>,
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
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the stdio fixture starts");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().unwrap();
        let kept = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(read @ 1..) = pipe.read(&mut chunk).await {
                kept.lock().unwrap().extend_from_slice(&chunk[..read]);
            }
        });
        Self {
            child,
            stdin,
            lines,
            stderr,
            shown: std::cell::Cell::new(false),
        }
    }

    /// What the fixture wrote to stderr so far.
    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Fails the test with `what` and the fixture's stderr.
    fn fail(&self, what: &str) -> ! {
        self.shown.set(true);
        panic!("{what}; the stdio fixture's stderr:\n{}", self.stderr())
    }

    /// Writes `line` and its newline.
    pub(crate) async fn write(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// The next line, as written; fails the test after [`READ_TIMEOUT`] without one.
    pub(crate) async fn read_line(&mut self) -> String {
        match tokio::time::timeout(READ_TIMEOUT, self.lines.next_line()).await {
            Ok(Ok(Some(line))) => line,
            Ok(Ok(None)) => self.fail("the fixture closed its stdout"),
            Ok(Err(error)) => self.fail(&format!("cannot read the fixture's stdout: {error}")),
            Err(_) => self.fail(&format!("no line within {READ_TIMEOUT:?}")),
        }
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

    /// Closes the fixture's stdin, as a client going away does, and waits (at most
    /// [`READ_TIMEOUT`]) for it to exit; its exit status and the lines it wrote after the
    /// last one read.
    pub(crate) async fn close(&mut self) -> (ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let status = match tokio::time::timeout(READ_TIMEOUT, self.child.wait()).await {
            Ok(Ok(status)) => status,
            Ok(Err(error)) => self.fail(&format!("cannot wait for the fixture: {error}")),
            Err(_) => self.fail("the fixture is still running after its stdin closed"),
        };
        let mut rest = Vec::new();
        loop {
            match tokio::time::timeout(READ_TIMEOUT, self.lines.next_line()).await {
                Ok(Ok(Some(line))) => rest.push(line),
                Ok(Ok(None)) => break,
                Ok(Err(error)) => self.fail(&format!("cannot read the fixture's stdout: {error}")),
                Err(_) => self.fail("the fixture's stdout is still open after it exited"),
            }
        }
        (status, rest)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if std::thread::panicking() && !self.shown.get() {
            eprintln!("the stdio fixture's stderr:\n{}", self.stderr());
        }
    }
}

/// A `_meta` declaring no client capability.
pub(crate) fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}
