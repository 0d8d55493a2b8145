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
