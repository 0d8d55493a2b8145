//! Collect an order item by item, then confirm it through a shared sub-flow.
//!
//! ```sh
//! cargo run -p mcp-examples --bin order -- --demo        # watch the rounds, no client needed
//! cargo run -p mcp-examples --bin order -- --listen 127.0.0.1:3001
//! ```

use mcp_examples::order::order;
use mcp_runtime::cli::Demo;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let item = |product: &str, quantity: u32, more: bool| {
        json!({"item": {"action": "accept", "content": {
            "product": product, "quantity": quantity, "more": more
        }}})
    };
    let demo = Demo {
        tool: "order".into(),
        arguments: json!({}),
        answers: vec![
            item("coffee beans", 2, true),
            item("filter papers", 1, false),
            json!({"placed.answer": {"action": "accept", "content": {"ok": true}}}),
        ],
    };
    Server::builder()
        .name("order")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(order)
        .run()
        .demo(demo)
        .await
}
