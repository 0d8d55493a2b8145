//! Client-chosen text in log fields, and warnings a client can repeat at will.
//!
//! A value a client picks (a resource URI, a tool name, a method, an answer's `action`) is
//! written through [`Untrusted`]: control characters are escaped, so a newline cannot forge a
//! log line nor an escape sequence reach the terminal, and the length is capped, so a 4 MiB
//! URI does not write 4 MiB of log. A warning any client can trigger on every request goes
//! through a [`RateLimit`] (most simply with [`warn_limited!`](crate::logfield::warn_limited)),
//! so a flood of bad requests writes a bounded number of lines, the next of which says how
//! many were left out.

use std::fmt::{self, Write as _};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How many characters of untrusted text a log field shows by default.
pub(crate) const SHOWN_CHARS: usize = 200;

/// Client-supplied text, displayed escaped and cut: safe in a log line or a message.
///
/// Control characters (C0 with newline, carriage return and escape; DEL; C1), line and
/// paragraph separators and bidirectional controls are written as Rust escapes (`\n`,
/// `\u{1b}`), and a backslash as `\\`, so the output is one line and unambiguous. After
/// [`SHOWN_CHARS`] characters (or [`Untrusted::max_chars`]) it ends with `…(+N bytes)`, `N`
/// being what was left out. Displaying it allocates nothing.
#[derive(Clone, Copy)]
pub(crate) struct Untrusted<'a> {
    text: &'a str,
    max_chars: usize,
}

/// `text`, to be displayed escaped and cut at [`SHOWN_CHARS`] characters.
pub(crate) fn untrusted(text: &str) -> Untrusted<'_> {
    Untrusted {
        text,
        max_chars: SHOWN_CHARS,
    }
}

impl Untrusted<'_> {
    /// Shows at most `max_chars` characters of the text.
    pub(crate) fn max_chars(self, max_chars: usize) -> Self {
        Self { max_chars, ..self }
    }
}

/// In quotes, but escaped and cut all the same: `?field` is as safe as `%field`.
impl fmt::Debug for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// Whether `ch` is written escaped: it could break the line, move or recolour the terminal,
/// reorder what is shown, or make an escape ambiguous.
fn needs_escape(ch: char) -> bool {
    ch.is_control()
        || matches!(
            ch,
            '\\'
            // Line and paragraph separators.
            | '\u{2028}' | '\u{2029}'
            // Bidirectional marks, embeddings, overrides and isolates.
            | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.text;
        // Plain characters are written in runs, straight from the text.
        let mut run_start = 0;
        for (shown, (at, ch)) in text.char_indices().enumerate() {
            if shown == self.max_chars {
                f.write_str(&text[run_start..at])?;
                return write!(f, "…(+{} bytes)", text.len() - at);
            }
            if needs_escape(ch) {
                f.write_str(&text[run_start..at])?;
                match ch {
                    '\\' => f.write_str(r"\\")?,
                    // `\n`, `\r`, `\t`, else `\u{…}`.
                    _ => {
                        for escaped in ch.escape_debug() {
                            f.write_char(escaped)?;
                        }
                    }
                }
                run_start = at + ch.len_utf8();
            }
        }
        f.write_str(&text[run_start..])
    }
}

/// A budget of log lines for one kind of repeated warning: at most `lines` in each window of
/// time; the rest are counted, and the next line let through carries that count.
///
/// Lock-free (two atomics), usable in a `static`:
///
/// ```ignore
/// static REFUSED: RateLimit = RateLimit::new(10, Duration::from_secs(5));
/// if let Some(admitted) = REFUSED.admit() {
///     tracing::warn!(suppressed = admitted.suppressed(), "refused");
/// }
/// ```
#[derive(Debug)]
pub(crate) struct RateLimit {
    lines: u32,
    window_ms: u64,
    /// The current window's number (its start in windows since the clock's origin, in the
    /// high 32 bits) and the lines let through in it (low 32 bits), updated together.
    window: AtomicU64,
    /// Lines left out since the last one let through.
    suppressed: AtomicU64,
}

/// A line a [`RateLimit`] lets through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a line let through should be logged"]
pub(crate) struct Admitted {
    suppressed: u64,
}

impl Admitted {
    /// How many lines of this kind were left out since the last one logged: `None` when
    /// none were, so a `tracing` field holding it is written only when there is something
    /// to say.
    pub(crate) fn suppressed(self) -> Option<u64> {
        (self.suppressed > 0).then_some(self.suppressed)
    }
}

impl RateLimit {
    /// At most `lines` lines in each `window` (a window under a millisecond counts as one).
    pub(crate) const fn new(lines: u32, window: Duration) -> Self {
        let window_ms = window.as_millis();
        let window_ms = if window_ms == 0 {
            1
        } else if window_ms > u64::MAX as u128 {
            u64::MAX
        } else {
            window_ms as u64
        };
        Self {
            lines,
            window_ms,
            window: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
        }
    }

    /// Whether a line may be logged now, by the monotonic clock.
    pub(crate) fn admit(&self) -> Option<Admitted> {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        self.admit_at(ORIGIN.get_or_init(Instant::now).elapsed())
    }

    /// Whether a line may be logged at `now`, a time since any fixed origin (the clock is
    /// the caller's: tests pass their own).
    pub(crate) fn admit_at(&self, now: Duration) -> Option<Admitted> {
        let now_ms = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
        // Window numbers wrap after 2^32 windows; two windows that far apart never meet.
        let current = (now_ms / self.window_ms) as u32;
        let update = self
            .window
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |packed| {
                let (window, used) = ((packed >> 32) as u32, packed as u32);
                if window != current {
                    (self.lines > 0).then_some((u64::from(current) << 32) | 1)
                } else if used < self.lines {
                    Some(packed + 1)
                } else {
                    None
                }
            });
        match update {
            Ok(_) => Some(Admitted {
                suppressed: self.suppressed.swap(0, Ordering::AcqRel),
            }),
            Err(_) => {
                self.suppressed.fetch_add(1, Ordering::AcqRel);
                None
            }
        }
    }
}

/// Logs a `tracing` event at `$level` if `$limit` (a [`RateLimit`]) lets it through, with a
/// `suppressed` field counting the lines left out before it:
/// `log_limited!(LIMIT, Level::WARN, target = %untrusted(&uri), "refused requestState")`.
macro_rules! log_limited {
    ($limit:expr, $level:expr, $($event:tt)+) => {
        if ::tracing::enabled!($level)
            && let ::core::option::Option::Some(admitted) = $limit.admit()
        {
            ::tracing::event!($level, suppressed = admitted.suppressed(), $($event)+);
        }
    };
}

/// [`log_limited!`] at `WARN`: `warn_limited!(LIMIT, field = value, "message")`.
macro_rules! warn_limited {
    ($limit:expr, $($event:tt)+) => {
        $crate::logfield::log_limited!($limit, ::tracing::Level::WARN, $($event)+)
    };
}

pub(crate) use {log_limited, warn_limited};

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str, max_chars: usize) -> String {
        untrusted(text).max_chars(max_chars).to_string()
    }

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert_eq!(shown("plain café", 200), "plain café");
        assert_eq!(shown("a\nb\r\tc", 200), r"a\nb\r\tc");
        assert_eq!(shown("\x1b[31mred\x1b[0m", 200), r"\u{1b}[31mred\u{1b}[0m");
        assert_eq!(shown("\u{85}\u{9b}\u{7f}\0", 200), r"\u{85}\u{9b}\u{7f}\0");
        assert_eq!(
            shown("a\u{202e}b\u{2066}c\u{2028}", 200),
            r"a\u{202e}b\u{2066}c\u{2028}"
        );
        assert_eq!(shown(r"a\nb", 200), r"a\\nb");
        assert_eq!(shown("it's \"quoted\"", 200), "it's \"quoted\"");
        assert_eq!(
            format!("{:?}", untrusted("a\nb").max_chars(1)),
            "\"a…(+2 bytes)\""
        );
    }

    #[test]
    fn long_text_is_cut_with_a_count_of_bytes_left_out() {
        assert_eq!(shown("abcdef", 6), "abcdef");
        assert_eq!(shown("abcdef", 4), "abcd…(+2 bytes)");
        assert_eq!(shown("ééé", 1), "é…(+4 bytes)");
        assert_eq!(shown("a\nb", 0), "…(+3 bytes)");
        let long = "x".repeat(1 << 20);
        let cut = untrusted(&long).to_string();
        assert_eq!(
            cut,
            format!("{}…(+{} bytes)", &long[..200], (1 << 20) - 200)
        );
    }

    #[test]
    fn a_window_lets_through_its_lines_then_counts_the_rest() {
        let limit = RateLimit::new(3, Duration::from_secs(1));
        let at = Duration::from_millis;
        let first: Vec<_> = (0..10).map(|_| limit.admit_at(at(100))).collect();
        assert_eq!(
            first.iter().filter(|admitted| admitted.is_some()).count(),
            3
        );
        assert!(
            first
                .iter()
                .flatten()
                .all(|admitted| admitted.suppressed().is_none())
        );
        assert_eq!(limit.admit_at(at(999)), None);
        // The next window's first line carries the count, the second starts afresh.
        let next = limit.admit_at(at(1000)).expect("a new window");
        assert_eq!(next.suppressed(), Some(8));
        assert_eq!(limit.admit_at(at(1001)).unwrap().suppressed(), None);
        // Long after, still a fresh window.
        assert!(limit.admit_at(at(3_600_000)).is_some());
    }

    #[test]
    fn no_lines_at_all_and_tiny_windows_are_allowed() {
        let silent = RateLimit::new(0, Duration::from_secs(1));
        assert_eq!(silent.admit_at(Duration::ZERO), None);
        assert_eq!(silent.admit_at(Duration::from_secs(9)), None);
        let tiny = RateLimit::new(1, Duration::ZERO);
        assert!(tiny.admit_at(Duration::ZERO).is_some());
        assert_eq!(tiny.admit_at(Duration::ZERO), None);
        assert_eq!(
            tiny.admit_at(Duration::from_millis(1))
                .unwrap()
                .suppressed(),
            Some(1)
        );
    }

    #[test]
    fn threads_share_one_budget() {
        let limit = RateLimit::new(5, Duration::from_secs(60));
        let admitted: usize = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    scope.spawn(|| {
                        (0..1000)
                            .filter(|_| limit.admit_at(Duration::from_secs(1)).is_some())
                            .count()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().unwrap())
                .sum()
        });
        assert_eq!(admitted, 5);
        let next = limit.admit_at(Duration::from_secs(61)).unwrap();
        assert_eq!(next.suppressed(), Some(3995));
    }
}
