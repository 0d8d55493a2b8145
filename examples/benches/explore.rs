//! What exhaustive exploration costs: paths and rounds per second on the `deploy` and `order`
//! examples, each round through the server's own dispatch with its signed states.
//!
//! Run with `cargo bench -p mcp-examples --bench explore`. Each line explores one tool from
//! scratch 9 times and takes the median: `deploy` with the default options, `order` with its
//! loop unrolled 3 times (the default) and 4 times, with a path budget large enough that no
//! branch is left: the figures show what a test that explores pays, and how unrolling a loop
//! once more multiplies it.

use std::time::Instant;

use mcp_examples::deploy::{Deployments, deploy};
use mcp_examples::order::order;
use mcp_runtime::testing::{Explore, FlowTester, Report};
use serde_json::json;

const RUNS: usize = 9;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime starts");
    let deploy = FlowTester::tool(deploy)
        .state(Deployments::default())
        .arguments(json!({"service": "checkout"}));
    let order = FlowTester::tool(order);
    println!(
        "{:<24} {:>6} {:>7} {:>10} {:>10} {:>12}",
        "exploration", "paths", "rounds", "paths/s", "rounds/s", "per run"
    );
    for (name, tester, options) in [
        ("deploy", &deploy, Explore::new()),
        ("order, loop bound 3", &order, Explore::new().loop_bound(3)),
        (
            "order, loop bound 4",
            &order,
            Explore::new().loop_bound(4).max_paths(100_000),
        ),
    ] {
        let mut last: Option<Report> = None;
        let mut seconds: Vec<f64> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                let report = runtime.block_on(tester.explore(&options));
                let elapsed = started.elapsed().as_secs_f64();
                assert!(report.findings().is_empty(), "{report}");
                assert_eq!(report.unexplored(), 0, "the budget cut the walk short");
                last = Some(report);
                elapsed
            })
            .collect();
        seconds.sort_by(f64::total_cmp);
        let median = seconds[RUNS / 2];
        let report = last.expect("the runs ran");
        let paths = report.paths().len();
        let rounds = report.rounds();
        println!(
            "{name:<24} {paths:>6} {rounds:>7} {:>10.0} {:>10.0} {:>9.1} ms",
            paths as f64 / median,
            rounds as f64 / median,
            median * 1e3
        );
    }
}
