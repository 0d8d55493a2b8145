//! A release that runs as a task of the tasks extension (`io.modelcontextprotocol/tasks`):
//! it asks for approval (an ordinary round), builds for a while with progress (the call
//! becomes a task, polled with `tasks/get`), asks whether to publish (the task's
//! `input_required`, answered with `tasks/update`) and finishes.
//!
//! ```sh
//! cargo run -p mcp-examples --bin release                 # HTTP on 127.0.0.1:3000, endpoint /mcp
//! cargo run -p mcp-examples --bin release -- --stdio
//! cargo run -p mcp-examples --bin release -- --demo       # the rounds of a client without tasks
//! ```
//!
//! Tasks are kept in process; behind a load balancer, give every instance the same key ring
//! and a `RedisTaskStore` through `ServerBuilder::tasks`.

use mcp_examples::release;
use mcp_runtime::cli::Demo;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let demo = Demo {
        tool: "release".into(),
        arguments: json!({"version": "1.4.0"}),
        answers: vec![
            json!({"approval": {"action": "accept", "content": {"approve": true}}}),
            json!({"publish": {"action": "accept", "content": {"publish": true}}}),
        ],
    };
    release::register(
        Server::builder()
            .name("release")
            .version(env!("CARGO_PKG_VERSION")),
    )
    .run()
    .demo(demo)
    .await
}
