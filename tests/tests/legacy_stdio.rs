//! Legacy (2025-11-25) sessions over stdio, against a spawned server: the handshake on the
//! connection, and the same flows driven through server-to-client requests written as lines,
//! with concurrent calls and cancellation. Every line is checked against the 2025-11-25 schema.

#[path = "support/schema.rs"]
mod schema;
#[path = "support/stdio.rs"]
mod stdio;

use std::collections::HashMap;

use schema::{assert_legacy_server_message, assert_legacy_valid};
use serde_json::{Value, json};
use stdio::Session;

const LEGACY: &str = "2025-11-25";

async fn open() -> Session {
    let mut session = Session::spawn_with(&["--deploy"]);
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY,
        "capabilities": {"elicitation": {"form": {}, "url": {}}},
        "clientInfo": {"name": "stdio-test", "version": "1.0.0"},
    }});
    session.write(initialize.to_string().as_bytes()).await;
    let answer = session.read().await;
    assert_legacy_valid("JSONRPCResultResponse", &answer);
    assert_legacy_valid("InitializeResult", &answer["result"]);
    assert_eq!(answer["result"]["protocolVersion"], LEGACY);
    session
        .write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    session
}

/// The next line, checked against the 2025-11-25 schema as a message a server may send.
async fn read(session: &mut Session) -> Value {
    let message = session.read().await;
    assert_legacy_server_message(&message);
    message
}

/// Sends `ping` on the session (no 2026-07-28 `_meta`) and reads its answer.
async fn ping(session: &mut Session, id: u64) -> Value {
    let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    session.write(ping.to_string().as_bytes()).await;
    read(session).await
}

fn call(id: u64, service: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": service}}})
}

fn answer(request: &Value, result: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
        .to_string()
        .into_bytes()
}

fn staging(replicas: u32) -> Value {
    json!({"action": "accept", "content": {"environment": "staging", "replicas": replicas}})
}

#[tokio::test]
async fn a_flow_runs_over_stdio_through_server_to_client_requests() {
    let mut session = open().await;
    let pong = ping(&mut session, 1).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    session.write(call(2, "api").to_string().as_bytes()).await;
    let first = read(&mut session).await;
    assert_legacy_valid("ElicitRequest", &first);
    assert_eq!(first["params"]["message"], "Where should api go?");
    session.write(&answer(&first, staging(99))).await;
    // Out of range: asked again, with the reason.
    let again = read(&mut session).await;
    assert_ne!(again["id"], first["id"]);
    assert!(
        again["params"]["message"]
            .as_str()
            .unwrap()
            .contains("replicas")
    );
    session.write(&answer(&again, staging(2))).await;
    let done = read(&mut session).await;
    assert_legacy_valid("JSONRPCResultResponse", &done);
    assert_eq!(done["id"], 2);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Deployed 2 replicas of api to Staging."
    );
    assert!(done["result"].get("resultType").is_none());
}

/// Three calls are open at once: every question is held until all three have been asked (a
/// server that ran a connection's calls one at a time would never ask the second), then
/// answered newest first, and each call must finish, with its own service's replicas, before
/// the next older question is answered.
#[tokio::test]
async fn concurrent_calls_on_one_connection_get_their_own_answers() {
    let mut session = open().await;
    let calls = [(10, "api", 3), (11, "web", 5), (12, "db", 7)];
    for (id, service, _) in calls {
        session
            .write(call(id, service).to_string().as_bytes())
            .await;
    }
    let mut questions = HashMap::new();
    while questions.len() < calls.len() {
        let line = read(&mut session).await;
        assert_eq!(
            line["method"], "elicitation/create",
            "a call ended before every call had asked: {line}"
        );
        let message = line["params"]["message"].as_str().unwrap().to_owned();
        questions.insert(message, line);
    }
    for (id, service, replicas) in calls.into_iter().rev() {
        let question = &questions[&format!("Where should {service} go?")];
        session.write(&answer(question, staging(replicas))).await;
        let done = read(&mut session).await;
        assert_eq!(
            done["id"], id,
            "the answer to {service}'s question ended another call"
        );
        assert_eq!(
            done["result"]["content"][0]["text"],
            format!("Deployed {replicas} replicas of {service} to Staging.")
        );
    }
}

#[tokio::test]
async fn a_cancelled_call_gets_no_answer_and_the_next_call_completes() {
    let mut session = open().await;
    session.write(call(20, "api").to_string().as_bytes()).await;
    let question = read(&mut session).await;
    assert_eq!(question["method"], "elicitation/create");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 20}});
    session.write(cancel.to_string().as_bytes()).await;
    // The late answer goes nowhere; the next call is answered first.
    session.write(&answer(&question, staging(1))).await;
    let pong = ping(&mut session, 21).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 21, "result": {}}));
    session.write(call(22, "web").to_string().as_bytes()).await;
    let next = read(&mut session).await;
    assert_eq!(next["params"]["message"], "Where should web go?");
    session.write(&answer(&next, staging(1))).await;
    let done = read(&mut session).await;
    assert_eq!(done["id"], 22);
}

#[tokio::test]
async fn closing_stdin_ends_the_server_even_with_a_question_open() {
    let mut session = open().await;
    session.write(call(30, "api").to_string().as_bytes()).await;
    let question = read(&mut session).await;
    assert_eq!(question["method"], "elicitation/create");
    let (status, rest) = session.close().await;
    assert!(status.success(), "{status}: {}", session.stderr());
    assert!(rest.is_empty(), "{rest:?}");
}
