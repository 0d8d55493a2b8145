//! What only the Redis replay store does: records shared between instances, the key layout
//! it documents, and outages (it fails closed, then recovers; with persistence it keeps uses
//! across a restart). The behaviour both stores share is `replay_store.rs`.
//!
//! These tests use the server at `REDIS_URL` when it is set, and otherwise start their own
//! `redis-server` from PATH on a free loopback port (and stop it). Without either they fail,
//! naming the command that installs it and runs them: `scripts/test.sh`.

#![cfg(feature = "redis")]

mod support;

#[path = "../../tests/tests/support/redis.rs"]
mod redis_support;

use std::time::{Duration, Instant};

use mcp_runtime::state::{Begin, RedisReplayStore, ReplayStore, StoreError};
use redis::AsyncCommands;

use redis_support::{TestRedis, free_port};
use support::replay::{REPLY, TTL, answers, begin, id};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_redis_share_records() {
    let redis = TestRedis::shared_or_own();
    let (one, two) = (redis.store().await, redis.store().await);
    let (state, ours, theirs) = (id(), answers(1), answers(2));
    assert_eq!(begin(&one, &state, &ours).await, Begin::Fresh);
    assert_eq!(begin(&two, &state, &ours).await, Begin::Pending);
    assert_eq!(begin(&two, &state, &theirs).await, Begin::Conflict);
    one.finish(&state, &ours, REPLY, TTL)
        .await
        .expect("finishes");
    assert_eq!(
        begin(&two, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
    // The second instance's finish of a use the first one finished changes nothing.
    two.finish(&state, &ours, b"again", TTL)
        .await
        .expect("finishes");
    assert_eq!(
        begin(&one, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );

    // Under another prefix lives another store.
    let apart = redis
        .store()
        .await
        .with_prefix(format!("{}apart:", one.prefix()));
    assert_eq!(begin(&apart, &state, &ours).await, Begin::Fresh);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_laid_out_as_documented() {
    let redis = TestRedis::shared_or_own();
    let store = redis.store().await;
    let mut raw = redis::Client::open(redis.url())
        .expect("a valid URL")
        .get_multiplexed_async_connection()
        .await
        .expect("connects");
    let (state, ours) = ([0xa5; 16], [0x3c; 32]);
    let key = format!("{}{}", store.prefix(), "a5".repeat(16));
    let digest = "3c".repeat(32);

    assert_eq!(begin(&store, &state, &ours).await, Begin::Fresh);
    let value: Vec<u8> = raw.get(&key).await.expect("reads");
    assert_eq!(value, format!("p:{digest}").into_bytes());
    let left: i64 = raw.pttl(&key).await.expect("reads");
    assert!((590_000..=600_000).contains(&left), "{left} ms left");

    store.release(&state, &ours).await.expect("releases");
    let value: Vec<u8> = raw.get(&key).await.expect("reads");
    assert_eq!(value, format!("r:{digest}").into_bytes());
    assert_eq!(begin(&store, &state, &ours).await, Begin::Fresh);
    let value: Vec<u8> = raw.get(&key).await.expect("reads");
    assert_eq!(value, format!("p:{digest}").into_bytes());
    let left: i64 = raw.pttl(&key).await.expect("reads");
    assert!((590_000..=600_000).contains(&left), "{left} ms left");

    store
        .finish(&state, &ours, REPLY, TTL)
        .await
        .expect("finishes");
    let value: Vec<u8> = raw.get(&key).await.expect("reads");
    assert_eq!(value, [format!("d:{digest}:").as_bytes(), REPLY].concat());
    let left: i64 = raw.pttl(&key).await.expect("reads");
    assert!((590_000..=600_000).contains(&left), "{left} ms left");

    // A value this store did not write is refused, not taken for a first use.
    let () = raw.set(&key, "something else").await.expect("writes");
    let found = store.begin(&state, &ours, TTL).await;
    assert!(matches!(found, Err(StoreError::Corrupt)), "{found:?}");
    let () = raw.del(&key).await.expect("deletes");
}

#[tokio::test]
async fn an_unreachable_redis_fails_closed() {
    let started = Instant::now();
    let refused = RedisReplayStore::connect(&format!("redis://127.0.0.1:{}", free_port())).await;
    assert!(
        matches!(refused, Err(StoreError::Backend(_))),
        "{refused:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    let invalid = RedisReplayStore::connect("http://127.0.0.1/").await;
    assert!(
        matches!(invalid, Err(StoreError::Backend(_))),
        "{invalid:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_goes_down_fails_closed_then_recovers() {
    let mut redis = TestRedis::own();
    let timeout = Duration::from_millis(1_500);
    let store = redis.store().await.with_timeout(timeout);
    let (state, ours) = (id(), answers(3));
    assert_eq!(begin(&store, &state, &ours).await, Begin::Fresh);

    redis.stop();
    for _ in 0..3 {
        let started = Instant::now();
        let refused = store.begin(&id(), &ours, TTL).await;
        assert!(
            matches!(refused, Err(StoreError::Backend(_))),
            "{refused:?}"
        );
        assert!(started.elapsed() < timeout + Duration::from_millis(500));
        let refused = store.finish(&state, &ours, REPLY, TTL).await;
        assert!(
            matches!(refused, Err(StoreError::Backend(_))),
            "{refused:?}"
        );
    }

    // Back on the same port, the same store works again. This server persists nothing,
    // so it comes back empty and a state used before the outage is fresh once more
    // (until it expires): the replay window the README warns of, which a Redis with
    // persistence closes (next test).
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    let recovered = loop {
        match store.begin(&state, &ours, TTL).await {
            Ok(found) => break found,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("no recovery: {error}"),
        }
    };
    assert_eq!(recovered, Begin::Fresh);
    assert_eq!(begin(&store, &state, &ours).await, Begin::Pending);
}

/// What the README recommends for single use across Redis restarts: an append-only file
/// written before each answer. Records come back with their answers, their replies and
/// the expiry their state gave them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_persists_keeps_uses_across_a_restart() {
    let mut redis = TestRedis::own_persistent();
    let store = redis.store().await;
    let (pending, done, ours, theirs) = (id(), id(), answers(4), answers(5));
    assert_eq!(begin(&store, &pending, &ours).await, Begin::Fresh);
    assert_eq!(begin(&store, &done, &ours).await, Begin::Fresh);
    store
        .finish(&done, &ours, REPLY, TTL)
        .await
        .expect("finishes");

    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(15);
    let after_restart = loop {
        match store.begin(&pending, &ours, TTL).await {
            Ok(found) => break found,
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("no recovery: {error}"),
        }
    };
    assert_eq!(
        after_restart,
        Begin::Pending,
        "the use before the restart is kept"
    );
    assert_eq!(
        begin(&store, &done, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
    assert_eq!(begin(&store, &done, &theirs).await, Begin::Conflict);
    let mut raw = redis::Client::open(redis.url())
        .expect("a valid URL")
        .get_multiplexed_async_connection()
        .await
        .expect("connects");
    let key = format!("{}{}", store.prefix(), hex(&done));
    let left: i64 = raw.pttl(&key).await.expect("reads");
    assert!((1..=600_000).contains(&left), "{left} ms left");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
