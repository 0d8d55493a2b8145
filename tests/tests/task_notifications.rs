//! `notifications/tasks` on `subscriptions/listen` streams: a listener following a task by id
//! hears each change a client can see, with the whole task as `tasks/get` gives it; a
//! listener of another subject following the same id hears nothing; and a client that did not
//! declare the tasks extension is refused with `-32021` when it asks for task notifications.

#[path = "support/client.rs"]
mod client;
#[path = "support/tasks.rs"]
mod tasks;

use std::time::Duration;

use mcp_runtime::server::{Server, Tasks, task};
use mcp_runtime::state::Signer;
use mcp_runtime::tasks::MemoryTaskStore;
use serde_json::{Value, json};
use tasks::{Wire, accept, meta, ship};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a test waits to be sure that nothing more arrives.
const QUIET: Duration = Duration::from_millis(300);

/// A server whose callers are named by their bearer token.
async fn running() -> client::Running {
    let server = Server::builder()
        .name("shipping")
        .signer(Signer::new(1, &[9; 32]).expect("a 32-byte key is long enough"))
        .tasks(Tasks::new(MemoryTaskStore::new()).poll_interval(Duration::from_millis(1)))
        .tool(task(ship))
        .subject(|parts| {
            let token = parts.headers.get("authorization")?.to_str().ok()?;
            token.strip_prefix("Bearer ").map(str::to_owned)
        })
        .build();
    client::start(server).await
}

/// Opens a listen stream as `caller` following `ids`, declaring the extension when `declared`.
async fn listen(
    running: &client::Running,
    caller: &str,
    ids: &[&str],
    declared: bool,
) -> client::Stream {
    let body = json!({
        "jsonrpc": "2.0", "id": format!("{caller}-watch"), "method": "subscriptions/listen",
        "params": { "_meta": meta(declared), "notifications": { "taskIds": ids } },
    });
    let bearer = format!("Bearer {caller}");
    client::open(
        running.addr,
        &[("Authorization", bearer.as_str())],
        body.to_string().as_bytes(),
    )
    .await
}

/// The next `notifications/tasks` of `stream`, checked to be about `id` and tagged.
async fn next_task(stream: &mut client::Stream, id: &str, subscription: &str) -> Value {
    let message = stream.next().await;
    assert_eq!(message["method"], "notifications/tasks", "{message}");
    assert_eq!(message["params"]["taskId"], id, "{message}");
    assert_eq!(
        message["params"]["_meta"][SUBSCRIPTION_ID], subscription,
        "{message}"
    );
    assert!(message["params"].get("resultType").is_none(), "{message}");
    message["params"].clone()
}

#[tokio::test]
async fn a_listener_hears_each_change_of_its_task_and_another_subject_hears_nothing() {
    let running = running().await;
    let mut alice = Wire::Http {
        addr: running.addr,
        bearer: Some("alice"),
    };
    let created = alice.call("ship", "n1").await;
    // Task results name the server, as every 2026-07-28 result does.
    assert_eq!(
        created["_meta"][SERVER_INFO]["name"], "shipping",
        "{created}"
    );
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = alice.until(&id, "input_required", Some("1:go")).await;
    assert_eq!(
        waiting["_meta"][SERVER_INFO]["name"], "shipping",
        "{waiting}"
    );

    let mut hers = listen(&running, "alice", &[&id], true).await;
    assert_eq!(hers.status, 200);
    let ack = hers.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [id]}));
    // Mallory names the same id: agreed as any well-formed id is (as an unknown one would
    // be), and nothing of alice's task reaches the stream.
    let mut his = listen(&running, "mallory", &[&id], true).await;
    let ack = his.next().await;
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [id]}));

    alice
        .update(&id, json!({"1:go": accept(json!({"ok": true}))}))
        .await;
    let mut seen = Vec::new();
    let asked = loop {
        let task = next_task(&mut hers, &id, "alice-watch").await;
        seen.push(task["status"].as_str().unwrap().to_owned());
        if task["status"] == "input_required" {
            break task;
        }
        assert_eq!(task["status"], "working", "{task}");
    };
    assert_eq!(
        seen.first().map(String::as_str),
        Some("working"),
        "{seen:?}"
    );
    // The notification is the task as `tasks/get` gives it at that moment.
    assert_eq!(
        asked["inputRequests"]["2:count"]["params"]["message"], "How many?",
        "{asked}"
    );
    let mut polled = alice.get(&id).await;
    polled.as_object_mut().unwrap().remove("resultType");
    polled.as_object_mut().unwrap().remove("_meta");
    let mut notified = asked.clone();
    notified.as_object_mut().unwrap().remove("_meta");
    assert_eq!(notified, polled);

    alice
        .update(&id, json!({"2:count": accept(json!({"n": 2}))}))
        .await;
    let done = loop {
        let task = next_task(&mut hers, &id, "alice-watch").await;
        if task["status"] != "working" {
            break task;
        }
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Shipped n1 x2.",
        "{done}"
    );
    assert_eq!(his.next_within(QUIET).await, None);
}

#[tokio::test]
async fn asking_for_task_notifications_without_the_extension_is_refused() {
    let running = running().await;
    let body = json!({
        "jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
        "params": {
            "_meta": meta(false),
            "notifications": { "taskIds": ["0123456789abcdef0123456789abcdef"] },
        },
    });
    let refused = client::send(
        running.addr,
        "POST",
        &[("Authorization", "Bearer alice")],
        body.to_string().as_bytes(),
    )
    .await;
    let text = String::from_utf8_lossy(&refused.body).into_owned();
    // The answer is a JSON body, or one event of a stream: either way one JSON-RPC message.
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&text);
    let answer: Value = serde_json::from_str(json).expect("a JSON-RPC answer");
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}}),
        "{answer}"
    );
    // Without task ids, the same client listens as before.
    let mut plain = listen(&running, "alice", &[], false).await;
    let ack = plain.next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
}
