//! [`OAuth`] and its builder: the resource server's settings, checked once.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::Claims;
use super::cache::TokenCache;
use super::fetch::FetchJwks;
use super::issuers::{KeySource, Sources};
use super::jwks::Refresh;
use super::metadata::is_scope_token;
use super::validate::{Reason, Verifier};

/// The default clock skew allowed on `exp` and `nbf`: 60 seconds.
pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(60);

/// The default least time between two fetches of the JWK set: 30 seconds.
pub const DEFAULT_JWKS_MIN_REFRESH_INTERVAL: Duration = Duration::from_secs(30);

/// The default age past which the JWK set is fetched again in the background: 1 hour.
pub const DEFAULT_JWKS_MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// The default time one fetch of the JWK set may take: 5 seconds.
pub const DEFAULT_JWKS_TIMEOUT: Duration = Duration::from_secs(5);

/// The default number of verified tokens remembered: 1024 (tokens of at most 4 KiB each, so
/// a full cache holds some megabytes at worst).
pub const DEFAULT_TOKEN_CACHE: usize = 1024;

/// The default number of new tokens whose signatures are checked at once: half the CPUs the
/// process may use (as [`std::thread::available_parallelism`] counts them), at least one. See
/// [`OAuthBuilder::max_concurrent_verifications`].
pub fn default_max_concurrent_verifications() -> usize {
    std::thread::available_parallelism().map_or(1, |cpus| (cpus.get() / 2).max(1))
}

/// A checked OAuth resource-server configuration, for
/// [`ServerBuilder::oauth`](crate::server::ServerBuilder::oauth). Built by [`OAuth::builder`];
/// cheap to clone.
#[derive(Clone)]
pub struct OAuth {
    pub(super) config: Arc<Config>,
}

pub(super) struct Config {
    pub(super) resource: String,
    pub(super) issuers: Vec<String>,
    pub(super) required_scopes: Vec<String>,
    pub(super) scopes_supported: Vec<String>,
    pub(super) resource_name: Option<String>,
    /// Broader scope → the narrower scopes it implies.
    pub(super) implied: HashMap<String, Vec<String>>,
    pub(super) verifier: Verifier,
    pub(super) cache: TokenCache,
    pub(super) clock_skew: Duration,
}

impl Config {
    /// Whether `claims` grant `scope`: directly, or through a broader scope that implies it.
    pub(super) fn grants(&self, claims: &Claims, scope: &str) -> bool {
        let mut seen: Vec<&str> = Vec::new();
        let mut pending: Vec<&str> = claims.scopes().iter().map(String::as_str).collect();
        while let Some(granted) = pending.pop() {
            if granted == scope {
                return true;
            }
            if seen.contains(&granted) {
                continue;
            }
            seen.push(granted);
            if let Some(narrower) = self.implied.get(granted) {
                pending.extend(narrower.iter().map(String::as_str));
            }
        }
        false
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("resource", &self.config.resource)
            .field("issuers", &self.config.issuers)
            .field("required_scopes", &self.config.required_scopes)
            .finish_non_exhaustive()
    }
}

impl OAuth {
    /// Starts the configuration of the resource `resource`: the canonical URI of the MCP
    /// endpoint (`https://mcp.example.com/mcp`), which tokens must name as their audience and
    /// the metadata names as `resource`.
    pub fn builder(resource: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder {
            resource: resource.into(),
            issuers: Vec::new(),
            audiences: Vec::new(),
            jwks_url: None,
            jwks: Vec::new(),
            tied: Vec::new(),
            fetcher: None,
            required_scopes: Vec::new(),
            scopes_supported: Vec::new(),
            subject_claim: "sub".to_owned(),
            clock_skew: DEFAULT_CLOCK_SKEW,
            refresh: Refresh {
                min_interval: DEFAULT_JWKS_MIN_REFRESH_INTERVAL,
                max_age: DEFAULT_JWKS_MAX_AGE,
                timeout: DEFAULT_JWKS_TIMEOUT,
            },
            resource_name: None,
            cache_capacity: DEFAULT_TOKEN_CACHE,
            max_verifications: None,
            implied: HashMap::new(),
        }
    }

    /// The resource's URI.
    pub fn resource(&self) -> &str {
        &self.config.resource
    }

    /// Verifies `token` (the bearer token alone, without `Bearer `) as the HTTP transport
    /// does: header, key, signature, issuer, audience, expiry, not-before and subject, or
    /// the cache of tokens already verified. For transports of the application's own; the
    /// scopes are the caller's to check. Call it on a Tokio runtime: fetching the key set
    /// (with the built-in fetcher) needs one.
    pub async fn verify(&self, token: &str) -> Result<Arc<Claims>, TokenError> {
        self.check(token)
            .await
            .map_err(|reason| TokenError { reason })
    }

    pub(super) async fn check(&self, token: &str) -> Result<Arc<Claims>, Reason> {
        let config = &self.config;
        if let Some(claims) = config.cache.get(token) {
            return Ok(claims);
        }
        let claims = Arc::new(config.verifier.verify(token).await?);
        config
            .cache
            .insert(token, Arc::clone(&claims), config.clock_skew);
        Ok(claims)
    }
}

/// Why a token was refused ([`OAuth::verify`]). Its `Display` is the reason, for a log line:
/// it never shows the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    reason: Reason,
}

impl TokenError {
    /// What a client may be told, as `error_description`: coarse, so nothing about the keys
    /// leaks.
    pub fn description(&self) -> &'static str {
        self.reason.description()
    }

    /// `Some` when the token was not refused but could not be checked: no JWK set has been
    /// fetched yet (its server is unreachable, or its certificate untrusted), or as many new
    /// tokens as [`OAuthBuilder::max_concurrent_verifications`] allows are being checked. A transport
    /// answers that as a temporary failure (`503` with `Retry-After`, as the HTTP transport
    /// does) rather than `401`, which would send the client for a new token it does not need.
    pub fn retry_after(&self) -> Option<Duration> {
        self.reason.retry_after()
    }
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.reason.fmt(f)
    }
}

impl std::error::Error for TokenError {}

/// Builds an [`OAuth`] configuration; [`OAuthBuilder::build`] checks it.
#[must_use]
pub struct OAuthBuilder {
    resource: String,
    issuers: Vec<String>,
    audiences: Vec<String>,
    jwks_url: Option<String>,
    jwks: Vec<String>,
    tied: Vec<(String, KeySource)>,
    fetcher: Option<Arc<dyn FetchJwks>>,
    required_scopes: Vec<String>,
    scopes_supported: Vec<String>,
    subject_claim: String,
    clock_skew: Duration,
    refresh: Refresh,
    resource_name: Option<String>,
    cache_capacity: usize,
    max_verifications: Option<usize>,
    implied: HashMap<String, Vec<String>>,
}

impl std::fmt::Debug for OAuthBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthBuilder")
            .field("resource", &self.resource)
            .field("issuers", &self.issuers)
            .finish_non_exhaustive()
    }
}

impl OAuthBuilder {
    /// Trusts tokens whose `iss` is `issuer` (exactly, as the authorization server's metadata
    /// spells it), and lists it in the metadata's `authorization_servers`. At least one.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }

    /// Accepts tokens whose `aud` names `audience`, besides the resource's URI.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Fetches the verification keys from the JWK set at `url` (see the module's Keys
    /// section), for the one issuer; a configuration of several issuers ties each key set to
    /// its issuer with [`issuer_jwks_url`](Self::issuer_jwks_url) instead. Without [`jwks_fetcher`](Self::jwks_fetcher), an `http://` URL is fetched
    /// over plain TCP, and an `https://` URL by an `auth::HttpsFetcher` trusting Mozilla's
    /// roots, which needs the `oauth-https` feature (on by default).
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }

    /// Verifies with the keys of a JWK set document (`{"keys": [...]}`), held for good, for
    /// the one issuer (several issuers: [`issuer_jwks`](Self::issuer_jwks)). Static keys are
    /// looked up before fetched ones. May be called more than once.
    pub fn jwks(mut self, document: impl Into<String>) -> Self {
        self.jwks.push(document.into());
        self
    }

    /// Trusts tokens whose `iss` is `issuer`, verified with the keys of the JWK set at `url`
    /// and with no other issuer's keys (see the module's Issuers section). With more than one
    /// issuer, each issuer's keys are given this way or with [`issuer_jwks`](Self::issuer_jwks);
    /// `issuer` need not be given to [`issuer`](Self::issuer) as well.
    pub fn issuer_jwks_url(mut self, issuer: impl Into<String>, url: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.issuers.contains(&issuer) {
            self.issuers.push(issuer.clone());
        }
        self.tied.push((issuer, KeySource::Url(url.into())));
        self
    }

    /// Trusts tokens whose `iss` is `issuer`, verified with the keys of a JWK set document
    /// (held for good, looked up before fetched ones) and with no other issuer's keys. May be
    /// called more than once per issuer.
    pub fn issuer_jwks(mut self, issuer: impl Into<String>, document: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.issuers.contains(&issuer) {
            self.issuers.push(issuer.clone());
        }
        self.tied
            .push((issuer, KeySource::Document(document.into())));
        self
    }

    /// Fetches the JWK set with `fetcher` instead of the built-in one: an
    /// `auth::HttpsFetcher` trusting more roots, or a client of the application's own
    /// (proxies, client certificates).
    pub fn jwks_fetcher(mut self, fetcher: impl FetchJwks) -> Self {
        self.fetcher = Some(Arc::new(fetcher));
        self
    }

    /// Scopes every request needs; a token without one of them is answered `403`. Listed in
    /// the `scope` of `401` challenges and in the metadata's `scopes_supported`.
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Declares that a token granted `broader` holds every scope of `narrower` too (scope
    /// hierarchies, which the specification has servers account for): a tool needing
    /// `deploy:write` accepts a token granted `admin` after `.scope_implies("admin",
    /// ["deploy:write"])`. Implications chain (`admin` → `write` → `read`).
    pub fn scope_implies<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied
            .entry(broader.into())
            .or_default()
            .extend(narrower.into_iter().map(Into::into));
        self
    }

    /// Scopes listed in the metadata's `scopes_supported`, before the required ones and the
    /// tools'. By the specification, the minimal set a client needs for basic functionality.
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The claim whose value is the subject states bind to (default `sub`). It must be a
    /// non-empty string in every token.
    pub fn subject_claim(mut self, claim: impl Into<String>) -> Self {
        self.subject_claim = claim.into();
        self
    }

    /// How far `exp` and `nbf` may be off the server's clock (default
    /// [`DEFAULT_CLOCK_SKEW`]), counted in whole seconds.
    pub fn clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }

    /// The least time between two fetches of the JWK set (default
    /// [`DEFAULT_JWKS_MIN_REFRESH_INTERVAL`]): a token naming an unknown `kid` within it is
    /// refused without a fetch.
    pub fn jwks_min_refresh_interval(mut self, interval: Duration) -> Self {
        self.refresh.min_interval = interval;
        self
    }

    /// The age past which the JWK set is fetched again, in the background (default
    /// [`DEFAULT_JWKS_MAX_AGE`]).
    pub fn jwks_max_age(mut self, age: Duration) -> Self {
        self.refresh.max_age = age;
        self
    }

    /// How long one fetch of the JWK set may take (default [`DEFAULT_JWKS_TIMEOUT`]).
    pub fn jwks_timeout(mut self, timeout: Duration) -> Self {
        self.refresh.timeout = timeout;
        self
    }

    /// How many verified tokens are remembered (default [`DEFAULT_TOKEN_CACHE`]; `0` verifies
    /// every request's signature). A remembered token is answered without verifying its
    /// signature again until it expires (with the clock skew) or for 5 minutes at most, so a
    /// key withdrawn from the set stops working within 5 minutes, not at once.
    pub fn verified_token_cache(mut self, capacity: usize) -> Self {
        self.cache_capacity = capacity;
        self
    }

    /// How many new tokens (not in the [verified-token cache](Self::verified_token_cache))
    /// may have their signatures checked at once (default
    /// [`default_max_concurrent_verifications`]: half the CPUs, at least one). A token
    /// arriving while that many are checked is not refused but answered `503` with
    /// `Retry-After: 1` (the HTTP transport; [`OAuth::verify`] gives a [`TokenError`] whose
    /// `retry_after` is one second), so a flood of made-up tokens costs at most that many
    /// threads, and clients whose tokens are cached are answered from memory as before. At
    /// least one.
    pub fn max_concurrent_verifications(mut self, max: usize) -> Self {
        self.max_verifications = Some(max.max(1));
        self
    }

    /// A human-readable name for the resource, in the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// Checks the configuration: the resource is an absolute `http` or `https` URI without
    /// a fragment; there is at least one issuer; each issuer has keys (a JWK set URL the
    /// fetcher can reach, or static sets that each hold a usable key), tied to it when there
    /// are several issuers; scopes are scope tokens
    /// (RFC 6749 §3.3); the subject claim is named.
    pub fn build(self) -> Result<OAuth, OAuthError> {
        // With both of `jsonwebtoken`'s backends enabled somewhere in the build, neither is
        // the default: pick the pure-Rust one, unless the application installed one.
        if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
            let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        }
        let resource = &self.resource;
        check_resource(resource)?;
        if self.issuers.is_empty() {
            return Err(OAuthError::new("no issuer: call `issuer`"));
        }
        if self.subject_claim.is_empty() {
            return Err(OAuthError::new("the subject claim has no name"));
        }
        let implied = self
            .implied
            .iter()
            .flat_map(|(broader, narrower)| std::iter::once(broader).chain(narrower));
        for scope in self
            .required_scopes
            .iter()
            .chain(&self.scopes_supported)
            .chain(implied)
        {
            if !is_scope_token(scope) {
                return Err(OAuthError::new(format!(
                    "scope `{scope}` is not a scope token (printable ASCII without space, `\"` or `\\`)"
                )));
            }
        }
        let sources = Sources {
            untied: self
                .jwks
                .into_iter()
                .map(KeySource::Document)
                .chain(self.jwks_url.map(KeySource::Url))
                .collect(),
            tied: self.tied,
        };
        let issuers = sources.build(&self.issuers, self.fetcher.as_ref(), self.refresh)?;
        let mut audiences = vec![self.resource.clone()];
        audiences.extend(self.audiences);
        let verifier = Verifier::new(
            issuers,
            &audiences,
            self.clock_skew,
            self.subject_claim,
            self.max_verifications
                .unwrap_or_else(default_max_concurrent_verifications),
        );
        Ok(OAuth {
            config: Arc::new(Config {
                resource: self.resource,
                issuers: self.issuers,
                required_scopes: self.required_scopes,
                scopes_supported: self.scopes_supported,
                resource_name: self.resource_name,
                implied: self.implied,
                verifier,
                cache: TokenCache::new(self.cache_capacity),
                clock_skew: self.clock_skew,
            }),
        })
    }
}

fn check_resource(resource: &str) -> Result<(), OAuthError> {
    let bad = |why: &str| OAuthError::new(format!("resource `{resource}`: {why}"));
    let uri = fluent_uri::Uri::parse(resource).map_err(|error| bad(&error.to_string()))?;
    let scheme = uri.scheme().as_str();
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return Err(bad("not an `http` or `https` URI"));
    }
    if uri
        .authority()
        .is_none_or(|authority| authority.host().is_empty())
    {
        return Err(bad("no host"));
    }
    if uri.fragment().is_some() {
        return Err(bad("a resource URI has no fragment"));
    }
    Ok(())
}

/// Why an OAuth configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    message: String,
}

impl OAuthError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid OAuth configuration: {}", self.message)
    }
}

impl std::error::Error for OAuthError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(builder: OAuthBuilder) -> String {
        builder.build().unwrap_err().to_string()
    }

    #[test]
    fn configurations_are_checked_with_a_reason() {
        let base = || OAuth::builder("https://mcp.example.com/mcp").issuer("https://as");
        assert!(
            error(
                OAuth::builder("mcp.example.com")
                    .issuer("i")
                    .jwks_url("http://as/j")
            )
            .contains("resource")
        );
        assert!(
            error(
                OAuth::builder("ftp://h/x")
                    .issuer("i")
                    .jwks_url("http://as/j")
            )
            .contains("not an `http`")
        );
        assert!(
            error(
                OAuth::builder("https://h/x#f")
                    .issuer("i")
                    .jwks_url("http://as/j")
            )
            .contains("fragment")
        );
        assert!(
            error(OAuth::builder("https://h/mcp").jwks_url("http://as/j")).contains("no issuer")
        );
        assert!(error(base()).contains("no keys"));
        #[cfg(not(feature = "oauth-https"))]
        {
            let refused = error(base().jwks_url("https://as/jwks"));
            assert!(refused.contains("`oauth-https` feature"), "{refused}");
            assert!(refused.contains("jwks_fetcher"), "{refused}");
        }
        #[cfg(feature = "oauth-https")]
        assert!(base().jwks_url("https://as/jwks").build().is_ok());
        assert!(error(base().jwks_url("ftp://as/jwks")).contains("JWK set URL"));
        assert!(error(base().jwks(r#"{"keys":[]}"#)).contains("no usable signature key"));
        assert!(error(base().jwks("[]")).contains("static JWK set 0"));
        assert!(
            error(
                base()
                    .jwks_url("http://as/j")
                    .required_scopes(["two words"])
            )
            .contains("not a scope token")
        );
        assert!(error(base().jwks_url("http://as/j").subject_claim("")).contains("subject"));
        let fetcher = |_: &str, _: usize| -> crate::auth::JwksFetch {
            Box::pin(async { Err("unused".to_owned()) })
        };
        let built = base()
            .jwks_url("https://as/jwks")
            .jwks_fetcher(fetcher)
            .build()
            .unwrap();
        assert_eq!(built.resource(), "https://mcp.example.com/mcp");
    }
}
