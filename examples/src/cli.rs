//! The command line the example servers share: serve over HTTP (the default) or stdio, or
//! play a scripted conversation in process and print every message on the wire.

use std::net::SocketAddr;

use clap::Parser;
use mcp_runtime::auth::{HttpsFetcher, OAuth};
use mcp_runtime::server::{RequestFacts, Server, ServerBuilder};
use mcp_runtime::state::{RedisReplayStore, Signer};
use serde_json::{Value, json};

/// How an example server runs.
#[derive(Debug, Parser)]
pub struct Cli {
    /// Address to serve Streamable HTTP on (endpoint `/mcp`).
    #[arg(long, default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,
    /// Serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP.
    #[arg(long, conflicts_with = "demo")]
    pub stdio: bool,
    /// Play a scripted conversation in process and print every message.
    #[arg(long)]
    pub demo: bool,
    /// How request states are protected.
    #[command(flatten)]
    pub states: StateOptions,
    /// How the log on stderr is written: `human` (one readable line per event) or `json` (one
    /// JSON object per line, for log collectors). `RUST_LOG` filters it (default `info`).
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
}

/// How an example server writes its log on stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    #[default]
    Human,
    /// One JSON object per line: the event's fields, its span and the spans it is in.
    Json,
}

/// Parses the command line and starts logging as it says, so that what the server logs while
/// it is built (a missing key, say) is written too.
pub fn parse() -> Cli {
    let cli = Cli::parse();
    init_logging(cli.log_format);
    cli
}

/// Logs to stderr in `format`, filtered by `RUST_LOG` (default `info`): events, and a line
/// when a span closes, so each request's span (method, target, round, outcome, ...) and each
/// connection's span are written once they end; in colour only at a terminal, unless
/// `NO_COLOR` is set. Does nothing if logging already started.
pub fn init_logging(format: LogFormat) {
    use std::io::IsTerminal as _;
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    // Colours only for a person at a terminal who did not ask for none.
    let colours = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(colours)
        .with_span_events(FmtSpan::CLOSE);
    // An error only means a subscriber is already set: keep it.
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// How an example server protects its request states.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StateOptions {
    /// Make every request state single-use (an in-process replay store): a state used again
    /// with other answers is refused, a retry with the same answers gets the same reply.
    #[arg(long)]
    pub single_use: bool,
    /// Share single use with other instances through Redis at this URL (implies
    /// `--single-use`), e.g. `redis://127.0.0.1:6379`.
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// Seal states (authenticated encryption) so that clients cannot read them.
    #[arg(long)]
    pub sealed: bool,
    /// The identity states are bound to (default: the server's name).
    #[arg(long, value_name = "NAME")]
    pub audience: Option<String>,
}

impl StateOptions {
    /// `builder` with these options and `signer`. Exits with a message when Redis cannot be
    /// reached.
    pub async fn apply(&self, builder: ServerBuilder, mut signer: Signer) -> ServerBuilder {
        if self.sealed {
            signer = signer.sealed();
        }
        let mut builder = builder.signer(signer);
        if let Some(audience) = &self.audience {
            builder = builder.audience(audience.clone());
        }
        if let Some(url) = &self.redis {
            let store = RedisReplayStore::connect(url)
                .await
                .unwrap_or_else(|error| {
                    eprintln!("error: cannot reach Redis at {url}: {error}");
                    std::process::exit(2);
                });
            builder = builder.replay_store(store).single_use(true);
        } else if self.single_use {
            builder = builder.single_use(true);
        }
        builder
    }
}

/// How an example server authenticates its HTTP callers: off, or as an OAuth 2.1 resource
/// server trusting one authorization server.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OAuthOptions {
    /// Require bearer tokens issued by the authorization server whose issuer is URL (tokens'
    /// `iss`; listed in the protected-resource metadata).
    #[arg(long, value_name = "URL", requires = "oauth_audience")]
    pub oauth_issuer: Option<String>,
    /// The resource URI tokens must name as their audience: this server's endpoint as
    /// clients reach it, e.g. `https://mcp.example.com/mcp`.
    #[arg(long, value_name = "URI", requires = "oauth_issuer")]
    pub oauth_audience: Option<String>,
    /// The JWK set to verify tokens with, `http://` or `https://` (default:
    /// `<issuer>/.well-known/jwks.json`). Over HTTPS, the server's certificate must chain to
    /// one of Mozilla's roots, or to one given with `--oauth-ca`.
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub oauth_jwks: Option<String>,
    /// Also trust the root certificates in FILE (PEM) when fetching an `https://` JWK set:
    /// an authorization server behind a private CA.
    #[arg(long, value_name = "FILE", requires = "oauth_issuer")]
    pub oauth_ca: Option<std::path::PathBuf>,
}

impl OAuthOptions {
    /// `builder` with OAuth when asked, each of `tool_scopes` needing its scopes. Exits with a
    /// message when the settings are refused.
    pub fn apply(&self, builder: ServerBuilder, tool_scopes: &[(&str, &[&str])]) -> ServerBuilder {
        let (Some(issuer), Some(audience)) = (&self.oauth_issuer, &self.oauth_audience) else {
            return builder;
        };
        let jwks = self
            .oauth_jwks
            .clone()
            .unwrap_or_else(|| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')));
        let fail = |error: &dyn std::fmt::Display| -> ! {
            eprintln!("error: {error}");
            std::process::exit(2);
        };
        let https = jwks
            .get(..8)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
        let mut oauth = OAuth::builder(audience.clone())
            .issuer(issuer.clone())
            .jwks_url(jwks);
        if let Some(path) = &self.oauth_ca {
            if !https {
                fail(&"`--oauth-ca` is for an `https://` JWK set URL");
            }
            let pem = std::fs::read(path)
                .unwrap_or_else(|error| fail(&format!("{}: {error}", path.display())));
            let fetcher = HttpsFetcher::new()
                .with_root_certificates_pem(&pem)
                .unwrap_or_else(|error| fail(&format!("{}: {error}", path.display())));
            oauth = oauth.jwks_fetcher(fetcher);
        }
        let oauth = oauth.build().unwrap_or_else(|error| fail(&error));
        let mut builder = builder.oauth(oauth);
        for (tool, scopes) in tool_scopes {
            builder = builder.tool_scopes(*tool, scopes.iter().copied());
        }
        builder
    }
}

/// A scripted conversation: one tool call, retried with each round's answers.
#[derive(Debug)]
pub struct Demo {
    /// The tool to call.
    pub tool: &'static str,
    /// Its arguments.
    pub arguments: Value,
    /// The answers (`inputResponses`) of every round after the first.
    pub answers: Vec<Value>,
}

/// The signer of an example server: from `MCP_REQUEST_STATE_KEY` (base64, at least 32
/// bytes) so several instances can share states, else a random key.
pub fn signer() -> Signer {
    let signer = match std::env::var("MCP_REQUEST_STATE_KEY") {
        Ok(key) => crate::signer_from_base64(&key),
        Err(_) => {
            tracing::warn!(
                "MCP_REQUEST_STATE_KEY is not set: signing with a random key, so states \
                 verify on no other instance and survive no restart"
            );
            Signer::random().map_err(|error| error.to_string())
        }
    };
    signer.unwrap_or_else(|error| {
        eprintln!("error: {error}");
        std::process::exit(2);
    })
}

/// Runs `server` as the command line says; `name` is for the log line.
pub async fn run(name: &str, cli: Cli, server: Server, demo: Demo) -> std::io::Result<()> {
    init_logging(cli.log_format);
    if cli.demo {
        play(&server, demo).await;
        Ok(())
    } else if cli.stdio {
        server.serve_stdio().await
    } else {
        eprintln!("{name}: serving MCP at http://{}/mcp", cli.listen);
        server.serve_http(cli.listen).await
    }
}

/// Plays `demo` against `server` through its real dispatch, printing each exchange.
async fn play(server: &Server, demo: Demo) {
    let mut state: Option<String> = None;
    let rounds = std::iter::once(None).chain(demo.answers.into_iter().map(Some));
    for (id, answer) in rounds.enumerate() {
        let mut params = json!({
            "name": demo.tool,
            "arguments": demo.arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
            }
        });
        if let Some(answer) = answer {
            params["inputResponses"] = answer;
        }
        if let Some(state) = &state {
            params["requestState"] = Value::from(state.clone());
        }
        let request =
            json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call", "params": params});
        println!("── client → server, round {} ──", id + 1);
        println!(
            "{}",
            serde_json::to_string_pretty(&request).unwrap_or_default()
        );
        let bytes = serde_json::to_vec(&request).unwrap_or_default();
        let outcome = server.handle(&bytes, RequestFacts::stdio()).finish().await;
        let body = outcome.body.unwrap_or_default();
        println!("── server → client ──");
        println!("{}", pretty(&body));
        let response: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        state = response
            .pointer("/result/requestState")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match &state {
            Some(state) => println!(
                "(requestState: {} bytes, signed, bound to this call)",
                state.len()
            ),
            None => break,
        }
    }
}

/// The server's bytes, indented but in their own member order (a `Value` would sort keys).
fn pretty(bytes: &[u8]) -> String {
    let mut out = Vec::new();
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let mut writer = serde_json::Serializer::pretty(&mut out);
    match serde_transcode::transcode(&mut reader, &mut writer) {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
