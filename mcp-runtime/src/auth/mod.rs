//! A built-in OAuth 2.1 resource server for the HTTP transport: bearer tokens verified on
//! every request, their subject bound to every state, and the protected-resource metadata
//! that tells clients where to get a token.
//!
//! It is off until [`ServerBuilder::oauth`](crate::server::ServerBuilder::oauth) is given an
//! [`OAuth`] configuration:
//!
//! ```no_run
//! use mcp_runtime::auth::OAuth;
//! use mcp_runtime::server::Server;
//!
//! # fn main() -> Result<(), mcp_runtime::auth::OAuthError> {
//! let oauth = OAuth::builder("https://mcp.example.com/mcp")
//!     .issuer("https://auth.example.com")
//!     .jwks_url("https://auth.example.com/.well-known/jwks.json")
//!     .required_scopes(["mcp"])
//!     .build()?;
//! let server = Server::builder()
//!     .name("deployer")
//!     .oauth(oauth)
//!     .tool_scopes("deploy", ["deploy:write"])
//!     .build();
//! # drop(server);
//! # Ok(())
//! # }
//! ```
//!
//! # What a request goes through
//!
//! Every request to the MCP endpoint (`POST`, and `GET`/`DELETE` on legacy sessions) must
//! carry `Authorization: Bearer <token>`, a JWT signed with RS256 (or RS384, RS512, PS256,
//! PS384, PS512), ES256 (or ES384) or EdDSA (Ed25519). Its header's `kid` picks the key;
//! each key verifies the one algorithm its JWK names (or its type's default: RS256 for RSA,
//! the curve's for EC), so a token whose header names another algorithm than its key's is
//! refused, and `none` or shared-secret algorithms never verify. The keys looked in are those
//! of the issuer the token's `iss` names (see Issuers below). Then the claims: `iss` must be
//! that issuer, `aud` the resource's URI (or a configured audience), `exp`
//! in the future and `nbf` (when present) in the past, both with a settable clock skew (60
//! seconds by default); the subject claim (`sub`, or another one named) must be a
//! non-empty string.
//!
//! The answers, as the MCP authorization specification (revisions 2025-11-25 and
//! 2026-07-28) and RFC 6750 give them:
//!
//! - no token: `401` with `WWW-Authenticate: Bearer resource_metadata="…"` (and
//!   `scope="…"`, the scopes every request needs, when there are some);
//! - a refused token: `401` with `error="invalid_token"`, a coarse `error_description`, and
//!   `resource_metadata`;
//! - a token without a scope every request needs: `403` with `error="insufficient_scope"`
//!   and `scope="…"` listing them;
//! - a `tools/call` of a tool whose scopes ([`ServerBuilder::tool_scopes`]) the token lacks:
//!   `403` the same way, `scope` listing every scope that call needs (the server's and the
//!   tool's), with a JSON-RPC error (`-32600`) as the body;
//! - several `Authorization` headers: `400` with `error="invalid_request"`.
//!
//! A token that cannot be checked because no JWK set has been fetched yet (its server
//! unreachable, or its certificate untrusted) is not refused: it is answered `503` with
//! `Retry-After` (the seconds until the next fetch may be made), as a temporary failure of
//! the server's. A `401` would tell the client its token is bad and send it, and its user,
//! through authorization again for a token that would fare no better. Once a set has been
//! fetched, a token naming a key it lacks is refused with `401` as usual.
//!
//! The metadata document (RFC 9728) is served to `GET` at
//! `/.well-known/oauth-protected-resource` and, when the resource URI has a path (`/mcp`),
//! at `/.well-known/oauth-protected-resource/mcp` too; it lists the resource URI, the
//! issuers as `authorization_servers`, and `scopes_supported`: the scopes configured as
//! supported, then those every request needs, then the tools' scopes.
//!
//! # Subjects
//!
//! The token's subject is the subject states bind to: a state handed to one subject is
//! refused, with the one fixed invalid-state error, when another subject's token brings it
//! back; a legacy session opened by one subject answers `404` to another. The verified
//! [`Claims`] reach handlers through [`Cx::claims`](crate::Cx::claims).
//!
//! # Issuers
//!
//! Each key set belongs to one issuer: on a server that trusts one issuer, the keys of
//! [`OAuthBuilder::jwks_url`] and [`OAuthBuilder::jwks`] are its keys; with several issuers,
//! each one's keys are given with [`OAuthBuilder::issuer_jwks_url`] or
//! [`OAuthBuilder::issuer_jwks`], and [`OAuthBuilder::build`] refuses keys tied to none. A
//! token is verified with the keys of the issuer its `iss` names and no other, so one
//! issuer's keys (or a user of one issuer who obtains a key of its) never vouch for a token
//! claiming to come from another.
//!
//! With more than one issuer, subjects are qualified by their issuer: the subject states and
//! sessions bind to (and [`Claims::subject`]) is `{iss}#{sub}`, such as
//! `https://as-a.example#alice`, so issuer B's `alice` is not issuer A's. (Issuers with a
//! `#` are refused there: issuer identifiers have no fragment.) A server that trusts one
//! issuer keeps the bare `sub`, so its states and sessions stay valid across an upgrade;
//! adding a second issuer changes every subject, and states minted before are refused.
//!
//! A [`subject hook`](crate::server::ServerBuilder::subject), when set too, runs after the
//! token is verified, on request parts whose extensions hold the verified claims
//! (`parts.extensions.get::<Arc<Claims>>()`): what it returns wins, and when it returns
//! `None` the token's subject stands. So an application can qualify the subject (a tenant
//! from the host, a client certificate beside the token) or map it to an account id. A hook
//! that reads an unverified header would override the token with it: read the claims.
//!
//! # Keys
//!
//! Static keys ([`OAuthBuilder::jwks`]) are JWK set documents; a fetched set
//! ([`OAuthBuilder::jwks_url`]) is fetched when a token first needs it, fetched again when a
//! token names a `kid` the server does not hold (at most once per
//! [`jwks_min_refresh_interval`](OAuthBuilder::jwks_min_refresh_interval), 30 seconds by
//! default, so a flood of made-up `kid`s costs one fetch per interval), and in the
//! background once older than [`jwks_max_age`](OAuthBuilder::jwks_max_age) (1 hour). A
//! fetch that fails keeps the keys held. A set is read up to [`MAX_JWKS_BYTES`] and
//! [`MAX_JWKS_KEYS`] keys; tokens longer than 16 KiB are refused unread.
//!
//! A client sends the same token on every request, and verifying a signature costs more than
//! the round it guards: a verified token (of at most 4 KiB) is remembered, up to
//! [`DEFAULT_TOKEN_CACHE`] tokens (see [`OAuthBuilder::verified_token_cache`]), until it
//! expires or for 5 minutes at most, and answered from memory meanwhile; scopes are still
//! checked on every request. Refused tokens are never remembered.
//!
//! Checking a new token's signature is what a client can make the server pay for without a
//! valid token (garbage signatures under a `kid` the server holds). At most
//! [`max_concurrent_verifications`](OAuthBuilder::max_concurrent_verifications) checks run at
//! once (half the CPUs by default); a new token arriving past that is answered `503` with
//! `Retry-After: 1`, neither refused nor remembered. Cached tokens never wait for a check.
//!
//! The built-in fetchers speak HTTP/1.1, one connection per fetch, no redirects followed:
//! `http://` URLs over plain TCP (an authorization server on the same host or network), and
//! `https://` URLs over TLS with the `oauth-https` feature (on by default), trusting
//! Mozilla's root certificates; an `HttpsFetcher` given to [`OAuthBuilder::jwks_fetcher`]
//! can trust a private CA too. Without the feature, an `https://` URL needs a
//! [`FetchJwks`] of the application's own, or [`OAuthBuilder::build`] refuses it.
//!
//! # Logs
//!
//! Tokens are never logged. A refused token is logged at `WARN` with its reason (expired,
//! bad signature, unknown key, ...), at most 10 lines every 5 seconds, the next line counting
//! those left out; failed JWK set fetches likewise, at most 10 a minute.
//!
//! stdio is not covered: by the specification, a server on stdio takes its credentials from
//! its environment.
//!
//! # Transports of the application's own
//!
//! A request that reaches [`Server::handle`](crate::server::Server::handle) without claims (over
//! stdio, or from a transport that hands none over) is refused every tool that
//! [`ServerBuilder::tool_scopes`] gives scopes, with the `403` error of a missing scope
//! (`-32600`, saying no verified token came with the request): its scopes cannot be checked,
//! and running it unchecked would grant them to anyone. Tools without scopes of their own
//! still run. A transport that authenticates its callers verifies the bearer token with
//! [`OAuth::verify`] (checking [`required_scopes`](OAuthBuilder::required_scopes) itself),
//! then hands the claims and their subject over:
//!
//! ```no_run
//! # async fn serve(server: mcp_runtime::server::Server, oauth: mcp_runtime::auth::OAuth,
//! #     token: &str, body: &[u8]) -> Result<(), mcp_runtime::auth::TokenError> {
//! use mcp_runtime::server::RequestFacts;
//!
//! let claims = oauth.verify(token).await?;
//! let facts = RequestFacts::http(None, Some(claims.subject().to_owned()))
//!     .with_claims(Some(claims));
//! let outcome = server.handle(body, facts).finish().await;
//! # drop(outcome);
//! # Ok(())
//! # }
//! ```
//!
//! [`ServerBuilder::tool_scopes`]: crate::server::ServerBuilder::tool_scopes

mod cache;
mod claims;
mod config;
mod fetch;
#[cfg(feature = "oauth-https")]
mod https;
mod issuers;
mod jwks;
mod metadata;
mod validate;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, header};

pub use claims::Claims;
pub use config::{
    DEFAULT_CLOCK_SKEW, DEFAULT_JWKS_MAX_AGE, DEFAULT_JWKS_MIN_REFRESH_INTERVAL,
    DEFAULT_JWKS_TIMEOUT, DEFAULT_TOKEN_CACHE, OAuth, OAuthBuilder, OAuthError, TokenError,
    default_max_concurrent_verifications,
};
pub use fetch::{FetchJwks, JwksFetch};
#[cfg(feature = "oauth-https")]
pub use https::HttpsFetcher;
pub use jwks::{MAX_JWKS_BYTES, MAX_JWKS_KEYS};
pub use metadata::WELL_KNOWN_PATH;

pub(crate) use metadata::{Metadata, is_scope_token};

use crate::logfield::{RateLimit, warn_limited};
use validate::Reason;

/// Refused tokens: at most 10 lines every 5 seconds, as for refused states.
static REFUSED_TOKEN: RateLimit = RateLimit::new(10, Duration::from_secs(5));

/// What a built server holds of its OAuth configuration.
pub(crate) struct ResourceServer {
    oauth: OAuth,
    pub(crate) metadata: Metadata,
    /// The scopes every request needs, space-separated.
    required: String,
    /// The scopes a `tools/call` needs, by tool (the server's and the tool's), space-separated.
    tool_scopes: HashMap<String, (Vec<String>, String)>,
}

/// Why a request is refused before dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Denied {
    /// `400`, `401`, `403`, or `503` when the token could not be checked.
    pub(crate) status: u16,
    /// The `WWW-Authenticate` challenge: every answer but `503` has one.
    pub(crate) challenge: Option<String>,
    /// `Retry-After`, in seconds (`503` only).
    pub(crate) retry_after: Option<u64>,
    /// The JSON-RPC error message of the body.
    pub(crate) message: &'static str,
}

impl ResourceServer {
    /// The server's resource server, with the scopes each tool needs beyond the server's.
    pub(crate) fn new(oauth: OAuth, tool_scopes: HashMap<String, Vec<String>>) -> Self {
        let config = &oauth.config;
        let mut supported = config.scopes_supported.clone();
        let tool_lists = tool_scopes.values().flatten();
        for scope in config.required_scopes.iter().chain(tool_lists) {
            if !supported.contains(scope) {
                supported.push(scope.clone());
            }
        }
        let metadata = Metadata::new(
            &config.resource,
            &config.issuers,
            &supported,
            config.resource_name.as_deref(),
        );
        let required = config.required_scopes.join(" ");
        let tool_scopes = tool_scopes
            .into_iter()
            .map(|(tool, scopes)| {
                let mut all = config.required_scopes.clone();
                for scope in &scopes {
                    if !all.contains(scope) {
                        all.push(scope.clone());
                    }
                }
                let joined = all.join(" ");
                (tool, (scopes, joined))
            })
            .collect();
        Self {
            oauth,
            metadata,
            required,
            tool_scopes,
        }
    }

    /// The verified claims of a request's bearer token, or how to refuse the request.
    pub(crate) async fn authenticate(&self, headers: &HeaderMap) -> Result<Arc<Claims>, Denied> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let token = match (values.next(), values.next()) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err(Denied {
                    status: 400,
                    challenge: Some(self.metadata.invalid_request()),
                    retry_after: None,
                    message: "several `Authorization` headers",
                });
            }
            (Some(value), None) => bearer_token(value.as_bytes()),
        };
        let Some(token) = token else {
            return Err(Denied {
                status: 401,
                challenge: Some(self.metadata.unauthorized(&self.required)),
                retry_after: None,
                message: "unauthorized: send `Authorization: Bearer` with an access token",
            });
        };
        let claims = match self.oauth.check(token).await {
            Ok(claims) => claims,
            Err(reason) => return Err(self.refused(&reason)),
        };
        let required = &self.oauth.config.required_scopes;
        if !required
            .iter()
            .all(|scope| self.oauth.config.grants(&claims, scope))
        {
            return Err(Denied {
                status: 403,
                challenge: Some(self.metadata.insufficient_scope(&self.required)),
                retry_after: None,
                message: "insufficient scope",
            });
        }
        Ok(claims)
    }

    fn refused(&self, reason: &Reason) -> Denied {
        if let Some(after) = reason.retry_after() {
            warn_limited!(REFUSED_TOKEN, %reason, "could not check a bearer token");
            return Denied {
                status: 503,
                challenge: None,
                retry_after: Some(after.as_secs().max(1)),
                message: "the server cannot check access tokens at the moment; retry later",
            };
        }
        warn_limited!(REFUSED_TOKEN, %reason, "refused a bearer token");
        Denied {
            status: 401,
            challenge: Some(self.metadata.invalid_token(reason.description())),
            retry_after: None,
            message: "unauthorized: the access token is invalid",
        }
    }

    /// The challenge refusing a `tools/call` of `tool` to a request without claims, when the
    /// tool needs a scope of its own.
    pub(crate) fn tool_challenge(&self, tool: &str) -> Option<String> {
        let (scopes, all) = self.tool_scopes.get(tool)?;
        (!scopes.is_empty()).then(|| self.metadata.insufficient_scope(all))
    }

    /// The challenge refusing a `tools/call` of `tool` to `claims`, when the tool needs a
    /// scope they lack.
    pub(crate) fn tool_denied(&self, tool: &str, claims: &Claims) -> Option<String> {
        let (scopes, all) = self.tool_scopes.get(tool)?;
        if scopes
            .iter()
            .all(|scope| self.oauth.config.grants(claims, scope))
        {
            return None;
        }
        Some(self.metadata.insufficient_scope(all))
    }
}

/// The token of an `Authorization: Bearer <token>` value: the scheme is case-insensitive,
/// the token is one `b64token` (RFC 6750 §2.1). Any other value is no bearer token.
fn bearer_token(value: &[u8]) -> Option<&str> {
    let value = std::str::from_utf8(value).ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim_matches(' ');
    let b64token = |byte: u8| byte.is_ascii_alphanumeric() || b"-._~+/=".contains(&byte);
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty() && token.bytes().all(b64token))
        .then_some(token)
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex, PoisonError};

    use super::*;

    /// What the test subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let mut captured = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            captured.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    const JWKS: &str = r#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k",
        "x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
        "y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]}"#;

    #[tokio::test]
    async fn refusals_are_logged_with_a_reason_and_never_with_the_token() {
        let oauth = OAuth::builder("https://mcp.example.com/mcp")
            .issuer("https://as.example.com")
            .jwks(JWKS)
            .build()
            .unwrap();
        let server = ResourceServer::new(oauth, HashMap::new());
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        // Header `{"alg":"ES256","kid":"unknown"}`, then a payload naming the issuer and a
        // signature that would stand out in a log.
        let token = "eyJhbGciOiJFUzI1NiIsImtpZCI6InVua25vd24ifQ.eyJpc3MiOiJodHRwczovL2FzLmV4YW1wbGUuY29tIiwic2VjcmV0IjoicGF5bG9hZCJ9.c2lnbmF0dXJl";
        let mut headers = HeaderMap::new();
        let value = format!("Bearer {token}");
        headers.insert(header::AUTHORIZATION, value.parse().unwrap());
        let denied = server.authenticate(&headers).await.unwrap_err();
        assert_eq!(denied.status, 401);
        assert!(
            denied
                .challenge
                .as_deref()
                .is_some_and(|challenge| challenge.contains("error=\"invalid_token\"")),
            "{denied:?}"
        );
        let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
        assert!(log.contains("refused a bearer token"), "{log}");
        assert!(
            log.contains("signed by a key the server does not know"),
            "{log}"
        );
        for part in token.split('.') {
            assert!(!log.contains(part), "{log}");
        }
    }

    #[test]
    fn bearer_tokens_are_read_from_the_bearer_scheme_only() {
        assert_eq!(bearer_token(b"Bearer abc.def.ghi"), Some("abc.def.ghi"));
        assert_eq!(
            bearer_token(b"bearer  abc.def-_=+/~ "),
            Some("abc.def-_=+/~")
        );
        assert_eq!(bearer_token(b"Basic dXNlcjpwYXNz"), None);
        assert_eq!(bearer_token(b"Bearer"), None);
        assert_eq!(bearer_token(b"Bearer "), None);
        assert_eq!(bearer_token(b"Bearer a b"), None);
        assert_eq!(bearer_token(b"Bearer a\"b"), None);
        assert_eq!(bearer_token(b"Bearer \xff"), None);
    }
}
