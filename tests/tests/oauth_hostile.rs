//! Hostile callers of an OAuth-protected server, on the wire: tokens of one issuer signed with
//! another issuer's key, scoped tools reached without a token (over stdio), and a spray of
//! garbage signatures while an honest client's token is cached.

#[path = "support/oauth.rs"]
mod oauth;
#[path = "support/stdio.rs"]
mod stdio;

use std::time::Duration;

use mcp_examples::deploy;
use mcp_runtime::auth::{OAuth, OAuthBuilder};
use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ToolResult, text, tool};
use oauth::{ISSUER, RESOURCE, now, post, said, serve, whoami_with};
use serde_json::{Value, json};

/// A second issuer, with keys of its own.
const OTHER_ISSUER: &str = "https://auth-b.test";

/// Says which subject the server bound the call to.
#[tool]
async fn whoami(cx: Cx) -> ToolResult {
    Ok(text(cx.subject().unwrap_or("-").to_owned()))
}

/// Valid claims from `issuer` for `subject`, with every scope the tests need.
fn claims_from(issuer: &str, subject: &str) -> Value {
    json!({
        "iss": issuer,
        "aud": RESOURCE,
        "sub": subject,
        "scope": "mcp deploy:write",
        "nbf": now() - 5,
        "exp": now() + 300,
    })
}

fn jwks(key: &oauth::TestKey) -> String {
    json!({ "keys": [key.jwk()] }).to_string()
}

/// The test issuer, verified with the RSA key only, and a second issuer with the P-256 key
/// only.
fn two_issuers() -> OAuthBuilder {
    OAuth::builder(RESOURCE)
        .issuer_jwks(ISSUER, jwks(&oauth::rsa()))
        .issuer_jwks(OTHER_ISSUER, jwks(&oauth::ec()))
        .required_scopes(["mcp"])
}

fn builder(oauth: OAuth) -> ServerBuilder {
    deploy::register(Server::builder().name("deploy"))
        .tool(whoami)
        .signer(Signer::new(1, &[7; 32]).unwrap())
        .oauth(oauth)
        .tool_scopes("deploy", ["deploy:write"])
}

/// One round of `deploy` for `token`: the first when `state` is `None`, else the next.
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
async fn one_issuers_key_never_vouches_for_another_issuers_users() {
    let addr = serve(builder(two_issuers().build().unwrap()).build()).await;
    let (rsa, ec) = (oauth::rsa(), oauth::ec());
    // Issuer B's key signing a token that claims to come from issuer A.
    let forged = ec.sign(&claims_from(ISSUER, "alice"));
    let refused = whoami_with(addr, &forged).await;
    assert_eq!(refused.status, 401, "{refused:?}");
    let challenge = refused.header("www-authenticate").unwrap_or_default();
    assert!(challenge.contains("invalid_token"), "{challenge}");
    // Each issuer's own tokens pass, their subjects qualified by the issuer.
    let a_alice = rsa.sign(&claims_from(ISSUER, "alice"));
    let b_alice = ec.sign(&claims_from(OTHER_ISSUER, "alice"));
    let answer = whoami_with(addr, &a_alice).await;
    assert_eq!(said(&answer), format!("{ISSUER}#alice"), "{answer:?}");
    let answer = whoami_with(addr, &b_alice).await;
    assert_eq!(said(&answer), format!("{OTHER_ISSUER}#alice"), "{answer:?}");
    // A state minted for A's alice is refused to B's alice.
    let first = deploy_round(addr, &a_alice, None).await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {first}"))
        .to_owned();
    let stolen = deploy_round(addr, &b_alice, Some(&state)).await;
    assert_eq!(
        stolen["error"],
        json!({"code": -32602, "message": "Invalid or expired \"requestState\""}),
        "{stolen}"
    );
    let resumed = deploy_round(addr, &a_alice, Some(&state)).await;
    assert_eq!(resumed["result"]["resultType"], "complete", "{resumed}");
}

#[tokio::test]
async fn several_issuers_need_each_key_set_tied_to_one() {
    let pooled = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .issuer(OTHER_ISSUER)
        .jwks(jwks(&oauth::rsa()))
        .build()
        .unwrap_err()
        .to_string();
    assert!(pooled.contains("issuer_jwks"), "{pooled}");
    let keyless = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .issuer_jwks(OTHER_ISSUER, jwks(&oauth::ec()))
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        keyless.contains(&format!("no keys for issuer `{ISSUER}`")),
        "{keyless}"
    );
    // One issuer keeps the bare subject, so states minted before an upgrade stay valid.
    let single = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks(jwks(&oauth::rsa()))
        .build()
        .unwrap();
    let addr = serve(builder(single).build()).await;
    let token = oauth::rsa().sign(&claims_from(ISSUER, "alice"));
    assert_eq!(said(&whoami_with(addr, &token).await), "alice");
}

#[tokio::test]
async fn a_scoped_tool_reached_without_claims_is_refused_over_stdio() {
    let mut session = stdio::Session::spawn_with(&["--deploy-oauth"]);
    let refused = session
        .call(
            json!(1),
            "tools/call",
            json!({"name": "deploy", "arguments": {"service": "checkout"}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            }}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("insufficient scope"), "{refused}");
    assert!(message.contains("with_claims"), "{refused}");
    // A tool without scopes of its own still runs.
    let listed = session.call(json!(2), "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

/// A token under the RSA key's `kid` whose signature is random bytes: verifying it costs a
/// full RSA check, and it never verifies.
fn garbage_token() -> String {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","kid":"rsa-a"}"#);
    let mut nonce = [0u8; 16];
    distinct_bytes(&mut nonce);
    let mut claims = claims_from(ISSUER, "mallory");
    claims["jti"] = json!(URL_SAFE_NO_PAD.encode(nonce));
    let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
    let mut signature = vec![0u8; 256];
    distinct_bytes(&mut signature);
    format!("{header}.{payload}.{}", URL_SAFE_NO_PAD.encode(signature))
}

/// Bytes that differ from call to call (the standard library's random hash keys), so each
/// garbage token is new to the server.
fn distinct_bytes(bytes: &mut [u8]) {
    use std::hash::{BuildHasher, Hasher};
    for chunk in bytes.chunks_mut(8) {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(0);
        let word = hasher.finish().to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn garbage_signatures_are_shed_past_the_bound_and_cached_tokens_never_notice() {
    let oauth = OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks(jwks(&oauth::rsa()))
        .required_scopes(["mcp"])
        .max_concurrent_verifications(1)
        .build()
        .unwrap();
    let addr = serve(builder(oauth).build()).await;
    let honest = oauth::rsa().sign(&claims_from(ISSUER, "alice"));
    assert_eq!(whoami_with(addr, &honest).await.status, 200);
    // Waves of garbage at once, until one wave overlaps past the bound (the first does, in
    // practice); an honest client with a cached token calls all along.
    let mut shed = 0;
    let mut waves = 0;
    while shed == 0 && waves < 10 {
        waves += 1;
        let spray: Vec<_> = (0..32)
            .map(|_| tokio::spawn(async move { whoami_with(addr, &garbage_token()).await }))
            .collect();
        let honest = honest.clone();
        let calls = tokio::spawn(async move {
            let mut statuses = Vec::new();
            for _ in 0..8 {
                statuses.push(whoami_with(addr, &honest).await.status);
            }
            statuses
        });
        for answer in spray {
            let answer = answer.await.unwrap();
            match answer.status {
                401 => {}
                503 => {
                    assert_eq!(answer.header("retry-after"), Some("1"), "{answer:?}");
                    assert_eq!(answer.header("www-authenticate"), None, "{answer:?}");
                    shed += 1;
                }
                _ => panic!("garbage got {answer:?}"),
            }
        }
        assert!(calls.await.unwrap().iter().all(|&status| status == 200));
    }
    assert!(shed > 0, "no garbage token was shed in {waves} waves");
    // The bound is at once, not for good: a new honest token passes once the spray is over.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let fresh = oauth::rsa().sign(&claims_from(ISSUER, "bob"));
    assert_eq!(said(&whoami_with(addr, &fresh).await), "bob");
}
