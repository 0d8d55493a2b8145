//! What an attack costs the server, read from `/proc/<pid>`, and tallies of answers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use super::Target;

// ---------------------------------------------------------------------------------------------
// The server's costs, from /proc.

/// A field of `/proc/<pid>/status` in KiB (`VmRSS`, `VmHWM`).
pub(super) fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The process's open file descriptors.
pub(super) fn descriptors(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

pub(super) fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// Samples the server's resident memory and descriptors every 10 ms while an attack runs.
pub(super) struct Monitor {
    pid: Option<u32>,
    rss_before: Option<u64>,
    fds_before: Option<usize>,
    peak_rss: Arc<AtomicU64>,
    peak_fds: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    sampler: Option<tokio::task::JoinHandle<()>>,
}

impl Monitor {
    pub(super) fn start(target: Target) -> Self {
        let pid = target.pid;
        let rss_before = pid.and_then(|pid| status_kib(pid, "VmRSS:"));
        let fds_before = pid.and_then(descriptors);
        let peak_rss = Arc::new(AtomicU64::new(rss_before.unwrap_or(0)));
        let peak_fds = Arc::new(AtomicU64::new(fds_before.unwrap_or(0) as u64));
        let stop = Arc::new(AtomicBool::new(false));
        let sampler = pid.map(|pid| {
            let (peak_rss, peak_fds, stop) = (
                Arc::clone(&peak_rss),
                Arc::clone(&peak_fds),
                Arc::clone(&stop),
            );
            // A thread of its own: the sampling goes on while the attack's tasks keep the
            // runtime busy.
            tokio::task::spawn_blocking(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(rss) = status_kib(pid, "VmRSS:") {
                        peak_rss.fetch_max(rss, Ordering::Relaxed);
                    }
                    if let Some(fds) = descriptors(pid) {
                        peak_fds.fetch_max(fds as u64, Ordering::Relaxed);
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        });
        Self {
            pid,
            rss_before,
            fds_before,
            peak_rss,
            peak_fds,
            stop,
            sampler,
        }
    }

    /// The server's open descriptors now.
    pub(super) fn fds_now(&self) -> Option<usize> {
        self.pid.and_then(descriptors)
    }

    /// Stops sampling and prints the figures.
    pub(super) async fn report(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(sampler) = self.sampler.take() {
            let _ = sampler.await;
        }
        let Some(pid) = self.pid else {
            println!("server:         (no --server-pid: memory and descriptors not read)");
            return;
        };
        let after = status_kib(pid, "VmRSS:");
        let hwm = status_kib(pid, "VmHWM:");
        println!(
            "server memory:  before {}, peak {}, after {} (VmHWM {})",
            self.rss_before.map_or("?".to_owned(), mib),
            mib(self.peak_rss.load(Ordering::Relaxed)),
            after.map_or("?".to_owned(), mib),
            hwm.map_or("?".to_owned(), mib),
        );
        println!(
            "server fds:     before {}, peak {}, after {}",
            self.fds_before.map_or("?".to_owned(), |n| n.to_string()),
            self.peak_fds.load(Ordering::Relaxed),
            descriptors(pid).map_or("?".to_owned(), |n| n.to_string()),
        );
    }
}

/// Counts of what answers said, by status (`0`: no answer, the connection closed).
#[derive(Default)]
pub(super) struct Statuses(std::collections::BTreeMap<u16, u64>);

impl Statuses {
    pub(super) fn add(&mut self, status: u16) {
        *self.0.entry(status).or_default() += 1;
    }

    pub(super) fn merge(&mut self, other: Statuses) {
        for (status, count) in other.0 {
            *self.0.entry(status).or_default() += count;
        }
    }
}

impl std::fmt::Display for Statuses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(status, count)| match status {
                0 => format!("{count} closed unanswered"),
                _ => format!("{count} × {status}"),
            })
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// Seconds with two decimals, or `-`.
pub(super) fn seconds(duration: Option<Duration>) -> String {
    duration.map_or("-".to_owned(), |d| format!("{:.2} s", d.as_secs_f64()))
}
