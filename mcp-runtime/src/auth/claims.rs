//! [`Claims`]: what a verified access token says, as handlers read it.

use serde_json::{Map, Value};

/// The claims of a verified access token: the caller as the authorization server vouches for
/// it.
///
/// Handlers reach them through [`Cx::claims`](crate::Cx::claims) (and hand-written handlers
/// through [`Request::claims`](crate::server::Request::claims)); a subject hook finds them in
/// the HTTP request's extensions. Every claim was checked only as far as the resource server
/// checks it: signature, issuer, audience, expiry and not-before, and the subject claim's
/// presence. Any other claim is the authorization server's word, unchecked.
#[derive(Clone, PartialEq)]
pub struct Claims {
    subject: String,
    scopes: Vec<String>,
    claims: Map<String, Value>,
}

impl Claims {
    /// Claims from a verified token's payload, its subject already read.
    pub(crate) fn new(subject: String, claims: Map<String, Value>) -> Self {
        let scopes = scopes_of(&claims);
        Self {
            subject,
            scopes,
            claims,
        }
    }

    /// The subject states and sessions bind to: the token's `sub` claim, or the claim the
    /// server names instead
    /// ([`OAuthBuilder::subject_claim`](crate::auth::OAuthBuilder::subject_claim)). On a
    /// server that trusts more than one issuer it is qualified by the issuer,
    /// `{issuer}#{sub}` (`https://as-a.example#alice`), so that two issuers' users of the
    /// same name are two subjects; the bare claim stays readable with
    /// [`get`](Self::get)`("sub")`.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The issuer (`iss`), one of the server's configured issuers.
    pub fn issuer(&self) -> &str {
        self.claims
            .get("iss")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The scopes granted: the space-separated `scope` claim (RFC 9068), or else the `scp`
    /// claim (an array of strings, or one space-separated string), as some authorization
    /// servers issue it.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// The expiry (`exp`), in seconds since the Unix epoch.
    pub fn expires_at(&self) -> Option<u64> {
        self.claims.get("exp").and_then(Value::as_u64)
    }

    /// One claim by name, as the token carries it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Every claim of the token.
    pub fn all(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// The subject, issuer and scopes only: the other claims may be personal data.
impl std::fmt::Debug for Claims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Claims")
            .field("subject", &self.subject)
            .field("issuer", &self.issuer())
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// The most scopes read from one token; a token granting more is read up to here.
const MAX_SCOPES: usize = 256;

fn scopes_of(claims: &Map<String, Value>) -> Vec<String> {
    let words = |text: &str| -> Vec<String> {
        text.split_ascii_whitespace()
            .take(MAX_SCOPES)
            .map(str::to_owned)
            .collect()
    };
    match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => words(scope),
        (None, Some(Value::Array(scopes))) => scopes
            .iter()
            .filter_map(Value::as_str)
            .take(MAX_SCOPES)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Claims {
        let Value::Object(map) = value else {
            unreachable!()
        };
        Claims::new("alice".into(), map)
    }

    #[test]
    fn scopes_come_from_scope_or_else_scp() {
        let spaced = claims(json!({"scope": "read  write\tdeploy", "scp": ["ignored"]}));
        assert_eq!(spaced.scopes(), ["read", "write", "deploy"]);
        assert!(spaced.has_scope("write"));
        assert!(!spaced.has_scope("ignored"));
        let listed = claims(json!({"scp": ["read", 7, "write"]}));
        assert_eq!(listed.scopes(), ["read", "write"]);
        assert!(claims(json!({"scope": 3})).scopes().is_empty());
        assert!(claims(json!({})).scopes().is_empty());
    }

    #[test]
    fn debug_shows_no_claim_beyond_subject_issuer_and_scopes() {
        let shown = format!(
            "{:?}",
            claims(json!({"iss": "https://as", "email": "a@example.com", "scope": "read"}))
        );
        assert!(
            shown.contains("alice") && shown.contains("https://as"),
            "{shown}"
        );
        assert!(!shown.contains("a@example.com"), "{shown}");
    }
}
