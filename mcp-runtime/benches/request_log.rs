//! What the request log costs: one round of a flow (`tools/call`, answered `input_required`
//! with a signed state) dispatched in process, in a process logging as
//! [`init_logging`](mcp_runtime::cli::init_logging) sets it up, with `RUST_LOG=warn` (no
//! request lines) and with the default `info` (a line per request), human and JSON.
//!
//! Run with `cargo bench -p mcp-runtime --bench request_log`. Each setting runs in a child
//! process of its own (a subscriber is installed once per process) whose stderr is a file, as a
//! server's log usually is. The figure is the process's CPU time per request, the log's writer
//! thread included, the least of 5 blocks: the machine is shared, and the minimum is the figure
//! least disturbed by other work. It prints each setting and the log's share of a request, and
//! the heap allocations of one request (the log's writer thread included), counted by an
//! instrumented global allocator. Budget (issue 34): the log costs at most 10% of a request.

#[path = "support/verdict.rs"]
mod verdict;

use std::alloc::System;
use std::process::{Command, Stdio};
use std::time::Duration;

use mcp_runtime::cli::{LogFormat, init_logging};
use mcp_runtime::server::{RequestFacts, Server};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::json;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const BUDGET: f64 = 0.10;
const BLOCKS: usize = 5;
const PER_BLOCK: usize = 100_000;
/// Requests whose allocations are counted.
const COUNTED: usize = 10_000;
/// Set in a child: the log format it runs with.
const CHILD: &str = "MCP_REQUEST_LOG_BENCH_CHILD";

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[tool]
async fn confirm_deploy(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Ship it?").await?;
    Ok(text(if confirm.ok { "Shipped." } else { "Kept." }))
}

fn main() {
    if let Ok(format) = std::env::var(CHILD) {
        child(&format);
        return;
    }
    let mut verdicts = verdict::Verdicts::from_args();
    let settings = [
        ("RUST_LOG=warn (no request lines)", "warn", "human"),
        ("default: info, human", "info", "human"),
        ("default: info, --log-format json", "info", "json"),
    ];
    let mut figures = Vec::new();
    for (name, filter, format) in settings {
        let (micros, allocations) = measure(filter, format);
        println!("{name:<36} {micros:>7.2} µs of CPU per request, {allocations:>5.1} allocations");
        figures.push(micros);
    }
    for (name, with_log) in [("human", figures[1]), ("JSON", figures[2])] {
        let share = (with_log - figures[0]) / with_log;
        println!(
            "the {name} request log's share of a request: {:.0}% (budget {:.0}%): {}",
            share * 100.0,
            BUDGET * 100.0,
            verdicts.judge(name, share <= BUDGET)
        );
    }
    verdicts.finish();
}

/// Runs this benchmark as a child with `RUST_LOG=filter` in `format`, its stderr a file;
/// returns its figures: µs of CPU and allocations per request.
fn measure(filter: &str, format: &str) -> (f64, f64) {
    let log = std::env::temp_dir().join(format!("mcp-request-log-{}.log", std::process::id()));
    let file = std::fs::File::create(&log).expect("a log file");
    let output = Command::new(std::env::current_exe().expect("this benchmark's path"))
        .env(CHILD, format)
        .env("RUST_LOG", filter)
        .stderr(Stdio::from(file))
        .output()
        .expect("the child runs");
    let _ = std::fs::remove_file(&log);
    assert!(output.status.success(), "the child failed: {output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut figures = stdout
        .split_whitespace()
        .map(|figure| figure.parse().expect("the child prints its figures"));
    let micros = figures.next().expect("µs per request");
    let allocations = figures.next().expect("allocations per request");
    (micros, allocations)
}

/// In a child: logs as a server does, dispatches the rounds, prints µs of CPU and allocations
/// per request.
fn child(format: &str) {
    let format = if format == "json" {
        LogFormat::Json
    } else {
        LogFormat::Human
    };
    let _log = init_logging(format);
    let server = Server::builder()
        .name("bench")
        .version("1")
        .tool(confirm_deploy)
        .build();
    let message = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "confirm_deploy", "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        },
    }))
    .expect("a message");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let round = || async {
        let outcome = server
            .handle(&message, RequestFacts::stdio())
            .finish()
            .await;
        assert_eq!(outcome.status, 200);
    };
    runtime.block_on(async {
        for _ in 0..PER_BLOCK / 10 {
            round().await;
        }
    });
    let best = (0..BLOCKS)
        .map(|_| {
            let start = process_cpu();
            runtime.block_on(async {
                for _ in 0..PER_BLOCK {
                    round().await;
                }
            });
            // The writer thread writes within 50 ms; its share is counted with the block's.
            std::thread::sleep(Duration::from_millis(60));
            process_cpu() - start
        })
        .min()
        .expect("blocks");
    // The writer thread's allocations of the counted requests are counted too, once it has run.
    let region = Region::new(GLOBAL);
    runtime.block_on(async {
        for _ in 0..COUNTED {
            round().await;
        }
    });
    std::thread::sleep(Duration::from_millis(60));
    let allocations = region.change().allocations;
    #[allow(clippy::cast_precision_loss, reason = "printed figures")]
    let (micros, allocations) = (
        best.as_secs_f64() * 1e6 / PER_BLOCK as f64,
        allocations as f64 / COUNTED as f64,
    );
    println!("{micros:.3} {allocations:.2}");
}

/// The CPU time this process has used, every thread (`/proc/self/stat`, in clock ticks of
/// 10 ms: a block runs for about a second).
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux /proc");
    // The fields after the command's closing parenthesis; utime and stime are the 12th and
    // 13th of them.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let ticks: u64 = after
        .split(' ')
        .skip(11)
        .take(2)
        .map(|field| field.parse::<u64>().expect("a tick count"))
        .sum();
    Duration::from_millis(ticks * 10)
}
