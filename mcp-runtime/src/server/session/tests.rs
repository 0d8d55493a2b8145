use std::net::IpAddr;

use serde_json::Value;

use super::*;
use crate::protocol::{ElicitRequestParams, InputRequest, InputRequests};
use crate::server::complete::Answerer;

impl Session {
    /// (waiting requests, running calls, open streams, busy count)
    fn held(&self) -> (usize, usize, usize, usize) {
        let state = lock(&self.state);
        (
            state.pending.len(),
            self.calls.len(),
            usize::from(state.stream.is_some()),
            state.busy,
        )
    }
}

fn peer(last: u8) -> Owner {
    Owner::of(None, Some(IpAddr::from([127, 0, 0, last])))
}

fn opening(owner: Owner) -> Opening {
    Opening {
        version: "2025-11-25",
        capabilities: ClientCapabilities::default(),
        client_info: None,
        owner,
        carrier: Carrier::Http,
    }
}

fn open(sessions: &Sessions) -> Arc<Session> {
    sessions.open(opening(peer(1))).unwrap()
}

fn question() -> InputRequests {
    let params: ElicitRequestParams = serde_json::from_value(serde_json::json!({
        "message": "Sure?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    }))
    .unwrap();
    InputRequests::from([("sure".to_owned(), InputRequest::Elicit(params))])
}

#[tokio::test]
async fn a_finished_or_abandoned_call_leaves_nothing_behind() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let call = session.start_call(&Value::from(7)).unwrap();
    assert_eq!(session.held(), (0, 1, 0, 1));
    let (outbound, mut messages) = crate::server::outbound::channel();
    let mut answerer = session.answerer(
        outbound,
        Duration::from_secs(60),
        crate::server::RequestContext::default(),
    );
    {
        let waiting = answerer.answer(question());
        tokio::pin!(waiting);
        let early = tokio::time::timeout(Duration::from_millis(20), &mut waiting).await;
        assert!(early.is_err(), "no answer yet");
        assert_eq!(session.held().0, 1, "one request waits");
        let sent = messages.try_recv().unwrap();
        assert_eq!(sent["method"], "elicitation/create");
        // The call is dropped mid-question (a dropped stream, a cancellation).
    }
    drop(call);
    assert_eq!(session.held(), (0, 0, 0, 0));
    // A late answer to the forgotten request goes nowhere.
    session.deliver(&Value::from(0), Ok(Value::Null));
    assert_eq!(session.held(), (0, 0, 0, 0));
}

#[tokio::test]
async fn answers_reach_the_round_and_the_session_ends_its_calls() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let (outbound, mut messages) = crate::server::outbound::channel();
    let mut answerer = session.answerer(
        outbound,
        Duration::from_secs(60),
        crate::server::RequestContext::default(),
    );
    let answering = Arc::clone(&session);
    let client = tokio::spawn(async move {
        let asked = messages.recv().await.unwrap();
        answering.deliver(&asked["id"], Ok(serde_json::json!({"action": "decline"})));
    });
    let answers = answerer.answer(question()).await.unwrap();
    client.await.unwrap();
    assert_eq!(answers["sure"]["action"], "decline");
    assert_eq!(session.held(), (0, 0, 0, 0));
    let mut call = session.start_call(&Value::from("c")).unwrap();
    let cancelled = call.cancelled();
    assert!(sessions.close(&session.id));
    tokio::time::timeout(Duration::from_secs(1), cancelled)
        .await
        .expect("closing the session cancels its calls");
    drop(call);
    assert_eq!(session.held(), (0, 0, 0, 0));
    assert!(sessions.find(&session.id, None).is_none());
}

#[tokio::test]
async fn calls_waiting_on_one_session_each_get_their_own_answer_and_only_the_first() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let answerer = |outbound| {
        session.answerer(
            outbound,
            Duration::from_secs(60),
            crate::server::RequestContext::default(),
        )
    };
    let (outbound, mut first_asked) = crate::server::outbound::channel();
    let mut first = answerer(outbound);
    let (outbound, mut second_asked) = crate::server::outbound::channel();
    let mut second = answerer(outbound);
    let client = async {
        let first_id = first_asked.recv().await.unwrap()["id"].clone();
        let second_id = second_asked.recv().await.unwrap()["id"].clone();
        assert_eq!(session.held().0, 2, "both calls wait");
        // The later question answered first, twice: the duplicate is dropped.
        session.deliver(&second_id, Ok(serde_json::json!({"action": "decline"})));
        session.deliver(&second_id, Ok(serde_json::json!({"action": "accept"})));
        session.deliver(&first_id, Ok(serde_json::json!({"action": "cancel"})));
    };
    let (first, second, ()) =
        tokio::join!(first.answer(question()), second.answer(question()), client);
    assert_eq!(first.unwrap()["sure"]["action"], "cancel");
    assert_eq!(second.unwrap()["sure"]["action"], "decline");
    assert_eq!(session.held(), (0, 0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn a_client_that_does_not_answer_runs_into_the_timeout() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let (outbound, _messages) = crate::server::outbound::channel();
    let mut answerer = session.answerer(
        outbound,
        Duration::from_secs(600),
        crate::server::RequestContext::default(),
    );
    let error = answerer.answer(question()).await.unwrap_err();
    assert!(
        error.message.contains("did not answer"),
        "{}",
        error.message
    );
    assert_eq!(session.held(), (0, 0, 0, 0));
}

#[tokio::test(start_paused = true)]
async fn each_round_of_one_call_has_the_whole_timeout_from_its_own_question() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let (outbound, mut messages) = crate::server::outbound::channel();
    let timeout = Duration::from_secs(600);
    let mut answerer =
        session.answerer(outbound, timeout, crate::server::RequestContext::default());
    // The first round is answered a second before its timeout.
    let client = async {
        let asked = messages.recv().await.unwrap();
        tokio::time::sleep(timeout - Duration::from_secs(1)).await;
        session.deliver(&asked["id"], Ok(serde_json::json!({"action": "decline"})));
    };
    let (answers, ()) = tokio::join!(answerer.answer(question()), client);
    assert_eq!(answers.unwrap()["sure"]["action"], "decline");
    // The second, never answered, fails a whole timeout after it was asked.
    let asked = tokio::time::Instant::now();
    let error = answerer.answer(question()).await.unwrap_err();
    assert!(
        error.message.contains("did not answer"),
        "{}",
        error.message
    );
    assert_eq!(asked.elapsed(), timeout);
    assert_eq!(session.held(), (0, 0, 0, 0));
}

#[tokio::test]
async fn a_call_whose_messages_nobody_reads_is_refused_at_its_first_question() {
    let sessions = Sessions::default();
    let session = open(&sessions);
    let (outbound, messages) = crate::server::outbound::channel();
    drop(messages);
    let mut answerer = session.answerer(
        outbound,
        Duration::from_secs(600),
        crate::server::RequestContext::default(),
    );
    let error = tokio::time::timeout(Duration::from_secs(5), answerer.answer(question()))
        .await
        .expect("refused at once")
        .unwrap_err();
    assert_eq!(error.code, crate::protocol::ErrorCode::INVALID_REQUEST);
    assert!(
        error.message.contains("text/event-stream"),
        "{}",
        error.message
    );
    assert_eq!(session.held(), (0, 0, 0, 0));
}

#[test]
fn an_owner_at_its_cap_closes_its_own_idlest_session_and_no_one_elses() {
    let settings = SessionSettings {
        max_sessions_per_owner: 3,
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let honest = sessions.open(opening(peer(2))).unwrap();
    let mine: Vec<_> = (0..3)
        .map(|_| sessions.open(opening(peer(1))).unwrap())
        .collect();
    // The busy one is never closed.
    let _busy = mine[0].start_call(&Value::from(1)).unwrap();
    for _ in 0..50 {
        sessions.open(opening(peer(1))).unwrap();
    }
    assert_eq!(sessions.len(), 4);
    assert!(
        sessions.find(&honest.id, None).is_some(),
        "another owner's session stays"
    );
    assert!(
        sessions.find(&mine[0].id, None).is_some(),
        "a busy session stays"
    );
    assert!(sessions.find(&mine[1].id, None).is_none());
    // All three busy: refused.
    let all = sessions.all();
    let _calls: Vec<_> = all
        .iter()
        .filter(|session| session.owner == peer(1))
        .filter(|session| !Arc::ptr_eq(session, &mine[0]))
        .map(|session| session.start_call(&Value::from(2)).unwrap())
        .collect();
    assert!(matches!(
        sessions.open(opening(peer(1))),
        Err(OpenError::OwnerFull(3))
    ));
    assert!(sessions.open(opening(peer(3))).is_ok(), "others still open");
}

#[test]
fn at_the_servers_cap_an_opener_closes_only_its_own_sessions() {
    let settings = SessionSettings {
        max_sessions: 4,
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let honest: Vec<_> = (0..2)
        .map(|last| sessions.open(opening(peer(10 + last))).unwrap())
        .collect();
    for _ in 0..100 {
        sessions.open(opening(peer(1))).unwrap();
    }
    assert_eq!(sessions.len(), 4);
    for session in &honest {
        assert!(sessions.find(&session.id, None).is_some());
    }
    // A stranger with nothing of its own to close is refused, and closes nothing.
    assert!(matches!(
        sessions.open(opening(peer(9))),
        Err(OpenError::Full)
    ));
    assert_eq!(sessions.len(), 4);
}

#[test]
fn calls_are_capped_per_session_and_per_owner() {
    let settings = SessionSettings {
        max_calls_per_session: 2,
        max_calls_per_owner: 3,
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let first = sessions.open(opening(peer(1))).unwrap();
    let second = sessions.open(opening(peer(1))).unwrap();
    let other = sessions.open(opening(peer(2))).unwrap();
    let a = first.start_call(&Value::from(1)).unwrap();
    let _b = first.start_call(&Value::from(2)).unwrap();
    assert_eq!(
        first.start_call(&Value::from(3)).err(),
        Some(Refused::SessionCalls(2))
    );
    let _c = second.start_call(&Value::from(1)).unwrap();
    assert_eq!(
        second.start_call(&Value::from(2)).err(),
        Some(Refused::OwnerCalls(3))
    );
    let _d = other.start_call(&Value::from(1)).unwrap();
    drop(a);
    assert!(
        second.start_call(&Value::from(2)).is_ok(),
        "a place came back"
    );
}

#[test]
fn a_new_standalone_stream_replaces_the_old_and_streams_are_capped() {
    let settings = SessionSettings {
        max_streams_per_owner: 2,
        max_streams: 3,
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let session = sessions.open(opening(peer(1))).unwrap();
    let (first, mut first_messages) = crate::server::outbound::channel();
    let first_guard = session.open_stream(first).unwrap();
    let (second, mut second_messages) = crate::server::outbound::channel();
    let second_guard = session.open_stream(second).unwrap();
    assert!(first_messages.try_recv().is_none());
    assert!(
        futures_ready(&mut first_messages),
        "the replaced stream ended"
    );
    session.notify(&serde_json::json!({"n": 1}));
    assert_eq!(second_messages.try_recv().unwrap()["n"], 1);
    drop(first_messages);
    drop(first_guard);
    session.notify(&serde_json::json!({"n": 2}));
    assert_eq!(second_messages.try_recv().unwrap()["n"], 2, "still open");

    let more = sessions.open(opening(peer(1))).unwrap();
    let _more = more
        .open_stream(crate::server::outbound::channel().0)
        .unwrap();
    let third = sessions.open(opening(peer(1))).unwrap();
    assert_eq!(
        third
            .open_stream(crate::server::outbound::channel().0)
            .err(),
        Some(Refused::OwnerStreams(2))
    );
    let other = sessions.open(opening(peer(2))).unwrap();
    let _other = other
        .open_stream(crate::server::outbound::channel().0)
        .unwrap();
    let last = sessions.open(opening(peer(3))).unwrap();
    assert_eq!(
        last.open_stream(crate::server::outbound::channel().0).err(),
        Some(Refused::Streams(3))
    );
    drop(second_guard);
    assert!(
        last.open_stream(crate::server::outbound::channel().0)
            .is_ok()
    );
}

/// Whether the channel has ended (every sender dropped).
fn futures_ready(messages: &mut crate::server::outbound::MessageReceiver) -> bool {
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    matches!(
        messages.poll_recv(&mut context),
        std::task::Poll::Ready(None)
    )
}

#[test]
fn subscriptions_are_capped_per_session() {
    let settings = SessionSettings {
        max_subscriptions: 2,
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let session = open(&sessions);
    session.subscribe("a://1".into()).unwrap();
    session.subscribe("a://2".into()).unwrap();
    session.subscribe("a://2".into()).unwrap();
    assert_eq!(
        session.subscribe("a://3".into()),
        Err(Refused::Subscriptions(2))
    );
    session.unsubscribe("a://1");
    session.subscribe("a://3".into()).unwrap();
}

#[tokio::test(start_paused = true)]
async fn idle_sessions_are_swept_on_a_timer_and_busy_ones_stay() {
    let settings = SessionSettings {
        idle_timeout: Duration::from_secs(60),
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let idle: Vec<_> = (0..5).map(|_| open(&sessions)).collect();
    let busy = open(&sessions);
    let _call = busy.start_call(&Value::from(1)).unwrap();
    tokio::time::sleep(Duration::from_secs(59)).await;
    assert_eq!(sessions.len(), 6, "not yet expired");
    // Past the timeout and one sweep period, with no request to look anything up.
    tokio::time::sleep(Duration::from_secs(17)).await;
    assert_eq!(sessions.len(), 1);
    assert!(Arc::ptr_eq(&sessions.all()[0], &busy));
    assert!(idle.iter().all(|session| session.held() == (0, 0, 0, 0)));
}

#[tokio::test(start_paused = true)]
async fn sessions_that_declared_the_same_share_it_until_the_last_one_goes() {
    let settings = SessionSettings {
        idle_timeout: Duration::from_secs(60),
        ..SessionSettings::default()
    };
    let sessions = Sessions::new(settings);
    let declaring = |capabilities: serde_json::Value, owner| Opening {
        capabilities: serde_json::from_value(capabilities).unwrap(),
        client_info: Some(Implementation::new("client", "1.0.0")),
        ..opening(owner)
    };
    let form = serde_json::json!({"elicitation": {"form": {}}});
    let first = sessions.open(declaring(form.clone(), peer(1))).unwrap();
    let second = sessions.open(declaring(form.clone(), peer(2))).unwrap();
    let sampling = sessions
        .open(declaring(serde_json::json!({"sampling": {}}), peer(1)))
        .unwrap();
    assert!(Arc::ptr_eq(&first.declared, &second.declared));
    assert!(!Arc::ptr_eq(&first.declared, &sampling.declared));
    for session in [&first, &second] {
        assert_eq!(serde_json::to_value(session.capabilities()).unwrap(), form);
        assert_eq!(
            session.declared_info().client_info().unwrap().name,
            "client"
        );
    }
    assert!(sampling.capabilities().elicitation.is_none());
    assert!(sampling.capabilities().sampling.is_some());
    assert_eq!(sessions.declarations.len(), 2);
    // The sessions expire; the sweeper then forgets what they declared.
    drop((first, second, sampling));
    tokio::time::sleep(Duration::from_secs(76)).await;
    assert_eq!(sessions.len(), 0);
    assert_eq!(sessions.declarations.len(), 0);
}
