//! Pagination of the four lists: pages cut once per change of the registry, and opaque
//! cursors that name a page of one version of one list.
//!
//! A cursor carries the list's kind, a digest of the whole list it was cut from, and the
//! page's number, in URL-safe Base64. A cursor of a list that has changed since (an item
//! added, removed, enabled, disabled) is stale and refused with `-32602`, like one that
//! does not decode: a client never gets a page of a list mixed with a page of another. The
//! digest covers the list's content, not when it was made, so instances with the same
//! registrations accept each other's cursors.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest as _, Sha256};

use crate::server::error::RpcError;

/// The four paginated lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListKind {
    Tools = 0,
    Prompts = 1,
    Resources = 2,
    Templates = 3,
}

impl ListKind {
    fn method(self) -> &'static str {
        match self {
            Self::Tools => "tools/list",
            Self::Prompts => "prompts/list",
            Self::Resources => "resources/list",
            Self::Templates => "resources/templates/list",
        }
    }
}

/// A list request's `cursor`, if it sent one.
pub(crate) fn cursor_of(
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<Option<&str>, RpcError> {
    match params.get("cursor") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(cursor)) => Ok(Some(cursor)),
        Some(_) => Err(RpcError::invalid_params("`cursor` must be a string")),
    }
}

/// The bytes of a cursor: kind, digest, page number.
const CURSOR_BYTES: usize = 1 + DIGEST_BYTES + 4;
const DIGEST_BYTES: usize = 8;

/// One list, cut into pages, each serialised as a whole result in the 2026-07-28 shape and
/// in the older one (without `resultType`, `ttlMs` and `cacheScope`).
pub(crate) struct Listing {
    kind: ListKind,
    digest: [u8; DIGEST_BYTES],
    modern: Vec<String>,
    legacy: Vec<String>,
}

impl Listing {
    /// Cuts `items` into pages of `page_size` (one page when `None`); `page` serialises the
    /// result of one page's items and its `nextCursor`.
    pub(crate) fn new<T: Clone + serde::Serialize>(
        kind: ListKind,
        items: &[T],
        page_size: Option<usize>,
        page: impl Fn(Vec<T>, Option<String>) -> String,
    ) -> Self {
        let whole = serde_json::to_vec(items).expect("list items serialise");
        let mut digest = [0; DIGEST_BYTES];
        digest.copy_from_slice(&Sha256::digest(&whole)[..DIGEST_BYTES]);
        let size = page_size.unwrap_or(usize::MAX).max(1);
        let chunks: Vec<&[T]> = if items.is_empty() {
            vec![&[]]
        } else {
            items.chunks(size).collect()
        };
        let last = chunks.len() - 1;
        let modern: Vec<String> = chunks
            .iter()
            .enumerate()
            .map(|(number, chunk)| {
                let next = (number < last).then(|| cursor(kind, &digest, number + 1));
                page(chunk.to_vec(), next)
            })
            .collect();
        let legacy = modern.iter().map(|page| older_shape(page)).collect();
        Self {
            kind,
            digest,
            modern,
            legacy,
        }
    }

    /// The page `cursor` names (the first without one), serialised for `legacy` sessions or
    /// for 2026-07-28; `-32602` for a cursor that does not name a page of this list as it is.
    pub(crate) fn page(&self, cursor: Option<&str>, legacy: bool) -> Result<&str, RpcError> {
        let number = match cursor {
            None => 0,
            Some(cursor) => self.number(cursor)?,
        };
        let pages = if legacy { &self.legacy } else { &self.modern };
        Ok(&pages[number])
    }

    fn number(&self, cursor: &str) -> Result<usize, RpcError> {
        let method = self.kind.method();
        let invalid = || {
            RpcError::invalid_params(format!(
                "invalid `cursor` for `{method}`: send a `nextCursor` this server gave, or none"
            ))
        };
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
        if bytes.len() != CURSOR_BYTES || bytes[0] != self.kind as u8 {
            return Err(invalid());
        }
        let number = u32::from_be_bytes(bytes[1 + DIGEST_BYTES..].try_into().expect("4 bytes"));
        let number = usize::try_from(number).map_err(|_| invalid())?;
        if bytes[1..=DIGEST_BYTES] != self.digest || number >= self.modern.len() {
            return Err(RpcError::invalid_params(format!(
                "stale `cursor` for `{method}`: the list changed since it was given; list again \
                 from the start, without a cursor"
            )));
        }
        Ok(number)
    }

    /// How many pages the list has.
    #[cfg(test)]
    pub(crate) fn pages(&self) -> usize {
        self.modern.len()
    }
}

fn cursor(kind: ListKind, digest: &[u8; DIGEST_BYTES], number: usize) -> String {
    let mut bytes = Vec::with_capacity(CURSOR_BYTES);
    bytes.push(kind as u8);
    bytes.extend_from_slice(digest);
    let number = u32::try_from(number).unwrap_or(u32::MAX);
    bytes.extend_from_slice(&number.to_be_bytes());
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A page as a legacy session gets it: without the members only 2026-07-28 has, and without
/// the server's identity in `_meta`, which those revisions give at `initialize`.
fn older_shape(page: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(page).expect("a page parses");
    let mut value = crate::server::lifecycle::legacy_result(&value).expect("a page serialises");
    if let Some(object) = value.as_object_mut() {
        let meta = object
            .get_mut("_meta")
            .and_then(serde_json::Value::as_object_mut);
        if let Some(meta) = meta {
            meta.remove(crate::protocol::meta::META_SERVER_INFO);
            if meta.is_empty() {
                object.remove("_meta");
            }
        }
    }
    serde_json::to_string(&value).expect("a page serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(items: &[&str], size: Option<usize>) -> Listing {
        Listing::new(ListKind::Tools, items, size, |items, next| {
            serde_json::json!({ "resultType": "complete", "tools": items, "nextCursor": next })
                .to_string()
        })
    }

    fn next_of(page: &str) -> Option<String> {
        let value: serde_json::Value = serde_json::from_str(page).unwrap();
        value["nextCursor"].as_str().map(str::to_owned)
    }

    #[test]
    fn pages_chain_by_cursor_and_cover_the_list_once() {
        let list = listing(&["a", "b", "c", "d", "e"], Some(2));
        assert_eq!(list.pages(), 3);
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = list.page(cursor.as_deref(), false).unwrap();
            let value: serde_json::Value = serde_json::from_str(page).unwrap();
            for item in value["tools"].as_array().unwrap() {
                seen.push(item.as_str().unwrap().to_owned());
            }
            cursor = next_of(page);
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(seen, ["a", "b", "c", "d", "e"]);
        assert!(!list.page(None, true).unwrap().contains("resultType"));
    }

    #[test]
    fn no_page_size_is_one_page_and_an_empty_list_has_one_empty_page() {
        assert_eq!(listing(&["a", "b", "c"], None).pages(), 1);
        let empty = listing(&[], Some(2));
        assert_eq!(empty.pages(), 1);
        assert_eq!(next_of(empty.page(None, false).unwrap()), None);
    }

    #[test]
    fn foreign_garbled_and_stale_cursors_are_invalid_params() {
        let list = listing(&["a", "b", "c"], Some(1));
        let second = next_of(list.page(None, false).unwrap()).unwrap();
        for bad in ["", "!!!", "AAAA"] {
            let error = list.page(Some(bad), false).unwrap_err();
            assert_eq!(error.code(), -32602, "{bad}");
            assert!(error.error.message.contains("invalid `cursor`"), "{bad}");
        }
        let changed = listing(&["a", "x", "c"], Some(1));
        let error = changed.page(Some(&second), false).unwrap_err();
        assert_eq!(error.code(), -32602);
        assert!(
            error.error.message.contains("stale"),
            "{}",
            error.error.message
        );
        let prompts = Listing::new(ListKind::Prompts, &["a", "b", "c"], Some(1), |_, next| {
            serde_json::json!({ "nextCursor": next }).to_string()
        });
        assert!(prompts.page(Some(&second), false).is_err());
        // The same content cut again (another instance, say) accepts the cursor.
        let again = listing(&["a", "b", "c"], Some(1));
        assert!(again.page(Some(&second), false).unwrap().contains(r#""b""#));
    }
}
