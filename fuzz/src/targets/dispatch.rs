//! Target 2: the JSON-RPC envelope and dispatch, in process, in both protocol eras.
//!
//! An input is a conversation: NUL-separated messages, each handed to `Server::handle` in
//! turn. The first byte of the input picks the server (the example tools, or every
//! conformance fixture); the first byte of each message picks what the transport knows
//! about it:
//!
//! | byte % 8 | facts |
//! |---|---|
//! | 0 | stdio |
//! | 1 | HTTP, no version header |
//! | 2 | HTTP, `MCP-Protocol-Version: 2026-07-28` |
//! | 3 | HTTP, 2026-07-28, subject `alice` |
//! | 4 | HTTP, no version header, the last session opened |
//! | 5 | HTTP, `2025-11-25`, the last session opened |
//! | 6 | HTTP, `2025-06-18`, a session id that was never issued |
//! | 7 | HTTP, 2026-07-28, the last session opened |
//!
//! Before a message is handed over, `@STATE` in it becomes the last `requestState` the
//! server handed out, `@TASK` the last `taskId`, and `@SREQ` the id of the last
//! server-to-client request (as JSON), so that multi-round calls, tasks and legacy answers to
//! server requests can be followed.
//!
//! Each answer is awaited on a runtime with a paused clock (so server timeouts elapse at
//! once): first briefly, since a legacy call may wait for the client's answer to a request it
//! sent, then, at the end of the conversation, up to a deadline past every server timeout. An
//! answer still pending then is a hang. Every answer and every message sent before one must
//! be well-formed JSON-RPC ([`oracle`]). With `MCP_FUZZ_TRACE` set, the conversation is
//! printed, which helps read a finding.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::server::{DEFAULT_INPUT_TIMEOUT, Outcome, RequestFacts, Server};
use serde_json::{Value, json};

use crate::Target;
use crate::oracle;
use crate::servers;

/// The target.
pub const TARGET: Target = Target {
    name: "dispatch",
    run,
    seeds,
    dictionary: DICTIONARY,
};

/// The most messages one input sends.
const MAX_MESSAGES: usize = 16;

/// Past every timeout of the server: an answer not there by then never comes.
const DEADLINE: Duration = DEFAULT_INPUT_TIMEOUT.saturating_add(Duration::from_secs(600));

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = super::paused_runtime();
}

/// What the conversation has learnt so far.
#[derive(Default)]
struct Learnt {
    session: Option<String>,
    state: Option<String>,
    task: Option<String>,
    server_request: Option<Value>,
}

type Pending = (
    String,
    Option<Value>,
    Pin<Box<dyn Future<Output = Outcome> + Send>>,
);

fn run(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let server = if which % 2 == 0 {
        servers::examples()
    } else {
        servers::conformance()
    };
    RUNTIME.with(|runtime| runtime.block_on(converse(&server, rest)));
}

async fn converse(server: &Server, data: &[u8]) {
    let learnt = Arc::new(Mutex::new(Learnt::default()));
    let mut pending: Vec<Pending> = Vec::new();
    for (number, segment) in super::segments(data).take(MAX_MESSAGES).enumerate() {
        let Some((&facts_byte, message)) = segment.split_first() else {
            continue;
        };
        let message = substitute(message, &learnt.lock().expect("not poisoned"));
        let facts = facts(facts_byte, &learnt.lock().expect("not poisoned"));
        let context = format!("message {number}: {}", String::from_utf8_lossy(&message));
        let request_id = oracle::request_id(&message);
        let handling = server.handle(&message, facts);
        if let Some(mut messages) = handling.messages {
            let learnt = Arc::clone(&learnt);
            let context = context.clone();
            tokio::spawn(async move {
                while let Some(sent) = messages.recv().await {
                    if tracing() {
                        eprintln!("  <- sent before the answer: {sent}");
                    }
                    oracle::outbound(&sent, &context);
                    if let Some(id) = sent.get("id") {
                        learnt.lock().expect("not poisoned").server_request = Some(id.clone());
                    }
                }
            });
        }
        let mut outcome = handling.outcome;
        // A moment for the answer; a legacy call waiting on the client goes on in the
        // background while the next messages (perhaps its answer) arrive.
        match tokio::time::timeout(Duration::from_secs(1), &mut outcome).await {
            Ok(outcome) => answered(&outcome, request_id.as_ref(), &context, &learnt),
            Err(_) => pending.push((context, request_id, outcome)),
        }
    }
    for (context, request_id, outcome) in pending {
        match tokio::time::timeout(DEADLINE, outcome).await {
            Ok(outcome) => answered(&outcome, request_id.as_ref(), &context, &learnt),
            Err(_) => panic!("{context}: no answer within {DEADLINE:?} (a hang)"),
        }
    }
}

/// Whether to print the conversation (`MCP_FUZZ_TRACE=1`), for triage.
fn tracing() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("MCP_FUZZ_TRACE").is_some())
}

fn answered(outcome: &Outcome, request_id: Option<&Value>, context: &str, learnt: &Mutex<Learnt>) {
    if tracing() {
        eprintln!(
            "{context}\n  -> {} {}",
            outcome.status,
            String::from_utf8_lossy(outcome.body.as_deref().unwrap_or_default())
        );
    }
    let mut learnt = learnt.lock().expect("not poisoned");
    if let Some(session) = &outcome.session_id {
        learnt.session = Some(session.clone());
    }
    let Some(body) = &outcome.body else {
        return;
    };
    let response = oracle::response(body, request_id, &context);
    if let Some(state) = response
        .pointer("/result/requestState")
        .and_then(Value::as_str)
    {
        learnt.state = Some(state.to_owned());
    }
    if let Some(task) = response.pointer("/result/taskId").and_then(Value::as_str) {
        learnt.task = Some(task.to_owned());
    }
}

fn substitute(message: &[u8], learnt: &Learnt) -> Vec<u8> {
    let state = learnt.state.as_deref().unwrap_or("");
    let task = learnt.task.as_deref().unwrap_or("");
    let server_request = learnt
        .server_request
        .as_ref()
        .map_or_else(|| "0".to_owned(), Value::to_string);
    let mut out = Vec::with_capacity(message.len());
    let mut rest = message;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(b"@STATE") {
            out.extend_from_slice(state.as_bytes());
            rest = after;
        } else if let Some(after) = rest.strip_prefix(b"@TASK") {
            out.extend_from_slice(task.as_bytes());
            rest = after;
        } else if let Some(after) = rest.strip_prefix(b"@SREQ") {
            out.extend_from_slice(server_request.as_bytes());
            rest = after;
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

fn facts(byte: u8, learnt: &Learnt) -> RequestFacts {
    let modern = || Some("2026-07-28".to_owned());
    match byte % 8 {
        0 => RequestFacts::stdio(),
        1 => RequestFacts::http(None, None),
        2 => RequestFacts::http(modern(), None),
        3 => RequestFacts::http(modern(), Some("alice".to_owned())),
        4 => RequestFacts::http(None, None).with_session_id(learnt.session.clone()),
        5 => RequestFacts::http(Some("2025-11-25".to_owned()), None)
            .with_session_id(learnt.session.clone()),
        6 => RequestFacts::http(Some("2025-06-18".to_owned()), None)
            .with_session_id(Some("never-issued".to_owned())),
        _ => RequestFacts::http(modern(), None).with_session_id(learnt.session.clone()),
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}}, "sampling": {}, "roots": {}
        },
    })
}

fn request(id: Value, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn conversation(server: u8, messages: &[(u8, Value)]) -> Vec<u8> {
    let mut seed = vec![server];
    for (number, (facts, message)) in messages.iter().enumerate() {
        if number > 0 {
            seed.push(0);
        }
        // Facts as an ASCII digit: `b'0'` is 0 modulo 8, and a NUL would end the message.
        seed.push(b'0' + *facts);
        seed.extend_from_slice(message.to_string().replace("\"@SREQ\"", "@SREQ").as_bytes());
    }
    seed
}

fn seeds() -> Vec<Vec<u8>> {
    let initialize = request(
        json!(1),
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}, "sampling": {}, "roots": {"listChanged": true}},
            "clientInfo": {"name": "fuzz", "version": "1"},
        }),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let with_meta = |params: Value| {
        let mut params = params;
        params["_meta"] = meta();
        params
    };
    let deploy = with_meta(json!({"name": "deploy", "arguments": {"service": "api"}}));
    let mut deploy_round = deploy.clone();
    deploy_round["requestState"] = json!("@STATE");
    deploy_round["inputResponses"] = json!({"target": {"action": "accept", "content": {"environment": "production", "replicas": 3}}});
    let mut deploy_confirm = deploy.clone();
    deploy_confirm["requestState"] = json!("@STATE");
    deploy_confirm["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let elicit_answer = json!({"jsonrpc": "2.0", "id": "@SREQ", "result": {"action": "accept", "content": {"environment": "staging", "replicas": 2}}});
    let sample_answer = json!({"jsonrpc": "2.0", "id": "@SREQ", "result": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}});
    let tasks_meta = {
        let mut meta = meta();
        meta["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
            json!({"io.modelcontextprotocol/tasks": {}});
        meta
    };
    let with_tasks = |mut params: Value| {
        params["_meta"] = tasks_meta.clone();
        params
    };
    let release = json!({"name": "release", "arguments": {"version": "1.4.0"}});
    let mut release_approved = with_tasks(release.clone());
    release_approved["requestState"] = json!("@STATE");
    release_approved["inputResponses"] =
        json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let task = |params: Value| {
        let mut params = with_tasks(params);
        params["taskId"] = json!("@TASK");
        params
    };
    let progress_meta = {
        let mut meta = meta();
        meta["progressToken"] = json!("p1");
        meta["io.modelcontextprotocol/logLevel"] = json!("debug");
        meta
    };
    vec![
        conversation(0, &[
            (2, request(json!(1), "tools/call", with_tasks(release.clone()))),
            (2, request(json!(2), "tools/call", release_approved)),
            (2, request(json!(3), "tasks/get", task(json!({})))),
            (2, request(json!(4), "tasks/update", task(json!({"inputResponses": {"1:publish": {"action": "accept", "content": {"publish": true}}}})))),
            (3, request(json!(5), "tasks/get", task(json!({})))),
            (2, request(json!(6), "tasks/cancel", task(json!({})))),
            (2, request(json!(7), "tasks/get", with_meta(json!({"taskId": "@TASK"})))),
        ]),
        conversation(0, &[
            (2, request(json!(1), "tools/list", with_meta(json!({})))),
            (2, request(json!(2), "tools/call", deploy.clone())),
            (2, request(json!(3), "tools/call", deploy_round)),
            (2, request(json!(4), "tools/call", deploy_confirm)),
        ]),
        conversation(0, &[
            (1, initialize.clone()),
            (4, initialized.clone()),
            (4, request(json!(2), "tools/list", json!({}))),
            (5, request(json!(3), "tools/call", json!({"name": "deploy", "arguments": {"service": "api"}}))),
            (5, elicit_answer),
            (5, request(json!(4), "ping", json!({}))),
        ]),
        conversation(0, &[
            (1, initialize.clone()),
            (4, initialized.clone()),
            (5, request(json!("o"), "tools/call", json!({"name": "order"}))),
            (5, json!({"jsonrpc": "2.0", "id": "@SREQ", "result": {"action": "decline"}})),
            (5, json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "o"}})),
        ]),
        conversation(1, &[
            (2, request(json!(1), "server/discover", with_meta(json!({})))),
            (2, request(json!(2), "prompts/list", with_meta(json!({})))),
            (2, request(json!(3), "resources/templates/list", with_meta(json!({})))),
            (2, request(json!(4), "resources/read", with_meta(json!({"uri": "test://template/7/data"})))),
            (2, request(json!(5), "completion/complete", with_meta(json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "a"}})))),
            (2, request(json!(6), "prompts/get", with_meta(json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}})))),
            (2, request(json!(7), "tools/call", json!({"name": "test_tool_with_progress", "_meta": progress_meta}))),
            (2, request(json!(8), "tools/call", with_meta(json!({"name": "test_input_required_result_multiple_inputs"})))),
        ]),
        conversation(1, &[
            (1, initialize.clone()),
            (4, initialized.clone()),
            (5, request(json!(2), "logging/setLevel", json!({"level": "debug"}))),
            (5, request(json!(3), "tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}))),
            (5, sample_answer),
            (5, request(json!(4), "resources/subscribe", json!({"uri": "test://watched-resource"}))),
            (5, request(json!(5), "tools/call", json!({"name": "test_tool_with_logging"}))),
        ]),
        conversation(1, &[
            (6, request(json!(1), "tools/list", json!({}))),
            (0, request(json!(2), "tools/call", with_meta(json!({"name": "test_simple_text"})))),
            (3, json!([])),
        ]),
        [b"\x002".as_slice(), b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}},\"id\":2}"].concat(),
        [b"\x011".as_slice(), b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"].concat(),
    ]
}

const DICTIONARY: &[&str] = &[
    "\"jsonrpc\"",
    "\"2.0\"",
    "\"id\"",
    "\"method\"",
    "\"params\"",
    "\"result\"",
    "\"error\"",
    "\"_meta\"",
    "\"io.modelcontextprotocol/protocolVersion\"",
    "\"io.modelcontextprotocol/clientCapabilities\"",
    "\"io.modelcontextprotocol/clientInfo\"",
    "\"io.modelcontextprotocol/logLevel\"",
    "\"progressToken\"",
    "\"2026-07-28\"",
    "\"2025-11-25\"",
    "\"2025-06-18\"",
    "\"2025-03-26\"",
    "\"initialize\"",
    "\"notifications/initialized\"",
    "\"notifications/cancelled\"",
    "\"ping\"",
    "\"tools/list\"",
    "\"tools/call\"",
    "\"prompts/list\"",
    "\"prompts/get\"",
    "\"resources/list\"",
    "\"resources/read\"",
    "\"resources/templates/list\"",
    "\"resources/subscribe\"",
    "\"resources/unsubscribe\"",
    "\"completion/complete\"",
    "\"server/discover\"",
    "\"subscriptions/listen\"",
    "\"logging/setLevel\"",
    "\"elicitation/create\"",
    "\"sampling/createMessage\"",
    "\"roots/list\"",
    "\"name\"",
    "\"arguments\"",
    "\"requestState\"",
    "\"tasks/get\"",
    "\"tasks/update\"",
    "\"tasks/cancel\"",
    "\"taskId\"",
    "\"@TASK\"",
    "\"io.modelcontextprotocol/tasks\"",
    "\"extensions\"",
    "\"release\"",
    "\"1:publish\"",
    "\"inputResponses\"",
    "\"@STATE\"",
    "@SREQ",
    "\"action\"",
    "\"accept\"",
    "\"decline\"",
    "\"cancel\"",
    "\"content\"",
    "\"cursor\"",
    "\"uri\"",
    "\"ref\"",
    "\"ref/prompt\"",
    "\"ref/resource\"",
    "\"argument\"",
    "\"value\"",
    "\"level\"",
    "\"debug\"",
    "\"capabilities\"",
    "\"protocolVersion\"",
    "\"clientInfo\"",
    "\"requestId\"",
    "\"deploy\"",
    "\"order\"",
    "\"confirm_deploy\"",
    "\"deployments\"",
    "\"create_issue\"",
    "\"close_issues\"",
    "\"list_issues\"",
    "\"test_sampling\"",
    "\"test_elicitation\"",
    "\"test_tool_with_progress\"",
    "\"test://static-text\"",
    "\"test://template/{id}/data\"",
    "\x005",
    "\x002",
    "\x004",
    "null",
    "true",
    "-1",
    "1e400",
    "9007199254740993",
    "[]",
    "{}",
];
