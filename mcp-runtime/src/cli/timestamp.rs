//! The time at the start of each log line, as `tracing-subscriber`'s `SystemTime` writes it
//! (`2026-12-04T23:14:16.854412Z`: UTC, microseconds), made cheaply: the date and the second
//! are formatted once per second per thread, and each line adds only its sub-second digits.

use std::cell::RefCell;
use std::time::{SystemTime, UNIX_EPOCH};

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime as _;

/// The second a thread last formatted, and its text up to the seconds (`2026-12-04T23:14:16`).
struct Cached {
    second: u64,
    prefix: String,
}

/// Appends the current time to `out`.
pub(super) fn write_now(out: &mut String) {
    thread_local! {
        static CACHED: RefCell<Option<Cached>> = const { RefCell::new(None) };
    }
    let Ok(since) = SystemTime::now().duration_since(UNIX_EPOCH) else {
        // A clock before 1970 is left to the formatter that handles it.
        let _ = tracing_subscriber::fmt::time::SystemTime.format_time(&mut Writer::new(out));
        return;
    };
    let second = since.as_secs();
    CACHED.with_borrow_mut(|cached| {
        let cached = match cached {
            Some(cached) if cached.second == second => cached,
            _ => cached.insert(Cached {
                second,
                prefix: date_and_second(second),
            }),
        };
        out.push_str(&cached.prefix);
    });
    write_fraction(out, since.subsec_micros());
}

/// `.854412Z`: the microseconds, six digits, and the zone.
fn write_fraction(out: &mut String, micros: u32) {
    out.push('.');
    for divisor in [100_000, 10_000, 1000, 100, 10, 1] {
        out.push(char::from_digit(micros / divisor % 10, 10).unwrap_or('0'));
    }
    out.push('Z');
}

/// `seconds` since 1970 in UTC, written up to the seconds: `2026-12-04T23:14:16`. Years past
/// 9999 are written with a `+`, as `tracing-subscriber` writes them.
fn date_and_second(seconds: u64) -> String {
    let (year, month, day) = civil_date(seconds / 86_400);
    let in_day = seconds % 86_400;
    let (hour, minute, second) = (in_day / 3600, in_day / 60 % 60, in_day % 60);
    let sign = if year > 9999 { "+" } else { "" };
    format!("{sign}{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}")
}

/// The year, month and day of the day `days` after 1970-01-01, in the proleptic Gregorian
/// calendar. The years are counted from March, so that a leap day ends its year; a 400-year
/// cycle has 146,097 days.
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Days since 0000-03-01.
    let shifted = days + 719_468;
    let (cycle, in_cycle) = (shifted / 146_097, shifted % 146_097);
    let year_in_cycle = (in_cycle - in_cycle / 1460 + in_cycle / 36_524 - in_cycle / 146_096) / 365;
    let day_of_year = in_cycle - (365 * year_in_cycle + year_in_cycle / 4 - year_in_cycle / 100);
    // Months from March, each of 153/5 days on average.
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = cycle * 400 + year_in_cycle + u64::from(month <= 2);
    (year, month, day)
}

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
            (253_402_300_800, "+10000-01-01T00:00:00"),
        ] {
            assert_eq!(date_and_second(seconds), written, "{seconds}");
        }
    }

    #[test]
    fn the_fraction_is_six_digits_of_microseconds() {
        for (micros, written) in [(0, ".000000Z"), (854_412, ".854412Z"), (7, ".000007Z")] {
            let mut out = String::new();
            write_fraction(&mut out, micros);
            assert_eq!(out, written);
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
