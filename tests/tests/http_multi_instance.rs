//! Statelessness over real HTTP: rounds of one flow alternate between two server instances
//! that share a key, many flows at once between two instances in the middle of a key
//! rotation, and an instance with another key refuses their states.

#[path = "support/client.rs"]
mod client;

use std::sync::Arc;

use mcp_runtime::server::Server;
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};
use tokio::sync::Barrier;

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

/// The old key and the new one of a rotation.
const OLD: [u8; 32] = [7; 32];
const NEW: [u8; 32] = [8; 32];

/// Two instances sharing a key ring half-way through a rotation: one already mints with the
/// new key, the other still with the old one; both verify either.
fn rotating_pair() -> (Server, Server) {
    let mut promoted = Signer::new(1, &OLD).unwrap();
    promoted.rotate(2, &NEW).unwrap();
    let mut lagging = Signer::new(1, &OLD).unwrap();
    lagging.add_verifying_key(2, &NEW).unwrap();
    let build = |signer| Server::builder().signer(signer).tool(two_questions).build();
    (build(promoted), build(lagging))
}

#[tokio::test]
async fn concurrent_flows_alternate_between_instances_sharing_a_key_ring() {
    const FLOWS: usize = 6;
    let (promoted, lagging) = rotating_pair();
    let (a, b) = (client::start(promoted).await, client::start(lagging).await);
    let (a, b) = (a.addr, b.addr);
    // Every flow waits here after each of its first two rounds until all are there: the flows
    // are in flight together, and a runner awaiting one flow before the next never passes.
    let in_step = Arc::new(Barrier::new(FLOWS));
    let all_in_step = |barrier: Arc<Barrier>| async move {
        tokio::time::timeout(client::READ_TIMEOUT, barrier.wait())
            .await
            .expect("every flow reaches the same round");
    };
    let flows: Vec<_> = (0..FLOWS)
        .map(|n| {
            let in_step = Arc::clone(&in_step);
            // Even flows start on the instance minting with the new key, odd ones on the other.
            let (first, second) = if n % 2 == 0 { (a, b) } else { (b, a) };
            tokio::spawn(async move {
                let name = format!("Ada{n}");
                let one = round(first, None, None).await;
                let state1 = one["result"]["requestState"].as_str().unwrap().to_owned();
                all_in_step(Arc::clone(&in_step)).await;
                let answer = json!({ "name": accept(json!({ "name": name })) });
                let two = round(second, Some(answer), Some(&state1)).await;
                assert_eq!(two["result"]["resultType"], "input_required", "{two}");
                let state2 = two["result"]["requestState"].as_str().unwrap().to_owned();
                all_in_step(in_step).await;
                let colour = json!({ "color": accept(json!({ "color": format!("c{n}") })) });
                let three = round(first, Some(colour), Some(&state2)).await;
                three["result"]["content"][0]["text"].clone()
            })
        })
        .collect();
    let mut said = Vec::new();
    for flow in flows {
        said.push(flow.await.expect("the flow completes"));
    }
    let expected: Vec<Value> = (0..FLOWS)
        .map(|n| json!(format!("Ada{n} likes c{n}")))
        .collect();
    assert_eq!(said, expected);
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
