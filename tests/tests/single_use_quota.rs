//! One caller cannot fill the replay store: each subject holds a quota of live single-use
//! records, past which only its own new rounds are refused (`503` with `Retry-After`), while
//! other subjects' rounds go on. In process and in a real Redis, over real sockets.

#[path = "support/client.rs"]
mod client;
#[path = "support/redis.rs"]
mod redis_support;

use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::state::{MemoryReplayStore, RedisReplayStore, ReplayStore, Signer};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use redis_support::TestRedis;
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

/// Asks once; each state it hands out is used once.
#[tool(single_use)]
async fn pay(cx: Cx) -> ToolResult {
    let sure: Sure = cx.elicit("Pay?").await?;
    Ok(text(if sure.ok { "Paid." } else { "Kept." }))
}

/// The quota the tests give each subject.
const QUOTA: usize = 8;

/// The subject is the `X-User` header, as an application's authentication layer would set it.
fn builder(store: impl ReplayStore) -> ServerBuilder {
    Server::builder()
        .name("payments")
        .signer(Signer::new(3, &[42; 32]).expect("a 32-byte key is long enough"))
        .subject(|parts| {
            let user = parts.headers.get("x-user")?.to_str().ok()?;
            Some(user.to_owned())
        })
        .tool(pay)
        .replay_store(store)
}

/// One `pay` request as `user` (a caller without one when empty, from `user` read as its local
/// address): the first round, or the second with `state`.
async fn pay_as(addr: std::net::SocketAddr, user: &str, state: Option<&str>) -> client::Answer {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let mut params = json!({"name": "pay", "_meta": meta});
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"sure": {"action": "accept", "content": {"ok": true}}});
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    // A caller without a subject is told apart by its address.
    let from = user.parse().ok();
    let header = if from.is_some() { "" } else { user };
    client::send_from(
        addr,
        from,
        "POST",
        &[("X-User", header)],
        body.to_string().as_bytes(),
    )
    .await
}

/// A whole single-use flow as `user`: the answer of its second, single-use round.
async fn flow(addr: std::net::SocketAddr, user: &str) -> client::Answer {
    let first = pay_as(addr, user, None).await;
    let body: Value = first.json();
    let state = body["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {body}"))
        .to_owned();
    pay_as(addr, user, Some(&state)).await
}

/// `greedy` runs flows until refused; then `honest` runs some. Checks that the refusal came at
/// the quota, said to retry later, and never reached the honest subject.
async fn greedy_then_honest(addr: std::net::SocketAddr, greedy: &str, honest: &str) {
    let mut completed = 0;
    let refused = loop {
        let answer = flow(addr, greedy).await;
        if answer.status != 200 {
            break answer;
        }
        assert_eq!(answer.json()["result"]["content"][0]["text"], "Paid.");
        completed += 1;
        assert!(completed <= 10 * QUOTA, "never refused");
    };
    for n in 0..QUOTA {
        let answer = flow(addr, honest).await;
        assert_eq!(answer.status, 200, "honest flow {n}: {:?}", answer.json());
        assert_eq!(answer.json()["result"]["content"][0]["text"], "Paid.");
    }
    assert_eq!(refused.status, 503, "{:?}", refused.json());
    assert!(refused.header("retry-after").is_some());
    let message = refused.json()["error"]["message"]
        .as_str()
        .map(str::to_owned);
    assert!(
        message
            .as_deref()
            .is_some_and(|message| message.contains("this caller")),
        "{message:?}"
    );
    assert_eq!(completed, QUOTA);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_without_a_subject_are_told_apart_by_address() {
    let store = MemoryReplayStore::new()
        .with_capacity(5 * QUOTA)
        .with_owner_quota(QUOTA);
    let running = client::start(builder(store).build()).await;
    greedy_then_honest(running.addr, "127.0.0.2", "127.0.0.1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_subject_filling_the_memory_store_is_refused_alone() {
    // Room for five subjects' quotas.
    let store = MemoryReplayStore::new()
        .with_capacity(5 * QUOTA)
        .with_owner_quota(QUOTA);
    let running = client::start(builder(store).build()).await;
    greedy_then_honest(running.addr, "mallory", "alice").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_subject_filling_redis_is_refused_alone_across_instances() {
    let redis = TestRedis::shared_or_own();
    let instance = || async {
        let store = RedisReplayStore::connect(redis.url())
            .await
            .expect("Redis answers")
            .with_prefix(redis.prefix())
            .with_owner_quota(QUOTA);
        client::start(builder(store).build()).await
    };
    let (one, two) = (instance().await, instance().await);
    greedy_then_honest(one.addr, "mallory", "alice").await;
    // The quota is the subject's across instances: the other instance refuses it too.
    let answer = flow(two.addr, "mallory").await;
    assert_eq!(answer.status, 503, "{:?}", answer.json());
    assert_eq!(flow(two.addr, "bob").await.status, 200);
}
