//! Form benchmarks: parsing and validating a six-field form (budget: under 2 µs), and
//! fetching a form's schema after its first use (budget: no allocation).
//!
//! Run with `cargo bench -p mcp-runtime --bench form`.

#[path = "support/verdict.rs"]
mod verdict;

use std::alloc::System;
use std::hint::black_box;

use mcp_runtime::{ElicitChoice, ElicitForm};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Environment {
    Staging,
    #[choice(title = "Production (live)")]
    Production,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Zone {
    Eu,
    Us,
    Asia,
}

#[derive(Debug, ElicitForm)]
struct Deploy {
    #[form(format = "email", max_length = 100)]
    owner: String,
    #[form(minimum = 1, maximum = 12)]
    replicas: u32,
    #[form(minimum = 0.0, maximum = 1.0)]
    share: f64,
    now: bool,
    environment: Environment,
    #[form(max_items = 3)]
    regions: Option<Vec<Zone>>,
}

fn main() {
    let mut verdicts = verdict::Verdicts::from_args();
    let content = serde_json::json!({
        "owner": "ops@example.com",
        "replicas": 3,
        "share": 0.25,
        "now": true,
        "environment": "production",
        "regions": ["eu", "asia"],
    });
    let content = content.as_object().expect("object").clone();
    let parsed = Deploy::from_content(&content).expect("valid content");
    assert_eq!(parsed.regions.as_ref().map(Vec::len), Some(2));

    let parse = easybench::bench(|| Deploy::from_content(black_box(&content)));
    println!(
        "form parse+validate (6 fields): {:.0} ns/op ({} the 2 µs budget)",
        parse.ns_per_iter,
        verdicts.judge("form parse", parse.ns_per_iter < 2000.0)
    );

    let region = Region::new(GLOBAL);
    for _ in 0..1000 {
        black_box(Deploy::from_content(black_box(&content)).is_ok());
    }
    let parse_allocations = region.change().allocations;
    println!(
        "form parse+validate: {:.1} allocations/op",
        f64::from(u32::try_from(parse_allocations).unwrap_or(u32::MAX)) / 1000.0
    );

    // First use builds the schema; later fetches must not allocate.
    black_box(Deploy::requested_schema());
    let fetch = easybench::bench(|| black_box(Deploy::requested_schema()).properties.len());
    println!(
        "schema fetch after first use: {:.1} ns/op",
        fetch.ns_per_iter
    );
    let region = Region::new(GLOBAL);
    for _ in 0..1000 {
        black_box(Deploy::requested_schema());
    }
    let fetch_allocations = region.change().allocations;
    println!("schema fetch: {fetch_allocations} allocations in 1000 calls");
    assert_eq!(fetch_allocations, 0, "the schema fetch allocated");
    verdicts.finish();
}
