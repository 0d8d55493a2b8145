//! A call's `_meta`, over real sockets: read straight into what the runtime decides on when it
//! is in the shape clients send every round, and read in a map otherwise (a key it does not
//! read fast, such as `traceparent`, a standard key of another type, a key sent twice). Both
//! readings must decide alike: the capabilities gate elicitation, malformed `_meta` gets the
//! same error, and the handler and a binding policy see every key as sent.

#[path = "support/client.rs"]
mod client;

use mcp_runtime::server::Server;
use mcp_runtime::state::{Signer, default_binding};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// A key `_meta` is never read fast with: the request's span reads it from the map.
const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

#[derive(ElicitForm)]
struct Go {
    go: bool,
}

/// Asks one form question, then answers the `_meta` it saw on its last round.
#[tool]
async fn ask(cx: Cx) -> ToolResult {
    let go: Go = cx.elicit("Go on?").await?;
    let meta = Value::Object(cx.request().meta().clone());
    Ok(text(json!({"go": go.go, "meta": meta}).to_string()))
}

/// Answers the `_meta` it saw.
#[tool]
async fn echo(cx: Cx) -> ToolResult {
    Ok(text(Value::Object(cx.request().meta().clone()).to_string()))
}

fn server() -> Server {
    Server::builder().name("meta").tool(ask).tool(echo).build()
}

fn usual(capabilities: Value) -> Value {
    json!({VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: capabilities})
}

/// `meta` as sent, and with a `traceparent` added so that it is read in a map.
fn both_readings(meta: &Value) -> [Value; 2] {
    let mut mapped = meta.clone();
    mapped["traceparent"] = json!(TRACEPARENT);
    [meta.clone(), mapped]
}

/// POSTs `body` as it is, with conforming headers, and answers the status and the JSON.
async fn post(addr: std::net::SocketAddr, body: &str) -> (u16, Value) {
    let answer = client::send(addr, "POST", &[], body.as_bytes()).await;
    (answer.status, answer.json())
}

async fn call(addr: std::net::SocketAddr, params: Value) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    post(addr, &body.to_string()).await
}

fn reported(answer: &Value) -> Value {
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    serde_json::from_str(text).unwrap()
}

#[tokio::test]
async fn capabilities_read_from_meta_still_gate_elicitation() {
    let running = client::start(server()).await;
    for meta in both_readings(&usual(json!({"elicitation": {"form": {}}}))) {
        let (status, answer) = call(running.addr, json!({"name": "ask", "_meta": meta})).await;
        assert_eq!(status, 200, "{answer}");
        let result = &answer["result"];
        assert_eq!(result["resultType"], "input_required", "{answer}");
        assert_eq!(result["inputRequests"]["go"]["params"]["mode"], "form");
        let state = result["requestState"].as_str().unwrap();
        let (status, answer) = call(
            running.addr,
            json!({"name": "ask", "_meta": meta, "requestState": state,
                   "inputResponses": {"go": {"action": "accept", "content": {"go": true}}}}),
        )
        .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(reported(&answer), json!({"go": true, "meta": meta}));
    }
    // A client that declares URL mode only is not asked a form question, either way.
    for capabilities in [json!({"elicitation": {"url": {}}}), json!({})] {
        for meta in both_readings(&usual(capabilities.clone())) {
            let (status, answer) = call(running.addr, json!({"name": "ask", "_meta": meta})).await;
            assert_eq!(status, 400, "{answer}");
            assert_eq!(answer["error"]["code"], -32021, "{capabilities}: {answer}");
            assert_eq!(
                answer["error"]["data"]["requiredCapabilities"],
                json!({"elicitation": {"form": {}}})
            );
        }
    }
}

#[tokio::test]
async fn unknown_meta_keys_reach_the_handler_as_sent() {
    let running = client::start(server()).await;
    let mut meta = usual(json!({"elicitation": {}, "roots": {"listChanged": true}}));
    meta["example.com/tenant"] = json!({"id": [1, 2, {"deep": null}]});
    meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "c", "version": "1"});
    meta["progressToken"] = json!("p");
    for meta in both_readings(&meta) {
        let (status, answer) = call(running.addr, json!({"name": "echo", "_meta": meta})).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(reported(&answer), meta);
    }
    // A key sent twice keeps its last value, as in a map; a standard key sent twice too.
    let version = format!(r#""{VERSION_KEY}":"2026-07-28""#);
    let capabilities = format!(r#""{CAPABILITIES_KEY}":{{}}"#);
    for meta in [
        format!(r#"{{{version},{capabilities},"k":1,"k":[2]}}"#),
        format!(r#"{{{version},{capabilities},"k":1,{version},"k":[2]}}"#),
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","_meta":{meta}}}}}"#
        );
        let (status, answer) = post(running.addr, &body).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(reported(&answer)["k"], json!([2]), "{meta}");
    }
}

#[tokio::test]
async fn malformed_meta_is_answered_as_before() {
    let running = client::start(server()).await;
    let version = format!(r#""{VERSION_KEY}":"2026-07-28""#);
    let capabilities = format!(r#""{CAPABILITIES_KEY}":{{"elicitation":{{"form":{{}}}}}}"#);
    let usual = format!("{{{version},{capabilities}}}");
    let cases = [
        ("5".to_owned(), -32602, "`_meta` must be an object".to_owned()),
        (
            format!(r#"{usual},"_meta":5"#),
            -32602,
            "`_meta` must be an object".to_owned(),
        ),
        (
            format!(r#"{{"{VERSION_KEY}":5,{capabilities}}}"#),
            -32602,
            format!("`_meta.{VERSION_KEY}` must be a string"),
        ),
        (
            format!(r#"{{{version},"{CAPABILITIES_KEY}":[]}}"#),
            -32602,
            format!("`_meta.{CAPABILITIES_KEY}` must be an object"),
        ),
        (
            format!(r#"{{{version},"{CAPABILITIES_KEY}":{{"elicitation":5}}}}"#),
            -32602,
            "invalid client capabilities: invalid type: integer `5`, expected struct ElicitationCapability".to_owned(),
        ),
        (
            format!(r#"{{{version},{capabilities},"progressToken":1.5}}"#),
            -32602,
            "`_meta.progressToken` must be a string or an integer".to_owned(),
        ),
        (
            format!(r#"{{{version},{capabilities},"io.modelcontextprotocol/logLevel":"loud"}}"#),
            -32602,
            "`_meta.io.modelcontextprotocol/logLevel` must be a log level".to_owned(),
        ),
        (
            format!(r#"{{"{VERSION_KEY}":"2025-11-25",{capabilities}}}"#),
            -32020,
            "the `MCP-Protocol-Version` header `2026-07-28` does not match `_meta` version `2025-11-25`".to_owned(),
        ),
        (
            format!(r#"{{{version},{capabilities},"s":"\x"}}"#),
            -32700,
            "parse error: invalid escape at line 1 column 213".to_owned(),
        ),
    ];
    for (meta, code, message) in cases {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask","_meta":{meta}}}}}"#
        );
        let (status, answer) = post(running.addr, &body).await;
        assert_eq!(status, 400, "{meta}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{meta}: {answer}");
        assert_eq!(answer["error"]["message"], message, "{meta}");
    }
    // Escaped, a standard key or the version is read in a map, and means what it says.
    for meta in [
        format!(r#"{{"{VERSION_KEY}":"2026-07-2\u0038",{capabilities}}}"#),
        format!(
            r#"{{"io.modelcontextprotocol/protocol\u0056ersion":"2026-07-28",{capabilities}}}"#
        ),
    ] {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask","_meta":{meta}}}}}"#
        );
        let (status, answer) = post(running.addr, &body).await;
        assert_eq!(status, 200, "{meta}: {answer}");
        assert_eq!(answer["result"]["resultType"], "input_required");
    }
}

#[tokio::test]
async fn a_binding_policy_still_reads_meta() {
    let signer = Signer::random().unwrap().with_policy(|cx| {
        let tenant = cx
            .meta
            .and_then(|meta| meta.get("example.com/tenant"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        default_binding(cx).extended(tenant.as_bytes())
    });
    let running = client::start(
        Server::builder()
            .name("meta")
            .signer(signer)
            .tool(ask)
            .build(),
    )
    .await;
    let tenant = |name: &str| {
        let mut meta = usual(json!({"elicitation": {}}));
        meta["example.com/tenant"] = json!(name);
        meta
    };
    let (_, first) = call(running.addr, json!({"name": "ask", "_meta": tenant("a")})).await;
    let state = first["result"]["requestState"].as_str().unwrap();
    let answers = json!({"go": {"action": "accept", "content": {"go": false}}});
    let retry = |meta: Value| json!({"name": "ask", "_meta": meta, "requestState": state, "inputResponses": answers});
    let (_, other) = call(running.addr, retry(tenant("b"))).await;
    assert!(client::is_state_refusal(&other), "{other}");
    let (status, same) = call(running.addr, retry(tenant("a"))).await;
    assert_eq!(status, 200, "{same}");
    assert_eq!(reported(&same)["go"], false);
}
