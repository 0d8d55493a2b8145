//! The scopes the access lines show before each request: the spans a request began in, from
//! the root, written once for many lines. Looking a span up through the registry and writing
//! its scope costs about 2,000 instructions; a kept scope costs a look-up in a map.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tracing::Span;
use tracing::span::Id;
use tracing_subscriber::Registry;
use tracing_subscriber::registry::LookupSpan as _;

use super::log_layer::LineFormat;
use crate::server::AccessRecord;

/// How many scopes [`Scopes`] keeps written, at most, of each kind: past this many, the scope
/// of each further span's request is written again for each of its lines.
pub(super) const KEPT_SCOPES: usize = 1024;

/// How long a connection's scope is kept written, at most: a field recorded meanwhile on a
/// span it is in (none of the server's spans records one after it begins) shows from then on.
const CONNECTION_SCOPE_FOR: Duration = Duration::from_secs(1);

/// The scopes written for the writer thread's access lines.
///
/// A connection's span, which its requests' records share with it, is kept written from
/// batch to batch while the connection lasts (rewritten every [`CONNECTION_SCOPE_FOR`]): with
/// a request of each of 32 connections in flight, a batch taken every 50 ms may hold only a
/// few requests of each. Any other span is kept written within a batch, by its id: a batch's
/// records all hold their spans from before the batch is taken, so within a batch an id is
/// one span; those are forgotten when the batch is written, before spans may close and their
/// ids be given to new ones.
pub(super) struct Scopes {
    /// How many of each kind are kept at most: [`KEPT_SCOPES`].
    kept: usize,
    /// Connections' scopes, by the address of what a connection shares with its records.
    connections: HashMap<usize, ConnectionScope, foldhash::fast::RandomState>,
    /// Other spans' ids, each with where its scope is in `texts`.
    spans: HashMap<u64, usize, foldhash::fast::RandomState>,
    /// The scopes of `spans` written in this batch (the first `spans.len()`; one more for a
    /// span not kept), and emptied ones from batches before, whose room is written into again.
    texts: Vec<String>,
}

/// A connection's scope as [`LineFormat::write_scope`] writes it, and until when it is kept.
struct ConnectionScope {
    /// What the connection shares with its requests' records: while it is held, even weakly,
    /// no other connection's is at its address, so the address names this connection.
    span: Weak<Span>,
    scope: String,
    /// [`CONNECTION_SCOPE_FOR`] after it was written: a comparison a line, where the time
    /// since it was written took a subtraction of two clock readings.
    fresh_until: Instant,
}

impl Scopes {
    /// No scope written yet; at most `kept` of each kind to be kept.
    pub(super) fn keeping(kept: usize) -> Self {
        Self {
            kept,
            connections: HashMap::default(),
            spans: HashMap::default(),
            texts: Vec::new(),
        }
    }

    /// The scope `record`'s line shows before the request, which began in the span `id`,
    /// written in `lines`' format; `now` is the batch's time.
    pub(super) fn of(
        &mut self,
        lines: &LineFormat,
        record: &AccessRecord,
        id: &Id,
        now: Instant,
    ) -> &str {
        if let Some(span) = record.connection()
            && (self.connections.len() < self.kept || self.connections.contains_key(&address(span)))
        {
            return self.connection(lines, span, now);
        }
        let at = match self.spans.get(&id.into_u64()) {
            Some(&at) => return &self.texts[at],
            None => self.spans.len(),
        };
        if at == self.texts.len() {
            self.texts.push(String::new());
        }
        let scope = &mut self.texts[at];
        scope.clear();
        write(lines, &record.parent, scope);
        if at < self.kept {
            self.spans.insert(id.into_u64(), at);
        }
        &self.texts[at]
    }

    /// The scope of `span`, a connection's, kept written.
    fn connection(&mut self, lines: &LineFormat, span: &Arc<Span>, now: Instant) -> &str {
        let kept = match self.connections.entry(address(span)) {
            Entry::Occupied(entry) => {
                let kept = entry.into_mut();
                if now < kept.fresh_until {
                    return &kept.scope;
                }
                kept
            }
            Entry::Vacant(entry) => entry.insert(ConnectionScope {
                span: Arc::downgrade(span),
                scope: String::new(),
                fresh_until: now,
            }),
        };
        kept.scope.clear();
        kept.fresh_until = now + CONNECTION_SCOPE_FOR;
        write(lines, span, &mut kept.scope);
        &kept.scope
    }

    /// Forgets what may not outlast the batch written: the spans kept by id, and the
    /// connections whose span has closed.
    pub(super) fn batch_written(&mut self) {
        self.spans.clear();
        // Kept for their room, as many as a batch used, each of no more than a line's room.
        self.texts.truncate(self.kept);
        self.texts.retain(|text| text.capacity() <= 64 * 1024);
        self.connections
            .retain(|_, connection| connection.span.strong_count() > 0);
    }
}

/// The address of what a connection shares with its requests' records.
fn address(span: &Arc<Span>) -> usize {
    Arc::as_ptr(span) as usize
}

/// Writes the scope of `span` into `scope`, in `lines`' format.
fn write(lines: &LineFormat, span: &Span, scope: &mut String) {
    span.with_subscriber(|(id, dispatch)| {
        let span = dispatch.downcast_ref::<Registry>()?.span(id)?;
        lines.write_scope(scope, span.scope());
        Some(())
    });
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;
    use crate::cli::LogFormat;
    use crate::cli::log_layer::LogLayer;
    use crate::cli::log_writer::BatchWriter;
    use crate::server::TraceContext;

    /// Runs `test` under a subscriber whose spans keep their fields as the log's do.
    fn with_log_layer(test: impl FnOnce()) {
        let (writer, thread) =
            BatchWriter::spawn("scopes-test", std::io::sink(), |_: &_, _: &mut _| {}).unwrap();
        let layer = LogLayer::new(writer, LogFormat::Human, false);
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), test);
        thread.finish(Duration::from_secs(5));
    }

    /// A request's record, begun in `connection`.
    fn record(connection: &Arc<Span>) -> Box<AccessRecord> {
        let mut record = AccessRecord::start("ping", "1", true, false, TraceContext::default());
        record.began_in_connection(Arc::clone(connection));
        record
    }

    /// A connection's scope is kept from batch to batch for a second, then written again;
    /// once the connection's span is let go of, it is forgotten.
    #[test]
    fn a_connections_scope_is_kept_across_batches_for_a_second() {
        let lines = LineFormat {
            format: LogFormat::Human,
            colours: false,
        };
        with_log_layer(|| {
            let outer = tracing::info_span!("app", phase = tracing::field::Empty);
            let connection = Arc::new(outer.in_scope(|| tracing::info_span!("connection")));
            let id = connection.id().unwrap();
            let mut scopes = Scopes::keeping(KEPT_SCOPES);
            let now = Instant::now();
            let first = record(&connection);
            assert_eq!(scopes.of(&lines, &first, &id, now), "app{}:connection{}:");
            scopes.batch_written();
            // Recorded since: not shown until the scope is written again.
            outer.record("phase", "up");
            let second = record(&connection);
            assert_eq!(scopes.of(&lines, &second, &id, now), "app{}:connection{}:");
            let later = now + CONNECTION_SCOPE_FOR;
            assert_eq!(
                scopes.of(&lines, &second, &id, later),
                r#"app{phase="up"}:connection{}:"#
            );
            drop((first, second));
            scopes.batch_written();
            assert_eq!(scopes.connections.len(), 1, "the connection still holds it");
            drop(connection);
            scopes.batch_written();
            assert!(scopes.connections.is_empty());
        });
    }

    /// Past the connections kept, a further connection's scope is still its own.
    #[test]
    fn a_connection_past_those_kept_shows_its_own_scope() {
        let lines = LineFormat {
            format: LogFormat::Human,
            colours: false,
        };
        with_log_layer(|| {
            let mut scopes = Scopes::keeping(1);
            let now = Instant::now();
            // As in a batch, the records hold their spans until it is written.
            let mut batch = Vec::new();
            for _ in 0..2 {
                for peer in ["one", "two", "three"] {
                    let connection = Arc::new(tracing::info_span!("connection", peer));
                    let id = connection.id().unwrap();
                    let record = record(&connection);
                    let scope = scopes.of(&lines, &record, &id, now);
                    assert_eq!(scope, format!(r#"connection{{peer="{peer}"}}:"#));
                    batch.push(record);
                }
            }
        });
    }
}
