//! The OpenTelemetry trace context of a request's `_meta` (`traceparent`, `tracestate`,
//! `baggage`): recorded on its `request` span when valid and within bounds, dropped whole
//! otherwise; and, with the `opentelemetry` feature, the parent of the request's span as a
//! `tracing-opentelemetry` layer exports it (read back from an SDK exporting to memory).

#[path = "support/client.rs"]
mod client;
#[path = "support/log_buffer.rs"]
mod log_buffer;

use log_buffer::LogBuffer;
use mcp_runtime::server::{MAX_BAGGAGE, RequestFacts, Server};
use mcp_runtime::{ToolResult, text, tool};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{SpanId, TraceId};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{Value, json};
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

/// Answers at once.
#[tool]
async fn ping() -> ToolResult {
    Ok(text("pong"))
}

fn server() -> Server {
    Server::builder().name("traced").tool(ping).build()
}

/// A `tools/call` of `ping` whose `_meta` carries `trace` besides the required members.
fn call(trace: Value) -> Vec<u8> {
    let mut meta = client::meta();
    for (key, value) in trace.as_object().into_iter().flatten() {
        meta[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "ping", "_meta": meta}})
    .to_string()
    .into_bytes()
}

/// The fields of the closed `request` span of one call carrying `trace`, and the whole log.
async fn request_span(trace: Value) -> (Value, String) {
    let buffer = LogBuffer::default();
    let writer = buffer.clone();
    let _default = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .json()
                .with_span_events(FmtSpan::CLOSE)
                .with_writer(move || writer.clone()),
        )
        .set_default();
    let answer = server()
        .handle(&call(trace), RequestFacts::stdio())
        .finish()
        .await;
    assert_eq!(answer.status, 200);
    let log = buffer.text();
    let span = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["fields"]["message"] == "close" && line["span"]["name"] == "request")
        .unwrap_or_else(|| panic!("no request span in {log}"));
    (span["span"].clone(), log)
}

#[tokio::test]
async fn valid_trace_context_is_recorded_on_the_request_span() {
    let (span, _) = request_span(json!({
        "traceparent": traceparent(),
        "tracestate": "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
        "baggage": "userId=alice,isProduction=false",
    }))
    .await;
    assert_eq!(span["traceparent"], traceparent());
    assert_eq!(
        span["tracestate"],
        "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"
    );
    assert_eq!(span["baggage"], "userId=alice,isProduction=false");
}

#[tokio::test]
async fn hostile_trace_context_is_dropped_whole_and_bloats_no_log() {
    let huge = format!("k={}", "v".repeat(64 * 1024));
    let (span, log) = request_span(json!({
        "traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01\n\u{1b}[31m"),
        "tracestate": huge,
        "baggage": format!("k={}", "v".repeat(MAX_BAGGAGE)),
    }))
    .await;
    for field in ["traceparent", "tracestate", "baggage"] {
        assert!(span.get(field).is_none(), "{field} in {span}");
    }
    assert!(log.len() < 4 * 1024, "{} bytes of log", log.len());
    // Without a `traceparent`, a `tracestate` means nothing and is dropped too.
    let (span, _) = request_span(json!({"tracestate": "rojo=1", "baggage": "k=v"})).await;
    assert!(span.get("tracestate").is_none(), "{span}");
    assert_eq!(span["baggage"], "k=v");
}

#[tokio::test]
async fn with_the_opentelemetry_feature_the_trace_context_is_the_request_spans_parent() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let _default = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")))
        .set_default();
    let server = server();
    for trace in [
        json!({"traceparent": traceparent(), "baggage": "userId=alice"}),
        json!({}),
        json!({"traceparent": "00-not-a-trace-parent-01"}),
    ] {
        let answer = server
            .handle(&call(trace), RequestFacts::stdio())
            .finish()
            .await;
        assert_eq!(answer.status, 200);
    }
    provider.force_flush().unwrap();
    let spans: Vec<_> = exporter
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .filter(|span| span.name == "request")
        .collect();
    assert_eq!(spans.len(), 3, "{spans:#?}");
    let continued = &spans[0];
    assert_eq!(
        continued.span_context.trace_id(),
        TraceId::from_hex(TRACE_ID).unwrap()
    );
    assert_eq!(
        continued.parent_span_id,
        SpanId::from_hex(PARENT_ID).unwrap()
    );
    assert!(continued.parent_span_is_remote);
    // Without a valid `traceparent` a request starts a trace of its own.
    for fresh in &spans[1..] {
        assert_eq!(fresh.parent_span_id, SpanId::INVALID, "{fresh:#?}");
        assert_ne!(
            fresh.span_context.trace_id(),
            TraceId::from_hex(TRACE_ID).unwrap()
        );
    }
}
