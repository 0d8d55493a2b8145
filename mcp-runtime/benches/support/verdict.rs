//! Verdicts against a benchmark's budgets. A benchmark prints its figures and a verdict for
//! each budget, and exits 0: speed depends on the machine, so CI asserts none of it. Run with
//! `-- --check` (`cargo bench -p mcp-runtime --bench codec -- --check`) on a machine of known
//! speed to exit 1 when a verdict is over budget.

#![allow(
    dead_code,
    reason = "each benchmark includes this support and uses part of it"
)]

/// The verdicts of one run.
pub(crate) struct Verdicts {
    check: bool,
    over: Vec<String>,
}

impl Verdicts {
    /// Reads `--check` from the arguments (cargo adds `--bench`, which is ignored).
    pub(crate) fn from_args() -> Self {
        Self {
            check: std::env::args().skip(1).any(|arg| arg == "--check"),
            over: Vec::new(),
        }
    }

    /// The verdict on budget `name`: "within", or "OVER" (remembered for [`Self::finish`]).
    pub(crate) fn judge(&mut self, name: &str, within: bool) -> &'static str {
        if within {
            "within"
        } else {
            self.over.push(name.to_owned());
            "OVER"
        }
    }

    /// Ends the run: with `--check`, exits 1 when a verdict was over budget.
    pub(crate) fn finish(self) {
        if self.over.is_empty() {
            return;
        }
        eprintln!("over budget: {}", self.over.join(", "));
        if self.check {
            std::process::exit(1);
        }
        eprintln!("(figures only; `-- --check` fails on a verdict over budget)");
    }
}
