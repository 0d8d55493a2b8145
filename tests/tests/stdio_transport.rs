//! The stdio transport end to end: a spawned server process, one JSON-RPC message per line.

#[path = "support/stdio.rs"]
mod stdio;

use serde_json::json;
use stdio::{Session, meta};

#[tokio::test]
async fn requests_are_answered_line_by_line_with_ids_echoed() {
    let mut session = Session::spawn();
    let discover = session.call(json!(0), "server/discover", json!({})).await;
    assert_eq!(discover["id"], 0);
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    let echo = session
        .call(
            json!("zero"),
            "tools/call",
            json!({ "name": "echo", "arguments": { "text": "hi" } }),
        )
        .await;
    assert_eq!(echo["id"], "zero");
    assert_eq!(echo["result"]["content"][0]["text"], "hi");
    // No `MCP-Protocol-Version` header exists on stdio: only `_meta` counts.
    let removed = session.call(json!(2), "ping", json!({})).await;
    assert_eq!(removed["error"]["code"], -32601);
}

#[tokio::test]
async fn bad_lines_get_errors_and_the_session_goes_on() {
    let mut session = Session::spawn();
    let cases: Vec<(Vec<u8>, i64)> = vec![
        (b"{not json".to_vec(), -32700),
        (
            br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#.to_vec(),
            -32600,
        ),
        (br#"{"jsonrpc":"2.0","id":1}"#.to_vec(), -32600),
        // Nested past the limit: refused before parsing.
        (
            ("[".repeat(5_000) + &"]".repeat(5_000)).into_bytes(),
            -32600,
        ),
        (b"{\"jsonrpc\":".to_vec(), -32700),
        (vec![b'x'; 70 * 1024], -32600),
    ];
    for (line, code) in cases {
        session.write(&line).await;
        let answer = session.read().await;
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    let panicked = session
        .call(json!(3), "tools/call", json!({ "name": "panics" }))
        .await;
    assert_eq!(panicked["error"]["code"], -32603);
    let echo = session
        .call(
            json!(4),
            "tools/call",
            json!({ "name": "echo", "arguments": { "text": "ok" } }),
        )
        .await;
    assert_eq!(echo["result"]["content"][0]["text"], "ok");
}

#[tokio::test]
async fn progress_notifications_precede_their_answer_and_eof_ends_the_server() {
    let mut session = Session::spawn();
    let mut meta = meta();
    meta["progressToken"] = json!("t");
    let message = json!({ "jsonrpc": "2.0", "id": 8, "method": "tools/call",
                          "params": { "name": "slow", "_meta": meta } });
    session.write(message.to_string().as_bytes()).await;
    let mut progress = Vec::new();
    let answer = loop {
        let line = session.read().await;
        if line.get("id").is_some() {
            break line;
        }
        assert_eq!(line["method"], "notifications/progress");
        progress.push(line["params"]["progress"].as_f64().unwrap());
    };
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    let (status, rest) = session.close().await;
    assert!(status.success(), "{status}: {}", session.stderr());
    assert!(rest.is_empty(), "{rest:?}");
}
