//! An answer's body as hyper writes it: a JSON answer's bytes as dispatch serialised them,
//! handed to hyper without a copy, a box or a shared buffer around them; anything else (an
//! event stream, a refusal) as axum's [`Body`].

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use hyper::body::{Buf, Frame, SizeHint};

use super::connection::Busy;

/// The body of an answer the transport builds.
pub(crate) enum Reply {
    /// A whole answer, until hyper takes it (`None` then, and for an empty one).
    Whole(Option<Vec<u8>>),
    /// Any other body.
    Body(Body),
}

impl Reply {
    /// `bytes` as the whole body; none when empty, as axum's body of empty bytes.
    pub(super) fn whole(bytes: Vec<u8>) -> Self {
        Self::Whole(Some(bytes).filter(|bytes| !bytes.is_empty()))
    }

    /// The body as axum's, for the router.
    pub(super) fn into_body(self) -> Body {
        match self {
            Self::Whole(Some(bytes)) => Body::from(bytes),
            Self::Whole(None) => Body::empty(),
            Self::Body(body) => body,
        }
    }
}

impl From<Body> for Reply {
    fn from(body: Body) -> Self {
        Self::Body(body)
    }
}

/// A piece of an answer as hyper writes it: a whole answer's own bytes, or a frame of any
/// other body.
pub(crate) enum Chunk {
    Whole { bytes: Vec<u8>, written: usize },
    Shared(Bytes),
}

impl Buf for Chunk {
    fn remaining(&self) -> usize {
        match self {
            Self::Whole { bytes, written } => bytes.len() - written,
            Self::Shared(bytes) => bytes.remaining(),
        }
    }

    fn chunk(&self) -> &[u8] {
        match self {
            Self::Whole { bytes, written } => &bytes[*written..],
            Self::Shared(bytes) => bytes.chunk(),
        }
    }

    fn advance(&mut self, count: usize) {
        match self {
            Self::Whole { bytes, written } => {
                assert!(
                    count <= bytes.len() - *written,
                    "advanced past the end of an answer"
                );
                *written += count;
            }
            Self::Shared(bytes) => bytes.advance(count),
        }
    }
}

/// An answer's body, keeping its connection busy until hyper has written it all (and
/// dropped it), however long an event stream lasts.
pub(super) struct Tracked {
    body: Reply,
    _busy: Busy,
}

impl Tracked {
    pub(super) fn new(body: Reply, busy: Busy) -> Self {
        Self { body, _busy: busy }
    }
}

impl hyper::body::Body for Tracked {
    type Data = Chunk;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Chunk>, axum::Error>>> {
        match &mut self.get_mut().body {
            Reply::Whole(whole) => Poll::Ready(
                whole
                    .take()
                    .map(|bytes| Ok(Frame::data(Chunk::Whole { bytes, written: 0 }))),
            ),
            Reply::Body(body) => Pin::new(body)
                .poll_frame(cx)
                .map(|frame| frame.map(|frame| frame.map(|frame| frame.map_data(Chunk::Shared)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.body {
            Reply::Whole(whole) => whole.is_none(),
            Reply::Body(body) => body.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.body {
            Reply::Whole(whole) => SizeHint::with_exact(whole.as_ref().map_or(0, Vec::len) as u64),
            Reply::Body(body) => body.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use http_body_util::BodyExt;

    use super::*;
    use crate::transport::connection::{Activity, Timeouts};

    fn tracked(body: Reply) -> Tracked {
        let activity = Arc::new(Activity::new(Timeouts {
            header: std::time::Duration::from_secs(10),
            idle: std::time::Duration::from_secs(60),
            write: std::time::Duration::from_secs(30),
        }));
        Tracked::new(body, activity.begin().0)
    }

    #[tokio::test]
    async fn a_whole_answer_is_one_frame_of_its_bytes_with_its_exact_length() {
        let mut body = tracked(Reply::whole(b"{\"id\":1}".to_vec()));
        assert_eq!(hyper::body::Body::size_hint(&body).exact(), Some(8));
        assert!(!hyper::body::Body::is_end_stream(&body));
        let mut chunk = body
            .frame()
            .await
            .unwrap()
            .unwrap()
            .into_data()
            .ok()
            .unwrap();
        assert!(hyper::body::Body::is_end_stream(&body));
        assert_eq!(hyper::body::Body::size_hint(&body).exact(), Some(0));
        assert!(body.frame().await.is_none());
        assert_eq!((chunk.remaining(), chunk.chunk()), (8, &b"{\"id\":1}"[..]));
        chunk.advance(3);
        assert_eq!((chunk.remaining(), chunk.chunk()), (5, &b"d\":1}"[..]));
        chunk.advance(5);
        assert_eq!(chunk.remaining(), 0);
    }

    #[tokio::test]
    async fn an_empty_answer_ends_before_any_frame_as_axums_empty_body_does() {
        let body = tracked(Reply::whole(Vec::new()));
        assert!(hyper::body::Body::is_end_stream(&body));
        assert_eq!(
            hyper::body::Body::is_end_stream(&Body::from(Vec::<u8>::new())),
            hyper::body::Body::is_end_stream(&body)
        );
        assert!(body.collect().await.unwrap().to_bytes().is_empty());
    }

    #[tokio::test]
    async fn another_body_passes_its_frames_through() {
        let body = tracked(Reply::from(Body::from("event")));
        let collected = body.collect().await.unwrap().aggregate();
        assert_eq!(collected.chunk(), b"event");
        let routed = Reply::whole(b"[1]".to_vec()).into_body();
        assert_eq!(&routed.collect().await.unwrap().to_bytes()[..], b"[1]");
    }
}
