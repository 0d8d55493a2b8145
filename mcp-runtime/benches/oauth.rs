//! What OAuth adds to a flow: bearer-token validation per request, next to the server's CPU
//! for one whole `deploy` flow (three rounds through `Server::handle`), and the ratio.
//!
//! Run with `cargo bench -p mcp-runtime --bench oauth`. Tokens are minted with the test keys
//! under `tests/keys/`; the key set is fetched once through a fetcher that answers from
//! memory, then cached, as on a server that has been running a while. Two validation costs
//! per request: a token seen before (the verified-token cache: what every round after a
//! session's first pays) and a full verification (signature and claims: a token's first
//! request, or every request with the cache off). Budget: validation adds at most 10% to
//! the flow's CPU with the cache. Figures only: nothing is asserted about time.

#[path = "support/verdict.rs"]
mod verdict;

use std::hint::black_box;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::OAuth;
use mcp_runtime::server::{BoxFuture, RequestFacts, Server};
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

const BUDGET: f64 = 0.10;
const REPEATS: usize = 9;
const ROUNDS_PER_FLOW: f64 = 3.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Environment {
    Staging,
    Production,
}

#[derive(Debug, ElicitForm)]
struct Target {
    environment: Environment,
    #[form(minimum = 1, maximum = 12)]
    replicas: u32,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DeployArgs {
    service: String,
}

#[tool]
async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult {
    let target: Target = cx
        .elicit(format!("Where should {} go?", args.service))
        .await?;
    if target.environment == Environment::Production {
        let confirm: Confirm = cx
            .elicit(format!("Ship {} replicas to production?", target.replicas))
            .await?;
        if !confirm.ok {
            return Ok(text("Nothing deployed."));
        }
    }
    Ok(text(format!("Deployed {} replicas.", target.replicas)))
}

/// The DER inside a PEM file.
fn der(pem: &str) -> Vec<u8> {
    let body: String = pem
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .collect();
    STANDARD.decode(body).expect("a PEM body is base64")
}

fn keys() -> Vec<(&'static str, Algorithm, EncodingKey)> {
    vec![
        (
            "rsa",
            Algorithm::RS256,
            EncodingKey::from_rsa_der(&der(include_str!("../../tests/keys/rsa-a.pem"))),
        ),
        (
            "ec",
            Algorithm::ES256,
            EncodingKey::from_ec_der(&der(include_str!("../../tests/keys/ec-p256.pem"))),
        ),
        (
            "ed",
            Algorithm::EdDSA,
            EncodingKey::from_ed_der(&der(include_str!("../../tests/keys/ed25519.pem"))),
        ),
    ]
}

const RESOURCE: &str = "https://mcp.bench/mcp";
const ISSUER: &str = "https://auth.bench";

fn oauth(jwks: &str, cache: usize) -> OAuth {
    let document = jwks.as_bytes().to_vec();
    let fetcher = move |_: &str, _: usize| -> BoxFuture<'static, Result<Vec<u8>, String>> {
        let document = document.clone();
        Box::pin(async move { Ok(document) })
    };
    OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url("https://auth.bench/jwks.json")
        .jwks_fetcher(fetcher)
        .required_scopes(["mcp"])
        .verified_token_cache(cache)
        .build()
        .expect("a valid configuration")
}

/// The three requests of one `deploy` flow to production, as a client sends them: the first
/// round, then each answer with the state the previous round handed out.
fn flow_requests(server: &Server, runtime: &tokio::runtime::Runtime) -> Vec<Vec<u8>> {
    let answers = [
        None,
        Some(json!({"target": {"action": "accept", "content": {
            "environment": "production", "replicas": 3}}})),
        Some(json!({"confirm": {"action": "accept", "content": {"ok": true}}})),
    ];
    let mut state: Option<String> = None;
    let mut requests = Vec::new();
    for answer in answers {
        let mut params = json!({
            "name": "deploy",
            "arguments": {"service": "checkout"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
            },
        });
        if let Some(answer) = answer {
            params["inputResponses"] = answer;
        }
        if let Some(state) = &state {
            params["requestState"] = json!(state);
        }
        let body = serde_json::to_vec(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}),
        )
        .unwrap();
        let reply = runtime.block_on(server.handle(&body, facts()).finish());
        let reply: Value = serde_json::from_slice(&reply.body.unwrap()).unwrap();
        assert!(reply.get("result").is_some(), "{reply}");
        state = reply["result"]["requestState"].as_str().map(str::to_owned);
        requests.push(body);
    }
    assert!(state.is_none(), "the third round completes the flow");
    requests
}

fn facts() -> RequestFacts {
    RequestFacts::http(Some("2026-07-28".to_owned()), Some("alice".to_owned()))
}

fn main() {
    let mut verdicts = verdict::Verdicts::from_args();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let keys = keys();
    let jwks: Vec<Value> = keys
        .iter()
        .map(|(kid, algorithm, key)| {
            let mut jwk = Jwk::from_encoding_key(key, *algorithm).unwrap();
            jwk.common.key_id = Some((*kid).to_owned());
            serde_json::to_value(jwk).unwrap()
        })
        .collect();
    let jwks = json!({ "keys": jwks }).to_string();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({
        "iss": ISSUER, "aud": RESOURCE, "sub": "alice", "scope": "mcp deploy:write",
        "iat": now, "exp": now + 3600,
    });
    let tokens: Vec<(Algorithm, String)> = keys
        .iter()
        .map(|(kid, algorithm, key)| {
            let mut header = Header::new(*algorithm);
            header.kid = Some((*kid).to_owned());
            (
                *algorithm,
                jsonwebtoken::encode(&header, &claims, key).unwrap(),
            )
        })
        .collect();
    let (full, cached) = (oauth(&jwks, 0), oauth(&jwks, 1024));
    for (_, token) in &tokens {
        // The first call fetches the set; every later one finds it cached.
        runtime.block_on(full.verify(token)).expect("a valid token");
        runtime
            .block_on(cached.verify(token))
            .expect("a valid token");
    }

    let server = Server::builder()
        .name("deploy")
        .tool(deploy)
        .signer(Signer::new(1, &[7; 32]).unwrap())
        .build();
    let requests = flow_requests(&server, &runtime);

    let mut flow = f64::INFINITY;
    let mut full_ns = vec![f64::INFINITY; tokens.len()];
    let mut cached_ns = vec![f64::INFINITY; tokens.len()];
    for _ in 0..REPEATS {
        let stats = easybench::bench(|| {
            for request in &requests {
                let outcome = runtime.block_on(server.handle(black_box(request), facts()).finish());
                black_box(outcome);
            }
        });
        flow = flow.min(stats.ns_per_iter);
        for (index, (_, token)) in tokens.iter().enumerate() {
            let stats = easybench::bench(|| runtime.block_on(full.verify(black_box(token))));
            full_ns[index] = full_ns[index].min(stats.ns_per_iter);
            let stats = easybench::bench(|| runtime.block_on(cached.verify(black_box(token))));
            cached_ns[index] = cached_ns[index].min(stats.ns_per_iter);
        }
    }

    println!(
        "deploy flow, 3 rounds through Server::handle:  {flow:>9.0} ns/flow (no authentication)"
    );
    println!("token validation per request (key set cached), and what 3 of them add to the flow:");
    for (index, (algorithm, token)) in tokens.iter().enumerate() {
        let (full, cached) = (full_ns[index], cached_ns[index]);
        let cached_ratio = ROUNDS_PER_FLOW * cached / flow;
        let name = format!("{algorithm:?}");
        let verdict = verdicts.judge(&name, cached_ratio <= BUDGET);
        println!(
            "  {name:<6} ({} bytes)  token seen before {cached:>7.0} ns/request  +{:>5.1}% per flow \
             ({verdict} the 10% budget)\
             \n  {:<6}               full verification {full:>7.0} ns/request  +{:>5.1}% per flow",
            token.len(),
            cached_ratio * 100.0,
            "",
            ROUNDS_PER_FLOW * full / flow * 100.0,
        );
    }
    verdicts.finish();
}
