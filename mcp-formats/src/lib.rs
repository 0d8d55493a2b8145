//! Syntactic checks of the four string formats an elicitation form field may declare, shared
//! by `mcp-runtime` (which checks answers with them) and `mcp-macros` (which checks a field's
//! literal `default` with them at compile time), so the two cannot disagree.
//!
//! These say whether a text is shaped like the format, nothing more: an e-mail address is not
//! known to receive mail, nor a URI to resolve.

/// A string format of a form field, as written in `#[form(format = "...")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `"email"`: an RFC 5321 mailbox.
    Email,
    /// `"uri"`: an absolute RFC 3986 URI.
    Uri,
    /// `"date"`: an RFC 3339 full-date.
    Date,
    /// `"date-time"`: an RFC 3339 date-time.
    DateTime,
}

impl Format {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Self; 4] = [Self::Email, Self::Uri, Self::Date, Self::DateTime];

    /// The format written as `name` in `#[form(format = "...")]` and in a JSON Schema.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.name() == name)
    }

    /// The name of the format in `#[form(format = "...")]` and in a JSON Schema.
    pub fn name(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Date => "date",
            Self::DateTime => "date-time",
        }
    }

    /// Whether `text` is syntactically valid for the format.
    pub fn matches(self, text: &str) -> bool {
        match self {
            Self::Email => is_email(text),
            Self::Uri => is_uri(text),
            Self::Date => is_date(text),
            Self::DateTime => is_date_time(text),
        }
    }

    /// What a field of the format expects, for error messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Email => "an e-mail address",
            Self::Uri => "an absolute URI (RFC 3986, with a scheme)",
            Self::Date => "a date `YYYY-MM-DD` (RFC 3339 full-date)",
            Self::DateTime => "a date-time such as `2026-07-28T09:30:00Z` (RFC 3339)",
        }
    }

    /// A text the format accepts, for suggestions.
    pub fn example(self) -> &'static str {
        match self {
            Self::Email => "name@example.com",
            Self::Uri => "https://example.com/",
            Self::Date => "2026-07-28",
            Self::DateTime => "2026-07-28T09:30:00Z",
        }
    }
}

/// An absolute URI: RFC 3986 `URI` (scheme required, fragment allowed).
fn is_uri(text: &str) -> bool {
    fluent_uri::Uri::parse(text).is_ok()
}

/// An RFC 5321 mailbox: `local-part@domain`, where the local part is a dot-string or a quoted
/// string (at most 64 octets) and the domain a host name or an address literal.
fn is_email(text: &str) -> bool {
    if text.len() > 254 {
        return false;
    }
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    is_local_part(local) && (is_host_name(domain) || is_address_literal(domain))
}

fn is_local_part(local: &str) -> bool {
    if local.is_empty() || local.len() > 64 {
        return false;
    }
    if let Some(inner) = local
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
    {
        return is_quoted_content(inner);
    }
    local.split('.').all(|atom| {
        !atom.is_empty()
            && atom
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&byte))
    })
}

fn is_quoted_content(inner: &str) -> bool {
    let mut bytes = inner.bytes();
    while let Some(byte) = bytes.next() {
        match byte {
            b'\\' => match bytes.next() {
                Some(b' '..=b'~') => {}
                _ => return false,
            },
            b'"' => return false,
            b' '..=b'~' => {}
            _ => return false,
        }
    }
    true
}

fn is_host_name(domain: &str) -> bool {
    !domain.is_empty()
        && domain.len() <= 253
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        })
}

fn is_address_literal(domain: &str) -> bool {
    let Some(inner) = domain
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    match inner.strip_prefix("IPv6:") {
        Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
        None => inner.parse::<std::net::Ipv4Addr>().is_ok(),
    }
}

/// Exactly `n` ASCII digits as a number.
fn digits(text: &str, n: usize) -> Option<u32> {
    if text.len() != n || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a real calendar day.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(&text[..4], 4),
        digits(&text[5..7], 2),
        digits(&text[8..], 2),
    ) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `date-time`: `full-date "T" partial-time time-offset`, where the `T` and `Z` may
/// be lowercase, seconds may be `60` (a leap second) and a fraction may follow them.
fn is_date_time(text: &str) -> bool {
    if !text.is_char_boundary(10) || text.len() < 11 {
        return false;
    }
    let (date, rest) = text.split_at(10);
    let Some(time) = rest.strip_prefix(['T', 't']) else {
        return false;
    };
    is_date(date) && is_time_with_offset(time)
}

fn is_time_with_offset(time: &str) -> bool {
    // partial-time = HH:MM:SS [.fraction]
    if time.len() < 8 || !time.is_char_boundary(8) {
        return false;
    }
    let (hms, mut rest) = time.split_at(8);
    if !is_clock(hms, true) {
        return false;
    }
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction
            .bytes()
            .take_while(|byte| byte.is_ascii_digit())
            .count();
        if len == 0 {
            return false;
        }
        rest = &fraction[len..];
    }
    // time-offset = "Z" / ("+" / "-") HH:MM
    match rest.as_bytes().first() {
        Some(b'Z' | b'z') => rest.len() == 1,
        Some(b'+' | b'-') => is_clock(&rest[1..], false),
        _ => false,
    }
}

/// `HH:MM:SS` (with seconds) or `HH:MM` (without).
fn is_clock(text: &str, with_seconds: bool) -> bool {
    let bytes = text.as_bytes();
    let expected_len = if with_seconds { 8 } else { 5 };
    if bytes.len() != expected_len || bytes[2] != b':' || (with_seconds && bytes[5] != b':') {
        return false;
    }
    let hour = digits(&text[..2], 2).filter(|hour| *hour <= 23);
    let minute = digits(&text[3..5], 2).filter(|minute| *minute <= 59);
    let second_ok = !with_seconds || digits(&text[6..], 2).is_some_and(|second| second <= 60);
    hour.is_some() && minute.is_some() && second_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_examples() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert!(format.matches(format.example()), "{format:?}");
        }
        assert_eq!(Format::from_name("Email"), None);
    }

    #[test]
    fn email() {
        for good in [
            "a@example.com",
            "first.last+tag@sub.example.org",
            "\"quoted name\"@example.com",
            "x@localhost",
            "x@[192.0.2.1]",
            "x@[IPv6:2001:db8::1]",
            "!#$%&'*+-/=?^_`{|}~@example.com",
        ] {
            assert!(is_email(good), "{good} should be an e-mail address");
        }
        for bad in [
            "",
            "plain",
            "@example.com",
            "a@",
            "a..b@example.com",
            ".a@example.com",
            "a.@example.com",
            "a b@example.com",
            "a@exa mple.com",
            "a@-example.com",
            "a@example-.com",
            "a@example..com",
            "a@[300.1.1.1]",
            "a@[IPv6:zz::1]",
            "\"unterminated@example.com",
            "é@example.com",
            &format!("{}@example.com", "a".repeat(65)),
            &format!("a@{}.com", "b".repeat(64)),
        ] {
            assert!(!is_email(bad), "{bad:?} should not be an e-mail address");
        }
    }

    #[test]
    fn uri() {
        for good in [
            "https://example.com",
            "https://user@example.com:8080/a/b?q=1#frag",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "http://[2001:db8::1]/",
            "file:///etc/hosts",
            "https://example.com/%20space",
        ] {
            assert!(is_uri(good), "{good} should be a URI");
        }
        for bad in [
            "",
            "example.com",
            "/relative/path",
            "//example.com",
            "https://exa mple.com",
            "https://example.com/%zz",
            "1http://example.com",
            "https://[::1/",
        ] {
            assert!(!is_uri(bad), "{bad:?} should not be a URI");
        }
    }

    #[test]
    fn date() {
        for good in ["2026-07-28", "2024-02-29", "2000-02-29", "0001-01-01"] {
            assert!(is_date(good), "{good} should be a date");
        }
        for bad in [
            "",
            "2026-7-28",
            "2026-07-28T00:00:00Z",
            "2026/07/28",
            "2026-13-01",
            "2026-00-01",
            "2026-04-31",
            "2023-02-29",
            "1900-02-29",
            "2026-07-00",
            "２026-07-28",
            "+026-07-28",
        ] {
            assert!(!is_date(bad), "{bad:?} should not be a date");
        }
    }

    #[test]
    fn date_time() {
        for good in [
            "2026-07-28T09:30:00Z",
            "2026-07-28t09:30:00z",
            "2026-07-28T09:30:00.123456Z",
            "2026-07-28T23:59:60Z",
            "2026-07-28T09:30:00+02:00",
            "2026-07-28T09:30:00-11:30",
        ] {
            assert!(is_date_time(good), "{good} should be a date-time");
        }
        for bad in [
            "",
            "2026-07-28",
            "2026-07-28T09:30Z",
            "2026-07-28 09:30:00Z",
            "2026-07-28T09:30:00",
            "2026-07-28T24:00:00Z",
            "2026-07-28T09:60:00Z",
            "2026-07-28T09:30:61Z",
            "2026-07-28T09:30:00.Z",
            "2026-07-28T09:30:00+2:00",
            "2026-07-28T09:30:00+24:00",
            "2026-07-28T09:30:00Zjunk",
            "2026-02-30T09:30:00Z",
            "2026-07-28Té9:30:00Z",
            "2026-07-28T09:30:0é",
        ] {
            assert!(!is_date_time(bad), "{bad:?} should not be a date-time");
        }
    }
}
