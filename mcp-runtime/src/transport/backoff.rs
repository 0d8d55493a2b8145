//! The pause after a failed accept (out of file descriptors, say) and the rate of its log
//! lines, for [`Server::serve_listener`](crate::server::Server::serve_listener).

use std::time::Duration;

use tokio::time::Instant;

/// The first pause after a failed accept; each failure in a row doubles it.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause after failed accepts.
const LONGEST_PAUSE: Duration = Duration::from_secs(1);
/// Failed accepts are logged at most once per this period, with the count left unlogged.
const LOG_PERIOD: Duration = Duration::from_secs(10);

/// Pauses after failed accepts (out of file descriptors, say), growing while they fail in
/// a row, and rate-limits their log lines.
#[derive(Debug, Default)]
pub(super) struct AcceptBackoff {
    pause: Duration,
    unlogged: u64,
    last_logged: Option<Instant>,
}

/// What to do about one failed accept.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Failed {
    /// How long to wait before accepting again.
    pub(super) pause: Duration,
    /// Whether to log this failure, and if so how many went unlogged since the last line.
    pub(super) log: Option<u64>,
}

impl AcceptBackoff {
    /// An accept failed at `now`.
    pub(super) fn failed(&mut self, now: Instant) -> Failed {
        self.pause = (self.pause * 2).clamp(FIRST_PAUSE, LONGEST_PAUSE);
        let due = self
            .last_logged
            .is_none_or(|last| now.saturating_duration_since(last) >= LOG_PERIOD);
        let log = if due {
            self.last_logged = Some(now);
            Some(std::mem::take(&mut self.unlogged))
        } else {
            self.unlogged += 1;
            None
        };
        Failed {
            pause: self.pause,
            log,
        }
    }

    /// An accept succeeded: the next failure pauses briefly again (its log line still waits
    /// for the period).
    pub(super) fn succeeded(&mut self) {
        self.pause = Duration::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_accepts_pause_longer_and_longer_up_to_a_bound() {
        let mut backoff = AcceptBackoff::default();
        let now = Instant::now();
        let pauses: Vec<u64> = (0..10)
            .map(|_| backoff.failed(now).pause.as_millis() as u64)
            .collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1000, 1000, 1000]);
        backoff.succeeded();
        assert_eq!(backoff.failed(now).pause, FIRST_PAUSE);
    }

    #[test]
    fn failed_accepts_are_logged_once_a_period_with_the_count_left_out() {
        let mut backoff = AcceptBackoff::default();
        let start = Instant::now();
        let mut now = start;
        let mut lines = Vec::new();
        // A minute of failures, each after the pause the previous one asked for, with a
        // success now and then.
        let mut failures = 0u64;
        while now < start + Duration::from_secs(60) {
            let failed = backoff.failed(now);
            failures += 1;
            if let Some(unlogged) = failed.log {
                lines.push(unlogged);
            }
            if failures.is_multiple_of(7) {
                backoff.succeeded();
            }
            now += failed.pause;
        }
        assert!(failures > 100, "{failures}");
        assert!((6..=7).contains(&lines.len()), "{lines:?}");
        assert_eq!(lines[0], 0);
        // Every failure is either logged or counted in the next line.
        let counted: u64 = lines.iter().sum::<u64>() + lines.len() as u64 + backoff.unlogged;
        assert_eq!(counted, failures);
    }
}
