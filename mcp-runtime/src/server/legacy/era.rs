//! How a call is served: one round on the stateless wire, or the whole flow within a legacy
//! session's call, its questions sent to the client and its rounds run in process.

use serde_json::Value;

use crate::protocol::CacheHints;
use crate::server::Outcome;
use crate::server::call::{Call, RoundInput, Serves};
use crate::server::cancel::cancelled_outcome;
use crate::server::complete::complete;
use crate::server::error::RpcError;
use crate::server::handler::BoxFuture;
use crate::server::outbound::Outbound;
use crate::server::outcome::{error_outcome, legacy_outcome};
use crate::server::session::CallGuard;

/// How a call is served.
pub(crate) enum Era<'a> {
    /// One round on the stateless wire, with the round's answers and state from the client.
    Modern(RoundInput<'a>),
    /// The whole flow on a legacy session: questions go to the client as server-to-client
    /// requests on `outbound`, rounds follow in process until the final result.
    Legacy {
        running: CallGuard,
        outbound: Outbound,
    },
}

impl Era<'_> {
    pub(crate) fn start<H: Serves>(
        self,
        id: Value,
        call: Call<H>,
        cache: Option<CacheHints>,
    ) -> BoxFuture<'static, Outcome> {
        match self {
            Self::Modern(round) => call.stateless(round, id, cache),
            Self::Legacy { running, outbound } => Box::pin(run_call(id, call, running, outbound)),
        }
    }
}

/// Runs a call's whole flow on a legacy session: rounds in process, questions to the client,
/// until the final result, a failure or the client's cancellation.
async fn run_call<H: Serves>(
    id: Value,
    call: Call<H>,
    mut running: CallGuard,
    outbound: Outbound,
) -> Outcome {
    let cancelled = running.cancelled();
    let timeout = call.input_timeout();
    let mut answerer =
        running
            .session()
            .answerer(outbound, timeout, call.request_context().clone());
    let max_rounds = call.max_rounds();
    let rounds = complete(
        |state, answers| call.round(state, answers),
        &mut answerer,
        max_rounds,
    );
    // A cancellation wins over an answer that arrived with it.
    let outcome = tokio::select! {
        biased;
        () = cancelled => cancelled_outcome(),
        result = rounds => match result {
            Ok(result) => legacy_outcome(&id, &result),
            Err(error) => error_outcome(&id, &RpcError::from_legacy_handler(error)),
        },
    };
    drop(running);
    outcome
}
