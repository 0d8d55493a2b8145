//! Fetching a JWK set: the [`FetchJwks`] seam, the built-in plain-HTTP fetcher, and the
//! request both built-in fetchers make.

use std::future::Future;
use std::pin::Pin;

use axum::body::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// A fetch under way: the document's bytes, or why there are none.
pub type JwksFetch = Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + Send + 'static>>;

/// Fetches a JWK set document. The server calls it when a token names a key it does not
/// hold (at most once per minimum refresh interval), and when its set grows old.
///
/// The built-in fetchers speak HTTP/1.1: over plain TCP for `http://` URLs (an authorization
/// server on the same host or network, a sidecar, a test), and over TLS for `https://` URLs
/// with the `oauth-https` feature (`auth::HttpsFetcher`). For proxies, client certificates
/// or anything else, implement this trait over the application's own client and pass it to
/// [`OAuthBuilder::jwks_fetcher`](crate::auth::OAuthBuilder::jwks_fetcher). Any closure
/// `Fn(&str, usize) -> JwksFetch` implements it. Fetches run on the Tokio runtime that
/// serves the requests.
pub trait FetchJwks: Send + Sync + 'static {
    /// The body of a `GET url` answered `200`, at most `max_bytes` long; otherwise why not.
    /// The server bounds the whole fetch by its own timeout.
    fn fetch(&self, url: &str, max_bytes: usize) -> JwksFetch;
}

impl<F> FetchJwks for F
where
    F: Fn(&str, usize) -> JwksFetch + Send + Sync + 'static,
{
    fn fetch(&self, url: &str, max_bytes: usize) -> JwksFetch {
        self(url, max_bytes)
    }
}

/// The built-in plain-HTTP fetcher: one HTTP/1.1 connection per fetch, no redirects followed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HttpFetcher;

impl FetchJwks for HttpFetcher {
    fn fetch(&self, url: &str, max_bytes: usize) -> JwksFetch {
        let target = Target::parse(url);
        Box::pin(async move {
            let target = target?;
            if target.scheme != Scheme::Http {
                return Err("the plain-HTTP fetcher does not speak `https://`".to_owned());
            }
            let stream = TcpStream::connect((target.host.as_str(), target.port))
                .await
                .map_err(|error| format!("cannot connect: {error}"))?;
            get(TokioIo::new(stream), &target, max_bytes).await
        })
    }
}

/// The scheme of a JWK set URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    Http,
    Https,
}

/// Where a JWK set URL points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) scheme: Scheme,
    /// The host to connect to, without brackets around an IPv6 address.
    host: String,
    port: u16,
    /// The `Host` header: the URL's authority.
    authority: String,
    path_and_query: String,
}

impl Target {
    /// An `http://` or `https://` URL with a host and no user information.
    pub(crate) fn parse(url: &str) -> Result<Self, String> {
        let uri = fluent_uri::Uri::parse(url).map_err(|error| format!("not a URL: {error}"))?;
        let scheme = uri.scheme().as_str();
        let (scheme, default_port) = if scheme.eq_ignore_ascii_case("http") {
            (Scheme::Http, 80)
        } else if scheme.eq_ignore_ascii_case("https") {
            (Scheme::Https, 443)
        } else {
            return Err("not an `http://` or `https://` URL".to_owned());
        };
        let authority = uri.authority().ok_or("no host in the URL")?;
        if authority.has_userinfo() {
            return Err("user information in the URL".to_owned());
        }
        let host = authority.host();
        if host.is_empty() {
            return Err("no host in the URL".to_owned());
        }
        let port = authority
            .port_to_u16()
            .map_err(|_| "a port that is not a number")?
            .unwrap_or(default_port);
        let path = match uri.path().as_str() {
            "" => "/",
            path => path,
        };
        let path_and_query = match uri.query() {
            Some(query) => format!("{path}?{}", query.as_str()),
            None => path.to_owned(),
        };
        Ok(Self {
            scheme,
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            authority: authority.as_str().to_owned(),
            path_and_query,
        })
    }
}

/// `GET`s `target` over `stream`, a connection already open to it (plain or TLS): the body
/// of a `200`, read up to `max_bytes`. Both built-in fetchers end here, so they ask and
/// bound the answer alike.
pub(crate) async fn get<S>(stream: S, target: &Target, max_bytes: usize) -> Result<Vec<u8>, String>
where
    S: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake::<_, Empty<Bytes>>(stream)
        .await
        .map_err(|error| format!("cannot speak HTTP: {error}"))?;
    let driving = tokio::spawn(connection);
    let request = hyper::Request::get(target.path_and_query.as_str())
        .header(hyper::header::HOST, target.authority.as_str())
        .header(hyper::header::ACCEPT, "application/json")
        .body(Empty::new())
        .map_err(|error| format!("cannot build the request: {error}"))?;
    let fetched = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|error| format!("no answer: {error}"))?;
        if response.status() != hyper::StatusCode::OK {
            return Err(format!("answered {}", response.status()));
        }
        let body = Limited::new(response.into_body(), max_bytes)
            .collect()
            .await
            .map_err(|error| format!("cannot read the body: {error}"))?;
        Ok(body.to_bytes().to_vec())
    }
    .await;
    driving.abort();
    fetched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwks_urls_are_http_or_https_with_a_host() {
        let target = Target::parse("http://127.0.0.1:8080/jwks?tenant=a").unwrap();
        assert_eq!(
            target,
            Target {
                scheme: Scheme::Http,
                host: "127.0.0.1".into(),
                port: 8080,
                authority: "127.0.0.1:8080".into(),
                path_and_query: "/jwks?tenant=a".into(),
            }
        );
        let v6 = Target::parse("http://[::1]/").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 80));
        assert_eq!(Target::parse("http://as").unwrap().path_and_query, "/");
        let tls = Target::parse("HTTPS://as.example/jwks").unwrap();
        assert_eq!((tls.scheme, tls.port), (Scheme::Https, 443));
        assert!(Target::parse("ftp://as/jwks").is_err());
        assert!(Target::parse("http://user@as/jwks").is_err());
        assert!(Target::parse("http://as:port/jwks").is_err());
        assert!(Target::parse("not a url").is_err());
    }

    #[tokio::test]
    async fn the_plain_http_fetcher_refuses_https_urls() {
        let refused = HttpFetcher
            .fetch("https://as/jwks", 1024)
            .await
            .unwrap_err();
        assert!(refused.contains("https"), "{refused}");
    }
}
