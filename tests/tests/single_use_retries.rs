//! Retries of single-use rounds over HTTP: a retry while the first use runs is told when to
//! come back; a round whose client goes away (its connection closed, or cancelled over stdio)
//! runs to its end all the same, and the retry gets its reply without running it again; a
//! full in-process store refuses with a retryable `503`; and a retried round gets exactly the
//! first reply, whether it asked a further question (the same next state), failed
//! (the same error) or was cut off while storing its reply. In process and, for the cut-off
//! round, in a real `redis-server`.

#[path = "support/client.rs"]
mod client;
#[path = "support/redis.rs"]
mod redis_support;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::protocol::{ErrorCode, ErrorObject};
use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::state::{
    Begin, BoxFuture, MemoryReplayStore, RedisReplayStore, ReplayStore, Signer, StoreError,
};
use mcp_runtime::{Cx, ElicitForm, HandlerError, ToolResult, text, tool};
use redis_support::TestRedis;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// How long a test waits for a handler to start, or for a retry to be let through.
const WAIT: Duration = Duration::from_secs(5);

/// How often each counter was bumped, across every test of this binary.
static COUNTS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// Adds one to `counter` and answers what it was before.
fn bump(counter: &str) -> usize {
    let mut counts = COUNTS.lock().unwrap();
    let count = counts
        .get_or_insert_with(HashMap::new)
        .entry(counter.to_owned())
        .or_default();
    *count += 1;
    *count - 1
}

fn count(counter: &str) -> usize {
    let counts = COUNTS.lock().unwrap();
    counts
        .as_ref()
        .and_then(|counts| counts.get(counter).copied())
        .unwrap_or(0)
}

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

#[derive(ElicitForm)]
struct Again {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Ticket {
    ticket: String,
}

/// Gates the first run of `hold` per ticket: closed until the test opens it.
static GATES: Mutex<Option<HashMap<String, Arc<Semaphore>>>> = Mutex::new(None);

fn gate(ticket: &str) -> Arc<Semaphore> {
    let mut gates = GATES.lock().unwrap();
    let gates = gates.get_or_insert_with(HashMap::new);
    Arc::clone(
        gates
            .entry(ticket.to_owned())
            .or_insert_with(|| Arc::new(Semaphore::new(0))),
    )
}

/// Waits until the test opens `ticket`'s gate (forever, for a test that never does).
async fn wait_for_gate(ticket: &str) {
    let gate = gate(ticket);
    let _passed = gate.acquire().await;
}

/// Opens `ticket`'s gate for good.
fn open_gate(ticket: &str) {
    gate(ticket).add_permits(Semaphore::MAX_PERMITS >> 4);
}

/// Asks, then runs: its first run after the answer waits at the ticket's gate; later runs
/// answer which run they are.
#[tool(single_use)]
async fn hold(args: Ticket, cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Hold?").await?;
    let run = bump(&format!("hold:{}", args.ticket)) + 1;
    if run == 1 {
        wait_for_gate(&args.ticket).await;
    }
    Ok(text(format!("held ({}) on run {run}", sure.ok)))
}

/// Asks twice; counts the runs of the code between the questions.
#[tool(single_use)]
async fn twice(args: Ticket, cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("First?").await?;
    bump(&format!("twice:{}", args.ticket));
    let again: Again = cx.elicit("Second?").await?;
    Ok(text(format!("{} then {}", sure.ok, again.ok)))
}

/// Asks, then fails with a JSON-RPC error that names its run.
#[tool(single_use)]
async fn fail(args: Ticket, cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Fail?").await?;
    let run = bump(&format!("fail:{}", args.ticket)) + 1;
    Err(HandlerError::protocol(ErrorObject::new(
        ErrorCode(-32000),
        format!("failed ({}) on run {run}", sure.ok),
    )))
}

/// Asks, then answers which run it is.
#[tool(single_use)]
async fn quick(args: Ticket, cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Quick?").await?;
    let run = bump(&format!("quick:{}", args.ticket)) + 1;
    Ok(text(format!("quick ({}) on run {run}", sure.ok)))
}

fn builder() -> ServerBuilder {
    Server::builder()
        .name("retries")
        .signer(Signer::new(5, &[7; 32]).expect("a 32-byte key is long enough"))
        .tool(hold)
        .tool(twice)
        .tool(fail)
        .tool(quick)
}

/// An in-process store whose first `finish` waits until the test opens its gate: the round
/// storing its reply is still waiting for it when its client goes away.
struct SlowFinish {
    inner: MemoryReplayStore,
    finishes: AtomicUsize,
    gate: Semaphore,
}

impl Default for SlowFinish {
    fn default() -> Self {
        Self {
            inner: MemoryReplayStore::new(),
            finishes: AtomicUsize::new(0),
            gate: Semaphore::new(0),
        }
    }
}

impl ReplayStore for SlowFinish {
    fn begin(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        self.inner.begin(id, answers, ttl)
    }

    fn finish(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        let first = self.finishes.fetch_add(1, Ordering::SeqCst) == 0;
        let (id, answers, reply) = (*id, *answers, reply.to_vec());
        Box::pin(async move {
            if first {
                let _passed = self.gate.acquire().await;
            }
            self.inner.finish(&id, &answers, &reply, ttl).await
        })
    }

    fn release(&self, id: &[u8; 16], answers: &[u8; 32]) -> BoxFuture<'_, Result<(), StoreError>> {
        self.inner.release(id, answers)
    }
}

/// The body of a `tools/call` of `name` for `ticket`, with a state and answers when given.
fn body(name: &str, ticket: &str, state: Option<&str>, answers: Option<Value>) -> Value {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let mut params = json!({"name": name, "arguments": {"ticket": ticket}, "_meta": meta});
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})
}

async fn call(
    addr: SocketAddr,
    name: &str,
    ticket: &str,
    state: Option<&str>,
    answers: Option<Value>,
) -> client::Answer {
    let body = body(name, ticket, state, answers);
    client::send(addr, "POST", &[], body.to_string().as_bytes()).await
}

fn sure(ok: bool) -> Value {
    json!({"sure": {"action": "accept", "content": {"ok": ok}}})
}

fn state(answer: &Value) -> String {
    answer["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {answer}"))
        .to_owned()
}

/// Writes a request on a connection of its own and leaves it open, unread.
async fn post_and_hold(addr: SocketAddr, body: &Value) -> TcpStream {
    let body = body.to_string();
    let mut head = String::from("POST /mcp HTTP/1.1\r\n");
    for (key, value) in client::headers_for(addr, body.as_bytes()) {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    stream.write_all(head.as_bytes()).await.expect("sends");
    stream
}

/// Waits until `counter` reaches `at_least`; fails the test after [`WAIT`].
async fn wait_count(counter: &str, at_least: usize) {
    let waiting = async {
        while count(counter) < at_least {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(WAIT, waiting)
        .await
        .unwrap_or_else(|_| panic!("`{counter}` reaches {at_least} within {WAIT:?}"));
}

/// Whether `answer` is the retryable refusal: `503` with `Retry-After: 1`, `-32603`.
fn is_retry_later(answer: &client::Answer) -> bool {
    answer.status == 503
        && answer.header("retry-after") == Some("1")
        && answer.json()["error"]["code"] == -32603
}

/// Starts the first use of a `hold` state for `ticket` on a connection left open, and waits
/// until its handler runs; answers the state and that connection.
async fn hold_first_use(addr: SocketAddr, ticket: &str) -> (String, TcpStream) {
    let first = call(addr, "hold", ticket, None, None).await.json();
    let token = state(&first);
    let held = post_and_hold(addr, &body("hold", ticket, Some(&token), Some(sure(true)))).await;
    wait_count(&format!("hold:{ticket}"), 1).await;
    (token, held)
}

#[tokio::test]
async fn a_retry_while_the_first_use_runs_is_told_to_retry_after_a_second() {
    let running = client::start(builder().replay_store(MemoryReplayStore::new()).build()).await;
    let (token, _held) = hold_first_use(running.addr, "r1").await;
    let retry = call(running.addr, "hold", "r1", Some(&token), Some(sure(true))).await;
    assert!(is_retry_later(&retry), "{retry:?}");
    assert!(
        retry.json()["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("still running")),
        "{retry:?}"
    );
    assert_eq!(count("hold:r1"), 1, "the retry ran nothing");
}

/// How long retries are sent while a cut-off round still runs: long enough, many times over,
/// for the server to see the connection close (which used to release the round).
const WHILE_RUNNING: Duration = Duration::from_millis(300);

/// Sends `name`'s round for `ticket` for [`WHILE_RUNNING`], and checks that each retry is told
/// to come back later: the round is still running, its client gone or not.
async fn retries_are_told_to_wait(addr: SocketAddr, name: &str, ticket: &str, token: &str) {
    let until = tokio::time::Instant::now() + WHILE_RUNNING;
    while tokio::time::Instant::now() < until {
        let retry = call(addr, name, ticket, Some(token), Some(sure(true))).await;
        assert!(is_retry_later(&retry), "{:?}", retry.json());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The first use of a `hold` state is cut off by its client closing the connection; the
/// round runs to its end all the same, in a task of the server's, and a retry with the same
/// answers gets its reply without running anything again; other answers are still refused.
async fn a_cut_off_round_runs_once_and_the_retry_gets_its_reply(server: Server, ticket: &str) {
    let running = client::start(server).await;
    let addr = running.addr;
    let (token, held) = hold_first_use(addr, ticket).await;
    drop(held);
    retries_are_told_to_wait(addr, "hold", ticket, &token).await;
    open_gate(ticket);
    let retried = retry_until_let_through(addr, "hold", ticket, &token).await;
    assert_eq!(retried.status, 200, "{retried:?}");
    let retried = retried.json();
    assert_eq!(
        retried["result"]["content"][0]["text"], "held (true) on run 1",
        "{retried}"
    );
    // Its reply is answered again, nothing runs.
    let again = call(addr, "hold", ticket, Some(&token), Some(sure(true))).await;
    assert_eq!(again.json(), retried);
    let other = call(addr, "hold", ticket, Some(&token), Some(sure(false))).await;
    assert!(client::is_state_refusal(&other.json()), "{other:?}");
    assert_eq!(count(&format!("hold:{ticket}")), 1);
}

#[tokio::test]
async fn a_round_cut_off_by_a_closed_connection_runs_once_and_the_retry_gets_its_reply() {
    let server = builder().replay_store(MemoryReplayStore::new()).build();
    a_cut_off_round_runs_once_and_the_retry_gets_its_reply(server, "r2").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_cut_off_by_a_closed_connection_runs_once_with_redis() {
    let redis = TestRedis::shared_or_own();
    let store = RedisReplayStore::connect(redis.url())
        .await
        .expect("Redis answers")
        .with_prefix(redis.prefix());
    let server = builder().replay_store(store).build();
    a_cut_off_round_runs_once_and_the_retry_gets_its_reply(server, "r3").await;
}

/// Sends `name`'s round for `ticket` until it is no longer told to retry later; fails the test
/// after [`WAIT`].
async fn retry_until_let_through(
    addr: SocketAddr,
    name: &str,
    ticket: &str,
    token: &str,
) -> client::Answer {
    let retrying = async {
        loop {
            let retry = call(addr, name, ticket, Some(token), Some(sure(true))).await;
            if !is_retry_later(&retry) {
                return retry;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(WAIT, retrying)
        .await
        .expect("the retry is let through")
}

#[tokio::test]
async fn a_round_cut_off_while_storing_its_reply_still_stores_it() {
    let store = Arc::new(SlowFinish::default());
    let running = client::start(builder().replay_store(Arc::clone(&store)).build()).await;
    let addr = running.addr;
    let first = call(addr, "quick", "r8", None, None).await.json();
    let token = state(&first);
    let held = post_and_hold(addr, &body("quick", "r8", Some(&token), Some(sure(true)))).await;
    let storing = async {
        while store.finishes.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(WAIT, storing)
        .await
        .expect("the round ran and is storing its reply");
    drop(held);
    retries_are_told_to_wait(addr, "quick", "r8", &token).await;
    store.gate.add_permits(1);
    // The handler ran to its end: the retry gets that run's reply, and nothing runs again.
    let retried = retry_until_let_through(addr, "quick", "r8", &token).await;
    assert_eq!(retried.status, 200, "{retried:?}");
    assert_eq!(
        retried.json()["result"]["content"][0]["text"],
        "quick (true) on run 1"
    );
    assert_eq!(count("quick:r8"), 1);
    assert_eq!(store.finishes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_round_cancelled_over_stdio_runs_once_and_the_retry_gets_its_reply() {
    use tokio::io::{AsyncBufReadExt, BufReader};

    let server = builder().replay_store(MemoryReplayStore::new()).build();
    let (mut input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    let _serving = tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
    let mut output = BufReader::new(output).lines();
    let mut exchange = async |message: Value, answered: bool| {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        input.write_all(&line).await.expect("the server reads");
        if !answered {
            return Value::Null;
        }
        let line = tokio::time::timeout(WAIT, output.next_line())
            .await
            .expect("an answer in time")
            .expect("the server writes")
            .expect("a line");
        serde_json::from_str::<Value>(&line).expect("JSON")
    };
    let with_id = |mut message: Value, id: u64| {
        message["id"] = json!(id);
        message
    };
    let first = exchange(body("hold", "r9", None, None), true).await;
    let token = state(&first);
    let round = body("hold", "r9", Some(&token), Some(sure(true)));
    exchange(with_id(round.clone(), 2), false).await;
    wait_count("hold:r9", 1).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2}});
    exchange(cancel, false).await;
    // Still running: the retry is told to try again later.
    let until = tokio::time::Instant::now() + WHILE_RUNNING;
    let mut id = 3;
    while tokio::time::Instant::now() < until {
        let retried = exchange(with_id(round.clone(), id), true).await;
        assert_eq!(retried["error"]["code"], -32603, "{retried}");
        id += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    open_gate("r9");
    let mut retried = Value::Null;
    for id in id..id + 200 {
        retried = exchange(with_id(round.clone(), id), true).await;
        if retried["error"]["code"] != -32603 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        retried["result"]["content"][0]["text"], "held (true) on run 1",
        "{retried}"
    );
    assert_eq!(count("hold:r9"), 1);
}

#[tokio::test]
async fn a_full_in_process_store_refuses_new_states_as_retryable() {
    let store = MemoryReplayStore::new().with_capacity(1);
    let running = client::start(builder().replay_store(store).build()).await;
    let addr = running.addr;
    let first = call(addr, "twice", "r4", None, None).await.json();
    let second = call(addr, "twice", "r5", None, None).await.json();
    let answered = call(addr, "twice", "r4", Some(&state(&first)), Some(sure(true))).await;
    assert_eq!(answered.status, 200, "{answered:?}");
    // The one record is taken: the other flow's state cannot be recorded, so nothing runs.
    let refused = call(addr, "twice", "r5", Some(&state(&second)), Some(sure(true))).await;
    assert!(is_retry_later(&refused), "{refused:?}");
    assert_eq!(count("twice:r5"), 0);
}

#[tokio::test]
async fn a_retried_round_that_asked_again_hands_out_the_same_next_state() {
    let running = client::start(builder().replay_store(MemoryReplayStore::new()).build()).await;
    let addr = running.addr;
    let first = call(addr, "twice", "r6", None, None).await.json();
    let token = state(&first);
    let asked = call(addr, "twice", "r6", Some(&token), Some(sure(true))).await;
    let retried = call(addr, "twice", "r6", Some(&token), Some(sure(true))).await;
    assert_eq!((asked.status, retried.status), (200, 200));
    let (asked, retried) = (asked.json(), retried.json());
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    // Minting again would draw a new random id: the same token is the stored reply.
    assert_eq!(state(&retried), state(&asked));
    assert_eq!(retried, asked);
    assert_eq!(
        count("twice:r6"),
        1,
        "the code between the questions ran once"
    );
    // And the next state continues the flow.
    let answers = json!({"again": {"action": "accept", "content": {"ok": false}}});
    let done = call(addr, "twice", "r6", Some(&state(&asked)), Some(answers)).await;
    assert_eq!(
        done.json()["result"]["content"][0]["text"],
        "true then false"
    );
}

#[tokio::test]
async fn a_stored_error_reply_is_replayed_identically() {
    let running = client::start(builder().replay_store(MemoryReplayStore::new()).build()).await;
    let addr = running.addr;
    let first = call(addr, "fail", "r7", None, None).await.json();
    let token = state(&first);
    let failed = call(addr, "fail", "r7", Some(&token), Some(sure(true))).await;
    let retried = call(addr, "fail", "r7", Some(&token), Some(sure(true))).await;
    assert_eq!(failed.status, retried.status);
    assert_eq!(failed.body, retried.body, "byte for byte");
    let failed = failed.json();
    assert_eq!(failed["error"]["code"], -32000, "{failed}");
    assert_eq!(failed["error"]["message"], "failed (true) on run 1");
    assert_eq!(count("fail:r7"), 1);
}
