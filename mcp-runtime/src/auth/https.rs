//! The built-in HTTPS fetcher of JWK sets (feature `oauth-https`): hyper-rustls connects,
//! then the request is the plain-HTTP fetcher's.

use std::sync::Arc;

use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use rustls::{ClientConfig, RootCertStore};
use tower_service::Service as _;

use super::OAuthError;
use super::fetch::{FetchJwks, JwksFetch, Scheme, Target, get};

/// Fetches JWK sets from `https://` URLs: HTTP/1.1 over TLS 1.2 or 1.3 (rustls on the `ring`
/// provider), one connection per fetch, no redirects followed, the answer read up to the
/// size the server asks for (`MAX_JWKS_BYTES`) within its fetch timeout, as the plain-HTTP
/// fetcher does.
///
/// [`OAuthBuilder::jwks_url`](crate::auth::OAuthBuilder::jwks_url) uses one trusting
/// Mozilla's root certificates (as compiled into the `webpki-roots` crate; the system's
/// certificate store is not read, so a container without one fetches all the same). An
/// authorization server whose certificate chains to a private CA needs that CA trusted too:
///
/// ```no_run
/// use mcp_runtime::auth::{HttpsFetcher, OAuth};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ca = std::fs::read("/etc/mcp/internal-ca.pem")?;
/// let oauth = OAuth::builder("https://mcp.example.com/mcp")
///     .issuer("https://auth.internal")
///     .jwks_url("https://auth.internal/jwks.json")
///     .jwks_fetcher(HttpsFetcher::new().with_root_certificates_pem(&ca)?)
///     .build()?;
/// # drop(oauth);
/// # Ok(())
/// # }
/// ```
///
/// A certificate that chains to no trusted root, or names another host, fails the fetch;
/// the failure is logged (rate-limited) and no key is learned from it.
#[derive(Clone)]
pub struct HttpsFetcher {
    roots: RootCertStore,
    connector: HttpsConnector<HttpConnector>,
}

impl std::fmt::Debug for HttpsFetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpsFetcher")
            .field("roots", &self.roots.len())
            .finish_non_exhaustive()
    }
}

impl Default for HttpsFetcher {
    fn default() -> Self {
        Self::new()
    }
}

impl HttpsFetcher {
    /// A fetcher trusting Mozilla's root certificates.
    pub fn new() -> Self {
        let roots = RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Self::trusting(roots)
    }

    /// Trusts the root certificates `certificates` (each DER-encoded) as well.
    pub fn with_root_certificates<C: AsRef<[u8]>>(
        mut self,
        certificates: impl IntoIterator<Item = C>,
    ) -> Result<Self, OAuthError> {
        for (index, der) in certificates.into_iter().enumerate() {
            let certificate = CertificateDer::from(der.as_ref().to_vec());
            self.roots
                .add(certificate)
                .map_err(|error| OAuthError::new(format!("root certificate {index}: {error}")))?;
        }
        Ok(Self::trusting(self.roots))
    }

    /// Trusts the root certificates of a PEM document (`-----BEGIN CERTIFICATE-----`
    /// blocks; anything else in it is skipped) as well. A document without one is an error.
    pub fn with_root_certificates_pem(self, pem: &[u8]) -> Result<Self, OAuthError> {
        let certificates = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| OAuthError::new(format!("root certificates: {error}")))?;
        if certificates.is_empty() {
            return Err(OAuthError::new(
                "root certificates: no certificate in the PEM",
            ));
        }
        self.with_root_certificates(certificates)
    }

    fn trusting(roots: RootCertStore) -> Self {
        // The provider is named rather than taken from the process default: that default is
        // unset (and `ClientConfig::builder` panics) when a build enables both of rustls'
        // providers.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap_or_else(|_| unreachable!("`ring` supports TLS 1.2 and 1.3"))
            .with_root_certificates(roots.clone())
            .with_no_client_auth();
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(config)
            .https_only()
            .enable_http1()
            .build();
        Self { roots, connector }
    }
}

impl FetchJwks for HttpsFetcher {
    fn fetch(&self, url: &str, max_bytes: usize) -> JwksFetch {
        let target = Target::parse(url);
        let uri = url.parse::<hyper::Uri>();
        let mut connector = self.connector.clone();
        Box::pin(async move {
            let target = target?;
            if target.scheme != Scheme::Https {
                return Err("the HTTPS fetcher fetches `https://` URLs only".to_owned());
            }
            let uri = uri.map_err(|error| format!("not a URL: {error}"))?;
            std::future::poll_fn(|cx| connector.poll_ready(cx))
                .await
                .map_err(|error| format!("cannot connect: {}", causes(&*error)))?;
            let stream = connector
                .call(uri)
                .await
                .map_err(|error| format!("cannot connect: {}", causes(&*error)))?;
            get(stream, &target, max_bytes).await
        })
    }
}

/// An error and its sources, `: `-separated: the connector's errors say little on their own
/// ("tcp connect error"), their causes say why.
fn causes(error: &(dyn std::error::Error + 'static)) -> String {
    let mut said = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        said.push_str(": ");
        said.push_str(&cause.to_string());
        source = cause.source();
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_certificates_that_do_not_parse_are_refused_with_a_reason() {
        let refused = HttpsFetcher::new()
            .with_root_certificates([b"not DER".as_slice()])
            .unwrap_err();
        assert!(
            refused.to_string().contains("root certificate 0"),
            "{refused}"
        );
        let empty = HttpsFetcher::new()
            .with_root_certificates_pem(b"no PEM here")
            .unwrap_err();
        assert!(empty.to_string().contains("no certificate"), "{empty}");
    }

    #[tokio::test]
    async fn plain_http_urls_are_refused() {
        let refused = HttpsFetcher::new()
            .fetch("http://127.0.0.1:9/jwks", 1024)
            .await
            .unwrap_err();
        assert!(refused.contains("`https://` URLs only"), "{refused}");
    }
}
