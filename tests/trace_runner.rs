//! Runs every trace under `tests/traces/` and `examples/` on every engine and checks its outcome.
//!
//! Traces directly under `tests/traces/` and `examples/` must pass (exit status 0). Traces under
//! `tests/traces/fail/` carry their expected outcome in a comment header:
//!
//! ```toml
//! # expect-exit: 3
//! # expect-stderr: illegal address
//! ```
//!
//! `expect-exit` is the `warpjit run` exit status (1 mismatch, 2 invalid trace or program, 3 fault)
//! and each `expect-stderr` a piece of text that must appear in what `warpjit run` prints on
//! stderr. `tests/cli.rs` checks the same headers through the binary.
//!
//! Many traces here use the fixtures of `tests/cubin/` and `tests/dxbc/`, outside their own
//! directory: they are loaded with the repository allowed (`warpjit run --allow-path .`).

use std::path::{Path, PathBuf};
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::Jit;
use warpjit::runner::{self, TraceReport};
use warpjit::tracefile::LoadOptions;

/// The engines every trace runs on: the interpreter and two JITs. The first compiles every
/// block on its first run (threshold 1) with tier 1, never ahead, so tier 1's code, not the
/// interpreter it tiers up from, is what the traces check. The second compiles each kernel's
/// full-warp code with tier 2 before its first launch (`Jit::compile_ahead`, as `warpjit run`
/// does), and recompiles every other block with tier 2 after its first compiled run (on the
/// spot, not in the background), so tier 2's code (regions, whole-warp memory paths) runs from
/// the start. The JITs come with themselves as `Jit`s, whose compile errors the tests check: a
/// block Cranelift rejects would otherwise run through the interpreter's code and pass
/// unnoticed.
fn engines() -> Vec<(&'static str, Option<Jit>)> {
    let mut jit = Jit::new().expect("Cranelift supports this host");
    jit.threshold = 1;
    jit.ahead = false;
    let mut jit2 = Jit::new().expect("Cranelift supports this host");
    jit2.threshold = 1;
    jit2.hot_threshold = 1;
    jit2.tier2_inline = true;
    vec![
        ("interp", None),
        ("jit", Some(jit)),
        ("jit at tier 2", Some(jit2)),
    ]
}

/// The engine of an [`engines`] entry: the JIT, or else the interpreter.
fn engine(jit: &Option<Jit>) -> &dyn Engine {
    match jit {
        Some(j) => j,
        None => &Interpreter,
    }
}

/// Panics when `jit` failed to compile a block (a warpjit bug), naming the trace.
fn no_compile_errors(jit: &Option<Jit>, path: &Path, name: &str) {
    if let Some(jit) = jit {
        let errors = jit.errors();
        assert!(
            errors.is_empty(),
            "{} on {name}: the JIT failed to compile: {errors:?}",
            path.display()
        );
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `.toml` files directly in `dir`, sorted.
fn traces_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// A failing trace's expected outcome, from its comment header.
struct Expected {
    exit: i32,
    stderr: Vec<String>,
}

fn header(path: &Path) -> Expected {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut exit = None;
    let mut stderr = Vec::new();
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        if let Some(v) = line.strip_prefix("# expect-exit:") {
            exit = Some(
                v.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{}: bad expect-exit", path.display())),
            );
        } else if let Some(v) = line.strip_prefix("# expect-stderr: ") {
            stderr.push(v.to_string());
        }
    }
    let exit = exit.unwrap_or_else(|| panic!("{}: no `# expect-exit:` header", path.display()));
    Expected { exit, stderr }
}

/// Side files anywhere in the repository.
fn repository_allowed() -> LoadOptions {
    LoadOptions {
        allow_paths: vec![root()],
    }
}

/// The exit status and stderr text `warpjit run --allow-path .` would give (from the repository
/// root), from the library.
fn outcome(path: &Path, engine: &dyn Engine, threads: usize) -> (i32, String, Option<TraceReport>) {
    let opts = RunOptions {
        threads,
        ..RunOptions::default()
    };
    let run = runner::load_trace_with(path, &repository_allowed())
        .and_then(|t| runner::run(t, engine, &opts));
    match run {
        Err(e) => (2, format!("{e}\n"), None),
        Ok(r) => (r.exit_code(), r.failure_text(20), Some(r)),
    }
}

#[test]
fn passing_traces_pass_on_every_engine() {
    let mut paths = traces_in(&root().join("examples"));
    paths.extend(traces_in(&root().join("tests/traces")));
    assert!(
        paths.len() >= 12,
        "expected the examples and test traces, found {paths:?}"
    );
    for (name, jit) in engines() {
        for path in &paths {
            for threads in [1, 3] {
                let (exit, text, report) = outcome(path, engine(&jit), threads);
                assert_eq!(
                    exit,
                    0,
                    "{} on {} with {threads} threads:\n{text}",
                    path.display(),
                    name
                );
                let report = report.expect("a passing trace has a report");
                assert!(
                    report.total.lane_insts > 0,
                    "{}: no work counted",
                    path.display()
                );
                no_compile_errors(&jit, path, name);
            }
        }
    }
}

#[test]
fn failing_traces_fail_as_their_headers_say() {
    let paths = traces_in(&root().join("tests/traces/fail"));
    assert!(
        paths.len() >= 10,
        "expected the failing traces, found {paths:?}"
    );
    for (name, jit) in engines() {
        for path in &paths {
            let want = header(path);
            let (exit, text, _) = outcome(path, engine(&jit), 0);
            no_compile_errors(&jit, path, name);
            assert_eq!(exit, want.exit, "{} on {}:\n{text}", path.display(), name);
            for s in &want.stderr {
                assert!(
                    text.contains(s.as_str()),
                    "{}: {s:?} not in:\n{text}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn failing_traces_cover_every_outcome_class() {
    let headers: Vec<Expected> = traces_in(&root().join("tests/traces/fail"))
        .iter()
        .map(|p| header(p))
        .collect();
    for exit in [1, 2, 3] {
        assert!(
            headers.iter().any(|h| h.exit == exit),
            "no failing trace exits with {exit}"
        );
    }
    let all: String = headers
        .iter()
        .flat_map(|h| h.stderr.iter())
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    for fault in [
        "illegal address",
        "misaligned constant load",
        "shared memory out of range",
        "instruction budget exhausted",
        "barrier deadlock",
        "return without a call",
    ] {
        assert!(
            all.contains(fault),
            "no failing trace expects the fault {fault:?}"
        );
    }
}

#[test]
fn side_files_are_mapped_copy_on_write() {
    let input = root().join("tests/traces/data/two_launches_in.bin");
    let before = std::fs::read(&input).expect("input file");
    let (exit, text, _) = outcome(
        &root().join("tests/traces/two_launches.toml"),
        &Interpreter,
        0,
    );
    assert_eq!(exit, 0, "{text}");
    assert_eq!(
        std::fs::read(&input).expect("input file"),
        before,
        "the launches wrote into the side file"
    );
}

#[test]
fn load_trace_gives_the_model_and_the_launch_constants() {
    let trace =
        runner::load_trace(&root().join("tests/traces/launch_consts.toml")).expect("valid trace");
    assert_eq!(trace.shared_window, 0x0200_0000);
    assert_eq!(trace.launches.len(), 1);
    let l = &trace.launches[0];
    assert_eq!(
        (l.grid, l.block, l.shared_bytes, l.registers),
        ([2, 3, 1], [5, 3, 2], 0x40, 255)
    );
    assert_eq!(l.budget, warpjit::exec::DEFAULT_BUDGET);
    let c = trace.launch_consts(l);
    let words: Vec<u32> = [0x0, 0x4, 0x8, 0xc, 0x10, 0x14, 0x18, 0x1c, 0x20, 0xfc]
        .iter()
        .map(|&a| c.read(0, a, 4, false)[0])
        .collect();
    assert_eq!(
        words,
        [
            0x0200_0000,
            0x1234_5678,
            5,
            3,
            2,
            2,
            3,
            1,
            0x9900,
            0x0001_0040
        ]
    );
    // The trace's own data, without launch constants.
    assert_eq!(trace.base_consts().read(0, 0x8, 4, false)[0], 0);
    assert_eq!(trace.expects.len(), 2);
    assert_eq!(trace.expects[1].addr, 0x10100);
}
