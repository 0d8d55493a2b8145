//! The attacks on states and identities: `replay-fill` and `token-spray`.
//!
//! Both need callers the server knows apart by their bearer tokens, so each mode serves its
//! own `deploy` server (every state single-use, OAuth trusting the end-to-end tests' P-256
//! key) on a loopback port, on a runtime of its own, and mints the tokens itself. Each runs
//! twice: with the server's defaults, and with the bound under test lifted (as the server
//! was before it had one), and prints both.

use std::future::Future;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::OAuth;
use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::state::{MemoryReplayStore, Signer};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

const ISSUER: &str = "https://issuer.attack.local";
const RESOURCE: &str = "http://attack.local/mcp";
const KID: &str = "attack-1";
const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

/// The P-256 test key of the end-to-end tests (ES256, whose signature check costs the most of
/// the common algorithms in the pure-Rust backend): a key everyone can read, fit for a server
/// that lives as long as one run on a loopback port.
const TEST_KEY: &str = include_str!("../../../../tests/keys/ec-p256.pem");

/// The signing key of the run, and its public JWK set.
struct Issuer {
    key: EncodingKey,
    jwks: String,
}

impl Issuer {
    fn new() -> Result<Self, String> {
        let body: String = TEST_KEY
            .lines()
            .filter(|line| !line.starts_with("-----"))
            .collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|error| error.to_string())?;
        let key = EncodingKey::from_ec_der(&der);
        let mut jwk =
            Jwk::from_encoding_key(&key, Algorithm::ES256).map_err(|error| error.to_string())?;
        jwk.common.key_id = Some(KID.to_owned());
        let jwks = json!({ "keys": [jwk] }).to_string();
        Ok(Self { key, jwks })
    }

    fn claims(subject: &str) -> Value {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        json!({"iss": ISSUER, "aud": RESOURCE, "sub": subject, "iat": now, "exp": now + 3600})
    }

    fn token(&self, subject: &str) -> Result<String, String> {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(KID.to_owned());
        jsonwebtoken::encode(&header, &Self::claims(subject), &self.key)
            .map_err(|error| error.to_string())
    }

    /// A token under the key's `kid` whose signature is random bytes: a full signature check
    /// each, and never valid.
    fn garbage(n: u64) -> String {
        let header = URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"ES256","kid":"{KID}"}}"#));
        let mut claims = Self::claims("mallory");
        claims["jti"] = json!(n);
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        let mut signature = [0u8; 64];
        let _ = getrandom::fill(&mut signature);
        format!("{header}.{payload}.{}", URL_SAFE_NO_PAD.encode(signature))
    }
}

/// A server running on a thread and runtime of its own until dropped.
struct Served {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Served {
    fn start(server: Server) -> Result<Self, String> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                if let Ok(listener) = tokio::net::TcpListener::from_std(listener) {
                    let stopped = async move {
                        let _ = stopped.await;
                    };
                    let _ = server.serve_listener(listener, stopped).await;
                }
            });
        });
        Ok(Self {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The `deploy` server behind OAuth, every state single-use.
fn deploy_server(
    issuer: &Issuer,
    max_verifications: Option<usize>,
) -> Result<ServerBuilder, String> {
    let mut oauth = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks(issuer.jwks.clone());
    if let Some(max) = max_verifications {
        oauth = oauth.max_concurrent_verifications(max);
    }
    let oauth = oauth.build().map_err(|error| error.to_string())?;
    let mut key = [0; 32];
    getrandom::fill(&mut key).map_err(|error| error.to_string())?;
    let signer = Signer::new(1, &key).map_err(|error| error.to_string())?;
    Ok(
        mcp_examples::deploy::register(Server::builder().name("deploy"))
            .signer(signer)
            .oauth(oauth)
            .single_use(true),
    )
}

/// The standard headers a 2026-07-28 client mirrors from `body`: `Mcp-Method`, and `Mcp-Name`
/// on a `tools/call` (these attacks name tools in plain ASCII).
fn mirrored(body: &str) -> String {
    let message: Value = serde_json::from_str(body).unwrap_or_default();
    let method = message["method"].as_str().unwrap_or_default();
    match message["params"]["name"].as_str() {
        Some(name) if method == "tools/call" => {
            format!("Mcp-Method: {method}\r\nMcp-Name: {name}\r\n")
        }
        _ => format!("Mcp-Method: {method}\r\n"),
    }
}

/// One POST of `body` with `token`, on a connection of its own: the status and the body.
async fn post(addr: SocketAddr, token: &str, body: &str) -> Result<(u16, Vec<u8>), String> {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         {}Authorization: Bearer {token}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        mirrored(body),
        body.len()
    );
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        stream
            .read_to_end(&mut raw)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(raw)
    };
    let raw = tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .map_err(|_| "no answer within 30 s".to_owned())??;
    let split = raw.windows(4).position(|window| window == b"\r\n\r\n");
    let head = String::from_utf8_lossy(&raw[..split.unwrap_or(raw.len())]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(|| format!("no status in {head:?}"))?;
    Ok((status, raw[split.map_or(raw.len(), |at| at + 4)..].to_vec()))
}

/// One whole `deploy` flow for `token`: the first round, then the single-use second. The
/// status of the second (or of the first, when it failed).
async fn deploy_flow(addr: SocketAddr, token: &str) -> Result<u16, String> {
    let first = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"deploy","arguments":{{"service":"checkout"}},"_meta":{META}}}}}"#
    );
    let (status, body) = post(addr, token, &first).await?;
    if status != 200 {
        return Ok(status);
    }
    let body: Value = serde_json::from_slice(&body).map_err(|error| error.to_string())?;
    let Some(state) = body["result"]["requestState"].as_str() else {
        return Err(format!("no state in {body}"));
    };
    let second = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "deploy", "arguments": {"service": "checkout"}, "requestState": state,
        "inputResponses": {"target": {"action": "accept", "content": {
            "environment": "staging", "replicas": 2}}},
        "_meta": serde_json::from_str::<Value>(META).unwrap_or_default(),
    }});
    Ok(post(addr, token, &second.to_string()).await?.0)
}

/// The 50th and 99th percentiles, in milliseconds.
fn percentiles(mut samples: Vec<Duration>) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    samples.sort();
    let at = |q: f64| {
        let index = ((samples.len() - 1) as f64 * q).round() as usize;
        samples[index].as_secs_f64() * 1000.0
    };
    (at(0.5), at(0.99))
}

// ---------------------------------------------------------------------------------------------
// replay-fill

/// One subject mints and uses states as fast as `workers` connections allow, for
/// `duration`, while an honest subject runs flows one after another; on a store of
/// `capacity` records, with the default quota per subject and with the quota lifted.
pub(crate) async fn replay_fill_attack(
    workers: usize,
    duration: Duration,
    capacity: usize,
) -> Result<(), String> {
    let issuer = Issuer::new()?;
    let (mallory, alice) = (issuer.token("mallory")?, issuer.token("alice")?);
    for (label, quota) in [
        ("default quota", mcp_runtime::state::DEFAULT_OWNER_QUOTA),
        ("no quota (as before)", capacity),
    ] {
        let store = MemoryReplayStore::new()
            .with_capacity(capacity)
            .with_owner_quota(quota);
        let served = Served::start(deploy_server(&issuer, None)?.replay_store(store).build())?;
        let addr = served.addr;
        // Quiet: the honest subject alone.
        let quiet = apart(honest_flows(addr, alice.clone(), Duration::from_secs(1))).await?;
        let deadline = Instant::now() + duration;
        let mut attackers = JoinSet::new();
        for _ in 0..workers {
            let mallory = mallory.clone();
            attackers.spawn(async move {
                let mut statuses = super::Statuses::default();
                while Instant::now() < deadline {
                    match deploy_flow(addr, &mallory).await {
                        Ok(status) => statuses.add(status),
                        Err(_) => statuses.add(0),
                    }
                }
                statuses
            });
        }
        let loud = apart(honest_flows(addr, alice.clone(), duration)).await?;
        let mut attack = super::Statuses::default();
        while let Some(statuses) = attackers.join_next().await {
            attack.merge(statuses.map_err(|error| error.to_string())?);
        }
        println!(
            "replay-fill, {label} ({quota} per subject, {capacity} records): the attacker's \
             single-use rounds: {attack}"
        );
        println!(
            "  honest single-use rounds: quiet {}/{} ok, p50 {:.2} ms, p99 {:.2} ms; \
             during the fill {}/{} ok ({:.0}%), p50 {:.2} ms, p99 {:.2} ms (p99 x{:.2})",
            quiet.ok,
            quiet.total,
            quiet.p50,
            quiet.p99,
            loud.ok,
            loud.total,
            100.0 * loud.ok as f64 / loud.total.max(1) as f64,
            loud.p50,
            loud.p99,
            loud.p99 / quiet.p99.max(0.001),
        );
        let _ = std::io::Write::flush(&mut std::io::stdout());
    }
    Ok(())
}

/// What one honest client saw.
struct Honest {
    ok: usize,
    total: usize,
    p50: f64,
    p99: f64,
}

/// Runs `honest` on a thread and runtime of its own, so that its latency is the server's, not
/// that of the attackers' tasks sharing its thread.
async fn apart(
    honest: impl Future<Output = Result<Honest, String>> + Send + 'static,
) -> Result<Honest, String> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let result = match runtime {
            Ok(runtime) => runtime.block_on(honest),
            Err(error) => Err(error.to_string()),
        };
        let _ = sender.send(result);
    });
    receiver
        .await
        .map_err(|_| "the honest client's thread ended".to_owned())?
}

/// An honest subject's flows, one every 20 ms at most: 50 a second, within its quota over a
/// short run (states live ten minutes).
async fn honest_flows(
    addr: SocketAddr,
    token: String,
    duration: Duration,
) -> Result<Honest, String> {
    let deadline = Instant::now() + duration;
    let (mut ok, mut total, mut latencies) = (0, 0, Vec::new());
    let mut pace = tokio::time::interval(Duration::from_millis(20));
    while Instant::now() < deadline {
        pace.tick().await;
        let started = Instant::now();
        let status = deploy_flow(addr, &token).await?;
        latencies.push(started.elapsed());
        total += 1;
        ok += usize::from(status == 200);
    }
    let (p50, p99) = percentiles(latencies);
    Ok(Honest {
        ok,
        total,
        p50,
        p99,
    })
}

// ---------------------------------------------------------------------------------------------
// token-spray

/// `connections` clients send tokens with garbage signatures under the server's `kid`, as
/// fast as they are answered, for `duration`, while an honest client whose token is cached
/// lists the tools; with the default bound on signature checks at once and with it lifted.
pub(crate) async fn token_spray_attack(
    connections: usize,
    duration: Duration,
) -> Result<(), String> {
    let issuer = Issuer::new()?;
    let honest = issuer.token("alice")?;
    let list =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{META}}}}}"#);
    for (label, bound) in [
        (
            format!(
                "default bound ({} at once)",
                mcp_runtime::auth::default_max_concurrent_verifications()
            ),
            None,
        ),
        ("no bound (as before)".to_owned(), Some(1 << 20)),
    ] {
        let served = Served::start(deploy_server(&issuer, bound)?.build())?;
        let addr = served.addr;
        // The first request verifies the honest token and caches it.
        post(addr, &honest, &list).await?;
        let quiet = apart(honest_lists(
            addr,
            honest.clone(),
            list.clone(),
            Duration::from_secs(1),
        ))
        .await?;
        let deadline = Instant::now() + duration;
        let mut sprayers = JoinSet::new();
        for worker in 0..connections {
            let list = list.clone();
            sprayers.spawn(async move {
                let mut statuses = super::Statuses::default();
                let mut n = worker as u64 * 1_000_000_000;
                while Instant::now() < deadline {
                    n += 1;
                    match post(addr, &Issuer::garbage(n), &list).await {
                        Ok((status, _)) => statuses.add(status),
                        Err(_) => statuses.add(0),
                    }
                }
                statuses
            });
        }
        let loud = apart(honest_lists(addr, honest.clone(), list.clone(), duration)).await?;
        let mut spray = super::Statuses::default();
        while let Some(statuses) = sprayers.join_next().await {
            spray.merge(statuses.map_err(|error| error.to_string())?);
        }
        println!("token-spray, {label}: garbage tokens answered {spray}");
        println!(
            "  honest cached-token tools/list: quiet p50 {:.2} ms, p99 {:.2} ms ({} ok of {}); \
             under spray p50 {:.2} ms, p99 {:.2} ms ({} ok of {}): p50 x{:.2}, p99 x{:.2}",
            quiet.p50,
            quiet.p99,
            quiet.ok,
            quiet.total,
            loud.p50,
            loud.p99,
            loud.ok,
            loud.total,
            loud.p50 / quiet.p50.max(0.001),
            loud.p99 / quiet.p99.max(0.001),
        );
        let _ = std::io::Write::flush(&mut std::io::stdout());
    }
    Ok(())
}

async fn honest_lists(
    addr: SocketAddr,
    token: String,
    list: String,
    duration: Duration,
) -> Result<Honest, String> {
    let deadline = Instant::now() + duration;
    let (mut ok, mut total, mut latencies) = (0, 0, Vec::new());
    while Instant::now() < deadline {
        let started = Instant::now();
        let (status, _) = post(addr, &token, &list).await?;
        latencies.push(started.elapsed());
        total += 1;
        ok += usize::from(status == 200);
    }
    let (p50, p99) = percentiles(latencies);
    Ok(Honest {
        ok,
        total,
        p50,
        p99,
    })
}
