//! The time at the start of each log line, as `tracing-subscriber`'s `SystemTime` writes it
//! (`2026-12-04T23:14:16.854412Z`: UTC, microseconds), made cheaply: the date and the second
//! are formatted once per second per thread, and each line adds only its sub-second digits.

use std::cell::RefCell;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime as _;

/// The second a thread last formatted, and its text up to the seconds (`2026-12-04T23:14:16`).
struct Cached {
    second: u64,
    prefix: String,
}

/// Appends the time `at` since the Unix epoch to `out`; the current time for `None`.
pub(super) fn write(out: &mut String, at: Option<Duration>) {
    match at {
        Some(since) => write_at(out, since),
        None => write_now(out),
    }
}

/// Appends the current time to `out`.
fn write_now(out: &mut String) {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => write_at(out, since),
        // A clock before 1970 is left to the formatter that handles it.
        Err(_) => write_slowly(out),
    }
}

/// Appends the time `since` the Unix epoch to `out`.
fn write_at(out: &mut String, since: Duration) {
    thread_local! {
        static CACHED: RefCell<Option<Cached>> = const { RefCell::new(None) };
    }
    let second = since.as_secs();
    let written = CACHED.with_borrow_mut(|cached| {
        let cached = match cached {
            Some(cached) if cached.second == second => cached,
            _ => cached.insert(Cached {
                second,
                prefix: date_and_second(second)?,
            }),
        };
        out.push_str(&cached.prefix);
        Some(())
    });
    match written {
        Some(()) => write_fraction(out, since.subsec_micros()),
        // Past the year 9999: left to the formatter that writes it.
        None => write_slowly(out),
    }
}

/// The current time as `tracing-subscriber` writes it, formatted whole. Also for a time given
/// that this module does not write (before 1970, past 9999): such a clock is wrong anyway,
/// and the time a line is formatted is at most a batch later than the time it was taken.
fn write_slowly(out: &mut String) {
    let _ = tracing_subscriber::fmt::time::SystemTime.format_time(&mut Writer::new(out));
}

/// `.854412Z`: the microseconds, six digits, and the zone; two digits at a time, from a
/// table, where a character a digit took twice the instructions.
fn write_fraction(out: &mut String, micros: u32) {
    out.push('.');
    for pair in [micros / 10_000 % 100, micros / 100 % 100, micros % 100] {
        out.push_str(TWO_DIGITS[pair as usize]);
    }
    out.push('Z');
}

/// `00` to `99`, each a string of its own: taking one is a load, where a slice of one
/// string of them all is checked at both ends.
static TWO_DIGITS: [&str; 100] = {
    let mut pairs = [""; 100];
    let mut n = 0;
    while n < 100 {
        let (_, rest) = PAIR_BYTES.split_at(2 * n);
        let (pair, _) = rest.split_at(2);
        pairs[n] = match std::str::from_utf8(pair) {
            Ok(pair) => pair,
            Err(_) => panic!("decimal digits are ASCII"),
        };
        n += 1;
    }
    pairs
};

/// The digits of [`TWO_DIGITS`], one pair after the other.
const PAIR_BYTES: [u8; 200] = {
    let mut bytes = [0; 200];
    let mut n = 0;
    while n < 100 {
        bytes[2 * n] = b'0' + (n / 10) as u8;
        bytes[2 * n + 1] = b'0' + (n % 10) as u8;
        n += 1;
    }
    bytes
};

/// `seconds` since 1970 in UTC, written up to the seconds: `2026-12-04T23:14:16`; `None`
/// past the year 9999, which `humantime` does not write.
fn date_and_second(seconds: u64) -> Option<String> {
    if seconds > LAST_SECOND_OF_9999 {
        return None;
    }
    let time = UNIX_EPOCH + Duration::from_secs(seconds);
    let mut text = humantime::format_rfc3339_seconds(time).to_string();
    // Without its `Z`: the sub-second digits go before it.
    text.pop();
    Some(text)
}

/// 9999-12-31T23:59:59Z.
const LAST_SECOND_OF_9999: u64 = 253_402_300_799;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_written_as_their_utc_date_and_time() {
        for (seconds, written) in [
            (0, "1970-01-01T00:00:00"),
            (951_782_400, "2000-02-29T00:00:00"),
            (1_798_761_599, "2026-12-31T23:59:59"),
            (4_107_542_399, "2100-02-28T23:59:59"),
            (13_569_551_999, "2400-01-01T23:59:59"),
            (253_402_300_799, "9999-12-31T23:59:59"),
        ] {
            assert_eq!(
                date_and_second(seconds).as_deref(),
                Some(written),
                "{seconds}"
            );
        }
        assert_eq!(date_and_second(253_402_300_800), None);
    }

    #[test]
    fn the_fraction_is_six_digits_of_microseconds() {
        for (micros, written) in [(0, ".000000Z"), (854_412, ".854412Z"), (7, ".000007Z")] {
            let mut out = String::new();
            write_fraction(&mut out, micros);
            assert_eq!(out, written);
        }
        for micros in (0..1_000_000).step_by(7).chain([999_999, 100_000, 10, 99]) {
            let mut out = String::new();
            write_fraction(&mut out, micros);
            assert_eq!(out, format!(".{micros:06}Z"));
        }
    }

    /// The same time as `tracing-subscriber` writes it, up to the second: the two are read
    /// one after the other, so a second may turn between them, but not twice in a row.
    #[test]
    fn the_time_reads_as_tracing_subscribers() {
        let read = || {
            let (mut ours, mut theirs) = (String::new(), String::new());
            write_now(&mut ours);
            let _ = tracing_subscriber::fmt::time::SystemTime
                .format_time(&mut Writer::new(&mut theirs));
            (ours, theirs)
        };
        let (ours, theirs) = match read() {
            (ours, theirs) if ours[..19] == theirs[..19] => (ours, theirs),
            _ => read(),
        };
        assert_eq!(ours[..19], theirs[..19]);
        assert_eq!(ours.len(), theirs.len(), "{ours} {theirs}");
        assert!(ours.ends_with('Z') && ours.as_bytes()[19] == b'.', "{ours}");
    }
}
