//! A request's `duration_us`, over HTTP: counted from when its head began to arrive, on a
//! connection's first request and on a request after it on the kept-alive connection alike.
//! The `deploy` binary serves on a port of its own and its JSON log is read back as it goes.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::process::{ChildStderr, Command};

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// How long the client waits between the first bytes of a head and the rest.
const PAUSE: Duration = Duration::from_millis(300);

/// The next line of the log, as JSON.
async fn next_line(log: &mut Lines<BufReader<ChildStderr>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), log.next_line())
        .await
        .expect("a log line in time")
        .unwrap()
        .expect("a log line");
    serde_json::from_str(&line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
}

/// Sends a `server/discover` request whose head arrives in two parts, `PAUSE` apart, and
/// reads its answer.
async fn discover_slowly(stream: &mut TcpStream, addr: &str) {
    stream.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    tokio::time::sleep(PAUSE).await;
    let rest = format!(
        "Host: {addr}\r\nContent-Type: application/json\r\nAccept: application/json\r\n\
         MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n\
         Content-Length: {}\r\n\r\n{DISCOVER}",
        DISCOVER.len()
    );
    stream.write_all(rest.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let got = stream.read(&mut buffer).await.unwrap();
        assert!(got > 0, "closed early: {}", String::from_utf8_lossy(&read));
        read.extend_from_slice(&buffer[..got]);
        let text = String::from_utf8_lossy(&read);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length: "))
                .expect("a content-length")
                .parse()
                .unwrap();
            if body.len() >= length {
                assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                return;
            }
        }
    }
}

#[tokio::test]
async fn a_requests_duration_counts_from_the_first_bytes_of_its_head() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_deploy"))
        .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
        .env_remove("MCP_REQUEST_STATE_KEY")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the deploy example starts");
    let mut log = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let addr = loop {
        let line = next_line(&mut log).await;
        if line["fields"]["message"] == "serving MCP over HTTP" {
            break line["fields"]["address"]
                .as_str()
                .expect("an address")
                .to_owned();
        }
    };
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    // The connection's first request, then one on the connection kept alive.
    discover_slowly(&mut stream, &addr).await;
    discover_slowly(&mut stream, &addr).await;
    let mut durations = Vec::new();
    while durations.len() < 2 {
        let line = next_line(&mut log).await;
        if line["span"]["name"] == "request" && line["fields"]["message"] == "close" {
            assert_eq!(line["span"]["method"], "server/discover", "{line}");
            durations.push(line["span"]["duration_us"].as_u64().expect("a duration"));
        }
    }
    // The server's clock starts when it reads the head's first part, which a busy machine
    // can make it do late, so a duration may fall short of the whole pause by that much. Half
    // of it still tells the two readings apart: counted from dispatch, a request here takes
    // tens of microseconds.
    let half_the_pause = u64::try_from(PAUSE.as_micros() / 2).unwrap();
    assert!(
        durations.iter().all(|&duration| duration >= half_the_pause),
        "{durations:?}"
    );
}
