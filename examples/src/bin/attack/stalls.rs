//! Attacks on the HTTP layer: one-byte chunks, stalling connections, silent connections.

use std::io::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;

use super::{DISCOVER, Monitor, Stall, Statuses, Target, discover, head, request, seconds};

// ---------------------------------------------------------------------------------------------
// chunks

pub(super) async fn chunks_attack(
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
pub(super) fn send_chunked(
    addr: SocketAddr,
    chunks: usize,
    pause: Duration,
) -> Result<u16, String> {
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
pub(super) enum Fate {
    /// The server closed it this long after it was opened.
    Closed(Duration),
    /// Still open when the attack ended.
    Open,
    /// It could not be opened.
    Refused,
}

pub(super) async fn stall_attack(
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
pub(super) async fn stall(addr: SocketAddr, kind: Stall, deadline: tokio::time::Instant) -> Fate {
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

pub(super) async fn connections_attack(
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
