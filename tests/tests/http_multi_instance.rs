//! Statelessness over real HTTP: rounds of one flow alternate between two server instances
//! that share a key, and an instance with another key refuses their states.

#[path = "support/client.rs"]
mod client;

use mcp_runtime::server::Server;
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Color {
    color: String,
}

/// Asks a name, then a colour.
#[tool]
async fn two_questions(cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Name?").await?;
    let color: Color = cx.elicit(format!("{}, your colour?", name.name)).await?;
    Ok(text(format!("{} likes {}", name.name, color.color)))
}

fn instance(secret: u8) -> Server {
    let signer = Signer::new(1, &[secret; 32]).unwrap();
    Server::builder().signer(signer).tool(two_questions).build()
}

fn caps() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": client::VERSION,
        "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
    })
}

async fn round(addr: std::net::SocketAddr, answers: Option<Value>, state: Option<&str>) -> Value {
    let mut params = json!({ "name": "two_questions", "arguments": {}, "_meta": caps() });
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    if let Some(state) = state {
        params["requestState"] = state.into();
    }
    let answer = client::call(addr, json!(1), "tools/call", params).await;
    answer.json()
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[tokio::test]
async fn rounds_alternate_between_instances_sharing_a_key() {
    let a = client::start(instance(7)).await;
    let b = client::start(instance(7)).await;
    let first = round(a.addr, None, None).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state1 = first["result"]["requestState"].as_str().unwrap().to_owned();
    let second = round(
        b.addr,
        Some(json!({ "name": accept(json!({ "name": "Ada" })) })),
        Some(&state1),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "input_required", "{second}");
    let state2 = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(state1, state2);
    let third = round(
        a.addr,
        Some(json!({ "color": accept(json!({ "color": "teal" })) })),
        Some(&state2),
    )
    .await;
    assert_eq!(third["result"]["resultType"], "complete", "{third}");
    assert_eq!(third["result"]["content"][0]["text"], "Ada likes teal");
}

#[tokio::test]
async fn an_instance_with_another_key_refuses_the_state() {
    let a = client::start(instance(7)).await;
    let other = client::start(instance(9)).await;
    let first = round(a.addr, None, None).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let refused = round(
        other.addr,
        Some(json!({ "name": accept(json!({ "name": "Ada" })) })),
        Some(&state),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        mcp_runtime::state::INVALID_STATE_MESSAGE
    );
}
