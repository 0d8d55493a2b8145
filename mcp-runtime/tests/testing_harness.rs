//! The flow tester behaves as a server does: one server per tester, so single-use states
//! are refused when used again; claims and subjects reach handlers; answers under keys the
//! round did not ask fail at once; answer builders; a tester of a whole built server.

use std::sync::Mutex;

use mcp_runtime::server::Server;
use mcp_runtime::state::INVALID_STATE_MESSAGE;
use mcp_runtime::testing::{FlowTester, ServerTester, accept, cancel, decline, form};
use mcp_runtime::{Cx, ElicitForm, State, ToolResult, text, tool};
use serde_json::json;

#[derive(Debug, ElicitForm)]
struct Name {
    name: String,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

/// Asks a name, then a confirmation; its states are single-use.
#[tool(single_use)]
async fn once(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who are you?").await?;
    let sure: Confirm = cx.elicit(format!("Sure, {}?", who.name)).await?;
    Ok(text(format!("{} {}", who.name, sure.ok)))
}

#[tokio::test]
async fn a_single_use_state_used_again_with_other_answers_is_refused() {
    let tester = FlowTester::tool(once);
    let first = tester.start().await;
    let second = first
        .answer(json!({"who": accept(json!({"name": "Ada"}))}))
        .await;
    assert_eq!(second.questions(), ["sure"], "{second}");
    // The same state again, other answers: a real server refuses it, and so must the tester,
    // whose rounds all go to one server and its one replay store.
    let again = first
        .answer(json!({"who": accept(json!({"name": "Bob"}))}))
        .await;
    let error = again.error().unwrap_or_else(|| panic!("refused: {again}"));
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
    // The same answers again are a retry: the first reply, replayed.
    let retried = first
        .answer(json!({"who": accept(json!({"name": "Ada"}))}))
        .await;
    assert_eq!(retried.state(), second.state(), "{retried}");
}

/// Says who called, from the token's claims and the bound subject.
#[tool]
async fn whoami(cx: Cx) -> ToolResult {
    let claims = cx
        .claims()
        .map(|claims| format!("{} {:?}", claims.subject(), claims.scopes()));
    Ok(text(format!(
        "claims: {}; subject: {}",
        claims.as_deref().unwrap_or("none"),
        cx.subject().unwrap_or("none")
    )))
}

#[tokio::test]
async fn handlers_see_the_claims_and_subject_given() {
    let none = FlowTester::tool(whoami).start().await;
    assert_eq!(none.text(), Some("claims: none; subject: none"));
    let token = FlowTester::tool(whoami)
        .claims(json!({"sub": "ada", "scope": "read write", "iss": "https://as.example"}))
        .start()
        .await;
    assert_eq!(
        token.text(),
        Some(r#"claims: ada ["read", "write"]; subject: ada"#)
    );
    let named = FlowTester::tool(whoami)
        .claims(json!({"sub": "ada"}))
        .subject("tenant-7:ada")
        .start()
        .await;
    assert_eq!(named.text(), Some("claims: ada []; subject: tenant-7:ada"));
}

#[tokio::test]
async fn a_state_is_bound_to_the_subject_given() {
    let ada = FlowTester::tool(once).subject("ada");
    let first = ada.start().await;
    let bob = ada.clone().subject("bob");
    let stolen = bob
        .send(
            first.state(),
            Some(json!({"who": accept(json!({"name": "Bob"}))})),
        )
        .await;
    assert_eq!(
        stolen.error().map(|error| error.message.as_str()),
        Some(INVALID_STATE_MESSAGE),
        "{stolen}"
    );
}

#[tokio::test]
#[should_panic(
    expected = "answers under `whom` that this round did not ask; it asked `who`, and was given `whom`"
)]
async fn an_answer_under_a_key_not_asked_fails_at_once() {
    let first = FlowTester::tool(once).start().await;
    let _ = first
        .answer(json!({"whom": accept(json!({"name": "Ada"}))}))
        .await;
}

#[tokio::test]
#[should_panic(expected = "answers under `who` that this round did not ask; it asked nothing")]
async fn an_answer_to_a_round_that_asked_nothing_fails_at_once() {
    let done = FlowTester::tool(whoami).start().await;
    let _ = done
        .answer(json!({"who": accept(json!({"name": "Ada"}))}))
        .await;
}

#[tokio::test]
async fn answer_builders_accept_decline_and_cancel() {
    let tester = FlowTester::tool(once);
    let first = tester.start().await;
    let second = first.answer_form("who", &Name { name: "Ada".into() }).await;
    let done = second
        .answer(json!({"sure": form(&Confirm { ok: true })}))
        .await;
    assert_eq!(done.text(), Some("Ada true"), "{done}");
    for (answer, says) in [(decline(), "declined"), (cancel(), "cancelled")] {
        // Single-use states: each answer on a call of its own.
        let first = tester.start().await;
        let ended = first.answer(json!({"who": answer})).await;
        assert!(ended.result().is_some(), "ends: {ended}");
        assert!(
            ended.text().is_some_and(|text| text.contains(says)),
            "{ended}"
        );
    }
}

#[tokio::test]
#[should_panic(expected = "`who` asks for another form than")]
async fn a_typed_answer_of_another_form_fails_at_once() {
    let first = FlowTester::tool(once).start().await;
    let _ = first.answer_form("who", &Confirm { ok: true }).await;
}

#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

#[derive(ElicitForm)]
struct Note {
    text: String,
}

/// Writes a note down.
#[tool]
async fn add(State(notes): State<Notes>, cx: Cx) -> ToolResult {
    let note: Note = cx.elicit("What should I write down?").await?;
    notes.0.lock().unwrap().push(note.text);
    Ok(text("Written."))
}

/// Lists the notes.
#[tool]
async fn list(State(notes): State<Notes>, cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text(notes.0.lock().unwrap().join(", ")))
}

#[tokio::test]
async fn a_server_tester_drives_several_tools_against_one_state() {
    let server = Server::builder()
        .state(Notes::default())
        .tool(add)
        .tool(list)
        .tool(whoami)
        .build();
    let tester = ServerTester::new(server).claims(json!({"sub": "ada"}));
    for note in ["milk", "eggs"] {
        let asked = tester.tool("add").start().await;
        let done = asked.answer_form("note", &Note { text: note.into() }).await;
        assert_eq!(done.text(), Some("Written."), "{done}");
    }
    assert_eq!(tester.tool("list").start().await.text(), Some("milk, eggs"));
    assert_eq!(
        tester.tool("whoami").start().await.text(),
        Some("claims: ada []; subject: ada")
    );
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, mcp_runtime::ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum City {
    Tokyo,
    #[choice(title = "Paris (CDG)")]
    Paris,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Trip {
    city: City,
}

/// A trip to the city asked.
#[tool]
async fn trip(cx: Cx) -> mcp_runtime::ToolResult<mcp_runtime::Json<Trip>> {
    #[derive(ElicitForm)]
    struct Pick {
        city: City,
    }
    let pick: Pick = cx.elicit("Where to?").await?;
    Ok(mcp_runtime::Json(Trip { city: pick.city }))
}

#[tokio::test]
async fn a_choice_in_a_result_is_listed_by_its_wire_values() {
    let schema = serde_json::to_value(schemars::schema_for!(Trip)).unwrap();
    let city = &schema["$defs"]["City"];
    assert_eq!(city["enum"], json!(["tokyo", "paris"]), "{schema}");
    assert_eq!(
        city["oneOf"][1],
        json!({"const": "paris", "title": "Paris (CDG)"})
    );
    // The tester checks the structured result against the tool's outputSchema.
    let done = FlowTester::tool(trip)
        .start()
        .await
        .answer(json!({"pick": accept(json!({"city": "tokyo"}))}))
        .await;
    assert_eq!(done.structured(), Some(&json!({"city": "tokyo"})), "{done}");
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Drifted {
    /// Serde writes `cityName`; the schema says `city`.
    #[serde(rename = "cityName")]
    #[schemars(rename = "city")]
    city: String,
}

/// A result whose schema drifts from what it writes.
#[tool]
async fn drifted() -> mcp_runtime::ToolResult<mcp_runtime::Json<Drifted>> {
    Ok(mcp_runtime::Json(Drifted {
        city: "Tokyo".to_owned(),
    }))
}

#[tokio::test]
#[should_panic(
    expected = "the `structuredContent` of the tool `drifted` does not match its `outputSchema`"
)]
async fn a_result_that_drifts_from_its_output_schema_fails_the_test() {
    let _ = FlowTester::tool(drifted).start().await;
}

#[path = "support/logs.rs"]
mod logs;

#[tokio::test]
async fn the_server_logs_answers_no_question_asked_at_debug_level_rate_limited() {
    let _serial = logs::serial().await;
    let (_guard, captured) = logs::capture();
    let tester = FlowTester::tool(whoami);
    let wrong = json!({"whom": accept(json!({"name": "Ada"}))});
    for _ in 0..15 {
        let done = tester.send(None, Some(wrong.clone())).await;
        assert_eq!(
            done.unasked(),
            Vec::<String>::new(),
            "a complete result names none"
        );
    }
    let text = captured.text();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("ignored answers under keys no outstanding question has"))
        .collect();
    // At most 10 lines every 5 seconds, whoever sends them.
    assert_eq!(lines.len(), 10, "{text}");
    for line in lines {
        assert!(line.contains("DEBUG"), "{line}");
        assert!(line.contains("keys=whom"), "{line}");
        assert!(line.contains("target=whoami"), "{line}");
    }
}
