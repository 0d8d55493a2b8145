//! The floor of the load benchmark: a bare hyper server that answers the two rounds of a
//! `confirm_deploy` flow with canned bytes, so `scripts/load.sh` can set what HTTP alone costs
//! beside what a `deploy` server costs, under the same `load` generator.
//!
//! ```sh
//! taskset -c 0 target/release/floor --listen 127.0.0.1:3000 &
//! taskset -c 1 target/release/load --addr 127.0.0.1:3000 --era stateless --server-pid $!
//! ```
//!
//! It reads each request's head and whole body, as any server must, and answers a body that
//! carries a `requestState` with the final result, any other with the question. It parses no
//! JSON, checks nothing and logs nothing: not a server to run, a lower bound to compare with.
//! Stateless rounds only (`--era stateless`).

use std::convert::Infallible;
use std::net::SocketAddr;

use clap::Parser;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, header};
use hyper_util::rt::TokioIo;

#[derive(Parser)]
#[command(about = "A bare HTTP server answering a `confirm_deploy` flow with canned bytes")]
struct Cli {
    /// Address to listen on; port 0 picks a free port, printed on stdout.
    #[arg(long, default_value = "127.0.0.1:3000")]
    listen: SocketAddr,
}

/// The first round's answer: the question, with a request state the size of a signed one.
const QUESTION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"#,
    r#""confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Deploy to "#,
    r#"production?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"#,
    r#""required":["ok"]}}}},"requestState":"#,
    r#""AQAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"#,
    r#"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}"#
);

/// The second round's answer: the final result.
const RESULT: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"Deployment confirmed."}],"isError":false}}"#;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let cli = Cli::parse();
    let listener = tokio::net::TcpListener::bind(cli.listen).await?;
    println!("floor: serving at http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(answer))
                .await;
        });
    }
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let second = body
        .windows(b"\"requestState\"".len())
        .any(|window| window == b"\"requestState\"");
    let reply = if second { RESULT } else { QUESTION };
    Ok(Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from_static(reply.as_bytes())))
        .expect("a canned response is valid"))
}
