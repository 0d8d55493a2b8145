//! Hostile clients against a `deploy` server, printing what each attack costs the server:
//! its resident memory and open file descriptors (from `/proc/<pid>`, given `--server-pid`),
//! and when it closes the connections that stall.
//!
//! ```sh
//! target/release/deploy --listen 127.0.0.1:3000 &
//! target/release/attack --addr 127.0.0.1:3000 --server-pid $! chunks
//! ```
//!
//! Modes, each bounded in connections and time:
//!
//! - `chunks`: bodies sent as one-byte chunks, each in its own TCP segment; the server's
//!   memory before, at its peak and after.
//! - `stall --kind headers|body|silent|idle`: connections that send half a header (a byte
//!   more every second), half a body (likewise), nothing, or one request and then nothing;
//!   how many the server closed, and after how long.
//! - `connections`: many silent connections at once; the server's open descriptors, and
//!   whether a request on one more connection is answered.
//! - `hold`: legacy calls whose question is never answered, each holding a request in
//!   flight; how many the server took and how many it refused with `503`.
//! - `session-bloat`: `initialize` calls declaring megabytes of capabilities; the server's
//!   memory.
//! - `subscribe-flood`: `resources/subscribe` calls with megabyte URIs on one session; the
//!   server's memory.
//! - `stream-hold`: a thousand standalone `GET` streams on one session, every connection kept
//!   open; whether an honest request is answered meanwhile.
//! - `eviction`: an honest session, then thousands of `initialize` calls from another address
//!   (`--from`, another loopback address); whether the honest session survives.
//! - `sessions-mix`: the four above at once for `--duration` seconds, beside an honest
//!   session that must stay open (`scripts/soak.sh` runs it next to honest flows).
//! - `mix`: slow headers, slow chunked bodies, silent connections, deeply nested 4 MiB JSON
//!   bodies and junk bytes at once for `--duration` seconds (`scripts/soak.sh` runs it next
//!   to honest flows).
//! - `replay-fill`: one subject mints and uses single-use states as fast as it can while
//!   another runs single-use flows; the honest rounds that succeed and their latency, with the
//!   replay store's per-subject quota and without it. Serves its own server (below).
//! - `token-spray`: bearer tokens with garbage signatures under the server's `kid` while a
//!   client whose token is cached lists the tools; its latency quiet and under spray, with
//!   the bound on signature checks at once and without it. Serves its own server.
//!
//! `replay-fill` and `token-spray` need callers told apart by tokens the server trusts, so
//! they ignore `--addr` and `--server-pid`: each starts a `deploy` server (every state
//! single-use, OAuth trusting the end-to-end tests' P-256 key) on a loopback port, on a
//! runtime of its own, in this process.
//!
//! Traffic goes to `--addr` only; run it against a loopback server.

use std::future::Future;
use std::io::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};

/// The `replay-fill` and `token-spray` modes.
#[path = "attack/states.rs"]
mod states;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

#[path = "attack/sessions.rs"]
mod sessions;

#[derive(Parser)]
#[command(about = "Hostile clients against a `deploy` server, with the server's costs")]
struct Cli {
    /// The server's address; the endpoint is `/mcp`.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// The server's process id, to report its memory and descriptors (Linux `/proc`).
    #[arg(long)]
    server_pid: Option<u32>,
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Bodies of one-byte chunks, each written (and flushed) alone.
    Chunks {
        /// Connections sending a body at once.
        #[arg(long, default_value_t = 4)]
        connections: usize,
        /// One-byte chunks per body.
        #[arg(long, default_value_t = 50_000)]
        chunks: usize,
        /// Pause between two chunks of one body, in microseconds.
        #[arg(long, default_value_t = 20)]
        pause_us: u64,
    },
    /// Connections that stall; when does the server close them?
    Stall {
        #[arg(long, value_enum)]
        kind: Stall,
        /// Connections at once.
        #[arg(long, default_value_t = 100)]
        connections: usize,
        /// How long to keep them, in seconds.
        #[arg(long, default_value_t = 15.0)]
        hold: f64,
    },
    /// Many silent connections at once, then one honest request.
    Connections {
        /// Connections opened.
        #[arg(long, default_value_t = 2000)]
        connections: usize,
        /// How long to keep them before the honest request, in seconds.
        #[arg(long, default_value_t = 2.0)]
        hold: f64,
    },
    /// Legacy calls whose question is never answered.
    Hold {
        /// Calls left waiting, one connection each.
        #[arg(long, default_value_t = 600)]
        calls: usize,
        /// How long to keep them, in seconds.
        #[arg(long, default_value_t = 3.0)]
        hold: f64,
    },
    /// `initialize` calls declaring megabytes of capabilities each.
    SessionBloat {
        #[arg(long, default_value_t = 2000)]
        sessions: usize,
        /// Megabytes of capabilities each call declares.
        #[arg(long, default_value_t = 3.6)]
        megabytes: f64,
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
    },
    /// `resources/subscribe` calls with long URIs on one session.
    SubscribeFlood {
        #[arg(long, default_value_t = 10_000)]
        subscribes: usize,
        /// KiB of each URI.
        #[arg(long, default_value_t = 1024)]
        kib: usize,
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
    },
    /// Standalone `GET` streams on one session, each on a connection kept open.
    StreamHold {
        #[arg(long, default_value_t = 1100)]
        streams: usize,
        /// How long to keep them after the honest request, in seconds.
        #[arg(long, default_value_t = 1.0)]
        hold: f64,
    },
    /// An honest session, then `initialize` calls from another address.
    Eviction {
        #[arg(long, default_value_t = 10_000)]
        sessions: usize,
        /// The address the calls come from (another loopback address on one machine).
        #[arg(long, default_value = "127.0.0.2")]
        from: IpAddr,
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Every session attack at once, beside an honest session.
    SessionsMix {
        /// Seconds to attack for.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
        /// The address the initialize floods come from.
        #[arg(long, default_value = "127.0.0.2")]
        from: IpAddr,
    },
    /// Every hostile client at once.
    Mix {
        /// Seconds to attack for.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
    },
    /// One subject fills the replay store while another runs single-use flows.
    ReplayFill {
        /// The attacker's connections at once.
        #[arg(long, default_value_t = 16)]
        workers: usize,
        /// Seconds to attack for.
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// The in-process store's capacity (small, so that one run fills it).
        #[arg(long, default_value_t = 4_000)]
        capacity: usize,
    },
    /// Garbage signatures sprayed while a cached-token client calls.
    TokenSpray {
        /// Spraying connections at once.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Seconds to spray for.
        #[arg(long, default_value_t = 5.0)]
        duration: f64,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Stall {
    /// Half a request head, one more header line every second.
    Headers,
    /// A whole head declaring 100,000 bytes of body, then one byte every second.
    Body,
    /// Nothing at all.
    Silent,
    /// One whole request, then nothing (an idle keep-alive connection).
    Idle,
}

fn main() {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let target = Target {
        addr: cli.addr,
        pid: cli.server_pid,
    };
    let result = runtime.block_on(async move {
        match cli.mode {
            Mode::Chunks {
                connections,
                chunks,
                pause_us,
            } => chunks_attack(target, connections, chunks, pause_us).await,
            Mode::Stall {
                kind,
                connections,
                hold,
            } => stall_attack(target, kind, connections, secs(hold)).await,
            Mode::Connections { connections, hold } => {
                connections_attack(target, connections, secs(hold)).await
            }
            Mode::Hold { calls, hold } => hold_attack(target, calls, secs(hold)).await,
            Mode::SessionBloat {
                sessions,
                megabytes,
                concurrency,
            } => sessions::session_bloat(target, sessions, megabytes, concurrency).await,
            Mode::SubscribeFlood {
                subscribes,
                kib,
                concurrency,
            } => sessions::subscribe_flood(target, subscribes, kib, concurrency).await,
            Mode::StreamHold { streams, hold } => {
                sessions::stream_hold(target, streams, secs(hold)).await
            }
            Mode::Eviction {
                sessions,
                from,
                concurrency,
            } => sessions::eviction(target, sessions, from, concurrency).await,
            Mode::SessionsMix { duration, from } => {
                sessions::sessions_mix(target, secs(duration), from).await
            }
            Mode::Mix { duration } => mix_attack(target, secs(duration)).await,
            Mode::ReplayFill {
                workers,
                duration,
                capacity,
            } => states::replay_fill_attack(workers, secs(duration), capacity).await,
            Mode::TokenSpray {
                connections,
                duration,
            } => states::token_spray_attack(connections, secs(duration)).await,
        }
    });
    if let Err(error) = result {
        eprintln!("attack: {error}");
        std::process::exit(1);
    }
}

fn secs(seconds: f64) -> Duration {
    Duration::from_secs_f64(seconds.max(0.0))
}

/// The server under attack.
#[derive(Clone, Copy)]
struct Target {
    addr: SocketAddr,
    pid: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// The server's costs, from /proc.

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process's open file descriptors.
fn descriptors(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Samples the server's resident memory and descriptors every 10 ms while an attack runs.
struct Monitor {
    pid: Option<u32>,
    rss_before: Option<u64>,
    fds_before: Option<usize>,
    peak_rss: Arc<AtomicU64>,
    peak_fds: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    sampler: Option<tokio::task::JoinHandle<()>>,
}

impl Monitor {
    fn start(target: Target) -> Self {
        let pid = target.pid;
        let rss_before = pid.and_then(|pid| status_kib(pid, "VmRSS:"));
        let fds_before = pid.and_then(descriptors);
        let peak_rss = Arc::new(AtomicU64::new(rss_before.unwrap_or(0)));
        let peak_fds = Arc::new(AtomicU64::new(fds_before.unwrap_or(0) as u64));
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = pid.map(|pid| {
            let (peak_rss, peak_fds, stop) = (
                Arc::clone(&peak_rss),
                Arc::clone(&peak_fds),
                Arc::clone(&stop),
            );
            // A thread of its own: the sampling goes on while the attack's tasks keep the
            // runtime busy.
            tokio::task::spawn_blocking(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(rss) = status_kib(pid, "VmRSS:") {
                        peak_rss.fetch_max(rss, Ordering::Relaxed);
                    }
                    if let Some(fds) = descriptors(pid) {
                        peak_fds.fetch_max(fds as u64, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        });
        Self {
            pid,
            rss_before,
            fds_before,
            peak_rss,
            peak_fds,
            stop,
            sampler,
        }
    }

    /// The server's open descriptors now.
    fn fds_now(&self) -> Option<usize> {
        self.pid.and_then(descriptors)
    }

    /// Stops sampling and prints the figures.
    async fn report(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(sampler) = self.sampler.take() {
            let _ = sampler.await;
        }
        let Some(pid) = self.pid else {
            println!("server:         (no --server-pid: memory and descriptors not read)");
            return;
        };
        let after = status_kib(pid, "VmRSS:");
        let hwm = status_kib(pid, "VmHWM:");
        println!(
            "server memory:  before {}, peak {}, after {} (VmHWM {})",
            self.rss_before.map_or("?".to_owned(), mib),
            mib(self.peak_rss.load(Ordering::Relaxed)),
            after.map_or("?".to_owned(), mib),
            hwm.map_or("?".to_owned(), mib),
        );
        println!(
            "server fds:     before {}, peak {}, after {}",
            self.fds_before.map_or("?".to_owned(), |n| n.to_string()),
            self.peak_fds.load(Ordering::Relaxed),
            descriptors(pid).map_or("?".to_owned(), |n| n.to_string()),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Requests, by hand.

const PROTOCOL_VERSION: &str = "2026-07-28";

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A request head for `POST /mcp` with conforming headers and `extra` ones.
fn head(addr: SocketAddr, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n{extra}\r\n"
    )
}

/// A whole request with a `Content-Length` body.
fn request(addr: SocketAddr, extra: &str, body: &str) -> String {
    let extra = format!("{extra}Content-Length: {}\r\n", body.len());
    format!("{}{body}", head(addr, &extra))
}

/// An answer's status line and headers.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads an answer's head; what followed it stays in `buffer`.
async fn read_head(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<Head, String> {
    loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            let text = String::from_utf8_lossy(&buffer[..end]).into_owned();
            buffer.drain(..end + 4);
            let mut lines = text.split("\r\n");
            let status = lines
                .next()
                .and_then(|line| line.split(' ').nth(1))
                .and_then(|code| code.parse().ok())
                .ok_or_else(|| format!("not an HTTP answer: {text:?}"))?;
            let headers = lines
                .filter_map(|line| line.split_once(':'))
                .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
                .collect();
            return Ok(Head { status, headers });
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) => return Err("the server closed the connection".to_owned()),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(error) => return Err(format!("cannot read: {error}")),
        }
    }
}

/// Reads a `Content-Length` body after its head.
async fn read_body(
    stream: &mut TcpStream,
    head: &Head,
    buffer: &mut Vec<u8>,
) -> Result<Vec<u8>, String> {
    let length: usize = head
        .header("content-length")
        .and_then(|value| value.parse().ok())
        .ok_or("the answer has no Content-Length")?;
    while buffer.len() < length {
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) => return Err("the server closed the connection".to_owned()),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(error) => return Err(format!("cannot read: {error}")),
        }
    }
    Ok(buffer.drain(..length).collect())
}

/// Reads until the server closes the connection (or resets it).
async fn until_closed(stream: &mut TcpStream) {
    let mut chunk = [0u8; 4096];
    while matches!(stream.read(&mut chunk).await, Ok(read) if read > 0) {}
}

/// Counts of what answers said, by status (`0`: no answer, the connection closed).
#[derive(Default)]
struct Statuses(std::collections::BTreeMap<u16, u64>);

impl Statuses {
    fn add(&mut self, status: u16) {
        *self.0.entry(status).or_default() += 1;
    }

    fn merge(&mut self, other: Statuses) {
        for (status, count) in other.0 {
            *self.0.entry(status).or_default() += count;
        }
    }
}

impl std::fmt::Display for Statuses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(status, count)| match status {
                0 => format!("{count} closed unanswered"),
                _ => format!("{count} × {status}"),
            })
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// Seconds with two decimals, or `-`.
fn seconds(duration: Option<Duration>) -> String {
    duration.map_or("-".to_owned(), |d| format!("{:.2} s", d.as_secs_f64()))
}

// ---------------------------------------------------------------------------------------------
// chunks

async fn chunks_attack(
    target: Target,
    connections: usize,
    chunks: usize,
    pause_us: u64,
) -> Result<(), String> {
    println!(
        "== {connections} connections, each a body of {chunks} one-byte chunks \
         ({pause_us} µs apart)"
    );
    let monitor = Monitor::start(target);
    let started = Instant::now();
    // Blocking threads: sub-millisecond pauses, and each chunk is its own write.
    let mut senders = Vec::new();
    for _ in 0..connections {
        let addr = target.addr;
        senders.push(std::thread::spawn(move || {
            send_chunked(addr, chunks, Duration::from_micros(pause_us))
        }));
    }
    let mut statuses = Statuses::default();
    for sender in senders {
        let joined = tokio::task::spawn_blocking(move || sender.join())
            .await
            .map_err(|error| error.to_string())?;
        match joined {
            Ok(Ok(status)) => statuses.add(status),
            Ok(Err(error)) => {
                println!("a sender failed: {error}");
                statuses.add(0);
            }
            Err(_) => return Err("a sender panicked".to_owned()),
        }
    }
    println!(
        "answers:        {statuses} after {:.2} s",
        started.elapsed().as_secs_f64()
    );
    monitor.report().await;
    Ok(())
}

/// Sends one chunked body, then a `server/discover` as its last chunk; returns the status.
fn send_chunked(addr: SocketAddr, chunks: usize, pause: Duration) -> Result<u16, String> {
    use std::io::Read as _;
    let mut stream =
        std::net::TcpStream::connect(addr).map_err(|error| format!("cannot connect: {error}"))?;
    stream
        .set_nodelay(true)
        .map_err(|error| error.to_string())?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|error| error.to_string())?;
    let head = head(addr, "Transfer-Encoding: chunked\r\n");
    let io = |error: std::io::Error| format!("the server stopped reading: {error}");
    stream.write_all(head.as_bytes()).map_err(io)?;
    for _ in 0..chunks {
        // Whitespace before the JSON message: the body stays a valid request.
        stream.write_all(b"1\r\n \r\n").map_err(io)?;
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
    }
    let last = format!("{:x}\r\n{DISCOVER}\r\n0\r\n\r\n", DISCOVER.len());
    stream.write_all(last.as_bytes()).map_err(io)?;
    let mut answer = [0u8; 64];
    let read = stream.read(&mut answer).map_err(io)?;
    let text = String::from_utf8_lossy(&answer[..read]);
    Ok(text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0))
}

// ---------------------------------------------------------------------------------------------
// stall

/// What became of one stalling connection.
enum Fate {
    /// The server closed it this long after it was opened.
    Closed(Duration),
    /// Still open when the attack ended.
    Open,
    /// It could not be opened.
    Refused,
}

async fn stall_attack(
    target: Target,
    kind: Stall,
    connections: usize,
    hold: Duration,
) -> Result<(), String> {
    let what = match kind {
        Stall::Headers => "half a request head, a header line more every second",
        Stall::Body => "a head declaring 100,000 bytes, then a byte every second",
        Stall::Silent => "nothing",
        Stall::Idle => "one request, then nothing",
    };
    println!(
        "== {connections} connections sending {what}, kept {:.0} s",
        hold.as_secs_f64()
    );
    let monitor = Monitor::start(target);
    let deadline = tokio::time::Instant::now() + hold;
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        tasks.spawn(stall(target.addr, kind, deadline));
    }
    tokio::time::sleep(Duration::from_millis(500).min(hold / 2)).await;
    let fds_while = monitor.fds_now();
    let mut closed = Vec::new();
    let (mut open, mut refused) = (0, 0);
    while let Some(fate) = tasks.join_next().await {
        match fate.map_err(|error| error.to_string())? {
            Fate::Closed(after) => closed.push(after),
            Fate::Open => open += 1,
            Fate::Refused => refused += 1,
        }
    }
    closed.sort_unstable();
    println!(
        "closed by the server: {} (after {} at the earliest, {} median, {} at the latest)",
        closed.len(),
        seconds(closed.first().copied()),
        seconds(closed.get(closed.len() / 2).copied()),
        seconds(closed.last().copied()),
    );
    println!(
        "still open after {:.0} s: {open}; could not connect: {refused}",
        hold.as_secs_f64()
    );
    if let Some(fds) = fds_while {
        println!("server fds with the connections open: {fds}");
    }
    monitor.report().await;
    Ok(())
}

/// Opens one connection that stalls as `kind` says, until the server closes it or `deadline`.
async fn stall(addr: SocketAddr, kind: Stall, deadline: tokio::time::Instant) -> Fate {
    let opened = Instant::now();
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return Fate::Refused;
    };
    let first: Vec<u8> = match kind {
        Stall::Headers => format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").into_bytes(),
        Stall::Body => head(addr, "Content-Length: 100000\r\n").into_bytes(),
        Stall::Silent => Vec::new(),
        Stall::Idle => request(addr, "", DISCOVER).into_bytes(),
    };
    if stream.write_all(&first).await.is_err() {
        return Fate::Closed(opened.elapsed());
    }
    let (mut reader, mut writer) = stream.split();
    let closed = async {
        let mut chunk = [0u8; 4096];
        while matches!(reader.read(&mut chunk).await, Ok(read) if read > 0) {}
    };
    let trickle = async {
        for line in 0u64.. {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let more = match kind {
                Stall::Headers => format!("X-Slow-{line}: 1\r\n").into_bytes(),
                Stall::Body => b" ".to_vec(),
                Stall::Silent | Stall::Idle => continue,
            };
            if writer.write_all(&more).await.is_err() {
                break;
            }
        }
        // The server stopped reading: wait for the close to be seen by the reader.
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = closed => Fate::Closed(opened.elapsed()),
        () = trickle => unreachable!("the trickle never ends"),
        () = tokio::time::sleep_until(deadline) => Fate::Open,
    }
}

// ---------------------------------------------------------------------------------------------
// connections

async fn connections_attack(
    target: Target,
    connections: usize,
    hold: Duration,
) -> Result<(), String> {
    println!("== {connections} silent connections, then one request on one more connection");
    let monitor = Monitor::start(target);
    let mut open = Vec::with_capacity(connections);
    let mut failed = 0;
    let opening = Instant::now();
    for _ in 0..connections {
        match TcpStream::connect(target.addr).await {
            Ok(stream) => open.push(stream),
            Err(_) => failed += 1,
        }
    }
    println!(
        "opened:         {} in {:.2} s (failed: {failed})",
        open.len(),
        opening.elapsed().as_secs_f64()
    );
    tokio::time::sleep(hold).await;
    if let Some(fds) = monitor.fds_now() {
        println!("server fds with them open: {fds}");
    }
    let started = Instant::now();
    let honest = tokio::time::timeout(Duration::from_secs(3), discover(target.addr)).await;
    match honest {
        Ok(Ok(status)) => println!(
            "honest request: answered {status} after {:.2} s",
            started.elapsed().as_secs_f64()
        ),
        Ok(Err(error)) => println!("honest request: {error}"),
        Err(_) => println!("honest request: no answer within 3 s (the server accepts no more)"),
    }
    drop(open);
    tokio::time::sleep(Duration::from_millis(200)).await;
    monitor.report().await;
    Ok(())
}

/// One stateless `server/discover` on a fresh connection; its status.
async fn discover(addr: SocketAddr) -> Result<u16, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| format!("cannot connect: {error}"))?;
    stream
        .write_all(request(addr, "Mcp-Method: server/discover\r\n", DISCOVER).as_bytes())
        .await
        .map_err(|error| format!("cannot send: {error}"))?;
    let mut buffer = Vec::new();
    let head = read_head(&mut stream, &mut buffer).await?;
    Ok(head.status)
}

// ---------------------------------------------------------------------------------------------
// hold

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"attack","version":"1.0.0"}}}"#;

/// What became of one held call.
enum Held {
    /// The server asked its question and waits for the answer.
    Waiting(TcpStream),
    /// Refused with `429` (the client's own caps) or `503` (the server's); whether it said
    /// when to retry.
    Refused {
        retry_after: bool,
    },
    Other(String),
}

async fn hold_attack(target: Target, calls: usize, hold: Duration) -> Result<(), String> {
    println!(
        "== {calls} legacy calls whose question is never answered, kept {:.0} s",
        hold.as_secs_f64()
    );
    let monitor = Monitor::start(target);
    let addr = target.addr;
    let session = open_session(addr).await?;
    let mut tasks = JoinSet::new();
    for id in 0..calls {
        let session = session.clone();
        tasks.spawn(async move {
            tokio::time::timeout(Duration::from_secs(10), held_call(addr, &session, id))
                .await
                .unwrap_or_else(|_| Held::Other("no answer within 10 s".to_owned()))
        });
    }
    let (mut waiting, mut refused, mut told, mut other) = (Vec::new(), 0, 0, Vec::new());
    while let Some(held) = tasks.join_next().await {
        match held.map_err(|error| error.to_string())? {
            Held::Waiting(stream) => waiting.push(stream),
            Held::Refused { retry_after } => {
                refused += 1;
                told += u64::from(retry_after);
            }
            Held::Other(what) => other.push(what),
        }
    }
    println!("waiting for their answer: {}", waiting.len());
    println!("refused (429 or 503):     {refused} ({told} with Retry-After)");
    if !other.is_empty() {
        println!(
            "otherwise:                {} (first: {})",
            other.len(),
            other[0]
        );
    }
    let started = Instant::now();
    match tokio::time::timeout(Duration::from_secs(3), discover(addr)).await {
        Ok(Ok(status)) => println!(
            "a stateless request meanwhile: {status} after {:.2} s",
            started.elapsed().as_secs_f64()
        ),
        Ok(Err(error)) => println!("a stateless request meanwhile: {error}"),
        Err(_) => println!("a stateless request meanwhile: no answer within 3 s"),
    }
    tokio::time::sleep(hold).await;
    monitor.report().await;
    drop(waiting);
    Ok(())
}

/// `initialize` and `notifications/initialized`; the session id.
async fn open_session(addr: SocketAddr) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| format!("cannot connect: {error}"))?;
    let legacy = "MCP-Protocol-Version: 2025-11-25\r\n";
    stream
        .write_all(
            request(addr, "", INITIALIZE)
                .replace(
                    &format!("MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"),
                    legacy,
                )
                .as_bytes(),
        )
        .await
        .map_err(|error| error.to_string())?;
    let mut buffer = Vec::new();
    let answer = read_head(&mut stream, &mut buffer).await?;
    let session = answer
        .header("mcp-session-id")
        .ok_or(format!(
            "initialize answered {} without a session",
            answer.status
        ))?
        .to_owned();
    read_body(&mut stream, &answer, &mut buffer).await?;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let extra = format!("Mcp-Session-Id: {session}\r\n");
    stream
        .write_all(request(addr, &extra, initialized).as_bytes())
        .await
        .map_err(|error| error.to_string())?;
    read_head(&mut stream, &mut buffer).await?;
    Ok(session)
}

async fn held_call(addr: SocketAddr, session: &str, id: usize) -> Held {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return Held::Other("cannot connect".to_owned());
    };
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"confirm_deploy","arguments":{{}}}}}}"#,
        id + 1
    );
    let extra = format!("Mcp-Session-Id: {session}\r\n");
    let bytes = request(addr, &extra, &call).replace(
        &format!("MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"),
        "MCP-Protocol-Version: 2025-11-25\r\n",
    );
    if stream.write_all(bytes.as_bytes()).await.is_err() {
        return Held::Other("cannot send".to_owned());
    }
    let mut buffer = Vec::new();
    let head = match read_head(&mut stream, &mut buffer).await {
        Ok(head) => head,
        Err(error) => return Held::Other(error),
    };
    match head.status {
        429 | 503 => Held::Refused {
            retry_after: head.header("retry-after").is_some(),
        },
        200 if head
            .header("content-type")
            .is_some_and(|value| value.starts_with("text/event-stream")) =>
        {
            // The question arrives on the stream; the call now waits for its answer.
            while !buffer.windows(5).any(|window| window == b"data:") {
                let mut chunk = [0u8; 4096];
                match stream.read(&mut chunk).await {
                    Ok(read) if read > 0 => buffer.extend_from_slice(&chunk[..read]),
                    _ => return Held::Other("the stream ended".to_owned()),
                }
            }
            Held::Waiting(stream)
        }
        status => Held::Other(format!("answered {status}")),
    }
}

// ---------------------------------------------------------------------------------------------
// mix

/// What one kind of hostile client did during a mixed attack.
#[derive(Default)]
struct Tally {
    connections: u64,
    statuses: Statuses,
}

async fn mix_attack(target: Target, duration: Duration) -> Result<(), String> {
    const SLOW_HEADERS: usize = 64;
    const SILENT: usize = 64;
    const SLOW_BODIES: usize = 8;
    const DEEP: usize = 2;
    const JUNK: usize = 2;
    println!(
        "== for {:.0} s: {SLOW_HEADERS} slow heads, {SILENT} silent connections, \
         {SLOW_BODIES} slow chunked bodies, {DEEP} senders of 4 MiB bodies nested 120 deep, \
         {JUNK} senders of junk bytes",
        duration.as_secs_f64()
    );
    let monitor = Monitor::start(target);
    let deadline = tokio::time::Instant::now() + duration;
    let addr = target.addr;
    let mut kinds: Vec<(&str, JoinSet<Tally>)> = Vec::new();
    let mut spawn = |name: &'static str, count: usize, run: Attacker| {
        let mut set = JoinSet::new();
        for _ in 0..count {
            set.spawn(run(addr, deadline));
        }
        kinds.push((name, set));
    };
    spawn("slow heads", SLOW_HEADERS, |addr, deadline| {
        Box::pin(stall_until(addr, Stall::Headers, deadline))
    });
    spawn("silent connections", SILENT, |addr, deadline| {
        Box::pin(stall_until(addr, Stall::Silent, deadline))
    });
    spawn("slow chunked bodies", SLOW_BODIES, |addr, deadline| {
        Box::pin(slow_chunks_until(addr, deadline))
    });
    spawn("nested 4 MiB bodies", DEEP, |addr, deadline| {
        Box::pin(deep_until(addr, deadline))
    });
    spawn("junk bytes", JUNK, |addr, deadline| {
        Box::pin(junk_until(addr, deadline))
    });
    for (name, mut set) in kinds {
        let mut total = Tally::default();
        while let Some(tally) = set.join_next().await {
            let tally = tally.map_err(|error| error.to_string())?;
            total.connections += tally.connections;
            total.statuses.merge(tally.statuses);
        }
        println!(
            "{name:<20} {} connections; answers: {}",
            total.connections, total.statuses
        );
    }
    monitor.report().await;
    Ok(())
}

/// One hostile client of a mixed attack, running until its deadline.
type Attacker = fn(SocketAddr, tokio::time::Instant) -> Pin<Box<dyn Future<Output = Tally> + Send>>;

/// Stalling connections, one after the other, until `deadline`.
async fn stall_until(addr: SocketAddr, kind: Stall, deadline: tokio::time::Instant) -> Tally {
    let mut tally = Tally::default();
    while tokio::time::Instant::now() < deadline {
        tally.connections += 1;
        match stall(addr, kind, deadline).await {
            Fate::Closed(_) => tally.statuses.add(0),
            Fate::Open => {}
            // The server takes no more connections for now: wait a little.
            Fate::Refused => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    tally
}

/// Chunked bodies of one byte per millisecond, 20,000 chunks each, one after the other.
async fn slow_chunks_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
    let mut tally = Tally::default();
    while tokio::time::Instant::now() < deadline {
        tally.connections += 1;
        let sent = tokio::time::timeout_at(deadline, async {
            let mut stream = TcpStream::connect(addr).await.ok()?;
            stream.set_nodelay(true).ok()?;
            let head = head(addr, "Transfer-Encoding: chunked\r\n");
            stream.write_all(head.as_bytes()).await.ok()?;
            for _ in 0..20_000 {
                if stream.write_all(b"1\r\n \r\n").await.is_err() {
                    return Some(0);
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            let last = format!("{:x}\r\n{DISCOVER}\r\n0\r\n\r\n", DISCOVER.len());
            stream.write_all(last.as_bytes()).await.ok()?;
            let mut buffer = Vec::new();
            Some(
                read_head(&mut stream, &mut buffer)
                    .await
                    .map_or(0, |head| head.status),
            )
        })
        .await;
        match sent {
            Ok(Some(status)) => tally.statuses.add(status),
            Ok(None) => tally.statuses.add(0),
            Err(_) => {}
        }
    }
    tally
}

/// A `tools/call` of about 4 MiB whose arguments hold arrays nested 120 deep.
fn deep_body() -> String {
    let nested = format!("{}{}", "[".repeat(120), "]".repeat(120));
    let prefix = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"confirm_deploy","arguments":{"deep":["#;
    let suffix = r#"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let room = 4 * 1024 * 1024 - 1024 - prefix.len() - suffix.len();
    let copies = room / (nested.len() + 1);
    let mut body = String::with_capacity(4 * 1024 * 1024);
    body.push_str(prefix);
    for copy in 0..copies {
        if copy > 0 {
            body.push(',');
        }
        body.push_str(&nested);
    }
    body.push_str(suffix);
    body
}

/// Deeply nested 4 MiB bodies, one after the other on fresh connections.
async fn deep_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
    let message = Arc::new(request(addr, "", &deep_body()));
    let mut tally = Tally::default();
    while tokio::time::Instant::now() < deadline {
        tally.connections += 1;
        let message = Arc::clone(&message);
        let status = tokio::time::timeout_at(deadline, async move {
            let mut stream = TcpStream::connect(addr).await.ok()?;
            stream.write_all(message.as_bytes()).await.ok()?;
            let mut buffer = Vec::new();
            Some(
                read_head(&mut stream, &mut buffer)
                    .await
                    .map_or(0, |head| head.status),
            )
        })
        .await;
        match status {
            Ok(Some(status)) => tally.statuses.add(status),
            Ok(None) => tally.statuses.add(0),
            Err(_) => {}
        }
    }
    tally
}

/// 64 KiB of pseudo-random bytes per connection, one connection after the other.
async fn junk_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
    let mut tally = Tally::default();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    while tokio::time::Instant::now() < deadline {
        tally.connections += 1;
        let mut junk = Vec::with_capacity(64 * 1024);
        while junk.len() < 64 * 1024 {
            // xorshift64: junk, not cryptography.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            junk.extend_from_slice(&seed.to_le_bytes());
        }
        let status = tokio::time::timeout_at(deadline, async {
            let mut stream = TcpStream::connect(addr).await.ok()?;
            // The server may answer 400 and close before reading it all.
            let _ = stream.write_all(&junk).await;
            let mut buffer = Vec::new();
            let status = read_head(&mut stream, &mut buffer)
                .await
                .map_or(0, |head| head.status);
            until_closed(&mut stream).await;
            Some(status)
        })
        .await;
        match status {
            Ok(Some(status)) => tally.statuses.add(status),
            Ok(None) => tally.statuses.add(0),
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tally
}
