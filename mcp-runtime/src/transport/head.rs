//! The headers a request's handling reads, found in one walk over its header map rather than
//! looked up one by one (each lookup hashes the name and probes the table).
//!
//! A name's first value is the one [`HeaderMap::get`] gives, and a name sent more than once
//! is marked repeated, as [`HeaderMap::get_all`] would show it: every check reads a header
//! as it did when it looked the header up itself.

use axum::http::{HeaderMap, HeaderValue, header};

use crate::server::StandardHeaders;

/// A header as the request sent it: its first value, and whether another followed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seen<'a> {
    pub(crate) first: Option<&'a HeaderValue>,
    pub(crate) repeated: bool,
}

impl<'a> Seen<'a> {
    fn add(&mut self, value: &'a HeaderValue) {
        if self.first.is_none() {
            self.first = Some(value);
        } else {
            self.repeated = true;
        }
    }

    /// The only value: `Ok(None)` when absent, `Err` when repeated.
    pub(crate) fn single(self) -> Result<Option<&'a HeaderValue>, ()> {
        if self.repeated {
            Err(())
        } else {
            Ok(self.first)
        }
    }
}

/// The headers of one request that the transport and dispatch read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Head<'a> {
    /// The whole map, for the rare reading that needs every value (a repeated `Accept`).
    pub(crate) headers: &'a HeaderMap,
    pub(crate) host: Seen<'a>,
    pub(crate) origin: Seen<'a>,
    pub(crate) content_type: Seen<'a>,
    pub(crate) accept: Seen<'a>,
    pub(crate) content_length: Seen<'a>,
    pub(crate) protocol_version: Seen<'a>,
    pub(crate) session_id: Seen<'a>,
    pub(crate) mcp_method: Seen<'a>,
    pub(crate) mcp_name: Seen<'a>,
}

impl<'a> Head<'a> {
    /// `headers` read in one walk. Names in a map are lowercase, so the `mcp-` ones are
    /// matched as text.
    pub(crate) fn read(headers: &'a HeaderMap) -> Self {
        let mut head = Head {
            headers,
            host: Seen::default(),
            origin: Seen::default(),
            content_type: Seen::default(),
            accept: Seen::default(),
            content_length: Seen::default(),
            protocol_version: Seen::default(),
            session_id: Seen::default(),
            mcp_method: Seen::default(),
            mcp_name: Seen::default(),
        };
        for (name, value) in headers {
            // The standard names are compared as the tags they are held as, not as text.
            let seen = if *name == header::HOST {
                &mut head.host
            } else if *name == header::CONTENT_TYPE {
                &mut head.content_type
            } else if *name == header::ACCEPT {
                &mut head.accept
            } else if *name == header::CONTENT_LENGTH {
                &mut head.content_length
            } else if *name == header::ORIGIN {
                &mut head.origin
            } else {
                match name.as_str() {
                    "mcp-method" => &mut head.mcp_method,
                    "mcp-name" => &mut head.mcp_name,
                    "mcp-protocol-version" => &mut head.protocol_version,
                    "mcp-session-id" => &mut head.session_id,
                    _ => continue,
                }
            };
            seen.add(value);
        }
        head
    }

    /// What dispatch reads of the head, once the body is read.
    pub(crate) fn later(&self) -> Later<'a> {
        Later {
            protocol_version: self.protocol_version,
            session_id: self.session_id,
            mcp_method: self.mcp_method,
            mcp_name: self.mcp_name,
        }
    }
}

/// The headers of a request that dispatch reads, kept while its body is read without the rest
/// of its [`Head`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Later<'a> {
    pub(crate) protocol_version: Seen<'a>,
    pub(crate) session_id: Seen<'a>,
    mcp_method: Seen<'a>,
    mcp_name: Seen<'a>,
}

impl Later<'_> {
    /// `Mcp-Method` and `Mcp-Name`, kept for dispatch after the map has moved on.
    pub(crate) fn standard(&self) -> StandardHeaders {
        StandardHeaders::new(
            (self.mcp_method.first, self.mcp_method.repeated),
            (self.mcp_name.first, self.mcp_name.repeated),
        )
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderName;

    use super::*;

    /// Each header read in the walk gives what looking it up gives: the first value, and
    /// whether there is more than one.
    #[test]
    fn a_walk_reads_each_header_as_a_lookup_does() {
        let names = [
            header::HOST,
            header::ORIGIN,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::CONTENT_LENGTH,
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
        ];
        let mut headers = HeaderMap::new();
        headers.append("x-other", HeaderValue::from_static("a"));
        for (index, name) in names.iter().enumerate() {
            // None of the first, one of the next, two of the rest, interleaved with others.
            for copy in 0..index % 3 {
                headers.append(name.clone(), HeaderValue::from(index * 10 + copy));
                headers.append("x-between", HeaderValue::from(copy));
            }
        }
        headers.append(
            HeaderName::from_static("mcp-method"),
            HeaderValue::from_static("third"),
        );
        let head = Head::read(&headers);
        let seen = [
            head.host,
            head.origin,
            head.content_type,
            head.accept,
            head.content_length,
            head.protocol_version,
            head.session_id,
            head.mcp_method,
            head.mcp_name,
        ];
        for (name, seen) in names.iter().zip(seen) {
            assert_eq!(seen.first, headers.get(name), "{name}");
            assert_eq!(
                seen.repeated,
                headers.get_all(name).iter().count() > 1,
                "{name}"
            );
        }
    }
}
