//! [`Server::handle`]: from one JSON-RPC message to its answer, transport-independent.

use std::sync::Arc;

use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::call::{Call, CallContext, Capabilities, take_round};
use super::completion;
use super::context::{RequestContext, stamp};
use super::error::RpcError;
use super::handler::{BoxFuture, Progress};
use super::legacy;
use super::legacy::CallEra as Era;
use super::lifecycle::{self, Envelope};
use super::method::Method;
use super::outbound::{self, LevelCell, Logger};
use super::outcome::{error_outcome, raw_result_outcome, result_outcome};
use super::params::{CallParams, Params};
use super::registry::{ListKind, Snapshot, cursor_of};
use super::{
    Handling, Outcome, RequestFacts, Server, cancel, headers, listen, param_headers, shape, trace,
};
use crate::logfield::untrusted;
use crate::protocol::ClientCapabilities;
use crate::protocol::meta::META_CLIENT_CAPABILITIES;

impl Server {
    /// Handles one JSON-RPC message (the body of an HTTP POST, or one stdio line).
    ///
    /// A request carrying the 2026-07-28 `_meta` is served statelessly; `initialize` opens a
    /// legacy session, and requests on a legacy session are served by its rules. Lifecycle
    /// errors and list methods are answered at once; calls run their handler inside the
    /// returned future. A handler that panics answers `-32603` for its request only.
    pub fn handle(&self, message: &[u8], facts: RequestFacts) -> Handling {
        if shape::nests_deeper_than(message, self.message_depth()) {
            return Handling::ready(self.too_deep());
        }
        self.handle_shallow(message, facts)
    }

    /// [`Server::handle`] for a message whose nesting the transport has already measured
    /// against [`Server::message_depth`] as it arrived, so it is not scanned twice.
    pub(crate) fn handle_shallow(&self, message: &[u8], mut facts: RequestFacts) -> Handling {
        match lifecycle::parse_envelope(message) {
            Ok(Envelope::Request { id, method, params }) => {
                let legacy = legacy::is_legacy(&method, &params, &facts);
                let mut access = trace::Access::start(&method, &id, legacy, params.rest());
                let mut handling = access.within(|| {
                    // On a stdio connection a call may be cancelled by its id.
                    let registration = facts
                        .connection
                        .as_ref()
                        .filter(|_| runs_a_handler(&method))
                        .map(|connection| connection.calls().register(&id));
                    let mut handling = self.request(id, &method, params, &mut facts, legacy);
                    if let Some(registration) = registration {
                        handling.outcome = cancel::until_cancelled(registration, handling.outcome);
                    }
                    handling
                });
                handling.outcome = access.traced(handling.outcome);
                handling
            }
            Ok(Envelope::Notification { method, params }) => {
                Handling::ready(self.notification(&method, &params, &facts))
            }
            Ok(Envelope::Response { id, reply }) => {
                Handling::ready(self.legacy_response(&id, reply, &facts))
            }
            Err((id, error)) => Handling::ready(error_outcome(&id, &error)),
        }
    }

    /// A request, by the legacy rules or the stateless ones. The facts are lent, not moved
    /// from frame to frame: a call takes what it keeps of them.
    fn request(
        &self,
        id: Value,
        method: &str,
        params: Params<'_>,
        facts: &mut RequestFacts,
        legacy: bool,
    ) -> Handling {
        if legacy {
            return self.handle_legacy(id, method, params, facts);
        }
        match self.route(&id, method, params, facts) {
            Ok(handling) => handling,
            Err(error) => {
                if error.status >= 500 || error.code() == -32603 {
                    tracing::error!(
                        method = %untrusted(method),
                        message = %untrusted(&error.error.message),
                        "request failed"
                    );
                }
                Handling::ready(error_outcome(&id, &error))
            }
        }
    }

    /// A notification: on a stdio connection, `notifications/cancelled` cancels a call
    /// running on it, of either era; the legacy session rules see the rest.
    fn notification(
        &self,
        method: &str,
        params: &Map<String, Value>,
        facts: &RequestFacts,
    ) -> Outcome {
        if let Some(connection) = &facts.connection
            && method == crate::protocol::method::NOTIFICATION_CANCELLED
        {
            if let Some(id) = params.get("requestId") {
                connection.calls().cancel(id);
            }
            return Outcome::accepted();
        }
        // A 2026-07-28 notification over HTTP carries `Mcp-Method` as a request does.
        let modern =
            facts.protocol_version_header.as_deref() == Some(crate::protocol::PROTOCOL_VERSION);
        if let Some(headers) = facts.standard_headers().filter(|_| modern)
            && let Err(error) = headers::check_standard(method, |key| params.get(key), &headers)
        {
            return error_outcome(&Value::Null, &error);
        }
        self.legacy_notification(method, params, facts)
    }

    /// How deeply a whole message may nest: the arguments' and answers' limit, plus the
    /// envelope around them.
    pub(crate) fn message_depth(&self) -> usize {
        self.inner.max_json_depth + lifecycle::ENVELOPE_DEPTH
    }

    /// The answer to a message nested deeper than [`Server::message_depth`].
    pub(crate) fn too_deep(&self) -> Outcome {
        error_outcome(&Value::Null, &RpcError::too_deep(self.inner.max_json_depth))
    }

    fn route(
        &self,
        id: &Value,
        name: &str,
        mut params: Params<'_>,
        facts: &mut RequestFacts,
    ) -> Result<Handling, RpcError> {
        // One snapshot a request: the handlers its method is found among are those it calls.
        let snapshot = self.inner.registry.snapshot();
        let method = self
            .method(name, &snapshot)
            .ok_or_else(|| RpcError::method_not_found(name))?;
        let meta = lifecycle::check_meta(&params, facts)?;
        if let Some(headers) = facts.standard_headers() {
            headers::check_standard(name, |key| params.member(key), &headers)?;
        }
        // A call read as one goes straight to its round, taken apart where it lies; a map of
        // a call's members (its `method` came after its `params`) is taken apart below.
        if let (
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead,
            Params::Call(call),
        ) = (method, &mut params)
        {
            return self.route_call(id, method, call, meta, facts, &snapshot);
        }
        let params = params.into_map();
        let page = |kind| {
            let page = snapshot.list(kind).page(cursor_of(&params)?, false)?;
            Ok(Handling::ready(raw_result_outcome(id, page)))
        };
        match method {
            Method::Discover => Ok(Handling::ready(raw_result_outcome(id, &snapshot.discover))),
            Method::ToolsList => page(ListKind::Tools),
            Method::PromptsList => page(ListKind::Prompts),
            Method::ResourcesList => page(ListKind::Resources),
            Method::TemplatesList => page(ListKind::Templates),
            Method::Listen => listen::listen(self, id, &params, facts, &snapshot),
            Method::Complete => {
                let meta = match params.get("_meta") {
                    Some(Value::Object(meta)) => meta.clone(),
                    _ => Map::new(),
                };
                let context = RequestContext::modern(
                    meta,
                    self.inner.context.exposed(facts.headers.as_deref()),
                );
                let running = completion::complete(self, params, context)?;
                let info = self.inner.context.shared_server_info();
                Ok(completion::handling(
                    running,
                    id,
                    move |id, result| match result {
                        Ok(mut result) => {
                            if let Some(info) = &info {
                                stamp(&mut result.meta, info);
                            }
                            result_outcome(id, &result)
                        }
                        Err(error) => error_outcome(id, &error),
                    },
                ))
            }
            Method::Tasks(method) => {
                let answer = super::tasks::request(self, method, params, facts.subject.take());
                let id = id.clone();
                let info = self.inner.context.shared_server_info();
                let outcome = async move {
                    match answer.await {
                        Ok(mut result) => {
                            if let Some(info) = &info {
                                super::context::stamp_value(&mut result, info);
                            }
                            result_outcome(&id, &result)
                        }
                        Err(error) => error_outcome(&id, &error),
                    }
                };
                Ok(Handling {
                    messages: None,
                    outcome: Box::pin(outcome),
                })
            }
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                let params = &mut CallParams::from_map(params);
                self.route_call(id, method, params, meta, facts, &snapshot)
            }
        }
    }

    /// A stateless call: its round taken out of `params`, its context built from `_meta`.
    fn route_call(
        &self,
        id: &Value,
        method: Method,
        params: &mut CallParams<'_>,
        meta: lifecycle::Meta,
        facts: &mut RequestFacts,
        snapshot: &Snapshot,
    ) -> Result<Handling, RpcError> {
        let round = take_round(params)?;
        let exposed = self.inner.context.exposed(facts.headers.as_deref());
        let (capabilities, request) = match params.meta.take() {
            // Read as the message was: its text is read into a map only if asked for.
            Some(meta) => {
                let context = RequestContext::modern_text(meta.text, &meta.read, exposed);
                (Capabilities::Read(meta.read), context)
            }
            None => {
                // `check_meta` has seen `_meta` and its capabilities object: take them, not a
                // copy. Kept whole for the binding policy, which may read any of it.
                let meta_map = match params.rest.remove("_meta") {
                    Some(Value::Object(meta)) => meta,
                    _ => Map::new(),
                };
                // Read in place: the capabilities object is not copied to be parsed.
                let capabilities = match meta_map.get(META_CLIENT_CAPABILITIES) {
                    Some(capabilities) => ClientCapabilities::deserialize(capabilities),
                    None => Ok(ClientCapabilities::default()),
                }
                .map_err(|error| {
                    RpcError::invalid_meta(format!("invalid client capabilities: {error}"))
                })?;
                let capabilities = Capabilities::Parsed(Arc::new(capabilities));
                (capabilities, RequestContext::modern(meta_map, exposed))
            }
        };
        let (sender, receiver) = match (&meta.progress_token, meta.log_level) {
            (None, None) => (None, None),
            _ => {
                let (sender, receiver) = outbound::channel();
                (Some(sender), Some(receiver))
            }
        };
        let progress = match (meta.progress_token, &sender) {
            (Some(token), Some(sender)) => Progress::new(token, sender.clone()),
            _ => Progress::none(),
        };
        let logger = match (meta.log_level, sender) {
            (Some(level), Some(sender)) => {
                Logger::new(sender, Arc::new(LevelCell::new(Some(level))))
            }
            _ => Logger::none(),
        };
        let context = CallContext {
            request,
            peer: facts.peer,
            capabilities,
            subject: facts.subject.take(),
            claims: facts.claims.take(),
            progress,
            logger,
            headers: facts.headers.take(),
        };
        let era = Era::Modern(round);
        let outcome = self.call(id.clone(), method, params, context, era, snapshot)?;
        Ok(Handling {
            messages: receiver,
            outcome,
        })
    }

    /// Starts a call of a tool, prompt or resource of `snapshot`: one round on the stateless
    /// wire, or the whole flow on a legacy session.
    pub(super) fn call(
        &self,
        id: Value,
        method: Method,
        params: &mut CallParams<'_>,
        mut context: CallContext,
        era: Era<'_>,
        snapshot: &Snapshot,
    ) -> Result<BoxFuture<'static, Outcome>, RpcError> {
        let (method_name, key) = match method {
            Method::ToolsCall => ("tools/call", "name"),
            Method::PromptsGet => ("prompts/get", "name"),
            _ => ("resources/read", "uri"),
        };
        let target = match params.target.take().map(|(_, target)| target) {
            None => params.rest.remove(key),
            read => read,
        };
        let target = match target {
            Some(Value::String(target)) => target,
            Some(_) => {
                return Err(RpcError::invalid_params(format!(
                    "`{key}` must be a string"
                )));
            }
            None => return Err(RpcError::invalid_params(format!("missing `{key}`"))),
        };
        trace::record_target(&target);
        let arguments = match params.arguments.take() {
            None | Some(Value::Null) => None,
            Some(Value::Object(arguments)) if method != Method::ResourcesRead => Some(arguments),
            Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object")),
        };
        let inner = &self.inner;
        let lookup = |index: &super::registry::Index, kind: &str| {
            index
                .get(&target)
                .copied()
                .ok_or_else(|| RpcError::invalid_params(format!("unknown {kind} `{target}`")))
        };
        Ok(match method {
            Method::ToolsCall => {
                let position = lookup(&snapshot.tool_index, "tool")?;
                if let (Era::Modern(_), Some(headers)) = (&era, context.headers.as_deref()) {
                    param_headers::check_all(
                        &snapshot.tool_marks[position],
                        arguments.as_ref(),
                        headers,
                    )?;
                }
                let handler = Arc::clone(&snapshot.tools[position]);
                // Over HTTP with OAuth every request carries verified claims. A path without
                // them (stdio, a transport that hands none over) cannot show a scoped tool's
                // scopes, so it is refused the tool rather than let through unchecked.
                if let Some(auth) = &inner.auth {
                    let denied = match &context.claims {
                        Some(claims) => auth.tool_denied(&target, claims).map(|c| (c, true)),
                        None => auth.tool_challenge(&target).map(|c| (c, false)),
                    };
                    match denied {
                        Some((challenge, true)) => {
                            return Err(RpcError::insufficient_scope(challenge));
                        }
                        Some((challenge, false)) => return Err(RpcError::no_claims(challenge)),
                        None => {}
                    }
                }
                // Without the tasks extension no call becomes a task: the handler is not
                // asked whether it may.
                let launch = match &era {
                    Era::Modern(_) if inner.tasks.is_some() => super::tasks::prepare(
                        self,
                        &*handler,
                        &context.capabilities,
                        context.subject.as_deref(),
                        context.peer,
                        &mut context.progress,
                        &target,
                        arguments.as_ref(),
                    )?,
                    Era::Modern(_) | Era::Legacy { .. } => None,
                };
                let call = Call::new(
                    handler,
                    method_name,
                    target,
                    arguments,
                    context,
                    self,
                    launch,
                );
                era.start(id, call, None)
            }
            Method::PromptsGet => {
                let position = lookup(&snapshot.prompt_index, "prompt")?;
                let handler = Arc::clone(&snapshot.prompts[position]);
                let call = Call::new(handler, method_name, target, arguments, context, self, None);
                era.start(id, call, None)
            }
            _ => {
                let handler = snapshot
                    .resources
                    .iter()
                    .find(|handler| handler.matches(&target))
                    .map(Arc::clone)
                    .ok_or_else(|| RpcError::unknown_resource(&target))?;
                let call = Call::new(handler, method_name, target, arguments, context, self, None);
                era.start(id, call, Some(inner.cache))
            }
        })
    }
}

/// Whether `method` runs a handler, whose answer may take long enough to be cancelled.
/// A listen stream is cancelled the same way.
fn runs_a_handler(method: &str) -> bool {
    matches!(
        method,
        "tools/call" | "prompts/get" | "resources/read" | "subscriptions/listen"
    )
}
