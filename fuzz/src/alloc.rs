//! The memory oracle: a counting global allocator and the bound each input must stay under.
//!
//! Every allocation of the process is counted, whichever thread makes it (the HTTP target's
//! server runs on other threads), so the peak measured for an input is the peak of live bytes
//! above what was live when the input started.
//!
//! # The bound: 64 × input length + 1 MiB
//!
//! - **64 ×**: what an input may legitimately cost grows with its length, and the costliest
//!   honest growth is parsing it into a `serde_json::Value` tree: two input bytes (`0,`) become
//!   a 32-byte `Value` in a `Vec` that may have doubled (×32), and a short object entry
//!   (`"a":0,`, six bytes) a `String`, a `Value` and its share of a map node (≈100 bytes, ×17).
//!   The server may hold the raw message, its tree and a copy of part of it (an echoed
//!   argument, a re-serialised answer) at once. Measured through `Server::handle`: a
//!   `tools/call` whose argument is an 800 KB array of zeros peaks at 23 × its length, one
//!   whose argument is a 1.3 MB object of short entries at 12 ×. 64 leaves well over twice
//!   the worst honest case.
//! - **+ 1 MiB**: what any input may cost whatever its length: a fresh server's tables and
//!   cached schemas, the runtime's buffers, hyper's read buffer, a few minted states.
//!
//! An input over the bound means the server allocates out of proportion to what it was sent:
//! a length read from the input and trusted, an amplification (a small message answered with
//! a large one), or an accumulation within one input. libFuzzer's `-rss_limit_mb` backs this
//! up for what escapes one input (growth across inputs).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes currently allocated.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most bytes allocated at once since the last [`measure`] began.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// The largest single allocation since the last [`measure`] began.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

/// The per-input bound: see the module documentation.
pub fn bound(input_len: usize) -> usize {
    input_len.saturating_mul(64).saturating_add(1 << 20)
}

/// The system allocator, counting live bytes and their peak.
pub struct Counting;

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
    LARGEST.fetch_max(bytes, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

#[allow(
    unsafe_code,
    reason = "a global allocator implements the unsafe `GlobalAlloc`; it forwards to `System`"
)]
// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only
// counts sizes on the side, so `System`'s guarantees are this allocator's.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
                LARGEST.fetch_max(new_size, Ordering::Relaxed);
            } else {
                shrank(layout.size() - new_size);
            }
        }
        new
    }
}

/// What one input cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Peak live bytes above those live when the input started.
    pub peak: usize,
    /// The largest single allocation (or reallocation's new size).
    pub largest: usize,
}

/// Runs `f` and measures the peak of live bytes above the starting point.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Cost) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    let result = f();
    let cost = Cost {
        peak: PEAK.load(Ordering::Relaxed).saturating_sub(base),
        largest: LARGEST.load(Ordering::Relaxed),
    };
    (result, cost)
}
