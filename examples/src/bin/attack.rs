//! Hostile clients against a `deploy` server, printing what each attack costs the server:
//! its resident memory and open file descriptors (from `/proc/<pid>`, given `--server-pid`),
//! and when it closes the connections that stall.
//!
//! ```sh
//! target/release/deploy --listen 127.0.0.1:3000 &
//! target/release/attack --addr 127.0.0.1:3000 --server-pid $! chunks
//! ```
//!
//! Modes, each bounded in connections and time:
//!
//! - `chunks`: bodies sent as one-byte chunks, each in its own TCP segment; the server's
//!   memory before, at its peak and after.
//! - `stall --kind headers|body|silent|idle`: connections that send half a header (a byte
//!   more every second), half a body (likewise), nothing, or one request and then nothing;
//!   how many the server closed, and after how long.
//! - `connections`: many silent connections at once; the server's open descriptors, and
//!   whether a request on one more connection is answered.
//! - `hold`: legacy calls whose question is never answered, each holding a request in
//!   flight; how many the server took and how many it refused with `503`.
//! - `session-bloat`: `initialize` calls declaring megabytes of capabilities; the server's
//!   memory.
//! - `subscribe-flood`: `resources/subscribe` calls with megabyte URIs on one session; the
//!   server's memory.
//! - `stream-hold`: a thousand standalone `GET` streams on one session, every connection kept
//!   open; whether an honest request is answered meanwhile.
//! - `eviction`: an honest session, then thousands of `initialize` calls from another address
//!   (`--from`, another loopback address); whether the honest session survives.
//! - `sessions-mix`: the four above at once for `--duration` seconds, beside an honest
//!   session that must stay open (`scripts/soak.sh` runs it next to honest flows).
//! - `mix`: slow headers, slow chunked bodies, silent connections, deeply nested 4 MiB JSON
//!   bodies and junk bytes at once for `--duration` seconds (`scripts/soak.sh` runs it next
//!   to honest flows).
//! - `replay-fill`: one subject mints and uses single-use states as fast as it can while
//!   another runs single-use flows; the honest rounds that succeed and their latency, with the
//!   replay store's per-subject quota and without it. Serves its own server (below).
//! - `token-spray`: bearer tokens with garbage signatures under the server's `kid` while a
//!   client whose token is cached lists the tools; its latency quiet and under spray, with
//!   the bound on signature checks at once and without it. Serves its own server.
//!
//! `replay-fill` and `token-spray` need callers told apart by tokens the server trusts, so
//! they ignore `--addr` and `--server-pid`: each starts a `deploy` server (every state
//! single-use, OAuth trusting the end-to-end tests' P-256 key) on a loopback port, on a
//! runtime of its own, in this process.
//!
//! Traffic goes to `--addr` only; run it against a loopback server.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

// Each family of modes in a module of its own; `measure` and `wire` are what they share.
#[path = "attack/held.rs"]
mod held;
#[path = "attack/measure.rs"]
mod measure;
#[path = "attack/sessions.rs"]
mod sessions;
#[path = "attack/stalls.rs"]
mod stalls;
#[path = "attack/states.rs"]
mod states;
#[path = "attack/wire.rs"]
mod wire;

use measure::{Monitor, Statuses, seconds};
use stalls::stall;
use wire::{
    DISCOVER, INITIALIZE, PROTOCOL_VERSION, discover, head, open_session, read_body, read_head,
    request, until_closed,
};

#[derive(Parser)]
#[command(about = "Hostile clients against a `deploy` server, with the server's costs")]
struct Cli {
    /// The server's address; the endpoint is `/mcp`.
    #[arg(long, default_value = "127.0.0.1:3000")]
    addr: SocketAddr,
    /// The server's process id, to report its memory and descriptors (Linux `/proc`).
    #[arg(long)]
    server_pid: Option<u32>,
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Bodies of one-byte chunks, each written (and flushed) alone.
    Chunks {
        /// Connections sending a body at once.
        #[arg(long, default_value_t = 4)]
        connections: usize,
        /// One-byte chunks per body.
        #[arg(long, default_value_t = 50_000)]
        chunks: usize,
        /// Pause between two chunks of one body, in microseconds.
        #[arg(long, default_value_t = 20)]
        pause_us: u64,
    },
    /// Connections that stall; when does the server close them?
    Stall {
        #[arg(long, value_enum)]
        kind: Stall,
        /// Connections at once.
        #[arg(long, default_value_t = 100)]
        connections: usize,
        /// How long to keep them, in seconds.
        #[arg(long, default_value_t = 15.0)]
        hold: f64,
    },
    /// Many silent connections at once, then one honest request.
    Connections {
        /// Connections opened.
        #[arg(long, default_value_t = 2000)]
        connections: usize,
        /// How long to keep them before the honest request, in seconds.
        #[arg(long, default_value_t = 2.0)]
        hold: f64,
    },
    /// Legacy calls whose question is never answered.
    Hold {
        /// Calls left waiting, one connection each.
        #[arg(long, default_value_t = 600)]
        calls: usize,
        /// How long to keep them, in seconds.
        #[arg(long, default_value_t = 3.0)]
        hold: f64,
    },
    /// `initialize` calls declaring megabytes of capabilities each.
    SessionBloat {
        #[arg(long, default_value_t = 2000)]
        sessions: usize,
        /// Megabytes of capabilities each call declares.
        #[arg(long, default_value_t = 3.6)]
        megabytes: f64,
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
    },
    /// `resources/subscribe` calls with long URIs on one session.
    SubscribeFlood {
        #[arg(long, default_value_t = 10_000)]
        subscribes: usize,
        /// KiB of each URI.
        #[arg(long, default_value_t = 1024)]
        kib: usize,
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
    },
    /// Standalone `GET` streams on one session, each on a connection kept open.
    StreamHold {
        #[arg(long, default_value_t = 1100)]
        streams: usize,
        /// How long to keep them after the honest request, in seconds.
        #[arg(long, default_value_t = 1.0)]
        hold: f64,
    },
    /// An honest session, then `initialize` calls from another address.
    Eviction {
        #[arg(long, default_value_t = 10_000)]
        sessions: usize,
        /// The address the calls come from (another loopback address on one machine).
        #[arg(long, default_value = "127.0.0.2")]
        from: IpAddr,
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Every session attack at once, beside an honest session.
    SessionsMix {
        /// Seconds to attack for.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
        /// The address the initialize floods come from.
        #[arg(long, default_value = "127.0.0.2")]
        from: IpAddr,
    },
    /// Every hostile client at once.
    Mix {
        /// Seconds to attack for.
        #[arg(long, default_value_t = 60.0)]
        duration: f64,
    },
    /// One subject fills the replay store while another runs single-use flows.
    ReplayFill {
        /// The attacker's connections at once.
        #[arg(long, default_value_t = 16)]
        workers: usize,
        /// Seconds to attack for.
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// The in-process store's capacity (small, so that one run fills it).
        #[arg(long, default_value_t = 4_000)]
        capacity: usize,
    },
    /// Garbage signatures sprayed while a cached-token client calls.
    TokenSpray {
        /// Spraying connections at once.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Seconds to spray for.
        #[arg(long, default_value_t = 5.0)]
        duration: f64,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Stall {
    /// Half a request head, one more header line every second.
    Headers,
    /// A whole head declaring 100,000 bytes of body, then one byte every second.
    Body,
    /// Nothing at all.
    Silent,
    /// One whole request, then nothing (an idle keep-alive connection).
    Idle,
}

fn main() {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime starts");
    let target = Target {
        addr: cli.addr,
        pid: cli.server_pid,
    };
    let result = runtime.block_on(async move {
        match cli.mode {
            Mode::Chunks {
                connections,
                chunks,
                pause_us,
            } => stalls::chunks_attack(target, connections, chunks, pause_us).await,
            Mode::Stall {
                kind,
                connections,
                hold,
            } => stalls::stall_attack(target, kind, connections, secs(hold)).await,
            Mode::Connections { connections, hold } => {
                stalls::connections_attack(target, connections, secs(hold)).await
            }
            Mode::Hold { calls, hold } => held::hold_attack(target, calls, secs(hold)).await,
            Mode::SessionBloat {
                sessions,
                megabytes,
                concurrency,
            } => sessions::session_bloat(target, sessions, megabytes, concurrency).await,
            Mode::SubscribeFlood {
                subscribes,
                kib,
                concurrency,
            } => sessions::subscribe_flood(target, subscribes, kib, concurrency).await,
            Mode::StreamHold { streams, hold } => {
                sessions::stream_hold(target, streams, secs(hold)).await
            }
            Mode::Eviction {
                sessions,
                from,
                concurrency,
            } => sessions::eviction(target, sessions, from, concurrency).await,
            Mode::SessionsMix { duration, from } => {
                sessions::sessions_mix(target, secs(duration), from).await
            }
            Mode::Mix { duration } => held::mix_attack(target, secs(duration)).await,
            Mode::ReplayFill {
                workers,
                duration,
                capacity,
            } => states::replay_fill_attack(workers, secs(duration), capacity).await,
            Mode::TokenSpray {
                connections,
                duration,
            } => states::token_spray_attack(connections, secs(duration)).await,
        }
    });
    if let Err(error) = result {
        eprintln!("attack: {error}");
        std::process::exit(1);
    }
}

fn secs(seconds: f64) -> Duration {
    Duration::from_secs_f64(seconds.max(0.0))
}

/// The server under attack.
#[derive(Clone, Copy)]
struct Target {
    addr: SocketAddr,
    pid: Option<u32>,
}
