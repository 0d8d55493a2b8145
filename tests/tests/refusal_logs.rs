//! What the server's log says when it refuses, over real sockets, captured by a test
//! subscriber as JSON: a refused request state is one `WARN` event inside the request's span
//! (inside its connection's span) that names the reason, the method and the target, while
//! the client learns nothing of it; refused bearer tokens are logged with their reason, and
//! rate-limited. Each kind of refusal has its own limit, and each test here meets one, so
//! no other test of this process uses it up.

#[path = "support/client.rs"]
mod client;
#[path = "support/log_buffer.rs"]
mod log_buffer;
#[path = "support/oauth.rs"]
mod oauth;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use log_buffer::LogBuffer;
use mcp_examples::deploy;
use mcp_runtime::auth::OAuth;
use mcp_runtime::server::Server;
use mcp_runtime::state::{DEFAULT_TTL, ManualClock, Signer, StateError};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// Everything logged on this thread while it is alive (a `tokio::test` runs the server's
/// tasks on it), as JSON lines, and for each event the spans it belongs to as a subscriber
/// sees them (its explicit parent, else the current span, and theirs).
struct Log {
    lines: LogBuffer,
    scopes: Shared<Vec<Scoped>>,
    _default: tracing::subscriber::DefaultGuard,
}

type Shared<T> = Arc<Mutex<T>>;

/// An event's message, and the names of the spans of its scope, outermost first.
type Scoped = (String, Vec<String>);

/// Records each event's message and scope.
struct Scopes(Shared<Vec<Scoped>>);

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S> tracing_subscriber::Layer<S> for Scopes
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_event(&self, event: &tracing::Event<'_>, cx: Context<'_, S>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        let spans = cx.event_scope(event).map_or_else(Vec::new, |scope| {
            scope
                .from_root()
                .map(|span| span.name().to_owned())
                .collect()
        });
        let mut scopes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        scopes.push((message.0, spans));
    }
}

impl Log {
    fn capture() -> Self {
        let lines = LogBuffer::default();
        let scopes = Arc::new(Mutex::new(Vec::new()));
        let writer = lines.clone();
        let default = tracing_subscriber::registry()
            .with(Scopes(Arc::clone(&scopes)))
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .with_span_list(true)
                    .with_current_span(true)
                    .with_writer(move || writer.clone()),
            )
            .set_default();
        Self {
            lines,
            scopes,
            _default: default,
        }
    }

    /// The names of the spans each event with `message` belongs to, outermost first.
    fn scopes(&self, message: &str) -> Vec<Vec<String>> {
        let scopes = self.scopes.lock().unwrap_or_else(PoisonError::into_inner);
        scopes
            .iter()
            .filter(|(logged, _)| logged == message)
            .map(|(_, spans)| spans.clone())
            .collect()
    }

    /// The events logged with `message`.
    fn events(&self, message: &str) -> Vec<Value> {
        self.lines
            .text()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).expect("every log line is JSON"))
            .filter(|event| event["fields"]["message"] == message)
            .collect()
    }
}

/// A `deploy` round over HTTP, declaring form elicitation: the JSON-RPC answer.
async fn deploy_round(addr: std::net::SocketAddr, service: &str, state: Option<&str>) -> Value {
    let mut params = json!({
        "name": "deploy",
        "arguments": {"service": service},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"target": {"action": "accept",
            "content": {"environment": "staging", "replicas": 1}}});
    }
    let answer = client::call(addr, json!(1), "tools/call", params).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()
}

#[tokio::test]
async fn a_refused_state_is_a_warn_event_in_its_request_span_saying_why() {
    let log = Log::capture();
    let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
    let signer = Signer::new(1, &[7; 32]).unwrap().with_clock(clock.clone());
    let server = deploy::register(Server::builder().name("deploy"))
        .signer(signer)
        .build();
    let running = client::start(server).await;
    let addr = running.addr;
    let first = deploy_round(addr, "api", None).await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {first}"))
        .to_owned();
    let forged = {
        let other = Signer::new(1, &[8; 32]).unwrap();
        let other = deploy::register(Server::builder().name("deploy"))
            .signer(other)
            .build();
        let running = client::start(other).await;
        let first = deploy_round(running.addr, "api", None).await;
        first["result"]["requestState"].as_str().unwrap().to_owned()
    };

    let mut cases = vec![
        ("malformed", "api", "!!".to_owned(), StateError::Malformed),
        ("forged", "api", forged, StateError::BadSignature),
        (
            "other arguments",
            "web",
            state.clone(),
            StateError::BindingMismatch,
        ),
    ];
    cases.push(("expired", "api", state, StateError::Expired));
    for (case, service, token, reason) in cases {
        if reason == StateError::Expired {
            // A state past its expiry, on the server's own clock, sent over the socket.
            clock.advance(DEFAULT_TTL + Duration::from_secs(1));
        }
        let before = log.events("refused requestState").len();
        let refused = deploy_round(addr, service, Some(&token)).await;
        assert!(client::is_state_refusal(&refused), "{case}: {refused}");
        let events = log.events("refused requestState");
        assert_eq!(events.len(), before + 1, "{case}: one event per refusal");
        let event = &events[before];
        assert_eq!(event["level"], "WARN", "{case}: {event}");
        assert_eq!(
            event["fields"]["reason"],
            reason.to_string(),
            "{case}: {event}"
        );
        assert_eq!(event["fields"]["method"], "tools/call", "{case}: {event}");
        assert_eq!(event["fields"]["target"], "deploy", "{case}: {event}");
        // Inside the request's span, itself inside the connection's; the JSON lines show
        // their fields.
        let scope = &log.scopes("refused requestState")[before];
        assert_eq!(scope, &["connection", "request"], "{case}: {event}");
        assert_eq!(event["span"]["name"], "request", "{case}: {event}");
        assert_eq!(event["span"]["method"], "tools/call", "{case}: {event}");
        assert_eq!(event["span"]["target"], "deploy", "{case}: {event}");
        assert_eq!(event["spans"][0]["transport"], "http", "{case}: {event}");
        // The reason reaches the log and nothing else: the answer is the fixed refusal.
        assert!(
            !refused.to_string().contains(&reason.to_string()),
            "{case}: {refused}"
        );
    }
}

#[tokio::test]
async fn refused_tokens_are_logged_with_their_reason_and_rate_limited() {
    const REFUSED: usize = 40;
    let log = Log::capture();
    let rsa = oauth::rsa();
    let jwks = oauth::JwksServer::start(vec![rsa.jwk()]).await;
    let oauth = OAuth::builder(oauth::RESOURCE)
        .issuer(oauth::ISSUER)
        .jwks_url(jwks.url())
        .build()
        .unwrap();
    let server = deploy::register(Server::builder().name("deploy"))
        .oauth(oauth)
        .build();
    let running = client::start(server).await;
    // Forty refusals in a row: a few milliseconds each, so they fall within two of the
    // limit's five-second windows (ten lines each) even on a slow machine.
    for attempt in 0..REFUSED {
        let token = format!("not-a-jwt-{attempt}");
        let answer = oauth::post(running.addr, Some(&token), "tools/list", json!({})).await;
        assert_eq!(answer.status, 401, "{answer:?}");
    }
    let logged = log.events("refused a bearer token");
    assert!(
        (1..=20).contains(&logged.len()),
        "{} of {REFUSED} refusals logged",
        logged.len()
    );
    for event in &logged {
        assert_eq!(event["level"], "WARN", "{event}");
        let reason = event["fields"]["reason"].as_str().unwrap_or_default();
        assert!(reason.starts_with("malformed"), "{event}");
        assert!(
            !event.to_string().contains("not-a-jwt"),
            "the token reached the log: {event}"
        );
    }
}
