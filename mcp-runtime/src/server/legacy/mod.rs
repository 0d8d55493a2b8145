//! Legacy sessions on the wire: `initialize`, the methods a session answers, notifications
//! and responses from the client, and a call's whole flow run within the call.

mod era;

pub(crate) use era::Era as CallEra;

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::call::{CallContext, Capabilities};
use super::cancel::Cancellable;
use super::completion;
use super::context::{ClientInfo, ProtocolEra, RequestContext, bounded_client_info};
use super::error::RpcError;
use super::handler::Progress;
use super::lifecycle::progress_token;
use super::method::Method;
use super::outbound::{self, Logger, MessageReceiver, Outbound};
use super::outcome::{error_outcome, legacy_outcome, raw_result_outcome, result_outcome};
use super::owner::Owner;
use super::params::{CallParams, Params};
use super::registry::{ListKind, cursor_of};
use super::session::{Carrier, OpenError, Opening, Session, StreamGuard};
use super::subscriptions::{Notice, announce};
use super::url_elicitation::LegacyCall;
use super::{Handling, Outcome, RequestFacts, Server};
use crate::logfield::untrusted;
use crate::protocol::{
    ErrorObject, InitializeRequestParams, InitializeResult, LEGACY_PROTOCOL_VERSIONS,
    SetLevelRequestParams, SubscribeRequestParams, legacy, method,
};
use era::Era;

/// One stdio connection: the legacy session it opened, if any, its output, and the calls
/// running on it, which the client may cancel.
#[derive(Debug)]
pub(crate) struct Connection {
    output: Outbound,
    session: Mutex<Option<(Arc<Session>, StreamGuard)>>,
    calls: Arc<Cancellable>,
    /// Turns true when the connection ends, which ends its listen streams.
    closed: tokio::sync::watch::Sender<bool>,
}

impl Connection {
    /// A connection whose messages outside any request are written to `output`.
    pub(crate) fn new(output: Outbound) -> Self {
        Self {
            output,
            session: Mutex::new(None),
            calls: Arc::default(),
            closed: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Turns true when the connection ends.
    pub(crate) fn closed(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closed.subscribe()
    }

    /// The calls running on the connection, by request id.
    pub(crate) fn calls(&self) -> &Arc<Cancellable> {
        &self.calls
    }

    fn session(&self) -> Option<Arc<Session>> {
        let slot = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        slot.as_ref().map(|(session, _)| Arc::clone(session))
    }

    /// Ends the connection's session, if it opened one, and its listen streams.
    pub(crate) fn end(&self, server: &Server) {
        self.closed.send_replace(true);
        let taken = self
            .session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((session, _stream)) = taken {
            server.inner.sessions.close(&session.id);
        }
    }
}

/// Whether a request is served by the legacy rules: it lacks the 2026-07-28 `_meta`, and it
/// is an `initialize`, or travels on a legacy session (or names a legacy version in its HTTP
/// header, so that a missing session is reported as such).
pub(crate) fn is_legacy(method: &str, params: &Params<'_>, facts: &RequestFacts) -> bool {
    if params.names_a_version() {
        return false;
    }
    method == method::INITIALIZE
        || facts.session_id.is_some()
        || facts
            .connection
            .as_ref()
            .is_some_and(|c| c.session().is_some())
        || facts
            .protocol_version_header
            .as_deref()
            .is_some_and(|version| LEGACY_PROTOCOL_VERSIONS.contains(&version))
}

impl Server {
    pub(super) fn handle_legacy(
        &self,
        id: Value,
        method: &str,
        params: Params<'_>,
        facts: &RequestFacts,
    ) -> Handling {
        let handled = if method == method::INITIALIZE {
            self.initialize(&id, params.into_map(), facts)
                .map(Handling::ready)
        } else {
            self.session_of(facts)
                .and_then(|session| self.route_legacy(&id, method, params, session, facts))
        };
        handled.unwrap_or_else(|error| {
            if error.status >= 500 {
                tracing::error!(
                    method = %untrusted(method),
                    message = %untrusted(&error.error.message),
                    "request failed"
                );
            }
            Handling::ready(error_outcome(&id, &error))
        })
    }

    /// The session a message travels on.
    fn session_of(&self, facts: &RequestFacts) -> Result<Arc<Session>, RpcError> {
        if let Some(connection) = &facts.connection {
            return connection
                .session()
                .ok_or_else(|| RpcError::invalid_request("send `initialize` first"));
        }
        let Some(id) = &facts.session_id else {
            return Err(RpcError::invalid_request(
                "missing `Mcp-Session-Id` header; send `initialize` first",
            ));
        };
        self.http_session(
            id,
            facts.subject.as_deref(),
            facts.protocol_version_header.as_deref(),
        )
    }

    /// The HTTP session `id` of `subject`, whatever the method: unknown is `404`, and an
    /// `MCP-Protocol-Version` header other than the session's version is `400`, as the
    /// 2025-11-25 transport prescribes for every request after `initialize`.
    fn http_session(
        &self,
        id: &str,
        subject: Option<&str>,
        version_header: Option<&str>,
    ) -> Result<Arc<Session>, RpcError> {
        let session = self
            .inner
            .sessions
            .find(id, subject)
            .ok_or_else(RpcError::session_not_found)?;
        if let Some(header) = version_header
            && header != session.version
        {
            return Err(RpcError::invalid_request(format!(
                "the `MCP-Protocol-Version` header `{header}` is not the session's version `{}`",
                session.version
            )));
        }
        Ok(session)
    }

    fn initialize(
        &self,
        id: &Value,
        params: Map<String, Value>,
        facts: &RequestFacts,
    ) -> Result<Outcome, RpcError> {
        let params: InitializeRequestParams = serde_json::from_value(Value::Object(params))
            .map_err(|error| RpcError::invalid_params(format!("invalid `initialize`: {error}")))?;
        let version = legacy::negotiate(&params.protocol_version);
        let carrier = match &facts.connection {
            Some(connection) if connection.session().is_some() => {
                return Err(RpcError::invalid_request(
                    "the session is already initialized",
                ));
            }
            Some(_) => Carrier::Stdio,
            None => Carrier::Http,
        };
        let opening = Opening {
            version,
            capabilities: params.capabilities,
            client_info: Some(bounded_client_info(params.client_info.clone())),
            owner: Owner::of(facts.subject.as_deref(), facts.peer),
            carrier,
        };
        let session = self
            .inner
            .sessions
            .open(opening)
            .map_err(|error| match error {
                OpenError::Full => RpcError::overloaded("too many sessions are busy; retry later"),
                OpenError::OwnerFull(max) => RpcError::too_many(format!(
                    "this client has {max} sessions open, its most, and each is busy; end one \
                     (`DELETE`) or retry later"
                )),
                OpenError::Random(error) => {
                    RpcError::internal(format!("no session id could be drawn: {error}"))
                }
            })?;
        tracing::debug!(
            version,
            client = %untrusted(&params.client_info.name),
            "legacy session opened"
        );
        if let Some(connection) = &facts.connection {
            // A stdio session's stream is not capped: its connection bounds it.
            let stream = session
                .open_stream(connection.output.clone())
                .map_err(RpcError::from)?;
            *connection
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some((Arc::clone(&session), stream));
        }
        let inner = &self.inner;
        let result = InitializeResult {
            protocol_version: version.to_owned(),
            capabilities: inner.registry.snapshot().legacy_capabilities.clone(),
            server_info: inner.legacy.server_info.clone(),
            instructions: inner.legacy.instructions.clone(),
        };
        let mut outcome = result_outcome(id, &result);
        if carrier == Carrier::Http {
            outcome.session_id = Some(session.id.to_string());
        }
        Ok(outcome)
    }

    fn route_legacy(
        &self,
        id: &Value,
        name: &str,
        params: Params<'_>,
        session: Arc<Session>,
        facts: &RequestFacts,
    ) -> Result<Handling, RpcError> {
        let snapshot = self.inner.registry.snapshot();
        let resources = snapshot.offered.resources;
        let empty = || Ok(Handling::ready(raw_result_outcome(id, "{}")));
        let page = |kind| {
            let page = snapshot.list(kind).page(cursor_of(params.rest())?, true)?;
            Ok(Handling::ready(raw_result_outcome(id, page)))
        };
        match name {
            method::PING => return empty(),
            method::LOGGING_SET_LEVEL => {
                let params: SetLevelRequestParams = parse_params(params, name)?;
                session.log_level.set(Some(params.level));
                return empty();
            }
            method::RESOURCES_SUBSCRIBE if resources => {
                let params: SubscribeRequestParams = parse_params(params, name)?;
                self.check_subscribable(&params.uri)?;
                session.subscribe(params.uri)?;
                return empty();
            }
            method::RESOURCES_UNSUBSCRIBE if resources => {
                let params: SubscribeRequestParams = parse_params(params, name)?;
                session.unsubscribe(&params.uri);
                return empty();
            }
            _ => {}
        }
        let method = self
            .method(name, &snapshot)
            .filter(|&method| !matches!(method, Method::Discover | Method::Listen))
            .ok_or_else(|| RpcError::legacy_method_not_found(name))?;
        match method {
            Method::ToolsList => page(ListKind::Tools),
            Method::PromptsList => page(ListKind::Prompts),
            Method::ResourcesList => page(ListKind::Resources),
            Method::TemplatesList => page(ListKind::Templates),
            Method::Complete => {
                let mut params = params.into_map();
                let context = session_context(self, &session, &mut params, facts, None);
                let running = completion::complete(self, params, context)?;
                Ok(completion::handling(
                    running,
                    id,
                    |id, result| match result {
                        Ok(result) => legacy_outcome(id, &result),
                        Err(error) => error_outcome(id, &error),
                    },
                ))
            }
            // Tasks belong to the 2026-07-28 wire.
            Method::Tasks(_) => Err(RpcError::legacy_method_not_found(name)),
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead => {
                // Read as they came, not put back into a map to be taken out again.
                let mut params = match params {
                    Params::Call(call) => call,
                    Params::Map(map) => CallParams::from_map(map),
                };
                // A legacy request's `_meta` names no version, so it is in `rest`; were it
                // read apart, it goes back there, where the context takes it from.
                if let Some(meta) = params.meta.take() {
                    params
                        .rest
                        .insert("_meta".to_owned(), Value::Object(meta.into_map()));
                }
                let (outbound, receiver) = outbound::channel();
                let progress = match progress_token(&params.rest) {
                    Some(token) => Progress::new(token, outbound.clone()),
                    None => Progress::none(),
                };
                let logger = Logger::new(outbound.clone(), Arc::clone(&session.log_level));
                // Stateless members mean nothing here: the flow runs whole within the call.
                params.input_responses = None;
                params.request_state = None;
                let call = Some(LegacyCall::new(outbound.clone()));
                let context = CallContext {
                    request: session_context(self, &session, &mut params.rest, facts, call),
                    peer: facts.peer,
                    // Read only for a stateless round's binding, which a legacy call has none of.
                    headers: None,
                    capabilities: Capabilities::Session(Arc::clone(&session)),
                    subject: facts.subject.clone(),
                    claims: facts.claims.clone(),
                    progress,
                    logger,
                };
                // Refused now, before anything runs, when the caps are reached.
                let running = session.start_call(id)?;
                let era = Era::Legacy { running, outbound };
                let outcome =
                    self.call(id.clone(), method, &mut params, context, era, &snapshot)?;
                Ok(Handling {
                    messages: Some(receiver),
                    outcome,
                })
            }
            Method::Discover | Method::Listen => Err(RpcError::legacy_method_not_found(name)),
        }
    }

    /// A notification: `notifications/cancelled` cancels a call of its session; the others
    /// need nothing. Over HTTP, a notification naming an unknown session gets `404`.
    pub(super) fn legacy_notification(
        &self,
        method: &str,
        params: &Map<String, Value>,
        facts: &RequestFacts,
    ) -> Outcome {
        let has_session = facts.session_id.is_some()
            || facts
                .connection
                .as_ref()
                .is_some_and(|c| c.session().is_some());
        if !has_session {
            tracing::debug!(method = %untrusted(method), "notification ignored");
            return Outcome::accepted();
        }
        match self.session_of(facts) {
            Ok(session) => {
                if method == method::NOTIFICATION_CANCELLED
                    && let Some(id) = params.get("requestId")
                {
                    session.cancel(id);
                }
                Outcome::accepted()
            }
            Err(error) => error_outcome(&Value::Null, &error),
        }
    }

    /// A client's response to a server-to-client request of its session.
    pub(super) fn legacy_response(
        &self,
        id: &Value,
        reply: Result<Value, ErrorObject>,
        facts: &RequestFacts,
    ) -> Outcome {
        match self.session_of(facts) {
            Ok(session) => {
                session.deliver(id, reply);
                Outcome::accepted()
            }
            Err(error) => error_outcome(&Value::Null, &error),
        }
    }

    /// Tells the listen streams and legacy sessions subscribed to `uri` that the resource
    /// changed (`notifications/resources/updated`); as [`Registry::notify_resource_updated`](super::Registry::notify_resource_updated).
    pub fn notify_resource_updated(&self, uri: &str) {
        self.announce(Notice::ResourceUpdated(uri));
    }

    /// Tells the listen streams that asked, and every legacy session, that the list of
    /// tools changed. Changes made through the [`Registry`](super::Registry) announce
    /// themselves.
    pub fn notify_tools_list_changed(&self) {
        self.announce(Notice::ToolsListChanged);
    }

    /// Tells the listen streams that asked, and every legacy session, that the list of
    /// prompts changed.
    pub fn notify_prompts_list_changed(&self) {
        self.announce(Notice::PromptsListChanged);
    }

    /// Tells the listen streams that asked, and every legacy session, that the list of
    /// resources changed.
    pub fn notify_resources_list_changed(&self) {
        self.announce(Notice::ResourcesListChanged);
    }

    fn announce(&self, notice: Notice<'_>) {
        announce(&self.inner.subscriptions, &self.inner.sessions, notice);
    }

    /// How many legacy sessions are open.
    pub fn legacy_sessions(&self) -> usize {
        self.inner.sessions.len()
    }

    /// How many server-to-client requests (the questions of running calls) wait for a legacy
    /// client's response, across every open session.
    pub fn legacy_requests_waiting(&self) -> usize {
        self.inner
            .sessions
            .all()
            .iter()
            .map(|session| session.waiting())
            .sum()
    }

    /// Ends the HTTP session `id` (a client's `DELETE`), or the refusal to (`404` once it
    /// has ended).
    pub(crate) fn end_session(
        &self,
        id: &str,
        subject: Option<&str>,
        version_header: Option<&str>,
    ) -> Result<(), Outcome> {
        self.http_session(id, subject, version_header)
            .and_then(|_| {
                if self.inner.sessions.close(id) {
                    Ok(())
                } else {
                    Err(RpcError::session_not_found())
                }
            })
            .map_err(|error| error_outcome(&Value::Null, &error))
    }

    /// Opens the standalone stream of the HTTP session `id` (a client's `GET`): its
    /// registration and its messages, or the refusal to answer. A newer stream replaces the
    /// session's older one, which ends.
    pub(crate) fn open_standalone_stream(
        &self,
        id: &str,
        subject: Option<&str>,
        version_header: Option<&str>,
    ) -> Result<(StreamGuard, MessageReceiver), Outcome> {
        self.http_session(id, subject, version_header)
            .and_then(|session| {
                let (sender, receiver) = outbound::channel();
                let guard = session.open_stream(sender)?;
                Ok((guard, receiver))
            })
            .map_err(|error| error_outcome(&Value::Null, &error))
    }
}

/// The longest resource URI a session may subscribe to, in bytes: 4 KiB.
pub(crate) const MAX_SUBSCRIBED_URI: usize = 4 * 1024;

impl Server {
    /// A session may subscribe only to a URI the server serves: a listed resource, or one a
    /// resource template matches; of at most [`MAX_SUBSCRIBED_URI`] bytes.
    fn check_subscribable(&self, uri: &str) -> Result<(), RpcError> {
        if uri.len() > MAX_SUBSCRIBED_URI {
            return Err(RpcError::invalid_params(format!(
                "a subscribed URI takes at most {MAX_SUBSCRIBED_URI} bytes"
            )));
        }
        if self.inner.registry.snapshot().serves(uri) {
            Ok(())
        } else {
            Err(RpcError::unknown_resource(uri))
        }
    }
}

/// The context of a request on `session`, its `_meta` taken out of `params`; `call` for a call.
fn session_context(
    server: &Server,
    session: &Session,
    params: &mut Map<String, Value>,
    facts: &RequestFacts,
    call: Option<LegacyCall>,
) -> RequestContext {
    let meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        _ => Map::new(),
    };
    let headers = server.inner.context.exposed(facts.headers.as_deref());
    RequestContext::new(
        ProtocolEra::Legacy,
        session.version,
        ClientInfo::Session(session.declared_info()),
        meta,
        headers,
        call,
    )
}

fn parse_params<T: serde::de::DeserializeOwned>(
    params: Params<'_>,
    method: &str,
) -> Result<T, RpcError> {
    serde_json::from_value(Value::Object(params.into_map()))
        .map_err(|error| RpcError::invalid_params(format!("invalid `{method}` params: {error}")))
}
