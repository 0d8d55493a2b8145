//! The fuzzed example server keeps step with the examples: every tool an example server
//! serves is fuzzed, its flows driven and its forms parsed by the `forms` target. A process of
//! its own, apart from the memory oracle's.

use mcp_fuzz::servers;
use mcp_runtime::server::{RequestFacts, Server};
use serde_json::{Value, json};

/// The names `server` lists in `tools/list` on the 2026-07-28 wire.
fn tool_names(server: &Server) -> Vec<String> {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }}});
    let facts = RequestFacts::http(Some("2026-07-28".to_owned()), None);
    let handling = server.handle(message.to_string().as_bytes(), facts);
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime")
        .block_on(handling.finish());
    let body: Value = serde_json::from_slice(&outcome.body.expect("an answer")).expect("JSON");
    let tools = body["result"]["tools"].as_array().expect("a tool list");
    assert!(
        body["result"].get("nextCursor").is_none(),
        "one page: {body}"
    );
    tools
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect()
}

#[test]
fn the_fuzzed_examples_serve_every_tool_of_every_example() {
    let builder = || Server::builder().signer(servers::signer());
    let examples = [
        ("deploy", mcp_examples::deploy::register(builder()).build()),
        ("order", builder().tool(mcp_examples::order::order).build()),
        (
            "tracker",
            mcp_examples::tracker::register(builder()).build(),
        ),
        (
            "release",
            mcp_examples::release::register(builder()).build(),
        ),
    ];
    let fuzzed = tool_names(&servers::examples());
    for (example, server) in &examples {
        for name in tool_names(server) {
            assert!(
                fuzzed.contains(&name),
                "the `{example}` example's tool `{name}` is not fuzzed; fuzzed: {fuzzed:?}"
            );
        }
    }
}
