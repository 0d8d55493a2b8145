//! What every target binary shares: seeds and dictionaries written on request, the memory
//! oracle around each input, and the replayer.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::Target;
use crate::alloc;

/// Called once before fuzzing: writes the target's seeds into `$MCP_FUZZ_SEEDS` (a folder)
/// and its dictionary into `$MCP_FUZZ_DICT` (a file) when those are set, then warms the
/// target up with its first seed so that one-time setup is not charged to an input.
pub fn init(target: &Target) {
    if let Some(folder) = std::env::var_os("MCP_FUZZ_SEEDS") {
        write_seeds(target, Path::new(&folder));
    }
    if let Some(file) = std::env::var_os("MCP_FUZZ_DICT") {
        write_dictionary(target, Path::new(&file));
    }
    warm_up(target);
}

/// Runs every seed once, unmeasured: what is built once per process (runtimes, servers,
/// compiled schemas, lazily filled caches) is not charged to the first input that needs it.
fn warm_up(target: &Target) {
    for seed in (target.seeds)() {
        (target.run)(&seed);
    }
}

/// Runs one input under the memory oracle.
pub fn run(target: &Target, data: &[u8]) {
    run_measured(target, data);
}

/// [`run`], returning what the input cost.
fn run_measured(target: &Target, data: &[u8]) -> alloc::Cost {
    let ((), cost) = alloc::measure(|| (target.run)(data));
    let bound = alloc::bound(data.len());
    assert!(
        cost.peak <= bound,
        "{}: an input of {} bytes peaked at {} bytes allocated (largest single allocation {}), \
         over the bound of {bound}",
        target.name,
        data.len(),
        cost.peak,
        cost.largest,
    );
    cost
}

fn write_seeds(target: &Target, folder: &Path) {
    std::fs::create_dir_all(folder).expect("the seed folder can be made");
    for seed in (target.seeds)() {
        let name = format!("seed-{:016x}", fnv1a(&seed));
        std::fs::write(folder.join(name), &seed).expect("the seed folder is writable");
    }
}

fn write_dictionary(target: &Target, file: &Path) {
    let mut text = String::new();
    for token in target.dictionary {
        text.push('"');
        for byte in token.bytes() {
            match byte {
                b'"' | b'\\' => text.push_str(&format!("\\{}", byte as char)),
                0x20..=0x7e => text.push(byte as char),
                _ => text.push_str(&format!("\\x{byte:02X}")),
            }
        }
        text.push_str("\"\n");
    }
    std::fs::write(file, text).expect("the dictionary file is writable");
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The plain build's `main`: runs every file named on the command line (folders are walked),
/// or the target's seeds when none is named, under the same oracles as the fuzzer. Any
/// panic aborts the process, as under libFuzzer.
pub fn replay(target: &Target) -> ExitCode {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::abort();
    }));
    warm_up(target);
    let mut args = std::env::args_os().skip(1).peekable();
    if args.peek().is_none() {
        let seeds = (target.seeds)();
        for seed in &seeds {
            run(target, seed);
        }
        println!("{}: {} seeds passed", target.name, seeds.len());
        return ExitCode::SUCCESS;
    }
    let mut files = Vec::new();
    for arg in args {
        collect(PathBuf::from(arg), &mut files);
    }
    // The costliest input, as a share of its bound: how much room the memory oracle leaves.
    let mut costliest = (0.0f64, 0usize, 0usize);
    for file in &files {
        let data = std::fs::read(file).unwrap_or_else(|error| {
            panic!("cannot read {}: {error}", file.display());
        });
        if files.len() == 1 {
            eprintln!(
                "{}: running {} ({} bytes)",
                target.name,
                file.display(),
                data.len()
            );
        }
        let cost = run_measured(target, &data);
        let share = cost.peak as f64 / alloc::bound(data.len()) as f64;
        if share > costliest.0 {
            costliest = (share, data.len(), cost.peak);
        }
    }
    println!(
        "{}: {} inputs passed; the costliest peaked at {} bytes for {} bytes of input, {:.0}% \
         of its bound",
        target.name,
        files.len(),
        costliest.2,
        costliest.1,
        costliest.0 * 100.0
    );
    ExitCode::SUCCESS
}

fn collect(path: PathBuf, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&path)
            .unwrap_or_else(|error| panic!("cannot list {}: {error}", path.display()))
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect();
        entries.sort();
        for entry in entries {
            collect(entry, files);
        }
    } else {
        files.push(path);
    }
}
