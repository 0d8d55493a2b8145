//! The OAuth resource server over real sockets: tokens minted with the test keys under
//! `tests/keys/`, the JWK set served by a local HTTP (or HTTPS) server, every answer checked
//! on the wire (status, `WWW-Authenticate`), and states bound to the token's subject.

#[path = "support/oauth.rs"]
mod oauth;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use jsonwebtoken::Algorithm;
use mcp_examples::deploy;
use mcp_runtime::auth::{HttpsFetcher, OAuth, OAuthBuilder};
use mcp_runtime::server::{BuildError, Server, ServerBuilder};
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ToolResult, text, tool};
use oauth::{
    ISSUER, JwksServer, METADATA_URL, RESOURCE, TestCa, claims, now, post, said, serve, whoami_with,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// Says who the server thinks the caller is: the bound subject and the token's claims.
#[tool]
async fn whoami(cx: Cx) -> ToolResult {
    let claims = cx
        .claims()
        .expect("an OAuth server hands handlers the claims");
    Ok(text(format!(
        "subject={} token-subject={} email={} scopes={}",
        cx.subject().unwrap_or("-"),
        claims.subject(),
        claims.get("email").and_then(Value::as_str).unwrap_or("-"),
        claims.scopes().join(",")
    )))
}

/// The configuration every test starts from: the test issuer and resource, keys from
/// `jwks`, the `mcp` scope on every request, fetches at least 400 ms apart.
fn config(jwks: &JwksServer) -> OAuthBuilder {
    OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url(jwks.url())
        .jwks_min_refresh_interval(Duration::from_millis(400))
        .required_scopes(["mcp"])
}

/// The `deploy` example's tools and registry, and `whoami`; `deploy` also needs
/// `deploy:write`.
fn builder(oauth: OAuth) -> ServerBuilder {
    deploy::register(Server::builder().name("deploy"))
        .tool(whoami)
        .signer(Signer::new(1, &[7; 32]).unwrap())
        .oauth(oauth)
        .tool_scopes("deploy", ["deploy:write"])
}

/// Asserts a `401` refusing the token, pointing at the metadata.
fn assert_invalid_token(answer: &oauth::Answer, case: &str) {
    assert_eq!(answer.status, 401, "{case}: {answer:?}");
    let challenge = answer.header("www-authenticate").unwrap_or_default();
    assert!(
        challenge.starts_with("Bearer error=\"invalid_token\""),
        "{case}: {challenge}"
    );
    assert!(
        challenge.contains(&format!("resource_metadata=\"{METADATA_URL}\"")),
        "{case}: {challenge}"
    );
}

/// Asserts a `503` with `Retry-After`: the token could not be checked, and was not refused.
fn assert_unavailable(answer: &oauth::Answer, case: &str) -> u64 {
    assert_eq!(answer.status, 503, "{case}: {answer:?}");
    assert_eq!(
        answer.header("www-authenticate"),
        None,
        "{case}: {answer:?}"
    );
    assert_eq!(answer.json()["error"]["code"], -32603, "{case}: {answer:?}");
    let seconds = answer
        .header("retry-after")
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or_else(|| panic!("{case}: no Retry-After in {answer:?}"));
    assert!(seconds >= 1, "{case}: {answer:?}");
    seconds
}

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
async fn an_unknown_kid_is_fetched_again_at_a_bounded_rate_and_found_after_a_rotation() {
    let (old, new) = (oauth::rsa(), oauth::rotated());
    let jwks = JwksServer::start(vec![old.jwk()]).await;
    // The key set's clock is the system's: the seven requests below must all fall within
    // the interval, and take a few milliseconds each, well under a tenth of it.
    let interval = Duration::from_secs(3);
    let oauth = config(&jwks).jwks_min_refresh_interval(interval);
    let addr = serve(builder(oauth.build().unwrap()).build()).await;
    let token = new.sign(&claims("alice", "mcp"));
    assert_eq!(
        whoami_with(addr, &old.sign(&claims("alice", "mcp")))
            .await
            .status,
        200
    );
    assert_eq!(jwks.fetches(), 1);
    // Unknown, and the last fetch is too recent to fetch again: refused without a fetch,
    // however often it is tried.
    for _ in 0..5 {
        assert_invalid_token(&whoami_with(addr, &token).await, "unknown kid");
    }
    assert_eq!(jwks.fetches(), 1);
    jwks.rotate(vec![old.jwk(), new.jwk()]);
    assert_invalid_token(&whoami_with(addr, &token).await, "rotated, not yet fetched");
    assert_eq!(jwks.fetches(), 1);
    tokio::time::sleep(interval).await;
    // Past the interval, the unknown kid fetches the rotated set and is found.
    assert_eq!(whoami_with(addr, &token).await.status, 200);
    assert_eq!(jwks.fetches(), 2);
    // Both keys now verify, from the cache.
    assert_eq!(
        whoami_with(addr, &old.sign(&claims("bob", "mcp")))
            .await
            .status,
        200
    );
    assert_eq!(jwks.fetches(), 2);
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

/// Everything logged on this thread while it is alive, as text.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    /// Captures what is logged on this thread (a `tokio::test` runs the server's tasks on
    /// it) until the guard drops.
    fn capture() -> (Self, tracing::subscriber::DefaultGuard) {
        let log = Self::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        (log, tracing::subscriber::set_default(subscriber))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

#[tokio::test]
async fn a_key_set_served_over_https_verifies_tokens_when_its_ca_is_trusted() {
    let ca = TestCa::new("mcp-tests CA");
    let rsa = oauth::rsa();
    let jwks = JwksServer::start_tls(vec![rsa.jwk()], &ca).await;
    assert!(
        jwks.url().starts_with("https://127.0.0.1:"),
        "{}",
        jwks.url()
    );
    let fetcher = HttpsFetcher::new()
        .with_root_certificates_pem(ca.pem().as_bytes())
        .unwrap();
    let oauth = config(&jwks).jwks_fetcher(fetcher).build().unwrap();
    let addr = serve(builder(oauth).build()).await;
    let answer = whoami_with(addr, &rsa.sign(&claims("alice", "mcp"))).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        said(&answer),
        "subject=alice token-subject=alice email=alice@example.com scopes=mcp"
    );
    let again = whoami_with(addr, &rsa.sign(&claims("bob", "mcp"))).await;
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn a_key_set_server_whose_certificate_no_trusted_root_signs_is_refused() {
    let (ca, other) = (TestCa::new("mcp-tests CA"), TestCa::new("another CA"));
    let rsa = oauth::rsa();
    let jwks = JwksServer::start_tls(vec![rsa.jwk()], &ca).await;
    let (log, _capturing) = Log::capture();
    let trusting_other = HttpsFetcher::new()
        .with_root_certificates([other.der()])
        .unwrap();
    // `jwks_url` alone: the built-in fetcher, trusting Mozilla's roots only.
    let cases = [
        ("Mozilla's roots", config(&jwks)),
        ("another CA", config(&jwks).jwks_fetcher(trusting_other)),
    ];
    for (case, settings) in cases {
        let addr = serve(builder(settings.build().unwrap()).build()).await;
        let answer = whoami_with(addr, &rsa.sign(&claims("alice", "mcp"))).await;
        assert_unavailable(&answer, case);
    }
    // Each server tried once, learned no key, and so could not check the token.
    assert_eq!(jwks.fetches(), 2);
    let log = log.text();
    let refusals = log
        .lines()
        .filter(|line| line.contains("cannot fetch the JWK set"))
        .filter(|line| line.contains("invalid peer certificate: UnknownIssuer"))
        .count();
    assert_eq!(refusals, 2, "{log}");
}

#[tokio::test]
async fn a_key_set_not_fetched_yet_is_a_temporary_failure_not_a_refused_token() {
    let rsa = oauth::rsa();
    // A port that takes connections and answers nothing until the key set is served on it.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    let oauth = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url(url)
        // The retry's fetch must answer within the timeout: ten times what one over loopback
        // takes on a busy machine. The interval leaves under a second after the first
        // fetch's timeout, so `Retry-After` is 1.
        .jwks_timeout(Duration::from_secs(2))
        .jwks_min_refresh_interval(Duration::from_secs(3))
        .required_scopes(["mcp"])
        .build()
        .unwrap();
    let token = rsa.sign(&claims("alice", "mcp"));
    // A transport of the application's own is told the same through `TokenError`.
    let unchecked = oauth.verify(&token).await.unwrap_err();
    assert!(unchecked.retry_after().is_some(), "{unchecked}");
    let addr = serve(builder(oauth).build()).await;
    let answer = whoami_with(addr, &token).await;
    let seconds = assert_unavailable(&answer, "no answer");
    assert_eq!(
        seconds, 1,
        "what is left of 3 s after 2 s, rounded up: {answer:?}"
    );
    // A retry after `Retry-After`, once the key set server answers, passes with the same
    // token.
    let _jwks = JwksServer::start_on(listener, vec![rsa.jwk()]).await;
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let retried = whoami_with(addr, &token).await;
    assert_eq!(retried.status, 200, "{retried:?}");
}
