//! A legacy (2025-11-25) client over real sockets: `initialize`, then requests on the
//! session; a call's event stream is read as it arrives, and the server-to-client requests on
//! it are answered by POSTing responses back, as the official SDKs do.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::schema::{assert_legacy_server_message, assert_legacy_valid};

pub(crate) const LEGACY: &str = "2025-11-25";

/// Every read in these tests gives up after this long.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// One HTTP answer whose body is still arriving.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: hyper::HeaderMap,
    body: Incoming,
    buffer: Vec<u8>,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    pub(crate) fn is_event_stream(&self) -> bool {
        self.header("content-type")
            .is_some_and(|value| value.starts_with("text/event-stream"))
    }

    /// The whole body.
    pub(crate) async fn bytes(self) -> Vec<u8> {
        let collected = tokio::time::timeout(READ_TIMEOUT, self.body.collect())
            .await
            .expect("the body arrives in time")
            .expect("the body is readable");
        let mut bytes = self.buffer;
        bytes.extend_from_slice(&collected.to_bytes());
        bytes
    }

    pub(crate) async fn json(self) -> Value {
        let bytes = self.bytes().await;
        serde_json::from_slice(&bytes).unwrap_or_else(|error| {
            panic!("not JSON ({error}): {}", String::from_utf8_lossy(&bytes))
        })
    }

    /// The whole body: one message, checked against the 2025-11-25 schema.
    pub(crate) async fn message(self) -> Value {
        let message = self.json().await;
        assert_legacy_server_message(&message);
        message
    }

    /// A refusal with HTTP `status`: its body, a JSON-RPC error response checked against the
    /// 2025-11-25 schema.
    pub(crate) async fn refusal(self, status: u16) -> Value {
        assert_eq!(self.status, status);
        let message = self.message().await;
        assert_legacy_valid("JSONRPCErrorResponse", &message);
        message
    }

    /// The next event's message, checked against the 2025-11-25 schema, or `None` when the
    /// stream ends.
    pub(crate) async fn next_message(&mut self) -> Option<Value> {
        let message = self.next_event().await?;
        assert_legacy_server_message(&message);
        Some(message)
    }

    /// The next event's `data`, or `None` when the stream ends. Comments are skipped.
    pub(crate) async fn next_event(&mut self) -> Option<Value> {
        let data = self.next_event_text().await?;
        Some(serde_json::from_str(&data).expect("event data is JSON"))
    }

    /// The next event's `data` as it was sent, or `None` when the stream ends. Comments are
    /// skipped.
    pub(crate) async fn next_event_text(&mut self) -> Option<String> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|window| window == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let text = String::from_utf8(event).expect("events are UTF-8");
                let data: String = text
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return Some(data);
            }
            let frame = tokio::time::timeout(READ_TIMEOUT, self.body.frame())
                .await
                .expect("an event arrives in time")?;
            if let Ok(data) = frame.expect("the stream is readable").into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }
}

/// Sends one HTTP/1.1 request on a fresh connection.
pub(crate) async fn send(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Answer {
    let stream = tokio::time::timeout(READ_TIMEOUT, TcpStream::connect(addr))
        .await
        .expect("connects in time")
        .expect("connects");
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    let response = tokio::time::timeout(READ_TIMEOUT, sender.send_request(request))
        .await
        .expect("answers in time")
        .expect("answers");
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body,
        buffer: Vec::new(),
    }
}

/// A legacy session.
pub(crate) struct Client {
    pub(crate) addr: SocketAddr,
    pub(crate) session: String,
    pub(crate) version: String,
}

/// What a call saw: every message before its response (server-to-client requests, progress
/// and log notifications) and the response itself.
#[derive(Debug)]
pub(crate) struct Exchange {
    pub(crate) messages: Vec<Value>,
    pub(crate) response: Value,
}

impl Exchange {
    /// The server-to-client requests, in the order sent.
    pub(crate) fn requests(&self) -> Vec<&Value> {
        self.messages
            .iter()
            .filter(|message| message.get("id").is_some())
            .collect()
    }

    /// The text of the result's first content block.
    pub(crate) fn text(&self) -> &str {
        self.response["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text in {}", self.response))
    }
}

impl Client {
    /// Opens a session declaring `capabilities`, asking for `version`, and sends
    /// `notifications/initialized`. Returns the client and the `initialize` response.
    pub(crate) async fn open_with(
        addr: SocketAddr,
        version: &str,
        capabilities: Value,
    ) -> (Self, Value) {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "legacy-test", "version": "1.0.0"},
            },
        });
        let answer = send(addr, "POST", &[], body.to_string().into_bytes()).await;
        assert_eq!(answer.status, 200);
        let session = answer
            .header("mcp-session-id")
            .expect("initialize answers a session id")
            .to_owned();
        let response = answer.json().await;
        assert_legacy_valid("JSONRPCResultResponse", &response);
        assert_legacy_valid("InitializeResult", &response["result"]);
        let version = response["result"]["protocolVersion"]
            .as_str()
            .unwrap()
            .to_owned();
        let client = Self {
            addr,
            session,
            version,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(client.post(&initialized).await.status, 202);
        (client, response)
    }

    /// A 2025-11-25 session declaring form elicitation, as the TypeScript SDK does.
    pub(crate) async fn open(addr: SocketAddr) -> Self {
        Self::open_with(addr, LEGACY, json!({"elicitation": {"form": {}}}))
            .await
            .0
    }

    /// POSTs `message` on the session.
    pub(crate) async fn post(&self, message: &Value) -> Answer {
        let headers = [
            ("mcp-session-id", self.session.as_str()),
            ("mcp-protocol-version", self.version.as_str()),
        ];
        send(
            self.addr,
            "POST",
            &headers,
            message.to_string().into_bytes(),
        )
        .await
    }

    /// A request whose answer needs no input: its JSON-RPC response, checked against the
    /// 2025-11-25 schema.
    pub(crate) async fn request(&self, id: u64, method: &str, params: Value) -> Value {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let answer = self.post(&message).await;
        assert_eq!(answer.status, 200, "{method}");
        let response = answer.json().await;
        assert_legacy_valid("JSONRPCResponse", &response);
        response
    }

    /// Calls tool `name`, answering every server-to-client request with `answer` (given the
    /// request, it returns the `result`, or `{"error": ...}` to answer an error).
    pub(crate) async fn call(
        &self,
        id: u64,
        name: &str,
        arguments: Value,
        answer: impl FnMut(&Value) -> Value,
    ) -> Exchange {
        let message = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        });
        self.exchange(&message, answer).await
    }

    /// Sends `message` and follows its answer to the end, answering server-to-client requests.
    pub(crate) async fn exchange(
        &self,
        message: &Value,
        mut answer: impl FnMut(&Value) -> Value,
    ) -> Exchange {
        let mut stream = self.post(message).await;
        assert_eq!(stream.status, 200);
        if !stream.is_event_stream() {
            let response = stream.json().await;
            assert_legacy_valid("JSONRPCResponse", &response);
            return Exchange {
                messages: Vec::new(),
                response,
            };
        }
        let mut messages = Vec::new();
        while let Some(event) = stream.next_event().await {
            if event.get("method").is_some() && event.get("id").is_some() {
                assert_legacy_valid("JSONRPCRequest", &event);
                assert_legacy_valid("ServerRequest", &event);
                let reply = answer(&event);
                let response = match reply.get("error") {
                    Some(error) => json!({"jsonrpc": "2.0", "id": event["id"], "error": error}),
                    None => json!({"jsonrpc": "2.0", "id": event["id"], "result": reply}),
                };
                let accepted = self.post(&response).await;
                assert_eq!(accepted.status, 202, "a response is accepted");
                messages.push(event);
            } else if event.get("method").is_some() {
                assert_legacy_valid("ServerNotification", &event);
                messages.push(event);
            } else {
                assert_legacy_valid("JSONRPCResponse", &event);
                return Exchange {
                    messages,
                    response: event,
                };
            }
        }
        panic!("the stream ended without a response; saw {messages:?}");
    }

    /// Ends the session: the status, after checking a refusal's body against the 2025-11-25
    /// schema.
    pub(crate) async fn delete(&self) -> u16 {
        let headers = [("mcp-session-id", self.session.as_str())];
        let answer = send(self.addr, "DELETE", &headers, Vec::new()).await;
        let status = answer.status;
        if status != 204 {
            answer.refusal(status).await;
        }
        status
    }
}

/// An accepted form answer.
pub(crate) fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}
