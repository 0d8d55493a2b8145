//! The log of [`ServerBuilder::run`](crate::server::ServerBuilder::run): stderr, through a
//! bounded queue and a writer thread, so that a request never waits for the terminal or the
//! file behind it.

use super::LogFormat;

/// Logs to stderr in `log_format`, filtered by `RUST_LOG` (default `info`): events, and a line
/// when a span closes, so each request's span (method, target, round, outcome, ...) and each
/// connection's span are written once they end; in colour only at a terminal, unless
/// `NO_COLOR` is set. Does nothing if a subscriber is already installed.
///
/// A request never waits for stderr: lines go through a queue of [`LOG_QUEUE_LINES`] to a
/// thread that writes them in batches. When stderr falls that far behind, new lines are
/// dropped, counted, and the count is logged as a warning once the writer catches up (at most
/// every ten seconds) and when the returned guard drops. Keep the guard until the program
/// ends: dropping it writes what is queued.
pub fn init_logging(log_format: LogFormat) -> LogGuard {
    use std::io::IsTerminal as _;
    use tracing_subscriber::fmt::format::FmtSpan;
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let colours = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LOG_QUEUE_LINES)
        .lossy(true)
        .thread_name("mcp-log")
        .finish(std::io::BufWriter::with_capacity(
            64 * 1024,
            std::io::stderr(),
        ));
    let dropped = writer.error_counter();
    // `without_time` is the only switch for `time.busy` and `time.idle` on the close lines,
    // which read the clock on every poll of every request; the event format set after it
    // brings the lines' timestamp back.
    let builder = tracing_subscriber::fmt()
        .with_writer(writer)
        .with_env_filter(filter)
        .with_ansi(colours)
        .with_span_events(FmtSpan::CLOSE)
        .without_time();
    let format = tracing_subscriber::fmt::format();
    let installed = match log_format {
        LogFormat::Human => builder.event_format(format).try_init(),
        LogFormat::Json => builder.json().event_format(format.json()).try_init(),
    };
    // An error only means a subscriber is already set: keep it, and write nothing ourselves.
    if installed.is_err() {
        return LogGuard { installed: false };
    }
    let reporter = dropped.clone();
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
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((guard, dropped));
    LogGuard { installed: true }
}

/// How many log lines wait for stderr at most (about 2 MiB of a request log); beyond, new
/// lines are dropped and counted.
pub const LOG_QUEUE_LINES: usize = 8192;

/// The log's writer thread and its count of dropped lines, once [`init_logging`] installs
/// them; taken to flush at exit, also when the command line fails.
type LogWriter = (
    tracing_appender::non_blocking::WorkerGuard,
    tracing_appender::non_blocking::ErrorCounter,
);
static LOG_WRITER: std::sync::Mutex<Option<LogWriter>> = std::sync::Mutex::new(None);

/// Keeps the log's writer thread: dropped, it logs how many lines were dropped, if any, and
/// writes the lines still queued (for up to a second). From [`init_logging`].
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

/// Logs how many lines were dropped in all, if any, then writes what the log has queued (for
/// up to a second). The count goes through the queue too: were it written to stderr here, a
/// stderr nobody reads would hold the process at exit.
pub(super) fn flush_log() {
    let taken = LOG_WRITER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    if let Some((guard, dropped)) = taken {
        let total = dropped.dropped_lines();
        if total > 0 {
            tracing::warn!(total, "log lines were dropped: stderr did not keep up");
        }
        drop(guard);
    }
}

/// Logs a warning if more lines were dropped than `reported`; returns the count now.
fn report_dropped(
    dropped: &tracing_appender::non_blocking::ErrorCounter,
    reported: usize,
) -> usize {
    let now = dropped.dropped_lines();
    if now > reported {
        tracing::warn!(
            dropped = now - reported,
            total = now,
            "the log fell behind: lines were dropped"
        );
    }
    now
}
