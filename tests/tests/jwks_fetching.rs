//! How the built-in fetcher gets a key set over the network: it follows no redirect, and it
//! stops reading at `MAX_JWKS_BYTES` while the body still arrives, not once it has all of it;
//! an unknown `kid` fetches again at a bounded rate; over HTTPS it trusts the roots it is
//! given. Against raw HTTP(S) servers on loopback, through a whole OAuth server: a key set
//! that cannot be fetched leaves the token unchecked, answered `503`.

#[path = "support/log_buffer.rs"]
mod log_buffer;
#[path = "support/oauth.rs"]
mod oauth;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use log_buffer::LogBuffer;
use mcp_examples::deploy;
use mcp_runtime::auth::{HttpsFetcher, MAX_JWKS_BYTES, OAuth};
use mcp_runtime::server::Server;
use oauth::{
    ISSUER, JwksServer, RESOURCE, TestCa, assert_invalid_token, assert_unavailable, builder,
    claims, config, post, said, serve, whoami_with,
};
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

#[tokio::test]
async fn an_unknown_kid_is_fetched_again_at_a_bounded_rate_and_found_after_a_rotation() {
    let (old, new) = (oauth::rsa(), oauth::rotated());
    let jwks = JwksServer::start(vec![old.jwk()]).await;
    // The key set's clock is the system's: the seven requests below must all fall within
    // the interval, and take a few milliseconds each, well under a tenth of it.
    let interval = Duration::from_secs(3);
    let oauth = config(&jwks).jwks_min_refresh_interval(interval);
    let addr = serve(builder(oauth.build().unwrap()).build()).await;
    let token = new.sign(&claims("alice", "mcp"));
    assert_eq!(
        whoami_with(addr, &old.sign(&claims("alice", "mcp")))
            .await
            .status,
        200
    );
    assert_eq!(jwks.fetches(), 1);
    // Unknown, and the last fetch is too recent to fetch again: refused without a fetch,
    // however often it is tried.
    for _ in 0..5 {
        assert_invalid_token(&whoami_with(addr, &token).await, "unknown kid");
    }
    assert_eq!(jwks.fetches(), 1);
    jwks.rotate(vec![old.jwk(), new.jwk()]);
    assert_invalid_token(&whoami_with(addr, &token).await, "rotated, not yet fetched");
    assert_eq!(jwks.fetches(), 1);
    tokio::time::sleep(interval).await;
    // Past the interval, the unknown kid fetches the rotated set and is found.
    assert_eq!(whoami_with(addr, &token).await.status, 200);
    assert_eq!(jwks.fetches(), 2);
    // Both keys now verify, from the cache.
    assert_eq!(
        whoami_with(addr, &old.sign(&claims("bob", "mcp")))
            .await
            .status,
        200
    );
    assert_eq!(jwks.fetches(), 2);
}

/// Captures what is logged on this thread (a `tokio::test` runs the server's tasks on it) until
/// the guard drops.
fn capture_log() -> (LogBuffer, tracing::subscriber::DefaultGuard) {
    let log = LogBuffer::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    (log, tracing::subscriber::set_default(subscriber))
}

#[tokio::test]
async fn a_key_set_served_over_https_verifies_tokens_when_its_ca_is_trusted() {
    let ca = TestCa::new("mcp-tests CA");
    let rsa = oauth::rsa();
    let jwks = JwksServer::start_tls(vec![rsa.jwk()], &ca).await;
    assert!(
        jwks.url().starts_with("https://127.0.0.1:"),
        "{}",
        jwks.url()
    );
    let fetcher = HttpsFetcher::new()
        .with_root_certificates_pem(ca.pem().as_bytes())
        .unwrap();
    let oauth = config(&jwks).jwks_fetcher(fetcher).build().unwrap();
    let addr = serve(builder(oauth).build()).await;
    let answer = whoami_with(addr, &rsa.sign(&claims("alice", "mcp"))).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        said(&answer),
        "subject=alice token-subject=alice email=alice@example.com scopes=mcp"
    );
    let again = whoami_with(addr, &rsa.sign(&claims("bob", "mcp"))).await;
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn a_key_set_server_whose_certificate_no_trusted_root_signs_is_refused() {
    let (ca, other) = (TestCa::new("mcp-tests CA"), TestCa::new("another CA"));
    let rsa = oauth::rsa();
    let jwks = JwksServer::start_tls(vec![rsa.jwk()], &ca).await;
    let (log, _capturing) = capture_log();
    let trusting_other = HttpsFetcher::new()
        .with_root_certificates([other.der()])
        .unwrap();
    // `jwks_url` alone: the built-in fetcher, trusting Mozilla's roots only.
    let cases = [
        ("Mozilla's roots", config(&jwks)),
        ("another CA", config(&jwks).jwks_fetcher(trusting_other)),
    ];
    for (case, settings) in cases {
        let addr = serve(builder(settings.build().unwrap()).build()).await;
        let answer = whoami_with(addr, &rsa.sign(&claims("alice", "mcp"))).await;
        assert_unavailable(&answer, case);
    }
    // Each server tried once, learned no key, and so could not check the token.
    assert_eq!(jwks.fetches(), 2);
    let log = log.text();
    let refusals = log
        .lines()
        .filter(|line| line.contains("cannot fetch the JWK set"))
        .filter(|line| line.contains("invalid peer certificate: UnknownIssuer"))
        .count();
    assert_eq!(refusals, 2, "{log}");
}

#[tokio::test]
async fn a_key_set_not_fetched_yet_is_a_temporary_failure_not_a_refused_token() {
    let rsa = oauth::rsa();
    // A port that takes connections and answers nothing until the key set is served on it.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    let oauth = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url(url)
        // The retry's fetch must answer within the timeout: ten times what one over loopback
        // takes on a busy machine. The interval leaves under a second after the first
        // fetch's timeout, so `Retry-After` is 1.
        .jwks_timeout(Duration::from_secs(2))
        .jwks_min_refresh_interval(Duration::from_secs(3))
        .required_scopes(["mcp"])
        .build()
        .unwrap();
    let token = rsa.sign(&claims("alice", "mcp"));
    // A transport of the application's own is told the same through `TokenError`.
    let unchecked = oauth.verify(&token).await.unwrap_err();
    assert!(unchecked.retry_after().is_some(), "{unchecked}");
    let addr = serve(builder(oauth).build()).await;
    let answer = whoami_with(addr, &token).await;
    let seconds = assert_unavailable(&answer, "no answer");
    assert_eq!(
        seconds, 1,
        "what is left of 3 s after 2 s, rounded up: {answer:?}"
    );
    // A retry after `Retry-After`, once the key set server answers, passes with the same
    // token.
    let _jwks = JwksServer::start_on(listener, vec![rsa.jwk()]).await;
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let retried = whoami_with(addr, &token).await;
    assert_eq!(retried.status, 200, "{retried:?}");
}
