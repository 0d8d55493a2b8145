//! Calls a client may cancel by request id with `notifications/cancelled`: those running on
//! one stdio connection, and those of one legacy session.
//!
//! Over HTTP the client cancels a call by closing its connection, which drops the call's
//! future; over stdio there is no per-request stream to close, so the notification names the
//! request instead. A cancelled call is dropped where it waits (its handler stops at its
//! current await) and gets no answer, as the revisions ask.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::oneshot;

use super::Outcome;
use super::handler::BoxFuture;

/// The running calls of one connection or session, by request id (an integer, or the JSON
/// text of any other id).
///
/// Entries are removed when their call ends, whichever way; a client reusing the id of a
/// running call replaces the first entry (the first call then can no longer be cancelled),
/// and the first call's end leaves the second's entry in place.
#[derive(Debug, Default)]
pub(crate) struct Cancellable {
    calls: Mutex<Calls>,
}

#[derive(Debug, Default)]
struct Calls {
    /// Hashed with `foldhash` (seeded per process), not SipHash: the ids are the client's, but
    /// an HTTP session's calls are capped, and a stdio client is the process that started us.
    by_id: HashMap<Key, Entry, foldhash::fast::RandomState>,
    next_generation: u64,
}

#[derive(Debug)]
struct Entry {
    generation: u64,
    cancel: oneshot::Sender<()>,
}

impl Cancellable {
    fn calls(&self) -> std::sync::MutexGuard<'_, Calls> {
        // Every critical section is one map operation: the data stays consistent.
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a running call under its request `id`; dropping the registration removes it.
    pub(crate) fn register(self: &Arc<Self>, id: &Value) -> Registration {
        let key = Key::of(id);
        let (cancel, cancelled) = oneshot::channel();
        let mut calls = self.calls();
        let generation = calls.next_generation;
        calls.next_generation += 1;
        calls
            .by_id
            .insert(key.clone(), Entry { generation, cancel });
        drop(calls);
        Registration {
            owner: Arc::clone(self),
            key,
            generation,
            cancelled: Some(cancelled),
        }
    }

    /// Cancels the running call with request id `id`; whether there was one.
    pub(crate) fn cancel(&self, id: &Value) -> bool {
        let entry = self.calls().by_id.remove(&Key::of(id));
        entry.is_some_and(|entry| entry.cancel.send(()).is_ok())
    }

    /// Cancels every running call.
    pub(crate) fn cancel_all(&self) {
        for (_, entry) in self.calls().by_id.drain() {
            let _ = entry.cancel.send(());
        }
    }

    /// How many calls are registered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.calls().by_id.len()
    }
}

/// A request id as a key, so that `1` and `"1"` differ: an integer as itself (no allocation,
/// as most ids are), any other id as its JSON text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Unsigned(u64),
    /// A negative integer (a non-negative one is [`Key::Unsigned`]).
    Negative(i64),
    Text(Arc<str>),
}

impl Key {
    fn of(id: &Value) -> Self {
        if let Some(n) = id.as_u64() {
            Self::Unsigned(n)
        } else if let Some(n) = id.as_i64() {
            Self::Negative(n)
        } else {
            Self::Text(Arc::from(id.to_string()))
        }
    }
}

/// One registered call. Dropping it unregisters the call.
#[derive(Debug)]
pub(crate) struct Registration {
    owner: Arc<Cancellable>,
    key: Key,
    generation: u64,
    cancelled: Option<oneshot::Receiver<()>>,
}

impl Registration {
    /// Resolves when the client cancels the call (or its session ends); never resolves once
    /// the entry is gone otherwise (replaced by a call reusing the id).
    pub(crate) fn cancelled(&mut self) -> impl Future<Output = ()> + use<> {
        let cancelled = self.cancelled.take();
        async move {
            match cancelled {
                Some(cancelled) => {
                    // A dropped sender means the entry was replaced: not a cancellation.
                    if cancelled.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending().await,
            }
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut calls = self.owner.calls();
        // One look-up: the entry is nearly always this call's own; a later call's that reused
        // the id goes back.
        if let Some(entry) = calls.by_id.remove(&self.key)
            && entry.generation != self.generation
        {
            calls.by_id.insert(self.key.clone(), entry);
        }
    }
}

/// `call`, unless the client cancels it first: then `call` is dropped where it waits, and
/// the outcome has no answer.
pub(crate) fn until_cancelled(
    mut registration: Registration,
    call: BoxFuture<'static, Outcome>,
) -> BoxFuture<'static, Outcome> {
    let cancelled = registration.cancelled();
    Box::pin(async move {
        let _registration = registration;
        // A cancellation wins over an answer that is ready at the same time.
        tokio::select! {
            biased;
            () = cancelled => cancelled_outcome(),
            outcome = call => outcome,
        }
    })
}

/// The outcome of a cancelled call: no answer.
pub(crate) fn cancelled_outcome() -> Outcome {
    tracing::debug!("call cancelled by the client");
    Outcome::cancelled()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn calls_are_cancelled_by_id_and_leave_nothing_behind() {
        let calls = Arc::new(Cancellable::default());
        let first = calls.register(&Value::from(1));
        let running = until_cancelled(first, Box::pin(std::future::pending()));
        let mut second = calls.register(&Value::from("1"));
        assert_eq!(calls.len(), 2, "1 and \"1\" are different ids");
        let negative = calls.register(&Value::from(-7));
        assert!(!calls.cancel(&Value::from(7)));
        assert!(!calls.cancel(&Value::from("-7")));
        drop(negative);
        assert_eq!(calls.len(), 2);
        assert!(!calls.cancel(&Value::from(2)));
        assert!(calls.cancel(&Value::from(1)));
        assert_eq!(running.await.body, None);
        assert_eq!(calls.len(), 1);
        // A reused id: the newer call is the one cancelled, and the older one's end does not
        // unregister it.
        let older = calls.register(&Value::from(3));
        let mut newer = calls.register(&Value::from(3));
        drop(older);
        assert_eq!(calls.len(), 2);
        let cancelled = newer.cancelled();
        assert!(calls.cancel(&Value::from(3)));
        cancelled.await;
        drop(newer);
        let all = second.cancelled();
        calls.cancel_all();
        all.await;
        drop(second);
        assert_eq!(calls.len(), 0);
    }

    #[tokio::test]
    async fn a_cancelled_call_ends_even_when_its_id_is_reused_before_it_looks() {
        let calls = Arc::new(Cancellable::default());
        let mut first = calls.register(&Value::from(5));
        let cancelled = first.cancelled();
        assert!(calls.cancel(&Value::from(5)));
        let reused = calls.register(&Value::from(5));
        cancelled.await;
        drop(first);
        assert_eq!(calls.len(), 1, "the reusing call stays registered");
        drop(reused);
        assert_eq!(calls.len(), 0);
    }
}
