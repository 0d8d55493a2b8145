//! Tasks shared by two instances through one Redis (and one key ring): a task created on one
//! instance is polled, answered and completed on either, and a task whose instance died while
//! it was `working` is reported `failed`. Over real sockets, against a real `redis-server`
//! (`REDIS_URL`, or one started from PATH as in the replay tests).

#[path = "support/client.rs"]
mod client;
#[path = "support/redis.rs"]
mod redis_support;
#[path = "support/tasks.rs"]
mod tasks;

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::server::{Server, Tasks, task};
use mcp_runtime::state::{Clock, ManualClock, Signer, SystemClock};
use mcp_runtime::tasks::RedisTaskStore;
use redis_support::TestRedis;
use serde_json::json;
use tasks::{Wire, accept, runs, ship, slow};

async fn instance(redis: &TestRedis, clock: Arc<dyn Clock>) -> Server {
    instance_with(redis, clock, mcp_runtime::server::DEFAULT_LEASE).await
}

async fn instance_with(redis: &TestRedis, clock: Arc<dyn Clock>, lease: Duration) -> Server {
    let store = RedisTaskStore::connect(redis.url())
        .await
        .expect("connects")
        .with_prefix(redis.prefix());
    let signer = Signer::new(4, &[21; 32])
        .expect("a 32-byte key is long enough")
        .with_clock(clock);
    Server::builder()
        .name("shipping")
        .signer(signer)
        .tasks(
            Tasks::new(store)
                .poll_interval(Duration::from_millis(1))
                .lease(lease),
        )
        .tool(task(ship))
        .tool(task(slow))
        .build()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_created_on_one_instance_is_answered_and_completed_on_either() {
    let redis = TestRedis::shared_or_own();
    let a = client::start(instance(&redis, Arc::new(SystemClock)).await).await;
    let b = client::start(instance(&redis, Arc::new(SystemClock)).await).await;
    let (mut on_a, mut on_b) = (Wire::http(a.addr), Wire::http(b.addr));

    let created = on_a.call("ship", "r1").await;
    let id = created["taskId"].as_str().expect("a task").to_owned();
    // Durably created before it was answered: the other instance finds it at once.
    let seen = on_b.get(&id).await;
    assert!(
        matches!(seen["status"].as_str(), Some("working" | "input_required")),
        "{seen}"
    );

    on_b.until(&id, "input_required", Some("1:go")).await;
    on_b.update(&id, json!({"1:go": accept(json!({"ok": true}))}))
        .await;
    on_a.until(&id, "input_required", Some("2:count")).await;
    assert_eq!(runs("r1"), 1);
    on_a.update(&id, json!({"2:count": accept(json!({"n": 2}))}))
        .await;
    let done = on_b.until(&id, "completed", None).await;
    assert_eq!(done["result"]["content"][0]["text"], "Shipped r1 x2.");
    assert_eq!(
        runs("r1"),
        1,
        "the code between the questions ran once, on one instance"
    );
    assert_eq!(on_a.get(&id).await, done, "both instances tell the same");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_instance_died_while_working_is_failed() {
    let redis = Arc::new(TestRedis::shared_or_own());
    let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
    // Instance A runs on a runtime of its own, which the test then shuts down: its rounds
    // stop mid-work, as when a process dies.
    let (addr_sender, addr) = std::sync::mpsc::channel();
    let (stop, stopped) = std::sync::mpsc::channel::<()>();
    let (for_a, clock_a) = (Arc::clone(&redis), Arc::clone(&clock));
    let dying = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let running =
            runtime.block_on(async { client::start(instance(&for_a, clock_a).await).await });
        addr_sender.send(running.addr).expect("the test waits");
        let _ = stopped.recv();
        drop(running);
        runtime.shutdown_background();
    });
    let a = addr.recv().expect("A starts");
    let b = client::start(instance(&redis, clock.clone()).await).await;
    let (mut on_a, mut on_b) = (Wire::http(a), Wire::http(b.addr));

    let id = on_a.call("slow", "dies").await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Once A has written the round's progress, it writes nothing more for ten seconds (a
    // third of the default lease, on the real clock).
    let reported = async {
        while on_b.get(&id).await["statusMessage"] != "working on dies" {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(tasks::WAIT, reported)
        .await
        .expect("A reports");
    clock.advance(Duration::from_secs(15));
    assert_eq!(on_b.get(&id).await["status"], "working", "within A's lease");

    stop.send(()).expect("A runs");
    dying.join().expect("A stops");
    clock.advance(Duration::from_secs(60));
    let failed = on_b.get(&id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(
        failed["error"]["message"],
        "the server instance running this task stopped before it finished"
    );
    assert_eq!(on_b.get(&id).await["status"], "failed", "and stays failed");
}

/// A task cancelled on the instance that does not run it ends at once; the instance running
/// it drops its round at its next lease renewal (every 100 ms here, a third of the lease).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cancelled_on_another_instance_is_dropped_where_it_runs() {
    let redis = TestRedis::shared_or_own();
    let lease = Duration::from_millis(300);
    let a = client::start(instance_with(&redis, Arc::new(SystemClock), lease).await).await;
    let b = client::start(instance_with(&redis, Arc::new(SystemClock), lease).await).await;
    let (mut on_a, mut on_b) = (Wire::http(a.addr), Wire::http(b.addr));
    let id = on_a.call("slow", "far").await["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    on_b.until(&id, "working", None).await;
    assert_eq!(tasks::dropped("far"), 0);
    let ack = on_b.result("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack, tasks::acknowledged());
    assert_eq!(on_a.get(&id).await["status"], "cancelled");
    tasks::until_dropped("far").await;
    assert_eq!(
        on_a.get(&id).await["status"],
        "cancelled",
        "and stays cancelled"
    );
}
