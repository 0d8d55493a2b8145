//! The tasks extension on the wire, over HTTP and stdio: calls that become tasks, every status
//! and transition, answers delivered with `tasks/update` resuming the flow from its stored
//! continuation, cancel, expiry, another subject, a client without the extension, and hostile
//! requests; two instances sharing a Redis in `tasks_shared.rs`.

#[path = "support/client.rs"]
mod client;
#[path = "support/tasks.rs"]
mod tasks;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::server::{Server, ServerBuilder, Tasks, task};
use mcp_runtime::state::{ManualClock, Signer};
use mcp_runtime::tasks::MemoryTaskStore;
use serde_json::json;
use tasks::{Wire, accept, meta, pair, runs, ship, slow, whoami};

fn signer() -> Signer {
    Signer::new(1, &[9; 32]).expect("a 32-byte key is long enough")
}

fn settings() -> Tasks {
    Tasks::new(MemoryTaskStore::new()).poll_interval(Duration::from_millis(1))
}

fn builder() -> ServerBuilder {
    Server::builder()
        .name("shipping")
        .signer(signer())
        .tasks(settings())
        .tool(task(ship))
        .tool(task(slow))
        .tool(task(whoami))
        .tool(task(pair))
        .tool(task(ship_later()).required())
}

/// `ship` under another name, for the required-task tool.
fn ship_later() -> impl mcp_runtime::server::ToolHandler {
    Renamed(mcp_runtime::server::IntoToolHandler::into_tool_handler(
        ship,
    ))
}

struct Renamed<H>(H);

impl<H: mcp_runtime::server::ToolHandler> mcp_runtime::server::ToolHandler for Renamed<H> {
    fn definition(&self) -> mcp_runtime::protocol::Tool {
        let mut tool = self.0.definition();
        tool.name = "ship_required".to_owned();
        tool
    }
    fn call(
        &self,
        request: mcp_runtime::server::Request,
    ) -> mcp_runtime::server::BoxFuture<
        'static,
        mcp_runtime::server::HandlerResult<mcp_runtime::protocol::CallToolResult>,
    > {
        self.0.call(request)
    }
}

/// The whole life of a task that asks twice, on one wire: created `working`, asks
/// (`input_required`), resumes on `tasks/update`, asks again, asks once more after an invalid
/// answer, completes, and stays completed whatever comes after.
async fn a_task_asks_resumes_and_completes(wire: &mut Wire, ticket: &str) {
    let created = wire.call("ship", ticket).await;
    assert_eq!(created["resultType"], "task", "{created}");
    assert_eq!(created["status"], "working");
    for member in ["taskId", "createdAt", "lastUpdatedAt"] {
        assert!(created[member].is_string(), "{member}: {created}");
    }
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 1);
    let id = created["taskId"].as_str().unwrap().to_owned();

    let asked = wire.until(&id, "input_required", Some("1:go")).await;
    assert_eq!(asked["resultType"], "complete");
    assert_eq!(
        asked["inputRequests"]["1:go"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        asked["inputRequests"]["1:go"]["params"]["message"],
        "Ship it?"
    );
    // Polling again shows the same outstanding request.
    assert_eq!(wire.get(&id).await["inputRequests"], asked["inputRequests"]);

    // Answers under keys the task does not wait for are ignored; the task still waits.
    let ack = wire
        .update(&id, json!({"9:go": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(ack, tasks::acknowledged());
    assert_eq!(wire.get(&id).await["status"], "input_required");

    wire.update(&id, json!({"1:go": accept(json!({"ok": true}))}))
        .await;
    let second = wire.until(&id, "input_required", Some("2:count")).await;
    assert_eq!(
        second["inputRequests"].as_object().unwrap().len(),
        1,
        "{second}"
    );
    assert_eq!(runs(ticket), 1);

    // An invalid answer is asked again, under a key never used before.
    wire.update(&id, json!({"2:count": accept(json!({"n": 9}))}))
        .await;
    let again = wire.until(&id, "input_required", Some("3:count")).await;
    assert!(again["inputRequests"].get("2:count").is_none(), "{again}");
    // A late answer to the superseded key changes nothing.
    wire.update(&id, json!({"2:count": accept(json!({"n": 2}))}))
        .await;
    assert!(
        wire.get(&id).await["inputRequests"]
            .get("3:count")
            .is_some()
    );

    wire.update(&id, json!({"3:count": accept(json!({"n": 3}))}))
        .await;
    let done = wire.until(&id, "completed", None).await;
    let shipped = format!("Shipped {ticket} x3.");
    assert_eq!(done["result"]["content"][0]["text"], shipped, "{done}");
    assert_eq!(runs(ticket), 1, "the code between the questions ran once");

    // A terminal status never changes.
    assert_eq!(
        wire.result("tasks/cancel", json!({"taskId": id})).await,
        tasks::acknowledged()
    );
    wire.update(&id, json!({"3:count": accept(json!({"n": 1}))}))
        .await;
    let still = wire.get(&id).await;
    assert_eq!(
        (&still["status"], &still["result"]),
        (&done["status"], &done["result"])
    );
}

#[tokio::test]
async fn over_http_a_task_asks_resumes_and_completes() {
    let running = client::start(builder().build()).await;
    a_task_asks_resumes_and_completes(&mut Wire::http(running.addr), "h1").await;
}

#[tokio::test]
async fn over_stdio_a_task_asks_resumes_and_completes() {
    a_task_asks_resumes_and_completes(&mut Wire::stdio(builder().build()), "s1").await;
}

#[tokio::test]
async fn discover_advertises_the_extension() {
    let mut wire = Wire::stdio(builder().build());
    let discovered = wire.result("server/discover", json!({})).await;
    assert_eq!(
        discovered["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    let plain = Server::builder().tool(ship).build();
    let discovered = Wire::stdio(plain)
        .result("server/discover", json!({}))
        .await;
    assert!(
        discovered["capabilities"].get("extensions").is_none(),
        "{discovered}"
    );
}

/// Without the extension on the request, a task tool is an ordinary call (multi-round with
/// `requestState`), a required-task tool is refused with `-32021`, and the task methods too.
async fn a_client_without_the_extension(wire: &mut Wire) {
    let params = json!({"name": "ship", "arguments": {"ticket": "plain"}, "_meta": meta(false)});
    let asked = wire.result("tools/call", params).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert!(asked["requestState"].is_string());

    let params =
        json!({"name": "ship_required", "arguments": {"ticket": "x"}, "_meta": meta(false)});
    let (_, refused) = wire.send("tools/call", params).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
    // With the extension, the same tool is a task.
    assert_eq!(wire.call("ship_required", "y").await["resultType"], "task");

    let created = wire.call("ship", "z").await;
    for method in ["tasks/get", "tasks/cancel"] {
        let params = json!({"taskId": created["taskId"], "_meta": meta(false)});
        let (_, refused) = wire.send(method, params).await;
        assert_eq!(refused["error"]["code"], -32021, "{method}: {refused}");
    }
}

#[tokio::test]
async fn over_http_a_client_without_the_extension_gets_ordinary_calls() {
    let running = client::start(builder().build()).await;
    a_client_without_the_extension(&mut Wire::http(running.addr)).await;
}

#[tokio::test]
async fn over_stdio_a_client_without_the_extension_gets_ordinary_calls() {
    a_client_without_the_extension(&mut Wire::stdio(builder().build())).await;
}

/// Cancel ends a working task at once and drops its round; progress shows as its status
/// message before.
async fn cancel_drops_the_round(wire: &mut Wire, ticket: &str) {
    let created = wire.call("slow", ticket).await;
    let id = created["taskId"].as_str().unwrap().to_owned();
    let reported = async {
        loop {
            let got = wire.get(&id).await;
            if got["statusMessage"] == format!("working on {ticket}") {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let got = tokio::time::timeout(tasks::WAIT, reported)
        .await
        .expect("progress shows");
    assert_eq!(got["status"], "working", "{got}");
    assert_eq!(tasks::dropped(ticket), 0);
    let ack = wire.result("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack, tasks::acknowledged());
    let cancelled = wire.get(&id).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    tasks::until_dropped(ticket).await;
}

#[tokio::test]
async fn over_http_cancel_drops_the_round() {
    let running = client::start(builder().build()).await;
    cancel_drops_the_round(&mut Wire::http(running.addr), "c-http").await;
}

#[tokio::test]
async fn over_stdio_cancel_drops_the_round() {
    cancel_drops_the_round(&mut Wire::stdio(builder().build()), "c-stdio").await;
}

/// A declined question ends the task through the flow's `?`: the tool's answer to a
/// refusal is the task's outcome, and nothing after the question runs.
#[tokio::test]
async fn a_declined_question_ends_the_task() {
    let mut wire = Wire::stdio(builder().build());
    let id = wire.call("ship", "d1").await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    wire.until(&id, "input_required", Some("1:go")).await;
    wire.update(&id, json!({"1:go": {"action": "decline"}}))
        .await;
    let polling = async {
        loop {
            let got = wire.get(&id).await;
            if tasks::is_terminal(&got) {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let ended = tokio::time::timeout(tasks::WAIT, polling)
        .await
        .expect("ends");
    assert_eq!(runs("d1"), 0);
    assert_eq!(ended["status"], "completed", "{ended}");
    let said = &ended["result"]["content"][0]["text"];
    assert_eq!(said, "The user declined the request; nothing was done.");
}

/// Another subject gets exactly the answer an unknown id gets, on every method.
#[tokio::test]
async fn another_subject_gets_the_unknown_id_answer() {
    let server = builder()
        .subject(|parts| {
            let token = parts.headers.get("authorization")?.to_str().ok()?;
            token.strip_prefix("Bearer ").map(str::to_owned)
        })
        .build();
    let running = client::start(server).await;
    let mut alice = Wire::Http {
        addr: running.addr,
        bearer: Some("alice"),
    };
    let mut mallory = Wire::Http {
        addr: running.addr,
        bearer: Some("mallory"),
    };
    let id = alice.call("ship", "a1").await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    alice.until(&id, "input_required", None).await;
    let unknown = "0123456789abcdef0123456789abcdef";
    for (method, extra) in [
        ("tasks/get", json!({})),
        ("tasks/cancel", json!({})),
        (
            "tasks/update",
            json!({"inputResponses": {"1:go": accept(json!({"ok": true}))}}),
        ),
    ] {
        let mut theirs = extra.clone();
        theirs["taskId"] = json!(id);
        let mut none = extra;
        none["taskId"] = json!(unknown);
        let (_, foreign) = mallory.send(method, theirs).await;
        let (_, missing) = mallory.send(method, none).await;
        assert_eq!(foreign["error"], missing["error"], "{method}");
        assert_eq!(foreign["error"]["code"], -32602, "{method}: {foreign}");
    }
    let still = alice.get(&id).await;
    assert_eq!(
        still["status"], "input_required",
        "mallory changed nothing: {still}"
    );

    // A round resumed by `tasks/update` runs as the caller.
    let params = json!({"name": "whoami"});
    let id = alice.result("tools/call", params).await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    alice.until(&id, "input_required", Some("1:go")).await;
    alice
        .update(&id, json!({"1:go": accept(json!({"ok": true}))}))
        .await;
    let done = alice.until(&id, "completed", None).await;
    assert_eq!(done["result"]["content"][0]["text"], "alice", "{done}");
}

/// Past its `ttlMs` a task is gone: the unknown-id answer.
#[tokio::test]
async fn a_task_expires_after_its_ttl() {
    let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
    let server = builder()
        .signer(signer().with_clock(clock.clone()))
        .tasks(settings().ttl(Duration::from_secs(60)))
        .build();
    let mut wire = Wire::stdio(server);
    let created = wire.call("ship", "e1").await;
    assert_eq!(created["ttlMs"], 60_000);
    let id = created["taskId"].as_str().unwrap().to_owned();
    wire.until(&id, "input_required", None).await;
    clock.advance(Duration::from_secs(59));
    assert_eq!(wire.get(&id).await["status"], "input_required");
    clock.advance(Duration::from_secs(1));
    let (_, gone) = wire.send("tasks/get", json!({"taskId": id})).await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    let (_, update) = wire
        .send(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"1:go": accept(json!({"ok": true}))}}),
        )
        .await;
    assert_eq!(update["error"]["code"], -32602, "{update}");
}

/// Requests of the extension that are malformed or hostile get clean errors.
#[tokio::test]
async fn hostile_ids_and_updates_are_refused_cleanly() {
    let mut wire = Wire::stdio(builder().build());
    let id = wire.call("ship", "x1").await["taskId"].clone();
    let cases = [
        ("tasks/get", json!({})),
        ("tasks/get", json!({"taskId": 7})),
        ("tasks/get", json!({"taskId": "../../etc/passwd"})),
        ("tasks/get", json!({"taskId": "A".repeat(100_000)})),
        ("tasks/cancel", json!({"taskId": null})),
        ("tasks/update", json!({"taskId": id})),
        (
            "tasks/update",
            json!({"taskId": id, "inputResponses": null}),
        ),
        ("tasks/update", json!({"taskId": id, "inputResponses": [1]})),
        (
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"1:go": 5}}),
        ),
    ];
    for (method, params) in cases {
        let (_, refused) = wire.send(method, params.clone()).await;
        assert_eq!(
            refused["error"]["code"], -32602,
            "{method} {params}: {refused}"
        );
    }
    assert!(!tasks::is_terminal(&wire.get(id.as_str().unwrap()).await));
}

/// Polling more than four times within the interval is refused with HTTP 429, for that task
/// only.
#[tokio::test]
async fn polling_too_often_is_refused() {
    let server = builder()
        .tasks(Tasks::new(MemoryTaskStore::new()).poll_interval(Duration::from_secs(60)))
        .build();
    let running = client::start(server).await;
    let mut wire = Wire::http(running.addr);
    let first = wire.call("ship", "p1").await["taskId"].clone();
    let second = wire.call("ship", "p2").await["taskId"].clone();
    for _ in 0..mcp_runtime::server::POLLS_PER_INTERVAL {
        assert_eq!(
            wire.send("tasks/get", json!({"taskId": first})).await.0,
            200
        );
    }
    let (status, refused) = wire.send("tasks/get", json!({"taskId": first})).await;
    assert_eq!(status, 429, "{refused}");
    assert_eq!(
        wire.send("tasks/get", json!({"taskId": second})).await.0,
        200
    );
}

/// With `after`, questions asked before the round has run that long are ordinary rounds, and
/// the call becomes a task only once a round runs longer.
#[tokio::test]
async fn a_task_after_a_delay_resolves_early_questions_synchronously() {
    let server = Server::builder()
        .signer(signer())
        .tasks(settings())
        .tool(task(ship).after(Duration::from_secs(30)))
        .tool(task(slow).after(Duration::from_millis(50)))
        .build();
    let mut wire = Wire::stdio(server);
    let asked = wire.call("ship", "q1").await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let created = wire.call("slow", "q2").await;
    assert_eq!(created["resultType"], "task", "{created}");
}

/// The `release` example: approval as an ordinary round, then a task that builds with
/// progress, asks whether to publish, and finishes.
#[tokio::test]
async fn the_release_example_runs_as_a_task() {
    let server = mcp_examples::release::register(Server::builder().signer(signer()))
        .tasks(settings())
        .build();
    let running = client::start(server).await;
    let mut wire = Wire::http(running.addr);
    let call = json!({"name": "release", "arguments": {"version": "1.4.0"}});
    let asked = wire.result("tools/call", call.clone()).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let mut approve = call;
    approve["requestState"] = asked["requestState"].clone();
    approve["inputResponses"] = json!({"approval": accept(json!({"approve": true}))});
    let created = wire.result("tools/call", approve).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let building = async {
        loop {
            let got = wire.get(&id).await;
            if got["statusMessage"]
                .as_str()
                .is_some_and(|said| said.starts_with("building 1.4.0"))
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(tasks::WAIT, building)
        .await
        .expect("progress shows");
    let publish = wire.until(&id, "input_required", Some("1:publish")).await;
    let question = &publish["inputRequests"]["1:publish"]["params"]["message"];
    assert_eq!(question, "1.4.0 is built. Publish it?");
    wire.update(&id, json!({"1:publish": accept(json!({"publish": true}))}))
        .await;
    let done = wire.until(&id, "completed", None).await;
    assert_eq!(done["result"]["content"][0]["text"], "Released 1.4.0.");
}

/// The continuation a task stores is signed: one changed by whoever can write the store fails
/// the task on the next update, and no handler code runs from it.
#[tokio::test]
async fn a_tampered_stored_continuation_fails_the_task() {
    use mcp_runtime::tasks::TaskStore;
    let store = Arc::new(MemoryTaskStore::new());
    let server = builder()
        .tasks(Tasks::new(Arc::clone(&store)).poll_interval(Duration::from_millis(1)))
        .build();
    let mut wire = Wire::stdio(server);
    let id = wire.call("ship", "t1").await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    wire.until(&id, "input_required", Some("1:go")).await;
    let stored = store.get(&id).await.unwrap().expect("stored");
    let mut record: serde_json::Value = serde_json::from_slice(&stored.record).unwrap();
    let token = record["state"]
        .as_str()
        .expect("a signed continuation")
        .to_owned();
    let mut forged = token.into_bytes();
    let last = forged.len() - 2;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    record["state"] = json!(String::from_utf8(forged).unwrap());
    let bytes = serde_json::to_vec(&record).unwrap();
    assert!(store.replace(&id, stored.version, &bytes).await.unwrap());

    wire.update(&id, json!({"1:go": accept(json!({"ok": true}))}))
        .await;
    let failed = wire.until(&id, "failed", None).await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert_eq!(runs("t1"), 0);
}

/// At a bound (live tasks of one owner, bytes of one task) a call is served as an ordinary
/// call instead of becoming a task.
#[tokio::test]
async fn at_a_bound_a_call_is_an_ordinary_call() {
    let server = builder()
        .tasks(Tasks::new(MemoryTaskStore::new().with_owner_quota(1)).max_task_bytes(2048))
        .build();
    let mut wire = Wire::stdio(server);
    assert_eq!(wire.call("ship", "b1").await["resultType"], "task");
    let over_quota = wire.call("ship", "b2").await;
    assert_eq!(over_quota["resultType"], "input_required", "{over_quota}");

    let server = builder().tasks(settings().max_task_bytes(2048)).build();
    let mut wire = Wire::stdio(server);
    let large = wire.call("ship", &"x".repeat(4096)).await;
    assert_eq!(large["resultType"], "input_required", "{large}");
    assert_eq!(wire.call("ship", "small").await["resultType"], "task");
}

/// Questions asked together may be answered one at a time: the task keeps the answers it has,
/// shows only the questions still waiting, and runs the round once each has its answer.
#[tokio::test]
async fn questions_asked_together_may_be_answered_one_at_a_time() {
    let running = client::start(builder().build()).await;
    let mut wire = Wire::http(running.addr);
    let created = wire
        .result("tools/call", json!({"name": "pair", "arguments": {}}))
        .await;
    let id = created["taskId"].as_str().unwrap().to_owned();
    let asked = wire.until(&id, "input_required", None).await;
    let keys: Vec<String> = asked["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 2, "{asked}");
    let (first, second) = (&keys[0], &keys[1]);
    let answer = |key: &str| {
        if key.ends_with("first") {
            accept(json!({"ok": true}))
        } else {
            accept(json!({"n": 3}))
        }
    };
    wire.update(&id, json!({ first.as_str(): answer(first) }))
        .await;
    let waiting = wire.get(&id).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let still: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(still, [second], "{waiting}");
    wire.update(&id, json!({ second.as_str(): answer(second) }))
        .await;
    let done = wire.until(&id, "completed", None).await;
    assert_eq!(done["result"]["content"][0]["text"], "true 3", "{done}");
}
