//! The usual command line of a server, from one call in `main`: [`ServerBuilder::run`].
//!
//! ```no_run
//! use mcp_runtime::server::Server;
//! use mcp_runtime::{Cx, ToolResult, text, tool};
//!
//! /// Say hello.
//! #[tool]
//! async fn hello(cx: Cx) -> ToolResult {
//!     let _ = cx;
//!     Ok(text("Hello!"))
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::io::Result<()> {
//!     Server::builder()
//!         .name("hello")
//!         .version(env!("CARGO_PKG_VERSION"))
//!         .tool(hello)
//!         .run()
//!         .await
//! }
//! ```
//!
//! `run` parses the process's arguments ([`Options`]; `--help` lists them), starts logging on
//! stderr ([`init_logging`]), takes the request-state key from `MCP_REQUEST_STATE_KEY`
//! ([`signer_from_env`]), applies the state and OAuth flags to the builder, builds the server
//! and serves it: Streamable HTTP at `http://<--listen>/mcp` (default `127.0.0.1:3000`, its
//! address printed on stdout) until Ctrl-C or `SIGTERM`, newline-delimited JSON-RPC on stdin and stdout with `--stdio` until
//! stdin ends, or, with `--demo`, a scripted conversation ([`Run::demo`]) played in process
//! with every message printed; with `--graph mermaid` or `--graph json`, it prints the flow
//! graphs of every handler ([`graph`](crate::graph)) and exits. A flag value it cannot use (a key that is not base64, a Redis
//! that cannot be reached, refused OAuth settings) ends the process with status 2 and one
//! line on stderr, as a malformed flag does.
//!
//! This module is the `cli` feature (on by default), which brings in `clap` and
//! `tracing-subscriber`.

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::pin::Pin;

use clap::Parser;
use serde_json::{Value, json};

use crate::auth::OAuth;
use crate::server::{RequestFacts, Server, ServerBuilder};
use crate::state::Signer;

mod access_line;
mod access_scopes;
mod log_fields;
mod log_layer;
mod log_request;
mod log_writer;
mod logging;
mod timestamp;
use logging::flush_log;
pub use logging::{LOG_BUFFER_BYTES, LogGuard, init_logging};

/// The flags [`ServerBuilder::run`] reads. A program with flags of its own flattens these into
/// its parser (`#[command(flatten)] server: Options`) and hands them to [`Run::options`].
#[derive(Debug, Clone, Parser)]
// No argument group of its own: a program's parser that flattens these may have any name,
// `Options` included.
#[group(skip)]
#[command(
    about = "An MCP server: Streamable HTTP by default, stdio with --stdio, or a demo with --demo",
    long_about = None
)]
pub struct Options {
    /// Address to serve Streamable HTTP on (endpoint `/mcp`; default `127.0.0.1:3000`, or
    /// the program's own); port 0 picks a free port, and the address served is printed on
    /// stdout.
    #[arg(long)]
    pub listen: Option<SocketAddr>,
    /// Serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP.
    #[arg(long, conflicts_with = "demo")]
    pub stdio: bool,
    /// Play a scripted conversation in process and print every message.
    #[arg(long)]
    pub demo: bool,
    /// Print the flow graphs of every tool, prompt and resource (`mermaid` or `json`; see
    /// [`graph`](crate::graph)) on stdout, and exit.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["stdio", "demo"])]
    pub graph: Option<GraphFormat>,
    /// How the log on stderr is written: `human` (one readable line per event) or `json` (one
    /// JSON object per line, for log collectors). `RUST_LOG` filters it (default `info`).
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
    /// How request states are protected.
    #[command(flatten)]
    pub states: StateOptions,
    /// How HTTP callers are authenticated.
    #[command(flatten)]
    pub oauth: OAuthOptions,
}

/// How the log on stderr is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    #[default]
    Human,
    /// One JSON object per line: the event's fields, its span and the spans it is in.
    Json,
}

/// How `--graph` prints the flow graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// One Mermaid `flowchart`, a subgraph per handler ([`FlowGraphs::to_mermaid`]).
    ///
    /// [`FlowGraphs::to_mermaid`]: crate::graph::FlowGraphs::to_mermaid
    Mermaid,
    /// One JSON document ([`FlowGraphs::to_json`]).
    ///
    /// [`FlowGraphs::to_json`]: crate::graph::FlowGraphs::to_json
    Json,
}

/// How request states are protected.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct StateOptions {
    /// Make every request state single-use (an in-process replay store): a state used again
    /// with other answers is refused, a retry with the same answers gets the same reply.
    #[arg(long)]
    pub single_use: bool,
    /// Share single use with other instances through Redis at this URL (implies
    /// `--single-use`), e.g. `redis://127.0.0.1:6379`.
    #[cfg(feature = "redis")]
    #[arg(long, value_name = "URL")]
    pub redis: Option<String>,
    /// Seal states (authenticated encryption) so that clients cannot read them.
    #[arg(long)]
    pub sealed: bool,
    /// The identity states are bound to (default: the server's name).
    #[arg(long, value_name = "NAME")]
    pub audience: Option<String>,
}

/// How HTTP callers are authenticated: off, or as an OAuth 2.1 resource server trusting one
/// authorization server.
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
    #[cfg(feature = "oauth-https")]
    #[arg(long, value_name = "FILE", requires = "oauth_issuer")]
    pub oauth_ca: Option<std::path::PathBuf>,
}

/// A scripted conversation for `--demo`: one tool call, retried with each round's answers.
#[derive(Debug, Clone)]
pub struct Demo {
    /// The tool to call.
    pub tool: String,
    /// Its arguments.
    pub arguments: Value,
    /// The answers (`inputResponses`) of every round after the first.
    pub answers: Vec<Value>,
}

/// The signer from `MCP_REQUEST_STATE_KEY` (base64, standard or URL-safe, padded or not, of
/// at least 32 bytes), so that several instances share states and states survive a restart;
/// without it a random key, with a warning in the log.
pub fn signer_from_env() -> Result<Signer, String> {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let Ok(key) = std::env::var("MCP_REQUEST_STATE_KEY") else {
        tracing::warn!(
            "MCP_REQUEST_STATE_KEY is not set: signing with a random key, so states verify on \
             no other instance and survive no restart"
        );
        return Signer::random().map_err(|error| error.to_string());
    };
    let bytes = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(key.trim()).ok())
        .ok_or_else(|| "MCP_REQUEST_STATE_KEY is not base64".to_owned())?;
    Signer::new(1, &bytes).map_err(|error| format!("MCP_REQUEST_STATE_KEY: {error}"))
}

impl ServerBuilder {
    /// Runs the server as the command line says: see [`cli`](crate::cli). Await it
    /// (`builder.run().await`), or first add a demo or scopes ([`Run`]).
    pub fn run(self) -> Run {
        Run {
            builder: self,
            options: None,
            demo: None,
            signer: None,
            tool_scopes: Vec::new(),
            listen: SocketAddr::from(([127, 0, 0, 1], 3000)),
        }
    }
}

/// A server about to run as its command line says ([`ServerBuilder::run`]); awaiting it
/// serves until shutdown.
#[must_use = "a `Run` does nothing until awaited"]
pub struct Run {
    builder: ServerBuilder,
    options: Option<Options>,
    demo: Option<Demo>,
    signer: Option<Signer>,
    tool_scopes: Vec<(String, Vec<String>)>,
    listen: SocketAddr,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("options", &self.options)
            .field("demo", &self.demo)
            .finish_non_exhaustive()
    }
}

impl Run {
    /// The options to run with, instead of the process's arguments (a program with flags of
    /// its own parses both and hands these over).
    pub fn options(mut self, options: Options) -> Self {
        self.options = Some(options);
        self
    }

    /// The conversation `--demo` plays (without one, `--demo` says there is none).
    pub fn demo(mut self, demo: Demo) -> Self {
        self.demo = Some(demo);
        self
    }

    /// The address served without `--listen` (default `127.0.0.1:3000`).
    pub fn default_listen(mut self, address: SocketAddr) -> Self {
        self.listen = address;
        self
    }

    /// The signer, instead of [`signer_from_env`]'s (`--sealed` still seals it).
    pub fn signer(mut self, signer: Signer) -> Self {
        self.signer = Some(signer);
        self
    }

    /// With `--oauth-issuer`, calls of `tool` need `scopes`
    /// ([`ServerBuilder::tool_scopes`]); without OAuth, ignored.
    pub fn tool_scopes<S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.tool_scopes.push((tool.into(), scopes));
        self
    }

    async fn serve(self) -> std::io::Result<()> {
        let options = self.options.unwrap_or_else(Options::parse);
        if let Some(format) = options.graph {
            // The handlers alone: no key, state store or OAuth is needed to draw them.
            let server = self
                .builder
                .try_build()
                .unwrap_or_else(|error| fail(&error));
            return print_graphs(&server, format);
        }
        let _log = init_logging(options.log_format);
        let name = self.builder.name.clone();
        let signer = match self.signer {
            Some(signer) => signer,
            None => signer_from_env().unwrap_or_else(|error| fail(&error)),
        };
        let builder = apply_states(&options.states, self.builder, signer).await;
        let server = apply_oauth(&options.oauth, builder, self.tool_scopes)
            .try_build()
            .unwrap_or_else(|error| fail(&error));
        if options.demo {
            match self.demo {
                Some(demo) => play(&server, demo).await,
                None => fail(&format!("`{name}` has no demo to play")),
            }
            Ok(())
        } else if options.stdio {
            server.serve_stdio().await
        } else {
            let listener =
                tokio::net::TcpListener::bind(options.listen.unwrap_or(self.listen)).await?;
            let address = listener.local_addr()?;
            // On stdout, which HTTP leaves free: a launcher that asked for port 0 reads it.
            println!("{name}: serving MCP at http://{address}/mcp");
            tracing::info!(%address, path = "/mcp", "serving MCP over HTTP");
            server.serve_listener(listener, shutdown()).await
        }
    }
}

impl IntoFuture for Run {
    type Output = std::io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.serve())
    }
}

/// Prints the flow graphs of `server`'s handlers on stdout, as `format` says.
fn print_graphs(server: &Server, format: GraphFormat) -> std::io::Result<()> {
    let graphs = server.flow_graphs();
    let text = match format {
        GraphFormat::Mermaid => graphs.to_mermaid(),
        // Written from the types, so that each object's members keep their order.
        GraphFormat::Json => serde_json::to_string_pretty(&graphs)? + "\n",
    };
    std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())
}

/// Ends the process with status 2 and `error` on stderr: a flag value that cannot be used.
fn fail(error: &dyn std::fmt::Display) -> ! {
    flush_log();
    eprintln!("error: {error}");
    std::process::exit(2)
}

/// Resolves at Ctrl-C or, on Unix, `SIGTERM`.
async fn shutdown() {
    let interrupt = async {
        // If the signal cannot be installed, serve until the process is killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    tracing::info!("shutting down");
}

async fn apply_states(
    options: &StateOptions,
    builder: ServerBuilder,
    mut signer: Signer,
) -> ServerBuilder {
    if options.sealed {
        signer = signer.sealed();
    }
    let mut builder = builder.signer(signer);
    if let Some(audience) = &options.audience {
        builder = builder.audience(audience.clone());
    }
    #[cfg(feature = "redis")]
    if let Some(url) = &options.redis {
        let store = crate::state::RedisReplayStore::connect(url)
            .await
            .unwrap_or_else(|error| fail(&format!("cannot reach Redis at {url}: {error}")));
        return builder.replay_store(store).single_use(true);
    }
    if options.single_use {
        builder = builder.single_use(true);
    }
    builder
}

fn apply_oauth(
    options: &OAuthOptions,
    builder: ServerBuilder,
    tool_scopes: Vec<(String, Vec<String>)>,
) -> ServerBuilder {
    let (Some(issuer), Some(audience)) = (&options.oauth_issuer, &options.oauth_audience) else {
        return builder;
    };
    let jwks = options
        .oauth_jwks
        .clone()
        .unwrap_or_else(|| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')));
    #[cfg(feature = "oauth-https")]
    let ca = options.oauth_ca.as_ref().map(|path| {
        let https = jwks
            .get(..8)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
        if !https {
            fail(&"`--oauth-ca` is for an `https://` JWK set URL");
        }
        let pem = std::fs::read(path)
            .unwrap_or_else(|error| fail(&format!("{}: {error}", path.display())));
        crate::auth::HttpsFetcher::new()
            .with_root_certificates_pem(&pem)
            .unwrap_or_else(|error| fail(&format!("{}: {error}", path.display())))
    });
    let oauth = OAuth::builder(audience.clone())
        .issuer(issuer.clone())
        .jwks_url(jwks);
    #[cfg(feature = "oauth-https")]
    let oauth = match ca {
        Some(fetcher) => oauth.jwks_fetcher(fetcher),
        None => oauth,
    };
    let oauth = oauth.build().unwrap_or_else(|error| fail(&error));
    let mut builder = builder.oauth(oauth);
    for (tool, scopes) in tool_scopes {
        builder = builder.tool_scopes(tool, scopes);
    }
    builder
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::{GraphFormat, Options};

    /// Flattened into a program's own parser named like it, the options still make a valid
    /// command line (clap checks a command's definition only when asked, or when it runs).
    #[test]
    fn the_options_flatten_into_a_parser_of_any_name() {
        Options::command().debug_assert();

        #[derive(clap::Parser)]
        struct Outer {
            #[command(flatten)]
            server: Options,
            #[arg(long)]
            extra: bool,
        }
        Outer::command().debug_assert();
        mod named {
            #[derive(clap::Parser)]
            pub(super) struct Options {
                #[command(flatten)]
                pub(super) server: super::Options,
            }
        }
        named::Options::command().debug_assert();
        let parsed = <Outer as clap::Parser>::try_parse_from(["server", "--stdio", "--extra"])
            .map_err(|error| error.to_string());
        let parsed = parsed.unwrap_or_else(|error| panic!("{error}"));
        assert!(parsed.server.stdio && parsed.extra);
    }

    /// `--graph` takes a format, and serves nothing, so it goes with no transport or demo.
    #[test]
    fn graph_takes_a_format_and_no_transport() {
        let parse = |args: &[&str]| {
            <Options as clap::Parser>::try_parse_from(args).map_err(|error| error.kind())
        };
        let mermaid = parse(&["server", "--graph", "mermaid"]).map(|options| options.graph);
        assert_eq!(mermaid, Ok(Some(GraphFormat::Mermaid)));
        let json = parse(&["server", "--graph", "json"]).map(|options| options.graph);
        assert_eq!(json, Ok(Some(GraphFormat::Json)));
        let conflict = clap::error::ErrorKind::ArgumentConflict;
        assert_eq!(
            parse(&["server", "--graph", "json", "--stdio"]).err(),
            Some(conflict)
        );
        assert_eq!(
            parse(&["server", "--graph", "json", "--demo"]).err(),
            Some(conflict)
        );
        let invalid = parse(&["server", "--graph", "dot"]).err();
        assert_eq!(invalid, Some(clap::error::ErrorKind::InvalidValue));
    }
}
