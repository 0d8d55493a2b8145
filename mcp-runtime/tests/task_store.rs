//! The task stores: the same behaviour in process and in Redis (created, read, replaced by
//! version only, expiring, bounded per owner), then what only Redis does (shared between
//! instances). Redis as in `replay_store.rs`: `REDIS_URL`, or a `redis-server` from PATH.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::state::ManualClock;
use mcp_runtime::tasks::{MemoryTaskStore, Owner, TaskStore, TaskStoreError};

const TTL: Duration = Duration::from_secs(600);

/// How a behaviour lets time pass: the in-process store reads a clock moved by hand; Redis
/// expires keys on its own clock, so its runs sleep, with margins of ten times or more.
enum Time {
    Manual(Arc<ManualClock>),
    #[cfg(feature = "redis")]
    Real,
}

impl Time {
    const SHORT: Duration = Duration::from_secs(2);

    async fn pass(&self, by: Duration) {
        match self {
            Self::Manual(clock) => clock.advance(by),
            #[cfg(feature = "redis")]
            Self::Real => tokio::time::sleep(by).await,
        }
    }
}

/// A random task id, so that runs against a shared Redis never meet.
fn id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system has randomness");
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

async fn created_tasks_are_read_back_with_version_one(store: Arc<dyn TaskStore>, _: &Time) {
    let task = id();
    assert_eq!(store.get(&task).await.expect("answers"), None);
    store
        .create(Owner::Anonymous, &task, b"working\x00\xff", TTL)
        .await
        .expect("creates");
    let found = store.get(&task).await.expect("answers").expect("found");
    assert_eq!(
        (found.version, found.record),
        (1, b"working\x00\xff".to_vec())
    );
    let again = store.create(Owner::Anonymous, &task, b"other", TTL).await;
    assert!(matches!(again, Err(TaskStoreError::Exists)), "{again:?}");
    assert_eq!(
        store.get(&task).await.unwrap().unwrap().record,
        b"working\x00\xff"
    );
}

async fn only_the_version_read_replaces(store: Arc<dyn TaskStore>, _: &Time) {
    let task = id();
    store
        .create(Owner::Anonymous, &task, b"a", TTL)
        .await
        .unwrap();
    assert!(store.replace(&task, 1, b"b").await.unwrap());
    assert!(
        !store.replace(&task, 1, b"c").await.unwrap(),
        "a stale version loses"
    );
    let found = store.get(&task).await.unwrap().unwrap();
    assert_eq!((found.version, found.record), (2, b"b".to_vec()));
    assert!(
        !store.replace(&id(), 1, b"d").await.unwrap(),
        "no task, nothing replaced"
    );
}

async fn concurrent_replaces_of_one_version_let_one_win(store: Arc<dyn TaskStore>, _: &Time) {
    let task = id();
    store
        .create(Owner::Anonymous, &task, b"a", TTL)
        .await
        .unwrap();
    let tries = (0..8).map(|n| {
        let (store, task) = (Arc::clone(&store), task.clone());
        tokio::spawn(async move { store.replace(&task, 1, format!("{n}").as_bytes()).await })
    });
    let mut won = 0;
    for attempt in tries {
        if attempt.await.unwrap().unwrap() {
            won += 1;
        }
    }
    assert_eq!(won, 1);
    assert_eq!(store.get(&task).await.unwrap().unwrap().version, 2);
}

async fn tasks_expire_after_their_ttl(store: Arc<dyn TaskStore>, time: &Time) {
    let task = id();
    store
        .create(Owner::Anonymous, &task, b"a", Time::SHORT)
        .await
        .unwrap();
    assert!(store.replace(&task, 1, b"b").await.unwrap());
    time.pass(Time::SHORT / 10).await;
    assert!(store.get(&task).await.unwrap().is_some());
    time.pass(Time::SHORT * 2).await;
    assert_eq!(
        store.get(&task).await.unwrap(),
        None,
        "a replace did not extend it"
    );
    assert!(!store.replace(&task, 2, b"c").await.unwrap());
}

async fn a_zero_ttl_is_refused(store: Arc<dyn TaskStore>, _: &Time) {
    let made = store
        .create(Owner::Anonymous, &id(), b"a", Duration::ZERO)
        .await;
    assert!(matches!(made, Err(TaskStoreError::Ttl(_))), "{made:?}");
}

/// Each store in these runs lets an owner hold three live tasks.
async fn each_owner_holds_its_quota_and_no_other_notices(store: Arc<dyn TaskStore>, time: &Time) {
    let greedy = format!("greedy-{}", id());
    let other = format!("other-{}", id());
    for _ in 0..3 {
        let made = store
            .create(Owner::Subject(&greedy), &id(), b"a", Time::SHORT)
            .await;
        made.expect("within the quota");
    }
    let over = store
        .create(Owner::Subject(&greedy), &id(), b"a", TTL)
        .await;
    assert!(
        matches!(over, Err(TaskStoreError::OverQuota { quota: 3 })),
        "{over:?}"
    );
    store
        .create(Owner::Subject(&other), &id(), b"a", TTL)
        .await
        .expect("another owner is not affected");
    time.pass(Time::SHORT * 2).await;
    store
        .create(Owner::Subject(&greedy), &id(), b"a", TTL)
        .await
        .expect("expired tasks free the quota");
}

macro_rules! on_both_stores {
    ($($behaviour:ident),* $(,)?) => {
        mod in_memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let clock = Arc::new(super::ManualClock::from_unix_secs(1_800_000_000));
                    let store = super::MemoryTaskStore::new()
                        .with_owner_quota(3)
                        .with_clock(clock.clone());
                    super::$behaviour(Arc::new(store), &super::Time::Manual(clock)).await;
                }
            )*
            use std::sync::Arc;
        }

        #[cfg(feature = "redis")]
        mod in_redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let redis = crate::redis_support::TestRedis::shared_or_own();
                    let store = mcp_runtime::tasks::RedisTaskStore::connect(redis.url())
                        .await
                        .expect("connects")
                        .with_prefix(redis.prefix())
                        .with_owner_quota(3);
                    super::$behaviour(std::sync::Arc::new(store), &super::Time::Real).await;
                }
            )*
        }
    };
}

on_both_stores!(
    created_tasks_are_read_back_with_version_one,
    only_the_version_read_replaces,
    concurrent_replaces_of_one_version_let_one_win,
    tasks_expire_after_their_ttl,
    a_zero_ttl_is_refused,
    each_owner_holds_its_quota_and_no_other_notices,
);

#[tokio::test]
async fn a_full_memory_store_refuses_new_tasks_until_one_expires() {
    let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
    let store = MemoryTaskStore::new()
        .with_capacity(2)
        .with_clock(clock.clone());
    for subject in ["a", "b"] {
        store
            .create(Owner::Subject(subject), &id(), b"x", Time::SHORT)
            .await
            .unwrap();
    }
    let full = store.create(Owner::Subject("c"), &id(), b"x", TTL).await;
    assert!(
        matches!(full, Err(TaskStoreError::Full { capacity: 2 })),
        "{full:?}"
    );
    clock.advance(Time::SHORT);
    store
        .create(Owner::Subject("c"), &id(), b"x", TTL)
        .await
        .expect("room again");
    assert_eq!(store.len(), 1, "the expired tasks were dropped");
}

#[cfg(feature = "redis")]
#[path = "../../tests/tests/support/redis.rs"]
mod redis_support;

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_redis_share_tasks_and_their_versions() {
    use mcp_runtime::tasks::RedisTaskStore;
    let redis = redis_support::TestRedis::shared_or_own();
    let connect = || async {
        RedisTaskStore::connect(redis.url())
            .await
            .expect("connects")
            .with_prefix(redis.prefix())
    };
    let (one, two) = (connect().await, connect().await);
    let task = id();
    one.create(Owner::Anonymous, &task, b"a", TTL)
        .await
        .unwrap();
    assert!(two.replace(&task, 1, b"b").await.unwrap());
    assert!(!one.replace(&task, 1, b"c").await.unwrap());
    let found = one.get(&task).await.unwrap().unwrap();
    assert_eq!((found.version, found.record), (2, b"b".to_vec()));
}
