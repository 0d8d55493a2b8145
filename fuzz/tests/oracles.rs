//! The oracles catch what they are for. A process of its own: the memory oracle counts every
//! allocation of the process, so its tests also take turns with the others here.

use std::sync::{Mutex, MutexGuard, PoisonError};

use mcp_fuzz::{Target, harness};

/// One test of this process at a time: another test's allocations would count towards the
/// peak the memory oracle measures.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn hog(data: &[u8]) {
    let bytes = vec![1u8; 64 * data.len() + (2 << 20)];
    std::hint::black_box(&bytes);
}

fn thrift(data: &[u8]) {
    // Many allocations, never many at once: the peak, not the total, is bounded.
    for _ in 0..1000 {
        std::hint::black_box(vec![1u8; 64 * 1024 + data.len()]);
    }
}

#[test]
fn the_memory_oracle_bounds_the_peak_not_the_total() {
    let _alone = alone();
    let target = |run: fn(&[u8])| Target {
        name: "test",
        run,
        seeds: Vec::new,
        dictionary: &[],
    };
    harness::run(&target(thrift), b"input");
    let hogged = std::panic::catch_unwind(|| harness::run(&target(hog), b"input"));
    let message = *hogged
        .expect_err("an input allocating past its bound is a finding")
        .downcast::<String>()
        .expect("a formatted message");
    assert!(message.contains("over the bound"), "{message}");
}

#[test]
fn an_internal_error_answered_to_a_client_is_a_finding() {
    let _alone = alone();
    let body = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}"#;
    let caught = std::panic::catch_unwind(|| {
        mcp_fuzz::oracle::response(body, Some(&serde_json::json!(1)), &"test")
    });
    assert!(caught.is_err());
    let fine = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}"#;
    mcp_fuzz::oracle::response(fine, Some(&serde_json::json!(1)), &"test");
}
