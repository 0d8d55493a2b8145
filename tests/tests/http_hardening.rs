//! The HTTP transport on a hostile network, over real loopback sockets: stalled connections
//! are closed by the header, body and keep-alive timeouts while event streams live on; open
//! connections and requests in flight are capped; `Host`, `Origin` and absolute-form targets
//! are parsed strictly. Memory under many-chunk bodies is measured by `attack chunks`
//! (examples/src/bin/attack.rs), not asserted here.

#[path = "support/client.rs"]
mod client;
#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

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

fn discover() -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": client::meta() } })
        .to_string()
}

/// A conforming keep-alive `POST /mcp` carrying `body`.
fn keep_alive_request(addr: SocketAddr, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: {}\r\nContent-Length: {}\r\n\r\n{body}",
        client::VERSION,
        body.len()
    )
}

/// Reads one answer with a `Content-Length` body from a keep-alive connection; its status.
async fn read_answer(stream: &mut TcpStream) -> u16 {
    let mut raw = Vec::new();
    let read = async {
        loop {
            if let Some(end) = raw.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |value| value.trim().parse().unwrap());
                if raw.len() >= end + 4 + length {
                    return head.split(' ').nth(1).unwrap().parse().unwrap();
                }
            }
            let mut chunk = [0u8; 4096];
            let read = stream.read(&mut chunk).await.expect("readable");
            assert!(read > 0, "closed before a whole answer: {raw:?}");
            raw.extend_from_slice(&chunk[..read]);
        }
    };
    tokio::time::timeout(GIVE_UP, read)
        .await
        .expect("an answer in time")
}

/// Reads (keeping what arrives) until the server closes the connection; gives up after
/// [`GIVE_UP`]. Returns what was read.
async fn until_closed(stream: &mut TcpStream) -> Result<Vec<u8>, Vec<u8>> {
    let mut raw = Vec::new();
    let read = async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => raw.extend_from_slice(&chunk[..read]),
            }
        }
    };
    match tokio::time::timeout(GIVE_UP, read).await {
        Ok(()) => Ok(raw),
        Err(_) => Err(raw),
    }
}

/// Sends `bytes` on a fresh connection and reads the whole answer (the request should say
/// `Connection: close`); the status and the raw answer.
async fn raw_exchange(addr: SocketAddr, bytes: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let raw = until_closed(&mut stream)
        .await
        .expect("the server answers and closes");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    (status, text)
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
    let running = client::start(server(|b| timeouts(b, LONG, LONG, SHORT))).await;
    let addr = running.addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    // Used within the timeout, the connection stays open.
    for _ in 0..3 {
        stream
            .write_all(keep_alive_request(addr, &discover()).as_bytes())
            .await
            .unwrap();
        assert_eq!(read_answer(&mut stream).await, 200);
        tokio::time::sleep(SHORT / 3).await;
    }
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
    assert!(sent.elapsed() >= SHORT, "closed before the timeout");
}

#[tokio::test]
async fn beyond_max_connections_a_connection_waits_until_one_closes() {
    let running = client::start(server(|b| b.max_connections(2))).await;
    let addr = running.addr;
    let mut open = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(keep_alive_request(addr, &discover()).as_bytes())
            .await
            .unwrap();
        assert_eq!(read_answer(&mut stream).await, 200);
        open.push(stream);
    }
    let mut third = TcpStream::connect(addr).await.unwrap();
    third
        .write_all(keep_alive_request(addr, &discover()).as_bytes())
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.peek(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served at once");
    drop(open.remove(0));
    assert_eq!(read_answer(&mut third).await, 200);
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
    let entered = Arc::new(Notify::new());
    let release = Arc::new(Semaphore::new(0));
    let gate = Gate {
        entered: Arc::clone(&entered),
        release: Arc::clone(&release),
    };
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

// ---------------------------------------------------------------------------------------------
// A body of many tiny chunks is read whole (its memory is measured by `attack chunks`).

#[tokio::test]
async fn a_body_of_many_one_byte_chunks_is_read_whole_and_held_to_the_limit() {
    let running = client::start(server(|b| b.body_limit(16 * 1024))).await;
    let addr = running.addr;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: {}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        client::VERSION
    );
    let message = discover();
    let mut body = head.clone().into_bytes();
    for _ in 0..10_000 {
        body.extend_from_slice(b"1\r\n \r\n");
    }
    body.extend_from_slice(format!("{:x}\r\n{message}\r\n0\r\n\r\n", message.len()).as_bytes());
    let (status, answer) = raw_exchange(addr, &body).await;
    assert_eq!(status, 200, "{answer}");
    let mut over = head.into_bytes();
    for _ in 0..(17 * 1024) {
        over.extend_from_slice(b"1\r\n \r\n");
    }
    over.extend_from_slice(b"0\r\n\r\n");
    let (status, answer) = raw_exchange(addr, &over).await;
    assert_eq!(status, 413, "{answer}");
}

// ---------------------------------------------------------------------------------------------
// `Host`, `Origin` and the request target.

/// A `POST` of `server/discover` to `target` with `headers` (each a whole header line), on a
/// connection the server closes after answering.
fn post_with(target: &str, headers: &[String]) -> Vec<u8> {
    let body = discover();
    let mut request = format!("POST {target} HTTP/1.1\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json\r\n\
         MCP-Protocol-Version: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        client::VERSION,
        body.len()
    ));
    request.into_bytes()
}

#[tokio::test]
async fn hosts_are_parsed_strictly() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let port = addr.port();
    let cases: &[(&str, u16)] = &[
        // Local names, any port, any case.
        ("localhost", 200),
        (&format!("LocalHost:{port}"), 200),
        ("127.0.0.1:80", 200),
        ("[::1]", 200),
        (&format!("[::1]:{port}"), 200),
        // Foreign names.
        ("evil.example.com", 403),
        ("localhost.evil.com", 403),
        ("127.0.0.2", 403),
        // What a lax split on `:` or `]` took for a local name.
        ("localhost:evil.com", 400),
        ("localhost:80@evil.com", 400),
        ("[::1]evil", 400),
        ("127.0.0.1:99999", 400),
        ("", 400),
        ("local host", 400),
    ];
    for (host, status) in cases {
        let (answer, raw) =
            raw_exchange(addr, &post_with("/mcp", &[format!("Host: {host}")])).await;
        assert_eq!(answer, *status, "Host: {host:?}\n{raw}");
    }
    // No `Host` at all.
    let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &[])).await;
    assert_eq!(answer, 400, "{raw}");
}

#[tokio::test]
async fn a_second_host_or_origin_is_refused() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let host = format!("Host: {addr}");
    let origin = format!("Origin: http://{addr}");
    for (case, headers) in [
        (
            "two hosts",
            vec![host.clone(), "Host: evil.example.com".to_owned()],
        ),
        ("the same host twice", vec![host.clone(), host.clone()]),
        (
            "two origins",
            vec![
                host.clone(),
                origin.clone(),
                "Origin: http://evil.example.com".to_owned(),
            ],
        ),
    ] {
        let (status, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(status, 400, "{case}\n{raw}");
    }
    let (status, raw) = raw_exchange(addr, &post_with("/mcp", &[host, origin])).await;
    assert_eq!(status, 200, "{raw}");
}

#[tokio::test]
async fn an_absolute_form_target_must_name_an_allowed_host_that_agrees_with_host() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let local = addr.to_string();
    let cases = [
        (format!("http://{addr}/mcp"), local.as_str(), 200),
        // A foreign target, whatever `Host` says.
        (
            "http://evil.example.com/mcp".to_owned(),
            "evil.example.com",
            403,
        ),
        ("http://evil.example.com/mcp".to_owned(), &local, 400),
        // Two local names that disagree.
        (format!("http://localhost:{}/mcp", addr.port()), &local, 400),
        (format!("http://user@{addr}/mcp"), &local, 400),
    ];
    for (target, host, status) in cases {
        let (answer, raw) =
            raw_exchange(addr, &post_with(&target, &[format!("Host: {host}")])).await;
        assert_eq!(answer, status, "{target} (Host: {host})\n{raw}");
    }
}

#[tokio::test]
async fn origins_are_parsed_strictly_and_null_is_refused() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let port = addr.port();
    let cases: &[(&str, u16)] = &[
        (&format!("http://localhost:{port}"), 200),
        ("https://127.0.0.1", 200),
        ("http://[::1]:8080", 200),
        ("null", 403),
        ("http://evil.example.com", 403),
        ("http://localhost:evil.com", 403),
        ("http://localhost:80@evil.com", 403),
        ("http://[::1]evil", 403),
        ("http://localhost/path", 403),
        ("ftp://localhost", 403),
        ("localhost", 403),
    ];
    for (origin, status) in cases {
        let headers = [format!("Host: {addr}"), format!("Origin: {origin}")];
        let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(answer, *status, "Origin: {origin}\n{raw}");
    }
}

#[tokio::test]
async fn allow_host_and_allow_origin_allow_exactly_what_they_name() {
    let server = Server::builder()
        .tool(handlers::Echo)
        .allow_host("mcp.example.com")
        .allow_origin("https://app.example.com")
        .allow_origin("null")
        .build();
    let running = client::start(server).await;
    let addr = running.addr;
    let cases: &[(&str, Option<&str>, u16)] = &[
        ("mcp.example.com", None, 200),
        ("MCP.Example.com:8443", None, 200),
        ("evil.mcp.example.com", None, 403),
        ("mcp.example.com:80@evil.com", None, 400),
        ("mcp.example.com", Some("https://app.example.com"), 200),
        ("mcp.example.com", Some("null"), 200),
        ("mcp.example.com", Some("https://app.example.com:8443"), 403),
        ("mcp.example.com", Some("http://app.example.com"), 403),
    ];
    for (host, origin, status) in cases {
        let mut headers = vec![format!("Host: {host}")];
        headers.extend(origin.map(|origin| format!("Origin: {origin}")));
        let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(answer, *status, "Host: {host}, Origin: {origin:?}\n{raw}");
    }
    let anywhere = Server::builder()
        .tool(handlers::Echo)
        .allow_host("*")
        .build();
    let running = client::start(anywhere).await;
    let addr = running.addr;
    for (host, status) in [
        ("evil.example.com:8080", 200),
        ("localhost:80@evil.com", 400),
    ] {
        let (answer, raw) =
            raw_exchange(addr, &post_with("/mcp", &[format!("Host: {host}")])).await;
        assert_eq!(answer, status, "Host: {host}\n{raw}");
    }
    let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &[])).await;
    assert_eq!(answer, 200, "no Host behind `*`\n{raw}");
}
