//! A deliberately small HTTP/1.1 client over a raw socket, so tests can send exactly the bytes
//! they mean (foreign hosts, wrong content types, oversized bodies) and read the raw answer.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::net::SocketAddr;
use std::time::Duration;

use mcp_runtime::server::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

pub(crate) const VERSION: &str = "2026-07-28";

/// Every exchange with a server gives up after this long.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A server listening on an ephemeral loopback port; stops when dropped.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

pub(crate) async fn start(server: Server) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.await;
        };
        server.serve_listener(listener, shutdown).await.unwrap();
    });
    Running { addr, _stop: stop }
}

/// One HTTP answer.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The `data:` payloads of an event-stream body.
    pub(crate) fn events(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.body)
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    }
}

/// The standard headers of a conforming client.
pub(crate) fn standard_headers(addr: SocketAddr) -> Vec<(String, String)> {
    [
        ("Host", addr.to_string()),
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", VERSION.to_owned()),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value))
    .collect()
}

/// The standard headers of a conforming client sending `body`, with those mirrored from it.
pub(crate) fn headers_for(addr: SocketAddr, body: &[u8]) -> Vec<(String, String)> {
    let mut headers = standard_headers(addr);
    headers.extend(mirrored_headers(body));
    headers
}

/// The headers a 2026-07-28 client mirrors from a message's body: `Mcp-Method`, and
/// `Mcp-Name` on `tools/call`, `prompts/get` and `resources/read` (Base64 in the sentinel
/// when not plain ASCII). None for a body that is not a JSON-RPC message.
pub(crate) fn mirrored_headers(body: &[u8]) -> Vec<(String, String)> {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut headers = vec![("Mcp-Method".to_owned(), method.to_owned())];
    let member = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return headers,
    };
    if let Some(name) = message["params"][member].as_str() {
        headers.push(("Mcp-Name".to_owned(), header_value(name)));
    }
    headers
}

/// `value` as a header carries it: as it is when plain visible ASCII, else in the Base64
/// sentinel.
pub(crate) fn header_value(value: &str) -> String {
    use base64::Engine as _;
    let plain = !value.is_empty()
        && value.bytes().all(|byte| (0x20..0x7f).contains(&byte))
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// Sends one request with `headers` (replacing same-named standard ones, and the headers
/// mirrored from the body; an empty value removes one) and reads the answer.
pub(crate) async fn send(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    send_from(addr, None, method, headers, body).await
}

/// [`send`], from the local address `from` (another loopback address, to be another caller).
pub(crate) async fn send_from(
    addr: SocketAddr,
    from: Option<std::net::IpAddr>,
    method: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut all = standard_headers(addr);
    all.extend(mirrored_headers(body));
    for (key, value) in headers {
        all.retain(|(existing, _)| !existing.eq_ignore_ascii_case(key));
        if !value.is_empty() {
            all.push(((*key).to_owned(), (*value).to_owned()));
        }
    }
    let mut head = format!("{method} /mcp HTTP/1.1\r\n");
    for (key, value) in &all {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let exchange = async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        if let Some(from) = from {
            socket.bind(SocketAddr::new(from, 0)).expect("binds");
        }
        let mut stream = socket.connect(addr).await.expect("connects");
        stream
            .write_all(head.as_bytes())
            .await
            .expect("the head is sent");
        // The server may answer (413) before reading the whole body and close.
        let _ = stream.write_all(body).await;
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        raw
    };
    let raw = tokio::time::timeout(READ_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| panic!("no whole answer to {method} within {READ_TIMEOUT:?}"));
    parse(&raw)
}

/// POSTs a JSON-RPC request with conforming headers and `_meta`.
pub(crate) async fn call(addr: SocketAddr, id: Value, method: &str, mut params: Value) -> Answer {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    send(addr, "POST", &[], body.to_string().as_bytes()).await
}

/// Whether `answer` is the one refusal every invalid state gets: `-32602` with the fixed
/// message and no `data` (nothing about why).
pub(crate) fn is_state_refusal(answer: &Value) -> bool {
    answer["error"]["code"] == -32602
        && answer["error"]["message"] == mcp_runtime::state::INVALID_STATE_MESSAGE
        && answer["error"].get("data").is_none()
        && answer.get("result").is_none()
}

pub(crate) fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn parse(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let rest = &raw[split + 4..];
    let chunked = headers.iter().any(|(key, value)| {
        key.eq_ignore_ascii_case("transfer-encoding") && value.contains("chunked")
    });
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Answer {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(end) = rest.windows(2).position(|window| window == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[end + 2 + size + 2..];
    }
    body
}

// ---------------------------------------------------------------------------------------------
// Raw exchanges, for tests that send what no conforming client would.

pub(crate) fn discover() -> String {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": meta() } })
        .to_string()
}

/// A conforming keep-alive `POST /mcp` carrying `body`.
pub(crate) fn keep_alive_request(addr: SocketAddr, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: {}\r\n{}Content-Length: {}\r\n\r\n{body}",
        VERSION,
        mirrored_lines(body.as_bytes()),
        body.len()
    )
}

/// The mirrored headers of `body` as header lines.
pub(crate) fn mirrored_lines(body: &[u8]) -> String {
    mirrored_headers(body)
        .into_iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect()
}

/// Reads one answer with a `Content-Length` body from a keep-alive connection; its status.
pub(crate) async fn read_answer(stream: &mut TcpStream) -> u16 {
    let mut raw = Vec::new();
    let read = async {
        loop {
            if let Some(end) = raw.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |value| value.trim().parse().unwrap());
                if raw.len() >= end + 4 + length {
                    return head.split(' ').nth(1).unwrap().parse().unwrap();
                }
            }
            let mut chunk = [0u8; 4096];
            let read = stream.read(&mut chunk).await.expect("readable");
            assert!(read > 0, "closed before a whole answer: {raw:?}");
            raw.extend_from_slice(&chunk[..read]);
        }
    };
    tokio::time::timeout(READ_TIMEOUT, read)
        .await
        .expect("an answer in time")
}

/// Reads (keeping what arrives) until the server closes the connection; gives up after
/// [`READ_TIMEOUT`]. Returns what was read.
pub(crate) async fn until_closed(stream: &mut TcpStream) -> Result<Vec<u8>, Vec<u8>> {
    let mut raw = Vec::new();
    let read = async {
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => raw.extend_from_slice(&chunk[..read]),
            }
        }
    };
    match tokio::time::timeout(READ_TIMEOUT, read).await {
        Ok(()) => Ok(raw),
        Err(_) => Err(raw),
    }
}

/// Sends `bytes` on a fresh connection and reads the whole answer (the request should say
/// `Connection: close`); the status and the raw answer.
pub(crate) async fn raw_exchange(addr: SocketAddr, bytes: &[u8]) -> (u16, String) {
    let send = async {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        // The server may answer (413) and close before taking every byte.
        let _ = stream.write_all(bytes).await;
        stream
    };
    let mut stream = tokio::time::timeout(READ_TIMEOUT, send)
        .await
        .expect("the request is sent in time");
    let raw = until_closed(&mut stream)
        .await
        .expect("the server answers and closes");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    (status, text)
}

/// A `POST` of `server/discover` to `target` with `headers` (each a whole header line), on a
/// connection the server closes after answering.
pub(crate) fn post_with(target: &str, headers: &[String]) -> Vec<u8> {
    let body = discover();
    let mut request = format!("POST {target} HTTP/1.1\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json\r\n\
         MCP-Protocol-Version: {}\r\n{}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        VERSION,
        mirrored_lines(body.as_bytes()),
        body.len()
    ));
    request.into_bytes()
}

// ---------------------------------------------------------------------------------------------
// Long-lived answers (`subscriptions/listen`), read event by event as they come.

/// An answer whose head has arrived and whose body is read as it comes.
pub(crate) struct Stream {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    stream: TcpStream,
    buffer: Vec<u8>,
}

/// POSTs a `subscriptions/listen` with id `id` asking for `notifications`, with conforming
/// headers and `_meta`, and waits for the answer's head.
pub(crate) async fn listen(addr: SocketAddr, id: Value, notifications: Value) -> Stream {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": { "_meta": meta(), "notifications": notifications },
    });
    open(addr, &[], body.to_string().as_bytes()).await
}

/// Sends one `POST` as [`send`] does, and waits for the answer's head only.
pub(crate) async fn open(addr: SocketAddr, headers: &[(&str, &str)], body: &[u8]) -> Stream {
    let mut all = standard_headers(addr);
    all.extend(mirrored_headers(body));
    for (key, value) in headers {
        all.retain(|(existing, _)| !existing.eq_ignore_ascii_case(key));
        if !value.is_empty() {
            all.push(((*key).to_owned(), (*value).to_owned()));
        }
    }
    let mut head = "POST /mcp HTTP/1.1\r\n".to_owned();
    for (key, value) in &all {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let opened = async {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        stream.write_all(head.as_bytes()).await.expect("sent");
        stream.write_all(body).await.expect("sent");
        let mut buffer = Vec::new();
        let mut chunk = [0u8; 4096];
        let end = loop {
            if let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
                break end;
            }
            let read = stream.read(&mut chunk).await.expect("readable");
            assert!(read > 0, "closed before a head: {buffer:?}");
            buffer.extend_from_slice(&chunk[..read]);
        };
        let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
            .collect();
        buffer.drain(..end + 4);
        Stream {
            status,
            headers,
            stream,
            buffer,
        }
    };
    tokio::time::timeout(READ_TIMEOUT, opened)
        .await
        .expect("a head in time")
}

impl Stream {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The next event's message; panics when none comes within [`READ_TIMEOUT`].
    pub(crate) async fn next(&mut self) -> Value {
        self.next_within(READ_TIMEOUT)
            .await
            .expect("an event in time")
    }

    /// The next event's message, or `None` when none comes within `wait` or the stream ends.
    pub(crate) async fn next_within(&mut self, wait: Duration) -> Option<Value> {
        let read = async {
            let mut chunk = [0u8; 4096];
            loop {
                if let Some(message) = self.take_event() {
                    return Some(message);
                }
                match self.stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => return None,
                    Ok(read) => self.buffer.extend_from_slice(&chunk[..read]),
                }
            }
        };
        tokio::time::timeout(wait, read).await.ok().flatten()
    }

    /// Reads until the server closes the stream; the messages of the events left.
    pub(crate) async fn until_closed(&mut self) -> Vec<Value> {
        let raw = until_closed(&mut self.stream)
            .await
            .expect("the server closes the stream");
        self.buffer.extend_from_slice(&raw);
        std::iter::from_fn(|| self.take_event()).collect()
    }

    /// The JSON body of an answer that is not a stream (a refusal).
    pub(crate) async fn body(mut self) -> Value {
        let read = async {
            let mut chunk = [0u8; 4096];
            loop {
                if let Some(start) = self.buffer.iter().position(|&byte| byte == b'{')
                    && let Ok(body) = serde_json::from_slice(&self.buffer[start..])
                {
                    return body;
                }
                let read = self.stream.read(&mut chunk).await.expect("readable");
                assert!(read > 0, "closed before a whole body: {:?}", self.buffer);
                self.buffer.extend_from_slice(&chunk[..read]);
            }
        };
        tokio::time::timeout(READ_TIMEOUT, read)
            .await
            .expect("a body in time")
    }

    fn take_event(&mut self) -> Option<Value> {
        let start = self
            .buffer
            .windows(6)
            .position(|window| window == b"data: ")?;
        let end = start
            + self.buffer[start..]
                .iter()
                .position(|&byte| byte == b'\n')?;
        let message = serde_json::from_slice(&self.buffer[start + 6..end]).expect("JSON data");
        self.buffer.drain(..=end);
        Some(message)
    }
}
