//! Target 4: HTTP/1.1 framing against the real service on a loopback socket.
//!
//! The conformance server listens on `127.0.0.1` (`Server::serve_listener`, on a runtime of
//! its own thread). Each input is written as raw bytes on a fresh connection, with `@HOST`
//! replaced by the server's address (its `Host` guard refuses other hosts), and the answer is
//! read while it comes; once the server is quiet for 20 ms the connection is half-closed,
//! and read until the server closes it, an event stream starts, or two seconds have passed.
//! Then an honest `tools/list` on a new connection must be answered.
//!
//! Oracles: every answer parses as an HTTP/1.1 response; a complete `application/json` body
//! is a well-formed JSON-RPC response that is not an internal error; a half-closed
//! connection gets some answer, or is closed, before the server has answered
//! `OUTLASTED_BY` (50) honest requests on other connections (counted work, not time: a machine
//! under load slows both alike); and the server keeps serving.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::Target;
use crate::oracle;
use crate::servers;

/// The target.
pub const TARGET: Target = Target {
    name: "http",
    run,
    seeds,
    dictionary: DICTIONARY,
};

/// How long one connection is read before the work it may take is counted instead.
const PATIENCE: Duration = Duration::from_secs(2);
/// How many honest requests the server may answer, one after another on other connections,
/// while a half-closed connection still has neither an answer nor a close.
const OUTLASTED_BY: usize = 50;
/// How long an honest request may take before the server counts as stopped: long enough that
/// only a server that stopped, not a busy machine, reaches it.
const HONEST_PATIENCE: Duration = Duration::from_secs(15);
/// How long the server may be quiet before the connection is half-closed.
const QUIET: Duration = Duration::from_millis(20);
/// The most of an answer read.
const MAX_READ: usize = 1 << 20;

fn address() -> SocketAddr {
    static ADDRESS: OnceLock<SocketAddr> = OnceLock::new();
    *ADDRESS.get_or_init(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("mcp-fuzz-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(1)
                    .enable_all()
                    .build()
                    .expect("a runtime");
                runtime.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("a loopback port");
                    sender
                        .send(listener.local_addr().expect("bound"))
                        .expect("the fuzzer waits for the address");
                    servers::conformance()
                        .serve_listener(listener, std::future::pending())
                        .await
                        .expect("the server serves");
                });
            })
            .expect("a server thread");
        receiver.recv().expect("the server starts")
    })
}

fn run(data: &[u8]) {
    let addr = address();
    let host = addr.to_string();
    let input = replace(data, b"@HOST", host.as_bytes());
    let (mut answer, mut closed, stream) = exchange(addr, &input, true, PATIENCE);
    let context = format!("input {:?}", String::from_utf8_lossy(&input));
    if !closed && answer.is_empty() {
        (answer, closed) = outlast(addr, stream);
        assert!(
            closed || !answer.is_empty(),
            "{context}: no answer and no close of a half-closed connection while the server \
             answered {OUTLASTED_BY} other requests"
        );
    }
    check_answers(&answer, &context);
    honest(addr);
}

/// Waits for an answer or a close on `stream` while honest requests are answered one after
/// another on other connections, at most [`OUTLASTED_BY`] of them.
fn outlast(addr: SocketAddr, mut stream: TcpStream) -> (Vec<u8>, bool) {
    let mut buffer = [0u8; 16 * 1024];
    stream.set_read_timeout(Some(Duration::from_millis(1))).ok();
    for _ in 0..OUTLASTED_BY {
        match stream.read(&mut buffer) {
            Ok(0) => return (Vec::new(), true),
            Ok(read) => return (buffer[..read].to_vec(), false),
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            // A reset is a close.
            Err(_) => return (Vec::new(), true),
        }
        honest(addr);
    }
    (Vec::new(), false)
}

/// Writes `input` and reads the answer while it comes, for at most `patience`; once the
/// server has been quiet for [`QUIET`], half-closes the connection and waits for the close.
/// Returns what was read, whether the server closed the connection, and the connection.
fn exchange(
    addr: SocketAddr,
    input: &[u8],
    half_close: bool,
    patience: Duration,
) -> (Vec<u8>, bool, TcpStream) {
    let mut stream = TcpStream::connect(addr).expect("the server accepts connections");
    stream.set_nodelay(true).ok();
    stream.set_write_timeout(Some(patience)).ok();
    // The server may answer and close before it has read everything: a failed write is fine.
    let _ = stream.write_all(input);
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    let mut half_closed = !half_close;
    loop {
        let left = patience.saturating_sub(started.elapsed());
        if left.is_zero() || answer.len() >= MAX_READ || is_event_stream(&answer) {
            return (answer, false, stream);
        }
        let wait = if half_closed { left } else { left.min(QUIET) };
        stream.set_read_timeout(Some(wait)).ok();
        match stream.read(&mut buffer) {
            Ok(0) => return (answer, true, stream),
            Ok(read) => answer.extend_from_slice(&buffer[..read]),
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if half_closed {
                    return (answer, false, stream);
                }
                let _ = stream.shutdown(Shutdown::Write);
                half_closed = true;
            }
            // A reset is a close.
            Err(_) => return (answer, true, stream),
        }
    }
}

fn is_event_stream(answer: &[u8]) -> bool {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    matches!(response.parse(answer), Ok(httparse::Status::Complete(_)))
        && response.headers.iter().any(|header| {
            header.name.eq_ignore_ascii_case("content-type")
                && header.value.starts_with(b"text/event-stream")
        })
}

/// Every response in `answer` parses; complete JSON bodies are well-formed JSON-RPC.
fn check_answers(mut answer: &[u8], context: &str) {
    while !answer.is_empty() {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        let head = match response.parse(answer) {
            Ok(httparse::Status::Complete(head)) => head,
            Ok(httparse::Status::Partial) => return,
            Err(error) => panic!(
                "{context}: the answer is not HTTP/1.1 ({error}): {:?}",
                String::from_utf8_lossy(answer)
            ),
        };
        let status = response.code.expect("a complete head has a status");
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|header| header.name.eq_ignore_ascii_case(name))
                .map(|header| String::from_utf8_lossy(header.value).into_owned())
        };
        let json =
            header("content-type").is_some_and(|value| value.starts_with("application/json"));
        let Some(length) = header("content-length").and_then(|value| value.parse::<usize>().ok())
        else {
            // Chunked or streamed: its framing is hyper's; stop here.
            return;
        };
        let Some(body) = answer.get(head..head + length) else {
            return;
        };
        if json && !body.is_empty() {
            let value: Value = serde_json::from_slice(body).unwrap_or_else(|error| {
                panic!(
                    "{context}: a {status} answer's JSON body does not parse ({error}): {:?}",
                    String::from_utf8_lossy(body)
                )
            });
            if value.get("jsonrpc").is_some() {
                oracle::response(body, None, &format_args!("{context}: {status} answer"));
            }
        }
        answer = &answer[head + length..];
    }
}

/// An honest request is answered: the server is still serving.
fn honest(addr: SocketAddr) {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let version = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
        ("Connection", "close"),
    ];
    let request = post(&addr.to_string(), body, &version);
    let (answer, ..) = exchange(addr, request.as_bytes(), false, HONEST_PATIENCE);
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "the server stopped serving: an honest request got {:?}",
        String::from_utf8_lossy(&answer)
    );
    check_answers(&answer, "the honest request");
}

fn post(host: &str, body: &str, extra: &[(&str, &str)]) -> String {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    request
}

fn replace(data: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut rest = data;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(from) {
            out.extend_from_slice(to);
            rest = after;
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

fn seeds() -> Vec<Vec<u8>> {
    let modern = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
    let version = [("MCP-Protocol-Version", "2026-07-28")];
    let mut seeds = vec![
        post("@HOST", modern, &version),
        post("@HOST", initialize, &[]),
        [post("@HOST", modern, &version), post("@HOST", modern, &version)].concat(),
        format!(
            "POST /mcp HTTP/1.1\r\nHost: @HOST\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Transfer-Encoding: chunked\r\n\r\n{:x}\r\n{modern}\r\n0\r\n\r\n",
            modern.len()
        ),
        "GET /mcp HTTP/1.1\r\nHost: @HOST\r\nAccept: text/event-stream\r\nMcp-Session-Id: x\r\n\r\n"
            .to_owned(),
        "DELETE /mcp HTTP/1.1\r\nHost: @HOST\r\nMcp-Session-Id: x\r\n\r\n".to_owned(),
        "OPTIONS /mcp HTTP/1.1\r\nHost: @HOST\r\nOrigin: http://evil.example\r\n\r\n".to_owned(),
        post("evil.example", modern, &version),
        post("@HOST", modern, &[("MCP-Protocol-Version", "2025-11-25"), ("Origin", "http://@HOST")]),
        post("@HOST", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/li", &version),
        format!(
            "POST /mcp HTTP/1.1\r\nHost: @HOST\r\nContent-Type: application/json\r\n\
             Content-Length: 99999999\r\n\r\n{modern}"
        ),
        post("@HOST", modern, &[("Mcp-Session-Id", "nope"), ("Expect", "100-continue")]),
    ];
    seeds.push(format!(
        "POST /mcp HTTP/1.1\r\nHost: @HOST\r\nContent-Type: application/json; charset=utf-8\r\n\
         Accept: */*\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{modern}",
        modern.len()
    ));
    seeds.into_iter().map(String::into_bytes).collect()
}

const DICTIONARY: &[&str] = &[
    "POST",
    "GET",
    "DELETE",
    "OPTIONS",
    "HEAD",
    " /mcp ",
    "HTTP/1.1",
    "HTTP/1.0",
    "\r\n",
    "\r\n\r\n",
    "@HOST",
    "Host: ",
    "Content-Type: ",
    "application/json",
    "text/event-stream",
    "Accept: ",
    "Content-Length: ",
    "Transfer-Encoding: chunked",
    "Connection: close",
    "Connection: keep-alive",
    "Expect: 100-continue",
    "MCP-Protocol-Version: ",
    "Mcp-Session-Id: ",
    "Last-Event-ID: ",
    "Origin: ",
    "Authorization: Bearer x",
    "2026-07-28",
    "2025-11-25",
    "2025-03-26",
    "0\r\n\r\n",
    "ffffffffffffffff\r\n",
    "; charset=utf-8",
    "\"jsonrpc\":\"2.0\"",
    "\"method\":",
    "\"initialize\"",
    "\"tools/call\"",
    "\"_meta\"",
];

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    /// The oracle counts the server's work, not time: a connection that is never answered
    /// is reported once the real server has answered [`OUTLASTED_BY`] other requests, and
    /// one that is closed meanwhile is not.
    #[test]
    fn a_connection_is_outlasted_by_counted_honest_requests() {
        let silent = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let stream = TcpStream::connect(silent.local_addr().unwrap()).expect("connects");
        let (_held, _) = silent.accept().expect("accepts");
        assert_eq!(outlast(address(), stream), (Vec::new(), false));

        let stream = TcpStream::connect(silent.local_addr().unwrap()).expect("connects");
        drop(silent.accept().expect("accepts"));
        assert_eq!(outlast(address(), stream), (Vec::new(), true));
    }
}
