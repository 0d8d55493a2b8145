//! The media types a request declares and accepts: `Content-Type` and `Accept`, checked
//! before its body is read.

use std::cell::RefCell;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use super::guard::reject;
use super::head::Head;

/// The body must be declared `application/json` (parameters such as `charset` allowed).
pub(crate) fn check_content_type(head: &Head<'_>) -> Option<Response> {
    let value = head.content_type.first;
    // As nearly every client sends it: accepted without being taken apart.
    if value.is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"application/json")) {
        return None;
    }
    let content_type = value
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    if essence.eq_ignore_ascii_case("application/json") {
        None
    } else {
        Some(reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32600,
            "`Content-Type` must be `application/json`",
        ))
    }
}

/// The media ranges of the `Accept` header, without parameters (case as sent).
fn media_ranges(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|range| range.split(';').next().unwrap_or_default().trim())
        .filter(|range| !range.is_empty())
}

/// Whether a media range of the `Accept` header is one of `wanted` (ASCII case ignored);
/// `None` when the header names no range.
fn accepts_any(headers: &HeaderMap, wanted: &[&str]) -> Option<bool> {
    let mut ranges = media_ranges(headers).peekable();
    ranges.peek()?;
    Some(ranges.any(|range| wanted.iter().any(|want| range.eq_ignore_ascii_case(want))))
}

/// A client that sends `Accept` must accept JSON answers: `None` when it does not (answer
/// [`not_acceptable`]). Without an `Accept` header, anything goes. Otherwise says whether the
/// client accepts an event stream, from the same one pass over the header.
///
/// A client sends the same `Accept` text on every request, so each thread remembers the
/// verdict on its last [`ACCEPT_REMEMBERED`] texts (one header of at most
/// [`ACCEPT_REMEMBERED_LEN`] bytes each); equal texts get equal verdicts.
pub(crate) fn check_accept(head: &Head<'_>) -> Option<bool> {
    let headers = head.headers;
    let text = match head.accept.single() {
        Ok(Some(text)) => text.as_bytes(),
        // No range: anything goes, and no event stream.
        Ok(None) => return Some(false),
        Err(()) => return judge_accept(headers),
    };
    if text.len() > ACCEPT_REMEMBERED_LEN {
        return judge_accept(headers);
    }
    RECENT_ACCEPT.with_borrow_mut(|recent| {
        if let Some((_, verdict)) = recent.texts.iter().find(|(seen, _)| **seen == *text) {
            return *verdict;
        }
        let verdict = judge_accept(headers);
        let entry = (Box::from(text), verdict);
        if recent.texts.len() < ACCEPT_REMEMBERED {
            recent.texts.push(entry);
        } else {
            recent.texts[recent.next] = entry;
            recent.next = (recent.next + 1) % ACCEPT_REMEMBERED;
        }
        verdict
    })
}

/// How many `Accept` texts each thread remembers the verdict on.
const ACCEPT_REMEMBERED: usize = 4;
/// The longest `Accept` text remembered, in bytes; longer ones are read each time.
const ACCEPT_REMEMBERED_LEN: usize = 128;

thread_local! {
    /// The last few `Accept` texts judged on this thread, with their verdicts: at most
    /// [`ACCEPT_REMEMBERED`] texts of [`ACCEPT_REMEMBERED_LEN`] bytes a thread.
    static RECENT_ACCEPT: RefCell<RecentAccept> =
        const { RefCell::new(RecentAccept { texts: Vec::new(), next: 0 }) };
}

struct RecentAccept {
    texts: Vec<(Box<[u8]>, Option<bool>)>,
    /// The one to replace next, once all are taken.
    next: usize,
}

/// [`check_accept`]'s verdict, read from the header's media ranges.
fn judge_accept(headers: &HeaderMap) -> Option<bool> {
    const JSON: [&str; 3] = ["application/json", "application/*", "*/*"];
    const EVENT_STREAM: [&str; 3] = ["text/event-stream", "text/*", "*/*"];
    let (mut any, mut json, mut event_stream) = (false, false, false);
    for range in media_ranges(headers) {
        any = true;
        json |= JSON.iter().any(|want| range.eq_ignore_ascii_case(want));
        event_stream |= EVENT_STREAM
            .iter()
            .any(|want| range.eq_ignore_ascii_case(want));
    }
    (json || !any).then_some(event_stream)
}

/// The answer to a client whose `Accept` header leaves out JSON: `406`.
pub(crate) fn not_acceptable() -> Response {
    reject(
        StatusCode::NOT_ACCEPTABLE,
        -32600,
        "`Accept` must include `application/json`",
    )
}

/// Whether the client accepts an event stream (required for progress notifications).
pub(crate) fn accepts_event_stream(headers: &HeaderMap) -> bool {
    accepts_any(headers, &["text/event-stream", "text/*", "*/*"]).unwrap_or(false)
}
#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn accept_ranges_are_parsed_with_parameters_and_wildcards() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream;q=0.9, Application/JSON"),
        );
        assert_eq!(check_accept(&Head::read(&headers)), Some(true));
        assert!(accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert_eq!(check_accept(&Head::read(&headers)), None);
        assert!(!accepts_event_stream(&headers));
        headers.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        assert!(
            check_accept(&Head::read(&headers)) == Some(true) && accepts_event_stream(&headers)
        );
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(check_accept(&Head::read(&headers)), Some(false));
        headers.remove(header::ACCEPT);
        assert_eq!(check_accept(&Head::read(&headers)), Some(false));
        assert!(!accepts_event_stream(&headers));
    }

    /// Texts judged in turn, more of them than a thread remembers, and again: each time the
    /// verdict of reading the header afresh.
    #[test]
    fn remembered_accept_verdicts_match_reading_the_header() {
        let long = format!(
            "text/html, {}application/json",
            " ".repeat(ACCEPT_REMEMBERED_LEN)
        );
        let texts = [
            "application/json, text/event-stream",
            "text/html",
            "application/json",
            "TEXT/*;q=0.5, application/*",
            "text/event-stream",
            "*/*",
            long.as_str(),
        ];
        for _ in 0..3 {
            for text in texts {
                let mut headers = HeaderMap::new();
                headers.insert(header::ACCEPT, HeaderValue::from_str(text).unwrap());
                assert_eq!(
                    check_accept(&Head::read(&headers)),
                    judge_accept(&headers),
                    "{text}"
                );
            }
        }
        let mut both = HeaderMap::new();
        both.append(header::ACCEPT, HeaderValue::from_static("text/html"));
        both.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(check_accept(&Head::read(&both)), Some(false));
    }

    #[test]
    fn content_type_parameters_are_ignored() {
        let mut headers = HeaderMap::new();
        assert!(check_content_type(&Head::read(&headers)).is_some());
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        assert!(check_content_type(&Head::read(&headers)).is_none());
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        assert!(check_content_type(&Head::read(&headers)).is_some());
        // The bare type, in any case, and with spaces around it.
        for accepted in ["application/json", "Application/JSON", " application/json "] {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(accepted));
            assert!(
                check_content_type(&Head::read(&headers)).is_none(),
                "{accepted}"
            );
        }
        for refused in ["application/jsonx", "application/json-seq", "application"] {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(refused));
            assert!(
                check_content_type(&Head::read(&headers)).is_some(),
                "{refused}"
            );
        }
    }
}
