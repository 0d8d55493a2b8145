//! Log output kept in memory: a writer a `tracing_subscriber` layer clones for each line, and
//! the text it has been given so far.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Log output, shared between the subscriber that writes it and the test that reads it.
#[derive(Clone, Default)]
pub(crate) struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl LogBuffer {
    /// What was written so far; the log writes UTF-8, so anything else fails the test.
    pub(crate) fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8(bytes.clone()).expect("log output is UTF-8")
    }
}

impl Write for LogBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut buffer = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
