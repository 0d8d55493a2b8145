//! `_meta` objects, client capabilities, implementation info and the result envelope pieces
//! (`resultType`, caching hints).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::jsonrpc::ProgressToken;

/// A JSON object (`JSONObject`, `MetaObject`): a key-sorted [`serde_json::Map`].
pub type JsonObject = Map<String, Value>;

/// `_meta` key of the protocol version a request speaks.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the capabilities a request declares.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level the client wants for this request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the token a request's progress notifications carry. Both readings of a
/// call's `_meta` (`server::call_meta`, and the map `server::lifecycle` reads) name it here.
pub(crate) const META_PROGRESS_TOKEN: &str = "progressToken";
/// `_meta` key of the server's identity in results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The `_meta` of a request (`RequestMetaObject`).
///
/// The schema requires the protocol version and the client capabilities; they are `Option`
/// here so that a server can tell a missing key apart and answer the error the revision asks
/// for, instead of a generic parse failure. Keys this model does not know are kept in
/// [`RequestMeta::extra`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`.
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities`; `{}` means none.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_capabilities: Option<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo`.
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// `io.modelcontextprotocol/logLevel`.
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// `progressToken`: where to send progress notifications about this request.
    #[serde(
        rename = "progressToken",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub progress_token: Option<ProgressToken>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// What a request says its client can do (`ClientCapabilities`). Unknown keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// Elicitation support; `{}` means form mode only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Sampling support (deprecated in 2026-07-28 but still on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// Roots support (deprecated in 2026-07-28 but still on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<JsonObject>,
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<BTreeMap<String, JsonObject>>,
    /// Extensions, keyed by extension identifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<BTreeMap<String, JsonObject>>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `elicitation` client capability. Neither mode present means form mode only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<JsonObject>,
    /// URL mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<JsonObject>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `sampling` client capability (deprecated in 2026-07-28 but still on the wire).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SamplingCapability {
    /// Context inclusion (`includeContext`) support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
    /// Tool use in sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<JsonObject>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The name and version of an MCP implementation (`Implementation`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}

/// An icon (`Icon`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// Image URI (may be a `data:` URI).
    pub src: String,
    /// Image MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes, e.g. `48x48` or `any`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon suits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The background an [`Icon`] is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// Light backgrounds.
    Light,
    /// Dark backgrounds.
    Dark,
}

/// Log severity (`LoggingLevel`), least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// `debug`.
    Debug,
    /// `info`.
    Info,
    /// `notice`.
    Notice,
    /// `warning`.
    Warning,
    /// `error`.
    Error,
    /// `critical`.
    Critical,
    /// `alert`.
    Alert,
    /// `emergency`.
    Emergency,
}

/// The `_meta` of a result (`ResultMetaObject`). Unknown keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultMeta {
    /// `io.modelcontextprotocol/serverInfo`: who answered.
    #[serde(rename = "io.modelcontextprotocol/serverInfo", default)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
    /// Every other key, kept as sent.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// The `resultType` of a result.
///
/// Result structs carry it as a constant marker instead ([`CompleteTag`] on final results,
/// [`InputRequiredTag`] on [`InputRequiredResult`]), so a final result cannot claim to be
/// anything else; this enum is for code that inspects an arbitrary result.
///
/// [`CompleteTag`]: super::tag::CompleteTag
/// [`InputRequiredTag`]: super::tag::InputRequiredTag
/// [`InputRequiredResult`]: super::input::InputRequiredResult
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// `complete`: the final result.
    Complete,
    /// `input_required`: the server needs answers first.
    InputRequired,
}

/// Who may cache a result (`cacheScope`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only the requesting user's client.
    #[default]
    Private,
    /// Any client and shared caches.
    Public,
}

/// The caching hints of list results, `resources/read` and `server/discover`
/// (`CacheableResult`): flattened into those results and always written. The default
/// (`ttlMs: 0`, `private`) means "do not reuse"; a result parsed without hints gets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheHints {
    /// How long the result stays fresh, in milliseconds.
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse it.
    #[serde(default)]
    pub cache_scope: CacheScope,
}

/// Parameters holding only a `_meta` (`RequestParams`), e.g. for `server/discover`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
}

/// Parameters of a list request (`PaginatedRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<RequestMeta>,
    /// Where to continue from: a previous result's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}
