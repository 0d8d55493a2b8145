//! The standard headers a tester's rounds carry once it sends headers of its own.

use serde_json::Value;

/// `headers` with the standard `Mcp-Method` and `Mcp-Name` of a call of `method` with
/// `params` (a name outside visible ASCII in the Base64 sentinel).
pub(super) fn with_standard(
    mut headers: axum::http::HeaderMap,
    method: &str,
    params: &Value,
) -> axum::http::HeaderMap {
    use base64::Engine as _;
    let target = params["name"].as_str().or(params["uri"].as_str());
    let name = target.map(
        |target| match target.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            true => target.to_owned(),
            false => format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(target)
            ),
        },
    );
    let value = |text: &str| axum::http::HeaderValue::from_str(text).ok();
    if let Some(method) = value(method) {
        headers.insert("mcp-method", method);
    }
    if let Some(name) = name.as_deref().and_then(value) {
        headers.insert("mcp-name", name);
    }
    headers
}
