//! The `deploy` example's server: its tools and their registry, under a fixed key.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use mcp_examples::deploy;
use mcp_runtime::server::Server;
use mcp_runtime::state::Signer;

/// The server the `deploy` example builds, signing with a key made of `secret`.
pub(crate) fn server(secret: u8) -> Server {
    deploy::register(Server::builder().name("deploy").version("0.0.0"))
        .signer(Signer::new(1, &[secret; 32]).expect("a 32-byte key is long enough"))
        .build()
}

/// The same server as an OAuth resource server (static keys, never used over stdio) whose
/// `deploy` tool needs the `deploy:write` scope.
pub(crate) fn oauth_server(secret: u8) -> Server {
    const JWKS: &str = r#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k",
        "x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
        "y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]}"#;
    let oauth = mcp_runtime::auth::OAuth::builder("https://mcp.test/mcp")
        .issuer("https://auth.test")
        .jwks(JWKS)
        .build()
        .expect("the OAuth configuration is valid");
    deploy::register(Server::builder().name("deploy").version("0.0.0"))
        .signer(Signer::new(1, &[secret; 32]).expect("a 32-byte key is long enough"))
        .oauth(oauth)
        .tool_scopes("deploy", ["deploy:write"])
        .build()
}
