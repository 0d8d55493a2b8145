//! The hand-written test handlers served over stdio, for the stdio end-to-end tests.

#[path = "../support/handlers.rs"]
mod handlers;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    handlers::fixture_server().serve_stdio().await
}
