//! Answers a flow's questions by sending them to the session's client as server-to-client
//! requests on the call's stream and waiting for its responses.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::Value;
use smallvec::SmallVec;
use tokio::sync::oneshot;

use super::{Session, lock};
use crate::protocol::{ErrorCode, ErrorObject, InputRequests, InputResponses};
use crate::server::complete::Answerer;
use crate::server::handler::BoxFuture;
use crate::server::outbound::Outbound;
use crate::server::{RequestContext, url_elicitation};

/// Asks one call's questions of its session's client.
pub(crate) struct ClientAnswerer {
    session: Arc<Session>,
    outbound: Outbound,
    timeout: Duration,
    /// The call's context, which names its URL elicitations.
    context: RequestContext,
}

impl ClientAnswerer {
    pub(super) fn new(
        session: Arc<Session>,
        outbound: Outbound,
        timeout: Duration,
        context: RequestContext,
    ) -> Self {
        Self {
            session,
            outbound,
            timeout,
            context,
        }
    }
}

/// The server-to-client requests of one round still waiting, in the order they were sent;
/// dropped, it forgets them. The first is held in place: most rounds ask one question, and
/// then no list is allocated.
struct Waiting<'a> {
    session: &'a Session,
    asked: SmallVec<[Asked; 1]>,
}

/// One server-to-client request sent: its id, the key its answer goes under, and where the
/// client's response arrives.
struct Asked {
    id: u64,
    key: String,
    method: &'static str,
    reply: oneshot::Receiver<Result<Value, ErrorObject>>,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut state = lock(&self.session.state);
        for asked in &self.asked {
            state.pending.remove(&asked.id);
        }
    }
}

impl Answerer for ClientAnswerer {
    fn answer(
        &mut self,
        mut requests: InputRequests,
    ) -> BoxFuture<'_, Result<InputResponses, ErrorObject>> {
        Box::pin(async move {
            url_elicitation::assign_ids(&mut requests, |key| self.context.elicitation_id(key));
            // Nobody reads the call's messages: over HTTP, a request whose `Accept` lacks
            // event streams is answered with JSON alone. Its questions could never arrive:
            // pages to open are listed in a `-32042`, anything else is refused.
            if self.outbound.is_closed() {
                let capabilities = self.session.capabilities();
                if let Some(error) = url_elicitation::required_error(&requests, capabilities) {
                    return Err(error);
                }
                return Err(ErrorObject::new(
                    ErrorCode::INVALID_REQUEST,
                    "this call asks the client questions, which travel on the request's event \
                     stream; send `Accept: application/json, text/event-stream`",
                ));
            }
            let session = &*self.session;
            let mut waiting = Waiting {
                session,
                asked: SmallVec::new(),
            };
            for (key, request) in requests {
                let id = session.next_request_id.fetch_add(1, Ordering::Relaxed);
                let (sender, reply) = oneshot::channel();
                lock(&session.state).pending.insert(id, sender);
                waiting.asked.push(Asked {
                    id,
                    key,
                    method: request.method(),
                    reply,
                });
                let message = super::question::message(id, &request).map_err(|error| {
                    internal(format!("an input request did not serialise: {error}"))
                })?;
                if self.outbound.send(message).is_err() {
                    return Err(internal("the call's stream closed"));
                }
            }
            let timeout = self.timeout;
            let collect = async {
                let mut answers = InputResponses::new();
                for asked in &mut waiting.asked {
                    match (&mut asked.reply).await {
                        Ok(Ok(answer)) => {
                            answers.insert(std::mem::take(&mut asked.key), answer);
                        }
                        Ok(Err(error)) => {
                            return Err(internal(format!(
                                "the client answered `{}` with an error: {}",
                                asked.method, error.message
                            )));
                        }
                        Err(_) => return Err(internal("the session ended")),
                    }
                }
                Ok(answers)
            };
            let answers = tokio::time::timeout(timeout, collect).await.map_err(|_| {
                internal(format!(
                    "the client did not answer within {} s",
                    timeout.as_secs()
                ))
            })?;
            drop(waiting);
            answers
        })
    }
}

fn internal(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}
