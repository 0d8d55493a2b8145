//! A call's `_meta` in the shape clients send it every round, read straight into what the
//! runtime decides on. Its text is kept for [`RequestContext::meta`], which builds a map of it
//! only when asked.
//!
//! Read this way, `_meta` is an object that holds the protocol version (a string with no
//! escapes) and the client capabilities (an object that reads as [`ClientCapabilities`]), and
//! may hold a progress token (a string or an integer that fits 64 bits), a log level, the
//! client's identity and keys the runtime does not read. Anything else is not read this way:
//! a standard key missing or of another type, a standard key sent twice, a trace-context key
//! (the request's span reads those from the map), an escaped key, or nesting deeper than
//! [`MAX_DEPTH`]. The message is then read again, whole, with `_meta` in a map, and its answer
//! is the one that reading gives.
//!
//! Clients send the same `_meta` round after round: each thread remembers what its last few
//! texts read as, and a text it has seen is not read again, nor copied: the call shares the
//! remembered text. Nor is it scanned to find its end: a message whose `_meta` is such a
//! text is read with the text spliced out (see `TopLevel::read` in `message.rs`).
//!
//! [`RequestContext::meta`]: super::RequestContext::meta

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, LazyLock};

use memchr::memmem;
use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::context::bounded_client_info;
use super::shape::{is_valid_id, nests_deeper_than};
use super::trace_context::{META_BAGGAGE, META_TRACEPARENT, META_TRACESTATE};
use crate::protocol::meta::{
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN,
    META_PROTOCOL_VERSION,
};
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProgressToken};

/// How deeply a `_meta` read this way may nest. Deeper, it is read in a map, as part of the
/// whole message and under the parser's nesting limit.
const MAX_DEPTH: usize = 32;

/// A call's `_meta`, its standard keys read.
#[derive(Debug)]
pub(crate) struct CallMeta {
    /// The text, as sent; shared with this thread's memory of it, when remembered.
    pub(crate) text: Arc<str>,
    /// Its standard keys, shared with the texts this thread remembers.
    pub(crate) read: Arc<Read>,
}

/// The standard keys of a `_meta`, as read.
#[derive(Debug)]
pub(crate) struct Read {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub(crate) version: Cow<'static, str>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub(crate) capabilities: ClientCapabilities,
    /// `progressToken`, when it reads as a token.
    pub(crate) progress_token: Option<ProgressToken>,
    /// `io.modelcontextprotocol/logLevel`.
    pub(crate) log_level: Option<LoggingLevel>,
    /// `io.modelcontextprotocol/clientInfo`, bounded as a request's context keeps it
    /// ([`bounded_client_info`]).
    pub(crate) client_info: Option<Implementation>,
}

/// How many texts each thread remembers the reading of.
const REMEMBERED: usize = 4;
/// The longest text remembered, in bytes.
const MAX_REMEMBERED_LEN: usize = 512;

thread_local! {
    /// The last few texts read on this thread, with what they read as. A client sends the
    /// same `_meta` round after round, so most rounds find theirs here, and equal texts read
    /// alike. At most [`REMEMBERED`] texts of [`MAX_REMEMBERED_LEN`] bytes a thread.
    static RECENT: RefCell<Recent> = const { RefCell::new(Recent { texts: Vec::new(), next: 0 }) };
}

struct Recent {
    texts: Vec<(Arc<str>, Arc<Read>)>,
    /// The one to replace next, once all are taken.
    next: usize,
}

impl CallMeta {
    /// `text` read, or `None` when it is not in the shape this reads. A text this thread
    /// remembers is neither read nor copied again.
    pub(crate) fn read(text: &RawValue) -> Option<Self> {
        let text = text.get();
        let remembered = RECENT.with_borrow(|recent| {
            recent
                .texts
                .iter()
                .find(|(seen, _)| **seen == *text)
                .map(|(seen, read)| Self {
                    text: Arc::clone(seen),
                    read: Arc::clone(read),
                })
        });
        if remembered.is_some() {
            return remembered;
        }
        let read = Arc::new(Read::of(text)?);
        let text = Arc::<str>::from(text);
        if text.len() <= MAX_REMEMBERED_LEN {
            RECENT.with_borrow_mut(|recent| {
                let entry = (Arc::clone(&text), Arc::clone(&read));
                if recent.texts.len() < REMEMBERED {
                    recent.texts.push(entry);
                } else {
                    recent.texts[recent.next] = entry;
                    recent.next = (recent.next + 1) % REMEMBERED;
                }
            });
        }
        Some(Self { text, read })
    }

    /// The first `"_meta":` member of `message`, when the text right after it is one this
    /// thread remembers: where that text begins and ends in `message`, and what it reads
    /// as. Whether the member is a call's `_meta` is for the message's reading to tell.
    pub(crate) fn remembered_in(message: &str) -> Option<(usize, usize, Self)> {
        static MEMBER: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(b"\"_meta\":"));
        let start = MEMBER.find(message.as_bytes())? + MEMBER.needle().len();
        let rest = &message.as_bytes()[start..];
        RECENT.with_borrow(|recent| {
            recent
                .texts
                .iter()
                .find(|(seen, _)| rest.starts_with(seen.as_bytes()))
                .map(|(seen, read)| {
                    let meta = Self {
                        text: Arc::clone(seen),
                        read: Arc::clone(read),
                    };
                    (start, start + seen.len(), meta)
                })
        })
    }

    /// The whole `_meta` in a map, as reading it in one would have made it.
    pub(crate) fn into_map(self) -> Map<String, Value> {
        map_of(&self.text)
    }
}

impl Read {
    fn of(text: &str) -> Option<Self> {
        if nests_deeper_than(text.as_bytes(), MAX_DEPTH) {
            return None;
        }
        let keys = serde_json::from_str::<Keys<'_>>(text).ok()?;
        let version = match keys.version? {
            crate::protocol::PROTOCOL_VERSION => Cow::Borrowed(crate::protocol::PROTOCOL_VERSION),
            other => Cow::Owned(other.to_owned()),
        };
        Some(Self {
            version,
            capabilities: keys.capabilities?,
            progress_token: keys.progress_token,
            log_level: keys.log_level,
            client_info: keys.client_info.map(bounded_client_info),
        })
    }
}

/// The map of a `_meta` text that [`CallMeta::read`] has read. It read as an object within
/// [`MAX_DEPTH`], so it reads again as one; were it not to, the map would be empty.
pub(crate) fn map_of(text: &str) -> Map<String, Value> {
    serde_json::from_str(text).unwrap_or_default()
}

/// The standard keys of a `_meta` object.
#[derive(Default)]
struct Keys<'a> {
    version: Option<&'a str>,
    capabilities: Option<ClientCapabilities>,
    progress_token: Option<ProgressToken>,
    log_level: Option<LoggingLevel>,
    client_info: Option<Implementation>,
}

/// Each standard key, as a bit of the keys seen.
const VERSION: u8 = 1;
const CAPABILITIES: u8 = 2;
const PROGRESS_TOKEN: u8 = 4;
const LOG_LEVEL: u8 = 8;
const CLIENT_INFO: u8 = 16;

impl<'de> Deserialize<'de> for Keys<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(KeysVisitor)
    }
}

struct KeysVisitor;

impl<'de> Visitor<'de> for KeysVisitor {
    type Value = Keys<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a `_meta` object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys<'de>, A::Error> {
        let mut keys = Keys::default();
        let mut seen = 0;
        while let Some(key) = map.next_key::<&'de str>()? {
            let bit = match key {
                META_PROTOCOL_VERSION => VERSION,
                META_CLIENT_CAPABILITIES => CAPABILITIES,
                META_PROGRESS_TOKEN => PROGRESS_TOKEN,
                META_LOG_LEVEL => LOG_LEVEL,
                META_CLIENT_INFO => CLIENT_INFO,
                META_TRACEPARENT | META_TRACESTATE | META_BAGGAGE => {
                    return Err(A::Error::custom("trace context is read from the map"));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            if seen & bit != 0 {
                return Err(A::Error::custom("a standard key sent twice"));
            }
            seen |= bit;
            match bit {
                VERSION => keys.version = Some(map.next_value()?),
                CAPABILITIES => keys.capabilities = Some(map.next_value()?),
                PROGRESS_TOKEN => {
                    let token = map.next_value::<Value>()?;
                    if !is_valid_id(&token) {
                        return Err(A::Error::custom("not a progress token"));
                    }
                    keys.progress_token = ProgressToken::deserialize(&token).ok();
                }
                LOG_LEVEL => keys.log_level = Some(map.next_value()?),
                _ => keys.client_info = Some(map.next_value()?),
            }
        }
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(meta: &Value) -> Option<CallMeta> {
        CallMeta::read(&RawValue::from_string(meta.to_string()).unwrap())
    }

    fn usual() -> Value {
        json!({
            META_PROTOCOL_VERSION: "2026-07-28",
            META_CLIENT_CAPABILITIES: {"elicitation": {"form": {}}, "roots": {"listChanged": true}},
        })
    }

    #[test]
    fn the_usual_shape_is_read_as_a_map_would_give_it() {
        let mut meta = usual();
        meta["progressToken"] = json!(7);
        meta[META_LOG_LEVEL] = json!("debug");
        meta[META_CLIENT_INFO] = json!({"name": "client", "version": "1"});
        meta["vendor/key"] = json!({"kept": [1, 2]});
        let read = read(&meta).unwrap();
        let again = self::read(&meta).unwrap();
        assert_eq!(read.read.capabilities, again.read.capabilities);
        // Read again, the remembered text is shared, not copied.
        assert!(Arc::ptr_eq(&read.text, &again.text));
        let (read, text) = (Arc::clone(&read.read), read.text);
        assert_eq!(read.version, "2026-07-28");
        assert!(matches!(read.version, Cow::Borrowed(_)));
        let capabilities: ClientCapabilities =
            serde_json::from_value(meta[META_CLIENT_CAPABILITIES].clone()).unwrap();
        assert_eq!(read.capabilities, capabilities);
        assert_eq!(read.progress_token, Some(ProgressToken::Number(7.into())));
        assert_eq!(read.log_level, Some(LoggingLevel::Debug));
        assert_eq!(read.client_info, Some(Implementation::new("client", "1")));
        assert_eq!(Value::Object(map_of(&text)), meta);
    }

    #[test]
    fn another_version_is_kept_for_the_error() {
        let mut meta = usual();
        meta[META_PROTOCOL_VERSION] = json!("2025-11-25");
        assert_eq!(read(&meta).unwrap().read.version, "2025-11-25");
    }

    #[test]
    fn other_shapes_are_left_to_the_map() {
        let cases = [
            json!([]),
            json!({META_PROTOCOL_VERSION: "2026-07-28"}),
            json!({META_CLIENT_CAPABILITIES: {}}),
            json!({META_PROTOCOL_VERSION: 5, META_CLIENT_CAPABILITIES: {}}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: []}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: null}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"elicitation": 1}}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}, "progressToken": 1.5}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}, META_LOG_LEVEL: "loud"}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}, META_CLIENT_INFO: 3}),
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}, META_TRACEPARENT: "x"}),
        ];
        for meta in cases {
            assert!(read(&meta).is_none(), "{meta}");
        }
        let twice = format!(
            r#"{{"{META_PROTOCOL_VERSION}":"2026-07-28","{META_CLIENT_CAPABILITIES}":{{}},"{META_PROTOCOL_VERSION}":"2026-07-28"}}"#
        );
        assert!(CallMeta::read(&RawValue::from_string(twice).unwrap()).is_none());
        let escaped = format!(
            r#"{{"{META_PROTOCOL_VERSION}":"2026-07-2\u0038","{META_CLIENT_CAPABILITIES}":{{}}}}"#
        );
        assert!(CallMeta::read(&RawValue::from_string(escaped).unwrap()).is_none());
        let deep = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        let deep = format!(
            r#"{{"{META_PROTOCOL_VERSION}":"2026-07-28","{META_CLIENT_CAPABILITIES}":{{}},"x":{deep}}}"#
        );
        assert!(CallMeta::read(&RawValue::from_string(deep).unwrap()).is_none());
    }

    #[test]
    fn texts_remembered_or_not_read_as_themselves() {
        let long = "x".repeat(MAX_REMEMBERED_LEN);
        for _ in 0..2 {
            for at in 0..3 * REMEMBERED {
                let mut meta = usual();
                meta[META_PROTOCOL_VERSION] = json!(format!("v{at}"));
                meta["progressToken"] = json!(at);
                if at % 2 == 0 {
                    meta["long"] = json!(long);
                }
                let read = read(&meta).unwrap();
                assert_eq!(read.read.version, format!("v{at}"));
                assert_eq!(
                    read.read.progress_token,
                    Some(ProgressToken::Number(at.into()))
                );
                assert_eq!(Value::Object(read.into_map()), meta);
            }
        }
        let remembered = RECENT.with_borrow(|recent| recent.texts.len());
        assert_eq!(remembered, REMEMBERED);
    }

    #[test]
    fn an_unknown_key_sent_twice_keeps_its_last_value() {
        let text = format!(
            r#"{{"{META_PROTOCOL_VERSION}":"2026-07-28","{META_CLIENT_CAPABILITIES}":{{}},"k":1,"k":2}}"#
        );
        let read = CallMeta::read(&RawValue::from_string(text).unwrap()).unwrap();
        assert_eq!(read.into_map()["k"], 2);
    }
}
