//! The log's writer: lines are appended to a shared buffer, and a thread writes the buffer out
//! in batches, every [`FLUSH_EVERY`] or as soon as [`FLUSH_AT`] bytes or [`FLUSH_RECORDS`]
//! records wait.
//!
//! A request's access line is not formatted by the request: its record is moved into a queue
//! beside the buffer, and the writer thread formats the lines of a batch's records one after
//! the other, where the formatting's code and data stay in the cache, then writes them where
//! they fall among the other lines. The request's time and duration are taken when it ends;
//! its line appears at most [`FLUSH_EVERY`] later when the log is idle.
//!
//! A line or a record costs a short lock and a copy or a move: no system call and no wake-up
//! of another thread, which a channel that wakes its reader for each line costs (a futex call
//! per request, a fifth of the log's cost when measured). Memory is bounded: past
//! [`CAPACITY`] waiting bytes of lines, or records holding as many, new lines and records are
//! dropped whole and counted, and a request never waits for the terminal or the file behind
//! stderr.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::server::AccessRecord;

/// How long a line may wait for the writer thread, at most, when few are written.
pub(super) const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// Waiting bytes past which the writer thread is woken at once.
pub(super) const FLUSH_AT: usize = 64 * 1024;
/// Waiting records past which the writer thread is woken at once (about 64 KiB of lines).
pub(super) const FLUSH_RECORDS: usize = 256;
/// Waiting bytes past which new lines are dropped and counted (about 8,000 request lines),
/// and bytes held by waiting records past which new records are (about 6,000 records).
pub(super) const CAPACITY: usize = 2 * 1024 * 1024;
/// How many emptied records the writer keeps to give back to requests.
const SPARE: usize = 1024;

/// The side lines and records are written to; cloned into each layer that logs.
#[derive(Clone)]
pub(super) struct BatchWriter {
    shared: Arc<Shared>,
}

struct Shared {
    pending: Mutex<Pending>,
    /// Signalled when `FLUSH_AT` bytes or `FLUSH_RECORDS` records wait, and when the writer is
    /// asked to stop.
    ready: Condvar,
    dropped: AtomicU64,
}

#[derive(Default)]
struct Pending {
    /// Lines, whole, one after the other.
    bytes: String,
    /// Records whose lines are to be written, each with where in `bytes` its line goes.
    records: Vec<(usize, Box<AccessRecord>)>,
    /// About how many bytes `records` hold.
    record_bytes: usize,
    /// Emptied records whose lines are written, for requests to come.
    #[allow(
        clippy::vec_box,
        reason = "the boxes are what is reused: a request keeps one"
    )]
    spare: Vec<Box<AccessRecord>>,
    stopping: bool,
}

/// How the writer thread formats the lines of the records it takes, a batch at a time.
pub(super) trait RecordLines: Send + 'static {
    /// Appends the line of `record` to `line`: the batch's text as it is written out, where
    /// the line goes, with no copy of it made apart.
    fn write(&mut self, record: &AccessRecord, line: &mut String);

    /// Says that the batch's lines are all written: the spans of its records may have closed
    /// since, and what was kept about them must go.
    fn batch_written(&mut self) {}
}

impl<F: FnMut(&AccessRecord, &mut String) + Send + 'static> RecordLines for F {
    fn write(&mut self, record: &AccessRecord, line: &mut String) {
        self(record, line);
    }
}

/// Owns the writer thread: [`finish`](Self::finish) writes what waits and stops it.
pub(super) struct WriterThread {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl BatchWriter {
    /// A writer whose lines go to `out` from a thread named `name`, which formats a record's
    /// line with `format`.
    pub(super) fn spawn(
        name: &str,
        out: impl Write + Send + 'static,
        format: impl RecordLines,
    ) -> std::io::Result<(Self, WriterThread)> {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            ready: Condvar::new(),
            dropped: AtomicU64::new(0),
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || worker.run(out, format))?;
        let owner = WriterThread {
            shared: Arc::clone(&shared),
            thread: Some(thread),
        };
        Ok((Self { shared }, owner))
    }

    /// How many lines and records were dropped so far because too many waited.
    pub(super) fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Takes one whole line: queued, or dropped and counted when the buffer is full. Never
    /// blocks on the output.
    pub(super) fn push(&self, line: &str) {
        let mut pending = self.shared.lock();
        if pending.bytes.len() + line.len() > CAPACITY {
            drop(pending);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let was_below = pending.bytes.len() < FLUSH_AT;
        pending.bytes.push_str(line);
        let wake = was_below && pending.bytes.len() >= FLUSH_AT;
        drop(pending);
        if wake {
            self.shared.ready.notify_one();
        }
    }

    /// Takes the record of a request that has ended, whose line the writer thread formats
    /// after the lines taken before it: queued, or dropped and counted when the records waiting
    /// hold [`CAPACITY`] bytes.
    /// Gives back a record for a request to come: an emptied one the thread is done with, or
    /// `record` itself when it was dropped. Never blocks on the output.
    pub(super) fn push_record(&self, record: Box<AccessRecord>) -> Option<Box<AccessRecord>> {
        let size = record.size();
        let mut pending = self.shared.lock();
        if pending.record_bytes + size > CAPACITY {
            drop(pending);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return Some(record);
        }
        pending.record_bytes += size;
        let at = pending.bytes.len();
        pending.records.push((at, record));
        let wake = pending.records.len() == FLUSH_RECORDS;
        let spare = pending.spare.pop();
        drop(pending);
        if wake {
            self.shared.ready.notify_one();
        }
        spare
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer thread: takes what waits, formats its records' lines among the others and
    /// writes it all outside the lock, until told to stop.
    fn run(&self, mut out: impl Write, mut format: impl RecordLines) {
        let mut batch = String::with_capacity(FLUSH_AT);
        let mut records = Vec::new();
        // The batch with its records' lines in place, each formatted where it goes.
        let mut written = String::new();
        let mut emptied: Vec<Box<AccessRecord>> = Vec::new();
        loop {
            let stopping = {
                let mut pending = self.lock();
                if pending.bytes.len() < FLUSH_AT
                    && pending.records.len() < FLUSH_RECORDS
                    && !pending.stopping
                {
                    pending = self
                        .ready
                        .wait_timeout(pending, FLUSH_EVERY)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                std::mem::swap(&mut pending.bytes, &mut batch);
                std::mem::swap(&mut pending.records, &mut records);
                pending.record_bytes = 0;
                pending.stopping
            };
            let bytes = if records.is_empty() {
                &batch
            } else {
                let mut from = 0;
                for (at, mut record) in records.drain(..) {
                    written.push_str(&batch[from..at]);
                    from = at;
                    format.write(&record, &mut written);
                    // Outside the lock: the span a record lets go of may close, and its
                    // line is pushed.
                    if record.reusable() {
                        record.empty();
                        emptied.push(record);
                    }
                }
                written.push_str(&batch[from..]);
                format.batch_written();
                // Given back before the lines are out, for requests to reuse.
                let mut pending = self.lock();
                let room = SPARE.saturating_sub(pending.spare.len()).min(emptied.len());
                pending.spare.extend(emptied.drain(..room));
                drop(pending);
                emptied.clear();
                &written
            };
            if !bytes.is_empty() {
                // Nothing to tell if the output fails: the log is where it would be told.
                let _ = out.write_all(bytes.as_bytes()).and_then(|()| out.flush());
            }
            batch.clear();
            batch.shrink_to(CAPACITY / 4);
            written.clear();
            written.shrink_to(CAPACITY / 4);
            // A record let go of may have closed a span, whose line waits, and requests may
            // still end: what waits is written before the thread stops.
            if stopping {
                let pending = self.lock();
                if pending.bytes.is_empty() && pending.records.is_empty() {
                    return;
                }
            }
        }
    }
}

impl WriterThread {
    /// Writes what waits and stops the thread, waiting for it up to `patience` (an output
    /// nobody reads must not hold the process at exit).
    pub(super) fn finish(mut self, patience: Duration) {
        self.shared.lock().stopping = true;
        self.shared.ready.notify_one();
        let Some(thread) = self.thread.take() else {
            return;
        };
        let deadline = std::time::Instant::now() + patience;
        while !thread.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Where the writer thread puts the lines, for the test to read.
    #[derive(Clone, Default)]
    pub(in crate::cli) struct Captured(pub(in crate::cli) Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// An output that says when a write starts, holds it until the test lets it go, and keeps
    /// what it got.
    struct Held {
        entered: mpsc::Sender<()>,
        gate: mpsc::Receiver<()>,
        got: Arc<Mutex<Vec<u8>>>,
    }

    impl Held {
        fn new(got: &Arc<Mutex<Vec<u8>>>) -> (Self, mpsc::Receiver<()>, mpsc::Sender<()>) {
            let (entered, writing) = mpsc::channel();
            let (open, gate) = mpsc::channel();
            let got = Arc::clone(got);
            (Self { entered, gate, got }, writing, open)
        }
    }

    impl Write for Held {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let _ = self.entered.send(());
            let _ = self.gate.recv();
            self.got.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_past_the_capacity_are_dropped_and_counted_without_waiting_for_the_output() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (out, writing, open) = Held::new(&got);
        let (writer, thread) = BatchWriter::spawn("log-test", out, |_: &_, _: &mut _| {}).unwrap();
        let line = format!("{}\n", "x".repeat(1023));
        // The first batch is taken by the thread, which then waits on the held output; the
        // rest fill the buffer to its capacity, and what does not fit is dropped.
        writer.push(&line);
        writing.recv().unwrap();
        let lines = CAPACITY / line.len() + 100;
        for _ in 0..lines {
            writer.push(&line);
        }
        assert_eq!(writer.dropped(), 100);
        drop(open);
        thread.finish(Duration::from_secs(5));
        let written = got.lock().unwrap().len();
        assert_eq!(written, (lines + 1 - 100) * line.len());
    }

    #[test]
    fn a_few_lines_are_written_within_the_flush_interval_and_at_finish() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (out, _writing, open) = Held::new(&got);
        for _ in 0..16 {
            open.send(()).unwrap();
        }
        let (writer, thread) = BatchWriter::spawn("log-test", out, |_: &_, _: &mut _| {}).unwrap();
        writer.push("one\n");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while got.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(&*got.lock().unwrap(), b"one\n");
        writer.push("two\n");
        thread.finish(Duration::from_secs(5));
        assert_eq!(&*got.lock().unwrap(), b"one\ntwo\n");
        assert_eq!(writer.dropped(), 0);
    }

    /// A record whose line is its method.
    fn record(method: &str) -> Box<AccessRecord> {
        let trace = crate::server::TraceContext::default();
        AccessRecord::start(method, "1", true, false, trace)
    }

    fn method_line(record: &AccessRecord, line: &mut String) {
        line.push_str(record.method());
        line.push('\n');
    }

    #[test]
    fn records_past_their_capacity_are_dropped_counted_and_given_back_without_waiting() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (out, writing, open) = Held::new(&got);
        let (writer, thread) = BatchWriter::spawn("log-test", out, method_line).unwrap();
        // The thread takes the first line and waits on the held output; the records wait
        // behind it, up to their capacity.
        writer.push("first\n");
        writing.recv().unwrap();
        // Numbers of up to four digits: their records are all the same size.
        let fit = CAPACITY / record("0").size();
        for n in 0..fit + 100 {
            let given_back = writer.push_record(record(&n.to_string()));
            let dropped = n >= fit;
            assert_eq!(given_back.is_some(), dropped, "record {n}");
            if let Some(record) = given_back {
                assert_eq!(record.method(), n.to_string(), "the dropped record itself");
            }
        }
        assert_eq!(writer.dropped(), 100);
        drop(open);
        thread.finish(Duration::from_secs(5));
        let got = String::from_utf8(got.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = got.lines().collect();
        assert_eq!(lines.len(), 1 + fit);
        assert_eq!(lines[0], "first");
        assert!(
            lines[1..]
                .iter()
                .enumerate()
                .all(|(n, line)| *line == n.to_string())
        );
    }

    #[test]
    fn records_holding_the_capacity_in_bytes_are_dropped_and_counted() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (out, writing, open) = Held::new(&got);
        let (writer, thread) = BatchWriter::spawn("log-test", out, method_line).unwrap();
        writer.push("first\n");
        writing.recv().unwrap();
        // Each record holds a 64 KiB baggage: few fit.
        let big = || {
            let trace = crate::server::TraceContext {
                baggage: Some("k=v".repeat(64 * 1024 / 3)),
                ..crate::server::TraceContext::default()
            };
            AccessRecord::start("big", "1", true, false, trace)
        };
        let size = big().size();
        let fit = CAPACITY / size;
        for n in 0..fit + 10 {
            assert_eq!(writer.push_record(big()).is_some(), n >= fit, "record {n}");
        }
        assert_eq!(writer.dropped(), 10);
        drop(open);
        thread.finish(Duration::from_secs(5));
        let lines = got.lock().unwrap().split(|&b| b == b'\n').count() - 1;
        assert_eq!(lines, 1 + fit);
    }

    #[test]
    fn record_lines_fall_in_order_among_the_other_lines_and_all_are_written_at_finish() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (writer, thread) =
            BatchWriter::spawn("log-test", Captured(Arc::clone(&got)), method_line).unwrap();
        // Enough for several batches, some taken while lines are still pushed.
        let mut expected = String::new();
        for n in 0..3 * FLUSH_RECORDS {
            writer.push(&format!("line {n}\n"));
            if let Some(spare) = writer.push_record(record(&format!("record {n}"))) {
                assert!(spare.parent.is_none(), "an emptied record is given back");
            }
            expected.push_str(&format!("line {n}\nrecord {n}\n"));
        }
        thread.finish(Duration::from_secs(5));
        assert_eq!(
            String::from_utf8(got.lock().unwrap().clone()).unwrap(),
            expected
        );
    }

    #[test]
    fn a_record_line_is_written_within_the_flush_interval_when_idle() {
        let got = Arc::new(Mutex::new(Vec::new()));
        let (writer, thread) =
            BatchWriter::spawn("log-test", Captured(Arc::clone(&got)), method_line).unwrap();
        writer.push_record(record("alone"));
        // Ten times the interval, for a loaded machine.
        let deadline = std::time::Instant::now() + 10 * FLUSH_EVERY;
        while got.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(&*got.lock().unwrap(), b"alone\n");
        thread.finish(Duration::from_secs(5));
    }
}
