//! What a live registry and its listen streams cost: a change (a tool disabled, then enabled
//! again) on a server of 1,000 tools cut into pages of 50, which re-cuts and re-serialises
//! every list; `tools/list` pages served from the cut; and one announcement fanned out to 128
//! listen streams, each tagged with its subscription id, through the server's own dispatch.
//! Prints figures; no budget.

use std::time::Instant;

use mcp_runtime::protocol::{CallToolResult, Tool};
use mcp_runtime::server::{BoxFuture, HandlerResult, Request, RequestFacts, Server, ToolHandler};

/// A tool with a name of its own and nothing to do.
struct Named(String);

impl ToolHandler for Named {
    fn definition(&self) -> Tool {
        Tool {
            name: self.0.clone(),
            description: Some(format!("The tool numbered {}.", self.0)),
            ..Tool::default()
        }
    }

    fn call(&self, _request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        Box::pin(async {
            Err(mcp_runtime::protocol::ErrorObject::new(
                mcp_runtime::protocol::ErrorCode::INTERNAL_ERROR,
                "unused",
            ))
        })
    }
}

const TOOLS: usize = 1_000;
const PAGE: usize = 50;
const CHANGES: usize = 200;
const LISTS: usize = 2_000;
const LISTENERS: usize = 128;
const ANNOUNCEMENTS: usize = 200;

fn meta() -> &'static str {
    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime starts");
    let mut builder = Server::builder().page_size(PAGE);
    for n in 0..TOOLS {
        builder = builder.tool(Named(format!("tool_{n:04}")));
    }
    let server = builder.build();
    let registry = server.registry();

    let started = Instant::now();
    for _ in 0..CHANGES / 2 {
        assert!(registry.disable_tool("tool_0500"));
        assert!(registry.enable_tool("tool_0500"));
    }
    let per_change = started.elapsed() / CHANGES as u32;
    println!(
        "registry change, {TOOLS} tools in pages of {PAGE}: {:.1} µs each",
        per_change.as_secs_f64() * 1e6
    );

    let list = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{}}}}}"#,
        meta()
    );
    let started = Instant::now();
    let mut bytes = 0;
    runtime.block_on(async {
        for _ in 0..LISTS {
            let outcome = server
                .handle(list.as_bytes(), RequestFacts::stdio())
                .finish()
                .await;
            bytes = outcome.body.expect("a page").len();
        }
    });
    let per_list = started.elapsed() / LISTS as u32;
    println!(
        "tools/list page of {PAGE} ({bytes} bytes): {:.1} µs each",
        per_list.as_secs_f64() * 1e6
    );

    let listen = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{{"_meta":{},"notifications":{{"toolsListChanged":true}}}}}}"#,
        meta()
    );
    let mut streams = Vec::with_capacity(LISTENERS);
    for n in 0..LISTENERS {
        // Each stream from a client of its own, as streams are capped per owner.
        let peer = std::net::IpAddr::from([10, 0, 0, u8::try_from(n).unwrap_or(u8::MAX)]);
        let facts = RequestFacts::http(Some("2026-07-28".to_owned()), None).with_peer(peer);
        let mut handling = server.handle(listen.as_bytes(), facts);
        let mut messages = handling.messages.take().expect("a stream");
        assert!(messages.try_recv().is_some(), "acknowledged first");
        streams.push((handling, messages));
    }
    let started = Instant::now();
    let mut received = 0;
    for _ in 0..ANNOUNCEMENTS {
        server.notify_tools_list_changed();
        for (_, messages) in &mut streams {
            while messages.try_recv().is_some() {
                received += 1;
            }
        }
    }
    assert_eq!(received, ANNOUNCEMENTS * LISTENERS);
    let per_announcement = started.elapsed() / ANNOUNCEMENTS as u32;
    println!(
        "one announcement to {LISTENERS} listen streams, read: {:.1} µs ({:.2} µs per stream)",
        per_announcement.as_secs_f64() * 1e6,
        per_announcement.as_secs_f64() * 1e6 / LISTENERS as f64
    );
    drop(streams);
    assert_eq!(server.listen_streams(), 0, "every stream unregistered");
}
