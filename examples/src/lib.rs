//! Example servers built on `mcp-runtime`; each program is in `src/bin/`, and the handlers
//! they serve are here so tests and benchmarks can use them too.

pub mod cli;
pub mod deploy;
pub mod order;
pub mod tracker;

use base64::Engine as _;
use mcp_runtime::state::Signer;

/// A signer from a base64 key (standard or URL-safe alphabet, padded or not) of at least
/// 32 bytes, as `MCP_REQUEST_STATE_KEY` holds it.
pub fn signer_from_base64(key: &str) -> Result<Signer, String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let key = key.trim();
    let bytes = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(key).ok())
        .ok_or_else(|| "MCP_REQUEST_STATE_KEY is not base64".to_owned())?;
    Signer::new(1, &bytes).map_err(|error| format!("MCP_REQUEST_STATE_KEY: {error}"))
}
