//! Makes the conformance server's source includable: its handlers are private items of a
//! binary, so the fuzz targets compile its `main.rs` into a module of their own (see
//! `src/servers.rs`). `include!` refuses inner attributes and inner doc comments, so those
//! lines are dropped (the including module restates `allow(deprecated)`), and each `mod NAME;`
//! gets a `#[path]` to the real `NAME.rs` beside `main.rs`.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let folder = manifest
        .join("../examples/src/bin/conformance-server")
        .canonicalize()
        .expect("the conformance server's folder");
    println!("cargo::rerun-if-changed={}", folder.display());
    let text =
        std::fs::read_to_string(folder.join("main.rs")).expect("the conformance server's source");
    let mut body = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//!") || trimmed.starts_with("#![") {
            continue;
        }
        if let Some(name) = trimmed
            .strip_prefix("mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        {
            let path = folder.join(format!("{name}.rs"));
            println!("cargo::rerun-if-changed={}", path.display());
            body.push_str(&format!("#[path = {:?}]\n", path.display().to_string()));
        }
        body.push_str(line);
        body.push('\n');
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("conformance_server.rs"), body).expect("OUT_DIR is writable");
}
