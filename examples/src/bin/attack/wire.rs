//! Requests written by hand, and their answers read by hand.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// ---------------------------------------------------------------------------------------------
// Requests, by hand.

pub(super) const PROTOCOL_VERSION: &str = "2026-07-28";

pub(super) const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A request head for `POST /mcp` with conforming headers and `extra` ones.
pub(super) fn head(addr: SocketAddr, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n{extra}\r\n"
    )
}

/// A whole request with a `Content-Length` body.
pub(super) fn request(addr: SocketAddr, extra: &str, body: &str) -> String {
    let extra = format!("{extra}Content-Length: {}\r\n", body.len());
    format!("{}{body}", head(addr, &extra))
}

/// An answer's status line and headers.
pub(super) struct Head {
    pub(super) status: u16,
    pub(super) headers: Vec<(String, String)>,
}

impl Head {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// Reads an answer's head; what followed it stays in `buffer`.
pub(super) async fn read_head(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
) -> Result<Head, String> {
    loop {
        if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            let text = String::from_utf8_lossy(&buffer[..end]).into_owned();
            buffer.drain(..end + 4);
            let mut lines = text.split("\r\n");
            let status = lines
                .next()
                .and_then(|line| line.split(' ').nth(1))
                .and_then(|code| code.parse().ok())
                .ok_or_else(|| format!("not an HTTP answer: {text:?}"))?;
            let headers = lines
                .filter_map(|line| line.split_once(':'))
                .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
                .collect();
            return Ok(Head { status, headers });
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) => return Err("the server closed the connection".to_owned()),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(error) => return Err(format!("cannot read: {error}")),
        }
    }
}

/// Reads a `Content-Length` body after its head.
pub(super) async fn read_body(
    stream: &mut TcpStream,
    head: &Head,
    buffer: &mut Vec<u8>,
) -> Result<Vec<u8>, String> {
    let length: usize = head
        .header("content-length")
        .and_then(|value| value.parse().ok())
        .ok_or("the answer has no Content-Length")?;
    while buffer.len() < length {
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) => return Err("the server closed the connection".to_owned()),
            Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            Err(error) => return Err(format!("cannot read: {error}")),
        }
    }
    Ok(buffer.drain(..length).collect())
}

/// Reads until the server closes the connection (or resets it).
pub(super) async fn until_closed(stream: &mut TcpStream) {
    let mut chunk = [0u8; 4096];
    while matches!(stream.read(&mut chunk).await, Ok(read) if read > 0) {}
}

/// One stateless `server/discover` on a fresh connection; its status.
pub(super) async fn discover(addr: SocketAddr) -> Result<u16, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| format!("cannot connect: {error}"))?;
    stream
        .write_all(request(addr, "Mcp-Method: server/discover\r\n", DISCOVER).as_bytes())
        .await
        .map_err(|error| format!("cannot send: {error}"))?;
    let mut buffer = Vec::new();
    let head = read_head(&mut stream, &mut buffer).await?;
    Ok(head.status)
}

pub(super) const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"attack","version":"1.0.0"}}}"#;

/// `initialize` and `notifications/initialized`; the session id.
pub(super) async fn open_session(addr: SocketAddr) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr)
        .await
        .map_err(|error| format!("cannot connect: {error}"))?;
    let legacy = "MCP-Protocol-Version: 2025-11-25\r\n";
    stream
        .write_all(
            request(addr, "", INITIALIZE)
                .replace(
                    &format!("MCP-Protocol-Version: {PROTOCOL_VERSION}\r\n"),
                    legacy,
                )
                .as_bytes(),
        )
        .await
        .map_err(|error| error.to_string())?;
    let mut buffer = Vec::new();
    let answer = read_head(&mut stream, &mut buffer).await?;
    let session = answer
        .header("mcp-session-id")
        .ok_or(format!(
            "initialize answered {} without a session",
            answer.status
        ))?
        .to_owned();
    read_body(&mut stream, &answer, &mut buffer).await?;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let extra = format!("Mcp-Session-Id: {session}\r\n");
    stream
        .write_all(request(addr, &extra, initialized).as_bytes())
        .await
        .map_err(|error| error.to_string())?;
    read_head(&mut stream, &mut buffer).await?;
    Ok(session)
}
