//! `subscriptions/listen` on the wire: acknowledged first with the agreed filter, every
//! message tagged with its subscription id, only what the client asked for, capped per owner,
//! freed when the client goes away, and ended with its response when the server shuts down;
//! over HTTP (one stream per request) and stdio (streams sharing the channel). Legacy
//! sessions hear of the same changes the older way.

#[path = "support/client.rs"]
mod client;
#[path = "support/schema.rs"]
mod schema;

use std::time::Duration;

use mcp_runtime::server::Server;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// How long a test waits to be sure that nothing more arrives: well past the time a message
/// already sent takes on loopback.
const QUIET: Duration = Duration::from_millis(300);

fn server() -> Server {
    mcp_examples::tracker::register(Server::builder().name("tracker")).build()
}

/// Waits (up to the client's timeout) until the server holds `count` listen streams.
async fn streams_become(server: &Server, count: usize) {
    let waited = tokio::time::timeout(client::READ_TIMEOUT, async {
        while server.listen_streams() != count {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(
        waited.is_ok(),
        "{} listen streams, not {count}",
        server.listen_streams()
    );
}

#[tokio::test]
async fn a_stream_is_acknowledged_first_and_carries_only_what_it_asked_for() {
    let server = server();
    let registry = server.registry();
    let running = client::start(server.clone()).await;
    let mut stream = client::listen(
        running.addr,
        json!("watch"),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourceSubscriptions": ["tracker://issues/1", "elsewhere://x"],
        }),
    )
    .await;
    assert_eq!(stream.status, 200);
    let ack = stream.next().await;
    schema::assert_valid("SubscriptionsAcknowledgedNotification", &ack);
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], "watch", "{ack}");
    // No prompts, and no resource at the foreign URI: neither is agreed.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["tracker://issues/1"]}),
        "{ack}"
    );

    // What it did not ask for does not come; what it asked for does, tagged.
    server.notify_resources_list_changed();
    registry.notify_resource_updated("tracker://issues/2");
    assert!(registry.disable_tool("list_issues"));
    let changed = stream.next().await;
    schema::assert_valid("ToolListChangedNotification", &changed);
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID], "watch");
    registry.notify_resource_updated("tracker://issues/1");
    let updated = stream.next().await;
    schema::assert_valid("ResourceUpdatedNotification", &updated);
    assert_eq!(updated["params"]["uri"], "tracker://issues/1", "{updated}");
    assert_eq!(updated["params"]["_meta"][SUBSCRIPTION_ID], "watch");
    // A change that changes nothing announces nothing.
    assert!(!registry.disable_tool("list_issues"));
    assert_eq!(stream.next_within(QUIET).await, None);
}

#[tokio::test]
async fn streams_are_capped_per_owner_and_freed_when_the_client_goes_away() {
    let server = Server::builder()
        .max_listeners(2, 10)
        .tool(mcp_examples::tracker::list_issues)
        .state(mcp_examples::tracker::Tracker::default())
        .build();
    let running = client::start(server.clone()).await;
    let tools = json!({"toolsListChanged": true});
    let mut first = client::listen(running.addr, json!(1), tools.clone()).await;
    let mut second = client::listen(running.addr, json!(2), tools.clone()).await;
    first.next().await;
    second.next().await;
    assert_eq!(server.listen_streams(), 2);
    let refused = client::listen(running.addr, json!(3), tools.clone()).await;
    assert_eq!(refused.status, 429);
    assert!(refused.header("retry-after").is_some());
    let refused = refused.body().await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("listen streams"),
        "{refused}"
    );

    // The client goes away: its stream's place is given back.
    drop(first);
    streams_become(&server, 1).await;
    let mut again = client::listen(running.addr, json!(4), tools).await;
    assert_eq!(again.next().await["params"]["_meta"][SUBSCRIPTION_ID], 4);
    drop((second, again));
    streams_become(&server, 0).await;
}

#[tokio::test]
async fn a_server_shutting_down_ends_each_stream_with_its_response() {
    let server = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn({
        let server = server.clone();
        async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            server.serve_listener(listener, shutdown).await
        }
    });
    let mut stream = client::listen(addr, json!(7), json!({"toolsListChanged": true})).await;
    stream.next().await;
    stop.send(()).unwrap();
    let rest = stream.until_closed().await;
    let response = rest.last().expect("the response").clone();
    schema::assert_valid("SubscriptionsListenResultResponse", &response);
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 7, "result": {
            "resultType": "complete", "_meta": {
                SUBSCRIPTION_ID: 7,
                "io.modelcontextprotocol/serverInfo": {"name": "tracker", "version": "0.1.0"},
            }
        }})
    );
    tokio::time::timeout(client::READ_TIMEOUT, serving)
        .await
        .expect("the server stops")
        .unwrap()
        .unwrap();
    assert_eq!(server.listen_streams(), 0);
}

#[tokio::test]
async fn a_listen_request_passes_the_header_checks_and_needs_an_event_stream() {
    let running = client::start(server()).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"_meta": client::meta(), "notifications": {"toolsListChanged": true}},
    })
    .to_string();
    for (headers, status, code) in [
        (vec![("Mcp-Method", "")], 400, -32020),
        (vec![("Mcp-Method", "tools/list")], 400, -32020),
        (vec![("Accept", "application/json")], 406, -32600),
    ] {
        let answer = client::send(running.addr, "POST", &headers, body.as_bytes()).await;
        assert_eq!(answer.status, status, "{headers:?}");
        assert_eq!(answer.json()["error"]["code"], code, "{headers:?}");
    }
    let malformed = json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {"_meta": client::meta(), "notifications": {"resourceSubscriptions": "x"}},
    })
    .to_string();
    let answer = client::send(running.addr, "POST", &[], malformed.as_bytes()).await;
    assert_eq!(answer.json()["error"]["code"], -32602);
}

/// One in-process stdio connection.
struct Stdio {
    input: Option<DuplexStream>,
    output: Lines<BufReader<DuplexStream>>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Stdio {
    fn start(server: &Server) -> Self {
        let (input, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(64 * 1024);
        let server = server.clone();
        let serving = tokio::spawn(async move { server.serve_lines(server_in, server_out).await });
        Self {
            input: Some(input),
            output: BufReader::new(output).lines(),
            serving,
        }
    }

    async fn send(&mut self, message: Value) {
        let input = self.input.as_mut().expect("open");
        input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(client::READ_TIMEOUT, self.output.next_line())
            .await
            .expect("a line in time")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }

    async fn quiet(&mut self) -> bool {
        tokio::time::timeout(QUIET, self.output.next_line())
            .await
            .is_err()
    }
}

fn listen_request(id: Value, notifications: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": client::meta(), "notifications": notifications},
    })
}

#[tokio::test]
async fn over_stdio_streams_share_the_channel_by_id_and_end_on_cancel_or_eof() {
    let server = server();
    let registry = server.registry();
    let mut stdio = Stdio::start(&server);
    stdio
        .send(listen_request(json!(1), json!({"toolsListChanged": true})))
        .await;
    let ack = stdio.read().await;
    schema::assert_valid("SubscriptionsAcknowledgedNotification", &ack);
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], 1);
    stdio
        .send(listen_request(
            json!("r"),
            json!({"resourceSubscriptions": ["tracker://issues/3"]}),
        ))
        .await;
    assert_eq!(stdio.read().await["params"]["_meta"][SUBSCRIPTION_ID], "r");

    assert!(registry.disable_tool("close_issues"));
    let changed = stdio.read().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID], 1);
    registry.notify_resource_updated("tracker://issues/3");
    let updated = stdio.read().await;
    assert_eq!(
        updated["params"]["_meta"][SUBSCRIPTION_ID], "r",
        "{updated}"
    );

    // Cancelled by its id: it ends without a response, and the other stays.
    stdio
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 1}}),
        )
        .await;
    streams_become(&server, 1).await;
    assert!(registry.enable_tool("close_issues"));
    assert!(stdio.quiet().await, "a cancelled stream still speaks");

    // The client goes away: the last stream ends and the connection is served out.
    drop(stdio.input.take());
    tokio::time::timeout(client::READ_TIMEOUT, &mut stdio.serving)
        .await
        .expect("the connection ends")
        .unwrap()
        .unwrap();
    assert_eq!(server.listen_streams(), 0);
}

#[tokio::test]
async fn legacy_sessions_hear_of_registry_changes_and_resource_updates() {
    let server = server();
    let registry = server.registry();
    let mut stdio = Stdio::start(&server);
    stdio
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "legacy", "version": "1"},
            }}),
        )
        .await;
    let initialized = stdio.read().await;
    let capabilities = &initialized["result"]["capabilities"];
    assert_eq!(capabilities["tools"]["listChanged"], true, "{initialized}");
    assert_eq!(
        capabilities["resources"]["subscribe"], true,
        "{initialized}"
    );
    stdio
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    stdio
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                     "params": {"uri": "tracker://issues/1"}}),
        )
        .await;
    assert_eq!(stdio.read().await["result"], json!({}));

    assert!(registry.disable_tool("list_issues"));
    let changed = stdio.read().await;
    schema::assert_legacy_server_message(&changed);
    assert_eq!(
        changed,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    registry.notify_resource_updated("tracker://issues/2");
    registry.notify_resource_updated("tracker://issues/1");
    let updated = stdio.read().await;
    schema::assert_legacy_server_message(&updated);
    assert_eq!(updated["params"], json!({"uri": "tracker://issues/1"}));
    // A legacy session cannot listen: the method is not of its revision.
    stdio
        .send(
            json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
                     "params": {"notifications": {}}}),
        )
        .await;
    assert_eq!(stdio.read().await["error"]["code"], -32601);
}
