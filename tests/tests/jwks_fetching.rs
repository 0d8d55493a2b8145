//! How the built-in fetcher gets a key set over the network: it follows no redirect, and it
//! stops reading at `MAX_JWKS_BYTES` while the body still arrives, not once it has all of it.
//! Against raw HTTP servers on loopback, through a whole OAuth server: a key set that cannot
//! be fetched leaves the token unchecked, answered `503`.

#[path = "support/oauth.rs"]
mod oauth;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_examples::deploy;
use mcp_runtime::auth::{MAX_JWKS_BYTES, OAuth};
use mcp_runtime::server::Server;
use oauth::{ISSUER, JwksServer, RESOURCE, claims, post, serve};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A server trusting the key set at `jwks_url`. Its fetch timeout is a minute: longer than
/// any exchange of these tests may take, so only the fetcher's own rules end a fetch early.
async fn oauth_server(jwks_url: String) -> SocketAddr {
    let oauth = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url(jwks_url)
        .jwks_timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    serve(
        deploy::register(Server::builder().name("deploy"))
            .oauth(oauth)
            .build(),
    )
    .await
}

/// Reads a request head from `stream`.
async fn read_head(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
}

/// Answers every connection with `answer`, then closes it.
async fn answering(answer: String) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            read_head(&mut stream).await;
            let _ = stream.write_all(answer.as_bytes()).await;
        }
    });
    addr
}

#[tokio::test]
async fn a_redirect_is_not_followed() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    for status in [
        "301 Moved Permanently",
        "302 Found",
        "307 Temporary Redirect",
    ] {
        let redirect = answering(format!(
            "HTTP/1.1 {status}\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            jwks.url()
        ))
        .await;
        let addr = oauth_server(format!("http://{redirect}/jwks.json")).await;
        let token = rsa.sign(&claims("alice", "mcp"));
        let answer = post(addr, Some(&token), "tools/list", json!({})).await;
        assert_eq!(answer.status, 503, "{status}: {answer:?}");
        assert_eq!(jwks.fetches(), 0, "{status}: the redirect was followed");
    }
}

#[tokio::test]
async fn a_key_set_is_read_no_further_than_its_cap() {
    // A `200` whose body never ends: spaces, as fast as the fetcher reads them.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let jwks = listener.local_addr().unwrap();
    let written = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&written);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counted = Arc::clone(&counted);
            tokio::spawn(async move {
                read_head(&mut stream).await;
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                            Connection: close\r\n\r\n{\"keys\":[";
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let spaces = [b' '; 16 * 1024];
                while stream.write_all(&spaces).await.is_ok() {
                    counted.fetch_add(spaces.len(), Ordering::SeqCst);
                }
            });
        }
    });
    let addr = oauth_server(format!("http://{jwks}/jwks.json")).await;
    let token = oauth::rsa().sign(&claims("alice", "mcp"));
    // Answered within the exchange's own timeout (10 s), long before the fetch timeout: the
    // fetcher gave up at the cap.
    let answer = post(addr, Some(&token), "tools/list", json!({})).await;
    assert_eq!(answer.status, 503, "{answer:?}");
    assert!(
        written.load(Ordering::SeqCst) >= MAX_JWKS_BYTES / 2,
        "the fetch ended before the cap: {} bytes written",
        written.load(Ordering::SeqCst)
    );
}
