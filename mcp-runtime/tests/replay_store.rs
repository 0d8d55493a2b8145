//! The replay stores: the same behaviour in process and in Redis, then what only the one in
//! process does (a bound, expiry on an injected clock); what only Redis does is
//! `replay_store_redis.rs`.
//!
//! The Redis tests use the server at `REDIS_URL` when it is set, and otherwise start their own
//! `redis-server` from PATH on a free loopback port (and stop it). Without either they fail,
//! naming the command that installs it and runs them: `scripts/test.sh`.

mod support;

#[cfg(feature = "redis")]
#[path = "../../tests/tests/support/redis.rs"]
mod redis_support;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::state::{
    Begin, DEFAULT_OWNER_QUOTA, ManualClock, MemoryReplayStore, Owner, ReplayStore, StoreError,
};
use support::replay::{REPLY, TTL, answers, begin, id};

/// How a behaviour lets time pass: the in-process store reads an injected clock, moved by hand;
/// Redis expires keys on its own clock, so its runs sleep, with margins of ten times or more
/// around every expiry a test relies on.
enum Time {
    Manual(Arc<ManualClock>),
    #[cfg(feature = "redis")]
    Real,
}

impl Time {
    /// The shortest record a behaviour makes: every check before it expires takes a few round
    /// trips to the store, well under a tenth of it.
    const SHORT: Duration = Duration::from_secs(2);

    async fn pass(&self, by: Duration) {
        match self {
            Self::Manual(clock) => clock.advance(by),
            #[cfg(feature = "redis")]
            Self::Real => tokio::time::sleep(by).await,
        }
    }
}

// ---- The same behaviour from both stores.

async fn first_use_then_pending_conflict_and_done(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (state, ours, theirs) = (id(), answers(1), answers(2));
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
    assert_eq!(begin(store, &state, &ours).await, Begin::Pending);
    assert_eq!(begin(store, &state, &theirs).await, Begin::Conflict);
    // The refused use leaves the record as it was.
    assert_eq!(begin(store, &state, &ours).await, Begin::Pending);

    store
        .finish(&state, &ours, REPLY, TTL)
        .await
        .expect("finishes");
    assert_eq!(
        begin(store, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
    assert_eq!(
        begin(store, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
    assert_eq!(begin(store, &state, &theirs).await, Begin::Conflict);

    // A second finish (a retry that was answered `Done` never finishes, but a confused caller
    // might) leaves the first reply in place.
    store
        .finish(&state, &ours, b"other", TTL)
        .await
        .expect("finishes");
    assert_eq!(
        begin(store, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
}

async fn an_empty_reply_is_a_reply(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (state, ours) = (id(), answers(3));
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
    store
        .finish(&state, &ours, b"", TTL)
        .await
        .expect("finishes");
    assert_eq!(begin(store, &state, &ours).await, Begin::Done(Vec::new()));
}

async fn states_are_independent(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (first, second, ours) = (id(), id(), answers(4));
    assert_eq!(begin(store, &first, &ours).await, Begin::Fresh);
    assert_eq!(begin(store, &second, &ours).await, Begin::Fresh);
    store
        .finish(&first, &ours, b"one", TTL)
        .await
        .expect("finishes");
    assert_eq!(
        begin(store, &first, &ours).await,
        Begin::Done(b"one".to_vec())
    );
    assert_eq!(begin(store, &second, &ours).await, Begin::Pending);
}

async fn finishing_what_was_not_begun_stores_nothing(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (state, ours, theirs) = (id(), answers(5), answers(6));
    store
        .finish(&state, &ours, REPLY, TTL)
        .await
        .expect("does nothing");
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
    // Nor does finishing with answers the state was not begun with.
    store
        .finish(&state, &theirs, REPLY, TTL)
        .await
        .expect("does nothing");
    assert_eq!(begin(store, &state, &ours).await, Begin::Pending);
}

async fn records_expire_with_their_states(store: Arc<dyn ReplayStore>, time: &Time) {
    let store = &*store;
    let short = Time::SHORT;
    let (pending, done, late, ours) = (id(), id(), id(), answers(7));
    assert_eq!(
        store.begin(&pending, &ours, short).await.ok(),
        Some(Begin::Fresh)
    );
    assert_eq!(
        store.begin(&done, &ours, short).await.ok(),
        Some(Begin::Fresh)
    );
    // A finish never keeps a record longer than its begin said.
    store
        .finish(&done, &ours, REPLY, TTL)
        .await
        .expect("finishes");
    assert_eq!(
        store.begin(&late, &ours, short).await.ok(),
        Some(Begin::Fresh)
    );
    assert_eq!(
        store.begin(&done, &ours, short).await.ok(),
        Some(Begin::Done(REPLY.to_vec()))
    );

    time.pass(short + Duration::from_secs(1)).await;
    // The finish of a use whose state expired meanwhile stores nothing.
    store
        .finish(&late, &ours, REPLY, TTL)
        .await
        .expect("does nothing");
    for state in [&pending, &done, &late] {
        assert_eq!(
            store.begin(state, &answers(8), short).await.ok(),
            Some(Begin::Fresh),
            "nothing is kept past the state's expiry"
        );
    }
}

async fn a_finish_can_only_shorten_the_record(store: Arc<dyn ReplayStore>, time: &Time) {
    let store = &*store;
    let (state, ours) = (id(), answers(9));
    assert_eq!(
        store.begin(&state, &ours, TTL).await.ok(),
        Some(Begin::Fresh)
    );
    store
        .finish(&state, &ours, REPLY, Time::SHORT)
        .await
        .expect("finishes");
    assert_eq!(
        begin(store, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
    time.pass(Time::SHORT + Duration::from_secs(1)).await;
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
}

async fn a_state_with_no_time_left_is_refused(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (state, ours) = (id(), answers(10));
    let refused = store.begin(&state, &ours, Duration::ZERO).await;
    assert!(matches!(refused, Err(StoreError::Ttl(_))), "{refused:?}");
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
}

async fn concurrent_uses_run_once(store: Arc<dyn ReplayStore>, _: &Time) {
    let (state, ours) = (id(), answers(11));
    let tries: Vec<_> = (0..32)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.begin(&state, &ours, TTL).await.ok() })
        })
        .collect();
    let mut fresh = 0;
    for attempt in tries {
        match attempt.await.expect("the task ends") {
            Some(Begin::Fresh) => fresh += 1,
            Some(Begin::Pending) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(fresh, 1, "exactly one try runs the round");
}

async fn a_released_use_begins_again_with_its_answers_only(store: Arc<dyn ReplayStore>, _: &Time) {
    let store = &*store;
    let (state, ours, theirs) = (id(), answers(12), answers(13));
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
    // Releasing with other answers, or what is not pending, changes nothing.
    store.release(&state, &theirs).await.expect("does nothing");
    store.release(&id(), &ours).await.expect("does nothing");
    assert_eq!(begin(store, &state, &ours).await, Begin::Pending);

    store.release(&state, &ours).await.expect("releases");
    assert_eq!(begin(store, &state, &theirs).await, Begin::Conflict);
    assert_eq!(begin(store, &state, &ours).await, Begin::Fresh);
    // Begun again, it is running again: one retry runs, the next waits.
    assert_eq!(begin(store, &state, &ours).await, Begin::Pending);
    store
        .finish(&state, &ours, REPLY, TTL)
        .await
        .expect("finishes");
    // A finished use is never released.
    store.release(&state, &ours).await.expect("does nothing");
    assert_eq!(
        begin(store, &state, &ours).await,
        Begin::Done(REPLY.to_vec())
    );
}

async fn a_released_use_keeps_its_expiry(store: Arc<dyn ReplayStore>, time: &Time) {
    let store = &*store;
    let short = Time::SHORT;
    let (state, ours) = (id(), answers(14));
    assert_eq!(
        store.begin(&state, &ours, short).await.ok(),
        Some(Begin::Fresh)
    );
    store.release(&state, &ours).await.expect("releases");
    assert_eq!(
        store.begin(&state, &ours, TTL).await.ok(),
        Some(Begin::Fresh)
    );
    time.pass(short + Duration::from_secs(1)).await;
    assert_eq!(
        begin(store, &state, &answers(15)).await,
        Begin::Fresh,
        "neither the release nor the second begin kept the record past the first expiry"
    );
}

async fn each_subject_holds_its_quota_and_no_other_owner_notices(
    store: Arc<dyn ReplayStore>,
    time: &Time,
) {
    let store = &*store;
    // Random subjects, so that runs against a shared Redis never meet.
    let (greedy, other) = (format!("greedy-{:x?}", id()), format!("other-{:x?}", id()));
    let (greedy, other) = (Owner::Subject(&greedy), Owner::Subject(&other));
    let ours = answers(20);
    let short = Time::SHORT;
    let mut held = Vec::new();
    for n in 0..DEFAULT_OWNER_QUOTA {
        let state = id();
        // The last record is the short one: it lives while the quota is checked.
        let ttl = if n + 1 == DEFAULT_OWNER_QUOTA {
            short
        } else {
            TTL
        };
        let begun = store.begin_owned(greedy, &state, &ours, ttl).await;
        assert_eq!(begun.ok(), Some(Begin::Fresh), "record {n}");
        held.push(state);
    }
    let over = store.begin_owned(greedy, &id(), &ours, TTL).await;
    assert!(
        matches!(over, Err(StoreError::OverQuota { quota }) if quota == DEFAULT_OWNER_QUOTA),
        "{over:?}"
    );
    // Records already held are answered whatever the quota.
    let retried = store.begin_owned(greedy, &held[1], &ours, TTL).await;
    assert_eq!(retried.ok(), Some(Begin::Pending));
    // Other owners go on.
    let begun = store.begin_owned(other, &id(), &ours, TTL).await;
    assert_eq!(begun.ok(), Some(Begin::Fresh));
    assert_eq!(begin(store, &id(), &ours).await, Begin::Fresh);
    // A record that expires gives its place back.
    time.pass(short + Duration::from_secs(1)).await;
    let begun = store.begin_owned(greedy, &id(), &ours, TTL).await;
    assert_eq!(begun.ok(), Some(Begin::Fresh));
}

/// Runs each behaviour above on a fresh in-process store (on a clock moved by hand) and on
/// Redis (on its own clock).
macro_rules! on_both_stores {
    ($($behaviour:ident),* $(,)?) => {
        mod in_memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let clock = std::sync::Arc::new(super::ManualClock::from_unix_secs(1_800_000_000));
                    let store = super::MemoryReplayStore::new().with_clock(clock.clone());
                    super::$behaviour(std::sync::Arc::new(store), &super::Time::Manual(clock)).await;
                }
            )*
        }

        #[cfg(feature = "redis")]
        mod in_redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let redis = crate::redis_support::TestRedis::shared_or_own();
                    super::$behaviour(std::sync::Arc::new(redis.store().await), &super::Time::Real)
                        .await;
                }
            )*
        }
    };
}

on_both_stores!(
    first_use_then_pending_conflict_and_done,
    an_empty_reply_is_a_reply,
    states_are_independent,
    finishing_what_was_not_begun_stores_nothing,
    records_expire_with_their_states,
    a_finish_can_only_shorten_the_record,
    a_state_with_no_time_left_is_refused,
    concurrent_uses_run_once,
    a_released_use_begins_again_with_its_answers_only,
    a_released_use_keeps_its_expiry,
    each_subject_holds_its_quota_and_no_other_owner_notices,
);

// ---- In process only: the bound, and expiry on an injected clock.

fn manual_store(capacity: usize) -> (MemoryReplayStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
    let store = MemoryReplayStore::new()
        .with_capacity(capacity)
        .with_clock(clock.clone());
    (store, clock)
}

#[tokio::test]
async fn a_full_memory_store_refuses_new_states_and_forgets_none() {
    let (store, clock) = manual_store(2);
    let ttl = Duration::from_secs(60);
    let (first, second, third, ours) = (id(), id(), id(), answers(1));
    assert_eq!(
        store.begin(&first, &ours, ttl).await.ok(),
        Some(Begin::Fresh)
    );
    clock.advance(Duration::from_secs(30));
    assert_eq!(
        store.begin(&second, &ours, ttl).await.ok(),
        Some(Begin::Fresh)
    );

    let refused = store.begin(&third, &ours, ttl).await;
    assert!(
        matches!(refused, Err(StoreError::Full { capacity: 2 })),
        "{refused:?}"
    );
    assert!(
        refused
            .expect_err("refused")
            .to_string()
            .starts_with("replay store full")
    );
    // The states it holds are still answered, and can finish.
    assert_eq!(
        store.begin(&first, &ours, ttl).await.ok(),
        Some(Begin::Pending)
    );
    store
        .finish(&first, &ours, REPLY, ttl)
        .await
        .expect("finishes");
    assert_eq!(
        store.begin(&first, &ours, ttl).await.ok(),
        Some(Begin::Done(REPLY.to_vec()))
    );

    // Once the first record expires, its place is free; the second is still kept.
    clock.advance(Duration::from_secs(30));
    assert_eq!(
        store.begin(&third, &ours, ttl).await.ok(),
        Some(Begin::Fresh)
    );
    assert_eq!(
        store.begin(&second, &ours, ttl).await.ok(),
        Some(Begin::Pending)
    );
    assert_eq!(store.len(), 2);
}

#[tokio::test]
async fn memory_records_expire_on_the_store_clock() {
    let (store, clock) = manual_store(10);
    let (state, ours) = (id(), answers(2));
    assert_eq!(
        store
            .begin(&state, &ours, Duration::from_secs(10))
            .await
            .ok(),
        Some(Begin::Fresh)
    );
    clock.advance(Duration::from_millis(9_999));
    assert_eq!(begin(&store, &state, &ours).await, Begin::Pending);
    clock.advance(Duration::from_millis(1));
    assert_eq!(begin(&store, &state, &ours).await, Begin::Fresh);
}
