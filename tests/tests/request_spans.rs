//! What a server logs about its requests: each runs in a `request` span, inside its
//! connection's span, that carries the method, the target, the flow's round, shape and id,
//! the points it resumed from and stopped at, the size of the state it hands out and how it
//! ended; client-chosen text in those fields is
//! escaped. The server runs in process over stdio, under a subscriber that writes every closed
//! span as JSON and as human text into buffers.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;
#[path = "support/endless.rs"]
mod endless;
#[path = "support/log_buffer.rs"]
mod log_buffer;

use std::time::Duration;

use log_buffer::LogBuffer;
use mcp_runtime::server::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The tool name a hostile client sends: a quote, a newline and a terminal escape.
const HOSTILE: &str = "evil\" outcome=\"complete\n\u{1b}[31m";

fn call(id: u64, name: &str, state: Option<&str>, answers: Option<Value>) -> Value {
    let mut params = json!({
        "name": name,
        "arguments": {"service": "checkout"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// Everything logged while it is alive, as JSON lines and as human text; every span is
/// written when it closes.
struct Log {
    json: LogBuffer,
    human: LogBuffer,
    _default: tracing::subscriber::DefaultGuard,
}

impl Log {
    fn capture() -> Self {
        let (json, human) = (LogBuffer::default(), LogBuffer::default());
        let (json_writer, human_writer) = (json.clone(), human.clone());
        let default = tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_span_events(FmtSpan::CLOSE)
                    .with_writer(move || json_writer.clone()),
            )
            .with(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_span_events(FmtSpan::CLOSE)
                    .with_writer(move || human_writer.clone()),
            )
            .set_default();
        Self {
            json,
            human,
            _default: default,
        }
    }

    fn json(&self) -> Vec<Value> {
        self.json
            .text()
            .lines()
            .map(|line| serde_json::from_str(line).expect("every JSON log line parses"))
            .collect()
    }
}

/// Makes a request from the answers so far.
type Request = Box<dyn Fn(&[Value]) -> Value>;

/// What the client does next.
enum Step {
    /// Sends a request made from the answers so far, and reads its answer.
    Ask(Request),
    /// Sends a message and reads nothing.
    Send(Value),
}

fn ask(request: impl Fn(&[Value]) -> Value + 'static) -> Step {
    Step::Ask(Box::new(request))
}

/// How long a whole conversation of these tests may take, its end included.
const SERVED_WITHIN: Duration = Duration::from_secs(20);

/// Serves `steps` one after the other on in-process stdio; returns the answers, and the log
/// as JSON lines and as human text.
async fn serve(server: Server, steps: Vec<Step>) -> (Vec<Value>, Vec<Value>, String) {
    let log = Log::capture();
    let (mut input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    let serving = server.serve_lines(server_in, server_out);
    let client = async move {
        let mut lines = BufReader::new(output).lines();
        let mut answers = Vec::new();
        for step in steps {
            let (message, read) = match step {
                Step::Ask(request) => (request(&answers), true),
                Step::Send(message) => (message, false),
            };
            let mut line = message.to_string().into_bytes();
            line.push(b'\n');
            input.write_all(&line).await.unwrap();
            if !read {
                continue;
            }
            let answer = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("an answer in time")
                .unwrap()
                .expect("an answer");
            answers.push(serde_json::from_str(&answer).unwrap());
        }
        drop(input);
        answers
    };
    // Bounded: a server that fails to end a call (a broken `notifications/cancelled`, say)
    // keeps serving while that call runs, which for `endless` is an hour.
    let (served, answers) =
        tokio::time::timeout(SERVED_WITHIN, async { tokio::join!(serving, client) })
            .await
            .unwrap_or_else(|_| {
                panic!("the server still runs {SERVED_WITHIN:?} after its input ended")
            });
    served.unwrap();
    (answers, log.json(), log.human.text())
}

/// The fields of every closed `request` span, in order.
fn request_spans(log: &[Value]) -> Vec<&Value> {
    log.iter()
        .filter(|line| line["fields"]["message"] == "close" && line["span"]["name"] == "request")
        .map(|line| &line["span"])
        .collect()
}

#[tokio::test]
async fn each_request_span_tells_its_method_target_round_shape_state_size_and_outcome() {
    let (answers, log, human) = serve(
        deploy::server(3),
        vec![
            ask(|_| call(1, "deploy", None, None)),
            ask(|answers| {
                let state = answers[0]["result"]["requestState"].as_str().unwrap();
                let target = json!({"action": "accept", "content":
                {"environment": "staging", "replicas": 2}});
                call(2, "deploy", Some(state), Some(json!({"target": target})))
            }),
            ask(|_| {
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}})
            }),
        ],
    )
    .await;
    assert_eq!(
        answers[1]["result"]["resultType"], "complete",
        "{answers:?}"
    );
    let state_bytes = answers[0]["result"]["requestState"].as_str().unwrap().len();
    let spans = request_spans(&log);
    assert_eq!(spans.len(), 3, "{log:#?}");
    let (first, second, list) = (spans[0], spans[1], spans[2]);
    assert_eq!(first["method"], "tools/call");
    assert_eq!(first["id"], "1");
    assert_eq!(first["target"], "deploy");
    assert_eq!(first["round"], 1);
    assert_eq!(first["outcome"], "input_required");
    assert_eq!(first["state_bytes"], state_bytes);
    let shape = first["shape"].as_str().expect("a shape");
    assert_eq!(shape.len(), 8, "{shape}");
    assert_eq!(second["target"], "deploy");
    assert_eq!(second["round"], 2);
    assert_eq!(second["shape"], shape);
    assert_eq!(second["outcome"], "complete");
    assert_eq!(
        second.get("state_bytes"),
        None,
        "the last round hands out no state"
    );
    // One flow id in both rounds, read back from the state; the second round resumes from
    // the point the first stopped at, and stops nowhere.
    let flow = first["flow"].as_str().expect("a flow id");
    assert_eq!(flow.len(), 16, "{flow}");
    assert_eq!(second["flow"], flow);
    assert_eq!(
        first.get("from"),
        None,
        "a first round resumes from nowhere"
    );
    assert!(first["to"].is_u64(), "{first}");
    assert_eq!(second["from"], first["to"]);
    assert_eq!(second.get("to"), None, "a complete round stops nowhere");
    assert_eq!(list["method"], "tools/list");
    assert_eq!(list["outcome"], "complete");
    assert_eq!(list.get("target"), None);
    // Each field once: a human formatter writes every value recorded.
    for line in human.lines().filter(|line| line.contains("request{")) {
        for field in ["method=", "target=", "round=", "outcome="] {
            assert!(line.matches(field).count() <= 1, "{field} twice: {line}");
        }
    }
    // Each request is inside its connection's span.
    let closed = human
        .lines()
        .find(|line| line.contains("request{") && line.contains("close"))
        .unwrap_or_else(|| panic!("no request span in {human}"));
    assert!(
        closed.contains("connection{transport=\"stdio\"}:request{"),
        "{closed}"
    );
}

#[tokio::test]
async fn a_round_that_reads_a_decline_says_so_beside_the_point_it_resumed_from() {
    let (answers, log, _) = serve(
        deploy::server(3),
        vec![
            ask(|_| call(1, "deploy", None, None)),
            ask(|answers| {
                let state = answers[0]["result"]["requestState"].as_str().unwrap();
                let target = json!({"action": "decline"});
                call(2, "deploy", Some(state), Some(json!({"target": target})))
            }),
            ask(|_| call(3, "deploy", None, None)),
            ask(|answers| {
                let state = answers[2]["result"]["requestState"].as_str().unwrap();
                let target = json!({"action": "cancel"});
                call(4, "deploy", Some(state), Some(json!({"target": target})))
            }),
        ],
    )
    .await;
    assert_eq!(answers.len(), 4, "{answers:?}");
    let spans = request_spans(&log);
    assert_eq!(spans.len(), 4, "{log:#?}");
    assert_eq!(
        spans[0].get("answer"),
        None,
        "a first round reads no answer"
    );
    assert_eq!(spans[1]["answer"], "decline", "{}", spans[1]);
    assert_eq!(spans[1]["from"], spans[0]["to"]);
    assert_eq!(spans[3]["answer"], "cancel", "{}", spans[3]);
    assert_eq!(spans[3]["from"], spans[2]["to"]);
    // Only the action: nothing of the answer's content or the flow's values.
    let text = serde_json::to_string(&log).unwrap();
    assert!(!text.contains("\"action\""), "{text}");
}

#[tokio::test]
async fn client_chosen_text_is_escaped_in_span_fields() {
    let steps = vec![ask(|_| call(7, HOSTILE, None, None))];
    let (answers, log, human) = serve(deploy::server(3), steps).await;
    assert_eq!(answers[0]["error"]["code"], -32602, "{answers:?}");
    let spans = request_spans(&log);
    assert_eq!(spans.len(), 1, "{log:#?}");
    // The control characters are written as escapes; the JSON string holds the rest as is.
    assert_eq!(spans[0]["target"], r#"evil" outcome="complete\n\u{1b}[31m"#);
    assert_eq!(spans[0]["outcome"], "error");
    assert_eq!(spans[0]["error_code"], -32602);
    // In human text the value is quoted, its own quotes escaped: it cannot pass for another
    // field, nor break the line, nor reach the terminal.
    assert!(!human.contains('\u{1b}'), "{human}");
    let line = human
        .lines()
        .find(|line| line.contains("request{"))
        .unwrap_or_else(|| panic!("no request span in {human}"));
    assert!(
        line.contains(r#"target="evil\" outcome=\"complete\\n\\u{1b}[31m""#),
        "{line}"
    );
    assert!(!line.contains("outcome=\"complete\" "), "{line}");
}

#[tokio::test]
async fn a_call_cancelled_by_the_client_is_recorded_as_cancelled() {
    let probe = std::sync::Arc::new(endless::Probe::default());
    let server = Server::builder()
        .tool(endless::Endless(std::sync::Arc::clone(&probe)))
        .build();
    let steps = vec![
        Step::Send(call(1, "endless", None, None)),
        Step::Send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1}}),
        ),
        ask(|_| {
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}})
        }),
    ];
    let (answers, log, _) = serve(server, steps).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["id"], 2);
    let spans = request_spans(&log);
    assert_eq!(spans.len(), 2, "{log:#?}");
    let cancelled = spans.iter().find(|span| span["id"] == "1").unwrap();
    assert_eq!(cancelled["outcome"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["target"], "endless");
    assert_eq!(cancelled["legacy"], false);
}

#[tokio::test]
async fn a_call_whose_http_client_went_away_is_recorded_as_cancelled() {
    let log = Log::capture();
    let probe = std::sync::Arc::new(endless::Probe::default());
    let server = Server::builder()
        .tool(endless::Endless(std::sync::Arc::clone(&probe)))
        .build();
    let running = client::start(server).await;
    let addr = running.addr;
    let body = call(4, "endless", None, None).to_string();
    let mut head = String::from("POST /mcp HTTP/1.1\r\n");
    for (key, value) in client::headers_for(addr, body.as_bytes()) {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    probe.wait_started(1).await;
    drop(stream);
    probe.wait_dropped(1).await;
    let closed = async {
        loop {
            let log = log.json();
            if let Some(span) = request_spans(&log).first() {
                return (*span).clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let span = tokio::time::timeout(endless::WAIT, closed)
        .await
        .expect("the request span closes in time");
    assert_eq!(span["outcome"], "cancelled", "{span}");
    assert_eq!(span["target"], "endless");
    let connection = log
        .json()
        .into_iter()
        .find(|line| line["span"]["name"] == "connection")
        .expect("the connection span");
    assert_eq!(connection["span"]["transport"], "http", "{connection}");
}

#[tokio::test]
async fn a_legacy_call_runs_its_rounds_in_child_spans() {
    let meta_free_call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": "checkout"}}});
    let steps = vec![
        ask(|_| {
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "spans-test", "version": "1"}}})
        }),
        Step::Send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        ask(move |_| meta_free_call.clone()),
        ask(|answers| {
            let question = &answers[1];
            assert_eq!(question["method"], "elicitation/create", "{question}");
            json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept",
                "content": {"environment": "staging", "replicas": 2}}})
        }),
    ];
    let (answers, log, _) = serve(deploy::server(5), steps).await;
    assert_eq!(answers[2]["id"], 2, "{answers:?}");
    assert!(answers[2]["result"].is_object(), "{answers:?}");
    let spans = request_spans(&log);
    let call = spans
        .iter()
        .find(|span| span["method"] == "tools/call")
        .unwrap_or_else(|| panic!("{log:#?}"));
    assert_eq!(call["legacy"], true);
    assert_eq!(call["target"], "deploy");
    assert_eq!(call["outcome"], "complete");
    let rounds: Vec<&Value> = log
        .iter()
        .filter(|line| line["fields"]["message"] == "close" && line["span"]["name"] == "round")
        .map(|line| &line["span"])
        .collect();
    assert_eq!(rounds.len(), 2, "{log:#?}");
    assert_eq!(rounds[0]["round"], 1);
    assert!(
        rounds[0]["state_bytes"]
            .as_u64()
            .is_some_and(|bytes| bytes > 0)
    );
    assert_eq!(rounds[1]["round"], 2);
    assert_eq!(rounds[0]["shape"], rounds[1]["shape"]);
    assert_eq!(rounds[0]["flow"], rounds[1]["flow"]);
    assert!(rounds[0]["flow"].is_string(), "{log:#?}");
    assert_eq!(rounds[1]["from"], rounds[0]["to"]);
    assert_eq!(call.get("round"), None, "the rounds are the children's");
}
