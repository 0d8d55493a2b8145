//! Where a signer reads the time: the system clock, or a clock a test moves by hand.

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A source of the current time for minting and checking expiry.
///
/// Expiry has a resolution of one second. Servers behind a load balancer verify each other's
/// states, so their clocks must agree to well within the time-to-live.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
}

/// The system's wall clock, [`SystemTime::now`]. The default.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that stands still until told to move; for tests.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mcp_runtime::state::{BindingContext, ManualClock, Signer, StateError};
///
/// let clock = Arc::new(ManualClock::from_unix_secs(1_800_000_000));
/// let signer = Signer::new(1, &[7u8; 32])?
///     .with_ttl(Duration::from_secs(60))
///     .with_clock(clock.clone());
/// let cx = BindingContext::new("tools/call", "deploy");
/// let token = signer.sign(&cx, b"state");
///
/// clock.advance(Duration::from_secs(59));
/// assert!(signer.verify(&cx, &token).is_ok());
/// clock.advance(Duration::from_secs(1));
/// assert_eq!(signer.verify(&cx, &token), Err(StateError::Expired));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ManualClock {
    now: Mutex<SystemTime>,
}

impl ManualClock {
    /// A clock showing `now`.
    pub fn new(now: SystemTime) -> Self {
        Self {
            now: Mutex::new(now),
        }
    }

    /// A clock showing `secs` seconds after the Unix epoch.
    pub fn from_unix_secs(secs: u64) -> Self {
        Self::new(UNIX_EPOCH + Duration::from_secs(secs))
    }

    /// Moves the clock forward by `by`; a move past the latest time the platform can represent
    /// leaves the clock where it is.
    pub fn advance(&self, by: Duration) {
        let mut now = self.lock();
        if let Some(later) = now.checked_add(by) {
            *now = later;
        }
    }

    /// Sets the clock to `to`, forward or back.
    pub fn set(&self, to: SystemTime) {
        *self.lock() = to;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SystemTime> {
        // A panic while holding this lock cannot leave the time half-written.
        self.now
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        *self.lock()
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManualClock")
            .field("now", &self.now())
            .finish()
    }
}

/// Whole seconds since the Unix epoch; times before it count as zero.
pub(super) fn unix_secs(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::from_unix_secs(100);
        assert_eq!(unix_secs(clock.now()), 100);
        clock.advance(Duration::from_millis(2500));
        assert_eq!(unix_secs(clock.now()), 102);
        // A move past the representable range leaves the clock where it was.
        clock.advance(Duration::MAX);
        assert_eq!(unix_secs(clock.now()), 102);
        clock.set(UNIX_EPOCH - Duration::from_secs(5));
        assert_eq!(unix_secs(clock.now()), 0);
    }
}
