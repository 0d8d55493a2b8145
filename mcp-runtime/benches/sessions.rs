//! Memory per idle legacy session: opens sessions the way the TypeScript and Python clients
//! do (`initialize` with their capabilities, then `notifications/initialized`) through the
//! server's own dispatch, each from an owner of its own, and prints for each client the heap
//! bytes a session keeps while idle, its owner's entry included, counted by an instrumented
//! global allocator. Budget: 1 KiB per idle session.
//!
//! The clients of one SDK declare the same capabilities and `clientInfo`, which their sessions
//! share. The last figure is of clients that each name themselves differently, so that past
//! the first few hundred no session shares its declaration: the most a session costs.

#[path = "support/verdict.rs"]
mod verdict;

use std::alloc::System;

use mcp_runtime::server::{RequestFacts, Server};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

/// A one-question tool, so the session has something to serve.
#[tool]
async fn confirm(cx: Cx) -> ToolResult {
    let answer: Confirm = cx.elicit("Sure?").await?;
    Ok(text(if answer.ok { "yes" } else { "no" }))
}

const SESSIONS: usize = 10_000;
const BUDGET: f64 = 1024.0;

fn initialize(capabilities: &str, name: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{capabilities},"clientInfo":{{"name":"{name}","version":"1.0.0"}}}}}}"#
    )
    .into_bytes()
}

fn main() {
    let mut verdicts = verdict::Verdicts::from_args();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime starts");
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    for (client, capabilities, named_apart) in [
        ("TypeScript SDK", r#"{"elicitation":{"form":{}}}"#, false),
        (
            "Python SDK",
            r#"{"elicitation":{"form":{},"url":{}}}"#,
            false,
        ),
        ("each named apart", r#"{"elicitation":{"form":{}}}"#, true),
    ] {
        let server = Server::builder().tool(confirm).build();
        let shared = initialize(capabilities, "bench");
        let region = Region::new(GLOBAL);
        let mut ids = Vec::with_capacity(SESSIONS);
        runtime.block_on(async {
            for n in 0..SESSIONS {
                // Each session from a client of its own, as sessions are counted per owner.
                let [_, high, middle, low] = u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes();
                let peer = std::net::IpAddr::from([10, high, middle, low]);
                let facts = RequestFacts::http(None, None).with_peer(peer);
                let message = if named_apart {
                    initialize(capabilities, &format!("bench-{n}"))
                } else {
                    shared.clone()
                };
                let outcome = server.handle(&message, facts).finish().await;
                let id = outcome.session_id.expect("a session opens");
                let facts = RequestFacts::http(Some("2025-11-25".into()), None)
                    .with_session_id(Some(id.clone()));
                server.handle(initialized, facts).finish().await;
                ids.push(id);
            }
        });
        let stats = region.change();
        // What the test itself keeps: the ids and their vector.
        let own = ids.capacity() * std::mem::size_of::<String>()
            + ids.iter().map(String::capacity).sum::<usize>();
        let kept = stats.bytes_allocated as isize - stats.bytes_deallocated as isize - own as isize;
        let per_session = kept as f64 / SESSIONS as f64;
        println!(
            "{client:>16}: {per_session:.0} bytes ({:.2} KiB) per idle session ({SESSIONS} \
             sessions, {} open; {} the {BUDGET} bytes budget)",
            per_session / 1024.0,
            server.legacy_sessions(),
            verdicts.judge(client, per_session <= BUDGET)
        );
    }
    verdicts.finish();
}
