//! Flows on legacy (2025-11-25) sessions over Streamable HTTP: the same compiled flows driven
//! through server-to-client requests on the call's stream, with every guarantee of the
//! stateless wire (code between questions once, re-asks, refusals, loops, sub-flows,
//! batches, the round bound), plus cancellation, timeouts, progress and log messages. Every
//! message a test sees is checked against the 2025-11-25 schema.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;
#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use legacy::{Client, LEGACY, accept};
use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

/// Deploys `service` to staging with `replicas`, answering the one question it asks.
async fn stage(session: &Client, id: u64, service: &str, replicas: u32) -> legacy::Exchange {
    let staged = session
        .call(id, "deploy", json!({"service": service}), |_| {
            target("staging", replicas)
        })
        .await;
    assert_eq!(
        staged.text(),
        format!("Deployed {replicas} replicas of {service} to Staging (release).")
    );
    staged
}

fn target(environment: &str, replicas: u32) -> Value {
    accept(json!({"environment": environment, "replicas": replicas, "reason": "release"}))
}

#[tokio::test]
async fn deploy_runs_its_rounds_through_server_to_client_requests() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let staged = stage(&session, 1, "api", 3).await;
    let asked = staged.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["method"], "elicitation/create");
    assert_eq!(asked[0]["params"]["message"], "Where should api go?");
    schema::assert_legacy_valid("ElicitRequest", asked[0]);
    assert!(staged.response["result"].get("resultType").is_none());
    schema::assert_legacy_valid("CallToolResult", &staged.response["result"]);

    let mut answers = vec![target("production", 2), accept(json!({"ok": true}))].into_iter();
    let shipped = session
        .call(2, "deploy", json!({"service": "web"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(
        shipped.text(),
        "Deployed 2 replicas of web to Production (release)."
    );
    let messages: Vec<&Value> = shipped
        .requests()
        .iter()
        .map(|r| &r["params"]["message"])
        .collect();
    assert_eq!(
        messages,
        [
            "Where should web go?",
            "Ship 2 replicas of web to production?"
        ]
    );
    // Every question travels under its own id.
    let ids: Vec<&Value> = shipped.requests().iter().map(|r| &r["id"]).collect();
    assert_ne!(ids[0], ids[1]);

    let mut answers = vec![target("production", 2), accept(json!({"ok": false}))].into_iter();
    let kept = session
        .call(3, "deploy", json!({"service": "web"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(kept.text(), "Nothing deployed.");
}

#[tokio::test]
async fn decline_and_cancel_end_the_call_through_the_handler() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    for (action, said) in [("decline", "declined"), ("cancel", "cancelled")] {
        let ended = session
            .call(
                1,
                "deploy",
                json!({"service": "api"}),
                |_| json!({"action": action}),
            )
            .await;
        assert!(ended.text().contains(said), "{}", ended.text());
        assert!(ended.response["result"].get("isError").is_none());
    }
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_with_its_reasons() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let mut answers = vec![target("staging", 99), target("staging", 4)].into_iter();
    let done = session
        .call(1, "deploy", json!({"service": "api"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(
        done.text(),
        "Deployed 4 replicas of api to Staging (release)."
    );
    let asked = done.requests();
    assert_eq!(asked.len(), 2);
    let again = asked[1]["params"]["message"].as_str().unwrap();
    assert!(again.contains("replicas"), "{again}");
}

static BEFORE: AtomicUsize = AtomicUsize::new(0);
static BETWEEN: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

/// Counts the code around two questions.
#[tool]
async fn counted(cx: Cx) -> ToolResult {
    BEFORE.fetch_add(1, Ordering::SeqCst);
    let first: Yes = cx.elicit("first?").await?;
    BETWEEN.fetch_add(1, Ordering::SeqCst);
    let second: Yes = cx.elicit("second?").await?;
    AFTER.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!("{} {}", first.ok, second.ok)))
}

static CANCELLED_AFTER: AtomicUsize = AtomicUsize::new(0);

/// Counts the code after its question, for the cancellation test alone.
#[tool]
async fn cancellable(cx: Cx) -> ToolResult {
    let answer: Yes = cx.elicit("sure?").await?;
    CANCELLED_AFTER.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!("answered {}", answer.ok)))
}

/// Logs at two levels, then asks once.
#[tool]
async fn chatty(cx: Cx) -> ToolResult {
    cx.log(LoggingLevel::Debug, "debug detail");
    cx.log(LoggingLevel::Info, json!({"step": "started"}));
    let answer: Yes = cx.elicit("go on?").await?;
    Ok(text(format!("answered {}", answer.ok)))
}

#[derive(ElicitForm)]
struct Name {
    name: String,
}

/// Three kinds of question in one round.
#[tool]
#[allow(deprecated, reason = "sampling and roots are still on the legacy wire")]
async fn everything_at_once(cx: Cx) -> ToolResult {
    let (user, reply, roots) = (
        cx.elicit::<Name>("Name?"),
        cx.sample(mcp_runtime::protocol::CreateMessageRequestParams::default()),
        cx.list_roots(),
    )
        .await;
    let user = user?;
    Ok(text(format!(
        "{} {} {}",
        user.name,
        reply.model,
        roots.roots.len()
    )))
}

/// Asks until the round bound stops it.
#[tool(max_rounds = 3)]
async fn forever(cx: Cx) -> ToolResult {
    loop {
        let _again: Yes = cx.elicit("Again?").await?;
    }
}

/// The tests' own tools, waiting for answers as long as the default input timeout (minutes):
/// a slow machine cannot time a question out.
fn own_server() -> Server {
    own_tools(Server::builder()).build()
}

fn own_tools(builder: mcp_runtime::server::ServerBuilder) -> mcp_runtime::server::ServerBuilder {
    builder
        .name("legacy")
        .tool(counted)
        .tool(cancellable)
        .tool(chatty)
        .tool(deploy_tools::deploy)
        .state(deploy_tools::Deployments::default())
        .tool(everything_at_once)
        .tool(forever)
        .tool(mcp_examples::order::order)
}

use mcp_examples::deploy as deploy_tools;

#[tokio::test]
async fn code_between_two_questions_runs_once() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let done = session
        .call(1, "counted", json!({}), |_| accept(json!({"ok": true})))
        .await;
    assert_eq!(done.text(), "true true");
    assert_eq!(
        (
            BEFORE.load(Ordering::SeqCst),
            BETWEEN.load(Ordering::SeqCst),
            AFTER.load(Ordering::SeqCst)
        ),
        (1, 1, 1)
    );
}

#[tokio::test]
async fn log_messages_follow_the_session_level_and_precede_the_result() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let quiet = session
        .call(1, "chatty", json!({}), |_| accept(json!({"ok": true})))
        .await;
    assert!(
        quiet
            .messages
            .iter()
            .all(|m| m["method"] != "notifications/message")
    );
    let set = session
        .request(2, "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(set["result"], json!({}));
    let logged = session
        .call(3, "chatty", json!({}), |_| accept(json!({"ok": true})))
        .await;
    let logs: Vec<&Value> = logged
        .messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], "info");
    assert_eq!(logs[0]["params"]["data"], json!({"step": "started"}));
    assert_eq!(logged.text(), "answered true");
}

/// Three calls are open on one session at once: every question is held until all three have
/// been asked (a session that ran its calls one at a time would never ask the second), then
/// answered newest first, and each call's stream must end with its own service's replicas
/// before the next older question is answered.
#[tokio::test]
async fn concurrent_calls_on_one_session_see_only_their_own_answers() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let calls = [(10, "api", 3), (11, "web", 5), (12, "db", 7)];
    let mut open = Vec::new();
    for (id, service, replicas) in calls {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {"service": service}}});
        let mut stream = session.post(&call).await;
        assert!(stream.is_event_stream());
        let question = stream.next_message().await.unwrap();
        assert_eq!(question["method"], "elicitation/create", "{question}");
        assert_eq!(
            question["params"]["message"],
            format!("Where should {service} go?")
        );
        open.push((id, service, replicas, question, stream));
    }
    while let Some((id, service, replicas, question, mut stream)) = open.pop() {
        let answer = json!({"jsonrpc": "2.0", "id": question["id"],
            "result": target("staging", replicas)});
        assert_eq!(session.post(&answer).await.status, 202);
        let done = stream.next_message().await.unwrap();
        assert_eq!(done["id"], id, "{service}'s stream ended with {done}");
        assert_eq!(
            done["result"]["content"][0]["text"],
            format!("Deployed {replicas} replicas of {service} to Staging (release).")
        );
    }
}

#[tokio::test]
async fn a_cancelled_call_ends_without_an_answer_and_the_session_goes_on() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 40, "method": "tools/call",
        "params": {"name": "cancellable", "arguments": {}}});
    let mut stream = session.post(&call).await;
    assert!(stream.is_event_stream());
    let question = stream.next_message().await.unwrap();
    assert_eq!(question["method"], "elicitation/create");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 40, "reason": "changed my mind"}});
    assert_eq!(session.post(&cancel).await.status, 202);
    assert_eq!(
        stream.next_message().await,
        None,
        "no answer for a cancelled call"
    );
    // A late answer to the cancelled call's question is accepted and goes nowhere.
    let late =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": accept(json!({"ok": true}))});
    assert_eq!(session.post(&late).await.status, 202);
    stage(&session, 41, "api", 1).await;
    assert_eq!(CANCELLED_AFTER.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_client_that_never_answers_fails_the_call_after_the_timeout() {
    // A real timer: the failure must come within the client's read timeout (10 s), ten times
    // the input timeout.
    let server = own_tools(Server::builder())
        .input_timeout(Duration::from_secs(1))
        .build();
    let running = client::start(server).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}}});
    let mut stream = session.post(&call).await;
    let question = stream.next_message().await.unwrap();
    assert_eq!(question["method"], "elicitation/create");
    let failed = stream.next_message().await.unwrap();
    assert_eq!(failed["id"], 50);
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}

#[tokio::test]
async fn a_flow_the_client_cannot_answer_fails_without_asking() {
    let running = client::start(deploy::server(1)).await;
    let (session, _) = Client::open_with(running.addr, LEGACY, json!({"sampling": {}})).await;
    let refused = session
        .call(1, "deploy", json!({"service": "api"}), |request| {
            panic!("nothing may be asked: {request}")
        })
        .await;
    let error = &refused.response["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

#[tokio::test]
async fn progress_travels_on_the_call_stream_before_the_result() {
    let running = client::start(handlers::fixture_server()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let done = session.exchange(&call, |_| unreachable!()).await;
    let progress: Vec<f64> = done
        .messages
        .iter()
        .map(|message| message["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert_eq!(done.response["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn loops_and_sub_flows_run_over_a_session() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let mut answers = vec![
        accept(json!({"product": "tea", "quantity": 2, "more": true})),
        accept(json!({"product": "cake", "quantity": 1, "more": false})),
        accept(json!({"ok": true})),
    ]
    .into_iter();
    let done = session
        .call(1, "order", json!({}), |_| answers.next().unwrap())
        .await;
    assert_eq!(done.text(), "Ordered 3 items: 2 x tea, 1 x cake.");
    let messages: Vec<&Value> = done
        .requests()
        .iter()
        .map(|request| &request["params"]["message"])
        .collect();
    assert_eq!(
        messages,
        [
            "Item 1 of your order?",
            "Item 2 of your order?",
            "Place the order for 3 items?"
        ]
    );
}

#[tokio::test]
async fn a_batch_goes_out_together_and_comes_back_as_one_round() {
    let running = client::start(own_server()).await;
    let (session, _) = Client::open_with(
        running.addr,
        LEGACY,
        json!({"elicitation": {}, "sampling": {}, "roots": {}}),
    )
    .await;
    let done = session
        .call(
            1,
            "everything_at_once",
            json!({}),
            |request| match request["method"].as_str().unwrap() {
                "elicitation/create" => accept(json!({"name": "Ada"})),
                "sampling/createMessage" => json!({"role": "assistant",
                    "content": {"type": "text", "text": "hi"}, "model": "m1"}),
                _ => json!({"roots": [{"uri": "file:///work"}]}),
            },
        )
        .await;
    assert_eq!(done.text(), "Ada m1 1");
    let mut methods: Vec<&str> = done
        .requests()
        .iter()
        .map(|request| request["method"].as_str().unwrap())
        .collect();
    methods.sort_unstable();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"]
    );
}

#[tokio::test]
async fn a_flow_that_never_stops_meets_the_round_bound() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let stopped = session
        .call(1, "forever", json!({}), |_| accept(json!({"ok": true})))
        .await;
    assert_eq!(stopped.requests().len(), 3);
    assert_eq!(stopped.response["error"]["code"], -32603);
    let message = stopped.response["error"]["message"].as_str().unwrap();
    assert!(message.contains("more than 3 times"), "{message}");
}
