//! Request states used once, retries answered once (tools, prompts and resources), across
//! instances sharing a Redis; every echoed state verified by the server before any handler
//! runs, hand-written ones included; states bound to one audience, and by a binding policy to
//! what the request's headers and `_meta` say. Over real sockets, against a real
//! `redis-server`.

#[path = "support/client.rs"]
mod client;
#[path = "support/redis.rs"]
mod redis_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_runtime::protocol::{
    GetPromptResult, InputRequest, InputRequests, PromptMessage, ReadResourceResult,
    ResourceContents, Role, TextResourceContents,
};
use mcp_runtime::server::{
    Asked, BoxFuture, HandlerResult, Reply, Request, Server, ServerBuilder, ToolHandler,
};
use mcp_runtime::state::{MemoryReplayStore, RedisReplayStore, Signer};
use mcp_runtime::{
    Cx, ElicitForm, PromptResult, ResourceResult, ToolResult, prompt, resource, text, tool,
};
use redis_support::TestRedis;
use serde_json::{Value, json};

/// How often each ticket was paid, across every test of this binary.
static PAID: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

fn paid(ticket: &str) -> usize {
    let paid = PAID.lock().unwrap();
    paid.as_ref()
        .and_then(|paid| paid.get(ticket).copied())
        .unwrap_or(0)
}

/// Counts one more run of the code after a question, under `ticket`; how many so far.
fn count_run(ticket: String) -> usize {
    let mut paid = PAID.lock().unwrap();
    let runs = paid
        .get_or_insert_with(HashMap::new)
        .entry(ticket)
        .or_default();
    *runs += 1;
    *runs
}

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Ticket {
    ticket: String,
}

/// Pays a ticket once the user confirms; each state it hands out is used once.
#[tool(single_use)]
async fn pay(args: Ticket, cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Pay?").await?;
    if sure.ok {
        count_run(args.ticket);
    }
    Ok(text(if sure.ok { "Paid." } else { "Kept." }))
}

/// The same, without `single_use`.
#[tool]
async fn tip(args: Ticket, cx: Cx) -> ToolResult {
    count_tip(args, cx)
}

fn count_tip(args: Ticket, cx: Cx) -> ToolResult {
    let _ = cx;
    count_run(args.ticket);
    Ok(text("Tipped."))
}

fn signer() -> Signer {
    Signer::new(3, &[42; 32]).expect("a 32-byte key is long enough")
}

fn builder() -> ServerBuilder {
    Server::builder()
        .name("payments")
        .signer(signer())
        .tool(pay)
}

/// `tools/call` of `name` for `ticket`, with a state and answers when given.
async fn call(
    addr: std::net::SocketAddr,
    name: &str,
    ticket: &str,
    state: Option<&str>,
    ok: Option<bool>,
) -> (u16, Value) {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let mut params = json!({"name": name, "arguments": {"ticket": ticket}, "_meta": meta});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(ok) = ok {
        params["inputResponses"] = json!({"sure": {"action": "accept", "content": {"ok": ok}}});
    }
    let answer = client::call(addr, json!(7), "tools/call", params).await;
    (answer.status, answer.json())
}

fn state(answer: &Value) -> String {
    answer["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {answer}"))
        .to_owned()
}

#[tokio::test]
async fn a_state_is_used_once_and_a_retry_gets_the_same_reply() {
    let running = client::start(builder().build()).await;
    let (_, first) = call(running.addr, "pay", "t1", None, None).await;
    let token = state(&first);
    let (status, paid_once) = call(running.addr, "pay", "t1", Some(&token), Some(true)).await;
    assert_eq!((status, paid("t1")), (200, 1), "{paid_once}");
    // The response was lost; the client sends the same round again.
    let (_, retried) = call(running.addr, "pay", "t1", Some(&token), Some(true)).await;
    assert_eq!(retried, paid_once, "the very same reply");
    assert_eq!(paid("t1"), 1, "and the code before it did not run again");
    // The same state with other answers is refused like any invalid state.
    let (_, other) = call(running.addr, "pay", "t1", Some(&token), Some(false)).await;
    assert!(client::is_state_refusal(&other), "{other}");
    assert_eq!(paid("t1"), 1);
}

#[tokio::test]
async fn single_use_is_opt_in_per_handler_or_server_wide() {
    let open = client::start(builder().tool(tip).build()).await;
    let answer_twice = |addr| async move {
        let (_, first) = call(addr, "tip", "t2", None, None).await;
        assert_eq!(first["result"]["content"][0]["text"], "Tipped.");
    };
    answer_twice(open.addr).await;
    answer_twice(open.addr).await;
    assert_eq!(paid("t2"), 2, "a tool without state runs each time");

    // A state-carrying tool without `single_use` may be replayed...
    let plain = Server::builder()
        .signer(signer())
        .tool(ReplayableAsk::default())
        .build();
    let running = client::start(plain).await;
    let (_, first) = call(running.addr, "ask_plain", "t3", None, None).await;
    let token = state(&first);
    for _ in 0..2 {
        let (_, done) = call(running.addr, "ask_plain", "t3", Some(&token), Some(true)).await;
        assert_eq!(done["result"]["content"][0]["text"], "answered");
    }
    // ...until the server makes every state single-use.
    let strict = Server::builder()
        .signer(signer())
        .tool(ReplayableAsk::default())
        .single_use(true)
        .replay_store(MemoryReplayStore::new())
        .build();
    let running = client::start(strict).await;
    let (_, first) = call(running.addr, "ask_plain", "t3", None, None).await;
    let token = state(&first);
    let (_, done) = call(running.addr, "ask_plain", "t3", Some(&token), Some(true)).await;
    let (_, again) = call(running.addr, "ask_plain", "t3", Some(&token), Some(false)).await;
    assert_eq!(done["result"]["content"][0]["text"], "answered");
    assert!(client::is_state_refusal(&again), "{again}");
}

/// A hand-written handler that asks once, hands out its own state bytes, and records the
/// states it is given.
#[derive(Default, Clone)]
struct ReplayableAsk {
    seen: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

impl ToolHandler for ReplayableAsk {
    fn definition(&self) -> mcp_runtime::protocol::Tool {
        serde_json::from_value(json!({"name": "ask_plain", "inputSchema": {"type": "object"}}))
            .unwrap()
    }

    fn call(
        &self,
        request: Request,
    ) -> BoxFuture<'static, HandlerResult<mcp_runtime::protocol::CallToolResult>> {
        self.seen.lock().unwrap().push(request.state.clone());
        Box::pin(async move {
            if request.state.is_some() {
                return Ok(Reply::Complete(text("answered")));
            }
            let question: InputRequest = serde_json::from_value(json!({
                "method": "elicitation/create",
                "params": {"message": "Sure?", "requestedSchema": {"type": "object",
                    "properties": {"ok": {"type": "boolean"}}}},
            }))
            .unwrap();
            let requests = InputRequests::from([("sure".to_owned(), question)]);
            Ok(Reply::InputRequired(Asked::new(
                requests,
                b"my own state".to_vec(),
            )))
        })
    }
}

#[tokio::test]
async fn a_hand_written_handler_sees_only_verified_states_and_mints_none() {
    let handler = ReplayableAsk::default();
    let server = Server::builder()
        .signer(signer())
        .tool(handler.clone())
        .build();
    let running = client::start(server).await;
    let (_, first) = call(running.addr, "ask_plain", "t4", None, None).await;
    let token = state(&first);
    // What goes on the wire is the server's token, not the handler's bytes.
    assert!(!token.contains("my own state"));
    assert_ne!(token.as_bytes(), b"my own state");
    let tampered = format!("{token}A");
    let (_, refused) = call(running.addr, "ask_plain", "t4", Some(&tampered), Some(true)).await;
    assert!(client::is_state_refusal(&refused), "{refused}");
    let forged = "bXkgb3duIHN0YXRl"; // base64 of the handler's own bytes
    let (_, refused) = call(running.addr, "ask_plain", "t4", Some(forged), Some(true)).await;
    assert!(client::is_state_refusal(&refused), "{refused}");
    let (_, done) = call(running.addr, "ask_plain", "t4", Some(&token), Some(true)).await;
    assert_eq!(done["result"]["content"][0]["text"], "answered");
    // The handler ran twice: once without a state, once with exactly its own bytes. The two
    // refused states never reached it.
    let seen = handler.seen.lock().unwrap().clone();
    assert_eq!(seen, [None, Some(b"my own state".to_vec())]);
}

#[tokio::test]
async fn two_services_sharing_a_key_do_not_accept_each_others_states() {
    let payments = client::start(builder().build()).await;
    let billing = client::start(builder().name("billing").build()).await;
    let (_, first) = call(payments.addr, "pay", "t5", None, None).await;
    let token = state(&first);
    let (_, elsewhere) = call(billing.addr, "pay", "t5", Some(&token), Some(true)).await;
    assert!(client::is_state_refusal(&elsewhere), "{elsewhere}");
    // An explicit audience shared by both makes them one service again.
    let a = client::start(builder().audience("shared").build()).await;
    let b = client::start(builder().name("billing").audience("shared").build()).await;
    let (_, first) = call(a.addr, "pay", "t6", None, None).await;
    let token = state(&first);
    let (_, done) = call(b.addr, "pay", "t6", Some(&token), Some(true)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Paid.");
    assert_eq!(paid("t5"), 0);
}

async fn redis_instance(redis: &TestRedis) -> client::Running {
    let store = RedisReplayStore::connect(redis.url())
        .await
        .expect("Redis answers")
        .with_prefix(redis.prefix());
    client::start(builder().replay_store(store).build()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_sharing_a_redis_refuse_replays_and_answer_retries_alike() {
    let redis = TestRedis::shared_or_own();
    let (one, two) = (redis_instance(&redis).await, redis_instance(&redis).await);
    let (_, first) = call(one.addr, "pay", "t7", None, None).await;
    let token = state(&first);
    let (_, paid_once) = call(two.addr, "pay", "t7", Some(&token), Some(true)).await;
    assert_eq!(paid_once["result"]["content"][0]["text"], "Paid.");
    // The lost-response retry reaches the other instance: the same reply, nothing runs.
    let (_, retried) = call(one.addr, "pay", "t7", Some(&token), Some(true)).await;
    assert_eq!(retried, paid_once);
    let (_, replayed) = call(one.addr, "pay", "t7", Some(&token), Some(false)).await;
    assert!(client::is_state_refusal(&replayed), "{replayed}");
    assert_eq!(paid("t7"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_down_the_round_is_refused_as_retryable_and_nothing_runs() {
    let mut redis = TestRedis::own();
    let running = redis_instance(&redis).await;
    let (_, first) = call(running.addr, "pay", "t8", None, None).await;
    let token = state(&first);
    redis.stop();
    let (status, refused) = call(running.addr, "pay", "t8", Some(&token), Some(true)).await;
    assert_eq!(status, 503, "{refused}");
    assert_eq!(refused["error"]["code"], -32603);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("retry"),
        "{refused}"
    );
    assert_eq!(paid("t8"), 0);
}

#[tokio::test]
async fn a_binding_policy_can_bind_states_to_what_the_transport_saw() {
    // A policy that binds every state to the `X-Tenant` header as well.
    let signer = signer().with_policy(|cx: &mcp_runtime::state::BindingContext<'_>| {
        let tenant = cx
            .headers
            .and_then(|headers| headers.get("x-tenant"))
            .map_or(&b""[..], |tenant| tenant.as_bytes());
        mcp_runtime::state::default_binding(cx).extended(tenant)
    });
    let server = Server::builder().signer(signer).tool(pay).build();
    let running = client::start(server).await;
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let round = |tenant: &'static str, state: Option<String>| {
        let mut params = json!({"name": "pay", "arguments": {"ticket": "t9"}, "_meta": meta});
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] =
                json!({"sure": {"action": "accept", "content": {"ok": true}}});
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let addr = running.addr;
        async move {
            client::send(
                addr,
                "POST",
                &[("X-Tenant", tenant)],
                body.to_string().as_bytes(),
            )
            .await
            .json()
        }
    };
    let first = round("acme", None).await;
    let token = state(&first);
    let elsewhere = round("globex", Some(token.clone())).await;
    assert!(client::is_state_refusal(&elsewhere), "{elsewhere}");
    let done = round("acme", Some(token)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Paid.");
}

#[tokio::test]
async fn a_sealed_state_hides_what_the_flow_carries() {
    use base64::Engine as _;
    let decoded = |token: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .expect("a token is base64")
    };
    let carried = |signer: Signer| async move {
        let server = mcp_examples::deploy::register(Server::builder())
            .signer(signer)
            .build();
        let running = client::start(server).await;
        let mut meta = client::meta();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
        let first = client::call(
            running.addr,
            json!(1),
            "tools/call",
            json!({"name": "deploy", "arguments": {"service": "api"}, "_meta": meta}),
        )
        .await
        .json();
        let answers = json!({"target": {"action": "accept", "content": {
            "environment": "production", "replicas": 3, "reason": "a secret reason"}}});
        let second = client::call(
            running.addr,
            json!(2),
            "tools/call",
            json!({"name": "deploy", "arguments": {"service": "api"}, "_meta": meta,
                "requestState": state(&first), "inputResponses": answers}),
        )
        .await
        .json();
        // The second state carries the target, reason included.
        let carries = |needle: &[u8]| {
            decoded(&state(&second))
                .windows(needle.len())
                .any(|window| window == needle)
        };
        carries(b"a secret reason")
    };
    assert!(carried(signer()).await, "a signed state shows its payload");
    assert!(!carried(signer().sealed()).await, "a sealed one does not");
}

#[tokio::test]
async fn a_binding_policy_can_bind_states_to_the_request_meta() {
    // A policy that binds every state to a tenant the client names in `_meta` as well.
    let signer = signer().with_policy(|cx: &mcp_runtime::state::BindingContext<'_>| {
        let tenant = cx
            .meta
            .and_then(|meta| meta.get("example.com/tenant"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        mcp_runtime::state::default_binding(cx).extended(tenant.as_bytes())
    });
    let server = Server::builder().signer(signer).tool(pay).build();
    let running = client::start(server).await;
    let round = |tenant: &'static str, state: Option<String>| {
        let mut meta = client::meta();
        meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
        meta["example.com/tenant"] = json!(tenant);
        let mut params = json!({"name": "pay", "arguments": {"ticket": "t10"}, "_meta": meta});
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] =
                json!({"sure": {"action": "accept", "content": {"ok": true}}});
        }
        let addr = running.addr;
        async move {
            client::call(addr, json!(1), "tools/call", params)
                .await
                .json()
        }
    };
    let first = round("acme", None).await;
    let token = state(&first);
    let elsewhere = round("globex", Some(token.clone())).await;
    assert!(client::is_state_refusal(&elsewhere), "{elsewhere}");
    assert_eq!(paid("t10"), 0);
    let done = round("acme", Some(token)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Paid.");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Who {
    name: String,
}

/// A prompt that asks before it answers; each state it hands out is used once.
#[prompt(single_use)]
async fn vouch(args: Who, cx: Cx) -> PromptResult {
    let sure: Sure = cx.elicit("Vouch?").await?;
    let runs = count_run(format!("vouch:{}", args.name));
    Ok(GetPromptResult {
        messages: vec![PromptMessage::text(
            Role::User,
            format!("{} vouched ({}) on run {runs}", args.name, sure.ok),
        )],
        ..Default::default()
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Doc {
    id: String,
}

/// A resource template that asks before it reads; each state it hands out is used once.
#[resource(uri = "test://ledger/{id}", mime_type = "text/plain", single_use)]
async fn ledger(args: Doc, cx: Cx) -> ResourceResult {
    let sure: Sure = cx.elicit("Read?").await?;
    let runs = count_run(format!("ledger:{}", args.id));
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: format!("test://ledger/{}", args.id),
            text: format!("ledger {} ({}) on run {runs}", args.id, sure.ok),
            ..Default::default()
        })],
        ..Default::default()
    })
}

/// Runs `method` with `params` to its question, answers it, retries that round with the same
/// answers and then with others; answers the final reply.
async fn used_once(addr: std::net::SocketAddr, method: &str, params: Value) -> Value {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let round = |state: Option<&str>, ok: bool| {
        let mut params = params.clone();
        params["_meta"] = meta.clone();
        if let Some(state) = state {
            params["requestState"] = json!(state);
            params["inputResponses"] = json!({"sure": {"action": "accept", "content": {"ok": ok}}});
        }
        client::call(addr, json!(3), method, params)
    };
    let first = round(None, true).await.json();
    let token = state(&first);
    let answered = round(Some(&token), true).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    let retried = round(Some(&token), true).await;
    assert_eq!(
        retried.body, answered.body,
        "the very same reply, byte for byte"
    );
    let other = round(Some(&token), false).await.json();
    assert!(client::is_state_refusal(&other), "{other}");
    answered.json()
}

#[tokio::test]
async fn single_use_prompts_and_resources_answer_retries_once_and_refuse_replays() {
    let server = Server::builder()
        .signer(signer())
        .prompt(vouch)
        .resource(ledger)
        .build();
    let running = client::start(server).await;
    let prompt = json!({"name": "vouch", "arguments": {"name": "ann"}});
    let got = used_once(running.addr, "prompts/get", prompt).await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"], "ann vouched (true) on run 1",
        "{got}"
    );
    assert_eq!(paid("vouch:ann"), 1, "the prompt ran once");
    let read = json!({"uri": "test://ledger/l1"});
    let read = used_once(running.addr, "resources/read", read).await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "ledger l1 (true) on run 1",
        "{read}"
    );
    assert_eq!(paid("ledger:l1"), 1, "the resource ran once");
}
