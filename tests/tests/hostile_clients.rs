//! Hostile clients against what outlives a request, over real loopback sockets: legacy
//! sessions and what they keep, standalone streams, calls waiting for answers, requests in
//! flight, connections at the cap, and clients that stop reading. Each test is what one client did to deny others
//! service before the server bounded it; each checks that the others are still served.
//!
//! Callers without a subject are told apart by address, so the attacker here connects from
//! 127.0.0.2 and the honest client from 127.0.0.1 (both loopback).

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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use handlers::tool;
use legacy::{Client, LEGACY, accept, send};
use mcp_runtime::protocol::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::server::{
    BoxFuture, HandlerResult, Reply, Request, Server, ServerBuilder, ToolHandler,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// How long a test waits for what the server should do at once.
const GIVE_UP: Duration = Duration::from_secs(10);

/// The attacker's address.
const STRANGER: [u8; 4] = [127, 0, 0, 2];

/// Answers the size of the capabilities its call sees, as JSON.
struct Capabilities;

impl ToolHandler for Capabilities {
    fn definition(&self) -> Tool {
        tool("capabilities")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let seen = serde_json::to_value(&request.capabilities).unwrap();
        Box::pin(async move {
            let text = json!({ "bytes": seen.to_string().len(), "capabilities": seen });
            Ok(Reply::Complete(CallToolResult::new(vec![
                ContentBlock::text(text.to_string()),
            ])))
        })
    }
}

/// Sends 64 KiB progress messages as fast as they are taken, forever; counts its drops.
struct Floods(Arc<AtomicUsize>);

struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

impl ToolHandler for Floods {
    fn definition(&self) -> Tool {
        tool("floods")
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        let dropped = Dropped(Arc::clone(&self.0));
        Box::pin(async move {
            let _dropped = dropped;
            let message = "x".repeat(64 * 1024);
            for step in 0u32.. {
                request
                    .progress
                    .report(f64::from(step), None, Some(message.clone()));
                tokio::task::yield_now().await;
            }
            unreachable!()
        })
    }
}

fn server(configure: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Server {
    let builder = mcp_examples::deploy::register(Server::builder().name("hostile"));
    let builder = mcp_examples::tracker::register(builder).tool(Capabilities);
    configure(builder).build()
}

async fn connect_from(addr: SocketAddr, from: [u8; 4]) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::from((from, 0))).unwrap();
    tokio::time::timeout(GIVE_UP, socket.connect(addr))
        .await
        .expect("connects in time")
        .expect("connects")
}

/// An `initialize` from `from`: the status and the session id.
async fn initialize_from(addr: SocketAddr, from: [u8; 4]) -> (u16, Option<String>) {
    let body = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "stranger", "version": "1"},
        },
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = connect_from(addr, from).await;
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(GIVE_UP, stream.read_to_end(&mut raw))
        .await
        .expect("answered in time")
        .unwrap();
    let text = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    let status = text.split(' ').nth(1).unwrap().parse().unwrap();
    let session = text
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id:"))
        .map(|id| id.trim().to_owned());
    (status, session)
}

async fn tools_list(client: &Client, id: u64) -> Value {
    client.request(id, "tools/list", json!({})).await
}

/// An honest stateless request on a fresh connection: answered within `GIVE_UP`.
async fn honest_request(addr: SocketAddr) {
    let answer = tokio::time::timeout(
        GIVE_UP,
        client::call(addr, json!(1), "tools/list", json!({})),
    )
    .await
    .expect("an honest request is answered in time");
    assert_eq!(answer.status, 200);
    assert!(answer.json()["result"]["tools"].is_array());
}

// ---------------------------------------------------------------------------------------------
// What a session keeps.

#[tokio::test]
async fn a_session_keeps_a_bounded_copy_of_large_capabilities() {
    let running = client::start(server(|b| b)).await;
    let blob = "x".repeat(1024 * 1024);
    let capabilities = json!({
        "elicitation": {"form": {}},
        "experimental": {"blob": {"data": blob}},
        "unknown": {"data": blob},
    });
    let (session, _) = Client::open_with(running.addr, LEGACY, capabilities).await;
    let exchange = session
        .call(1, "capabilities", json!({}), |_| json!({}))
        .await;
    let seen: Value = serde_json::from_str(exchange.text()).unwrap();
    assert!(seen["bytes"].as_u64().unwrap() <= 4096, "{seen}");
    assert_eq!(seen["capabilities"]["elicitation"], json!({"form": {}}));
    assert_eq!(seen["capabilities"]["experimental"], json!({"blob": {}}));
    // Small capabilities stay whole.
    let (session, _) = Client::open_with(
        running.addr,
        LEGACY,
        json!({"elicitation": {"form": {}}, "experimental": {"a": {"b": 1}}}),
    )
    .await;
    let exchange = session
        .call(1, "capabilities", json!({}), |_| json!({}))
        .await;
    let seen: Value = serde_json::from_str(exchange.text()).unwrap();
    assert_eq!(seen["capabilities"]["experimental"], json!({"a": {"b": 1}}));
}

#[tokio::test]
async fn subscriptions_are_bounded_and_only_to_what_the_server_serves() {
    let running = client::start(server(|b| b.max_subscriptions(3))).await;
    let session = Client::open(running.addr).await;
    let subscribe = |id, uri: String| {
        let session = &session;
        async move {
            session
                .request(id, "resources/subscribe", json!({ "uri": uri }))
                .await
        }
    };
    for (id, number) in (1..=3).zip([1, 2, 3]) {
        let answer = subscribe(id, format!("tracker://issues/{number}")).await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let too_many = subscribe(4, "tracker://issues/4".into()).await;
    assert_eq!(too_many["error"]["code"], -32602, "{too_many}");
    assert!(
        too_many["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 3"),
        "{too_many}"
    );
    let unserved = subscribe(5, "file:///etc/passwd".into()).await;
    assert_eq!(unserved["error"]["code"], -32602, "{unserved}");
    let long = subscribe(6, format!("tracker://issues/{}", "9".repeat(1 << 20))).await;
    assert_eq!(long["error"]["code"], -32602);
    assert!(long.to_string().len() < 1024, "the URI is not echoed back");
    // Unsubscribing makes room.
    let answer = session
        .request(
            7,
            "resources/unsubscribe",
            json!({"uri": "tracker://issues/1"}),
        )
        .await;
    assert_eq!(answer["result"], json!({}));
    let answer = subscribe(8, "tracker://issues/4".into()).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
}

#[tokio::test]
async fn idle_sessions_are_swept_without_anyone_looking_them_up() {
    let server = server(|b| b.session_idle_timeout(Duration::from_millis(200)));
    let running = client::start(server.clone()).await;
    for _ in 0..5 {
        Client::open(running.addr).await;
    }
    assert_eq!(server.legacy_sessions(), 5);
    let swept = async {
        while server.legacy_sessions() > 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(GIVE_UP, swept)
        .await
        .expect("the sweeper closes idle sessions");
}

// ---------------------------------------------------------------------------------------------
// Eviction.

#[tokio::test]
async fn a_stranger_opening_sessions_closes_only_its_own() {
    let server = server(|b| b.max_sessions(20).max_sessions_per_owner(5));
    let running = client::start(server.clone()).await;
    let honest = Client::open(running.addr).await;
    for _ in 0..200 {
        let (status, session) = initialize_from(running.addr, STRANGER).await;
        assert_eq!(status, 200);
        assert!(session.is_some());
    }
    assert_eq!(
        server.legacy_sessions(),
        6,
        "the stranger keeps 5, the honest client 1"
    );
    let listed = tools_list(&honest, 1).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

#[tokio::test]
async fn at_the_servers_cap_a_stranger_is_refused_rather_than_closing_others() {
    let server = server(|b| b.max_sessions(3));
    let running = client::start(server.clone()).await;
    let honest: Vec<Client> = [
        Client::open(running.addr).await,
        Client::open(running.addr).await,
    ]
    .into();
    // The stranger fills the last place, then closes only its own session for each new one.
    for _ in 0..20 {
        assert_eq!(initialize_from(running.addr, STRANGER).await.0, 200);
    }
    assert_eq!(server.legacy_sessions(), 3);
    for (id, client) in (1..).zip(&honest) {
        let listed = tools_list(client, id).await;
        assert!(listed["result"]["tools"].is_array(), "{listed}");
    }
    // A third address, with nothing of its own to close, is refused.
    assert_eq!(initialize_from(running.addr, [127, 0, 0, 3]).await.0, 503);
}

// ---------------------------------------------------------------------------------------------
// Streams and calls.

#[tokio::test]
async fn a_new_standalone_stream_ends_the_old_one_and_stream_holders_free_their_connections() {
    let running = client::start(server(|b| b.max_connections(8))).await;
    let addr = running.addr;
    let session = Client::open(addr).await;
    let headers = [
        ("mcp-session-id", session.session.as_str()),
        ("mcp-protocol-version", LEGACY),
    ];
    let first = send(addr, "GET", &headers, Vec::new()).await;
    assert_eq!(first.status, 200);
    let mut held = Vec::new();
    for _ in 0..30 {
        let stream = send(addr, "GET", &headers, Vec::new()).await;
        assert_eq!(stream.status, 200);
        held.push(stream);
    }
    // The first stream has ended: its body is whole.
    first.bytes().await;
    // Thirty GETs on one session hold one stream; the others' connections made room.
    honest_request(addr).await;
}

#[tokio::test]
async fn calls_beyond_a_clients_caps_are_refused_at_once_and_others_still_call() {
    let running = client::start(server(|b| b.max_calls(2, 3))).await;
    let addr = running.addr;
    let first = Client::open(addr).await;
    let second = Client::open(addr).await;
    let call = |id: u64| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"service": "web"}},
        })
    };
    // Calls whose question is never answered.
    let mut waiting = Vec::new();
    for (client, id) in [(&first, 1), (&first, 2), (&second, 3)] {
        let mut stream = client.post(&call(id)).await;
        assert_eq!(stream.status, 200);
        let question = stream.next_event().await.expect("a question");
        assert_eq!(question["method"], "elicitation/create");
        waiting.push(stream);
    }
    let refused = first.post(&call(4)).await.refusal(429).await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("this session runs 2 calls"),
        "{refused}"
    );
    let refused = second.post(&call(5)).await;
    assert_eq!(refused.status, 429);
    assert!(refused.header("retry-after").is_some());
    // Another client is not affected, and a finished call makes room.
    let (status, other) = initialize_from(addr, STRANGER).await;
    assert_eq!(status, 200);
    assert!(other.is_some());
    drop(waiting.pop());
    let answered = tokio::time::timeout(GIVE_UP, async {
        loop {
            let exchange = second
                .call(6, "deploy", json!({"service": "web"}), |_| {
                    accept(json!({"environment": "staging", "replicas": 1}))
                })
                .await;
            if exchange.response.get("result").is_some() {
                return exchange;
            }
            // The dropped stream's call ends as soon as the server notices.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    });
    let exchange = answered.await.expect("a place comes back");
    assert!(exchange.text().contains("web"), "{}", exchange.text());
}

#[tokio::test]
async fn a_legacy_call_whose_client_takes_no_event_stream_is_refused_at_its_question() {
    let server = server(|b| b);
    let running = client::start(server.clone()).await;
    let session = Client::open(running.addr).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": "web"}},
    });
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: {LEGACY}\r\n\
         Content-Length: {length}\r\nConnection: close\r\n\r\n{body}",
        addr = running.addr,
        id = session.session,
        length = body.to_string().len(),
    );
    let answer = tokio::time::timeout(
        GIVE_UP,
        client::raw_exchange(running.addr, request.as_bytes()),
    )
    .await
    .expect("refused at once, not after the input timeout");
    let (status, text) = answer;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("text/event-stream"), "{text}");
    assert!(text.contains("-32600"), "{text}");
    assert_eq!(server.legacy_requests_waiting(), 0);
}

#[tokio::test]
async fn a_client_that_stops_reading_loses_its_connection_and_its_call() {
    let dropped = Arc::new(AtomicUsize::new(0));
    let floods = Floods(Arc::clone(&dropped));
    let running = client::start(server(|b| {
        b.tool(floods).write_timeout(Duration::from_millis(500))
    }))
    .await;
    let addr = running.addr;
    let mut meta = client::meta();
    meta["progressToken"] = json!("flood");
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "floods", "arguments": {}, "_meta": meta},
    })
    .to_string();
    let mut request = String::from("POST /mcp HTTP/1.1\r\n");
    for (name, value) in client::headers_for(addr, body.as_bytes()) {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    // Never read: the server's writes wait, then time out, and the call is dropped.
    let gone = async {
        while dropped.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), gone)
        .await
        .expect("the stalled call is dropped");
    honest_request(addr).await;
}

#[tokio::test]
async fn one_client_holds_at_most_its_share_of_the_requests_in_flight() {
    let running = client::start(server(|b| b.max_requests_per_owner(2))).await;
    let addr = running.addr;
    let session = Client::open(addr).await;
    // Two legacy calls waiting for their question's answer: two requests in flight.
    let mut waiting = Vec::new();
    for id in 1..=2 {
        let call = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"service": "web"}},
        });
        let mut stream = session.post(&call).await;
        assert_eq!(stream.status, 200);
        stream.next_event().await.expect("a question");
        waiting.push(stream);
    }
    let refused = client::call(addr, json!(3), "tools/list", json!({})).await;
    assert_eq!(refused.status, 429, "{:?}", refused.json());
    assert!(refused.header("retry-after").is_some());
    assert!(
        refused.json()["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("2 requests in flight")),
        "{:?}",
        refused.json()
    );
    // Another address is served; the first client's answers still get through.
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": client::meta()}});
    let other = client::send_from(
        addr,
        Some(STRANGER.into()),
        "POST",
        &[],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(other.status, 200);
    drop(waiting);
    let served = async {
        loop {
            let answer = client::call(addr, json!(5), "tools/list", json!({})).await;
            if answer.status == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(GIVE_UP, served)
        .await
        .expect("a place comes back when a call ends");
}

// ---------------------------------------------------------------------------------------------
// Connections.

#[tokio::test]
async fn silent_connections_at_the_cap_make_room_for_an_honest_request() {
    let running = client::start(server(|b| {
        b.max_connections(16)
            .header_read_timeout(Duration::from_secs(60))
    }))
    .await;
    let mut silent = Vec::new();
    for _ in 0..40 {
        silent.push(connect_from(running.addr, STRANGER).await);
    }
    // Without room made, this would wait for a silent connection's 60 s header timeout.
    honest_request(running.addr).await;
}
