//! The panics of handlers, read from the server's log while the explorer runs.
//!
//! The server answers a panicking handler with `-32603` and writes the panic to its log, never
//! to the client. While a round of the explorer runs, a subscriber of its own sits in front of
//! the one in place: it keeps the panic messages and hands everything on unchanged, so the
//! application's log still sees every event and span.

use std::sync::{Arc, Mutex, PoisonError};

use tracing::dispatcher::{self, Dispatch};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_core::span::Current;

/// The panic messages the server logged while a round ran.
#[derive(Clone, Default)]
pub(super) struct Panics {
    caught: Arc<Mutex<Vec<String>>>,
}

impl Panics {
    /// A dispatcher that keeps panic messages here and hands everything to the one in place
    /// now.
    pub(super) fn dispatch(&self) -> Dispatch {
        let inner = dispatcher::get_default(Dispatch::clone);
        Dispatch::new(Watch {
            inner,
            caught: self.clone(),
        })
    }

    /// The messages caught since the last call.
    pub(super) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.caught.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Whether `metadata` is the server's record of a panic: an error of the server's with a
/// `panic` field.
fn is_panic(metadata: &Metadata<'_>) -> bool {
    metadata.is_event()
        && *metadata.level() == Level::ERROR
        && metadata.target().starts_with("mcp_runtime::server")
        && metadata.fields().field("panic").is_some()
}

struct Watch {
    inner: Dispatch,
    caught: Panics,
}

impl Subscriber for Watch {
    fn register_callsite(&self, metadata: &'static Metadata<'static>) -> Interest {
        if is_panic(metadata) {
            return Interest::always();
        }
        self.inner.register_callsite(metadata)
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        is_panic(metadata) || self.inner.enabled(metadata)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        self.inner.new_span(span)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        self.inner.record(span, values);
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        self.inner.record_follows_from(span, follows);
    }

    fn event(&self, event: &Event<'_>) {
        if is_panic(event.metadata()) {
            let mut message = PanicField(None);
            event.record(&mut message);
            if let Some(message) = message.0 {
                self.caught
                    .caught
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(message);
            }
        }
        if self.inner.enabled(event.metadata()) {
            self.inner.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        self.inner.enter(span);
    }

    fn exit(&self, span: &Id) {
        self.inner.exit(span);
    }

    fn clone_span(&self, id: &Id) -> Id {
        self.inner.clone_span(id)
    }

    fn try_close(&self, id: Id) -> bool {
        self.inner.try_close(id)
    }

    fn current_span(&self) -> Current {
        self.inner.current_span()
    }
}

/// Reads the `panic` field of an event.
struct PanicField(Option<String>);

impl Visit for PanicField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "panic" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "panic" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}
