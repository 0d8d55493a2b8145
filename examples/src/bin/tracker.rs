//! A small issue tracker: application state, tool annotations, forms for what a call leaves
//! out, a confirmed destructive tool, and structured results.
//!
//! ```sh
//! cargo run -p mcp-examples --bin tracker                 # HTTP on 127.0.0.1:3000, endpoint /mcp
//! cargo run -p mcp-examples --bin tracker -- --stdio      # for desktop clients that spawn servers
//! cargo run -p mcp-examples --bin tracker -- --demo       # watch the rounds, no client needed
//! ```

use mcp_examples::tracker;
use mcp_runtime::cli::Demo;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let demo = Demo {
        tool: "create_issue".into(),
        arguments: json!({"labels": ["checkout"]}),
        answers: vec![json!({"details": {"action": "accept", "content": {
            "title": "Checkout times out", "priority": "urgent"
        }}})],
    };
    tracker::register(
        Server::builder()
            .name("tracker")
            .version(env!("CARGO_PKG_VERSION")),
    )
    .run()
    .demo(demo)
    .await
}
