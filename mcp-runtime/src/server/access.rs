//! The access log's side of what a server records about each request (built with the `cli`
//! feature, whose [`init_logging`](crate::cli::init_logging) installs the log): an
//! [`AccessRecord`] the request owns, filled in as its fields become known and written as one
//! line when it ends. No `tracing` span is made, entered or closed for it.
//!
//! Nothing is recorded unless the log is installed, and then only for requests that begin
//! while its level lets `INFO` through.
//!
//! A request that ends hands its record over to the log, which formats its line later, on
//! its writer's thread, with many others in a row. The log hands back an emptied record
//! from those it wrote, which the thread keeps for a request to come (up to
//! [`SPARE_RECORDS`] a thread), so a request's record usually costs no allocation.
//!
//! A call on a legacy session runs its rounds in process, within its request: each round's
//! fields go on the request's record while the round runs ([`begin_round`]), and when it ends
//! ([`end_round`]) a copy of the record, a spare one refilled, is handed to the log as the
//! round's line (the request's fields, the round's and the time it ended), and the round's
//! fields are taken off the request's record again. No `round` span is made either.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tracing::Span;

mod connection;

pub(crate) use connection::{Parent, in_connection};

use super::Outcome;
use super::handler::BoxFuture;
use super::trace_context::TraceContext;

/// Where finished requests' records go: the log that [`init_logging`](crate::cli::init_logging)
/// installs, which writes each as a line.
pub(crate) trait AccessLog: Send + Sync {
    /// Takes the record of a request that has ended, to write its line; may give back an
    /// emptied record for a request to come.
    fn write(&self, record: Box<AccessRecord>) -> Option<Box<AccessRecord>>;
}

static ACCESS_LOG: OnceLock<Box<dyn AccessLog>> = OnceLock::new();

/// Makes `log` the access log of this process, for good; requests then keep an
/// [`AccessRecord`] rather than a span. Only the first call counts.
pub(crate) fn install_access_log(log: Box<dyn AccessLog>) {
    let _ = ACCESS_LOG.set(log);
}

/// What one request's line says, filled in as the request goes.
#[derive(Clone)]
pub(crate) struct AccessRecord {
    /// The span the request began in (its connection's), whose scope the line shows.
    pub(crate) parent: Parent,
    /// The JSON-RPC method, its id as JSON and the call's target, escaped, one after the
    /// other: one buffer, kept with the record when it is reused.
    text: String,
    /// Where the method ends in `text`.
    method_end: usize,
    /// Where the id ends in `text`; the target, if any, follows.
    id_end: usize,
    has_target: bool,
    /// Whether `text` is printable ASCII with no quote or backslash: each log format writes
    /// the method, the id and the target between quotes as they are.
    verbatim: bool,
    pub(crate) legacy: bool,
    /// The flow's round, counting from 1.
    pub(crate) round: Option<u32>,
    pub(crate) shape: Option<u32>,
    /// The flow's id, drawn at its first round and carried in its state.
    pub(crate) flow: Option<u64>,
    /// The question point the round resumed from.
    pub(crate) from: Option<u32>,
    /// The question point the round stopped at.
    pub(crate) to: Option<u32>,
    /// `decline` or `cancel`, when the round read such an answer to a question: a word of
    /// the server's, written as it is.
    pub(crate) answer: Option<&'static str>,
    pub(crate) state_bytes: Option<usize>,
    /// Whether a round of the request's call is running in process (on a legacy session):
    /// the fields from `round` to `state_bytes` are then that round's, which lines show as a
    /// `round` span inside the request. A record handed to the log with it set is a round's,
    /// whose line is that round's closing.
    pub(crate) in_round: bool,
    pub(crate) replayed: bool,
    /// The outcome's kind (empty until the request ends): a word of the server's, written as
    /// it is.
    pub(crate) outcome: &'static str,
    pub(crate) error_code: Option<i64>,
    pub(crate) trace: TraceContext,
    /// When the request began: when its head began to arrive, if its connection read the
    /// clock then ([`arrived_at`]), else when it was dispatched.
    pub(crate) started: Instant,
    /// When the request ended, set by [`finish`](Self::finish): read from the monotonic
    /// clock alone, the one clock a request reads as it ends. The log's writer turns it into
    /// the time of day, reading the system clock once a batch.
    pub(crate) ended: Instant,
}

/// How many emptied records a thread keeps for its next requests.
const SPARE_RECORDS: usize = 16;
/// The longest text buffer a record may have and still be kept.
const SPARE_TEXT_BYTES: usize = 512;

thread_local! {
    /// Records whose lines are written, emptied, for the next requests on this thread.
    #[allow(clippy::vec_box, reason = "the boxes are what is reused: a request keeps one")]
    static SPARE: RefCell<Vec<Box<AccessRecord>>> = const { RefCell::new(Vec::new()) };
}

impl AccessRecord {
    /// The record of a request that begins now, in the current span: only what is known
    /// before it is dispatched (`method` and `id` escaped already, and both `verbatim` or
    /// not). An emptied record this thread kept is reused, if there is one, and refilled in
    /// place: made whole and moved into the box, a record was copied once more.
    pub(crate) fn start(
        method: &str,
        id: &str,
        verbatim: bool,
        legacy: bool,
        trace: TraceContext,
    ) -> Box<Self> {
        let mut record = spare().unwrap_or_else(Self::blank);
        let this = &mut *record;
        this.parent = Parent::now();
        this.text.clear();
        this.text.push_str(method);
        this.method_end = this.text.len();
        this.text.push_str(id);
        this.id_end = this.text.len();
        this.has_target = false;
        this.verbatim = verbatim;
        this.legacy = legacy;
        this.clear_round();
        this.in_round = false;
        this.replayed = false;
        this.outcome = "";
        this.error_code = None;
        this.trace = trace;
        this.started = ARRIVED.take().unwrap_or_else(Instant::now);
        record
    }

    /// A new record, to be filled: made only when a thread has no spare one, and kept out of
    /// line, so that [`start`](Self::start) stays small enough to be inlined where it is called.
    #[cold]
    #[inline(never)]
    fn blank() -> Box<Self> {
        let now = Instant::now();
        Box::new(Self {
            parent: Parent::Current(Span::none()),
            text: String::new(),
            method_end: 0,
            id_end: 0,
            has_target: false,
            verbatim: false,
            legacy: false,
            round: None,
            shape: None,
            flow: None,
            from: None,
            to: None,
            answer: None,
            state_bytes: None,
            in_round: false,
            replayed: false,
            outcome: "",
            error_code: None,
            trace: TraceContext::default(),
            started: now,
            ended: now,
        })
    }

    /// The record of the round that ends now: a copy of this one, the request's, in a spare
    /// record if this thread kept one, stamped with the time.
    fn round_ended(&self) -> Box<Self> {
        reused(|mut text| {
            text.push_str(&self.text);
            Self {
                parent: self.parent.clone(),
                text,
                trace: self.trace.clone(),
                ended: Instant::now(),
                ..*self
            }
        })
    }

    /// Takes the round's fields off the record, for its next round or its own line.
    fn clear_round(&mut self) {
        self.round = None;
        self.shape = None;
        self.flow = None;
        self.from = None;
        self.to = None;
        self.answer = None;
        self.state_bytes = None;
    }

    /// The JSON-RPC method, escaped.
    pub(crate) fn method(&self) -> &str {
        &self.text[..self.method_end]
    }

    /// The JSON-RPC id as JSON, escaped.
    pub(crate) fn id(&self) -> &str {
        &self.text[self.method_end..self.id_end]
    }

    /// The call's target, escaped.
    pub(crate) fn target(&self) -> Option<&str> {
        self.has_target.then(|| &self.text[self.id_end..])
    }

    /// Whether the method, the id and the target are printable ASCII with no quote or
    /// backslash, which each log format writes between quotes as they are.
    pub(crate) fn verbatim(&self) -> bool {
        self.verbatim
    }

    /// Records the request's end: its outcome's kind, its error code and the time.
    pub(crate) fn finish(&mut self, outcome: &'static str, error_code: Option<i64>) {
        self.outcome = outcome;
        self.error_code = error_code;
        self.ended = Instant::now();
    }

    /// How long the request took, once it has ended.
    pub(crate) fn duration(&self) -> Duration {
        self.ended.saturating_duration_since(self.started)
    }

    /// Lets go of what the record holds that another request must not keep: the span it
    /// began in (a connection's span stays open while a record holds it) and its trace
    /// context.
    pub(crate) fn empty(&mut self) {
        self.parent = Parent::Current(Span::none());
        self.trace = TraceContext::default();
    }

    /// About how many bytes the record holds: itself, its text and its trace context.
    pub(crate) fn size(&self) -> usize {
        let trace = [
            &self.trace.traceparent,
            &self.trace.tracestate,
            &self.trace.baggage,
        ];
        let trace: usize = trace
            .iter()
            .map(|value| value.as_ref().map_or(0, String::capacity))
            .sum();
        size_of::<Self>() + self.text.capacity() + trace
    }

    /// The span of the connection the request began in, shared with the connection, when
    /// the connection's own code began it.
    pub(crate) fn connection(&self) -> Option<&std::sync::Arc<Span>> {
        match &self.parent {
            Parent::Connection(span) => Some(span),
            Parent::Current(_) => None,
        }
    }

    /// Makes `span` the span the request began in.
    #[cfg(test)]
    pub(crate) fn began_in(&mut self, span: Span) {
        self.parent = Parent::Current(span);
    }

    /// Makes `span`, a connection's shared with its requests, the span the request began in.
    #[cfg(test)]
    pub(crate) fn began_in_connection(&mut self, span: std::sync::Arc<Span>) {
        self.parent = Parent::Connection(span);
    }

    /// Whether the record's text is short enough for it to be kept for reuse.
    pub(crate) fn reusable(&self) -> bool {
        self.text.capacity() <= SPARE_TEXT_BYTES
    }

    /// Sets the call's target (`target` escaped already, and `verbatim` or not).
    pub(crate) fn set_target(&mut self, target: &str, verbatim: bool) {
        self.text.truncate(self.id_end);
        self.text.push_str(target);
        self.has_target = true;
        self.verbatim &= verbatim;
    }
}

/// An emptied record this thread kept, if there is one.
fn spare() -> Option<Box<AccessRecord>> {
    SPARE
        .try_with(|spare| spare.borrow_mut().pop())
        .ok()
        .flatten()
}

/// A record made by `fill`, given an empty text buffer: an emptied record this thread kept
/// and its buffer, if there is one.
fn reused(fill: impl FnOnce(String) -> AccessRecord) -> Box<AccessRecord> {
    match spare() {
        Some(mut record) => {
            let mut text = std::mem::take(&mut record.text);
            text.clear();
            *record = fill(text);
            record
        }
        None => Box::new(fill(String::new())),
    }
}

/// Keeps `record`, one the log is done with, for a request to come on this thread, if the
/// thread keeps fewer than [`SPARE_RECORDS`] and the record's text is not long. It is
/// emptied first: a kept record must not keep a connection's span open.
pub(crate) fn recycle(mut record: Box<AccessRecord>) {
    if !record.reusable() {
        return;
    }
    record.empty();
    let _ = SPARE.try_with(|spare| {
        let mut spare = spare.borrow_mut();
        if spare.len() < SPARE_RECORDS {
            spare.push(record);
        }
    });
}

thread_local! {
    /// The record of the request being dispatched or polled on this thread, if any.
    static CURRENT: Cell<Option<Box<AccessRecord>>> = const { Cell::new(None) };
    /// Whether [`CURRENT`] holds a record. Read first: a flag has no destructor for the thread
    /// to register, so reading it is a load, where `CURRENT`'s is a check of its registration
    /// and a take and a put back. When the log's level leaves request lines out, no request
    /// has a record, and each field a request records stops at it.
    static HAS_CURRENT: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on the record of the request this thread is running, if there is one.
pub(crate) fn with_current<R>(f: impl FnOnce(&mut AccessRecord) -> R) -> Option<R> {
    if !HAS_CURRENT.get() {
        return None;
    }
    CURRENT.with(|cell| {
        let mut record = cell.take();
        let result = record.as_deref_mut().map(f);
        cell.set(record);
        result
    })
}

/// Makes `record` this thread's current one; returns the one current before.
fn make_current(record: Option<Box<AccessRecord>>) -> Option<Box<AccessRecord>> {
    HAS_CURRENT.set(record.is_some());
    CURRENT.with(|cell| cell.replace(record))
}

/// While alive, `slot`'s record is this thread's current one; dropped (also in a panic), it
/// goes back to `slot`, and the record current before comes back.
pub(super) struct Entered<'a> {
    slot: &'a mut Option<Box<AccessRecord>>,
    previous: Option<Box<AccessRecord>>,
}

impl<'a> Entered<'a> {
    pub(super) fn new(slot: &'a mut Option<Box<AccessRecord>>) -> Self {
        let previous = make_current(slot.take());
        Self { slot, previous }
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        *self.slot = make_current(self.previous.take());
    }
}

thread_local! {
    /// When the head of the request being dispatched on this thread began to arrive, if its
    /// connection read the clock then: set by [`arrived_at`] for the dispatch alone, and
    /// taken by the first record started within it.
    static ARRIVED: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Runs `dispatch`, a request's whose head began to arrive at `arrived`: the record it starts
/// takes that as its start, where it would read the clock.
pub(crate) fn arrived_at<R>(arrived: Instant, dispatch: impl FnOnce() -> R) -> R {
    /// Clears [`ARRIVED`] when dropped (also in a panic): no later request takes the time.
    struct Dispatched;
    impl Drop for Dispatched {
        fn drop(&mut self) {
            ARRIVED.set(None);
        }
    }
    if !installed() {
        return dispatch();
    }
    ARRIVED.set(Some(arrived));
    let _dispatched = Dispatched;
    dispatch()
}

/// Whether the access log is installed: requests then keep an [`AccessRecord`], not a span.
pub(super) fn installed() -> bool {
    ACCESS_LOG.get().is_some()
}

/// Applies `on_record` to the current request's record, if the access log is installed;
/// says whether it is (if not, the field goes on the current span).
pub(super) fn record(on_record: impl FnOnce(&mut AccessRecord)) -> bool {
    if !installed() {
        return false;
    }
    with_current(on_record);
    true
}

/// Applies `on_record`, which sets fields of a round, to the current request's record, if
/// the access log is installed; says whether it is. A legacy call's record takes them only
/// while one of its rounds runs: they are the round's, and its own line has none.
pub(super) fn record_round(on_record: impl FnOnce(&mut AccessRecord)) -> bool {
    record(|record| {
        if record.in_round || !record.legacy {
            on_record(record);
        }
    })
}

/// Starts recording a round of the current request's call, run in process, on its record:
/// says whether there is one (the access log is installed, and the request recorded).
pub(super) fn begin_round() -> bool {
    installed()
        && with_current(|record| {
            record.clear_round();
            record.in_round = true;
        })
        .is_some()
}

/// Ends the round [`begin_round`] started: its record goes to the log, which writes its line
/// before the request's own, and its fields come off the request's record.
pub(super) fn end_round() {
    let ended = with_current(|record| {
        let ended = record.round_ended();
        record.clear_round();
        record.in_round = false;
        ended
    });
    if let (Some(ended), Some(log)) = (ended, ACCESS_LOG.get())
        && let Some(spare) = log.write(ended)
    {
        recycle(spare);
    }
}

/// A request's answer with its record: current while the answer is polled, written when it
/// is ready or dropped.
pub(super) struct Recorded {
    pub(super) record: Option<Box<AccessRecord>>,
    /// `None` once finished.
    pub(super) outcome: Option<BoxFuture<'static, Outcome>>,
}

impl Recorded {
    fn write(&mut self, outcome: &'static str, error_code: Option<i64>) {
        if let (Some(mut record), Some(log)) = (self.record.take(), ACCESS_LOG.get()) {
            record.finish(outcome, error_code);
            if let Some(spare) = log.write(record) {
                recycle(spare);
            }
        }
    }
}

impl Future for Recorded {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        // `Recorded` is `Unpin`: its future is boxed.
        let this = self.get_mut();
        let Some(outcome) = &mut this.outcome else {
            return Poll::Pending;
        };
        let polled = {
            let _entered = Entered::new(&mut this.record);
            outcome.as_mut().poll(cx)
        };
        let ready = std::task::ready!(polled);
        this.outcome = None;
        this.write(ready.kind, ready.error_code);
        Poll::Ready(ready)
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        if let Some(outcome) = self.outcome.take() {
            {
                let _entered = Entered::new(&mut self.record);
                tracing::debug!("call dropped: the client went away");
                drop(outcome);
            }
            self.write("cancelled", None);
        }
    }
}
