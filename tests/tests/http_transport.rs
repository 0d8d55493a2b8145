//! The Streamable HTTP transport end to end, over a real socket: bad bodies get clear errors
//! and the server keeps serving, lifecycle errors travel with their statuses, progress streams.

#[path = "support/client.rs"]
mod client;
#[path = "support/handlers.rs"]
mod handlers;

use client::{call, send};
use serde_json::{Value, json};

async fn still_serving(addr: std::net::SocketAddr) {
    let answer = call(
        addr,
        json!(99),
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "alive" } }),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["result"]["content"][0]["text"], "alive");
}

#[tokio::test]
async fn bad_bodies_get_clear_errors_and_the_server_keeps_serving() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let cases: Vec<(&str, Vec<u8>, u16, i64)> = vec![
        (
            "invalid JSON",
            b"{\"jsonrpc\": \"2.0\", ".to_vec(),
            400,
            -32700,
        ),
        (
            "batch",
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#.to_vec(),
            400,
            -32600,
        ),
        (
            "missing method",
            br#"{"jsonrpc":"2.0","id":1}"#.to_vec(),
            400,
            -32600,
        ),
        ("not an object", b"42".to_vec(), 400, -32600),
        (
            "deeply nested",
            ("[".repeat(20_000) + &"]".repeat(20_000)).into_bytes(),
            400,
            -32600,
        ),
        ("oversized", vec![b' '; 65 * 1024], 413, -32600),
    ];
    for (case, body, status, code) in cases {
        let answer = send(addr, "POST", &[], &body).await;
        assert_eq!(answer.status, status, "{case}");
        assert_eq!(
            answer.header("content-type"),
            Some("application/json"),
            "{case}"
        );
        let error = answer.json();
        assert_eq!(error["error"]["code"], code, "{case}: {error}");
        assert!(
            error["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{case}"
        );
        still_serving(addr).await;
    }
}

#[tokio::test]
async fn content_type_accept_and_method_are_checked() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": client::meta() } });
    let body = body.to_string();
    let wrong_type = send(
        addr,
        "POST",
        &[("Content-Type", "text/plain")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(wrong_type.status, 415);
    let no_json = send(addr, "POST", &[("Accept", "text/html")], body.as_bytes()).await;
    assert_eq!(no_json.status, 406);
    let get = send(addr, "GET", &[], b"").await;
    assert_eq!(get.status, 405);
    let charset = send(
        addr,
        "POST",
        &[("Content-Type", "application/json; charset=utf-8")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(charset.status, 200);
    still_serving(addr).await;
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": client::meta() } });
    let body = body.to_string();
    let host = send(
        addr,
        "POST",
        &[("Host", "evil.example.com")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(host.status, 403);
    let origin = send(
        addr,
        "POST",
        &[("Origin", "http://evil.example.com")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(origin.status, 403);
    let port = addr.port().to_string();
    for local in ["localhost", "127.0.0.1", "[::1]"] {
        let host = format!("{local}:{port}");
        let origin = format!("http://{local}:{port}");
        let answer = send(
            addr,
            "POST",
            &[("Host", &host), ("Origin", &origin)],
            body.as_bytes(),
        )
        .await;
        assert_eq!(answer.status, 200, "{local}");
    }
    let allowed = mcp_runtime::server::Server::builder()
        .allow_host("mcp.example.com")
        .tool(handlers::Echo)
        .build();
    let allowed = client::start(allowed).await;
    let answer = send(
        allowed.addr,
        "POST",
        &[("Host", "mcp.example.com")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(answer.status, 200);
}

#[tokio::test]
async fn lifecycle_errors_travel_with_their_http_statuses_and_ids() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let missing_meta =
        json!({ "jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {} });
    let answer = send(addr, "POST", &[], missing_meta.to_string().as_bytes()).await;
    assert_eq!(
        (
            answer.status,
            answer.json()["error"]["code"].clone(),
            answer.json()["id"].clone()
        ),
        (400, json!(-32602), json!(0))
    );
    let answer = call(addr, json!("s"), "initialize", json!({})).await;
    assert_eq!(
        (
            answer.status,
            answer.json()["error"]["code"].clone(),
            answer.json()["id"].clone()
        ),
        (404, json!(-32601), json!("s"))
    );
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": { "_meta": client::meta() } });
    let mismatch = send(
        addr,
        "POST",
        &[("MCP-Protocol-Version", "2025-06-18")],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        (mismatch.status, mismatch.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let missing = send(
        addr,
        "POST",
        &[("MCP-Protocol-Version", "")],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        (missing.status, missing.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let answer = call(
        addr,
        json!(4),
        "tools/call",
        json!({ "name": "needs_sampling" }),
    )
    .await;
    assert_eq!(
        (answer.status, answer.json()["error"]["code"].clone()),
        (400, json!(-32021))
    );
    let answer = call(addr, json!(5), "tools/call", json!({ "name": "panics" })).await;
    assert_eq!(
        (answer.status, answer.json()["error"]["code"].clone()),
        (200, json!(-32603))
    );
    still_serving(addr).await;
}

#[tokio::test]
async fn progress_switches_the_answer_to_an_event_stream() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let mut meta = client::meta();
    meta["progressToken"] = json!(11);
    let answer = call(
        addr,
        json!(1),
        "tools/call",
        json!({ "name": "slow", "_meta": meta }),
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    let events = answer.events();
    let progress: Vec<f64> = events[..3]
        .iter()
        .map(|event| event["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert!(
        events[..3]
            .iter()
            .all(|event| event["params"]["progressToken"] == 11)
    );
    assert_eq!(events[3]["id"], 1);
    assert_eq!(events[3]["result"]["content"][0]["text"], "done");
    let plain = call(addr, json!(2), "tools/call", json!({ "name": "slow" })).await;
    assert_eq!(plain.header("content-type"), Some("application/json"));
}

/// Each `Accept` text gets its own answer, also when texts alternate on one server thread,
/// more of them than it remembers verdicts on, and one too long to be remembered.
#[tokio::test]
async fn alternating_accept_headers_are_each_judged_as_they_read() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let mut meta = client::meta();
    meta["progressToken"] = json!(11);
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "slow", "_meta": meta },
    })
    .to_string();
    let long = format!("text/html,{} application/json", " ".repeat(200));
    let cases: [(&str, u16, Option<&str>); 7] = [
        (
            "application/json, text/event-stream",
            200,
            Some("text/event-stream"),
        ),
        ("text/html", 406, Some("application/json")),
        ("application/json", 200, Some("application/json")),
        (
            "TEXT/*;q=0.5, Application/*",
            200,
            Some("text/event-stream"),
        ),
        ("text/event-stream", 406, Some("application/json")),
        ("*/*", 200, Some("text/event-stream")),
        (&long, 200, Some("application/json")),
    ];
    for _ in 0..2 {
        for (accept, status, content_type) in &cases {
            let answer = send(addr, "POST", &[("Accept", accept)], body.as_bytes()).await;
            assert_eq!(answer.status, *status, "{accept}");
            assert_eq!(answer.header("content-type"), *content_type, "{accept}");
        }
    }
}

#[tokio::test]
async fn concurrent_requests_are_all_answered() {
    const CALLS: usize = 8;
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(CALLS));
    let server = mcp_runtime::server::Server::builder()
        .tool(handlers::Rendezvous(barrier))
        .build();
    let server = client::start(server).await;
    let addr = server.addr;
    // Every call is sent before any answer is awaited; none is answered until all of them
    // are in the handler at once.
    let calls: Vec<_> = (0..CALLS)
        .map(|n| {
            tokio::spawn(async move {
                call(
                    addr,
                    json!(n),
                    "tools/call",
                    json!({ "name": "rendezvous" }),
                )
                .await
            })
        })
        .collect();
    let mut ids = Vec::new();
    for call in calls {
        let answer = call.await.expect("the call task completes").json();
        assert_eq!(answer["result"]["content"][0]["text"], "met", "{answer}");
        ids.push(answer["id"].clone());
    }
    assert_eq!(ids, (0..CALLS).map(Value::from).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_subject_hook_sees_the_request_parts() {
    let server = mcp_runtime::server::Server::builder()
        .tool(handlers::Echo)
        .subject(|parts| {
            let token = parts.headers.get("authorization")?.to_str().ok()?;
            token.strip_prefix("Bearer ").map(str::to_owned)
        })
        .build();
    let server = client::start(server).await;
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": { "name": "echo", "arguments": { "text": "hi" }, "_meta": client::meta() } });
    let answer = send(
        server.addr,
        "POST",
        &[("Authorization", "Bearer alice")],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        answer.json()["result"]["content"][0]["text"],
        "hi (for alice)"
    );
}

/// The listener hands a POST its peer without the routing, and a subject hook still finds
/// it among the request's extensions, as under axum's router.
#[tokio::test]
async fn the_subject_hook_finds_the_peer_among_the_extensions() {
    let server = mcp_runtime::server::Server::builder()
        .tool(handlers::Echo)
        .subject(|parts| {
            let axum::extract::ConnectInfo(peer) = parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()?;
            Some(peer.ip().to_string())
        })
        .build();
    let server = client::start(server).await;
    let answer = call(
        server.addr,
        json!(1),
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "hi" } }),
    )
    .await;
    assert_eq!(
        answer.json()["result"]["content"][0]["text"],
        "hi (for 127.0.0.1)"
    );
}

#[tokio::test]
async fn caching_hints_reach_lists_and_reads_but_not_calls() {
    let server = mcp_runtime::server::Server::builder()
        .tool(handlers::Echo)
        .resource(handlers::Readme)
        .cache_hints(60_000, mcp_runtime::protocol::CacheScope::Public)
        .build();
    let server = client::start(server).await;
    let list = call(server.addr, json!(1), "resources/list", json!({})).await;
    let read = call(
        server.addr,
        json!(2),
        "resources/read",
        json!({ "uri": "test://readme" }),
    )
    .await;
    for answer in [list.json(), read.json()] {
        assert_eq!(answer["result"]["ttlMs"], 60_000, "{answer}");
        assert_eq!(answer["result"]["cacheScope"], "public", "{answer}");
        assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    }
    assert_eq!(read.json()["result"]["contents"][0]["text"], "read me");
    let echo = call(
        server.addr,
        json!(3),
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "hi" } }),
    )
    .await
    .json();
    assert!(echo["result"].get("ttlMs").is_none(), "{echo}");
}

#[tokio::test]
async fn a_progress_token_that_is_neither_a_string_nor_an_integer_is_refused() {
    let server = client::start(handlers::fixture_server()).await;
    let addr = server.addr;
    let body = |token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slow","_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}},"progressToken":{token}}}}}}}"#,
            client::VERSION
        )
    };
    // Written as sent: `-0` and `1.5` would not survive a `json!` round.
    for token in [
        "1.5",
        "-0",
        "1e3",
        "1.0",
        "true",
        "null",
        r#"{"t":1}"#,
        r#"["t"]"#,
    ] {
        let answer = send(addr, "POST", &[], body(token).as_bytes()).await;
        assert_eq!(answer.status, 400, "{token}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        assert_eq!(
            answer.json(),
            json!({"jsonrpc": "2.0", "id": 1, "error": {
                "code": -32602,
                "message": "`_meta.progressToken` must be a string or an integer",
            }}),
            "{token}"
        );
    }
    // A string or an integer is a token.
    for token in ["7", "-7", r#""p""#] {
        let answer = send(addr, "POST", &[], body(token).as_bytes()).await;
        assert_eq!(answer.status, 200, "{token}");
        assert_eq!(answer.header("content-type"), Some("text/event-stream"));
    }
    still_serving(addr).await;
}
