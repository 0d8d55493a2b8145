//! The OAuth resource server over real sockets: tokens minted with the test keys under
//! `tests/keys/`, the JWK set served by a local HTTP server, every answer checked on the wire
//! (status, `WWW-Authenticate`), and states bound to the token's subject. How the key set is
//! fetched (rotation, HTTPS, a key set not fetched yet) is `jwks_fetching.rs`.

#[path = "support/oauth.rs"]
mod oauth;

use std::time::Duration;

use jsonwebtoken::Algorithm;
use mcp_examples::deploy;
use mcp_runtime::server::{BuildError, Server};
use oauth::{
    ISSUER, JwksServer, METADATA_URL, RESOURCE, assert_invalid_token, builder, claims, config, now,
    post, said, serve, whoami_with,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;

#[tokio::test]
async fn valid_tokens_of_each_algorithm_pass_and_their_claims_reach_the_handler() {
    let keys = [oauth::rsa(), oauth::ec(), oauth::ed()];
    let jwks = JwksServer::start(keys.iter().map(oauth::TestKey::jwk).collect()).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    for key in &keys {
        let token = key.sign(&claims("alice", "mcp extra"));
        let answer = whoami_with(addr, &token).await;
        assert_eq!(answer.status, 200, "{:?}: {answer:?}", key.algorithm);
        assert_eq!(
            said(&answer),
            "subject=alice token-subject=alice email=alice@example.com scopes=mcp,extra",
            "{:?}",
            key.algorithm
        );
    }
    // One fetch served every key: the set is cached.
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn requests_without_a_token_are_told_where_the_metadata_is() {
    let jwks = JwksServer::start(vec![oauth::rsa().jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    let expected = format!("Bearer resource_metadata=\"{METADATA_URL}\", scope=\"mcp\"");
    let bare = post(addr, None, "tools/list", json!({})).await;
    assert_eq!(bare.status, 401, "{bare:?}");
    assert_eq!(bare.header("www-authenticate"), Some(expected.as_str()));
    assert_eq!(bare.json()["error"]["code"], -32600);
    // Another scheme is no bearer token.
    let basic = oauth::exchange(
        addr,
        "POST",
        "/mcp",
        &[("Authorization", "Basic YWxpY2U6c2VjcmV0".to_owned())],
        "{}",
    )
    .await;
    assert_eq!(basic.status, 401, "{basic:?}");
    assert_eq!(basic.header("www-authenticate"), Some(expected.as_str()));
    // Two `Authorization` headers are a malformed request.
    let token = oauth::rsa().sign(&claims("alice", "mcp"));
    let twice = oauth::exchange(
        addr,
        "POST",
        "/mcp",
        &[
            ("Authorization", format!("Bearer {token}")),
            ("Authorization", format!("Bearer {token}")),
        ],
        "{}",
    )
    .await;
    assert_eq!(twice.status, 400, "{twice:?}");
    assert!(
        twice
            .header("www-authenticate")
            .unwrap()
            .contains("error=\"invalid_request\"")
    );
    // No token was needed to learn nothing: the key set was never fetched.
    assert_eq!(jwks.fetches(), 0);
}

#[tokio::test]
async fn refused_tokens_are_answered_401_invalid_token() {
    let (rsa, ec) = (oauth::rsa(), oauth::ec());
    let jwks = JwksServer::start(vec![rsa.jwk(), ec.jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    let with = |changes: Value| {
        let mut claims = claims("alice", "mcp");
        for (name, value) in changes.as_object().unwrap() {
            match value {
                Value::Null => claims.as_object_mut().unwrap().remove(name),
                value => claims
                    .as_object_mut()
                    .unwrap()
                    .insert(name.clone(), value.clone()),
            };
        }
        claims
    };
    // The control: unchanged claims pass, as does a token expired within the clock skew.
    assert_eq!(
        whoami_with(addr, &rsa.sign(&with(json!({})))).await.status,
        200
    );
    let skewed = rsa.sign(&with(json!({"exp": now() - 20})));
    assert_eq!(whoami_with(addr, &skewed).await.status, 200);
    let rsa_public = serde_json::to_vec(&rsa.jwk()).unwrap();
    let refused = [
        ("expired", rsa.sign(&with(json!({"exp": now() - 3600})))),
        (
            "not yet valid",
            rsa.sign(&with(json!({"nbf": now() + 3600}))),
        ),
        (
            "wrong issuer",
            rsa.sign(&with(json!({"iss": "https://evil.test"}))),
        ),
        (
            "wrong audience",
            rsa.sign(&with(json!({"aud": "https://other.test/mcp"}))),
        ),
        ("no audience", rsa.sign(&with(json!({"aud": null})))),
        ("no expiry", rsa.sign(&with(json!({"exp": null})))),
        ("no subject", rsa.sign(&with(json!({"sub": null})))),
        (
            "bad signature",
            oauth::attacker().sign_as("rsa-a", Algorithm::RS256, &with(json!({}))),
        ),
        ("alg none", oauth::unsigned("rsa-a", &with(json!({})))),
        (
            "HS256 keyed with the public key",
            oauth::hmac_signed("rsa-a", &rsa_public, &with(json!({}))),
        ),
        (
            "header names an RSA key, token signed ES256",
            ec.sign_as("rsa-a", Algorithm::ES256, &with(json!({}))),
        ),
        (
            "header names an EC key, token signed RS256",
            rsa.sign_as("ec-a", Algorithm::RS256, &with(json!({}))),
        ),
        ("not a JWT", "not-a-token".to_owned()),
    ];
    for (case, token) in &refused {
        assert_invalid_token(&whoami_with(addr, token).await, case);
    }
    let expired = whoami_with(addr, &refused[0].1).await;
    assert!(
        expired
            .header("www-authenticate")
            .unwrap()
            .contains("error_description=\"the access token expired\""),
        "{expired:?}"
    );
}

#[tokio::test]
async fn a_tighter_clock_skew_refuses_what_the_default_lets_through() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let oauth = config(&jwks).clock_skew(Duration::ZERO).build().unwrap();
    let addr = serve(builder(oauth).build()).await;
    let mut late = claims("alice", "mcp");
    late["exp"] = json!(now() - 20);
    assert_invalid_token(
        &whoami_with(addr, &rsa.sign(&late)).await,
        "expired 20 s ago",
    );
    let mut early = claims("alice", "mcp");
    early["nbf"] = json!(now() + 20);
    assert_invalid_token(&whoami_with(addr, &rsa.sign(&early)).await, "valid in 20 s");
}

#[tokio::test]
async fn a_broader_scope_grants_the_narrower_ones_it_implies() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let settings = config(&jwks)
        .scope_implies("admin", ["ops"])
        .scope_implies("ops", ["mcp", "deploy:write"])
        .build()
        .unwrap();
    let addr = serve(builder(settings).build()).await;
    let arguments = json!({"name": "deploy", "arguments": {"service": "checkout"}});
    // Two steps down the chain: `admin` → `ops` → `mcp` and `deploy:write`.
    let admin = rsa.sign(&claims("alice", "admin"));
    assert_eq!(whoami_with(addr, &admin).await.status, 200);
    let allowed = post(addr, Some(&admin), "tools/call", arguments.clone()).await;
    assert_eq!(allowed.status, 200, "{allowed:?}");
    // An implication runs one way only: `mcp` grants nothing broader.
    let narrow = rsa.sign(&claims("alice", "mcp"));
    let refused = post(addr, Some(&narrow), "tools/call", arguments).await;
    assert_eq!(refused.status, 403, "{refused:?}");
}

#[tokio::test]
async fn missing_scopes_are_answered_403_insufficient_scope_with_every_scope_needed() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    // Without the scope every request needs.
    let bare = whoami_with(addr, &rsa.sign(&claims("alice", "other"))).await;
    assert_eq!(bare.status, 403, "{bare:?}");
    assert_eq!(
        bare.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp\", resource_metadata=\"{METADATA_URL}\""
            )
            .as_str()
        )
    );
    // With it, but without the tool's: only that tool is refused, naming both scopes.
    let reader = rsa.sign(&claims("alice", "mcp"));
    assert_eq!(whoami_with(addr, &reader).await.status, 200);
    let arguments = json!({"name": "deploy", "arguments": {"service": "checkout"}});
    let refused = post(addr, Some(&reader), "tools/call", arguments.clone()).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp deploy:write\", resource_metadata=\"{METADATA_URL}\""
            )
            .as_str()
        )
    );
    assert_eq!(refused.json()["error"]["message"], "insufficient scope");
    assert_eq!(refused.json()["id"], 1);
    let writer = rsa.sign(&claims("alice", "mcp deploy:write"));
    let allowed = post(addr, Some(&writer), "tools/call", arguments).await;
    assert_eq!(allowed.status, 200, "{allowed:?}");
    assert_eq!(allowed.json()["result"]["resultType"], "input_required");
}

/// One round of `deploy` for `token`: the first when `state` is `None`, else the next with
/// the target answered.
async fn deploy_round(addr: std::net::SocketAddr, token: &str, state: Option<&str>) -> Value {
    let mut params = json!({"name": "deploy", "arguments": {"service": "checkout"}});
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"target": {"action": "accept", "content": {
            "environment": "staging", "replicas": 2
        }}});
    }
    let answer = post(addr, Some(token), "tools/call", params).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    answer.json()
}

#[tokio::test]
async fn a_state_started_by_one_subject_is_refused_to_another_subjects_token() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    let alice = rsa.sign(&claims("alice", "mcp deploy:write"));
    let bob = rsa.sign(&claims("bob", "mcp deploy:write"));
    let first = deploy_round(addr, &alice, None).await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {first}"))
        .to_owned();
    let stolen = deploy_round(addr, &bob, Some(&state)).await;
    assert_eq!(
        stolen["error"],
        json!({"code": -32602, "message": "Invalid or expired \"requestState\""}),
        "{stolen}"
    );
    let resumed = deploy_round(addr, &alice, Some(&state)).await;
    assert_eq!(resumed["result"]["resultType"], "complete", "{resumed}");
    let said = resumed["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(said, "Deployed 2 replicas of checkout to Staging.");
}

#[tokio::test]
async fn a_subject_hook_sees_the_claims_and_wins_when_it_answers() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let server = builder(config(&jwks).build().unwrap())
        .subject(|parts| {
            let claims = parts
                .extensions
                .get::<std::sync::Arc<mcp_runtime::auth::Claims>>()?;
            let tenant = parts.headers.get("x-tenant")?.to_str().ok()?;
            Some(format!("{tenant}/{}", claims.subject()))
        })
        .build();
    let addr = serve(server).await;
    let token = rsa.sign(&claims("alice", "mcp"));
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    let headers = |tenant: Option<&str>| {
        let mut headers = vec![
            ("Content-Type", "application/json".to_owned()),
            ("Accept", "application/json".to_owned()),
            ("MCP-Protocol-Version", "2026-07-28".to_owned()),
            ("Mcp-Method", "tools/call".to_owned()),
            ("Mcp-Name", "whoami".to_owned()),
            ("Authorization", format!("Bearer {token}")),
        ];
        if let Some(tenant) = tenant {
            headers.push(("X-Tenant", tenant.to_owned()));
        }
        headers
    };
    let hooked = oauth::exchange(
        addr,
        "POST",
        "/mcp",
        &headers(Some("acme")),
        &body.to_string(),
    )
    .await;
    assert!(
        said(&hooked).starts_with("subject=acme/alice token-subject=alice "),
        "{hooked:?}"
    );
    let fallen_back =
        oauth::exchange(addr, "POST", "/mcp", &headers(None), &body.to_string()).await;
    assert!(
        said(&fallen_back).starts_with("subject=alice token-subject=alice "),
        "{fallen_back:?}"
    );
}

fn expected_metadata() -> Value {
    json!({
        "resource": RESOURCE,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["mcp", "deploy:write"],
        "bearer_methods_supported": ["header"],
    })
}

#[tokio::test]
async fn the_metadata_is_served_at_both_well_known_paths_without_a_token() {
    let jwks = JwksServer::start(vec![oauth::rsa().jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let answer = oauth::exchange(addr, "GET", path, &[], "").await;
        assert_eq!(answer.status, 200, "{path}: {answer:?}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        assert_eq!(answer.json(), expected_metadata(), "{path}");
    }
    let elsewhere = oauth::exchange(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource/x",
        &[],
        "",
    )
    .await;
    assert_eq!(elsewhere.status, 404);
    let posted = oauth::exchange(
        addr,
        "POST",
        "/.well-known/oauth-protected-resource",
        &[],
        "",
    )
    .await;
    assert_eq!(posted.status, 405);
}

#[tokio::test]
async fn the_router_serves_the_metadata_and_checks_tokens_too() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let server = builder(config(&jwks).build().unwrap()).build();
    let app = axum::Router::new().merge(server.router());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let metadata = oauth::exchange(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        "",
    )
    .await;
    assert_eq!(metadata.json(), expected_metadata());
    let bare = post(addr, None, "tools/list", json!({})).await;
    assert_eq!(bare.status, 401);
    assert!(
        bare.header("www-authenticate")
            .unwrap()
            .contains(METADATA_URL)
    );
    let listed = post(
        addr,
        Some(&rsa.sign(&claims("alice", "mcp"))),
        "tools/list",
        json!({}),
    )
    .await;
    assert_eq!(listed.status, 200, "{listed:?}");
    assert_eq!(
        listed.json()["result"]["tools"].as_array().unwrap().len(),
        4
    );
}

/// A legacy (2025-11-25) message for `token`, on `session` when given.
async fn legacy(
    addr: std::net::SocketAddr,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> oauth::Answer {
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("Authorization", format!("Bearer {token}")),
    ];
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session.to_owned()));
        headers.push(("MCP-Protocol-Version", "2025-11-25".to_owned()));
    }
    oauth::exchange(addr, "POST", "/mcp", &headers, &body.to_string()).await
}

#[tokio::test]
async fn a_legacy_session_opened_by_one_subject_is_unknown_to_another() {
    let rsa = oauth::rsa();
    let jwks = JwksServer::start(vec![rsa.jwk()]).await;
    let addr = serve(builder(config(&jwks).build().unwrap()).build()).await;
    let alice = rsa.sign(&claims("alice", "mcp"));
    let bob = rsa.sign(&claims("bob", "mcp"));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "oauth-test", "version": "1.0.0"},
    }});
    let opened = legacy(addr, &alice, None, &initialize).await;
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let stolen = legacy(addr, &bob, Some(&session), &list).await;
    assert_eq!(stolen.status, 404, "{stolen:?}");
    let own = legacy(addr, &alice, Some(&session), &list).await;
    assert_eq!(own.status, 200, "{own:?}");
    assert_eq!(own.json()["result"]["tools"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn tool_scopes_that_cannot_be_enforced_are_refused_at_build() {
    let jwks = JwksServer::start(vec![oauth::rsa().jwk()]).await;
    let unknown = builder(config(&jwks).build().unwrap())
        .tool_scopes("no_such_tool", ["x"])
        .try_build()
        .unwrap_err();
    assert!(
        matches!(&unknown, BuildError::ToolScopes { tool, .. } if tool == "no_such_tool"),
        "{unknown}"
    );
    let spaced = builder(config(&jwks).build().unwrap())
        .tool_scopes("whoami", ["two words"])
        .try_build()
        .unwrap_err();
    assert!(spaced.to_string().contains("not a scope token"), "{spaced}");
    let unenforced = deploy::register(Server::builder())
        .tool_scopes("deploy", ["deploy:write"])
        .try_build()
        .unwrap_err();
    assert!(
        unenforced.to_string().contains("without `oauth`"),
        "{unenforced}"
    );
}
