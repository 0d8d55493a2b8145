//! The flagship example: "deploy to production?" grown up.
//!
//! ```sh
//! cargo run -p mcp-examples --bin deploy                 # HTTP on 127.0.0.1:3000, endpoint /mcp
//! cargo run -p mcp-examples --bin deploy -- --stdio      # for desktop clients that spawn servers
//! cargo run -p mcp-examples --bin deploy -- --demo       # watch the rounds, no client needed
//! cargo run -p mcp-examples --bin deploy -- \
//!     --oauth-issuer http://127.0.0.1:9000 --oauth-audience http://127.0.0.1:3000/mcp
//! ```
//!
//! With `--oauth-issuer`, every HTTP request needs a bearer token from that issuer for the
//! audience given, and `deploy` needs the `deploy:write` scope (`dev-issuer` mints such
//! tokens for trying it out). `--help` lists every flag ([`mcp_runtime::cli`]).

use mcp_examples::deploy;
use mcp_runtime::cli::Demo;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let demo = Demo {
        tool: "deploy".into(),
        arguments: json!({"service": "checkout"}),
        answers: vec![
            json!({"target": {"action": "accept", "content": {
                "environment": "production", "replicas": 3, "reason": "release 1.4"
            }}}),
            json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
        ],
    };
    deploy::register(
        Server::builder()
            .name("deploy")
            .version(env!("CARGO_PKG_VERSION")),
    )
    .run()
    .tool_scopes("deploy", ["deploy:write"])
    .demo(demo)
    .await
}
