//! The example servers log in a human format by default and as JSON lines with
//! `--log-format json`: the `deploy` binary plays its demo (three rounds of one call) and its
//! stderr is read back; the other servers' demos log JSON lines too.

use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

/// Runs the `deploy` demo with `args`; returns its stderr, once it has exited successfully.
async fn deploy_demo(args: &[&str]) -> String {
    demo(env!("CARGO_BIN_EXE_deploy"), args).await
}

/// Runs the demo of the example `binary` with `args`; returns its stderr, once it has exited
/// successfully.
async fn demo(binary: &str, args: &[&str]) -> String {
    let child = Command::new(binary)
        .arg("--demo")
        .args(args)
        .env_remove("MCP_REQUEST_STATE_KEY")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the deploy example starts");
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("the demo ends in time")
        .unwrap();
    let stderr = String::from_utf8(output.stderr).expect("the log is UTF-8");
    assert!(output.status.success(), "{stderr}");
    stderr
}

#[tokio::test]
async fn json_logs_are_one_object_per_line_with_each_request_span() {
    let stderr = deploy_demo(&["--log-format", "json"]).await;
    let lines: Vec<Value> = stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
        })
        .collect();
    // Logged while the server is built, before it serves: the random key is worth a warning.
    assert!(
        lines.iter().any(|line| line["level"] == "WARN"
            && line["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("MCP_REQUEST_STATE_KEY"))),
        "{stderr}"
    );
    let rounds: Vec<(&Value, &Value, &Value)> = lines
        .iter()
        .filter(|line| line["span"]["name"] == "request" && line["fields"]["message"] == "close")
        .map(|line| {
            let span = &line["span"];
            assert_eq!(span["method"], "tools/call", "{line}");
            assert_eq!(span["target"], "deploy", "{line}");
            (&span["round"], &span["outcome"], &span["state_bytes"])
        })
        .collect();
    assert_eq!(rounds.len(), 3, "{stderr}");
    assert_eq!(
        (rounds[0].0, rounds[0].1),
        (&Value::from(1), &Value::from("input_required"))
    );
    assert_eq!(
        (rounds[1].0, rounds[1].1),
        (&Value::from(2), &Value::from("input_required"))
    );
    assert_eq!(
        (rounds[2].0, rounds[2].1),
        (&Value::from(3), &Value::from("complete"))
    );
    assert!(
        rounds[0].2.as_u64().is_some_and(|bytes| bytes > 0),
        "{stderr}"
    );
    // One flow id in all three rounds; each round resumes from the point the one before
    // stopped at; the last stops nowhere; every line says how long its request took.
    let spans: Vec<&Value> = lines
        .iter()
        .filter(|line| line["span"]["name"] == "request" && line["fields"]["message"] == "close")
        .map(|line| &line["span"])
        .collect();
    let flow = spans[0]["flow"].as_str().expect("a flow id");
    assert_eq!(flow.len(), 16, "{flow}");
    assert!(flow.chars().all(|c| c.is_ascii_hexdigit()), "{flow}");
    assert!(spans.iter().all(|span| span["flow"] == flow), "{stderr}");
    assert_eq!(
        spans[0].get("from"),
        None,
        "a first round resumes from nowhere"
    );
    assert!(spans[0]["to"].is_u64(), "{stderr}");
    assert_eq!(spans[1]["from"], spans[0]["to"]);
    assert_ne!(spans[1]["to"], spans[1]["from"], "{stderr}");
    assert_eq!(spans[2]["from"], spans[1]["to"]);
    assert_eq!(spans[2].get("to"), None, "a complete round stops nowhere");
    assert!(
        spans.iter().all(|span| span["duration_us"].is_u64()),
        "{stderr}"
    );
}

#[tokio::test]
async fn human_logs_are_readable_lines_by_default() {
    let stderr = deploy_demo(&[]).await;
    assert!(!stderr.is_empty());
    for line in stderr.lines() {
        assert!(
            serde_json::from_str::<Value>(line).is_err(),
            "JSON by default: {line}"
        );
    }
    let closes = stderr
        .lines()
        .filter(|line| line.contains(r#"request{method="tools/call""#) && line.contains("close"))
        .count();
    assert_eq!(closes, 3, "{stderr}");
    // The access line reads as the request span's close (the demo has no connection).
    let first = stderr
        .lines()
        .find(|line| line.contains(r#"request{method="tools/call""#))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        first.contains(r#" INFO request{method="tools/call" id="#),
        "{first}"
    );
    assert!(
        first.contains(r#" target="deploy" round=1 shape=""#)
            && first.contains(" flow=\"")
            && first.contains(r#" outcome="input_required" duration_us="#)
            && first.ends_with("}: mcp_runtime::server::trace: close"),
        "{first}"
    );
    assert!(stderr.contains("MCP_REQUEST_STATE_KEY"), "{stderr}");
}

#[tokio::test]
async fn every_example_server_logs_json_lines_with_request_spans() {
    let binaries = [env!("CARGO_BIN_EXE_order"), env!("CARGO_BIN_EXE_tracker")];
    for binary in binaries {
        let stderr = demo(binary, &["--log-format", "json"]).await;
        let mut requests = 0;
        for line in stderr.lines() {
            let line: Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("{binary}: not JSON ({error}): {line}"));
            if line["span"]["name"] == "request" && line["fields"]["message"] == "close" {
                assert_eq!(line["span"]["method"], "tools/call", "{binary}: {line}");
                requests += 1;
            }
        }
        assert!(requests > 0, "{binary}: {stderr}");
    }
}

/// A W3C `traceparent` the legacy call carries in its `_meta`.
const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/// Runs `deploy --stdio` with `args` and plays a 2025-11-25 session on its stdin: the
/// handshake, then one `deploy` call (id 2, with a trace context) whose two questions are
/// answered (production, then confirmed), so the call runs three rounds in process. Returns
/// the server's stderr, once it has exited successfully after its input ended.
async fn legacy_deploy(args: &[&str]) -> String {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_deploy"))
        .arg("--stdio")
        .args(args)
        .env_remove("MCP_REQUEST_STATE_KEY")
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the deploy example starts");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), output.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("an answer");
        serde_json::from_str(&line).unwrap()
    };
    let answers = [
        serde_json::json!({"environment": "production", "replicas": 3}),
        serde_json::json!({"ok": true}),
    ];
    let messages = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "log-format-test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "deploy", "arguments": {"service": "checkout"},
            "_meta": {"traceparent": TRACEPARENT}}}),
    ];
    // As a client does: the rest only once `initialize` is answered. The server answers each
    // request from a task of its own, so a call sent with it may be answered first.
    for (n, message) in messages.into_iter().enumerate() {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        input.write_all(&line).await.unwrap();
        if n == 0 {
            assert_eq!(next().await["id"], 1, "the session opens");
        }
    }
    for answer in answers {
        let question = next().await;
        assert_eq!(question["method"], "elicitation/create", "{question}");
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": answer}});
        let mut line = reply.to_string().into_bytes();
        line.push(b'\n');
        input.write_all(&line).await.unwrap();
    }
    let result = next().await;
    assert_eq!(result["id"], 2, "{result}");
    assert!(result["result"]["content"].is_array(), "{result}");
    drop(input);
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("the server ends in time")
        .unwrap();
    let stderr = String::from_utf8(output.stderr).expect("the log is UTF-8");
    assert!(output.status.success(), "{stderr}");
    stderr
}

/// The `round` span's body in a human line: `round=1 shape=".." ...`, if the line is a round's.
fn round_body(line: &str) -> Option<&str> {
    let start = line.find("}:round{")? + "}:round{".len();
    let end = start + line[start..].find("}: ")?;
    Some(&line[start..end])
}

#[tokio::test]
async fn a_legacy_calls_rounds_are_lines_inside_its_request_before_the_requests_own() {
    let stderr = legacy_deploy(&[]).await;
    let request = format!(
        r#"connection{{transport="stdio"}}:request{{method="tools/call" id="2" legacy=true target="deploy" traceparent="{TRACEPARENT}"}}"#
    );
    let rounds: Vec<(usize, &str)> = stderr
        .lines()
        .enumerate()
        .filter(|(_, line)| round_body(line).is_some())
        .collect();
    assert_eq!(rounds.len(), 3, "{stderr}");
    let mut flow = None;
    let mut to = None;
    for (n, (_, line)) in rounds.iter().enumerate() {
        let body = round_body(line).unwrap();
        assert!(line.contains(" INFO "), "{line}");
        assert!(
            line.ends_with(&format!(
                "{request}:round{{{body}}}: mcp_runtime::server::trace: close"
            )),
            "{line}"
        );
        // The fields in the order the span declares them, each once.
        let fields: Vec<(&str, &str)> = body
            .split(' ')
            .map(|field| field.split_once('=').expect("name=value"))
            .collect();
        let names: Vec<&str> = fields.iter().map(|(name, _)| *name).collect();
        let value = |name: &str| fields.iter().find(|(known, _)| *known == name).map(|f| f.1);
        let mut expected = vec!["round", "shape", "flow"];
        expected.extend(to.map(|_| "from"));
        expected.extend((n < 2).then_some("to"));
        expected.extend((n < 2).then_some("state_bytes"));
        assert_eq!(names, expected, "{line}");
        assert_eq!(value("round"), Some((n + 1).to_string().as_str()), "{line}");
        let shape = value("shape").unwrap();
        assert!(shape.len() == 10 && shape.starts_with('"'), "{line}");
        let this_flow = value("flow").unwrap();
        assert_eq!(this_flow.len(), 18, "{line}");
        assert_eq!(
            *flow.get_or_insert(this_flow),
            this_flow,
            "one flow: {stderr}"
        );
        assert_eq!(value("from"), to, "resumes where the round before stopped");
        to = value("to");
        if n < 2 {
            assert!(value("state_bytes").unwrap().parse::<u64>().unwrap() > 0);
        }
    }
    // The request's own line, after its rounds', with none of their fields.
    let (closed, line) = stderr
        .lines()
        .enumerate()
        .find(|(_, line)| {
            line.contains(r#"request{method="tools/call""#) && round_body(line).is_none()
        })
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.ends_with(&format!(
            r#"connection{{transport="stdio"}}:request{{method="tools/call" id="2" legacy=true target="deploy" outcome="complete" duration_us={} traceparent="{TRACEPARENT}"}}: mcp_runtime::server::trace: close"#,
            line.split("duration_us=").nth(1).and_then(|rest| rest.split(' ').next()).unwrap_or("?")
        )),
        "{line}"
    );
    assert!(rounds.iter().all(|(at, _)| *at < closed), "{stderr}");
}

#[tokio::test]
async fn a_legacy_calls_rounds_are_json_lines_with_the_round_as_their_span() {
    let stderr = legacy_deploy(&["--log-format", "json"]).await;
    let lines: Vec<Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let is_call = |line: &Value| line["spans"][1]["method"] == "tools/call";
    let rounds: Vec<(usize, &Value)> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line["span"]["name"] == "round")
        .collect();
    assert_eq!(rounds.len(), 3, "{stderr}");
    let request = serde_json::json!({"method": "tools/call", "id": "2", "legacy": true,
        "target": "deploy", "traceparent": TRACEPARENT, "name": "request"});
    for (n, (_, line)) in rounds.iter().enumerate() {
        assert_eq!(line["level"], "INFO", "{line}");
        assert_eq!(
            line["fields"],
            serde_json::json!({"message": "close"}),
            "{line}"
        );
        assert_eq!(line["target"], "mcp_runtime::server::trace", "{line}");
        assert!(is_call(line), "{line}");
        let spans = line["spans"].as_array().unwrap();
        assert_eq!(spans.len(), 3, "{line}");
        assert_eq!(
            spans[0],
            serde_json::json!({"transport": "stdio", "name": "connection"})
        );
        assert_eq!(spans[1], request, "{line}");
        assert_eq!(spans[2], line["span"], "{line}");
        let round = &line["span"];
        assert_eq!(round["round"], n + 1, "{line}");
        assert_eq!(round["flow"], rounds[0].1["span"]["flow"], "{line}");
        assert_eq!(round["shape"], rounds[0].1["span"]["shape"], "{line}");
        let mut keys: Vec<&str> = round
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut expected = vec!["round", "shape", "flow"];
        expected.extend((n > 0).then_some("from"));
        expected.extend((n < 2).then_some("to"));
        expected.extend((n < 2).then_some("state_bytes"));
        expected.push("name");
        let mut sorted = expected.clone();
        sorted.sort_unstable();
        assert_eq!(keys, sorted, "{line}");
        if n > 0 {
            assert_eq!(round["from"], rounds[n - 1].1["span"]["to"], "{line}");
        }
    }
    let closed = lines
        .iter()
        .position(|line| {
            line["span"]["name"] == "request" && line["span"]["method"] == "tools/call"
        })
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        lines[closed]["span"].get("round"),
        None,
        "{}",
        lines[closed]
    );
    assert_eq!(lines[closed]["span"]["outcome"], "complete");
    assert!(rounds.iter().all(|(at, _)| *at < closed), "{stderr}");
}
