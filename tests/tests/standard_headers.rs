//! The standard request headers of revision 2026-07-28 over real sockets (SEP-2243):
//! `Mcp-Method` on every message, `Mcp-Name` on calls, and the `Mcp-Param-*` headers a tool's
//! `x-mcp-header` marks ask for. Every row of the revision's validation table, with nothing
//! run when a header is refused.

#[path = "support/client.rs"]
mod client;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use client::{header_value, meta, send};
use mcp_runtime::server::{BuildError, Server};
use mcp_runtime::{State, ToolResult, text, tool};
use serde_json::{Value, json};

/// How many times a tool body ran.
#[derive(Default)]
struct Runs(AtomicUsize);

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct QueryArgs {
    /// Where the query runs; clients mirror it as `Mcp-Param-Region`.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: Option<String>,
    /// Which shard; mirrored as `Mcp-Param-Shard`.
    #[schemars(extend("x-mcp-header" = "Shard"))]
    shard: Option<u32>,
    /// Not mirrored.
    query: String,
}

/// Runs a query.
#[tool]
async fn query(args: QueryArgs, State(runs): State<Arc<Runs>>) -> ToolResult {
    runs.0.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!(
        "{} on {}, shard {:?}",
        args.query,
        args.region.as_deref().unwrap_or("anywhere"),
        args.shard
    )))
}

fn server(runs: &Arc<Runs>) -> Server {
    Server::builder()
        .name("headers")
        .tool(query)
        .state(Arc::clone(runs))
        .resource(mcp_examples::tracker::issue)
        .state(mcp_examples::tracker::Tracker::default())
        .build()
}

fn message(method: &str, params: Value) -> Vec<u8> {
    let mut params = params;
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn call(arguments: Value) -> Vec<u8> {
    message(
        "tools/call",
        json!({"name": "query", "arguments": arguments}),
    )
}

/// Sends `body` with the mirrored headers replaced by `headers` (an empty value removes one):
/// the status and the JSON-RPC error code, if any.
async fn exchange(
    addr: std::net::SocketAddr,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Option<i64>) {
    let answer = send(addr, "POST", headers, body).await;
    let code = answer.json()["error"]["code"].as_i64();
    (answer.status, code)
}

const MISMATCH: (u16, Option<i64>) = (400, Some(-32020));
const OK: (u16, Option<i64>) = (200, None);

#[tokio::test]
async fn mcp_method_is_required_on_every_message_and_matched_exactly() {
    let runs = Arc::new(Runs::default());
    let running = client::start(server(&runs)).await;
    let addr = running.addr;
    let list = message("tools/list", json!({}));
    assert_eq!(exchange(addr, &[], &list).await, OK);
    assert_eq!(
        exchange(addr, &[("Mcp-Method", "")], &list).await,
        MISMATCH,
        "missing"
    );
    assert_eq!(
        exchange(addr, &[("Mcp-Method", "tools/call")], &list).await,
        MISMATCH,
        "another method"
    );
    assert_eq!(
        exchange(addr, &[("Mcp-Method", "Tools/List")], &list).await,
        MISMATCH,
        "values are case-sensitive"
    );
    assert_eq!(
        exchange(addr, &[("mCP-mETHOD", "tools/list")], &list).await,
        OK,
        "names are not"
    );
    let discover = message("server/discover", json!({}));
    assert_eq!(
        exchange(addr, &[("Mcp-Method", "")], &discover).await,
        MISMATCH
    );
    // A notification carries it too.
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        .to_string()
        .into_bytes();
    assert_eq!(send(addr, "POST", &[], &notification).await.status, 202);
    assert_eq!(
        exchange(addr, &[("Mcp-Method", "")], &notification).await,
        MISMATCH
    );
}

#[tokio::test]
async fn mcp_name_is_required_on_calls_and_decoded_before_it_is_compared() {
    let runs = Arc::new(Runs::default());
    let running = client::start(server(&runs)).await;
    let addr = running.addr;
    let body = call(json!({"query": "select 1"}));
    assert_eq!(exchange(addr, &[], &body).await, OK);
    assert_eq!(
        exchange(addr, &[("Mcp-Name", "")], &body).await,
        MISMATCH,
        "missing"
    );
    assert_eq!(
        exchange(addr, &[("Mcp-Name", "other")], &body).await,
        MISMATCH,
        "another tool"
    );
    assert_eq!(
        exchange(addr, &[("Mcp-Name", "=?base64?cXVlcnk=?=")], &body).await,
        OK,
        "`query` in the Base64 sentinel"
    );
    assert_eq!(
        exchange(addr, &[("Mcp-Name", "=?base64?cXVlcnk?=")], &body)
            .await
            .0,
        400,
        "unpadded Base64 is malformed"
    );
    assert_eq!(
        runs.0.load(Ordering::SeqCst),
        2,
        "refused calls ran nothing"
    );
    // A resource URI with a space and a non-ASCII letter travels in the sentinel.
    let uri = "tracker://issues/1 ü";
    let read = message("resources/read", json!({ "uri": uri }));
    let encoded = header_value(uri);
    assert!(encoded.starts_with("=?base64?"), "{encoded}");
    let (status, code) = exchange(addr, &[], &read).await;
    assert_ne!((status, code), MISMATCH, "the sentinel matched");
    assert_eq!(
        exchange(addr, &[("Mcp-Name", "tracker://issues/1")], &read).await,
        MISMATCH
    );
    // Bytes no header value may hold.
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: qu\u{e9}ry\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let mut bytes = raw.into_bytes();
    bytes.extend_from_slice(&body);
    let (status, answer) = client::raw_exchange(addr, &bytes).await;
    assert_eq!(status, 400, "{answer}");
    assert!(answer.contains("-32020"), "{answer}");
}

#[tokio::test]
async fn marked_arguments_are_mirrored_and_checked_against_the_body() {
    let runs = Arc::new(Runs::default());
    let running = client::start(server(&runs)).await;
    let addr = running.addr;
    let listed = client::call(addr, json!(1), "tools/list", json!({}))
        .await
        .json();
    let properties = &listed["result"]["tools"][0]["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region", "{listed}");
    assert_eq!(properties["shard"]["x-mcp-header"], "Shard");
    assert!(properties["query"].get("x-mcp-header").is_none());

    let full = call(json!({"query": "q", "region": "Hello, 世界", "shard": 42}));
    let region = header_value("Hello, 世界");
    let rows: [(&[(&str, &str)], _, &str); 8] = [
        (
            &[("Mcp-Param-Region", &region), ("Mcp-Param-Shard", "42")],
            OK,
            "both given",
        ),
        (
            &[("mcp-param-region", &region), ("MCP-PARAM-SHARD", "42.0")],
            OK,
            "compared as numbers",
        ),
        (
            &[("Mcp-Param-Shard", "42")],
            MISMATCH,
            "a value in the body, no header",
        ),
        (
            &[("Mcp-Param-Region", "Hello"), ("Mcp-Param-Shard", "42")],
            MISMATCH,
            "another value",
        ),
        (
            &[("Mcp-Param-Region", &region), ("Mcp-Param-Shard", "41")],
            MISMATCH,
            "another number",
        ),
        (
            &[
                ("Mcp-Param-Region", "=?base64?***?="),
                ("Mcp-Param-Shard", "42"),
            ],
            MISMATCH,
            "bad Base64",
        ),
        (
            &[
                ("Mcp-Param-Region", &region),
                ("Mcp-Param-Shard", "forty-two"),
            ],
            MISMATCH,
            "not a number",
        ),
        (
            &[
                ("Mcp-Param-Region", &region),
                ("Mcp-Param-Shard", "42"),
                ("Mcp-Param-Other", "x"),
            ],
            OK,
            "headers of no mark are ignored",
        ),
    ];
    for (headers, expected, what) in rows {
        assert_eq!(exchange(addr, headers, &full).await, expected, "{what}");
    }
    // A value that is null, or absent, needs no header and may not have one.
    let sparse = call(json!({"query": "q", "region": null}));
    assert_eq!(exchange(addr, &[], &sparse).await, OK);
    assert_eq!(
        exchange(addr, &[("Mcp-Param-Region", "eu")], &sparse).await,
        MISMATCH
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 4, "only accepted calls ran");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Misread {
    /// A number cannot be mirrored.
    #[schemars(extend("x-mcp-header" = "Ratio"))]
    ratio: f64,
}

/// Marks an argument clients refuse to mirror.
#[tool]
async fn misread(args: Misread) -> ToolResult {
    Ok(text(args.ratio.to_string()))
}

#[test]
fn a_mark_clients_would_refuse_is_refused_at_build() {
    let error = Server::builder().tool(misread).try_build().unwrap_err();
    assert!(
        matches!(&error, BuildError::HeaderMark { tool, .. } if tool == "misread"),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .contains("not a string, an integer or a boolean"),
        "{error}"
    );
}
