//! Wire types of MCP revision 2026-07-28: plain serde data, no behaviour.
//!
//! Conventions:
//!
//! - Optional members are written only when present; unknown members are ignored when
//!   parsing, except where a type keeps them (`extra` maps on capabilities and `_meta`).
//! - Constant strings the schema pins (`"type": "string"`, `"jsonrpc": "2.0"`,
//!   `"resultType": "complete"`) are zero-sized markers from [`tag`]: they always write their
//!   value and reject any other. Every final result struct holds a
//!   [`CompleteTag`] in `result_type`, so results the server sends always carry
//!   `resultType: "complete"`; [`InputRequiredResult`] holds an [`InputRequiredTag`].
//!   Methods that may ask for input answer with [`Outcome`].
//! - Content blocks and sampling blocks are internally tagged enums: the block structs
//!   ([`TextContent`], ...) do not hold their `type`.
//! - Numbers that must round-trip exactly (request ids, form bounds, progress) are
//!   [`serde_json::Number`].
//! - Sampling and roots are deprecated in 2026-07-28 but still on the wire; their types are
//!   kept without the `#[deprecated]` attribute so that using them does not warn.

pub mod completion;
pub mod content;
pub mod discover;
pub mod elicitation;
pub mod field_schema;
pub mod input;
pub mod jsonrpc;
pub mod legacy;
pub mod meta;
pub mod notifications;
pub mod prompts;
pub mod resources;
pub mod sampling;
mod serde_util;
pub mod tag;
pub mod tools;

/// The protocol revision this model describes.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// Method names of the 2026-07-28 revision.
pub mod method {
    /// `server/discover`.
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// `tools/list`.
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`.
    pub const TOOLS_CALL: &str = "tools/call";
    /// `prompts/list`.
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// `prompts/get`.
    pub const PROMPTS_GET: &str = "prompts/get";
    /// `resources/list`.
    pub const RESOURCES_LIST: &str = "resources/list";
    /// `resources/templates/list`.
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// `resources/read`.
    pub const RESOURCES_READ: &str = "resources/read";
    /// `completion/complete`.
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// `subscriptions/listen`.
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// `elicitation/create` (an input request).
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `sampling/createMessage` (an input request; deprecated in 2026-07-28 but still on the
    /// wire).
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `roots/list` (an input request; deprecated in 2026-07-28 but still on the wire).
    pub const ROOTS_LIST: &str = "roots/list";
    /// `notifications/progress`.
    pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
    /// `notifications/message`.
    pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
    /// `notifications/cancelled`.
    pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
    /// `notifications/tools/list_changed`.
    pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`.
    pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// `notifications/resources/list_changed`.
    pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// `notifications/resources/updated`.
    pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// `notifications/subscriptions/acknowledged`: the first message of a listen stream.
    pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
        "notifications/subscriptions/acknowledged";
    /// `notifications/elicitation/complete` (2025-11-25 only): a URL-mode elicitation's
    /// out-of-band work is done.
    pub const NOTIFICATION_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

    /// `initialize` (legacy revisions only).
    pub const INITIALIZE: &str = "initialize";
    /// `notifications/initialized` (legacy revisions only).
    pub const NOTIFICATION_INITIALIZED: &str = "notifications/initialized";
    /// `ping` (legacy revisions only).
    pub const PING: &str = "ping";
    /// `logging/setLevel` (legacy revisions only).
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// `resources/subscribe` (legacy revisions only).
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe` (legacy revisions only).
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";

    /// The methods that may answer with an input-required result.
    pub const MAY_REQUIRE_INPUT: [&str; 3] = [TOOLS_CALL, PROMPTS_GET, RESOURCES_READ];
}

pub use completion::{
    CompleteRequestParams, CompleteResult, Completion, CompletionArgument, CompletionContext,
    CompletionReference,
};
pub use content::{
    Annotations, AudioContent, BlobResourceContents, ContentBlock, EmbeddedResource, ImageContent,
    ResourceContents, ResourceLink, Role, TextContent, TextResourceContents,
};
pub use discover::{
    DiscoverResult, ListChangedCapability, ResourcesCapability, ServerCapabilities,
};
pub use elicitation::{
    BooleanSchema, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, ElicitRequestedSchema, ElicitResult, ElicitValue,
    LegacyTitledEnumSchema, NumberKind, NumberSchema, PrimitiveSchema, StringFormat, StringSchema,
    TitledItems, TitledMultiSelectEnumSchema, TitledOption, TitledSingleSelectEnumSchema,
    UntitledItems, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
pub use input::{
    EmptyInputRequired, InputRequest, InputRequests, InputRequiredResult, InputResponses, Outcome,
};
pub use jsonrpc::{
    ErrorCode, ErrorObject, JsonRpcErrorResponse, JsonRpcMessage, JsonRpcNotification,
    JsonRpcRequest, JsonRpcResponse, JsonRpcResultResponse, MissingCapabilityData, ProgressToken,
    RequestId, UnsupportedVersionData,
};
pub use legacy::{
    InitializeRequestParams, InitializeResult, LEGACY_PROTOCOL_VERSIONS, SetLevelRequestParams,
    SubscribeRequestParams,
};
pub use meta::{
    CacheHints, CacheScope, ClientCapabilities, ElicitationCapability, Icon, IconTheme,
    Implementation, JsonObject, LoggingLevel, PaginatedRequestParams, RequestMeta, RequestParams,
    ResultMeta, ResultType, SamplingCapability,
};
pub use notifications::{
    CancelledNotificationParams, LoggingMessageNotificationParams, ProgressNotificationParams,
};
pub use prompts::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument,
    PromptMessage,
};
pub use resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, Resource, ResourceTemplate,
};
pub use sampling::{
    CreateMessageRequestParams, CreateMessageResult, IncludeContext, ListRootsRequestParams,
    ListRootsResult, ModelHint, ModelPreferences, Root, SamplingContent, SamplingContentBlock,
    SamplingMessage, ToolChoice, ToolChoiceMode, ToolResultContent, ToolUseContent,
};
pub use tag::{
    ArrayTag, BooleanTag, CompleteTag, FormModeTag, InputRequiredTag, JsonRpcVersion, ObjectTag,
    StringTag, UrlModeTag,
};
pub use tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations};
