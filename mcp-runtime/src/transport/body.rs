//! Reading a request body: bounded in size and nesting, kept as it arrived when it came in one
//! piece.

use std::pin::pin;

use axum::body::Bytes;
use http_body_util::BodyExt;

use crate::server::NestingScan;

/// Why a request body could not be read.
pub(super) enum BodyError {
    TooLarge,
    /// Nested deeper than the server allows: refused before the rest arrives.
    TooDeep,
    Unreadable(Box<dyn std::error::Error + Send + Sync>),
}

/// The first allocation for a body that arrives in more than one frame, when its length is
/// declared: clients may declare more than they send.
const FIRST_BODY_ALLOCATION: u64 = 64 * 1024;

/// Reads a whole body of at most `limit` bytes. A body that arrives in one frame (a small one
/// usually does) is kept as that frame, not copied. Otherwise each frame is copied into one
/// buffer as it arrives and dropped: a frame is a slice of the connection's read buffer, and
/// keeping thousands of one-byte chunks as frames would keep thousands of read buffers alive.
/// A body that nests deeper than `depth` is refused as soon as that shows.
///
/// Nesting is first bounded by counting the opening brackets, strings included: a message
/// cannot nest deeper than it has brackets, and most have a handful. Only a body with more
/// than `depth` of them is scanned bracket by bracket ([`NestingScan`]), from its first byte.
pub(super) async fn read_body<B>(
    body: B,
    limit: usize,
    declared: Option<u64>,
    depth: usize,
) -> Result<Bytes, BodyError>
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut body = pin!(body);
    // The first frame, kept whole until a second one arrives.
    let mut first: Option<Bytes> = None;
    let mut bytes = Vec::new();
    // Opening brackets so far, until there are more than `depth`; then the exact scan.
    let mut opening = 0;
    let mut nesting: Option<NestingScan> = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| BodyError::Unreadable(error.into()))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let held = first.as_ref().map_or(0, Bytes::len);
        let needed = held + bytes.len() + data.len();
        if needed > limit {
            return Err(BodyError::TooLarge);
        }
        let deeper = match nesting.as_mut() {
            Some(scan) => scan.exceeds(&data, depth),
            None => {
                opening += opening_brackets(&data);
                opening > depth && {
                    // Everything held so far is in `first`, or else in `bytes`.
                    let held = first.as_deref().unwrap_or(&bytes);
                    let scan = nesting.insert(NestingScan::default());
                    scan.exceeds(held, depth) || scan.exceeds(&data, depth)
                }
            }
        };
        if deeper {
            return Err(BodyError::TooDeep);
        }
        let ended = body.is_end_stream();
        if first.is_none() && bytes.is_empty() {
            first = Some(data);
        } else {
            if needed > bytes.capacity() {
                let declared =
                    declared.map_or(0, |length| length.min(FIRST_BODY_ALLOCATION) as usize);
                // Doubling, but never past the limit.
                let target = needed.max(bytes.capacity() * 2).max(declared).min(limit);
                bytes.reserve_exact(target - bytes.len());
            }
            if let Some(first) = first.take() {
                bytes.extend_from_slice(&first);
            }
            bytes.extend_from_slice(&data);
        }
        // A body whose declared length has all arrived is not polled again: that poll would
        // wait for hyper to close the body's channel, and its wake poll the connection's task
        // once more.
        if ended {
            break;
        }
    }
    Ok(first.unwrap_or_else(|| Bytes::from(bytes)))
}

/// How many `[` and `{` bytes `bytes` holds, in strings or not. Counted in runs of 255 into
/// a byte each, which the compiler turns into a few vector instructions per 16 bytes.
fn opening_brackets(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|run| {
            // `[` and `{` differ in one bit only (0x5b, 0x7b).
            let count = run
                .iter()
                .fold(0u8, |count, &byte| count + u8::from((byte | 0x20) == b'{'));
            usize::from(count)
        })
        .sum()
}

/// Whether a message is a request (it has a `method` and an `id`), which needs a request
/// slot; responses and notifications do not. Malformed messages count as requests.
pub(super) fn is_request(message: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        method: Option<serde::de::IgnoredAny>,
        id: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(message)
        .map_or(true, |probe| probe.method.is_some() && probe.id.is_some())
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::future::Future as _;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use hyper::body::{Body, Frame};

    use super::*;

    /// A body that hands over the given frames, one per poll.
    struct Frames(VecDeque<Bytes>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            Poll::Ready(self.0.pop_front().map(|data| Ok(Frame::data(data))))
        }
    }

    async fn read_frames(frames: &[&'static str], limit: usize) -> Result<Bytes, BodyError> {
        let frames = frames
            .iter()
            .map(|frame| Bytes::from_static(frame.as_bytes()));
        read_body(Frames(frames.collect()), limit, None, 4).await
    }

    #[tokio::test]
    async fn a_body_in_one_frame_is_that_frame_and_one_in_several_is_joined() {
        let whole = r#"{"a":[1]}"#;
        let Ok(read) = read_frames(&[whole], 100).await else {
            panic!("a small body is read")
        };
        assert_eq!(read.as_ptr(), whole.as_ptr(), "not copied");
        let Ok(read) = read_frames(&[r#"{"a""#, r#":[1"#, "]}"], 100).await else {
            panic!("a body in pieces is read")
        };
        assert_eq!(read, whole.as_bytes());
        assert!(matches!(read_frames(&[], 100).await, Ok(read) if read.is_empty()));
    }

    /// Hands over its frames, then says it has ended, as hyper's body does once its declared
    /// length has arrived; polled again, it waits (for the channel to close).
    struct Declared(VecDeque<Bytes>);

    impl Body for Declared {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            match self.0.pop_front() {
                Some(data) => Poll::Ready(Some(Ok(Frame::data(data)))),
                None => Poll::Pending,
            }
        }

        fn is_end_stream(&self) -> bool {
            self.0.is_empty()
        }
    }

    #[test]
    fn a_body_that_has_ended_is_not_polled_again() {
        for frames in [&["[1,2]"][..], &["[1,", "2]"]] {
            let frames = frames
                .iter()
                .map(|frame| Bytes::from_static(frame.as_bytes()));
            let read = read_body(Declared(frames.collect()), 100, Some(5), 4);
            let mut read = std::pin::pin!(read);
            let mut cx = Context::from_waker(std::task::Waker::noop());
            let Poll::Ready(Ok(read)) = read.as_mut().poll(&mut cx) else {
                panic!("a body whose length has arrived is read in one poll")
            };
            assert_eq!(&read[..], b"[1,2]");
        }
    }

    #[tokio::test]
    async fn limits_count_every_frame_the_first_included() {
        assert!(matches!(
            read_frames(&["{\"a\":", "[1]}"], 8).await,
            Err(BodyError::TooLarge)
        ));
        assert!(read_frames(&["{\"a\":", "[1]}"], 9).await.is_ok());
        assert!(matches!(
            read_frames(&["[[[", "[[]]]]]"], 100).await,
            Err(BodyError::TooDeep)
        ));
    }

    #[tokio::test]
    async fn brackets_are_counted_first_and_scanned_only_past_the_limit() {
        // More brackets than the limit, all in strings: scanned, and read.
        let quoted = r#"{"a":"[[[[[[","b":"{{{{"}"#;
        assert!(read_frames(&[quoted], 100).await.is_ok());
        assert_eq!(opening_brackets(quoted.as_bytes()), 11);
        // The count passes the limit in a later frame: the scan starts from the first byte,
        // then follows frame by frame.
        assert!(matches!(
            read_frames(&["[\"[[\",", "[[", "[", "[1]]]]]"], 100).await,
            Err(BodyError::TooDeep)
        ));
        assert!(
            read_frames(&["[\"[[\",", "[[", "[", "1]]]]"], 100)
                .await
                .is_ok()
        );
        // Past 255 bytes, runs are counted apart and added.
        let long = "[".repeat(600);
        assert_eq!(opening_brackets(long.as_bytes()), 600);
        assert_eq!(opening_brackets(b"{x[y]z}"), 2);
    }
}
