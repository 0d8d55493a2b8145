//! What a hostile message costs the server: a 4 MiB body of arrays nested 120 deep inside a
//! tool's `arguments`, handled through the server's own dispatch with the default nesting
//! limit and with the limit lifted (as before it existed). Prints the time and the bytes
//! allocated per message, counted by an instrumented global allocator, and their ratios.

use std::alloc::System;
use std::time::Instant;

use mcp_runtime::server::Server;
use mcp_runtime::server::{RequestFacts, ServerBuilder};
use mcp_runtime::{ToolResult, text, tool};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Anything at all.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Anything {
    /// Any JSON value.
    #[allow(dead_code, reason = "only parsing is measured")]
    x: serde_json::Value,
}

/// Takes any argument.
#[tool]
async fn take(args: Anything) -> ToolResult {
    let _ = args;
    Ok(text("taken"))
}

const BODY: usize = 4 * 1024 * 1024;
const DEPTH: usize = 120;

fn hostile() -> Vec<u8> {
    let nest = "[".repeat(DEPTH) + &"]".repeat(DEPTH);
    let head = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"take","arguments":{"x":["#;
    let mut body = head.to_owned();
    while body.len() + nest.len() + 8 < BODY {
        body.push_str(&nest);
        body.push(',');
    }
    body.push_str("0]}}}");
    body.into_bytes()
}

fn measure(
    name: &str,
    builder: ServerBuilder,
    message: &[u8],
    runtime: &tokio::runtime::Runtime,
) -> (f64, f64) {
    let server: Server = builder.tool(take).build();
    let rounds = 5;
    let region = Region::new(GLOBAL);
    let started = Instant::now();
    for _ in 0..rounds {
        let facts = RequestFacts::http(Some("2026-07-28".into()), None);
        let outcome = runtime.block_on(server.handle(message, facts).finish());
        assert!(outcome.body.is_some());
    }
    let seconds = started.elapsed().as_secs_f64() / f64::from(rounds);
    let allocated = region.change().bytes_allocated as f64 / f64::from(rounds);
    println!(
        "{name:>22}: {:8.2} ms, {:8.1} MiB allocated per message ({:.1}x its size)",
        seconds * 1e3,
        allocated / 1048576.0,
        allocated / message.len() as f64
    );
    (seconds, allocated)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime starts");
    let message = hostile();
    println!(
        "a {:.1} MiB message of arrays nested {DEPTH} deep inside `arguments`:",
        message.len() as f64 / 1048576.0
    );
    let (open_time, open_bytes) = measure(
        "without a nesting limit",
        Server::builder().max_json_depth(usize::MAX / 2),
        &message,
        &runtime,
    );
    let (time, bytes) = measure("default limit (32)", Server::builder(), &message, &runtime);
    println!(
        "the limit makes it {:.0}x cheaper in time and {:.0}x in memory",
        open_time / time,
        open_bytes / bytes.max(1.0)
    );
}
