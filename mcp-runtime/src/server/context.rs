//! What a handler learns about the request it serves ([`RequestContext`]): who called, on
//! which revision and era, the request's `_meta`, and the HTTP headers the server was told to
//! expose; and the builder settings that shape it.

use std::sync::{Arc, OnceLock};

use axum::http::{HeaderMap, HeaderName};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::ServerBuilder;
use super::build_check::BuildError;
use super::call_meta::Read;
use super::session::DeclaredInfo;
use super::url_elicitation::LegacyCall;
use crate::protocol::meta::{META_CLIENT_INFO, META_SERVER_INFO};
use crate::protocol::{Implementation, ResultMeta};

/// The longest text kept of each member of a client's `clientInfo`, in bytes: the rest is
/// cut (on a character boundary), and icons are dropped, so a hostile client cannot make a
/// legacy session hold more than a few hundred bytes of its identity.
pub const MAX_CLIENT_INFO_TEXT: usize = 256;

/// The generation of the protocol a request speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProtocolEra {
    /// Revision 2026-07-28: stateless, every request carries its own `_meta`, and a flow's
    /// rounds are separate requests.
    Modern,
    /// Revisions up to 2025-11-25: a session opened by `initialize`, and a flow's rounds run
    /// within one call.
    Legacy,
}

/// What a handler knows about the request it serves, beyond its arguments and answers:
/// [`Cx::request`](crate::Cx::request), or [`Request::context`](super::Request::context) for
/// hand-written handlers.
///
/// On the stateless wire every round of a flow is a request of its own, so each round sees
/// that round's `_meta` and headers. On a legacy session a flow's rounds all run within the
/// one call, whose `_meta` and headers they share; the client's identity is the one it gave at
/// `initialize`. Cloning is cheap.
#[derive(Clone, Default)]
pub struct RequestContext {
    inner: Arc<ContextInner>,
}

#[derive(Default)]
struct ContextInner {
    client_info: ClientInfo,
    version: Option<&'static str>,
    era: Option<ProtocolEra>,
    meta: Meta,
    headers: HeaderMap,
    /// A call on a legacy session: its URL elicitations' ids and notifications.
    legacy_call: Option<LegacyCall>,
}

/// Who the client says it is: read from this request, or a legacy session's `clientInfo`
/// from `initialize`; shared with where it was read rather than copied into every call.
#[derive(Default)]
pub(crate) enum ClientInfo {
    #[default]
    None,
    /// Read from a `_meta` taken as a map, which is rare: boxed.
    Own(Box<Implementation>),
    /// Read with a stateless call's `_meta` (bounded there), and shared with this thread's
    /// memory of its text.
    Read(Arc<Read>),
    Session(DeclaredInfo),
}

impl ClientInfo {
    fn get(&self) -> Option<&Implementation> {
        match self {
            Self::None => None,
            Self::Own(info) => Some(info),
            Self::Read(read) => read.client_info.as_ref(),
            Self::Session(declared) => declared.client_info(),
        }
    }
}

/// A request's `_meta`: a map, or the text of one, read into a map on first use.
enum Meta {
    Map(Map<String, Value>),
    Text {
        text: Arc<str>,
        map: OnceLock<Map<String, Value>>,
    },
}

impl Default for Meta {
    fn default() -> Self {
        Self::Map(Map::new())
    }
}

impl std::fmt::Debug for RequestContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestContext")
            .field("client_info", &self.client_info())
            .field("protocol_version", &self.protocol_version())
            .field("era", &self.era())
            .field("headers", &self.inner.headers.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl RequestContext {
    /// `client_info` as given: a session's is bounded already.
    pub(crate) fn new(
        era: ProtocolEra,
        version: &'static str,
        client_info: ClientInfo,
        meta: Map<String, Value>,
        headers: HeaderMap,
        legacy_call: Option<LegacyCall>,
    ) -> Self {
        Self::with_meta(
            era,
            version,
            client_info,
            Meta::Map(meta),
            headers,
            legacy_call,
        )
    }

    fn with_meta(
        era: ProtocolEra,
        version: &'static str,
        client_info: ClientInfo,
        meta: Meta,
        headers: HeaderMap,
        legacy_call: Option<LegacyCall>,
    ) -> Self {
        Self {
            inner: Arc::new(ContextInner {
                client_info,
                version: Some(version),
                era: Some(era),
                meta,
                headers,
                legacy_call,
            }),
        }
    }

    /// The context of a 2026-07-28 request with `meta`: the client's identity read from it.
    pub(crate) fn modern(meta: Map<String, Value>, headers: HeaderMap) -> Self {
        // Read in place, not from a copy of the member.
        let client_info = match meta
            .get(META_CLIENT_INFO)
            .and_then(|info| Implementation::deserialize(info).ok())
        {
            Some(info) => ClientInfo::Own(Box::new(bounded_client_info(info))),
            None => ClientInfo::None,
        };
        Self::modern_with(Meta::Map(meta), client_info, headers)
    }

    /// The context of a 2026-07-28 call whose `_meta` was read as text (see `call_meta`) into
    /// `read`, the client's identity among it: the text is read into a map on the first
    /// [`meta`](Self::meta).
    pub(crate) fn modern_text(text: Arc<str>, read: &Arc<Read>, headers: HeaderMap) -> Self {
        let meta = Meta::Text {
            text,
            map: OnceLock::new(),
        };
        let client_info = match read.client_info {
            Some(_) => ClientInfo::Read(Arc::clone(read)),
            None => ClientInfo::None,
        };
        Self::modern_with(meta, client_info, headers)
    }

    /// A 2026-07-28 context: this revision, no legacy call.
    fn modern_with(meta: Meta, client_info: ClientInfo, headers: HeaderMap) -> Self {
        Self::with_meta(
            ProtocolEra::Modern,
            crate::protocol::PROTOCOL_VERSION,
            client_info,
            meta,
            headers,
            None,
        )
    }

    /// The caller's `clientInfo`: from this request's `_meta`
    /// (`io.modelcontextprotocol/clientInfo`) on the stateless wire, from `initialize` on a
    /// legacy session; `None` when the client gave none. Client-chosen and unverified: for
    /// display and logs, never for decisions. Each text member is cut to
    /// [`MAX_CLIENT_INFO_TEXT`] bytes, and icons are dropped.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.inner.client_info.get()
    }

    /// The protocol revision the request speaks: `2026-07-28`, or a legacy session's
    /// negotiated version.
    pub fn protocol_version(&self) -> &str {
        self.inner
            .version
            .unwrap_or(crate::protocol::PROTOCOL_VERSION)
    }

    /// The generation of the protocol the request speaks.
    pub fn era(&self) -> ProtocolEra {
        self.inner.era.unwrap_or(ProtocolEra::Modern)
    }

    /// The request's `_meta`, as the client sent it (empty when it sent none). On the
    /// stateless wire it is built on the first call, from the text the request carried.
    pub fn meta(&self) -> &Map<String, Value> {
        match &self.inner.meta {
            Meta::Map(map) => map,
            Meta::Text { text, map } => map.get_or_init(|| super::call_meta::map_of(text)),
        }
    }

    /// The value of HTTP header `name` (any case), when the request came over HTTP, carried
    /// it, and the server exposes it ([`ServerBuilder::expose_header`]); `None` otherwise, and
    /// always on stdio. A header sent more than once gives its first value;
    /// [`headers`](RequestContext::headers) gives all.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.inner
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
    }

    /// The exposed HTTP headers the request carried (see [`RequestContext::header`]).
    pub fn headers(&self) -> &HeaderMap {
        &self.inner.headers
    }

    /// The `elicitationId` a URL-mode question asked under `key` carries, on a call of a
    /// legacy session, where revision 2025-11-25 requires one: known before the question is
    /// asked, so the page's URL can name it. `None` on 2026-07-28, which has no such ids.
    pub fn elicitation_id(&self, key: &str) -> Option<String> {
        self.inner.legacy_call.as_ref().map(|call| call.id(key))
    }

    /// Tells the client of a legacy session that the out-of-band work of the URL-mode
    /// elicitation `elicitation_id` is done (`notifications/elicitation/complete`, on the
    /// call's stream, so only the client that was asked hears it). Whether it was sent:
    /// `false` on 2026-07-28, which has no such notification, and once the call has ended.
    pub fn notify_elicitation_complete(&self, elicitation_id: &str) -> bool {
        self.inner
            .legacy_call
            .as_ref()
            .is_some_and(|call| call.complete(elicitation_id))
    }
}

/// `info` with each text member cut to [`MAX_CLIENT_INFO_TEXT`] bytes and no icons.
pub(crate) fn bounded_client_info(mut info: Implementation) -> Implementation {
    let cut = |text: &mut String| {
        if text.len() > MAX_CLIENT_INFO_TEXT {
            let mut end = MAX_CLIENT_INFO_TEXT;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
        }
    };
    cut(&mut info.name);
    cut(&mut info.version);
    for text in [
        &mut info.title,
        &mut info.description,
        &mut info.website_url,
    ]
    .into_iter()
    .flatten()
    {
        cut(text);
    }
    info.icons = None;
    info
}

/// The context settings of a server: which headers handlers see, and whether results carry
/// the server's identity.
#[derive(Debug, Clone)]
pub(crate) struct ContextSettings {
    /// The names given to [`ServerBuilder::expose_header`], checked at build.
    requested: Vec<String>,
    exposed: Arc<[HeaderName]>,
    /// Every header is exposed (the flow tester's own server).
    all: bool,
    /// `io.modelcontextprotocol/serverInfo` in every 2026-07-28 result's `_meta`.
    server_info_in_results: bool,
    /// The identity results carry, set at build; `None` when they carry none. Shared: every
    /// round's answer holds it until it is stamped.
    server_info: Option<Arc<Implementation>>,
    /// [`server_info`](Self::server_info) as the last member of a result that has no `_meta`
    /// of its own: serialised once, at build, rather than in every answer.
    server_info_member: Option<Arc<str>>,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            requested: Vec::new(),
            exposed: Arc::from([]),
            all: false,
            server_info_in_results: true,
            server_info: None,
            server_info_member: None,
        }
    }
}

impl ContextSettings {
    /// Checks the header names, once, when the server is built; `info` is the server's
    /// identity.
    pub(crate) fn checked(mut self, info: &Implementation) -> Result<Self, BuildError> {
        self.server_info = self.server_info_in_results.then(|| Arc::new(info.clone()));
        self.server_info_member = self.server_info.as_deref().and_then(meta_member);
        let mut exposed = Vec::with_capacity(self.requested.len());
        for name in self.requested.drain(..) {
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| BuildError::HeaderName { name })?;
            if !exposed.contains(&header) {
                exposed.push(header);
            }
        }
        self.exposed = exposed.into();
        Ok(self)
    }

    /// The identity 2026-07-28 results carry in `_meta`: `None` when the server was told not
    /// to send it.
    pub(crate) fn server_info(&self) -> Option<&Implementation> {
        self.server_info.as_deref()
    }

    /// [`server_info`](Self::server_info), shared, for an answer still to come.
    pub(crate) fn shared_server_info(&self) -> Option<Arc<Implementation>> {
        self.server_info.clone()
    }

    /// The `_meta` member carrying [`server_info`](Self::server_info), serialised, for a
    /// result that has no `_meta`: see [`with_member`].
    pub(crate) fn server_info_member(&self) -> Option<Arc<str>> {
        self.server_info_member.clone()
    }

    /// The exposed headers among `headers`.
    pub(crate) fn exposed(&self, headers: Option<&HeaderMap>) -> HeaderMap {
        let mut kept = HeaderMap::new();
        let Some(headers) = headers else {
            return kept;
        };
        if self.all {
            return headers.clone();
        }
        for name in self.exposed.iter() {
            for value in headers.get_all(name) {
                kept.append(name.clone(), value.clone());
            }
        }
        kept
    }
}

impl ServerBuilder {
    /// Lets handlers read the HTTP request header `name` (any case) through
    /// [`RequestContext::header`]; call once per header. No header is exposed by default:
    /// handlers see only those named here, so a credential a proxy forwards never reaches
    /// handler code by accident. Over stdio there are no headers. A name that is not a valid
    /// header name fails [`try_build`](Self::try_build).
    pub fn expose_header(mut self, name: impl Into<String>) -> Self {
        self.context
            .requested
            .push(name.into().to_ascii_lowercase());
        self
    }

    /// Exposes every header: for the flow tester's own server, whose headers are the test's.
    pub(crate) fn expose_all_headers(mut self) -> Self {
        self.context.all = true;
        self
    }

    /// Whether every 2026-07-28 result carries the server's name and version in
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (default: on, as the revision
    /// recommends). Results on legacy sessions never do: those revisions tell the client at
    /// `initialize`.
    pub fn server_info_in_results(mut self, on: bool) -> Self {
        self.context.server_info_in_results = on;
        self
    }
}

/// The `_meta` member [`stamp`] gives a result that had none, serialised: `"_meta":{...}`.
/// `None` if `info` does not serialise, and results are then stamped one by one.
fn meta_member(info: &Implementation) -> Option<Arc<str>> {
    let mut meta = None;
    stamp(&mut meta, info);
    let meta = serde_json::to_string(&meta?).ok()?;
    Some(format!(r#""_meta":{meta}"#).into())
}

/// `result`, a serialised result object whose `_meta` is absent (it goes last, so it would
/// have been written last), with `member` (from [`ContextSettings::server_info_member`])
/// written where it would have been: the bytes a stamped result serialises to.
pub(crate) fn with_member(mut result: Vec<u8>, member: &str) -> Vec<u8> {
    if result.last() == Some(&b'}') {
        result.pop();
        if result.last() != Some(&b'{') {
            result.push(b',');
        }
        result.extend_from_slice(member.as_bytes());
        result.push(b'}');
    }
    result
}

/// Puts `info` in a result's `_meta`, unless the handler put an identity there itself.
pub(crate) fn stamp(meta: &mut Option<ResultMeta>, info: &Implementation) {
    let meta = meta.get_or_insert_with(ResultMeta::default);
    if meta.server_info.is_none() {
        meta.server_info = Some(info.clone());
    }
}

/// Puts `info` in the `_meta` of a result built as JSON (a task's, a listen stream's last),
/// unless one is there.
pub(crate) fn stamp_value(result: &mut Value, info: &Implementation) {
    let Some(object) = result.as_object_mut() else {
        return;
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut()
        && !meta.contains_key(META_SERVER_INFO)
    {
        let info = serde_json::to_value(info).expect("an identity serialises");
        meta.insert(META_SERVER_INFO.to_owned(), info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_info_is_cut_on_a_character_boundary_and_loses_its_icons() {
        let mut info = Implementation::new("é".repeat(200), "1");
        info.icons = Some(vec![crate::protocol::Icon::default()]);
        info.title = Some("t".repeat(1000));
        let bounded = bounded_client_info(info);
        assert_eq!(bounded.name.len(), MAX_CLIENT_INFO_TEXT);
        assert_eq!(
            bounded.title.as_deref().map(str::len),
            Some(MAX_CLIENT_INFO_TEXT)
        );
        assert_eq!(bounded.version, "1");
        assert!(bounded.icons.is_none());
    }

    #[test]
    fn only_exposed_headers_are_kept_with_every_value() {
        let settings = ContextSettings {
            requested: vec!["x-tenant".into(), "X-Tenant".to_ascii_lowercase()],
            ..ContextSettings::default()
        }
        .checked(&Implementation::default())
        .unwrap();
        let mut headers = HeaderMap::new();
        headers.append("x-tenant", "a".parse().unwrap());
        headers.append("x-tenant", "b".parse().unwrap());
        headers.append("authorization", "Bearer secret".parse().unwrap());
        let kept = settings.exposed(Some(&headers));
        assert_eq!(kept.len(), 2);
        assert!(kept.get("authorization").is_none());
        assert!(settings.exposed(None).is_empty());
    }

    #[test]
    fn an_invalid_header_name_fails_the_build() {
        let settings = ContextSettings {
            requested: vec!["bad header".into()],
            ..ContextSettings::default()
        };
        assert_eq!(
            settings.checked(&Implementation::default()).unwrap_err(),
            BuildError::HeaderName {
                name: "bad header".into()
            }
        );
    }

    #[test]
    fn a_result_with_the_identity_written_after_it_reads_as_one_stamped() {
        use crate::protocol::{
            CacheHints, CacheScope, CallToolResult, ContentBlock, GetPromptResult, InputRequests,
            InputRequiredResult, PromptMessage, ReadResourceResult, ResourceContents, Role,
            TextResourceContents,
        };
        let mut info = Implementation::new("deploy \"quoted\"", "1.0");
        info.title = Some("Deploy".into());
        let member = meta_member(&info).unwrap();
        // Written after the result's own members, whatever they are, the identity gives the
        // bytes that a result stamped in place serialises to.
        fn alike<R: serde::Serialize>(plain: &R, stamped: &R, member: &str) -> (String, String) {
            let written = with_member(serde_json::to_vec(plain).unwrap(), member);
            (
                String::from_utf8(written).unwrap(),
                serde_json::to_string(stamped).unwrap(),
            )
        }
        let mut tool = CallToolResult::new(vec![ContentBlock::text("done")]);
        tool.structured_content = Some(serde_json::json!({"n": 1}));
        tool.is_error = Some(false);
        let mut stamped = tool.clone();
        stamp(&mut stamped.meta, &info);
        let (written, expected) = alike(&tool, &stamped, &member);
        assert_eq!(written, expected);
        let prompt = GetPromptResult {
            description: Some("d".into()),
            messages: vec![PromptMessage::text(Role::User, "hi")],
            ..GetPromptResult::default()
        };
        let mut stamped = prompt.clone();
        stamp(&mut stamped.meta, &info);
        let (written, expected) = alike(&prompt, &stamped, &member);
        assert_eq!(written, expected);
        let read = ReadResourceResult {
            contents: vec![ResourceContents::Text(TextResourceContents {
                uri: "file:///a".into(),
                text: "a".into(),
                ..TextResourceContents::default()
            })],
            cache: CacheHints {
                ttl_ms: 5,
                cache_scope: CacheScope::default(),
            },
            ..ReadResourceResult::default()
        };
        let mut stamped = read.clone();
        stamp(&mut stamped.meta, &info);
        let (written, expected) = alike(&read, &stamped, &member);
        assert_eq!(written, expected);
        let requests: InputRequests = serde_json::from_value(serde_json::json!({
            "ok": {"method": "roots/list"},
        }))
        .unwrap();
        let asked = InputRequiredResult::with_state(requests, "AbC-_9");
        let mut meta = None;
        stamp(&mut meta, &info);
        let stamped = asked.clone().with_meta(meta.unwrap());
        let (written, expected) = alike(&asked, &stamped, &member);
        assert_eq!(written, expected);
        assert!(written.ends_with(r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"deploy \"quoted\"","version":"1.0","title":"Deploy"}}}"#), "{written}");
    }
}
