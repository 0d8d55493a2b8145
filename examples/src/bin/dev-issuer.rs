//! A stand-in authorization server for trying the OAuth examples: makes a fresh Ed25519 key,
//! prints one access token signed with it, and serves its JWK set until Ctrl-C. Not an
//! authorization server: no clients, no consent, no authorization endpoint.
//!
//! ```sh
//! cargo run -p mcp-examples --bin dev-issuer -- \
//!     --audience http://127.0.0.1:3000/mcp --subject alice --scope deploy:write
//! ```

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Parser;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What to mint, and where to serve the keys.
#[derive(Debug, Parser)]
struct Args {
    /// Address to serve the JWK set on, at `/.well-known/jwks.json`; the issuer is
    /// `http://<this address>`.
    #[arg(long, default_value = "127.0.0.1:9000")]
    listen: SocketAddr,
    /// The audience of the token: the MCP server's resource URI.
    #[arg(long, value_name = "URI")]
    audience: String,
    /// The token's subject.
    #[arg(long, default_value = "alice")]
    subject: String,
    /// The token's scopes, space-separated.
    #[arg(long, default_value = "")]
    scope: String,
    /// How long the token is valid, in seconds.
    #[arg(long, default_value_t = 3600)]
    lifetime: u64,
}

/// The PKCS #8 prefix of an Ed25519 private key, before its 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let mut der = ED25519_PKCS8_PREFIX.to_vec();
    let mut seed = [0; 32];
    getrandom::fill(&mut seed).map_err(|error| error.to_string())?;
    der.extend_from_slice(&seed);
    let key = EncodingKey::from_ed_der(&der);
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::EdDSA)?;
    jwk.common.key_id = Some("dev-1".to_owned());
    let jwks = json!({ "keys": [jwk] }).to_string();
    let issuer = format!("http://{}", args.listen);
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
    let claims = json!({
        "iss": issuer,
        "aud": args.audience,
        "sub": args.subject,
        "scope": args.scope,
        "iat": now,
        "exp": now + args.lifetime,
    });
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some("dev-1".to_owned());
    let token = jsonwebtoken::encode(&header, &claims, &key)?;
    let listener = TcpListener::bind(args.listen).await?;
    eprintln!("dev-issuer: issuer {issuer}, keys at {issuer}/.well-known/jwks.json");
    println!("{token}");
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(answer(stream, jwks.clone()));
                }
            }
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}

/// Answers one request: the JWK set at its path, `404` elsewhere.
async fn answer(mut stream: TcpStream, jwks: String) {
    let mut head = Vec::new();
    let mut buffer = [0; 1024];
    let read = async {
        while !head.windows(4).any(|window| window == b"\r\n\r\n") && head.len() < 8192 {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return false,
                Ok(read) => head.extend_from_slice(&buffer[..read]),
            }
        }
        true
    };
    let timeout = std::time::Duration::from_secs(10);
    if !matches!(tokio::time::timeout(timeout, read).await, Ok(true)) {
        return;
    }
    let found = head.starts_with(b"GET /.well-known/jwks.json ");
    let (status, body) = if found {
        ("200 OK", jwks)
    } else {
        ("404 Not Found", String::new())
    };
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
}
