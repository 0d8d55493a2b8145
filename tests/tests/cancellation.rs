//! A call whose client goes away stops at its next await: over HTTP when the connection
//! closes (whether the answer would be JSON or an event stream, on the stateless wire and on a
//! legacy session), over stdio when the client sends `notifications/cancelled` (stateless and
//! legacy), and also when an application serves `Server::router` with axum. The handler under test would otherwise run for an hour; a drop guard in its
//! future tells when it is gone, and the cancelled call gets no answer while others do.

#[path = "support/client.rs"]
mod client;
#[path = "support/endless.rs"]
mod endless;
#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use endless::{Endless, Probe, WAIT};
use mcp_runtime::server::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::net::TcpStream;

/// A server with the `endless` and `echo` tools, handling one request at a time over HTTP:
/// a call that was not freed would hold the only slot.
fn server(probe: &Arc<Probe>) -> Server {
    Server::builder()
        .name("cancellation")
        .tool(Endless(Arc::clone(probe)))
        .tool(handlers::Echo)
        .max_concurrent_requests(1)
        .build()
}

fn endless_call(id: u64, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "endless", "arguments": {}, "_meta": meta}})
}

fn with_progress(mut meta: Value) -> Value {
    meta["progressToken"] = json!("p");
    meta
}

/// Writes a POST of `body` on a fresh connection, with `headers` besides the standard ones.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &Value) -> TcpStream {
    let body = body.to_string();
    let mut head = String::from("POST /mcp HTTP/1.1\r\n");
    for (key, value) in client::headers_for(addr, body.as_bytes()) {
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(&key))
        {
            head.push_str(&format!("{key}: {value}\r\n"));
        }
    }
    for (key, value) in headers {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// Reads from `stream` until `needle` has arrived; fails the test after [`WAIT`].
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut seen = Vec::new();
    let reading = async {
        let mut buffer = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let read = stream.read(&mut buffer).await.unwrap();
            assert!(read > 0, "the stream ended before {needle:?}");
            seen.extend_from_slice(&buffer[..read]);
        }
    };
    tokio::time::timeout(WAIT, reading)
        .await
        .unwrap_or_else(|_| panic!("{needle:?} arrives within {WAIT:?}"));
    String::from_utf8_lossy(&seen).into_owned()
}

/// The handler's loop has stopped: its tick count does not move for a while.
async fn assert_stopped(probe: &Probe) {
    let ticks = probe.ticks();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(probe.ticks(), ticks, "the handler still runs");
}

/// The server answers the next call at once: the cancelled call holds no request slot.
async fn assert_serving(addr: SocketAddr) {
    let answer = tokio::time::timeout(
        WAIT,
        client::call(
            addr,
            json!(99),
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "still here"}}),
        ),
    )
    .await
    .expect("an answer in time");
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json()["result"]["content"][0]["text"], "still here");
}

#[tokio::test]
async fn http_a_closed_connection_drops_a_call_that_would_answer_json() {
    let probe = Arc::new(Probe::default());
    let running = client::start(server(&probe)).await;
    let stream = post(running.addr, &[], &endless_call(1, client::meta())).await;
    probe.wait_started(1).await;
    drop(stream);
    probe.wait_dropped(1).await;
    assert_stopped(&probe).await;
    assert_serving(running.addr).await;
}

#[tokio::test]
async fn http_a_closed_event_stream_drops_its_call() {
    let probe = Arc::new(Probe::default());
    let running = client::start(server(&probe)).await;
    let call = endless_call(1, with_progress(client::meta()));
    let mut stream = post(running.addr, &[], &call).await;
    let seen = read_until(&mut stream, "notifications/progress").await;
    assert!(seen.contains("text/event-stream"), "{seen}");
    drop(stream);
    // Well within the 15 s between keep-alive comments: the close itself is noticed.
    probe.wait_dropped(1).await;
    assert_stopped(&probe).await;
    assert_serving(running.addr).await;
}

#[tokio::test]
async fn http_a_closed_connection_drops_a_legacy_call_and_the_session_goes_on() {
    let probe = Arc::new(Probe::default());
    let running = client::start(server(&probe)).await;
    let session = legacy::Client::open(running.addr).await;
    let headers = [
        ("Mcp-Session-Id", session.session.as_str()),
        ("MCP-Protocol-Version", session.version.as_str()),
    ];
    for (round, meta) in [(1, json!({})), (2, json!({"progressToken": "p"}))] {
        let mut stream = post(running.addr, &headers, &endless_call(round, meta.clone())).await;
        probe.wait_started(round as usize).await;
        if meta.get("progressToken").is_some() {
            read_until(&mut stream, "notifications/progress").await;
        }
        drop(stream);
        probe.wait_dropped(round as usize).await;
    }
    assert_stopped(&probe).await;
    let pong = session.request(5, "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

#[tokio::test]
async fn http_a_closed_connection_drops_a_call_served_by_the_axum_router() {
    let probe = Arc::new(Probe::default());
    let app = server(&probe).router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });
    let stream = post(addr, &[], &endless_call(1, client::meta())).await;
    probe.wait_started(1).await;
    drop(stream);
    probe.wait_dropped(1).await;
    assert_stopped(&probe).await;
    assert_serving(addr).await;
    serving.abort();
}

/// A server on in-process stdio: what the test writes is its stdin, what it reads its stdout.
struct Stdio {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Stdio {
    fn start(server: Server) -> Self {
        let (input, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(64 * 1024);
        let serving = tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
        Self {
            input,
            output: BufReader::new(output).lines(),
            serving,
        }
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.input.write_all(&line).await.unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.output.next_line())
            .await
            .expect("a line in time")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    /// Closes stdin and returns every line written after, once the server has stopped.
    async fn close(self) -> Vec<Value> {
        let Self {
            input,
            mut output,
            serving,
        } = self;
        drop(input);
        tokio::time::timeout(WAIT, serving)
            .await
            .expect("the server stops once stdin closes and nothing runs")
            .unwrap()
            .unwrap();
        let mut rest = Vec::new();
        while let Some(line) = output.next_line().await.unwrap() {
            rest.push(serde_json::from_str(&line).unwrap());
        }
        rest
    }
}

fn cancel(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the user pressed stop"}})
}

fn echo(id: u64, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "still here"}, "_meta": meta}})
}

/// Two endless calls; the first is cancelled and gets no answer, the second keeps running
/// while an `echo` is answered, then is cancelled too; nothing is answered for either.
async fn cancel_on_stdio(mut stdio: Stdio, probe: &Probe, meta: Value) {
    stdio.send(&endless_call(1, meta.clone())).await;
    stdio.send(&endless_call(2, meta.clone())).await;
    probe.wait_started(2).await;
    stdio.send(&cancel(1)).await;
    probe.wait_dropped(1).await;
    // A cancellation of something that is not running changes nothing.
    stdio.send(&cancel(7)).await;
    stdio.send(&echo(3, meta)).await;
    let answer = stdio.read().await;
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "still here");
    assert_eq!(probe.dropped(), 1, "the other call runs on");
    let ticks = probe.ticks();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(probe.ticks() > ticks, "the other call runs on");
    stdio.send(&cancel(2)).await;
    probe.wait_dropped(2).await;
    assert_stopped(probe).await;
    let rest = stdio.close().await;
    assert!(
        rest.is_empty(),
        "cancelled calls are not answered: {rest:?}"
    );
}

#[tokio::test]
async fn stdio_a_cancelled_call_is_dropped_and_gets_no_answer() {
    let probe = Arc::new(Probe::default());
    let stdio = Stdio::start(server(&probe));
    cancel_on_stdio(stdio, &probe, client::meta()).await;
}

#[tokio::test]
async fn stdio_a_cancelled_legacy_call_is_dropped_and_gets_no_answer() {
    let probe = Arc::new(Probe::default());
    let mut stdio = Stdio::start(server(&probe));
    stdio
        .send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": legacy::LEGACY, "capabilities": {},
            "clientInfo": {"name": "cancellation-test", "version": "1"}}}),
        )
        .await;
    let initialized = stdio.read().await;
    assert_eq!(initialized["id"], 0, "{initialized}");
    stdio
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    cancel_on_stdio(stdio, &probe, json!({})).await;
}
