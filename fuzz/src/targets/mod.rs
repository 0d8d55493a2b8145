//! The fuzz targets, one module each.

pub mod dispatch;
pub mod forms;
pub mod http;
pub mod state;

/// Splits `data` into segments at NUL bytes, which never occur in JSON text (the targets
/// that take several messages or rounds in one input separate them so).
pub(crate) fn segments(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    data.split(|&byte| byte == 0)
}

/// A current-thread runtime whose clock is paused: with nothing else to do it jumps to the
/// next timer, so a server timeout of minutes passes in no time and a deadline that fires
/// means the awaited answer waits on nothing that will ever happen.
pub(crate) fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime")
}

/// The `_meta` of a 2026-07-28 request from a client that can answer every kind of question.
pub(crate) fn meta() -> serde_json::Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}
        },
    })
}

/// One round of a call on the 2026-07-28 wire (`method` with `params`, plus the state and
/// answers given), on `runtime`; returns the answer, checked by [`oracle::response`].
///
/// [`oracle::response`]: crate::oracle::response
pub(crate) fn modern_round(
    runtime: &tokio::runtime::Runtime,
    server: &mcp_runtime::server::Server,
    method: &str,
    params: &serde_json::Value,
    state: Option<&str>,
    answers: Option<serde_json::Value>,
) -> serde_json::Value {
    use serde_json::{Value, json};
    let mut params = params.clone();
    params["_meta"] = meta();
    if let Some(state) = state {
        params["requestState"] = Value::from(state);
    }
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    let message = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let facts = mcp_runtime::server::RequestFacts::http(Some("2026-07-28".to_owned()), None);
    let context = format!("{message}");
    let handling = server.handle(message.to_string().as_bytes(), facts);
    let deadline = mcp_runtime::server::DEFAULT_INPUT_TIMEOUT * 2;
    let outcome = runtime
        .block_on(async { tokio::time::timeout(deadline, handling.finish()).await })
        .unwrap_or_else(|_| panic!("{context}: no answer within {deadline:?} (a hang)"));
    let body = outcome
        .body
        .unwrap_or_else(|| panic!("{context}: a call got no answer"));
    crate::oracle::response(&body, Some(&json!(7)), &context)
}
