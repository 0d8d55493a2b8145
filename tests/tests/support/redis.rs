//! A real Redis for tests: the one at `REDIS_URL`, or a `redis-server` each test starts on a
//! free loopback port and stops when done. Shared by the test crates.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::state::RedisReplayStore;

const MISSING: &str = "`redis-server` is not on PATH and REDIS_URL is unset: run the tests \
                       with `scripts/test.sh`, which installs it first";

/// A Redis for one test: the one at `REDIS_URL`, or a `redis-server` of its own (stopped
/// when this drops). Each test writes under a prefix of its own.
pub(crate) struct TestRedis {
    url: String,
    server: Option<Child>,
    prefix: String,
    /// Where a persisting server keeps its append-only file; `None` keeps nothing.
    persist_in: Option<std::path::PathBuf>,
}

impl TestRedis {
    pub(crate) fn shared_or_own() -> Self {
        match std::env::var("REDIS_URL") {
            Ok(url) if !url.is_empty() => Self {
                url,
                server: None,
                prefix: unique_prefix(),
                persist_in: None,
            },
            _ => Self::own(),
        }
    }

    /// A `redis-server` of its own on a free loopback port, whatever `REDIS_URL` says,
    /// keeping nothing across a restart.
    pub(crate) fn own() -> Self {
        Self::own_in(None)
    }

    /// A `redis-server` of its own that writes every change to its append-only file before
    /// answering (`appendonly yes`, `appendfsync always`), in a fresh directory, so a restart
    /// keeps what it held.
    pub(crate) fn own_persistent() -> Self {
        let dir =
            std::env::temp_dir().join(format!("mcp-redis-{}", unique_prefix().replace(':', "-")));
        std::fs::create_dir_all(&dir).expect("a directory for the append-only file");
        Self::own_in(Some(dir))
    }

    fn own_in(persist_in: Option<std::path::PathBuf>) -> Self {
        for _ in 0..5 {
            let port = free_port();
            if let Some(server) = spawn_on(port, persist_in.as_deref()) {
                return Self {
                    url: format!("redis://127.0.0.1:{port}"),
                    server: Some(server),
                    prefix: unique_prefix(),
                    persist_in,
                };
            }
        }
        panic!("could not start `redis-server` on a free port");
    }

    pub(crate) fn port(&self) -> u16 {
        self.url
            .rsplit(':')
            .next()
            .and_then(|port| port.trim_end_matches('/').parse().ok())
            .expect("the test's own server has a port")
    }

    pub(crate) async fn store(&self) -> RedisReplayStore {
        RedisReplayStore::connect(&self.url)
            .await
            .unwrap_or_else(|error| panic!("cannot connect to {}: {error}", self.url))
            .with_prefix(self.prefix.clone())
    }

    /// Stops the server this test started.
    pub(crate) fn stop(&mut self) {
        if let Some(mut server) = self.server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        self.stop();
        if let Some(dir) = &self.persist_in {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A key prefix no other test (of this process or another) uses.
fn unique_prefix() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = Instant::now().elapsed().as_nanos()
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("mcp:test:{}:{nanos:x}:{n}:", std::process::id())
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Starts `redis-server` on `port` and waits until it answers; `None` when it exits first
/// (the port was taken meanwhile). With `persist_in`, it keeps an append-only file there,
/// written before each answer; without, it keeps nothing.
pub(crate) fn spawn_on(port: u16, persist_in: Option<&std::path::Path>) -> Option<Child> {
    let mut command = Command::new("redis-server");
    command
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--daemonize", "no"]);
    match persist_in {
        Some(dir) => command
            .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
            .arg(dir),
        None => command.args(["--appendonly", "no"]),
    };
    let mut server = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| match error.kind() {
            std::io::ErrorKind::NotFound => panic!("{MISSING}"),
            _ => panic!("cannot start `redis-server`: {error}"),
        });
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if server.try_wait().ok().flatten().is_some() {
            return None;
        }
        if answers_ping(port) {
            return Some(server);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = server.kill();
    let _ = server.wait();
    None
}

fn answers_ping(port: u16) -> bool {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut stream) = TcpStream::connect_timeout(&address, Duration::from_millis(200)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut reply = [0; 5];
    stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG"
}

impl TestRedis {
    /// The URL clients connect to.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Starts the test's own server again on its port: empty, or with what it persisted.
    pub(crate) fn restart(&mut self) {
        self.stop();
        let server = spawn_on(self.port(), self.persist_in.as_deref());
        self.server = Some(server.expect("the port is free again"));
    }

    /// The key prefix of this test.
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }
}
