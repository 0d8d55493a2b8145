//! The protected-resource metadata document (RFC 9728), where it is served, and the
//! `WWW-Authenticate` challenges (RFC 6750) that point to it.

use serde::Serialize;

/// The well-known path of protected-resource metadata (RFC 9728 §3).
pub const WELL_KNOWN_PATH: &str = "/.well-known/oauth-protected-resource";

/// The metadata document, serialised once, and the paths and URL it is served at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Metadata {
    /// The document (`application/json`).
    pub(crate) document: String,
    /// The paths it is served at: the root form, and the form suffixed with the resource's
    /// path when it has one.
    pub(crate) paths: Vec<String>,
    /// Its absolute URL, as challenges name it (the suffixed form where there is one).
    pub(crate) url: String,
}

#[derive(Serialize)]
struct Document<'a> {
    resource: &'a str,
    authorization_servers: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    scopes_supported: &'a [String],
    bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_name: Option<&'a str>,
}

impl Metadata {
    /// The metadata of `resource` (an absolute `http` or `https` URI, checked already).
    pub(crate) fn new(
        resource: &str,
        authorization_servers: &[String],
        scopes_supported: &[String],
        resource_name: Option<&str>,
    ) -> Self {
        let document = Document {
            resource,
            authorization_servers,
            scopes_supported,
            bearer_methods_supported: ["header"],
            resource_name,
        };
        let document = serde_json::to_string(&document).expect("metadata serialises to JSON");
        let (origin, path) = split_origin(resource);
        let path = path.trim_end_matches('/');
        let mut paths = vec![WELL_KNOWN_PATH.to_owned()];
        if !path.is_empty() {
            paths.push(format!("{WELL_KNOWN_PATH}{path}"));
        }
        let url = format!("{origin}{}", paths[paths.len() - 1]);
        Self {
            document,
            paths,
            url,
        }
    }

    /// Whether `path` is one the document is served at.
    pub(crate) fn serves(&self, path: &str) -> bool {
        self.paths.iter().any(|served| served == path)
    }

    /// The challenge of a request without a token: where the metadata is, and the scopes
    /// every request needs.
    pub(crate) fn unauthorized(&self, scopes: &str) -> String {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.url);
        if !scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{scopes}\""));
        }
        challenge
    }

    /// The challenge of a request whose token was refused.
    pub(crate) fn invalid_token(&self, description: &str) -> String {
        format!(
            "Bearer error=\"invalid_token\", error_description=\"{description}\", resource_metadata=\"{}\"",
            self.url
        )
    }

    /// The challenge of a request whose token lacks scopes: all the scopes the operation
    /// needs, in one challenge.
    pub(crate) fn insufficient_scope(&self, scopes: &str) -> String {
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"{scopes}\", resource_metadata=\"{}\"",
            self.url
        )
    }

    /// The challenge of a malformed request (several `Authorization` headers).
    pub(crate) fn invalid_request(&self) -> String {
        format!(
            "Bearer error=\"invalid_request\", resource_metadata=\"{}\"",
            self.url
        )
    }
}

/// `https://host:port` and the path of an absolute URI (query and fragment left out).
fn split_origin(uri: &str) -> (&str, &str) {
    let after_scheme = uri.find("://").map_or(0, |at| at + 3);
    let path_start = uri[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(uri.len(), |at| after_scheme + at);
    let path_end = uri[path_start..]
        .find(['?', '#'])
        .map_or(uri.len(), |at| path_start + at);
    (&uri[..path_start], &uri[path_start..path_end])
}

/// Whether `scope` is a scope token (RFC 6749 §3.3): printable ASCII without space, `"` or
/// `\`, so that it needs no escaping inside a quoted challenge parameter.
pub(crate) fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_served_at_the_root_and_under_the_resource_path() {
        let servers = ["https://as.example.com".to_owned()];
        let scopes = ["mcp".to_owned(), "deploy:write".to_owned()];
        let metadata = Metadata::new(
            "https://mcp.example.com/public/mcp/",
            &servers,
            &scopes,
            None,
        );
        assert_eq!(
            metadata.paths,
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/public/mcp"
            ]
        );
        assert_eq!(
            metadata.url,
            "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"
        );
        assert!(metadata.serves("/.well-known/oauth-protected-resource"));
        assert!(!metadata.serves("/.well-known/oauth-protected-resource/other"));
        let document: serde_json::Value = serde_json::from_str(&metadata.document).unwrap();
        assert_eq!(
            document,
            serde_json::json!({
                "resource": "https://mcp.example.com/public/mcp/",
                "authorization_servers": ["https://as.example.com"],
                "scopes_supported": ["mcp", "deploy:write"],
                "bearer_methods_supported": ["header"],
            })
        );
        let bare = Metadata::new("http://127.0.0.1:8080", &servers, &[], Some("Deploy"));
        assert_eq!(bare.paths, ["/.well-known/oauth-protected-resource"]);
        assert_eq!(
            bare.url,
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert!(!bare.document.contains("scopes_supported"));
        assert!(bare.document.contains(r#""resource_name":"Deploy""#));
    }

    #[test]
    fn challenges_carry_the_metadata_url_and_the_scopes() {
        let metadata = Metadata::new("https://mcp.example.com/mcp", &[], &[], None);
        let url = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
        assert_eq!(
            metadata.unauthorized(""),
            format!("Bearer resource_metadata=\"{url}\"")
        );
        assert_eq!(
            metadata.unauthorized("mcp"),
            format!("Bearer resource_metadata=\"{url}\", scope=\"mcp\"")
        );
        assert_eq!(
            metadata.insufficient_scope("mcp deploy"),
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"mcp deploy\", resource_metadata=\"{url}\""
            )
        );
        assert!(metadata.invalid_token("expired").starts_with(
            "Bearer error=\"invalid_token\", error_description=\"expired\", resource_metadata="
        ));
    }

    #[test]
    fn scope_tokens_exclude_spaces_quotes_and_backslashes() {
        assert!(is_scope_token("deploy:write"));
        assert!(is_scope_token("https://api.example.com/read"));
        for bad in ["", "two words", "quo\"te", r"back\slash", "tab\t", "é"] {
            assert!(!is_scope_token(bad), "{bad}");
        }
    }
}
