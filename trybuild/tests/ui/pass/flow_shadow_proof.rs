#![deny(warnings)]
#![allow(dead_code)] // reason: the shadowing types exist only to be in scope

use mcp_runtime::server::Server;
use mcp_runtime::{
    Cx, ElicitForm, PromptResult, ResourceResult, ToolResult, prompt, resource, text, tool,
};

struct Option;
struct Result;
struct Some;
struct None;
struct Ok;
struct Err;
struct String;
struct Vec;
struct Box;
struct Clone;
struct Default;
struct Send;
struct Future;

#[derive(ElicitForm)]
struct Target {
    production: bool,
    replicas: u32,
}

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    service: std::string::String,
}

/// Deploys the service.
#[tool]
async fn deploy(args: Args, cx: Cx) -> ToolResult {
    let target: Target = cx.elicit("Where should it go?").await?;
    let replicas: u32 = target.replicas;
    if target.production {
        let (confirm, again) = (
            cx.elicit::<Confirm>("Production?"),
            cx.elicit::<Confirm>("Really?"),
        )
            .await;
        if !confirm?.ok || !again?.ok {
            return ::core::result::Result::Ok(text("Nothing deployed."));
        }
    }
    ::core::result::Result::Ok(text(format!("Deployed {replicas} of {}.", args.service)))
}

/// A prompt.
#[prompt(name = "p")]
async fn p(cx: Cx) -> PromptResult {
    let confirm: Confirm = cx.elicit("Sure?").await?;
    let _ = confirm.ok;
    ::core::result::Result::Ok(::core::default::Default::default())
}

/// A resource.
#[resource(uri = "r://{id}")]
async fn r(cx: Cx) -> ResourceResult {
    let confirm: Confirm = cx.elicit("Sure?").await?;
    let _ = confirm.ok;
    ::core::result::Result::Ok(::core::default::Default::default())
}

fn main() {
    let _ = Server::builder().tool(deploy).prompt(p).resource(r).build();
}
