//! What `/proc` tells of the server: its CPU time and its resident memory (Linux).

/// `USER_HZ`, the unit of `utime` and `stime` in `/proc/<pid>/stat`: 100 on Linux.
const CLOCK_TICKS_PER_SECOND: f64 = 100.0;

/// The CPU time (user and system, all threads) a process has used, in seconds.
pub(crate) fn cpu_seconds(pid: u32) -> Result<f64, String> {
    let path = format!("/proc/{pid}/stat");
    let stat =
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    // The command name (field 2) may hold spaces; the fields after it follow its `)`.
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| format!("unexpected {path}"))?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the name.
    let ticks = |index: usize| -> Result<f64, String> {
        fields
            .get(index)
            .and_then(|field| field.parse::<u64>().ok())
            .map(|ticks| ticks as f64)
            .ok_or_else(|| format!("unexpected {path}"))
    };
    Ok((ticks(11)? + ticks(12)?) / CLOCK_TICKS_PER_SECOND)
}

/// The process's resident set size in KiB, from `/proc/<pid>/status`.
pub(crate) fn resident_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
