//! Load generator: drives complete two-round `confirm_deploy` flows against a `deploy` server
//! over HTTP and reports flows per second, round latency percentiles and, given the server's
//! process id, the server's CPU time per flow: on the stateless 2026-07-28 wire, on legacy
//! 2025-11-25 sessions, or both in one run with their ratio (`--era`).
//!
//! ```sh
//! taskset -c 0 target/release/deploy --listen 127.0.0.1:3000 &
//! taskset -c 1 target/release/load --addr 127.0.0.1:3000 --server-pid $!
//! ```
//!
//! `scripts/load.sh` does both, in release, on a free port.
//!
//! Each of `--concurrency` workers holds one keep-alive connection and runs one flow at a time:
//! a first `tools/call` answered `input_required` with the `confirm` question, then the retry
//! carrying the answer and the echoed `requestState`, answered "Deployment confirmed.". Flows
//! that finish during the measured window (after a warm-up) are counted; the server's CPU time
//! is read from `/proc/<pid>/stat` at both ends of the window. A legacy worker opens one
//! session, then calls `confirm_deploy` on one connection, reads the `elicitation/create` on
//! the call's stream, POSTs its answer on a second connection and reads the result.
//!
//! With `--flows N` it runs exactly N flows of each wire instead, with no warm-up and no
//! window: `scripts/load.sh --instructions` runs a server under callgrind and counts its
//! instructions for a known number of flows.

#[path = "load/legacy.rs"]
mod legacy;
#[path = "load/proc_stat.rs"]
mod proc_stat;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper::{Request, StatusCode, header};
use hyper_util::rt::TokioIo;
use serde::Deserialize;
use tokio::net::TcpStream;

use legacy::drive_legacy;
use proc_stat::{cpu_seconds, resident_kib};

#[derive(Parser)]
#[command(about = "Drives two-round `confirm_deploy` flows against a `deploy` server over HTTP")]
struct Cli {
    /// The server's address; the endpoint is `/mcp`.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// Flows in flight at once, one keep-alive connection each.
    #[arg(long, default_value_t = 32)]
    concurrency: usize,
    /// Length of the measured window, in seconds.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Load before the measured window starts, in seconds.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// The server's process id, to report its CPU time per flow (Linux `/proc`).
    #[arg(long)]
    server_pid: Option<u32>,
    /// Which wire to drive: `stateless` (2026-07-28 rounds), `legacy` (a 2025-11-25 session
    /// per worker, the question answered as a server-to-client request on the call's stream),
    /// or `both`, one window after the other against the same server, with their ratio.
    #[arg(long, value_enum, default_value_t = Era::Both)]
    era: Era,
    /// Count failed flows and go on (on a new connection) instead of stopping at the first;
    /// stateless flows only. The count is printed as `errors:`.
    #[arg(long)]
    keep_going: bool,
    /// Run exactly this many flows of each wire, then stop: no warm-up and no measured window.
    #[arg(long, conflicts_with_all = ["duration", "warmup"])]
    flows: Option<u64>,
    /// Keep the generator's thread from ever sleeping: it polls its sockets in a loop instead
    /// of waiting in the kernel. A sleeping generator is woken by the server's reply, in the
    /// server's `write` (an inter-processor interrupt on loopback), and it sleeps only when
    /// the server is the slower side: without `--spin`, a slower server pays for waking the
    /// generator where a faster one does not. With it, neither does; the generator's core is
    /// busy throughout, and a server faster than the generator sleeps and wakes itself instead,
    /// so compare a server's figures with and without it rather than two servers' ratio.
    #[arg(long)]
    spin: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Era {
    Stateless,
    Legacy,
    Both,
}

const PROTOCOL_VERSION: &str = "2026-07-28";

/// Set by the main task: whether finished flows count, and whether workers should stop.
struct Control {
    measuring: AtomicBool,
    stop: AtomicBool,
    /// Flows still to start, with `--flows`.
    quota: Option<AtomicU64>,
}

impl Control {
    /// Whether a worker may start another flow; takes it from the quota, if there is one.
    fn next_flow(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        self.quota.as_ref().is_none_or(|quota| {
            quota
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(1)
                })
                .is_ok()
        })
    }
}

/// What one worker measured.
#[derive(Default)]
struct Tally {
    flows: u64,
    /// Round latencies of counted flows, in microseconds.
    rounds: Vec<u32>,
    /// Flows that failed (with `--keep-going`), and the first failure.
    errors: u64,
    first_error: Option<String>,
}

fn main() {
    let cli = Cli::parse();
    // One thread: the generator is pinned to one core, and must not compete with itself.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    if cli.spin {
        runtime.spawn(spin());
    }
    if let Err(error) = runtime.block_on(run(cli)) {
        eprintln!("load: {error}");
        std::process::exit(1);
    }
}

/// Yields forever: the runtime, always having a task to run, checks its sockets without
/// waiting and never parks its thread.
async fn spin() {
    loop {
        tokio::task::yield_now().await;
    }
}

async fn run(cli: Cli) -> Result<(), String> {
    if cli.keep_going && cli.era != Era::Stateless {
        return Err("--keep-going drives stateless flows only: add --era stateless".to_owned());
    }
    let stateless = match cli.era {
        Era::Stateless | Era::Both => Some(window(&cli, false).await?),
        Era::Legacy => None,
    };
    let legacy = match cli.era {
        Era::Legacy | Era::Both => Some(window(&cli, true).await?),
        Era::Stateless => None,
    };
    if let (Some(Some(stateless)), Some(Some(legacy))) = (stateless, legacy) {
        println!(
            "legacy / stateless server CPU per flow: {:.2}x (budget 1.5x)",
            legacy / stateless
        );
    }
    Ok(())
}

/// One measured window of one wire; returns the server's CPU seconds per flow, if known.
async fn window(cli: &Cli, legacy: bool) -> Result<Option<f64>, String> {
    println!(
        "== {} flows",
        if legacy {
            "legacy (2025-11-25 session, server-to-client request)"
        } else {
            "stateless (2026-07-28)"
        }
    );
    let control = Arc::new(Control {
        measuring: AtomicBool::new(cli.flows.is_some()),
        stop: AtomicBool::new(false),
        quota: cli.flows.map(AtomicU64::new),
    });
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..cli.concurrency {
        let connection = Connection::open(cli.addr).await?;
        let control = Arc::clone(&control);
        if legacy {
            let answers = Connection::open(cli.addr).await?;
            workers.spawn(drive_legacy(connection, answers, worker as u64, control));
        } else {
            workers.spawn(drive(
                connection,
                cli.addr,
                worker as u64,
                control,
                cli.keep_going,
            ));
        }
    }
    if cli.flows.is_none() {
        tokio::time::sleep(Duration::from_secs_f64(cli.warmup)).await;
    }
    let cpu_before = cli.server_pid.map(cpu_seconds).transpose()?;
    let started = Instant::now();
    let mut window = None;
    if cli.flows.is_none() {
        control.measuring.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs_f64(cli.duration)).await;
        control.measuring.store(false, Ordering::SeqCst);
        window = Some((
            started.elapsed(),
            cli.server_pid.map(cpu_seconds).transpose()?,
        ));
        control.stop.store(true, Ordering::SeqCst);
    }
    let mut total = Tally::default();
    while let Some(joined) = workers.join_next().await {
        let tally = joined.map_err(|error| format!("a worker failed: {error}"))??;
        total.flows += tally.flows;
        total.rounds.extend(tally.rounds);
        total.errors += tally.errors;
        total.first_error = total.first_error.or(tally.first_error);
    }
    if cli.keep_going {
        match &total.first_error {
            Some(first) => println!("errors:         {} (first: {first})", total.errors),
            None => println!("errors:         0"),
        }
    }
    // With `--flows`, the run ends when the last flow does.
    let (elapsed, cpu_after) = match window {
        Some(window) => window,
        None => (
            started.elapsed(),
            cli.server_pid.map(cpu_seconds).transpose()?,
        ),
    };
    let elapsed = elapsed.as_secs_f64();
    if total.flows == 0 {
        return Err("no flow finished in the measured window".to_owned());
    }
    total.rounds.sort_unstable();
    let percentile = |p: f64| {
        let rank = ((total.rounds.len() as f64 * p).ceil() as usize).max(1);
        total.rounds[rank - 1]
    };
    println!(
        "flows:          {} in {elapsed:.2} s, {} in flight",
        total.flows, cli.concurrency
    );
    println!(
        "throughput:     {:.0} flows/s",
        total.flows as f64 / elapsed
    );
    println!(
        "round latency:  p50 {} µs, p99 {} µs ({} rounds)",
        percentile(0.50),
        percentile(0.99),
        total.rounds.len()
    );
    let mut per_flow = None;
    if let (Some(before), Some(after), Some(pid)) = (cpu_before, cpu_after, cli.server_pid) {
        let cpu = after - before;
        per_flow = Some(cpu / total.flows as f64);
        println!(
            "server CPU:     {:.1} µs/flow ({cpu:.2} s over the window, {:.0}% of a core)",
            cpu * 1e6 / total.flows as f64,
            cpu * 100.0 / elapsed
        );
        if let Some(rss) = resident_kib(pid) {
            println!("server memory:  {:.1} MiB resident", rss as f64 / 1024.0);
        }
    }
    Ok(per_flow)
}

/// Runs flows back to back on one connection until told to stop. With `keep_going`, a
/// failed flow is counted and the next one starts on a new connection.
async fn drive(
    mut connection: Connection,
    addr: SocketAddr,
    worker: u64,
    control: Arc<Control>,
    keep_going: bool,
) -> Result<Tally, String> {
    let mut tally = Tally::default();
    let mut id = worker << 32;
    while control.next_flow() {
        id += 2;
        match flow(&mut connection, id).await {
            Ok(rounds) => {
                if control.measuring.load(Ordering::Relaxed) {
                    tally.flows += 1;
                    tally.rounds.extend(rounds);
                }
            }
            Err(error) if keep_going => {
                tally.errors += 1;
                tally.first_error.get_or_insert(error);
                // The connection may be broken: start again on a new one.
                loop {
                    if control.stop.load(Ordering::Relaxed) {
                        return Ok(tally);
                    }
                    match Connection::open(addr).await {
                        Ok(fresh) => break connection = fresh,
                        Err(error) => {
                            tally.errors += 1;
                            tally.first_error.get_or_insert(error);
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                    }
                }
            }
            Err(error) => return Err(error),
        }
    }
    Ok(tally)
}

/// One two-round flow; the latency of each round, in microseconds.
async fn flow(connection: &mut Connection, id: u64) -> Result<[u32; 2], String> {
    let started = Instant::now();
    let first = connection.post(first_round(id)).await?;
    let first_done = Instant::now();
    let state = match parse(&first)? {
        Round::InputRequired { state } => state,
        Round::Complete { .. } => return Err("the first round did not ask".to_owned()),
    };
    let second = connection.post(second_round(id + 1, &state)).await?;
    let second_done = Instant::now();
    match parse(&second)? {
        Round::Complete { text } if text == "Deployment confirmed." => {}
        _ => {
            return Err(format!(
                "unexpected final answer: {}",
                String::from_utf8_lossy(&second)
            ));
        }
    }
    Ok([
        micros(first_done - started),
        micros(second_done - first_done),
    ])
}

fn micros(duration: Duration) -> u32 {
    u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}

/// One keep-alive HTTP/1.1 connection to the server.
struct Connection {
    sender: http1::SendRequest<Full<Bytes>>,
    host: String,
}

impl Connection {
    async fn open(addr: SocketAddr) -> Result<Self, String> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|error| format!("cannot connect to {addr}: {error}"))?;
        stream
            .set_nodelay(true)
            .map_err(|error| format!("cannot set TCP_NODELAY: {error}"))?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|error| format!("HTTP handshake with {addr} failed: {error}"))?;
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                eprintln!("load: connection closed: {error}");
            }
        });
        Ok(Self {
            sender,
            host: addr.to_string(),
        })
    }

    /// POSTs one message on a legacy session (or, without one, an `initialize`); returns the
    /// session id the answer carries and the body, still arriving.
    async fn send(
        &mut self,
        body: String,
        session: Option<&str>,
    ) -> Result<(Option<String>, hyper::body::Incoming), String> {
        let legacy;
        let headers: &[(&str, &str)] = match session {
            Some(session) => {
                legacy = [
                    ("mcp-session-id", session),
                    ("mcp-protocol-version", "2025-11-25"),
                ];
                &legacy
            }
            None => &[],
        };
        let response = self.exchange(body, headers).await?;
        if !response.status().is_success() {
            return Err(format!("answered {}", response.status()));
        }
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        Ok((session, response.into_body()))
    }

    /// POSTs one message to `/mcp` with `headers` besides the usual ones.
    async fn exchange(
        &mut self,
        body: String,
        headers: &[(&str, &str)],
    ) -> Result<hyper::Response<hyper::body::Incoming>, String> {
        let mut request = Request::post("/mcp")
            .header(header::HOST, &self.host)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body)))
            .map_err(|error| format!("cannot build a request: {error}"))?;
        self.sender
            .ready()
            .await
            .map_err(|error| format!("the connection closed: {error}"))?;
        self.sender
            .send_request(request)
            .await
            .map_err(|error| format!("request failed: {error}"))
    }

    /// POSTs one JSON-RPC message to `/mcp` and returns the answer's body.
    async fn post(&mut self, body: String) -> Result<Bytes, String> {
        let response = self
            .exchange(
                body,
                &[
                    ("mcp-protocol-version", PROTOCOL_VERSION),
                    // Every round of the load is a `confirm_deploy` call.
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "confirm_deploy"),
                ],
            )
            .await?;
        let status = response.status();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|error| format!("cannot read an answer: {error}"))?
            .to_bytes();
        if status != StatusCode::OK {
            return Err(format!(
                "answered {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
        Ok(body)
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

fn first_round(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"confirm_deploy","arguments":{{}},{META}}}}}"#
    )
}

fn second_round(id: u64, state: &str) -> String {
    let state = serde_json::to_string(state).expect("a string serialises");
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"confirm_deploy","arguments":{{}},{META},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":{state}}}}}"#
    )
}

/// What a round answered.
enum Round {
    InputRequired { state: String },
    Complete { text: String },
}

#[derive(Deserialize)]
struct Response {
    result: Option<ResultBody>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResultBody {
    result_type: String,
    request_state: Option<String>,
    #[serde(default)]
    content: Vec<Content>,
}

#[derive(Deserialize)]
struct Content {
    text: Option<String>,
}

fn parse(body: &[u8]) -> Result<Round, String> {
    let unexpected = || format!("unexpected answer: {}", String::from_utf8_lossy(body));
    let response: Response = serde_json::from_slice(body).map_err(|_| unexpected())?;
    let result = response.result.ok_or_else(unexpected)?;
    match (result.result_type.as_str(), result.request_state) {
        ("input_required", Some(state)) => Ok(Round::InputRequired { state }),
        ("complete", None) => {
            let text = result.content.into_iter().find_map(|content| content.text);
            Ok(Round::Complete {
                text: text.ok_or_else(unexpected)?,
            })
        }
        _ => Err(unexpected()),
    }
}
