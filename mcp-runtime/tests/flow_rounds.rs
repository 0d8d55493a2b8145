//! The runtime around a flow: verification, answers, capabilities, batches and branches.
#![allow(deprecated)] // reason: sampling and roots are deprecated on the wire, yet served

use mcp_runtime::protocol::{
    CreateMessageRequestParams, GetPromptResult, PromptMessage, ReadResourceResult,
    ResourceContents, Role, TextResourceContents,
};
use mcp_runtime::state::{BindingContext, INVALID_STATE_MESSAGE, Signer};
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{
    Cx, ElicitForm, PromptResult, Refusal, ResourceResult, ToolResult, prompt, resource, text, tool,
};
use serde_json::{Value, json};

#[derive(Debug, ElicitForm)]
struct Name {
    #[form(min_length = 2)]
    name: String,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, ElicitForm)]
struct Count {
    #[form(minimum = 0, maximum = 10)]
    count: u8,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greeting {
    greeting: String,
}

/// Two questions in a row.
#[tool]
async fn two_steps(args: Greeting, cx: Cx) -> ToolResult {
    let user: Name = cx.elicit("Who are you?").await?;
    let count: Count = cx.elicit(format!("How many, {}?", user.name)).await?;
    Ok(text(format!(
        "{} {} x{}",
        args.greeting, user.name, count.count
    )))
}

/// Another tool with the same shape, to replay states across tools.
#[tool]
async fn other_steps(args: Greeting, cx: Cx) -> ToolResult {
    let user: Name = cx.elicit("Who are you?").await?;
    let count: Count = cx.elicit(format!("How many, {}?", user.name)).await?;
    Ok(text(format!(
        "{} {} x{}",
        args.greeting, user.name, count.count
    )))
}

/// A prompt of the same name and shape as the tool `two_steps`: only the method differs.
#[prompt(name = "two_steps")]
async fn two_steps_prompt(args: Greeting, cx: Cx) -> PromptResult {
    let user: Name = cx.elicit("Who are you?").await?;
    let count: Count = cx.elicit(format!("How many, {}?", user.name)).await?;
    Ok(GetPromptResult {
        messages: vec![PromptMessage::text(
            Role::User,
            format!("{} {} x{}", args.greeting, user.name, count.count),
        )],
        ..GetPromptResult::default()
    })
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn greeting() -> Value {
    json!({"greeting": "hi"})
}

fn invalid_state(round: &mcp_runtime::testing::Round) {
    let error = round
        .error()
        .unwrap_or_else(|| panic!("expected an error, got {round}"));
    assert_eq!(error.code.0, -32602);
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
}

#[tokio::test]
async fn a_state_verifies_only_for_its_own_request() {
    let signer = Signer::random().unwrap();
    let tester = FlowTester::tool(two_steps)
        .arguments(greeting())
        .signer(signer.clone())
        .subject("alice");
    let first = tester.start().await;
    let state = first.state().unwrap().to_owned();
    let answer = json!({"user": accept(json!({"name": "Ada"}))});

    // The state as minted works.
    let ok = tester.send(Some(&state), Some(answer.clone())).await;
    assert_eq!(ok.questions(), ["count"], "{ok}");

    // Other arguments, another subject, another tool, another key: refused.
    let other_args = tester.clone().arguments(json!({"greeting": "yo"}));
    invalid_state(&other_args.send(Some(&state), Some(answer.clone())).await);
    let other_subject = tester.clone().subject("mallory");
    invalid_state(&other_subject.send(Some(&state), Some(answer.clone())).await);
    let other_tool = FlowTester::tool(other_steps)
        .arguments(greeting())
        .signer(signer.clone())
        .subject("alice");
    invalid_state(&other_tool.send(Some(&state), Some(answer.clone())).await);
    let other_method = FlowTester::prompt(two_steps_prompt)
        .arguments(greeting())
        .signer(signer.clone())
        .subject("alice");
    invalid_state(&other_method.send(Some(&state), Some(answer.clone())).await);
    let other_key = tester.clone().signer(Signer::random().unwrap());
    invalid_state(&other_key.send(Some(&state), Some(answer.clone())).await);

    // Tampering: appended text, a changed character.
    let tampered = format!("{state}-TAMPERED");
    invalid_state(&tester.send(Some(&tampered), Some(answer.clone())).await);
    let mut flipped = state.into_bytes();
    flipped[10] = if flipped[10] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    invalid_state(&tester.send(Some(&flipped), Some(answer)).await);
}

#[tokio::test]
async fn the_same_continuation_twice_gives_two_tokens_and_answers_belong_to_one_round() {
    let signer = Signer::random().unwrap();
    let tester = FlowTester::tool(two_steps)
        .arguments(greeting())
        .signer(signer.clone());
    let args = greeting();
    let cx = BindingContext::new("tools/call", "two_steps")
        .with_audience("flow-tester")
        .with_arguments(Some(&args));
    let open = |round: &mcp_runtime::testing::Round| {
        signer
            .open(&cx, round.state().expect("a state"))
            .expect("the server's own state opens")
    };
    // The same continuation twice, from a fresh start and from the same round with the same
    // answers: the same payload each time, under a fresh state id, so never the same token.
    // Two fresh starts are two flows: their payloads differ in the flow's id alone (the 8
    // bytes after the round and the shape), which a retried round keeps.
    let (start, again) = (tester.start().await, tester.start().await);
    let ada = json!({"user": accept(json!({"name": "Ada"}))});
    let (second, retried) = (start.answer(ada.clone()).await, start.answer(ada).await);
    let (one, other) = (open(&start), open(&again));
    let (one, other) = (one.payload(), other.payload());
    assert_eq!((&one[..5], &one[13..]), (&other[..5], &other[13..]));
    assert_ne!(one[5..13], other[5..13], "each flow draws its own id");
    for (one, other) in [(&start, &again), (&second, &retried)] {
        assert_ne!(open(one).id(), open(other).id());
    }
    assert_eq!(open(&second).payload(), open(&retried).payload());
    assert_ne!(start.state(), again.state());
    assert_ne!(second.state(), retried.state());
    // Both copies carry on.
    let count = json!({"count": accept(json!({"count": 2}))});
    for round in [&second, &retried] {
        assert_eq!(round.answer(count.clone()).await.text(), Some("hi Ada x2"));
    }
    // A fresh call answering both questions consumes only the first round's answer.
    let both = json!({
        "user": accept(json!({"name": "Ada"})),
        "count": accept(json!({"count": 3})),
        "unknown": 42,
    });
    let fresh = tester.send(None, Some(both.clone())).await;
    assert_eq!(fresh.questions(), ["count"], "{fresh}");
    assert_eq!(fresh.unasked(), ["count", "unknown"], "{fresh}");
    // Retrying round two with the same answers completes it, ignoring the unknown key.
    let done = tester.send(fresh.state(), Some(both)).await;
    assert_eq!(done.text(), Some("hi Ada x3"), "{done}");
}

#[tokio::test]
async fn missing_and_invalid_answers_ask_again() {
    let tester = FlowTester::tool(two_steps).arguments(greeting());
    let first = tester.start().await;
    let wrong = json!({"wrong_key": accept(json!({}))});
    let missing = tester.send(first.state(), Some(wrong)).await;
    assert_eq!(missing.questions(), ["user"]);
    assert_eq!(missing.unasked(), ["wrong_key"]);
    let invalid = first
        .answer(json!({"user": accept(json!({"name": "A"}))}))
        .await;
    assert_eq!(invalid.questions(), ["user"]);
    let message = serde_json::to_value(&invalid.requests().unwrap()["user"]).unwrap();
    let message = message["params"]["message"].as_str().unwrap();
    assert!(message.starts_with("Who are you?"), "{message}");
    assert!(message.contains("`name`"), "{message}");
    // The re-ask carries a working state.
    let done = invalid
        .answer(json!({"user": accept(json!({"name": "Ada"}))}))
        .await;
    assert_eq!(done.questions(), ["count"]);
    // An answer that is not an object is a protocol error.
    let bad = first.answer(json!({"user": 12345})).await;
    assert_eq!(bad.error().unwrap().code.0, -32602, "{bad}");
}

#[tokio::test]
async fn decline_and_cancel_end_the_call_without_asking_again() {
    let tester = FlowTester::tool(two_steps).arguments(greeting());
    let first = tester.start().await;
    for (action, word) in [("decline", "declined"), ("cancel", "cancelled")] {
        let round = first.answer(json!({"user": {"action": action}})).await;
        assert!(round.questions().is_empty(), "{round}");
        let result = round.result().unwrap();
        assert_eq!(result["resultType"], "complete");
        assert!(round.text().unwrap().contains(word), "{round}");
    }
}

/// Asks by URL when the client can open one, else by form.
#[tool]
async fn sign_in(cx: Cx) -> ToolResult {
    if cx.supports_url_elicitation() {
        cx.elicit_url("Sign in", "https://example.com/login")
            .key("login")
            .await?;
        return Ok(text("signed in by URL"));
    }
    let user: Name = cx.elicit("Your name?").await?;
    Ok(text(format!("signed in as {}", user.name)))
}

#[tokio::test]
async fn questions_follow_the_request_capabilities() {
    let url = FlowTester::tool(sign_in).start().await;
    assert_eq!(url.questions(), ["login"]);
    let form_only = FlowTester::tool(sign_in)
        .capabilities(json!({"elicitation": {}}))
        .start()
        .await;
    assert_eq!(form_only.questions(), ["user"]);
    let none = FlowTester::tool(sign_in)
        .capabilities(json!({"sampling": {}}))
        .start()
        .await;
    let error = none.error().unwrap();
    assert_eq!(error.code.0, -32021);
    assert_eq!(
        error.data.as_ref().unwrap()["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    let done = url.answer(json!({"login": {"action": "accept"}})).await;
    assert_eq!(done.text(), Some("signed in by URL"));
}

/// Three kinds of question in one round.
#[tool]
async fn everything_at_once(cx: Cx) -> ToolResult {
    let (user, reply, roots) = (
        cx.elicit::<Name>("Name?"),
        cx.sample(CreateMessageRequestParams::default()),
        cx.list_roots(),
    )
        .await;
    let user = user?;
    Ok(text(format!(
        "{} {} {}",
        user.name,
        reply.model,
        roots.roots.len()
    )))
}

#[tokio::test]
async fn a_batch_is_asked_and_answered_together() {
    let tester = FlowTester::tool(everything_at_once);
    let first = tester.start().await;
    assert_eq!(first.questions(), ["reply", "roots", "user"]);
    let methods: Vec<_> = first
        .requests()
        .unwrap()
        .values()
        .map(|r| r.method())
        .collect();
    assert_eq!(
        methods,
        ["sampling/createMessage", "roots/list", "elicitation/create"]
    );
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m1"});
    // Half an answer asks the whole batch again.
    let partial = first.answer(json!({"reply": reply.clone()})).await;
    assert_eq!(partial.questions(), ["reply", "roots", "user"]);
    let done = first
        .answer(json!({
            "user": accept(json!({"name": "Ada"})),
            "reply": reply,
            "roots": {"roots": [{"uri": "file:///tmp"}]},
        }))
        .await;
    assert_eq!(done.text(), Some("Ada m1 1"), "{done}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Mode {
    mode: String,
}

/// Questions in match arms and nested blocks, with locals used after the join.
#[tool]
async fn branches(args: Mode, cx: Cx) -> ToolResult {
    let prefix: String = format!("[{}]", args.mode);
    let mut log: Vec<String> = Vec::new();
    let detail: String = match args.mode.as_str() {
        "ask" => {
            let user: Name = cx.elicit("Name?").await?;
            log.push("asked".to_owned());
            user.name
        }
        "count" => {
            let inner: u8 = {
                let count: Count = cx.elicit("Count?").await?;
                count.count * 2
            };
            format!("{inner}")
        }
        _ => "nothing".to_owned(),
    };
    if detail.len() > 3 {
        let confirm: Confirm = cx.elicit("Long, sure?").await?;
        log.push(format!("confirmed {}", confirm.ok));
    }
    Ok(text(format!("{prefix} {detail} {}", log.join(","))))
}

#[tokio::test]
async fn branches_resume_in_the_arm_they_left() {
    let ask = FlowTester::tool(branches).arguments(json!({"mode": "ask"}));
    let rounds = ask
        .script([
            json!({"user": accept(json!({"name": "Grace"}))}),
            json!({"confirm": accept(json!({"ok": true}))}),
        ])
        .await;
    assert_eq!(rounds[1].questions(), ["confirm"]);
    assert_eq!(rounds[2].text(), Some("[ask] Grace asked,confirmed true"));

    let count = FlowTester::tool(branches).arguments(json!({"mode": "count"}));
    let rounds = count
        .script([json!({"count": accept(json!({"count": 4}))})])
        .await;
    assert_eq!(rounds[1].text(), Some("[count] 8 "), "{}", rounds[1]);

    let none = FlowTester::tool(branches).arguments(json!({"mode": "x"}));
    let first = none.start().await;
    assert_eq!(first.questions(), ["confirm"]);
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    topic: String,
}

/// A prompt that asks first.
#[prompt]
async fn haiku(args: Topic, cx: Cx) -> PromptResult {
    let mood: Name = cx.elicit("Whose mood?").key("mood").await?;
    Ok(GetPromptResult {
        messages: vec![PromptMessage::text(
            Role::User,
            format!("A haiku on {} for {}", args.topic, mood.name),
        )],
        ..GetPromptResult::default()
    })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

/// A resource template that asks before it reads.
#[resource(uri = "test://secret/{id}", mime_type = "text/plain")]
async fn secret(args: Id, cx: Cx) -> ResourceResult {
    let confirm: Confirm = cx.elicit("Reveal?").await?;
    if !confirm.ok {
        return Err(Refusal::Declined.into());
    }
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: format!("test://secret/{}", args.id),
            text: format!("secret {}", args.id),
            ..TextResourceContents::default()
        })],
        ..ReadResourceResult::default()
    })
}

#[tokio::test]
async fn prompts_and_resources_run_flows_too() {
    let prompt = FlowTester::prompt(haiku).arguments(json!({"topic": "rain"}));
    let rounds = prompt
        .script([json!({"mood": accept(json!({"name": "Basho"}))})])
        .await;
    assert_eq!(rounds[0].questions(), ["mood"]);
    assert_eq!(rounds[1].text(), Some("A haiku on rain for Basho"));

    let resource = FlowTester::resource(secret, "test://secret/7");
    let rounds = resource
        .script([json!({"confirm": accept(json!({"ok": true}))})])
        .await;
    assert_eq!(rounds[1].text(), Some("secret 7"), "{}", rounds[1]);
    let refused = resource
        .script([json!({"confirm": accept(json!({"ok": false}))})])
        .await;
    assert!(refused[1].text().unwrap().contains("declined"));
}
