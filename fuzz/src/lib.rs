//! Fuzz targets for `mcp-runtime`, coverage-guided by libFuzzer on the stable toolchain.
//!
//! Each target is a function from bytes to nothing that panics on a finding; [`fuzz_main!`]
//! turns one into a binary. Built with `--features libfuzzer` and the sanitizer-coverage flags
//! (`scripts/fuzz.sh` does both) the binary is a libFuzzer fuzzer; built plainly it replays
//! the inputs named on its command line, so a finding reproduces in an ordinary build:
//!
//! ```sh
//! cargo run -p mcp-fuzz --bin fuzz-dispatch -- fuzz/artifacts/dispatch/crash-...
//! ```
//!
//! The oracles, checked on every input: no panic anywhere in the process (libFuzzer's panic
//! hook, and the replayer's, abort on any panic, even one the server would catch and answer
//! with `-32603`); every answer well-formed JSON-RPC and never an internal error
//! ([`oracle`]); no hang (each awaited answer has a deadline, and libFuzzer's `-timeout`
//! catches a spinning thread); and no allocation out of proportion to the input
//! ([`alloc`]).

pub mod alloc;
pub mod oracle;
pub mod servers;
pub mod targets;

#[doc(hidden)]
pub mod harness;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// One fuzz target.
#[derive(Clone, Copy)]
pub struct Target {
    /// Its short name: the corpus and artifact folders are named after it.
    pub name: &'static str,
    /// Runs one input; panics on a finding.
    pub run: fn(&[u8]),
    /// Valid inputs to start from.
    pub seeds: fn() -> Vec<Vec<u8>>,
    /// Tokens libFuzzer splices into inputs.
    pub dictionary: &'static [&'static str],
}

/// Makes the binary of `$target` (a [`Target`]): a libFuzzer fuzzer with the `libfuzzer`
/// feature, else a replayer of the files and folders named on the command line.
#[macro_export]
macro_rules! fuzz_main {
    ($target:expr) => {
        #[cfg(feature = "libfuzzer")]
        ::libfuzzer_sys::fuzz_target!(init: $crate::harness::init(&$target), |data: &[u8]| {
            $crate::harness::run(&$target, data)
        });

        #[cfg(not(feature = "libfuzzer"))]
        fn main() -> ::std::process::ExitCode {
            $crate::harness::replay(&$target)
        }
    };
}
