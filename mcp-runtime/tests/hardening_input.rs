//! Client-chosen input on a server open to the network: it reaches the log escaped, cut and
//! rate-limited, comes back in a re-ask only cut, and a root that is not a `file://` URI is
//! an invalid answer.
#![allow(deprecated)] // reason: roots are deprecated on the wire, yet still served

use std::time::{Duration, Instant};

use mcp_runtime::protocol::{ReadResourceResult, ResourceContents, TextResourceContents};
use mcp_runtime::state::INVALID_STATE_MESSAGE;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ResourceResult, ToolResult, resource, text, tool};
use serde_json::{Value, json};

mod support;
use support::logs::{capture, serial};

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

/// A resource template whose `{id}` is whatever the client puts in the URI.
#[resource(uri = "test://item/{id}", mime_type = "text/plain")]
async fn item(args: Id, cx: Cx) -> ResourceResult {
    let confirm: Confirm = cx.elicit("Read it?").await?;
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: format!("test://item/{}", args.id),
            text: format!("{} {}", args.id.len(), confirm.ok),
            ..TextResourceContents::default()
        })],
        ..ReadResourceResult::default()
    })
}

/// A tool that asks one form question.
#[tool]
async fn confirm_once(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Go ahead?").await?;
    Ok(text(format!("ok: {}", confirm.ok)))
}

/// A tool that asks for the client's roots and reports them.
#[tool]
async fn show_roots(cx: Cx) -> ToolResult {
    let roots = cx.list_roots().await;
    let uris: Vec<String> = roots.roots.into_iter().map(|root| root.uri).collect();
    Ok(text(format!("roots: {}", uris.join(", "))))
}

fn refusal_lines(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| line.contains("refused requestState"))
        .collect()
}

/// Sends a state the server cannot verify, and checks it is refused.
async fn refuse(tester: &FlowTester) {
    let round = tester.send(Some("bm90IGEgc3RhdGU"), None).await;
    let error = round.error().expect("a bad state is refused");
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
}

#[tokio::test]
async fn a_uri_with_a_newline_and_an_escape_is_logged_escaped_on_one_line() {
    let _serial = serial().await;
    let (_guard, log) = capture();
    let uri = "test://item/x\n2030-01-01T00:00:00Z  WARN forged line\x1b[31m red\u{202e}";
    refuse(&FlowTester::resource(item, uri)).await;

    let log = log.text();
    let lines = refusal_lines(&log);
    assert_eq!(lines.len(), 1, "{log}");
    let line = lines[0];
    assert!(
        line.contains(
            r"test://item/x\n2030-01-01T00:00:00Z  WARN forged line\u{1b}[31m red\u{202e}"
        ),
        "{line}"
    );
    assert!(!log.contains('\x1b'), "an escape reached the log: {log:?}");
    assert!(
        !log.contains('\u{202e}'),
        "a bidi control reached the log: {log:?}"
    );
    assert!(
        !log.lines().any(|line| line.starts_with("2030-01-01")),
        "a forged line: {log}"
    );
}

#[tokio::test]
async fn a_huge_uri_is_cut_in_the_log() {
    let _serial = serial().await;
    let (_guard, log) = capture();
    let id = "a".repeat(4 << 20);
    refuse(&FlowTester::resource(item, format!("test://item/{id}"))).await;

    let log = log.text();
    let lines = refusal_lines(&log);
    assert_eq!(lines.len(), 1, "{} bytes of log", log.len());
    assert!(
        log.len() < 4096,
        "{} bytes of log for one refusal",
        log.len()
    );
    // The first 200 characters are shown; what was cut is counted, in bytes.
    let cut = "test://item/".len() + id.len() - 200;
    assert!(
        lines[0].contains(&format!(
            "{}…(+{cut} bytes)",
            &id[..200 - "test://item/".len()]
        )),
        "{}",
        lines[0]
    );
}

#[tokio::test]
async fn a_flood_of_refusals_logs_a_bounded_number_of_lines_and_counts_the_rest() {
    const REFUSALS: usize = 13_000;
    // The driver's limit: 10 lines per 5 s window.
    const LINES: usize = 10;
    const WINDOW: Duration = Duration::from_secs(5);

    let _serial = serial().await;
    let (_guard, log) = capture();
    let tester = FlowTester::resource(item, "test://item/flood");
    let started = Instant::now();
    for _ in 0..REFUSALS {
        refuse(&tester).await;
    }
    let elapsed = started.elapsed();
    let windows = elapsed.as_millis().div_ceil(WINDOW.as_millis()) as usize + 1;
    let flood = log.text();
    let lines = refusal_lines(&flood).len();
    assert!(
        lines <= LINES * windows,
        "{lines} lines for {REFUSALS} refusals in {elapsed:?}"
    );

    // Once the window rolls over, the next line says how many were left out.
    tokio::time::sleep(WINDOW).await;
    refuse(&tester).await;
    let log = log.text();
    let lines = refusal_lines(&log);
    let suppressed: usize = lines
        .iter()
        .filter_map(|line| {
            let (_, rest) = line.split_once("suppressed=")?;
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    assert!(suppressed > 0, "no line counted what was left out: {log}");
    assert_eq!(lines.len() + suppressed, REFUSALS + 1, "{log}");
}

#[tokio::test]
async fn an_unknown_action_is_cut_in_the_re_ask() {
    let tester = FlowTester::tool(confirm_once);
    let first = tester.start().await;
    let action = "x".repeat(1 << 20);
    let again = first
        .answer(json!({"confirm": {"action": action, "content": {"ok": true}}}))
        .await;
    assert_eq!(again.questions(), ["confirm"], "{again}");
    let request = serde_json::to_value(&again.requests().unwrap()["confirm"]).unwrap();
    let message = request
        .pointer("/params/message")
        .and_then(Value::as_str)
        .unwrap();
    assert!(message.len() < 1024, "a {} byte re-ask", message.len());
    assert!(message.starts_with("Go ahead?"), "{message}");
    assert!(message.contains("unknown action `xxxx"), "{message}");
}

#[tokio::test]
async fn a_root_that_is_not_a_file_uri_is_asked_again() {
    let tester = FlowTester::tool(show_roots);
    let first = tester.start().await;
    assert_eq!(first.questions(), ["roots"]);

    let evil = first
        .answer(json!({"roots": {"roots": [
            {"uri": "file:///home/ada/project"},
            {"uri": "http://evil/"},
        ]}}))
        .await;
    assert_eq!(evil.text(), None, "the handler got a non-file root: {evil}");
    assert_eq!(evil.questions(), ["roots"], "{evil}");
    let request = serde_json::to_value(&evil.requests().unwrap()["roots"]).unwrap();
    assert_eq!(request["method"], "roots/list");

    let good = first
        .answer(json!({"roots": {"roots": [{"uri": "file:///home/ada/project"}]}}))
        .await;
    assert_eq!(
        good.text(),
        Some("roots: file:///home/ada/project"),
        "{good}"
    );
}
