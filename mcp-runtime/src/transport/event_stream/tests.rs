//! The event stream's tests: its events and keep-alive comments, and its gate.

mod stream {
    use futures_core::Stream as _;

    use super::super::*;
    use crate::server::message_channel;

    const TICK: Duration = Duration::from_millis(1);

    /// A request's stream whose call never ends, and the sender of its messages.
    fn stream() -> (EventStream, impl Fn(serde_json::Value)) {
        let (sender, receiver) = message_channel();
        let stream = EventStream::new(
            None,
            Some(receiver),
            Some(Box::pin(std::future::pending())),
            spare_gate(),
        );
        let send = move |message: serde_json::Value| sender.send(message.into()).unwrap();
        (stream, send)
    }

    fn next(stream: Pin<&mut EventStream>) -> Poll<Option<Bytes>> {
        let mut cx = Context::from_waker(std::task::Waker::noop());
        stream
            .poll_next(&mut cx)
            .map(|item| item.map(|event| event.unwrap()))
    }

    fn keepalive() -> Poll<Option<Bytes>> {
        Poll::Ready(Some(Bytes::from_static(b": keep-alive\n\n")))
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_stream_comments_a_whole_period_after_it_last_sent_anything() {
        let (stream, send) = stream();
        let mut stream = std::pin::pin!(stream);
        assert!(next(stream.as_mut()).is_pending());
        tokio::time::advance(KEEPALIVE - TICK).await;
        assert!(next(stream.as_mut()).is_pending());
        // A message just before the comment is due: the comment waits a period after it.
        send(serde_json::json!({"jsonrpc": "2.0", "method": "m"}));
        assert_eq!(
            next(stream.as_mut()),
            Poll::Ready(Some(Bytes::from_static(
                b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"
            )))
        );
        assert!(next(stream.as_mut()).is_pending());
        tokio::time::advance(KEEPALIVE - TICK).await;
        assert!(next(stream.as_mut()).is_pending());
        tokio::time::advance(TICK).await;
        assert_eq!(next(stream.as_mut()), keepalive());
        // And one a period after that comment, not before.
        assert!(next(stream.as_mut()).is_pending());
        tokio::time::advance(KEEPALIVE - TICK).await;
        assert!(next(stream.as_mut()).is_pending());
        tokio::time::advance(TICK).await;
        assert_eq!(next(stream.as_mut()), keepalive());
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_that_never_idles_sets_no_timer_and_ends_after_its_answer() {
        let (sender, receiver) = message_channel();
        sender
            .send(serde_json::json!({"jsonrpc": "2.0", "method": "m"}).into())
            .unwrap();
        let outcome = Outcome::answer(200, b"{}".to_vec());
        let stream = EventStream::new(
            None,
            Some(receiver),
            Some(Box::pin(std::future::ready(outcome))),
            spare_gate(),
        );
        let mut stream = std::pin::pin!(stream);
        assert!(matches!(next(stream.as_mut()), Poll::Ready(Some(_))));
        assert_eq!(
            next(stream.as_mut()),
            Poll::Ready(Some(Bytes::from_static(b"event: message\ndata: {}\n\n")))
        );
        assert_eq!(next(stream.as_mut()), Poll::Ready(None));
        assert!(stream.keepalive.timer.is_none());
    }

    #[tokio::test]
    async fn messages_a_call_sends_as_it_ends_go_out_before_its_answer() {
        let (sender, receiver) = message_channel();
        let mut sender = Some(sender);
        let ending = std::future::poll_fn(move |_| {
            let sender = sender.take().unwrap();
            for n in 1..=2 {
                sender.send(serde_json::Value::from(n).into()).unwrap();
            }
            Poll::Ready(Outcome::answer(200, b"{}".to_vec()))
        });
        let stream = EventStream::new(None, Some(receiver), Some(Box::pin(ending)), spare_gate());
        let mut stream = std::pin::pin!(stream);
        for data in ["1", "2", "{}"] {
            let event = format!("event: message\ndata: {data}\n\n");
            assert_eq!(next(stream.as_mut()), Poll::Ready(Some(Bytes::from(event))));
        }
        assert_eq!(next(stream.as_mut()), Poll::Ready(None));
    }
}

mod gate {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::task::Waker;

    use futures_core::Stream as _;

    use super::super::*;
    use crate::server::message_channel;

    /// A call as its stream sees it: how often it was polled, the waker of its last poll (kept
    /// once it is over, if `keeps_waker`), and whether it is over.
    #[derive(Default)]
    struct Call {
        polls: AtomicUsize,
        waker: Mutex<Option<Waker>>,
        done: AtomicBool,
        keeps_waker: AtomicBool,
    }

    impl Call {
        fn future(self: &Arc<Self>) -> BoxFuture<'static, Outcome> {
            let call = Arc::clone(self);
            Box::pin(std::future::poll_fn(move |cx| {
                call.polls.fetch_add(1, Ordering::SeqCst);
                let mut waker = call.waker.lock().unwrap();
                *waker = Some(cx.waker().clone());
                if !call.done.load(Ordering::SeqCst) {
                    return Poll::Pending;
                }
                if !call.keeps_waker.load(Ordering::SeqCst) {
                    *waker = None;
                }
                Poll::Ready(Outcome::answer(200, b"{}".to_vec()))
            }))
        }

        fn polls(&self) -> usize {
            self.polls.load(Ordering::SeqCst)
        }

        fn end(&self) {
            self.done.store(true, Ordering::SeqCst);
            let waker = self.waker.lock().unwrap().clone();
            waker.unwrap().wake();
        }
    }

    fn next(stream: Pin<&mut EventStream>) -> Poll<Option<Bytes>> {
        let mut cx = Context::from_waker(Waker::noop());
        stream
            .poll_next(&mut cx)
            .map(|item| item.map(|event| event.unwrap()))
    }

    fn spare_gates() -> usize {
        SPARE_GATES.with(|spare| spare.borrow().len())
    }

    fn answer() -> Poll<Option<Bytes>> {
        Poll::Ready(Some(Bytes::from_static(b"event: message\ndata: {}\n\n")))
    }

    #[tokio::test]
    async fn a_waiting_call_is_polled_only_when_something_woke_the_stream() {
        let (sender, receiver) = message_channel();
        let call = Arc::new(Call::default());
        let mut stream = std::pin::pin!(EventStream::new(
            None,
            Some(receiver),
            Some(call.future()),
            spare_gate()
        ));
        assert!(next(stream.as_mut()).is_pending());
        assert_eq!(call.polls(), 1);
        // The connection is polled for other reasons (a request arrives, a body is read): the
        // call is not.
        for _ in 0..10 {
            assert!(next(stream.as_mut()).is_pending());
        }
        assert_eq!(call.polls(), 1);
        // A message sent wakes the stream: it goes out, and then the stream waits again.
        sender
            .send(serde_json::json!({"jsonrpc": "2.0", "method": "m"}).into())
            .unwrap();
        assert!(matches!(next(stream.as_mut()), Poll::Ready(Some(_))));
        assert!(next(stream.as_mut()).is_pending());
        let polls = call.polls();
        assert!(next(stream.as_mut()).is_pending());
        assert_eq!(call.polls(), polls);
        // The call's own wake: it is polled, once, and its answer goes out.
        drop(sender);
        call.end();
        assert_eq!(next(stream.as_mut()), answer());
        assert_eq!(next(stream.as_mut()), Poll::Ready(None));
        assert_eq!(call.polls(), polls + 1);
    }

    /// A stream of `call`, polled until its call is over and its answer out.
    fn answered(call: &Arc<Call>) -> Pin<Box<EventStream>> {
        let (sender, receiver) = message_channel();
        let mut stream = Box::pin(EventStream::new(
            None,
            Some(receiver),
            Some(call.future()),
            spare_gate(),
        ));
        assert!(next(stream.as_mut()).is_pending());
        drop(sender);
        call.end();
        assert_eq!(next(stream.as_mut()), answer());
        stream
    }

    #[tokio::test]
    async fn a_stream_keeps_its_gate_for_the_next_only_when_nothing_else_holds_its_waker() {
        SPARE_GATES.with(|spare| spare.borrow_mut().clear());
        let mut stream = answered(&Arc::default());
        assert_eq!(spare_gates(), 1);
        assert_eq!(next(stream.as_mut()), Poll::Ready(None));
        // The next stream takes it; its call keeps a waker after its end, so it is not kept.
        let call = Arc::new(Call::default());
        call.keeps_waker.store(true, Ordering::SeqCst);
        let mut stream = answered(&call);
        assert_eq!(spare_gates(), 0);
        assert_eq!(next(stream.as_mut()), Poll::Ready(None));
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_that_asked_is_polled_again_only_when_it_is_woken() {
        let (sender, receiver) = message_channel();
        let call = Arc::new(Call::default());
        let mut waiting = call.future();
        // The call asks its question as it starts, and keeps its sender, as a legacy call does.
        let mut asked = false;
        let asking = Box::pin(std::future::poll_fn(move |cx| {
            if !std::mem::replace(&mut asked, true) {
                let question = serde_json::json!({"id": 0, "method": "elicitation/create"});
                sender.send(question.into()).unwrap();
            }
            waiting.as_mut().poll(cx)
        }));
        let headers = Arc::new(HeaderMap::new());
        let response = respond_streaming(asking, receiver, None, headers).await;
        let Reply::Body(mut body) = response.into_body() else {
            panic!("a question makes an event stream");
        };
        let mut frame = || {
            let mut cx = Context::from_waker(Waker::noop());
            hyper::body::Body::poll_frame(Pin::new(&mut body), &mut cx)
                .map(|frame| frame.map(|frame| frame.unwrap().into_data().unwrap()))
        };
        assert!(matches!(frame(), Poll::Ready(Some(_))), "the question");
        // Polled as often as its connection is, the stream does not poll the call.
        for _ in 0..10 {
            assert!(frame().is_pending());
        }
        assert_eq!(call.polls(), 1);
        // Idle, the stream comments a period after the question (asking the call on the way).
        tokio::time::advance(KEEPALIVE).await;
        let keepalive = Bytes::from_static(b": keep-alive\n\n");
        assert_eq!(frame(), Poll::Ready(Some(keepalive)));
        assert!(frame().is_pending());
        assert_eq!(call.polls(), 2);
        call.end();
        assert_eq!(frame(), answer());
        assert_eq!(call.polls(), 3);
    }
}
