//! The trace loader from arbitrary bytes: `warpjit::runner::load_trace` must turn any file into
//! a `Trace` or a `TraceError` that renders as a diagnostic, never panic. A loaded trace's
//! launches are built too (constant banks, launch constants); nothing runs.
//!
//! The loader reads a path, so each input is written to `trace.toml` in a directory of this
//! process under the system's temporary directory, next to copies of the side files the
//! repository's traces use (`kernels/*.sass`, `data/*.bin`): seeds that name them load, and
//! other names are missing files (an error like any other). Inputs whose `file` or `code_file`
//! is absolute or climbs out with `..` are skipped, so that no input reads the host's files
//! (`/dev/zero` would never end).
//!
//! Run (nightly): `cargo +nightly fuzz run trace fuzz/corpus/trace fuzz/seeds/trace -- -dict=fuzz/dicts/toml.dict`
//! (see fuzz/README.md).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;
use warpjit::runner::load_trace;

/// Side files of tests/traces, at the same relative paths.
const SIDE_FILES: [(&str, &[u8]); 4] = [
    (
        "kernels/add_one.sass",
        include_bytes!("../../tests/traces/kernels/add_one.sass"),
    ),
    (
        "kernels/bad.sass",
        include_bytes!("../../tests/traces/fail/kernels/bad.sass"),
    ),
    (
        "data/two_launches_in.bin",
        include_bytes!("../../tests/traces/data/two_launches_in.bin"),
    ),
    (
        "data/two_launches_out.bin",
        include_bytes!("../../tests/traces/data/two_launches_out.bin"),
    ),
];

/// The path each input is written to (its directory made once, with the side files).
fn trace_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("warpjit-fuzz-trace-{}", std::process::id()));
        for (name, bytes) in SIDE_FILES {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        }
        dir.join("trace.toml")
    })
}

/// Whether every `file` / `code_file` string in the document stays inside the trace's
/// directory (relative, no `..`). A document that is not TOML has none.
fn side_files_stay_inside(text: &str) -> bool {
    fn walk(v: &toml::Value) -> bool {
        match v {
            toml::Value::Table(t) => t.iter().all(|(k, v)| match (k.as_str(), v) {
                ("file" | "code_file", toml::Value::String(s)) => Path::new(s)
                    .components()
                    .all(|c| matches!(c, Component::Normal(_) | Component::CurDir)),
                _ => walk(v),
            }),
            toml::Value::Array(a) => a.iter().all(walk),
            _ => true,
        }
    }
    // A key spells `file` literally or with an escape (`"fil\u0065"`); without either, no
    // parse is needed (most inputs: that saves a second TOML parse).
    let b = text.as_bytes();
    let has = |n: &[u8]| b.windows(n.len()).any(|w| w == n);
    if !has(b"file") && !has(b"\\u") && !has(b"\\U") {
        return true;
    }
    match text.parse::<toml::Table>() {
        Ok(t) => walk(&toml::Value::Table(t)),
        Err(_) => true,
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if !side_files_stay_inside(text) {
            return;
        }
    }
    let path = trace_path();
    std::fs::write(path, data).expect("write the input");
    match load_trace(path) {
        Ok(trace) => {
            for spec in &trace.launches {
                let launch = trace.launch(spec);
                assert!(launch.ctas() >= 1 && launch.warps_per_cta() >= 1);
            }
        }
        Err(e) => {
            let text = e.to_string();
            assert!(!text.is_empty());
            let d = e.diagnostic();
            if let (Some(line), Some(col)) = (d.line(), d.col()) {
                assert!(line >= 1 && col >= 1, "{text}");
            }
        }
    }
});
