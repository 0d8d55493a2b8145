//! Attacks on what outlives a request: legacy sessions and what they keep, standalone streams,
//! and eviction by strangers. Each prints what it cost the server and whether an honest client
//! was still served.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;

use super::{
    INITIALIZE, Monitor, PROTOCOL_VERSION, Statuses, Target, discover, open_session, read_body,
    read_head, request,
};

const LEGACY: &str = "2025-11-25";

/// A request on a legacy session (or opening one): `request` with the legacy version header.
fn legacy_request(addr: SocketAddr, session: Option<&str>, body: &str) -> String {
    let extra = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    request(addr, &extra, body).replace(
        &format!("MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"),
        &format!("MCP-Protocol-Version: {LEGACY}\r\n"),
    )
}

/// Connects from `from` (an address of this machine, such as another loopback address).
async fn connect_from(addr: SocketAddr, from: Option<IpAddr>) -> Result<TcpStream, String> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4(),
        SocketAddr::V6(_) => TcpSocket::new_v6(),
    }
    .map_err(|error| error.to_string())?;
    if let Some(from) = from {
        socket
            .bind(SocketAddr::new(from, 0))
            .map_err(|error| format!("cannot bind {from}: {error}"))?;
    }
    socket
        .connect(addr)
        .await
        .map_err(|error| format!("cannot connect: {error}"))
}

/// Sends `bytes` on a fresh connection from `from` and reads the answer's head and body;
/// the status and body.
async fn exchange(
    addr: SocketAddr,
    from: Option<IpAddr>,
    bytes: &[u8],
) -> Result<(u16, Vec<u8>), String> {
    let mut stream = connect_from(addr, from).await?;
    stream
        .write_all(bytes)
        .await
        .map_err(|error| format!("cannot send: {error}"))?;
    let mut buffer = Vec::new();
    let head = read_head(&mut stream, &mut buffer).await?;
    let body = read_body(&mut stream, &head, &mut buffer)
        .await
        .unwrap_or_default();
    Ok((head.status, body))
}

/// Runs `count` requests made by `make`, `concurrency` at a time; their statuses.
async fn flood(
    addr: SocketAddr,
    from: Option<IpAddr>,
    count: usize,
    concurrency: usize,
    make: impl Fn(usize) -> Vec<u8>,
) -> Statuses {
    let mut statuses = Statuses::default();
    let mut running = JoinSet::new();
    for index in 0..count {
        if running.len() >= concurrency.max(1)
            && let Some(done) = running.join_next().await
        {
            statuses.add(done.unwrap_or(0));
        }
        let bytes = make(index);
        running.spawn(async move {
            exchange(addr, from, &bytes)
                .await
                .map_or(0, |(status, _)| status)
        });
    }
    while let Some(done) = running.join_next().await {
        statuses.add(done.unwrap_or(0));
    }
    statuses
}

/// Floods `count` requests made by `make`, `concurrency` at a time, while the server's costs
/// are read; prints what they were answered (as `what`), then whether an honest request is
/// still served.
async fn measured_flood(
    target: Target,
    what: &str,
    count: usize,
    concurrency: usize,
    make: impl Fn(usize) -> Vec<u8>,
) {
    let monitor = Monitor::start(target);
    let started = Instant::now();
    let statuses = flood(target.addr, None, count, concurrency, make).await;
    let label = format!("{what}:");
    println!(
        "{label:<15} {statuses} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    honest(target.addr, "after them").await;
    monitor.report().await;
}

/// A `resources/subscribe` of a long URI, `path` making it long.
fn subscribe_body(index: usize, path: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{index},"method":"resources/subscribe","params":{{"uri":"tracker://issues/{index}{path}"}}}}"#
    )
}

/// A `GET` of `session`'s standalone stream.
fn get_stream(addr: SocketAddr, session: &str) -> String {
    legacy_request(addr, Some(session), "")
        .replacen("POST /mcp", "GET /mcp", 1)
        .replace("Content-Length: 0\r\n", "")
}

/// Sends `get` on a connection of its own and reads the answer's head: its status, and the
/// connection, left open.
async fn open_stream(addr: SocketAddr, get: &str) -> Result<(u16, TcpStream), String> {
    let mut stream = connect_from(addr, None).await?;
    stream
        .write_all(get.as_bytes())
        .await
        .map_err(|error| error.to_string())?;
    let mut buffer = Vec::new();
    let head = read_head(&mut stream, &mut buffer).await?;
    Ok((head.status, stream))
}

/// An honest stateless request on a fresh connection, timed; printed.
async fn honest(addr: SocketAddr, when: &str) {
    let started = Instant::now();
    match tokio::time::timeout(Duration::from_secs(3), discover(addr)).await {
        Ok(Ok(status)) => println!(
            "honest request {when}: answered {status} after {:.3} s",
            started.elapsed().as_secs_f64()
        ),
        Ok(Err(error)) => println!("honest request {when}: {error}"),
        Err(_) => println!("honest request {when}: no answer within 3 s"),
    }
}

// ---------------------------------------------------------------------------------------------
// session-bloat

/// `initialize` calls declaring `megabytes` of capabilities each.
pub(super) async fn session_bloat(
    target: Target,
    sessions: usize,
    megabytes: f64,
    concurrency: usize,
) -> Result<(), String> {
    println!(
        "== {sessions} initialize calls, each declaring {megabytes} MB of capabilities, \
         {concurrency} at a time"
    );
    // Half under an experimental capability, half under a key no revision defines.
    let blob = "x".repeat((megabytes * 500_000.0) as usize);
    let body = INITIALIZE.replace(
        r#""capabilities":{"elicitation":{"form":{}}}"#,
        &format!(r#""capabilities":{{"elicitation":{{"form":{{}}}},"experimental":{{"blob":{{"data":"{blob}"}}}},"bloat":"{blob}"}}"#),
    );
    let bytes = legacy_request(target.addr, None, &body).into_bytes();
    measured_flood(target, "initialize", sessions, concurrency, |_| {
        bytes.clone()
    })
    .await;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// subscribe-flood

/// `resources/subscribe` calls on one session, each naming a URI of `kib` KiB.
pub(super) async fn subscribe_flood(
    target: Target,
    subscribes: usize,
    kib: usize,
    concurrency: usize,
) -> Result<(), String> {
    println!("== {subscribes} resources/subscribe calls on one session, each URI {kib} KiB");
    let session = open_session(target.addr).await?;
    let path = "9".repeat(kib * 1024);
    // Each is refused in its JSON-RPC body: the statuses are HTTP's.
    measured_flood(target, "subscribe", subscribes, concurrency, |index| {
        legacy_request(target.addr, Some(&session), &subscribe_body(index, &path)).into_bytes()
    })
    .await;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// stream-hold

/// `streams` standalone `GET` streams on one session, each on a connection kept open.
pub(super) async fn stream_hold(
    target: Target,
    streams: usize,
    hold: Duration,
) -> Result<(), String> {
    println!("== {streams} standalone GET streams on one session, every connection kept open");
    let addr = target.addr;
    let session = open_session(addr).await?;
    let monitor = Monitor::start(target);
    let get = get_stream(addr, &session);
    let mut open = Vec::with_capacity(streams);
    let mut statuses = Statuses::default();
    let opening = Instant::now();
    for _ in 0..streams {
        match tokio::time::timeout(Duration::from_secs(2), open_stream(addr, &get)).await {
            Ok(Ok((status, stream))) => {
                statuses.add(status);
                open.push(stream);
            }
            Ok(Err(_)) | Err(_) => statuses.add(0),
        }
    }
    println!(
        "GET streams:    {statuses} in {:.1} s",
        opening.elapsed().as_secs_f64()
    );
    if let Some(fds) = monitor.fds_now() {
        println!("server fds with them open: {fds}");
    }
    honest(addr, "while they are held").await;
    tokio::time::sleep(hold).await;
    drop(open);
    monitor.report().await;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// eviction

/// An honest session, then `sessions` `initialize` calls from `from`; is the honest session
/// still there?
pub(super) async fn eviction(
    target: Target,
    sessions: usize,
    from: IpAddr,
    concurrency: usize,
) -> Result<(), String> {
    println!("== an honest session, then {sessions} initialize calls from {from}");
    let addr = target.addr;
    let honest_session = open_session(addr).await?;
    let monitor = Monitor::start(target);
    let bytes = legacy_request(addr, None, INITIALIZE).into_bytes();
    let started = Instant::now();
    let statuses = flood(addr, Some(from), sessions, concurrency, |_| bytes.clone()).await;
    println!(
        "initialize:     {statuses} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let bytes = legacy_request(addr, Some(&honest_session), ping);
    match exchange(addr, None, bytes.as_bytes()).await {
        Ok((200, _)) => println!("honest session: still open (ping answered 200)"),
        Ok((status, _)) => println!("honest session: logged out (ping answered {status})"),
        Err(error) => println!("honest session: {error}"),
    }
    monitor.report().await;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// sessions-mix

/// Repeats `make`'s requests from `from`, `concurrency` at a time, until `deadline`.
async fn until_deadline(
    addr: SocketAddr,
    from: Option<IpAddr>,
    concurrency: usize,
    deadline: tokio::time::Instant,
    make: impl Fn(usize) -> Vec<u8> + Send + Sync + 'static,
) -> Statuses {
    let make = std::sync::Arc::new(make);
    let mut workers = JoinSet::new();
    for worker in 0..concurrency {
        let make = std::sync::Arc::clone(&make);
        workers.spawn(async move {
            let mut statuses = Statuses::default();
            let mut index = worker;
            while tokio::time::Instant::now() < deadline {
                let bytes = make(index);
                let sent = tokio::time::timeout_at(deadline, exchange(addr, from, &bytes)).await;
                match sent {
                    Ok(Ok((status, _))) => statuses.add(status),
                    Ok(Err(_)) => statuses.add(0),
                    Err(_) => break,
                }
                index += concurrency;
            }
            statuses
        });
    }
    let mut statuses = Statuses::default();
    while let Some(done) = workers.join_next().await {
        statuses.merge(done.unwrap_or_default());
    }
    statuses
}

/// Standalone streams on one session, each on a connection kept open, until `deadline`:
/// how many were opened.
async fn streams_until(
    addr: SocketAddr,
    session: String,
    deadline: tokio::time::Instant,
) -> Statuses {
    let get = get_stream(addr, &session);
    let mut statuses = Statuses::default();
    let mut open = std::collections::VecDeque::new();
    while tokio::time::Instant::now() < deadline {
        match tokio::time::timeout_at(deadline, open_stream(addr, &get)).await {
            Ok(Ok((status, stream))) => {
                statuses.add(status);
                open.push_back(stream);
                // At most 200 held by this client at once.
                if open.len() > 200 {
                    open.pop_front();
                }
            }
            Ok(Err(_)) => statuses.add(0),
            Err(_) => break,
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    statuses
}

/// Every session attack at once, for `duration`, beside an honest legacy session that must
/// stay open (what `scripts/soak.sh` runs next to honest flows).
pub(super) async fn sessions_mix(
    target: Target,
    duration: Duration,
    from: IpAddr,
) -> Result<(), String> {
    println!(
        "== for {:.0} s: initialize floods from {from}, initialize with 1 MB capabilities, \
         subscribes with 64 KiB URIs, standalone streams on one session",
        duration.as_secs_f64()
    );
    let addr = target.addr;
    let honest_session = open_session(addr).await?;
    let flooded = open_session(addr).await?;
    let streamed = open_session(addr).await?;
    let monitor = Monitor::start(target);
    let deadline = tokio::time::Instant::now() + duration;
    let plain = legacy_request(addr, None, INITIALIZE).into_bytes();
    let blob = "x".repeat(1_000_000);
    let bloated = legacy_request(
        addr,
        None,
        &INITIALIZE.replace(
            r#""capabilities":{"elicitation":{"form":{}}}"#,
            &format!(r#""capabilities":{{"experimental":{{"blob":{{"data":"{blob}"}}}}}}"#),
        ),
    )
    .into_bytes();
    let path = "9".repeat(64 * 1024);
    let evicting = until_deadline(addr, Some(from), 4, deadline, move |_| plain.clone());
    let bloating = until_deadline(addr, Some(from), 2, deadline, move |_| bloated.clone());
    let subscribing = until_deadline(addr, None, 2, deadline, move |index| {
        legacy_request(addr, Some(&flooded), &subscribe_body(index, &path)).into_bytes()
    });
    let streaming = streams_until(addr, streamed, deadline);
    let (evicted, bloated, subscribed, streams) =
        tokio::join!(evicting, bloating, subscribing, streaming);
    println!("initialize floods:   {evicted}");
    println!("bloated initialize:  {bloated}");
    println!("subscribes:          {subscribed}");
    println!("GET streams:         {streams}");
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let bytes = legacy_request(addr, Some(&honest_session), ping);
    match exchange(addr, None, bytes.as_bytes()).await {
        Ok((200, _)) => println!("honest session:      still open"),
        Ok((status, _)) => println!("honest session:      lost (ping answered {status})"),
        Err(error) => println!("honest session:      {error}"),
    }
    monitor.report().await;
    Ok(())
}
