//! What the HTTP transport refuses before it reads a request, through the whole stack over
//! real loopback sockets: `Host`, `Origin` and absolute-form targets parsed strictly, the
//! builder's `allow_host` and `allow_origin` lists, bodies over the limit however they are
//! framed, and bodies nested too deep, refused while they arrive. Memory under many-chunk bodies is measured by `attack chunks`
//! (examples/src/bin/attack.rs), not asserted here.

#[path = "support/client.rs"]
mod client;
#[path = "support/handlers.rs"]
mod handlers;

use client::{discover, post_with, raw_exchange};
use mcp_runtime::server::Server;

// ---------------------------------------------------------------------------------------------
// Bodies over the limit, without a `Content-Length` to refuse them by.

/// The head of a chunked `POST` with no `Content-Length`, closed after the answer.
fn chunked_head(addr: std::net::SocketAddr) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: {}\r\nMcp-Method: server/discover\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        client::VERSION
    )
}

fn limited_server() -> Server {
    Server::builder()
        .tool(handlers::Echo)
        .body_limit(16 * 1024)
        .build()
}

#[tokio::test]
async fn a_body_of_many_one_byte_chunks_is_read_whole_and_held_to_the_limit() {
    let running = client::start(limited_server()).await;
    let addr = running.addr;
    let head = chunked_head(addr);
    let message = discover();
    let mut body = head.clone().into_bytes();
    for _ in 0..10_000 {
        body.extend_from_slice(b"1\r\n \r\n");
    }
    body.extend_from_slice(format!("{:x}\r\n{message}\r\n0\r\n\r\n", message.len()).as_bytes());
    let (status, answer) = raw_exchange(addr, &body).await;
    assert_eq!(status, 200, "{answer}");
    let mut over = head.into_bytes();
    for _ in 0..(17 * 1024) {
        over.extend_from_slice(b"1\r\n \r\n");
    }
    over.extend_from_slice(b"0\r\n\r\n");
    let (status, answer) = raw_exchange(addr, &over).await;
    assert_eq!(status, 413, "{answer}");
}

#[tokio::test]
async fn a_chunk_over_the_limit_is_refused_while_it_arrives() {
    let running = client::start(limited_server()).await;
    let addr = running.addr;
    // A chunk of 1 MiB is announced; 20 KiB of it arrive, and then nothing more. The server
    // answers once the limit is passed, without waiting for a body that never ends.
    let mut request = chunked_head(addr).into_bytes();
    request.extend_from_slice(b"100000\r\n");
    request.extend_from_slice(&[b' '; 20 * 1024]);
    let (status, answer) = raw_exchange(addr, &request).await;
    assert_eq!(status, 413, "{answer}");
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let error: serde_json::Value = serde_json::from_str(body).expect("a JSON-RPC error");
    assert_eq!(error["error"]["code"], -32600, "{answer}");
    // Within the limit, the same framing is served.
    let message = discover();
    let mut request = chunked_head(addr).into_bytes();
    request.extend_from_slice(format!("{:x}\r\n{message}\r\n0\r\n\r\n", message.len()).as_bytes());
    let (status, answer) = raw_exchange(addr, &request).await;
    assert_eq!(status, 200, "{answer}");
}

#[tokio::test]
async fn a_body_nested_too_deep_is_refused_while_it_arrives() {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    // Without the scan, the server would wait for the rest of the body (a minute here) and
    // the read below would give up first.
    let server = Server::builder()
        .tool(handlers::Echo)
        .body_read_timeout(Duration::from_secs(60))
        .build();
    let running = client::start(server).await;
    let addr = running.addr;
    let start = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{},"name":"echo","arguments":{{"text":"#,
        client::meta()
    );
    // The whole body would nest 200 arrays and close them; only two chunks of 20 brackets
    // are ever sent, apart: the first stays within the 36 levels a message may have with the
    // default limit (32 in `arguments`), the second goes past them.
    let declared = start.len() + 400 + 3;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: {}\r\n\
         Content-Length: {declared}\r\nConnection: close\r\n\r\n",
        client::VERSION
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(start.as_bytes()).await.unwrap();
    for _ in 0..2 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        stream.write_all(&[b'['; 20]).await.unwrap();
    }
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    assert!(
        read.is_ok(),
        "no answer while the body is incomplete: {text:?}"
    );
    assert!(text.starts_with("HTTP/1.1 400 "), "{text}");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    let error: serde_json::Value = serde_json::from_str(body).expect("a JSON-RPC error");
    assert_eq!(error["error"]["code"], -32600, "{text}");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("levels deep")),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// `Host`, `Origin` and the request target.

#[tokio::test]
async fn hosts_are_parsed_strictly() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let port = addr.port();
    let cases: &[(&str, u16)] = &[
        // Local names, any port, any case.
        ("localhost", 200),
        (&format!("LocalHost:{port}"), 200),
        ("127.0.0.1:80", 200),
        ("[::1]", 200),
        (&format!("[::1]:{port}"), 200),
        // Foreign names.
        ("evil.example.com", 403),
        ("localhost.evil.com", 403),
        ("127.0.0.2", 403),
        // What a lax split on `:` or `]` took for a local name.
        ("localhost:evil.com", 400),
        ("localhost:80@evil.com", 400),
        ("[::1]evil", 400),
        ("127.0.0.1:99999", 400),
        ("", 400),
        ("local host", 400),
    ];
    for (host, status) in cases {
        let (answer, raw) =
            raw_exchange(addr, &post_with("/mcp", &[format!("Host: {host}")])).await;
        assert_eq!(answer, *status, "Host: {host:?}\n{raw}");
    }
    // No `Host` at all.
    let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &[])).await;
    assert_eq!(answer, 400, "{raw}");
}

#[tokio::test]
async fn a_second_host_or_origin_is_refused() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let host = format!("Host: {addr}");
    let origin = format!("Origin: http://{addr}");
    for (case, headers) in [
        (
            "two hosts",
            vec![host.clone(), "Host: evil.example.com".to_owned()],
        ),
        ("the same host twice", vec![host.clone(), host.clone()]),
        (
            "two origins",
            vec![
                host.clone(),
                origin.clone(),
                "Origin: http://evil.example.com".to_owned(),
            ],
        ),
    ] {
        let (status, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(status, 400, "{case}\n{raw}");
    }
    let (status, raw) = raw_exchange(addr, &post_with("/mcp", &[host, origin])).await;
    assert_eq!(status, 200, "{raw}");
}

#[tokio::test]
async fn an_absolute_form_target_must_name_an_allowed_host_that_agrees_with_host() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let local = addr.to_string();
    let cases = [
        (format!("http://{addr}/mcp"), local.as_str(), 200),
        // A foreign target, whatever `Host` says.
        (
            "http://evil.example.com/mcp".to_owned(),
            "evil.example.com",
            403,
        ),
        ("http://evil.example.com/mcp".to_owned(), &local, 400),
        // Two local names that disagree.
        (format!("http://localhost:{}/mcp", addr.port()), &local, 400),
        (format!("http://user@{addr}/mcp"), &local, 400),
    ];
    for (target, host, status) in cases {
        let (answer, raw) =
            raw_exchange(addr, &post_with(&target, &[format!("Host: {host}")])).await;
        assert_eq!(answer, status, "{target} (Host: {host})\n{raw}");
    }
}

#[tokio::test]
async fn origins_are_parsed_strictly_and_null_is_refused() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let port = addr.port();
    let cases: &[(&str, u16)] = &[
        (&format!("http://localhost:{port}"), 200),
        ("https://127.0.0.1", 200),
        ("http://[::1]:8080", 200),
        ("null", 403),
        ("http://evil.example.com", 403),
        ("http://localhost:evil.com", 403),
        ("http://localhost:80@evil.com", 403),
        ("http://[::1]evil", 403),
        ("http://localhost/path", 403),
        ("ftp://localhost", 403),
        ("localhost", 403),
    ];
    for (origin, status) in cases {
        let headers = [format!("Host: {addr}"), format!("Origin: {origin}")];
        let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(answer, *status, "Origin: {origin}\n{raw}");
    }
}

#[tokio::test]
async fn allow_host_and_allow_origin_allow_exactly_what_they_name() {
    let server = Server::builder()
        .tool(handlers::Echo)
        .allow_host("mcp.example.com")
        .allow_origin("https://app.example.com")
        .allow_origin("null")
        .build();
    let running = client::start(server).await;
    let addr = running.addr;
    let cases: &[(&str, Option<&str>, u16)] = &[
        ("mcp.example.com", None, 200),
        ("MCP.Example.com:8443", None, 200),
        ("evil.mcp.example.com", None, 403),
        ("mcp.example.com:80@evil.com", None, 400),
        ("mcp.example.com", Some("https://app.example.com"), 200),
        ("mcp.example.com", Some("null"), 200),
        ("mcp.example.com", Some("https://app.example.com:8443"), 403),
        ("mcp.example.com", Some("http://app.example.com"), 403),
    ];
    for (host, origin, status) in cases {
        let mut headers = vec![format!("Host: {host}")];
        headers.extend(origin.map(|origin| format!("Origin: {origin}")));
        let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &headers)).await;
        assert_eq!(answer, *status, "Host: {host}, Origin: {origin:?}\n{raw}");
    }
    // Naming allowed hosts does not make `Host` optional.
    let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &[])).await;
    assert_eq!(answer, 400, "no Host\n{raw}");
    let anywhere = Server::builder()
        .tool(handlers::Echo)
        .allow_host("*")
        .build();
    let running = client::start(anywhere).await;
    let addr = running.addr;
    for (host, status) in [
        ("evil.example.com:8080", 200),
        ("localhost:80@evil.com", 400),
    ] {
        let (answer, raw) =
            raw_exchange(addr, &post_with("/mcp", &[format!("Host: {host}")])).await;
        assert_eq!(answer, status, "Host: {host}\n{raw}");
    }
    let (answer, raw) = raw_exchange(addr, &post_with("/mcp", &[])).await;
    assert_eq!(answer, 200, "no Host behind `*`\n{raw}");
}
