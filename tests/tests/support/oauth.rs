//! OAuth fixtures: the PEM test keys under `tests/keys/`, tokens minted with them, a JWK set
//! served by a real local HTTP server (or HTTPS, its certificate from a CA made at test time)
//! that counts its fetches and can rotate, and raw HTTP exchanges with a bearer token, each
//! bounded by a timeout.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_examples::deploy;
use mcp_runtime::auth::{OAuth, OAuthBuilder};
use mcp_runtime::server::{Server, ServerBuilder};
use mcp_runtime::state::Signer;
use mcp_runtime::{Cx, ToolResult, text, tool};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The issuer the test server trusts.
pub(crate) const ISSUER: &str = "https://auth.test";

/// The resource the test server is: the audience its tokens must name.
pub(crate) const RESOURCE: &str = "https://mcp.test/mcp";

/// The metadata URL the server's challenges name.
pub(crate) const METADATA_URL: &str = "https://mcp.test/.well-known/oauth-protected-resource/mcp";

/// How long any exchange of a test may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(10);

/// A private test key, its `kid` and the algorithm it signs with.
pub(crate) struct TestKey {
    pub(crate) kid: &'static str,
    pub(crate) algorithm: Algorithm,
    key: EncodingKey,
}

impl TestKey {
    fn load(kid: &'static str, algorithm: Algorithm, pem: &str) -> Self {
        let key = match algorithm {
            Algorithm::RS256 => EncodingKey::from_rsa_pem(pem.as_bytes()),
            Algorithm::ES256 => EncodingKey::from_ec_pem(pem.as_bytes()),
            _ => EncodingKey::from_ed_pem(pem.as_bytes()),
        };
        Self {
            kid,
            algorithm,
            key: key.expect("a test key parses"),
        }
    }

    /// The public half, as a JWK with this key's `kid` and algorithm.
    pub(crate) fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.algorithm).expect("a public JWK");
        jwk.common.key_id = Some(self.kid.to_owned());
        serde_json::to_value(jwk).unwrap()
    }

    /// A token over `claims`, its header naming this key and its algorithm.
    pub(crate) fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.kid, self.algorithm, claims)
    }

    /// A token over `claims` signed with this key, whose header names `kid` and `algorithm`
    /// whatever they are.
    pub(crate) fn sign_as(&self, kid: &str, algorithm: Algorithm, claims: &Value) -> String {
        let mut header = Header::new(algorithm);
        header.kid = Some(kid.to_owned());
        let signing_input = format!(
            "{}.{}",
            encode_json(&serde_json::to_value(&header).unwrap()),
            encode_json(claims)
        );
        let signature =
            jsonwebtoken::crypto::sign(signing_input.as_bytes(), &self.key, self.algorithm)
                .expect("a test key signs");
        format!("{signing_input}.{signature}")
    }
}

fn encode_json(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// An unsigned token (`alg: none`) naming `kid`.
pub(crate) fn unsigned(kid: &str, claims: &Value) -> String {
    let header = json!({"alg": "none", "typ": "JWT", "kid": kid});
    format!("{}.{}.", encode_json(&header), encode_json(claims))
}

/// A token whose header says `HS256` and names `kid`, its MAC keyed with `secret` (the
/// classic confusion: an RSA public key used as an HMAC secret).
pub(crate) fn hmac_signed(kid: &str, secret: &[u8], claims: &Value) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(secret).unwrap()).unwrap()
}

fn key_file(name: &str) -> String {
    let path = format!("{}/keys/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The RSA key the JWK set serves from the start.
pub(crate) fn rsa() -> TestKey {
    TestKey::load("rsa-a", Algorithm::RS256, &key_file("rsa-a.pem"))
}

/// An RSA key the JWK set serves only once it rotates.
pub(crate) fn rotated() -> TestKey {
    TestKey::load("rsa-b", Algorithm::RS256, &key_file("rsa-b.pem"))
}

/// An RSA key the server never hears of.
pub(crate) fn attacker() -> TestKey {
    TestKey::load("rsa-x", Algorithm::RS256, &key_file("rsa-attacker.pem"))
}

/// The P-256 key (ES256).
pub(crate) fn ec() -> TestKey {
    TestKey::load("ec-a", Algorithm::ES256, &key_file("ec-p256.pem"))
}

/// The Ed25519 key (EdDSA).
pub(crate) fn ed() -> TestKey {
    TestKey::load("ed-a", Algorithm::EdDSA, &key_file("ed25519.pem"))
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> i64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    i64::try_from(since.as_secs()).unwrap()
}

/// Claims the test server accepts: its issuer and audience, valid for five minutes, for
/// `subject` with `scope`.
pub(crate) fn claims(subject: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": subject,
        "scope": scope,
        "iat": now(),
        "nbf": now() - 5,
        "exp": now() + 300,
        "email": format!("{subject}@example.com"),
    })
}

/// A throwaway certificate authority, made at test time: no key or certificate is kept on
/// disk.
pub(crate) struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl TestCa {
    pub(crate) fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Self { issuer }
    }

    /// The CA's certificate, PEM-encoded.
    pub(crate) fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// The CA's certificate, DER-encoded.
    pub(crate) fn der(&self) -> Vec<u8> {
        self.issuer.der().to_vec()
    }

    /// A TLS server configuration for `127.0.0.1`, its certificate signed by this CA.
    fn server_config(&self) -> Arc<ServerConfig> {
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["127.0.0.1".to_owned()]).unwrap();
        let certificate = params.signed_by(&key, &self.issuer).unwrap();
        let private = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(certificate.der().to_vec())],
                private,
            )
            .unwrap();
        Arc::new(config)
    }
}

/// A JWK set served over HTTP/1.1 on a loopback port, over TLS or not: `GET` any path answers
/// the current keys. Counts the connections (the fetches); the keys can be replaced (a
/// rotation).
pub(crate) struct JwksServer {
    pub(crate) addr: SocketAddr,
    scheme: &'static str,
    keys: Arc<Mutex<Vec<Value>>>,
    fetches: Arc<AtomicUsize>,
    serving: tokio::task::JoinHandle<()>,
}

impl JwksServer {
    pub(crate) async fn start(keys: Vec<Value>) -> Self {
        Self::serve(keys, None).await
    }

    /// Serves `keys` over TLS, with a certificate for `127.0.0.1` that `ca` signs.
    pub(crate) async fn start_tls(keys: Vec<Value>, ca: &TestCa) -> Self {
        Self::serve(keys, Some(TlsAcceptor::from(ca.server_config()))).await
    }

    /// Serves `keys` over plain HTTP on `listener`, which may have connections waiting.
    pub(crate) async fn start_on(listener: TcpListener, keys: Vec<Value>) -> Self {
        Self::serve_on(listener, keys, None)
    }

    async fn serve(keys: Vec<Value>, tls: Option<TlsAcceptor>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::serve_on(listener, keys, tls)
    }

    fn serve_on(listener: TcpListener, keys: Vec<Value>, tls: Option<TlsAcceptor>) -> Self {
        let addr = listener.local_addr().unwrap();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let keys = Arc::new(Mutex::new(keys));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (served, counted) = (Arc::clone(&keys), Arc::clone(&fetches));
        let serving = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let document = json!({ "keys": *served.lock().unwrap() }).to_string();
                counted.fetch_add(1, Ordering::SeqCst);
                match &tls {
                    None => drop(tokio::spawn(answer_once(stream, document))),
                    Some(tls) => {
                        let accepting = tls.accept(stream);
                        tokio::spawn(async move {
                            // A client that refuses the certificate ends the handshake.
                            if let Ok(Ok(stream)) = tokio::time::timeout(TIMEOUT, accepting).await {
                                answer_once(stream, document).await;
                            }
                        });
                    }
                }
            }
        });
        Self {
            addr,
            scheme,
            keys,
            fetches,
            serving,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("{}://{}/jwks.json", self.scheme, self.addr)
    }

    /// Serves `keys` from now on.
    pub(crate) fn rotate(&self, keys: Vec<Value>) {
        *self.keys.lock().unwrap() = keys;
    }

    /// How many times the set was fetched (over TLS: how many connections were opened,
    /// whether or not the handshake succeeded).
    pub(crate) fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

impl Drop for JwksServer {
    fn drop(&mut self) {
        self.serving.abort();
    }
}

/// Reads one request head (within the timeout) and answers `document`.
async fn answer_once<S: AsyncRead + AsyncWrite + Unpin>(mut stream: S, document: String) {
    let mut head = Vec::new();
    let mut buffer = [0; 1024];
    let read = async {
        while !head.windows(4).any(|window| window == b"\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return false,
                Ok(read) => head.extend_from_slice(&buffer[..read]),
            }
        }
        true
    };
    if !matches!(tokio::time::timeout(TIMEOUT, read).await, Ok(true)) {
        return;
    }
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{document}",
        document.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
    // Over TLS, a close_notify before the connection closes.
    let _ = stream.shutdown().await;
}

/// One raw HTTP answer.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) head: String,
    pub(crate) body: String,
}

impl Answer {
    /// The value of the header `name` (lowercase), if present.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {}", self.body))
    }
}

/// Sends `method path` to `addr` with `headers` and `body`, the connection closed after, and
/// reads the whole answer within [`TIMEOUT`]. Bodies are never chunked here: answers are
/// JSON with a length.
pub(crate) async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> Answer {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let raw = tokio::time::timeout(TIMEOUT, async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        raw
    })
    .await
    .expect("the server answers within the timeout");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head}"));
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

/// POSTs a 2026-07-28 JSON-RPC request to `/mcp`, with `token` as its bearer token when given.
pub(crate) async fn post(
    addr: SocketAddr,
    token: Option<&str>,
    method: &str,
    mut params: Value,
) -> Answer {
    if params.get("_meta").is_none() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        });
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut headers = vec![
        ("Content-Type", "application/json".to_owned()),
        ("Accept", "application/json, text/event-stream".to_owned()),
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", method.to_owned()),
    ];
    // The target, as 2026-07-28 clients mirror it (these tests name plain ASCII ones).
    if let Some(name) = body["params"]["name"]
        .as_str()
        .or_else(|| body["params"]["uri"].as_str())
        .filter(|_| matches!(method, "tools/call" | "prompts/get" | "resources/read"))
    {
        headers.push(("Mcp-Name", name.to_owned()));
    }
    if let Some(token) = token {
        headers.push(("Authorization", format!("Bearer {token}")));
    }
    exchange(addr, "POST", "/mcp", &headers, &body.to_string()).await
}

/// Serves `server` on a loopback port until the test ends.
pub(crate) async fn serve(server: mcp_runtime::server::Server) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        server
            .serve_listener(listener, std::future::pending())
            .await
    });
    addr
}

/// Calls the tests' `whoami` tool with `token`.
pub(crate) async fn whoami_with(addr: SocketAddr, token: &str) -> Answer {
    post(addr, Some(token), "tools/call", json!({"name": "whoami"})).await
}

/// The text of a result's first content block.
pub(crate) fn said(answer: &Answer) -> String {
    let body = answer.json();
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {body}"))
        .to_owned()
}

/// Says who the server thinks the caller is: the bound subject and the token's claims.
#[tool]
pub(crate) async fn whoami(cx: Cx) -> ToolResult {
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
pub(crate) fn config(jwks: &JwksServer) -> OAuthBuilder {
    OAuth::builder(RESOURCE)
        .issuer(ISSUER)
        .jwks_url(jwks.url())
        .jwks_min_refresh_interval(Duration::from_millis(400))
        .required_scopes(["mcp"])
}

/// The `deploy` example's tools and registry, and `whoami`; `deploy` also needs
/// `deploy:write`.
pub(crate) fn builder(oauth: OAuth) -> ServerBuilder {
    deploy::register(Server::builder().name("deploy"))
        .tool(whoami)
        .signer(Signer::new(1, &[7; 32]).unwrap())
        .oauth(oauth)
        .tool_scopes("deploy", ["deploy:write"])
}

/// Asserts a `401` refusing the token, pointing at the metadata.
pub(crate) fn assert_invalid_token(answer: &Answer, case: &str) {
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
pub(crate) fn assert_unavailable(answer: &Answer, case: &str) -> u64 {
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
