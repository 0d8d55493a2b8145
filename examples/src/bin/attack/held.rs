//! Legacy calls left waiting for answers, and every hostile client at once.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use super::stalls::Fate;
use super::{
    DISCOVER, Monitor, PROTOCOL_VERSION, Stall, Statuses, Target, discover, head, open_session,
    read_head, request, stall, until_closed,
};

// ---------------------------------------------------------------------------------------------
// hold

/// What became of one held call.
pub(super) enum Held {
    /// The server asked its question and waits for the answer.
    Waiting(TcpStream),
    /// Refused with `429` (the client's own caps) or `503` (the server's); whether it said
    /// when to retry.
    Refused {
        retry_after: bool,
    },
    Other(String),
}

pub(super) async fn hold_attack(
    target: Target,
    calls: usize,
    hold: Duration,
) -> Result<(), String> {
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

pub(super) async fn held_call(addr: SocketAddr, session: &str, id: usize) -> Held {
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
pub(super) struct Tally {
    connections: u64,
    statuses: Statuses,
}

pub(super) async fn mix_attack(target: Target, duration: Duration) -> Result<(), String> {
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
pub(super) async fn stall_until(
    addr: SocketAddr,
    kind: Stall,
    deadline: tokio::time::Instant,
) -> Tally {
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
pub(super) async fn slow_chunks_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
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
pub(super) fn deep_body() -> String {
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
pub(super) async fn deep_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
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
pub(super) async fn junk_until(addr: SocketAddr, deadline: tokio::time::Instant) -> Tally {
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
