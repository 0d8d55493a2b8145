//! The log of [`ServerBuilder::run`](crate::server::ServerBuilder::run): stderr, through a
//! bounded buffer and a writer thread, so that a request never waits for the terminal or the
//! file behind it.

use super::LogFormat;
use super::access_line::spawn;
use super::log_writer::{BatchWriter, WriterThread};

/// Logs to stderr in `log_format`, filtered by `RUST_LOG` (default `info`): events, and a line
/// when a span closes, so each request's span (method, target, round, outcome, ...) and each
/// connection's span are written once they end; in colour only at a terminal, unless
/// `NO_COLOR` is set. Does nothing if a subscriber is already installed.
///
/// A request never waits for stderr: lines are appended to a buffer that a thread writes out
/// in batches (every 50 ms, or as soon as 64 KiB or 256 request lines wait). A request's own
/// line is formatted by that thread, from the record the request hands over when it ends
/// (its time and duration taken then, from the monotonic clock alone, which the writer dates
/// with the system clock read once a batch): it appears within 50 ms, among the other lines in
/// the order they were written. The spans a connection's requests began in are written once
/// a second for their lines: a field recorded on a span around the connection's shows on them
/// within a second. So is the line of each round a call on a legacy session runs in
/// process, from a copy of the call's record handed over as the round ends: the call's
/// `request` span with a `round` span inside it, before the call's own line. A connection's closing line follows its requests' lines, so it
/// may come after the lines of requests that ended a moment later on other connections. When
/// stderr falls [`LOG_BUFFER_BYTES`] behind, in lines or in requests' records, new lines are
/// dropped, counted, and the count is logged as a warning once the writer catches up (at most
/// every ten seconds) and when the returned guard drops. Keep the guard until the program
/// ends: dropping it writes what is buffered.
pub fn init_logging(log_format: LogFormat) -> LogGuard {
    use std::io::IsTerminal as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let colours = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let Ok((layer, writer, thread)) = spawn("mcp-log", std::io::stderr(), log_format, colours)
    else {
        // No thread to write with: log nothing rather than block requests on stderr.
        return LogGuard { installed: false };
    };
    let installed = tracing_subscriber::registry()
        .with(filter)
        .with(layer.clone())
        .try_init();
    // An error only means a subscriber is already set: keep it, and write nothing ourselves.
    if installed.is_err() {
        thread.finish(std::time::Duration::ZERO);
        return LogGuard { installed: false };
    }
    // Requests keep a record of their own, written as a line by the layer, not a span.
    crate::server::install_access_log(Box::new(layer));
    let reporter = writer.clone();
    let _ = std::thread::Builder::new()
        .name("mcp-log-drops".into())
        .spawn(move || {
            let mut reported = 0;
            loop {
                std::thread::sleep(std::time::Duration::from_secs(10));
                reported = report_dropped(&reporter, reported);
            }
        });
    *LOG_WRITER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((thread, writer));
    LogGuard { installed: true }
}

/// How many bytes of log lines wait for stderr at most (about 8,000 request lines); beyond,
/// new lines are dropped and counted.
pub const LOG_BUFFER_BYTES: usize = super::log_writer::CAPACITY;

/// The log's writer thread and its writer (which counts dropped lines), once [`init_logging`]
/// installs them; taken to flush at exit, also when the command line fails.
static LOG_WRITER: std::sync::Mutex<Option<(WriterThread, BatchWriter)>> =
    std::sync::Mutex::new(None);

/// Keeps the log's writer thread: dropped, it logs how many lines were dropped, if any, and
/// writes the lines still buffered (for up to a second). From [`init_logging`].
#[must_use = "dropping the guard stops the log's writer"]
#[derive(Debug)]
pub struct LogGuard {
    installed: bool,
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if self.installed {
            flush_log();
        }
    }
}

/// Logs how many lines were dropped in all, if any, then writes what the log has buffered (for
/// up to a second). The count goes through the buffer too: were it written to stderr here, a
/// stderr nobody reads would hold the process at exit.
pub(super) fn flush_log() {
    let taken = LOG_WRITER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some((thread, writer)) = taken {
        let total = writer.dropped();
        if total > 0 {
            tracing::warn!(total, "log lines were dropped: stderr did not keep up");
        }
        thread.finish(std::time::Duration::from_secs(1));
    }
}

/// Logs a warning if more lines were dropped than `reported`; returns the count now.
fn report_dropped(writer: &BatchWriter, reported: u64) -> u64 {
    let now = writer.dropped();
    if now > reported {
        tracing::warn!(
            dropped = now - reported,
            total = now,
            "the log fell behind: lines were dropped"
        );
    }
    now
}
