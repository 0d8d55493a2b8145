//! Capturing what the server logs, for tests that check a log line.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};

/// What a test subscriber wrote, shared with its writer.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far, as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

impl io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Captures everything logged on this thread (the tests run on a current-thread runtime, so
/// the server's work happens here too) as plain text, until the guard drops.
pub(crate) fn capture() -> (tracing::subscriber::DefaultGuard, Captured) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .finish();
    (tracing::subscriber::set_default(subscriber), captured)
}

/// Runs the tests that take it one at a time: log callsites and rate limits are process-wide,
/// so one test's first use of a callsite or its count could race another's subscriber.
pub(crate) async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SERIAL.lock().await
}
