//! Paged lists on the wire: opaque cursors chain the pages of `tools/list` (and its
//! siblings) in registration order; a cursor that does not decode, belongs to another list,
//! or names a page of a list that has changed since is `-32602`; legacy sessions page the
//! same lists in their own shape.

#[path = "support/client.rs"]
mod client;
#[path = "support/schema.rs"]
mod schema;

use std::net::SocketAddr;

use mcp_runtime::server::Server;
use serde_json::{Value, json};

fn server(page_size: Option<usize>) -> Server {
    let builder = mcp_examples::tracker::register(Server::builder().name("tracker"));
    match page_size {
        Some(size) => builder.page_size(size),
        None => builder,
    }
    .build()
}

async fn page(addr: SocketAddr, method: &str, cursor: Option<&str>) -> Value {
    let params = match cursor {
        Some(cursor) => json!({ "cursor": cursor }),
        None => json!({}),
    };
    client::call(addr, json!(1), method, params).await.json()
}

/// Every tool name, walking the pages; checks each page against the schema.
async fn walk(addr: SocketAddr) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let answer = page(addr, "tools/list", cursor.as_deref()).await;
        let result = &answer["result"];
        schema::assert_valid("ListToolsResult", result);
        assert_eq!(result["cacheScope"], "private", "{result}");
        assert_eq!(result["ttlMs"], 0, "{result}");
        pages += 1;
        for tool in result["tools"].as_array().unwrap() {
            names.push(tool["name"].as_str().unwrap().to_owned());
        }
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_owned()),
            None => return (names, pages),
        }
    }
}

const TOOLS: [&str; 4] = [
    "create_issue",
    "close_issues",
    "list_issues",
    "set_tool_enabled",
];

#[tokio::test]
async fn pages_chain_by_cursor_in_registration_order() {
    let paged = client::start(server(Some(3))).await;
    let (names, pages) = walk(paged.addr).await;
    assert_eq!(names, TOOLS);
    assert_eq!(pages, 2);
    // Without a page size everything fits one page.
    let whole = client::start(server(None)).await;
    assert_eq!(
        walk(whole.addr).await,
        (TOOLS.map(str::to_owned).to_vec(), 1)
    );
}

#[tokio::test]
async fn bad_foreign_and_stale_cursors_are_invalid_params() {
    let server = server(Some(2));
    let registry = server.registry();
    let running = client::start(server).await;
    let addr = running.addr;
    let first = page(addr, "tools/list", None).await;
    let next = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    for bad in ["", "not a cursor", "AAAAAAAAAAAAAAAAAA"] {
        let answer = page(addr, "tools/list", Some(bad)).await;
        assert_eq!(answer["error"]["code"], -32602, "{bad}: {answer}");
    }
    let answer = client::call(addr, json!(1), "tools/list", json!({"cursor": 7}))
        .await
        .json();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // A tools cursor is no resources cursor.
    let answer = page(addr, "resources/templates/list", Some(&next)).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");

    // The cursor works until the list changes; then it is stale, and a fresh walk shows
    // the new list whole.
    assert!(page(addr, "tools/list", Some(&next)).await["result"].is_object());
    assert!(registry.disable_tool("create_issue"));
    let stale = page(addr, "tools/list", Some(&next)).await;
    assert_eq!(stale["error"]["code"], -32602, "{stale}");
    let message = stale["error"]["message"].as_str().unwrap();
    assert!(message.contains("list again"), "{message}");
    assert_eq!(walk(addr).await.0, TOOLS[1..]);
    // Enabled again, it is back in its place.
    assert!(registry.enable_tool("create_issue"));
    assert_eq!(walk(addr).await.0, TOOLS);
}

#[tokio::test]
async fn the_four_lists_are_paged_and_follow_the_registry() {
    let server = server(Some(1));
    let registry = server.registry();
    let running = client::start(server).await;
    let addr = running.addr;
    let templates = page(addr, "resources/templates/list", None).await;
    schema::assert_valid("ListResourceTemplatesResult", &templates["result"]);
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "tracker://issues/{number}"
    );
    let resources = page(addr, "resources/list", None).await;
    schema::assert_valid("ListResourcesResult", &resources["result"]);
    assert_eq!(resources["result"]["resources"], json!([]));

    // A disabled template is neither listed nor read.
    assert!(registry.disable_resource("tracker://issues/{number}"));
    let templates = page(addr, "resources/templates/list", None).await;
    assert_eq!(templates["result"]["resourceTemplates"], json!([]));
    let read = client::call(
        addr,
        json!(2),
        "resources/read",
        json!({"uri": "tracker://issues/1"}),
    )
    .await
    .json();
    assert!(read.get("error").is_some(), "{read}");
    // Removed, it is gone for good; a tool added at run time goes last.
    assert!(registry.remove_resource("tracker://issues/{number}"));
    assert!(!registry.enable_resource("tracker://issues/{number}"));
    assert!(registry.remove_tool("create_issue"));
    assert_eq!(
        registry.add_tool(mcp_examples::tracker::create_issue),
        Ok(true)
    );
    let duplicate = registry.add_tool(mcp_examples::tracker::create_issue);
    assert!(
        duplicate
            .unwrap_err()
            .to_string()
            .contains("two tools are named `create_issue`")
    );
    let (names, _) = walk(addr).await;
    assert_eq!(
        names,
        [
            "close_issues",
            "list_issues",
            "set_tool_enabled",
            "create_issue"
        ]
    );
}

#[tokio::test]
async fn legacy_sessions_page_the_same_lists_in_their_shape() {
    let running = client::start(server(Some(3))).await;
    let addr = running.addr;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "legacy", "version": "1"},
    }})
    .to_string();
    let legacy = [("MCP-Protocol-Version", ""), ("Mcp-Method", "")];
    let opened = client::send(addr, "POST", &legacy, initialize.as_bytes()).await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Mcp-Session-Id", session.as_str()),
        ("Mcp-Method", ""),
    ];
    let list = |cursor: Option<String>| {
        let mut params = json!({});
        if let Some(cursor) = cursor {
            params["cursor"] = Value::from(cursor);
        }
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params}).to_string()
    };
    let first = client::send(addr, "POST", &headers, list(None).as_bytes())
        .await
        .json();
    schema::assert_legacy_server_message(&first);
    assert!(first["result"].get("ttlMs").is_none(), "{first}");
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 3);
    let next = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let second = client::send(addr, "POST", &headers, list(Some(next)).as_bytes())
        .await
        .json();
    schema::assert_legacy_server_message(&second);
    assert_eq!(second["result"]["tools"][0]["name"], "set_tool_enabled");
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let bad = client::send(addr, "POST", &headers, list(Some("x".into())).as_bytes())
        .await
        .json();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}
