//! A server over stdio for the stdio end-to-end tests: the hand-written test handlers, or with
//! `--deploy` the `deploy` example's tools (`--deploy-oauth`: with an OAuth configuration and
//! `deploy` needing the `deploy:write` scope, which stdio has no token to grant), or with
//! `--tracker` the `tracker` example.

#[path = "../support/deploy.rs"]
mod deploy;
#[path = "../support/handlers.rs"]
mod handlers;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = match std::env::args().nth(1).as_deref() {
        Some("--deploy") => deploy::server(7),
        Some("--deploy-oauth") => deploy::oauth_server(7),
        Some("--tracker") => {
            mcp_examples::tracker::register(mcp_runtime::server::Server::builder().name("tracker"))
                .build()
        }
        _ => handlers::fixture_server(),
    };
    server.serve_stdio().await
}
