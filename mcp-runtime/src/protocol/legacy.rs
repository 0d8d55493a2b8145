//! The initialization-based handshake of revisions 2025-11-25, 2025-06-18 and 2025-03-26,
//! served to legacy clients beside the stateless 2026-07-28 wire.
//!
//! Only what those revisions have and 2026-07-28 lacks lives here; every other type is shared,
//! and results lose the members the older schema does not know (`resultType`, `ttlMs`,
//! `cacheScope`) when they are written on a legacy session.

use serde::{Deserialize, Serialize};

use super::discover::ServerCapabilities;
use super::meta::{ClientCapabilities, Implementation, JsonObject, LoggingLevel};

/// The initialization-based revisions a legacy session may speak, newest first. The first
/// is the answer to a client asking for a version the server does not know.
pub const LEGACY_PROTOCOL_VERSIONS: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];

/// Parameters of `initialize` (`InitializeRequestParams`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The latest version the client supports.
    pub protocol_version: String,
    /// What the client can do, for the whole session.
    #[serde(default)]
    pub capabilities: ClientCapabilities,
    /// The client's identity.
    pub client_info: Implementation,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `initialize` (`InitializeResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The version the session speaks.
    pub protocol_version: String,
    /// What the server offers on this session.
    pub capabilities: ServerCapabilities,
    /// The server's identity.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// Parameters of `logging/setLevel` (`SetLevelRequestParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetLevelRequestParams {
    /// The least severe level the client wants to receive.
    pub level: LoggingLevel,
}

/// Parameters of `resources/subscribe` and `resources/unsubscribe`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubscribeRequestParams {
    /// The resource to watch.
    pub uri: String,
}

/// The version a legacy session speaks when a client asks for `requested` at `initialize`:
/// the same one when the server knows it, else the newest legacy revision.
pub fn negotiate(requested: &str) -> &'static str {
    LEGACY_PROTOCOL_VERSIONS
        .iter()
        .find(|&&version| version == requested)
        .copied()
        .unwrap_or(LEGACY_PROTOCOL_VERSIONS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_versions_are_echoed_and_others_get_the_newest_legacy_one() {
        assert_eq!(negotiate("2025-06-18"), "2025-06-18");
        assert_eq!(negotiate("2025-03-26"), "2025-03-26");
        assert_eq!(negotiate("2024-11-05"), "2025-11-25");
        assert_eq!(negotiate("2026-07-28"), "2025-11-25");
    }
}
