//! Verifying one bearer token: its header, its key, its signature and its claims.

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::Claims;
use super::issuers::{Issuer, QUALIFIER};
use super::jwks::KeyMiss;
use crate::logfield::untrusted;

/// The longest token read, in bytes: 16 KiB. Longer ones are refused unread.
pub(crate) const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The algorithms a token may be signed with: RSA (PKCS #1 v1.5 and PSS), ECDSA on P-256 and
/// P-384, and Ed25519. Never `none`, never a shared secret.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The accepted algorithm a header's `alg` names, by its JOSE name.
fn accepted(alg: &str) -> Option<Algorithm> {
    Some(match alg {
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        _ => return None,
    })
}

/// Why a token was refused: for the log, never for the client, and never the token itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reason {
    TooLong,
    Malformed(&'static str),
    /// The header names an algorithm this server never accepts (`none`, `HS256`, ...).
    Algorithm(String),
    /// The header declares critical extensions this server does not know.
    Critical,
    UnknownKey,
    /// As many new tokens as allowed are being verified at once: not checked, and not
    /// refused either.
    Busy,
    /// No JWK set could be fetched yet, so no key to check with: the server's trouble, not
    /// the token's. A fetch is due again after the duration.
    KeysUnavailable(Duration),
    /// The key the header names verifies another algorithm.
    KeyOfOtherAlgorithm,
    BadSignature,
    Expired,
    NotYetValid,
    WrongIssuer,
    WrongAudience,
    MissingClaim(String),
    BadClaim(String),
    NoSubject(String),
    Other(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong => write!(f, "longer than {MAX_TOKEN_BYTES} bytes"),
            Self::Malformed(what) => write!(f, "malformed: {what}"),
            Self::Algorithm(alg) => write!(
                f,
                "algorithm `{}` is not accepted",
                untrusted(alg).max_chars(20)
            ),
            Self::Critical => f.write_str("declares critical header extensions"),
            Self::UnknownKey => f.write_str("signed by a key the server does not know"),
            Self::Busy => {
                f.write_str("not checked: as many new tokens as allowed are being verified")
            }
            Self::KeysUnavailable(_) => {
                f.write_str("not checked: the JWK set has not been fetched yet")
            }
            Self::KeyOfOtherAlgorithm => f.write_str("names a key of another algorithm"),
            Self::BadSignature => f.write_str("bad signature"),
            Self::Expired => f.write_str("expired"),
            Self::NotYetValid => f.write_str("not yet valid"),
            Self::WrongIssuer => f.write_str("issued by an issuer the server does not trust"),
            Self::WrongAudience => f.write_str("issued for another audience"),
            Self::MissingClaim(claim) => write!(f, "no `{claim}` claim"),
            Self::BadClaim(claim) => write!(f, "malformed `{claim}` claim"),
            Self::NoSubject(claim) => write!(f, "no subject: `{claim}` is not a non-empty string"),
            Self::Other(why) => write!(f, "{}", untrusted(why)),
        }
    }
}

impl Reason {
    /// What the client is told in `error_description`: coarse, so nothing about the keys
    /// leaks.
    pub(crate) fn description(&self) -> &'static str {
        match self {
            Self::Expired => "the access token expired",
            Self::NotYetValid => "the access token is not valid yet",
            Self::WrongAudience => "the access token was issued for another resource",
            Self::KeysUnavailable(_) | Self::Busy => {
                "the server cannot check access tokens at the moment"
            }
            _ => "the access token is invalid",
        }
    }

    /// After how long to ask again, when the token was not refused but could not be checked.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::KeysUnavailable(after) => Some(*after),
            Self::Busy => Some(Duration::from_secs(1)),
            _ => None,
        }
    }
}

/// The header members verification reads.
#[derive(serde::Deserialize)]
struct Header {
    alg: String,
    kid: Option<String>,
    crit: Option<Value>,
}

/// What a token must satisfy.
pub(crate) struct Verifier {
    /// Each trusted issuer with its own keys, and one validation per accepted algorithm that
    /// accepts that issuer alone, built once.
    issuers: Vec<(Issuer, HashMap<Algorithm, Validation>)>,
    subject_claim: String,
    /// One permit per signature check that may run at once; past them, tokens wait for no
    /// permit and are answered "busy".
    permits: tokio::sync::Semaphore,
}

impl Verifier {
    pub(crate) fn new(
        issuers: Vec<Issuer>,
        audiences: &[String],
        clock_skew: Duration,
        subject_claim: String,
        max_concurrent: usize,
    ) -> Self {
        let issuers = issuers
            .into_iter()
            .map(|issuer| {
                let validations = ACCEPTED
                    .iter()
                    .map(|&algorithm| {
                        let mut validation = Validation::new(algorithm);
                        validation.leeway = clock_skew.as_secs();
                        validation.validate_exp = true;
                        validation.validate_nbf = true;
                        validation.validate_aud = true;
                        validation.set_issuer(&[&issuer.name]);
                        validation.set_audience(audiences);
                        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
                        (algorithm, validation)
                    })
                    .collect();
                (issuer, validations)
            })
            .collect();
        Self {
            issuers,
            subject_claim,
            permits: tokio::sync::Semaphore::new(max_concurrent),
        }
    }

    /// The claims of `token` once verified, or why it is refused. The token's `iss` (read
    /// before the signature is checked) picks the issuer whose keys may verify it, and the
    /// validation then accepts that issuer alone: a key of one issuer never verifies a token
    /// naming another.
    pub(crate) async fn verify(&self, token: &str) -> Result<Claims, Reason> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(Reason::TooLong);
        }
        let header = header(token)?;
        let algorithm =
            accepted(&header.alg).ok_or_else(|| Reason::Algorithm(header.alg.clone()))?;
        if header.crit.is_some() {
            return Err(Reason::Critical);
        }
        let named = unverified_issuer(token)?;
        let (issuer, validations) = self
            .issuers
            .iter()
            .find(|(issuer, _)| issuer.name == named)
            .ok_or(Reason::WrongIssuer)?;
        let key = issuer
            .keys
            .find(header.kid.as_deref(), algorithm)
            .await
            .map_err(|miss| match miss {
                KeyMiss::Unknown => Reason::UnknownKey,
                KeyMiss::OtherAlgorithm => Reason::KeyOfOtherAlgorithm,
                KeyMiss::Unavailable(after) => Reason::KeysUnavailable(after),
            })?;
        let validation = &validations[&key.algorithm];
        // The signature check is the cost: a bounded number run at once, whatever the rest
        // of the server does, so garbage signatures cannot take every thread.
        let Ok(_permit) = self.permits.try_acquire() else {
            return Err(Reason::Busy);
        };
        let decoded = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, validation)
            .map_err(|error| reason(error.into_kind()))?;
        let claims = decoded.claims;
        let subject = match claims.get(&self.subject_claim) {
            Some(Value::String(subject)) if !subject.is_empty() => subject,
            _ => return Err(Reason::NoSubject(self.subject_claim.clone())),
        };
        let subject = if self.issuers.len() > 1 {
            format!("{}{QUALIFIER}{subject}", issuer.name)
        } else {
            subject.clone()
        };
        Ok(Claims::new(subject, claims))
    }
}

/// The `iss` a token's payload names, read before its signature is checked: only to pick the
/// keys that may verify it.
fn unverified_issuer(token: &str) -> Result<String, Reason> {
    #[derive(serde::Deserialize)]
    struct Issued {
        iss: Option<Value>,
    }
    let payload = token.split('.').nth(1).unwrap_or_default();
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| Reason::Malformed("not a compact JWS"))?;
    let issued: Issued = serde_json::from_slice(&payload)
        .map_err(|_| Reason::Malformed("payload is not a JSON object"))?;
    match issued.iss {
        None => Err(Reason::MissingClaim("iss".to_owned())),
        Some(Value::String(iss)) => Ok(iss),
        Some(_) => Err(Reason::BadClaim("iss".to_owned())),
    }
}

/// The token's header, decoded here rather than by `jsonwebtoken`, so that an algorithm it
/// does not know (`none`) is named in the log.
fn header(token: &str) -> Result<Header, Reason> {
    let mut parts = token.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Reason::Malformed("not three dot-separated parts"));
    };
    let header = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| Reason::Malformed("header is not base64url"))?;
    serde_json::from_slice(&header).map_err(|_| Reason::Malformed("header is not a JWS header"))
}

fn reason(kind: ErrorKind) -> Reason {
    match kind {
        ErrorKind::InvalidSignature => Reason::BadSignature,
        ErrorKind::ExpiredSignature => Reason::Expired,
        ErrorKind::ImmatureSignature => Reason::NotYetValid,
        ErrorKind::InvalidIssuer => Reason::WrongIssuer,
        ErrorKind::InvalidAudience => Reason::WrongAudience,
        ErrorKind::MissingRequiredClaim(claim) => Reason::MissingClaim(claim),
        ErrorKind::InvalidClaimFormat(claim) => Reason::BadClaim(claim),
        ErrorKind::InvalidAlgorithm => Reason::KeyOfOtherAlgorithm,
        ErrorKind::InvalidToken | ErrorKind::Base64(_) | ErrorKind::Utf8(_) => {
            Reason::Malformed("not a compact JWS")
        }
        ErrorKind::Json(_) => Reason::Malformed("payload is not a JSON object"),
        other => Reason::Other(format!("{other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(json: &str) -> String {
        URL_SAFE_NO_PAD.encode(json)
    }

    #[test]
    fn headers_are_read_from_three_part_tokens_only() {
        let token = format!("{}.e30.sig", encoded(r#"{"alg":"none","kid":"a"}"#));
        let parsed = header(&token).unwrap();
        assert_eq!(
            (parsed.alg.as_str(), parsed.kid.as_deref()),
            ("none", Some("a"))
        );
        assert_eq!(
            header("a.b").err(),
            Some(Reason::Malformed("not three dot-separated parts"))
        );
        assert_eq!(
            header("a.b.c.d").err(),
            Some(Reason::Malformed("not three dot-separated parts"))
        );
        assert_eq!(
            header("!!.b.c").err(),
            Some(Reason::Malformed("header is not base64url"))
        );
        let not_json = format!("{}.b.c", encoded("[1]"));
        assert_eq!(
            header(&not_json).err(),
            Some(Reason::Malformed("header is not a JWS header"))
        );
    }

    #[test]
    fn reasons_name_no_token_and_cap_what_the_client_chose() {
        let shown = Reason::Algorithm(format!("none\n{}", "x".repeat(100))).to_string();
        assert!(shown.starts_with(r"algorithm `none\n"), "{shown}");
        assert!(shown.len() < 80, "{shown}");
        assert_eq!(Reason::Expired.description(), "the access token expired");
        assert_eq!(
            Reason::BadSignature.description(),
            "the access token is invalid"
        );
    }

    #[test]
    fn every_accepted_algorithm_is_named_as_jose_names_it() {
        for algorithm in ACCEPTED {
            assert_eq!(accepted(&format!("{algorithm:?}")), Some(algorithm));
        }
        for refused in ["none", "None", "HS256", "ES512", "rs256", ""] {
            assert_eq!(accepted(refused), None, "{refused}");
        }
    }
}
