//! Issuers and their keys: each trusted issuer verifies with its own key sets only, so one
//! issuer's keys never vouch for a token naming another, and subjects are qualified by their
//! issuer when there is more than one.

use std::sync::Arc;

use super::config::OAuthError;
use super::fetch::{FetchJwks, HttpFetcher, Scheme, Target};
use super::jwks::{KeySet, Keys, Refresh};

/// Where some of an issuer's keys come from.
pub(super) enum KeySource {
    /// A JWK set fetched from a URL.
    Url(String),
    /// A JWK set document, held for good.
    Document(String),
}

/// Key sources as the builder collects them: tied to an issuer, or (on a single-issuer
/// configuration) to whichever issuer there is.
#[derive(Default)]
pub(super) struct Sources {
    /// Keys given with `jwks_url` and `jwks`, for the only issuer.
    pub(super) untied: Vec<KeySource>,
    /// Keys given with `issuer_jwks_url` and `issuer_jwks`.
    pub(super) tied: Vec<(String, KeySource)>,
}

/// One trusted issuer and the keys that verify its tokens.
pub(super) struct Issuer {
    pub(super) name: String,
    pub(super) keys: Keys,
}

/// The separator of a qualified subject, `{issuer}#{subject}`: issuer identifiers have no
/// fragment (RFC 8414), so the first `#` ends the issuer.
pub(crate) const QUALIFIER: char = '#';

impl Sources {
    /// Each issuer with its keys, checked: every issuer has keys; on a configuration of more
    /// than one issuer every key set is tied to one, and no issuer has a `#`.
    pub(super) fn build(
        self,
        issuers: &[String],
        fetcher: Option<&Arc<dyn FetchJwks>>,
        refresh: Refresh,
    ) -> Result<Vec<Issuer>, OAuthError> {
        let several = issuers.len() > 1;
        if several && !self.untied.is_empty() {
            return Err(OAuthError::new(
                "several issuers: tie each key set to its issuer with `issuer_jwks_url` or \
                 `issuer_jwks`, so that no issuer's keys vouch for another issuer's users",
            ));
        }
        let mut built = Vec::with_capacity(issuers.len());
        let mut untied = Some(self.untied);
        for (index, issuer) in issuers.iter().enumerate() {
            if several && issuer.contains(QUALIFIER) {
                return Err(OAuthError::new(format!(
                    "issuer `{issuer}` has a `#`, which would make qualified subjects ambiguous"
                )));
            }
            let mut sources: Vec<KeySource> = if index == 0 {
                untied.take().unwrap_or_default()
            } else {
                Vec::new()
            };
            sources.extend(self.tied.iter().filter(|(tied, _)| tied == issuer).map(
                |(_, source)| match source {
                    KeySource::Url(url) => KeySource::Url(url.clone()),
                    KeySource::Document(document) => KeySource::Document(document.clone()),
                },
            ));
            built.push(issuer_keys(issuer, sources, fetcher, refresh)?);
        }
        Ok(built)
    }
}

fn issuer_keys(
    issuer: &str,
    sources: Vec<KeySource>,
    fetcher: Option<&Arc<dyn FetchJwks>>,
    refresh: Refresh,
) -> Result<Issuer, OAuthError> {
    let mut fixed = Vec::new();
    let mut remote = None;
    for source in sources {
        match source {
            KeySource::Document(document) => {
                let index = fixed.len();
                let set = KeySet::parse(document.as_bytes())
                    .map_err(|error| OAuthError::new(format!("static JWK set {index}: {error}")))?;
                if set.len() == 0 {
                    return Err(OAuthError::new(format!(
                        "static JWK set {index} holds no usable signature key"
                    )));
                }
                fixed.push(set);
            }
            KeySource::Url(url) => {
                if remote.is_some() {
                    return Err(OAuthError::new(format!(
                        "issuer `{issuer}` has two JWK set URLs; give it one"
                    )));
                }
                let fetcher = match fetcher {
                    Some(fetcher) => Arc::clone(fetcher),
                    None => built_in_fetcher(&url)?,
                };
                remote = Some((url, fetcher));
            }
        }
    }
    if fixed.is_empty() && remote.is_none() {
        return Err(OAuthError::new(format!(
            "no keys for issuer `{issuer}`: call `jwks_url` or `jwks` (with several issuers, \
             `issuer_jwks_url` or `issuer_jwks`)"
        )));
    }
    Ok(Issuer {
        name: issuer.to_owned(),
        keys: Keys::new(fixed, remote, refresh),
    })
}

/// The built-in fetcher for `url`: plain TCP for `http://`, TLS for `https://` with the
/// `oauth-https` feature.
fn built_in_fetcher(url: &str) -> Result<Arc<dyn FetchJwks>, OAuthError> {
    let bad = |error: &str| OAuthError::new(format!("JWK set URL `{url}`: {error}"));
    match Target::parse(url) {
        Err(error) => Err(bad(&error)),
        Ok(target) => match target.scheme {
            Scheme::Http => Ok(Arc::new(HttpFetcher)),
            #[cfg(feature = "oauth-https")]
            Scheme::Https => Ok(Arc::new(super::HttpsFetcher::new())),
            #[cfg(not(feature = "oauth-https"))]
            Scheme::Https => Err(bad(
                "fetching `https://` needs the `oauth-https` feature of `mcp-runtime`; enable \
                 it, or give a fetcher with `jwks_fetcher`",
            )),
        },
    }
}
