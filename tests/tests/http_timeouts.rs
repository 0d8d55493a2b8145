//! The HTTP transport on a hostile network, over real loopback sockets: stalled connections
//! are closed by the header, body and keep-alive timeouts while event streams live on; open
//! connections and requests in flight are capped.

#[path = "support/client.rs"]
mod client;
#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::sync::Arc;
use std::time::{Duration, Instant};

use client::{discover, keep_alive_request, read_answer, until_closed};
use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::server::{
    BoxFuture, HandlerResult, Reply, Request, Server, ServerBuilder, ToolHandler,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Notify, Semaphore};

/// The timeouts under test: short enough to wait for.
const SHORT: Duration = Duration::from_millis(300);
/// Timeouts that must not fire during a test.
const LONG: Duration = Duration::from_secs(60);
/// How long a test waits for something the server should do at once (or after `SHORT`).
const GIVE_UP: Duration = Duration::from_secs(5);

fn tool(name: &str) -> Tool {
    let Value::Object(input_schema) = json!({ "type": "object" }) else {
        unreachable!()
    };
    Tool {
        name: name.to_owned(),
        input_schema,
        ..Tool::default()
    }
}

fn text(text: &str) -> HandlerResult<CallToolResult> {
    Ok(Reply::Complete(CallToolResult::new(vec![
        ContentBlock::text(text),
    ])))
}

/// Waits, once entered, until the test releases it.
struct Gate {
    entered: Arc<Notify>,
    release: Arc<Semaphore>,
}

impl Gate {
    /// A gate, the notice of its entries, and the permits that release them.
    fn new() -> (Self, Arc<Notify>, Arc<Semaphore>) {
        let entered = Arc::new(Notify::new());
        let release = Arc::new(Semaphore::new(0));
        let gate = Self {
            entered: Arc::clone(&entered),
            release: Arc::clone(&release),
        };
        (gate, entered, release)
    }
}

impl ToolHandler for Gate {
    fn definition(&self) -> Tool {
        tool("gate")
    }

    fn call(&self, _request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let entered = Arc::clone(&self.entered);
        let release = Arc::clone(&self.release);
        Box::pin(async move {
            entered.notify_one();
            release.acquire().await.expect("never closed").forget();
            text("released")
        })
    }
}

/// Reports progress, then takes several times [`SHORT`] before it finishes.
struct Lingers;

impl ToolHandler for Lingers {
    fn definition(&self) -> Tool {
        tool("lingers")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let progress = request.progress;
        Box::pin(async move {
            progress.report(0.0, Some(2.0), None);
            tokio::time::sleep(SHORT * 4).await;
            progress.report(1.0, Some(2.0), None);
            tokio::time::sleep(SHORT * 4).await;
            text("lingered")
        })
    }
}

/// A server with `echo` and `lingers`, with `settings` applied.
fn server(settings: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Server {
    settings(Server::builder().tool(handlers::Echo).tool(Lingers)).build()
}

fn timeouts(
    builder: ServerBuilder,
    header: Duration,
    body: Duration,
    idle: Duration,
) -> ServerBuilder {
    builder
        .header_read_timeout(header)
        .body_read_timeout(body)
        .keep_alive_timeout(idle)
}

// ---------------------------------------------------------------------------------------------
// Timeouts and the connection cap.

#[tokio::test]
async fn a_half_sent_head_is_closed_after_the_header_timeout_even_while_it_trickles() {
    let running = client::start(server(|b| timeouts(b, SHORT, LONG, LONG))).await;
    let addr = running.addr;
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let (mut reader, mut writer) = stream.split();
    let trickle = async {
        writer
            .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
            .await
            .unwrap();
        // A header line every 50 ms: bytes keep coming, the head never ends.
        for line in 0.. {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if writer
                .write_all(format!("X-Slow-{line}: 1\r\n").as_bytes())
                .await
                .is_err()
            {
                break;
            }
        }
        std::future::pending::<()>().await;
    };
    let closed = async {
        let mut chunk = [0u8; 1024];
        while matches!(reader.read(&mut chunk).await, Ok(read) if read > 0) {}
    };
    tokio::select! {
        () = closed => {}
        () = trickle => unreachable!(),
        () = tokio::time::sleep(GIVE_UP) => panic!("a trickling head is still open after {GIVE_UP:?}"),
    }
    assert!(started.elapsed() >= SHORT, "closed before the timeout");

    // A connection that sends nothing at all goes the same way.
    let started = Instant::now();
    let mut silent = TcpStream::connect(addr).await.unwrap();
    until_closed(&mut silent)
        .await
        .expect("a silent connection is closed");
    assert!(started.elapsed() >= SHORT, "closed before the timeout");
    // The server still serves.
    let answer = client::send(addr, "POST", &[], discover().as_bytes()).await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn a_half_sent_head_after_an_idle_spell_is_closed_after_the_header_timeout() {
    let running = client::start(server(|b| timeouts(b, SHORT, LONG, LONG))).await;
    let addr = running.addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut stream).await, 200);
    // Idle past the header timeout (the keep-alive timeout is long), then half a head.
    tokio::time::sleep(SHORT * 2).await;
    let started = Instant::now();
    stream
        .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .await
        .unwrap();
    let rest = until_closed(&mut stream)
        .await
        .expect("a half head on a kept-alive connection is closed");
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    assert!(started.elapsed() >= SHORT, "closed before the timeout");
}

#[tokio::test]
async fn a_half_sent_body_is_answered_408_and_closed_after_the_body_timeout() {
    let running = client::start(server(|b| timeouts(b, LONG, SHORT, LONG))).await;
    let addr = running.addr;
    let head = |framing: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json\r\n{framing}\r\n"
        )
    };
    for (framing, part) in [
        ("Content-Length: 1000\r\n", "{\"jsonrpc\":".to_owned()),
        (
            "Transfer-Encoding: chunked\r\n",
            "b\r\n{\"jsonrpc\":\r\n".to_owned(),
        ),
    ] {
        let started = Instant::now();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(format!("{}{part}", head(framing)).as_bytes())
            .await
            .unwrap();
        let raw = until_closed(&mut stream)
            .await
            .unwrap_or_else(|_| panic!("{framing}: a half body is still open after {GIVE_UP:?}"));
        assert!(
            started.elapsed() >= SHORT,
            "{framing}: closed before the timeout"
        );
        let answer = String::from_utf8_lossy(&raw);
        assert!(answer.starts_with("HTTP/1.1 408"), "{framing}: {answer}");
    }
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_keep_alive_timeout() {
    // Each pause below is a tenth of the timeout, and there are more than ten of them: the
    // connection outlives the timeout only because each request restarts it.
    const KEEP_ALIVE: Duration = Duration::from_secs(1);
    const PAUSE: Duration = Duration::from_millis(100);
    let running = client::start(server(|b| timeouts(b, LONG, LONG, KEEP_ALIVE))).await;
    let addr = running.addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let used = Instant::now();
    for _ in 0..12 {
        stream
            .write_all(keep_alive_request(addr, &discover()).as_bytes())
            .await
            .unwrap();
        assert_eq!(read_answer(&mut stream).await, 200);
        tokio::time::sleep(PAUSE).await;
    }
    assert!(
        used.elapsed() > KEEP_ALIVE,
        "the connection was used for less than the timeout"
    );
    let sent = Instant::now();
    stream
        .write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut stream).await, 200);
    let rest = until_closed(&mut stream)
        .await
        .expect("an idle keep-alive connection is closed");
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    assert!(sent.elapsed() >= KEEP_ALIVE, "closed before the timeout");
}

/// A tool call on its own connection that waits at the gate: a busy connection.
async fn busy_connection(
    addr: std::net::SocketAddr,
    id: u64,
) -> tokio::task::JoinHandle<client::Answer> {
    tokio::spawn(client::call(
        addr,
        json!(id),
        "tools/call",
        json!({ "name": "gate", "arguments": {} }),
    ))
}

#[tokio::test]
async fn at_max_connections_the_idlest_connection_makes_room_and_a_busy_one_never_does() {
    let (gate, entered, release) = Gate::new();
    let running = client::start(server(|b| b.tool(gate).max_connections(2))).await;
    let addr = running.addr;
    let held = busy_connection(addr, 1).await;
    tokio::time::timeout(GIVE_UP, entered.notified())
        .await
        .expect("the gate is entered");
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    assert_eq!(read_answer(&mut idle).await, 200);
    // A third connection at the cap: the idle one is closed for it, at once.
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    let served = tokio::time::timeout(GIVE_UP, read_answer(&mut third)).await;
    assert_eq!(served.expect("served without waiting for a timeout"), 200);
    let rest = tokio::time::timeout(GIVE_UP, until_closed(&mut idle))
        .await
        .expect("the idle connection is closed")
        .expect("closed cleanly, between requests");
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
    // The busy connection was never chosen: its call finishes.
    release.add_permits(1);
    let held = tokio::time::timeout(GIVE_UP, held).await.unwrap().unwrap();
    assert_eq!(held.json()["result"]["content"][0]["text"], "released");
}

#[tokio::test]
async fn beyond_max_connections_of_busy_ones_a_connection_waits_until_one_closes() {
    let (gate, entered, release) = Gate::new();
    let running = client::start(server(|b| b.tool(gate).max_connections(2))).await;
    let addr = running.addr;
    let mut held = Vec::new();
    for id in 1..=2 {
        held.push(busy_connection(addr, id).await);
        tokio::time::timeout(GIVE_UP, entered.notified())
            .await
            .expect("the gate is entered");
    }
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.peek(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served at once");
    release.add_permits(1);
    assert_eq!(read_answer(&mut third).await, 200);
    release.add_permits(1);
    for call in held {
        let answer = tokio::time::timeout(GIVE_UP, call).await.unwrap().unwrap();
        assert_eq!(answer.json()["result"]["content"][0]["text"], "released");
    }
}

#[tokio::test]
async fn event_streams_outlive_the_body_and_keep_alive_timeouts() {
    let server = server(|b| timeouts(b, SHORT, SHORT, SHORT));
    let running = client::start(server.clone()).await;
    let addr = running.addr;
    // A call's event stream, silent for longer than every timeout between its events.
    let mut meta = client::meta();
    meta["progressToken"] = json!("lingering");
    let answer = client::call(
        addr,
        json!(1),
        "tools/call",
        json!({ "name": "lingers", "arguments": {}, "_meta": meta }),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    let events = answer.events();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[2]["result"]["content"][0]["text"], "lingered");

    // A legacy session's standalone stream, idle for longer than every timeout.
    let session = legacy::Client::open(addr).await;
    let headers = [
        ("mcp-session-id", session.session.as_str()),
        ("mcp-protocol-version", legacy::LEGACY),
    ];
    let mut standalone = legacy::send(addr, "GET", &headers, Vec::new()).await;
    assert_eq!(standalone.status, 200);
    tokio::time::sleep(SHORT * 5).await;
    server.notify_tools_list_changed();
    let changed = standalone.next_event().await.expect("the stream is open");
    assert_eq!(changed["method"], "notifications/tools/list_changed");
}

// ---------------------------------------------------------------------------------------------
// Requests in flight.

#[tokio::test]
async fn beyond_max_concurrent_requests_a_request_is_answered_503_with_retry_after() {
    let (gate, entered, release) = Gate::new();
    let running = client::start(server(|b| b.tool(gate).max_concurrent_requests(1))).await;
    let addr = running.addr;
    let held = tokio::spawn(client::call(
        addr,
        json!(1),
        "tools/call",
        json!({ "name": "gate", "arguments": {} }),
    ));
    tokio::time::timeout(GIVE_UP, entered.notified())
        .await
        .expect("the gate is entered");
    let refused = client::call(
        addr,
        json!(2),
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "hi" } }),
    )
    .await;
    assert_eq!(refused.status, 503);
    let retry_after: u64 = refused
        .header("retry-after")
        .expect("a Retry-After header")
        .parse()
        .expect("Retry-After in seconds");
    assert!(retry_after >= 1);
    assert_eq!(refused.header("content-type"), Some("application/json"));
    let error = refused.json();
    assert_eq!(error["jsonrpc"], "2.0");
    assert!(error["error"]["code"].is_i64(), "{error}");
    assert!(error["error"]["message"].is_string(), "{error}");
    release.add_permits(1);
    let held = tokio::time::timeout(GIVE_UP, held).await.unwrap().unwrap();
    assert_eq!(held.json()["result"]["content"][0]["text"], "released");
    // The slot is free again.
    let answer = client::call(
        addr,
        json!(3),
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "again" } }),
    )
    .await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn a_legacy_answer_gets_through_while_its_call_holds_the_last_slot() {
    let running = client::start(server(|b| {
        b.tool(mcp_examples::deploy::confirm_deploy)
            .max_concurrent_requests(1)
    }))
    .await;
    let session = legacy::Client::open(running.addr).await;
    // The call waits for its answer holding the only slot; the answer is still accepted.
    let exchange = session
        .call(1, "confirm_deploy", json!({}), |_question| {
            legacy::accept(json!({ "ok": true }))
        })
        .await;
    assert_eq!(exchange.text(), "Deployment confirmed.");
}
