//! What single use costs a round: `begin` + `finish` on each replay store, and a retry's `begin`
//! answered from a finished record.
//!
//! Run with `cargo bench -p mcp-runtime --bench replay`. The Redis figures use the server at
//! `REDIS_URL`, or start a `redis-server` from PATH on a free loopback port (and stop it); without
//! either they are skipped with a note (`scripts/redis.sh install` provides one). Each series is
//! measured several times, interleaved, and the fastest run is kept.

use std::hint::black_box;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::state::{Begin, MemoryReplayStore, RedisReplayStore, ReplayStore};
use tokio::runtime::Runtime;

#[path = "../../tests/tests/support/redis.rs"]
mod redis_support;

const TTL: Duration = Duration::from_secs(600);
const ROUNDS: usize = 5;
/// A small tool result, as the reply a finished round stores.
const REPLY: &[u8] = br#"{"content":[{"type":"text","text":"Deployed 3 replicas."}]}"#;

/// Distinct state ids, never repeated within one run.
struct Ids(u128);

impl Ids {
    fn next(&mut self) -> [u8; 16] {
        self.0 += 1;
        self.0.to_be_bytes()
    }
}

/// One round of a flow as the dispatch runs it: `begin` on a new state, then `finish`.
async fn round(store: &dyn ReplayStore, id: &[u8; 16]) {
    let answers = [7; 32];
    let found = store.begin(id, &answers, TTL).await.expect("begins");
    assert_eq!(found, Begin::Fresh);
    store
        .finish(id, &answers, black_box(REPLY), TTL)
        .await
        .expect("finishes");
}

/// Microseconds per round of `count` rounds run one after another.
fn sequential(rt: &Runtime, store: &dyn ReplayStore, ids: &mut Ids, count: usize) -> f64 {
    rt.block_on(async {
        let started = Instant::now();
        for _ in 0..count {
            round(store, &ids.next()).await;
        }
        started.elapsed().as_secs_f64() * 1e6 / count as f64
    })
}

/// Microseconds per round, amortised, of `count` rounds run by `tasks` concurrent tasks.
fn concurrent(
    rt: &Runtime,
    store: &Arc<dyn ReplayStore>,
    ids: &mut Ids,
    tasks: usize,
    count: usize,
) -> f64 {
    let per_task = count / tasks;
    let batches: Vec<Vec<[u8; 16]>> = (0..tasks)
        .map(|_| (0..per_task).map(|_| ids.next()).collect())
        .collect();
    rt.block_on(async {
        let started = Instant::now();
        let handles: Vec<_> = batches
            .into_iter()
            .map(|batch| {
                let store = store.clone();
                tokio::spawn(async move {
                    for id in &batch {
                        round(&*store, id).await;
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.await.expect("the task ends");
        }
        started.elapsed().as_secs_f64() * 1e6 / (per_task * tasks) as f64
    })
}

/// Microseconds per retry answered `Done` from a finished record.
fn retry(rt: &Runtime, store: &dyn ReplayStore, ids: &mut Ids, count: usize) -> f64 {
    let id = ids.next();
    rt.block_on(async {
        round(store, &id).await;
        let started = Instant::now();
        for _ in 0..count {
            let found = store.begin(&id, &[7; 32], TTL).await.expect("begins");
            assert!(matches!(found, Begin::Done(_)));
        }
        started.elapsed().as_secs_f64() * 1e6 / count as f64
    })
}

fn report(name: &str, best_us: f64) {
    println!("{name:<52} {best_us:>8.2} µs/round");
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let mut ids = Ids(0);
    println!("reply: {} bytes; fastest of {ROUNDS} runs", REPLY.len());

    // In process: each run on a store of its own, large enough to hold every round.
    const MEMORY_ROUNDS: usize = 100_000;
    let (mut alone, mut together, mut retried) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..ROUNDS {
        let store = MemoryReplayStore::new().with_capacity(2 * MEMORY_ROUNDS + 1);
        alone = alone.min(sequential(&rt, &store, &mut ids, MEMORY_ROUNDS));
        retried = retried.min(retry(&rt, &store, &mut ids, MEMORY_ROUNDS));
        let store: Arc<dyn ReplayStore> =
            Arc::new(MemoryReplayStore::new().with_capacity(MEMORY_ROUNDS + 64));
        together = together.min(concurrent(&rt, &store, &mut ids, 8, MEMORY_ROUNDS));
    }
    println!();
    report("memory: begin + finish, one after another", alone);
    report("memory: begin + finish, 8 tasks (amortised)", together);
    report("memory: retry answered from the record", retried);

    let Some(redis) = redis() else {
        println!();
        println!(
            "redis: skipped; no REDIS_URL and no `redis-server` on PATH (run `scripts/redis.sh install`)"
        );
        return;
    };
    let store = rt
        .block_on(RedisReplayStore::connect(redis.url()))
        .expect("connects")
        .with_prefix(redis.prefix());
    const REDIS_ROUNDS: usize = 5_000;
    let store: Arc<dyn ReplayStore> = Arc::new(store);
    let (mut alone, mut together, mut retried) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..ROUNDS {
        alone = alone.min(sequential(&rt, &*store, &mut ids, REDIS_ROUNDS));
        retried = retried.min(retry(&rt, &*store, &mut ids, REDIS_ROUNDS));
        together = together.min(concurrent(&rt, &store, &mut ids, 64, 4 * REDIS_ROUNDS));
    }
    println!();
    println!("redis at {} (two round trips per round)", redis.url());
    report("redis: begin + finish, one after another", alone);
    report("redis: begin + finish, 64 tasks (amortised)", together);
    report("redis: retry answered from the record", retried);
}

/// The Redis the tests use (at `REDIS_URL`, or one of our own stopped on drop); `None` when
/// there is neither, so the memory figures still print.
fn redis() -> Option<redis_support::TestRedis> {
    let shared = std::env::var("REDIS_URL").is_ok_and(|url| !url.is_empty());
    let installed = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    (shared || installed).then(redis_support::TestRedis::shared_or_own)
}
