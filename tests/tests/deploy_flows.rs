//! The `deploy` example's tools end to end, over real HTTP and over the real stdio of a spawned
//! process: whole multi-round flows, the wire order of form fields, and every response valid
//! against the schema.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;
#[path = "support/schema.rs"]
mod schema;
#[path = "support/stdio.rs"]
mod stdio;

use serde_json::{Value, json};

/// Where the rounds go: a server on a loopback port, or a spawned process's stdin and stdout.
enum Peer {
    Http(client::Running),
    Stdio(Box<stdio::Session>),
}

impl Peer {
    async fn http() -> Self {
        Self::Http(client::start(deploy::server(7)).await)
    }

    fn stdio() -> Self {
        Self::Stdio(Box::new(stdio::Session::spawn_with(&["--deploy"])))
    }

    /// Sends one `tools/call` and returns the response's bytes exactly as they arrived.
    async fn call_tool(&mut self, id: u64, params: Value) -> Vec<u8> {
        match self {
            Self::Http(running) => {
                let answer = client::call(running.addr, json!(id), "tools/call", params).await;
                assert_eq!(
                    answer.status,
                    200,
                    "{}",
                    String::from_utf8_lossy(&answer.body)
                );
                assert_eq!(answer.header("content-type"), Some("application/json"));
                answer.body
            }
            Self::Stdio(session) => {
                let message =
                    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
                session.write(message.to_string().as_bytes()).await;
                session.read_line().await.into_bytes()
            }
        }
    }
}

/// One call of a tool, retried round by round as a client does.
struct Flow<'a> {
    peer: &'a mut Peer,
    tool: &'static str,
    arguments: Value,
    state: Option<String>,
    next_id: u64,
    /// The raw bytes of the last response.
    raw: Vec<u8>,
}

impl<'a> Flow<'a> {
    fn new(peer: &'a mut Peer, tool: &'static str, arguments: Value) -> Self {
        Self {
            peer,
            tool,
            arguments,
            state: None,
            next_id: 1,
            raw: Vec::new(),
        }
    }

    /// Sends the original request again with `answers` and the last state; returns the result
    /// after checking the response against the schema and that its id is echoed.
    async fn round(&mut self, answers: Option<Value>) -> Value {
        let mut params = json!({
            "name": self.tool,
            "arguments": self.arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": client::VERSION,
                "io.modelcontextprotocol/clientCapabilities": { "elicitation": { "form": {} } },
            },
        });
        if let Some(answers) = answers {
            params["inputResponses"] = answers;
        }
        if let Some(state) = &self.state {
            params["requestState"] = state.as_str().into();
        }
        let id = self.next_id;
        self.next_id += 1;
        self.raw = self.peer.call_tool(id, params).await;
        let response: Value = serde_json::from_slice(&self.raw).unwrap_or_else(|error| {
            panic!("not JSON ({error}): {}", String::from_utf8_lossy(&self.raw))
        });
        schema::assert_valid("CallToolResultResponse", &response);
        assert_eq!(response["id"], id);
        let result = response["result"].clone();
        self.state = result["requestState"].as_str().map(str::to_owned);
        result
    }
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

/// Checks an input-required result asks exactly one form question under `key`, and returns
/// its `params`.
fn only_question<'r>(result: &'r Value, key: &str) -> &'r Value {
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert!(result["requestState"].is_string(), "{result}");
    assert!(
        result.get("ttlMs").is_none(),
        "input-required results carry no caching hints"
    );
    let requests = result["inputRequests"].as_object().expect("input requests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), [key], "{result}");
    let request = &requests[key];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    &request["params"]
}

fn final_text(result: &Value) -> &str {
    assert_eq!(result["resultType"], "complete", "{result}");
    assert!(result.get("requestState").is_none());
    result["content"][0]["text"]
        .as_str()
        .expect("a text result")
}

/// Where the first occurrence of `needle` starts in `haystack`.
fn position(haystack: &[u8], needle: &str) -> usize {
    haystack
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
        .unwrap_or_else(|| panic!("`{needle}` not in {}", String::from_utf8_lossy(haystack)))
}

async fn first_round_lists_fields_in_declaration_order(mut peer: Peer) {
    let mut flow = Flow::new(&mut peer, "deploy", json!({ "service": "checkout" }));
    let result = flow.round(None).await;
    let params = only_question(&result, "target");
    assert_eq!(params["message"], "Where should checkout go?");
    let schema = &params["requestedSchema"];
    assert_eq!(schema["required"], json!(["environment", "replicas"]));
    assert_eq!(schema["properties"]["replicas"]["maximum"], 12);
    // The bytes on the wire, not a parsed map: `Target` declares these fields in this order.
    let environment = position(&flow.raw, r#""environment":{"#);
    let replicas = position(&flow.raw, r#""replicas":{"#);
    let reason = position(&flow.raw, r#""reason":{"#);
    assert!(
        environment < replicas && replicas < reason,
        "properties out of field order: {}",
        String::from_utf8_lossy(&flow.raw)
    );
}

async fn production_asks_for_confirmation(mut peer: Peer) {
    let mut flow = Flow::new(&mut peer, "deploy", json!({ "service": "checkout" }));
    only_question(&flow.round(None).await, "target");
    let target = accept(json!({
        "environment": "production", "replicas": 3, "reason": "release 1.4",
    }));
    let result = flow.round(Some(json!({ "target": target }))).await;
    let params = only_question(&result, "confirm");
    assert_eq!(
        params["message"],
        "Ship 3 replicas of checkout to production?"
    );
    assert_eq!(
        params["requestedSchema"]["properties"]["ok"]["type"],
        "boolean"
    );
    let result = flow
        .round(Some(json!({ "confirm": accept(json!({ "ok": true })) })))
        .await;
    assert_eq!(
        final_text(&result),
        "Deployed 3 replicas of checkout to Production (release 1.4)."
    );
}

async fn production_refused_deploys_nothing(mut peer: Peer) {
    let mut flow = Flow::new(&mut peer, "deploy", json!({ "service": "search" }));
    only_question(&flow.round(None).await, "target");
    let target = accept(json!({ "environment": "production", "replicas": 1 }));
    only_question(
        &flow.round(Some(json!({ "target": target }))).await,
        "confirm",
    );
    let result = flow
        .round(Some(json!({ "confirm": accept(json!({ "ok": false })) })))
        .await;
    assert_eq!(final_text(&result), "Nothing deployed.");
}

async fn staging_needs_no_confirmation(mut peer: Peer) {
    let mut flow = Flow::new(&mut peer, "deploy", json!({ "service": "checkout" }));
    only_question(&flow.round(None).await, "target");
    let target = accept(json!({ "environment": "staging", "replicas": 2 }));
    let result = flow.round(Some(json!({ "target": target }))).await;
    assert_eq!(
        final_text(&result),
        "Deployed 2 replicas of checkout to Staging."
    );
}

async fn confirm_deploy_asks_once(mut peer: Peer) {
    let mut flow = Flow::new(&mut peer, "confirm_deploy", json!({}));
    let result = flow.round(None).await;
    let params = only_question(&result, "confirm");
    assert_eq!(params["message"], "Deploy to production?");
    let schema = &params["requestedSchema"];
    assert_eq!(schema["required"], json!(["ok"]));
    assert_eq!(
        schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["ok"]
    );
    assert_eq!(schema["properties"]["ok"]["type"], "boolean");
    let result = flow
        .round(Some(json!({ "confirm": accept(json!({ "ok": true })) })))
        .await;
    assert_eq!(final_text(&result), "Deployment confirmed.");
}

#[tokio::test]
async fn http_first_round_lists_form_fields_in_declaration_order() {
    first_round_lists_fields_in_declaration_order(Peer::http().await).await;
}

#[tokio::test]
async fn stdio_first_round_lists_form_fields_in_declaration_order() {
    first_round_lists_fields_in_declaration_order(Peer::stdio()).await;
}

#[tokio::test]
async fn http_deploy_to_production_asks_for_confirmation() {
    production_asks_for_confirmation(Peer::http().await).await;
}

#[tokio::test]
async fn stdio_deploy_to_production_asks_for_confirmation() {
    production_asks_for_confirmation(Peer::stdio()).await;
}

#[tokio::test]
async fn http_deploy_to_production_refused_deploys_nothing() {
    production_refused_deploys_nothing(Peer::http().await).await;
}

#[tokio::test]
async fn stdio_deploy_to_production_refused_deploys_nothing() {
    production_refused_deploys_nothing(Peer::stdio()).await;
}

#[tokio::test]
async fn http_deploy_to_staging_needs_no_confirmation() {
    staging_needs_no_confirmation(Peer::http().await).await;
}

#[tokio::test]
async fn stdio_deploy_to_staging_needs_no_confirmation() {
    staging_needs_no_confirmation(Peer::stdio()).await;
}

#[tokio::test]
async fn http_confirm_deploy_completes_in_two_rounds() {
    confirm_deploy_asks_once(Peer::http().await).await;
}

#[tokio::test]
async fn stdio_confirm_deploy_completes_in_two_rounds() {
    confirm_deploy_asks_once(Peer::stdio()).await;
}

#[tokio::test]
async fn discover_and_tools_list_validate_over_http() {
    let Peer::Http(running) = Peer::http().await else {
        unreachable!()
    };
    let discover = client::call(running.addr, json!(0), "server/discover", json!({})).await;
    schema::assert_valid("DiscoverResultResponse", &discover.json());
    let list = client::call(running.addr, json!("list"), "tools/list", json!({})).await;
    let list = list.json();
    schema::assert_valid("ListToolsResultResponse", &list);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["deploy", "confirm_deploy", "deployments"]);
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools[0]["title"], "Deploy a service");
    assert_eq!(
        tools[0]["annotations"],
        json!({"destructiveHint": false, "openWorldHint": false})
    );
    assert!(tools[0].get("outputSchema").is_none(), "{}", tools[0]);
    assert_eq!(tools[2]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools[2]["outputSchema"]["type"], "object");
}
