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
use super::jwks::{KeyMiss, Keys};
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
            Self::KeysUnavailable(_) => "the server cannot check access tokens at the moment",
            _ => "the access token is invalid",
        }
    }

    /// After how long to ask again, when the token was not refused but could not be checked.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::KeysUnavailable(after) => Some(*after),
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
    keys: Keys,
    subject_claim: String,
    /// One validation per accepted algorithm, built once.
    validations: HashMap<Algorithm, Validation>,
}

impl Verifier {
    pub(crate) fn new(
        keys: Keys,
        issuers: &[String],
        audiences: &[String],
        clock_skew: Duration,
        subject_claim: String,
    ) -> Self {
        let validations = ACCEPTED
            .iter()
            .map(|&algorithm| {
                let mut validation = Validation::new(algorithm);
                validation.leeway = clock_skew.as_secs();
                validation.validate_exp = true;
                validation.validate_nbf = true;
                validation.validate_aud = true;
                validation.set_issuer(issuers);
                validation.set_audience(audiences);
                validation.set_required_spec_claims(&["exp", "iss", "aud"]);
                (algorithm, validation)
            })
            .collect();
        Self {
            keys,
            subject_claim,
            validations,
        }
    }

    /// The claims of `token` once verified, or why it is refused.
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
        let key = self
            .keys
            .find(header.kid.as_deref(), algorithm)
            .await
            .map_err(|miss| match miss {
                KeyMiss::Unknown => Reason::UnknownKey,
                KeyMiss::OtherAlgorithm => Reason::KeyOfOtherAlgorithm,
                KeyMiss::Unavailable(after) => Reason::KeysUnavailable(after),
            })?;
        let validation = &self.validations[&key.algorithm];
        let decoded = jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, validation)
            .map_err(|error| reason(error.into_kind()))?;
        let claims = decoded.claims;
        let subject = match claims.get(&self.subject_claim) {
            Some(Value::String(subject)) if !subject.is_empty() => subject.clone(),
            _ => return Err(Reason::NoSubject(self.subject_claim.clone())),
        };
        Ok(Claims::new(subject, claims))
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
