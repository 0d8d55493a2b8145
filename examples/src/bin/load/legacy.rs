//! Legacy flows: one 2025-11-25 session a worker, the question read from the call's event
//! stream and answered with a POST on a second connection.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use http_body_util::BodyExt;

use super::{Connection, Control, Tally, micros};

/// Runs legacy flows back to back: one session, the call's stream on `calls`, the answer to
/// its question POSTed on `answers`.
pub(crate) async fn drive_legacy(
    mut calls: Connection,
    mut answers: Connection,
    worker: u64,
    control: Arc<Control>,
) -> Result<Tally, String> {
    let (status, body) = calls.send(INITIALIZE.to_owned(), None).await?;
    let session = status.ok_or("initialize answered no session id")?;
    let _ = body.collect().await;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let (_, body) = answers.send(initialized.to_owned(), Some(&session)).await?;
    let _ = body.collect().await;
    let mut tally = Tally::default();
    let mut id = worker << 32;
    while control.next_flow() {
        id += 1;
        let started = Instant::now();
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"confirm_deploy","arguments":{{}}}}}}"#
        );
        let (_, mut stream) = calls.send(call, Some(&session)).await?;
        let mut events = Events::default();
        let question = events.next(&mut stream).await?;
        let asked = Instant::now();
        let question: serde_json::Value =
            serde_json::from_slice(&question).map_err(|error| error.to_string())?;
        let reply = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"accept","content":{{"ok":true}}}}}}"#,
            question["id"]
        );
        let (_, body) = answers.send(reply, Some(&session)).await?;
        let _ = body.collect().await;
        let answered = Instant::now();
        let last = events.next(&mut stream).await?;
        let done = Instant::now();
        let last: serde_json::Value =
            serde_json::from_slice(&last).map_err(|error| error.to_string())?;
        if last
            .pointer("/result/content/0/text")
            .and_then(|text| text.as_str())
            != Some("Deployment confirmed.")
        {
            return Err(format!("unexpected final answer: {last}"));
        }
        while stream.frame().await.is_some() {}
        if control.measuring.load(Ordering::Relaxed) {
            tally.flows += 1;
            tally.rounds.push(micros(asked - started));
            tally.rounds.push(micros(done - answered));
        }
    }
    Ok(tally)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"load","version":"1.0.0"}}}"#;

/// Splits an event stream into the `data` of its events.
#[derive(Default)]
struct Events {
    buffer: Vec<u8>,
}

impl Events {
    async fn next(&mut self, body: &mut hyper::body::Incoming) -> Result<Vec<u8>, String> {
        loop {
            if let Some(end) = self.buffer.windows(2).position(|window| window == b"\n\n") {
                let event: Vec<u8> = self.buffer.drain(..end + 2).collect();
                let data = event
                    .split(|&byte| byte == b'\n')
                    .find_map(|line| line.strip_prefix(b"data: "));
                if let Some(data) = data {
                    return Ok(data.to_vec());
                }
                continue;
            }
            let frame = body
                .frame()
                .await
                .ok_or("the stream ended early")?
                .map_err(|error| format!("cannot read the stream: {error}"))?;
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }
}
