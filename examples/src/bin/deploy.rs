//! The flagship example: "deploy to production?" grown up.
//!
//! ```sh
//! cargo run -p mcp-examples --bin deploy                 # HTTP on 127.0.0.1:3000, endpoint /mcp
//! cargo run -p mcp-examples --bin deploy -- --stdio      # for desktop clients that spawn servers
//! cargo run -p mcp-examples --bin deploy -- --demo       # watch the rounds, no client needed
//! ```

use mcp_examples::cli::{self, Demo};
use mcp_examples::deploy;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = cli::parse();
    let server = deploy::register(
        Server::builder()
            .name("deploy")
            .version(env!("CARGO_PKG_VERSION")),
    );
    let server = cli.states.apply(server, cli::signer()).await.build();
    let demo = Demo {
        tool: "deploy",
        arguments: json!({"service": "checkout"}),
        answers: vec![
            json!({"target": {"action": "accept", "content": {
                "environment": "production", "replicas": 3, "reason": "release 1.4"
            }}}),
            json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
        ],
    };
    cli::run("deploy", cli, server, demo).await
}
