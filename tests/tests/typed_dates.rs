//! Typed date and date-time form fields (`jiff` and `chrono`) over real HTTP: the schema
//! says their formats, a date that does not exist or a time without an offset is asked again
//! with the reason, and a valid answer arrives as the typed value.

#[path = "support/client.rs"]
mod client;

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Stay {
    /// The first night.
    arrival: jiff::civil::Date,
    /// The morning of leaving.
    departure: chrono::NaiveDate,
    /// When the car should wait, if one should.
    pickup: Option<jiff::Timestamp>,
    /// When to call before arriving.
    call: chrono::DateTime<chrono::Utc>,
}

/// Book a stay.
#[tool]
async fn book(cx: Cx) -> ToolResult {
    let stay: Stay = cx.elicit("When do you stay?").await?;
    let nights = (stay.departure - stay_arrival(stay.arrival)).num_days();
    let pickup = stay
        .pickup
        .map_or_else(|| "no car".to_owned(), |at| format!("a car at {at}"));
    Ok(text(format!(
        "{nights} nights from {}, {pickup}, a call at {}",
        stay.arrival,
        stay.call.to_rfc3339()
    )))
}

/// The same day as chrono sees it.
fn stay_arrival(date: jiff::civil::Date) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(
        i32::from(date.year()),
        u32::try_from(date.month()).unwrap_or(1),
        u32::try_from(date.day()).unwrap_or(1),
    )
    .unwrap_or_default()
}

fn params(state: Option<&str>, answer: Option<Value>) -> Value {
    let mut params = json!({
        "name": "book",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = Value::from(state);
    }
    if let Some(answer) = answer {
        params["inputResponses"] = json!({"stay": {"action": "accept", "content": answer}});
    }
    params
}

#[tokio::test]
async fn dates_are_asked_by_format_re_asked_when_wrong_and_arrive_typed() {
    let running = client::start(Server::builder().name("stays").tool(book).build()).await;
    let first = client::call(running.addr, json!(1), "tools/call", params(None, None)).await;
    let first = first.json();
    let schema = &first["result"]["inputRequests"]["stay"]["params"]["requestedSchema"];
    for (field, format) in [
        ("arrival", "date"),
        ("departure", "date"),
        ("pickup", "date-time"),
        ("call", "date-time"),
    ] {
        assert_eq!(schema["properties"][field]["type"], "string", "{schema}");
        assert_eq!(schema["properties"][field]["format"], format, "{schema}");
    }
    assert_eq!(schema["required"], json!(["arrival", "departure", "call"]));
    let state = first["result"]["requestState"].as_str().expect("a state");

    // 30 February does not exist; a date-time needs its offset.
    let wrong = json!({
        "arrival": "2026-02-30", "departure": "2026-03-04", "call": "2026-03-01T09:00:00"
    });
    let again = client::call(
        running.addr,
        json!(2),
        "tools/call",
        params(Some(state), Some(wrong)),
    )
    .await;
    let again = again.json();
    let asked = &again["result"]["inputRequests"]["stay"]["params"]["message"];
    let message = asked.as_str().expect("asked again");
    assert!(message.contains("`arrival`"), "{message}");
    assert!(message.contains("`call`"), "{message}");
    assert!(!message.contains("`departure`"), "{message}");
    let state = again["result"]["requestState"].as_str().expect("a state");

    let right = json!({
        "arrival": "2026-02-27", "departure": "2026-03-02",
        "pickup": "2026-02-27T08:30:00+09:00", "call": "2026-02-26T18:00:00-05:00"
    });
    let done = client::call(
        running.addr,
        json!(3),
        "tools/call",
        params(Some(state), Some(right)),
    )
    .await;
    let done = done.json();
    assert_eq!(
        done["result"]["content"][0]["text"],
        "3 nights from 2026-02-27, a car at 2026-02-26T23:30:00Z, a call at 2026-02-26T23:00:00+00:00",
        "{done}"
    );
}
