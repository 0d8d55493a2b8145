//! One full round of the `deploy` flow in process — verify, decode, step, encode, sign —
//! against the codec's own sign + verify of a payload of the same size, in the same run.
//!
//! Run with `cargo bench -p mcp-runtime --bench flow_round`. The round measured is the second
//! of `deploy`: the client answers the target form (production, 3 replicas), so the flow
//! verifies the first state, parses the form, runs to the confirmation question and signs a
//! state carrying the target. Budget: the round costs at most 3x the codec. It also prints
//! the heap allocations of one such round (and of the codec's sign + verify), counted by an
//! instrumented global allocator.

#[path = "support/verdict.rs"]
mod verdict;

use std::alloc::System;
use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use mcp_runtime::protocol::{ClientCapabilities, InputResponses};
use mcp_runtime::server::{
    AppState, Logger, Progress, Reply, Request, RequestContext, ToolHandler,
};
use mcp_runtime::state::{BindingContext, Signer};
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const BUDGET: f64 = 3.0;
const REPEATS: usize = 15;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Environment {
    Staging,
    #[choice(title = "Production (live)")]
    Production,
}

#[derive(Debug, ElicitForm)]
struct Target {
    #[form(default = Environment::Staging)]
    environment: Environment,
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u32,
    #[form(max_length = 200)]
    reason: Option<String>,
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
    let reason = target.reason.unwrap_or_default();
    Ok(text(format!(
        "Deployed {} replicas {reason}",
        target.replicas
    )))
}

/// Polls a future that never waits on I/O to completion.
fn run<T>(future: impl Future<Output = T>) -> T {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
    }
}

fn request(state: Option<Vec<u8>>, answers: Option<Value>) -> Request {
    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap();
    let input_responses: Option<InputResponses> =
        answers.map(|a| serde_json::from_value(a).unwrap());
    Request {
        method: "tools/call",
        target: "deploy".to_owned(),
        arguments: json!({"service": "checkout"}).as_object().cloned(),
        input_responses,
        state,
        capabilities: capabilities.into(),
        subject: None,
        claims: None,
        progress: Progress::none(),
        logger: Logger::none(),
        app: AppState::default(),
        context: RequestContext::default(),
    }
}

/// The state a round handed out, signed as the server signs it.
fn state_of(
    reply: Reply<mcp_runtime::protocol::CallToolResult>,
    signer: &Signer,
    cx: &BindingContext<'_>,
) -> Option<String> {
    match reply {
        Reply::InputRequired(asked) => asked.into_parts().1.map(|state| signer.sign(cx, &state)),
        Reply::Complete(_) => None,
    }
}

fn main() {
    let mut verdicts = verdict::Verdicts::from_args();
    let signer = Signer::new(1, &[7; 32]).unwrap();
    let target = json!({"target": {"action": "accept", "content": {
        "environment": "production", "replicas": 3, "reason": "release 1.4"}}});
    let confirm = json!({"confirm": {"action": "accept", "content": {"ok": true}}});

    // The states bind the request as the server binds it.
    let binding = json!({"service": "checkout"});
    let cx = BindingContext::new("tools/call", "deploy").with_arguments(Some(&binding));
    // The three rounds once, for their state sizes.
    let verified = |token: &str| signer.verify(&cx, token).unwrap();
    let first = run(deploy().call(request(None, None))).unwrap();
    let state1 = state_of(first, &signer, &cx).unwrap();
    let second =
        run(deploy().call(request(Some(verified(&state1)), Some(target.clone())))).unwrap();
    let state2 = state_of(second, &signer, &cx).unwrap();
    let third = run(deploy().call(request(Some(verified(&state2)), Some(confirm)))).unwrap();
    assert!(matches!(third, Reply::Complete(_)));
    println!(
        "deploy state sizes: round 1 {} bytes, round 2 {} bytes, round 3 none (complete)",
        state1.len(),
        state2.len()
    );

    // The codec alone on a payload as large as the round's state payload.
    let payload = vec![b'x'; state2.len() * 3 / 4];

    // Rounds and codec interleaved, fifteen times, keeping the fastest of each: the machine is
    // shared, and the minimum is the figure least disturbed by other work.
    // The round as the server runs it: open the client's token, run the handler, sign the
    // state it hands out.
    let prepared = Prepared(request(None, Some(target)));
    let (mut round, mut codec) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..REPEATS {
        // Each iteration gets its own prepared request (preparing it is not measured).
        let stats = easybench::bench_env(Some(prepared.clone()), |prepared| {
            let request = prepared.take().map(|p| p.0);
            black_box(request.map(|mut request| {
                request.state = Some(signer.verify(&cx, black_box(&state1)).unwrap());
                let reply = run(deploy().call(black_box(request))).unwrap();
                state_of(reply, &signer, &cx)
            }))
        });
        round = round.min(stats.ns_per_iter);
        let stats = easybench::bench(|| {
            let token = signer.sign(black_box(&cx), black_box(&payload));
            black_box(signer.verify(&cx, &token).unwrap())
        });
        codec = codec.min(stats.ns_per_iter);
    }

    // Allocations of one round, the request prepared outside the count, as above.
    const COUNTED: usize = 1000;
    let requests: Vec<Request> = (0..COUNTED).map(|_| prepared.clone().0).collect();
    let region = Region::new(GLOBAL);
    for mut request in requests {
        request.state = Some(signer.verify(&cx, black_box(&state1)).unwrap());
        let reply = run(deploy().call(black_box(request))).unwrap();
        black_box(state_of(reply, &signer, &cx));
    }
    let round_allocations = region.change().allocations as f64 / COUNTED as f64;
    let region = Region::new(GLOBAL);
    for _ in 0..COUNTED {
        let token = signer.sign(black_box(&cx), black_box(&payload));
        black_box(signer.verify(&cx, &token).unwrap());
    }
    let codec_allocations = region.change().allocations as f64 / COUNTED as f64;

    let ratio = round / codec;
    println!("deploy round (verify, decode, step, encode, sign): {round:>8.0} ns/round");
    println!("codec sign + verify, same payload size:           {codec:>8.0} ns/op");
    println!(
        "ratio round/codec: {ratio:.2}x ({} the {BUDGET:.1}x budget)",
        verdicts.judge("round/codec", ratio <= BUDGET)
    );
    println!(
        "allocations: {round_allocations:.1} per round, {codec_allocations:.1} per codec sign + verify"
    );
    verdicts.finish();
}

/// A request that clones outside the measured loop.
struct Prepared(Request);

impl Clone for Prepared {
    fn clone(&self) -> Self {
        let r = &self.0;
        Self(Request {
            method: r.method,
            target: r.target.clone(),
            arguments: r.arguments.clone(),
            input_responses: r.input_responses.clone(),
            state: r.state.clone(),
            capabilities: r.capabilities.clone(),
            subject: r.subject.clone(),
            claims: r.claims.clone(),
            progress: Progress::none(),
            logger: Logger::none(),
            app: r.app.clone(),
            context: r.context.clone(),
        })
    }
}
