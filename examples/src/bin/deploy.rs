//! The flagship example: "deploy to production?" grown up.
//!
//! ```sh
//! cargo run -p mcp-examples --bin deploy                 # HTTP on 127.0.0.1:3000, endpoint /mcp
//! cargo run -p mcp-examples --bin deploy -- --stdio      # for desktop clients that spawn servers
//! cargo run -p mcp-examples --bin deploy -- --demo       # watch the rounds, no client needed
//! ```

use std::net::SocketAddr;

use clap::Parser;
use mcp_examples::deploy::{confirm_deploy, deploy};
use mcp_runtime::server::{RequestFacts, Server};
use mcp_runtime::state::Signer;
use serde_json::{Value, json};

#[derive(Parser)]
#[command(about = "A multi-round MCP server that deploys a service after asking where and whether")]
struct Cli {
    /// Address to serve Streamable HTTP on (endpoint `/mcp`).
    #[arg(long, default_value = "127.0.0.1:3000")]
    listen: SocketAddr,
    /// Serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP.
    #[arg(long, conflicts_with = "demo")]
    stdio: bool,
    /// Drive the `deploy` tool through its rounds in process and print every message.
    #[arg(long)]
    demo: bool,
}

fn server() -> Server {
    let signer = match std::env::var("MCP_REQUEST_STATE_KEY") {
        Ok(key) => mcp_examples::signer_from_base64(&key),
        Err(_) => Signer::random().map_err(|error| error.to_string()),
    };
    let signer = signer.unwrap_or_else(|error| {
        eprintln!("error: {error}");
        std::process::exit(2);
    });
    Server::builder()
        .name("deploy")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(deploy)
        .tool(confirm_deploy)
        .signer(signer)
        .build()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let server = server();
    if cli.demo {
        demo(&server).await;
        Ok(())
    } else if cli.stdio {
        server.serve_stdio().await
    } else {
        eprintln!("deploy: serving MCP at http://{}/mcp", cli.listen);
        server.serve_http(cli.listen).await
    }
}

/// One call of `deploy`, retried round by round with the answers a user would give.
async fn demo(server: &Server) {
    let answers = [
        json!({"target": {"action": "accept", "content": {
            "environment": "production", "replicas": 3, "reason": "release 1.4"
        }}}),
        json!({"confirm": {"action": "accept", "content": {"ok": true}}}),
    ];
    let mut state: Option<String> = None;
    for (id, answer) in std::iter::once(None)
        .chain(answers.into_iter().map(Some))
        .enumerate()
    {
        let mut params = json!({
            "name": "deploy",
            "arguments": {"service": "checkout"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
            }
        });
        if let Some(answer) = answer {
            params["inputResponses"] = answer;
        }
        if let Some(state) = &state {
            params["requestState"] = Value::from(state.clone());
        }
        let request =
            json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call", "params": params});
        println!("── client → server, round {} ──", id + 1);
        println!("{}", pretty(&request));
        let bytes = serde_json::to_vec(&request).unwrap_or_default();
        let outcome = server.handle(&bytes, RequestFacts::stdio()).finish().await;
        let response: Value = outcome
            .body
            .as_deref()
            .and_then(|body| serde_json::from_slice(body).ok())
            .unwrap_or(Value::Null);
        println!("── server → client ──");
        println!(
            "{}",
            pretty_bytes(outcome.body.as_deref().unwrap_or_default())
        );
        state = response
            .pointer("/result/requestState")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(state) = &state {
            println!(
                "(requestState: {} bytes, signed, bound to this call)",
                state.len()
            );
        }
        if state.is_none() {
            break;
        }
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The server's bytes, indented but in their own member order (a `Value` would sort keys).
fn pretty_bytes(bytes: &[u8]) -> String {
    let mut out = Vec::new();
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let mut writer = serde_json::Serializer::pretty(&mut out);
    match serde_transcode::transcode(&mut reader, &mut writer) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
