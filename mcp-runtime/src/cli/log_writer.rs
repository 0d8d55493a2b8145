//! The log's writer: lines are appended to a shared buffer, and a thread writes the buffer out
//! in batches, every [`FLUSH_EVERY`] or as soon as [`FLUSH_AT`] bytes wait.
//!
//! A request's line costs a short lock and a copy: no system call and no wake-up of another
//! thread, which a channel that wakes its reader for each line costs (a futex call per
//! request, a fifth of the log's cost when measured). Memory is bounded: past [`CAPACITY`]
//! waiting bytes, lines are dropped whole and counted, and a request never waits for the
//! terminal or the file behind stderr.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a line may wait for the writer thread, at most, when few are written.
pub(super) const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// Waiting bytes past which the writer thread is woken at once.
pub(super) const FLUSH_AT: usize = 64 * 1024;
/// Waiting bytes past which new lines are dropped and counted (about 8,000 request lines).
pub(super) const CAPACITY: usize = 2 * 1024 * 1024;

/// The side lines are written to; cloned into each layer that logs.
#[derive(Clone)]
pub(super) struct BatchWriter {
    shared: Arc<Shared>,
}

struct Shared {
    pending: Mutex<Pending>,
    /// Signalled when `FLUSH_AT` bytes wait, and when the writer is asked to stop.
    ready: Condvar,
    dropped: AtomicU64,
}

#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    stopping: bool,
}

/// Owns the writer thread: [`finish`](Self::finish) writes what waits and stops it.
pub(super) struct WriterThread {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl BatchWriter {
    /// A writer whose lines go to `out` from a thread named `name`.
    pub(super) fn spawn(
        name: &str,
        out: impl Write + Send + 'static,
    ) -> std::io::Result<(Self, WriterThread)> {
        let shared = Arc::new(Shared {
            pending: Mutex::new(Pending::default()),
            ready: Condvar::new(),
            dropped: AtomicU64::new(0),
        });
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || worker.run(out))?;
        let owner = WriterThread {
            shared: Arc::clone(&shared),
            thread: Some(thread),
        };
        Ok((Self { shared }, owner))
    }

    /// How many lines were dropped so far because too many bytes waited.
    pub(super) fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Takes one whole line: queued, or dropped and counted when the buffer is full. Never
    /// blocks on the output.
    pub(super) fn push(&self, line: &[u8]) {
        let mut pending = self.shared.lock();
        if pending.bytes.len() + line.len() > CAPACITY {
            drop(pending);
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let was_below = pending.bytes.len() < FLUSH_AT;
        pending.bytes.extend_from_slice(line);
        let wake = was_below && pending.bytes.len() >= FLUSH_AT;
        drop(pending);
        if wake {
            self.shared.ready.notify_one();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer thread: takes what waits, writes it outside the lock, until told to stop.
    fn run(&self, mut out: impl Write) {
        let mut batch = Vec::with_capacity(FLUSH_AT);
        loop {
            let stopping = {
                let mut pending = self.lock();
                if pending.bytes.len() < FLUSH_AT && !pending.stopping {
                    pending = self
                        .ready
                        .wait_timeout(pending, FLUSH_EVERY)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                std::mem::swap(&mut pending.bytes, &mut batch);
                pending.stopping
            };
            if !batch.is_empty() {
                // Nothing to tell if the output fails: the log is where it would be told.
                let _ = out.write_all(&batch).and_then(|()| out.flush());
                batch.clear();
                batch.shrink_to(CAPACITY / 4);
            }
            if stopping {
                return;
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
mod tests {
    use super::*;
    use std::sync::mpsc;

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
        let (writer, thread) = BatchWriter::spawn("log-test", out).unwrap();
        let line = [b'x'; 1023]
            .iter()
            .chain(b"\n")
            .copied()
            .collect::<Vec<u8>>();
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
        let (writer, thread) = BatchWriter::spawn("log-test", out).unwrap();
        writer.push(b"one\n");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while got.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(&*got.lock().unwrap(), b"one\n");
        writer.push(b"two\n");
        thread.finish(Duration::from_secs(5));
        assert_eq!(&*got.lock().unwrap(), b"one\ntwo\n");
        assert_eq!(writer.dropped(), 0);
    }
}
