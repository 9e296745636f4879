//! Load time and memory bounded for any program: the hostile shapes of
//! `warpjit::testgen::hostile` (10^5 functions that call one another, 10^5 nested `SSY`s,
//! thousands of nested DXBC `loop`s, ...), at sizes the test suite affords. Nothing here is
//! timed (the suite's own time shows a regression; `tests/load/measure.sh` measures the shapes
//! at the 4 MiB limit):
//!
//! - every shape, at about 64 KiB of program, loads from its trace and runs under the
//!   interpreter and the JIT, storing what it means;
//! - liveness and uniformity do work linear in the program: the work they count per
//!   instruction and block stays under a constant, and does not grow from one size to one 16
//!   times larger; uniformity's cut-off is reached by the hostile loop built for it and by no
//!   program of the tests, examples and benchmarks;
//! - a program with more blocks than the JIT may compile for it runs right, its blocks past the
//!   limit interpreted.

use std::path::PathBuf;
use std::sync::Arc;
use warpjit::analysis::cfg::ITEMS;
use warpjit::analysis::liveness::liveness_counted;
use warpjit::analysis::uniformity::{uniformity_counted, MAX_EVALS};
use warpjit::exec::{Engine, RunOptions};
use warpjit::frontend::{compile, Options};
use warpjit::interp::Interpreter;
use warpjit::ir::Program;
use warpjit::jit::Jit;
use warpjit::runner::run_trace;
use warpjit::testgen::hostile::{Built, Shape};

fn dir(what: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("load_bounds")
        .join(what)
}

fn program(b: &Built) -> Program {
    let opts = Options {
        isa: b.shape.isa(),
        registers: 255,
        path: b.code_file().into(),
        kernel: None,
    };
    compile(b.text.as_bytes(), &opts)
        .unwrap_or_else(|d| panic!("{} does not load: {d}", b.shape.name()))
}

/// Runs a shape's trace under `engine`; panics unless it passes.
fn run(b: &Built, engine: &dyn Engine, what: &str) {
    let trace = b.write(&dir(what)).expect("writes the trace");
    let report = run_trace(&trace, engine, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{}: {}", b.shape.name(), e.render(false)));
    assert!(
        report.passed(),
        "{} (n = {}) under {what}: {report:?}",
        b.shape.name(),
        b.n
    );
}

#[test]
fn every_shape_loads_and_runs_under_both_engines() {
    let mut jit = Jit::new().expect("Cranelift supports this host");
    jit.threshold = 1;
    for shape in Shape::ALL {
        let b = shape.build_within(64 << 10);
        assert!(b.n > 100, "{} of size {} only", shape.name(), b.n);
        run(&b, &Interpreter, "interp");
        run(&b, &jit, "jit");
    }
    assert!(jit.errors().is_empty(), "{:?}", jit.errors());
}

/// Liveness's and uniformity's work per unit of program (an instruction or a block).
fn work_per_unit(p: &Program) -> (f64, f64) {
    let units = p.blocks.iter().map(|b| b.insts.len() + 1).sum::<usize>() as f64;
    let (_, live) = liveness_counted(p);
    let (_, uni) = uniformity_counted(p);
    (live as f64 / units, uni as f64 / units)
}

#[test]
fn analyses_work_is_linear_in_the_program() {
    for shape in Shape::ALL {
        let small = program(&shape.build_within(16 << 10));
        let large = program(&shape.build_within(256 << 10));
        let (ls, us) = work_per_unit(&small);
        let (ll, ul) = work_per_unit(&large);
        let name = shape.name();
        // Liveness evaluates each block at most once per item its set can gain, and once more,
        // at a cost of one and its edges (its instructions are summarised once); uniformity at
        // most MAX_EVALS + 2 times, at a cost of one, its instructions and its edges.
        assert!(
            ll <= 3.0 * (ITEMS + 1) as f64,
            "{name}: liveness {ll:.1} per unit"
        );
        assert!(
            ul <= 3.0 * (MAX_EVALS + 2) as f64,
            "{name}: uniformity {ul:.1} per unit"
        );
        // The large program is 16 times the small one; quadratic work would be 16 times
        // as much per unit.
        assert!(
            ll <= 2.0 * ls + 2.0 && ul <= 2.0 * us + 2.0,
            "{name}: liveness {ls:.1} -> {ll:.1}, uniformity {us:.1} -> {ul:.1} per unit"
        );
    }
}

/// The cut-off of uniformity (a block evaluated more than MAX_EVALS times is taken as having
/// nothing uniform at its entry) is reached by the loop that loses one register per pass, and
/// by no program of the tests, the examples or the benchmarks: their answers are exact.
#[test]
fn only_hostile_loops_reach_the_uniformity_cut_off() {
    let p = program(&Shape::LoopChainDown.build(2000));
    assert!(uniformity_counted(&p).0.widened());
    let p = program(&Shape::LoopChainUp.build(2000));
    assert!(!uniformity_counted(&p).0.widened());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Traces that use the fixtures of tests/ load with `--allow-path tests`.
    let opts = warpjit::tracefile::LoadOptions {
        allow_paths: vec![root.join("tests")],
    };
    let mut seen = 0;
    let mut dirs: Vec<PathBuf> = ["tests/traces", "examples", "benches/traces"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("a directory").flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let Ok(trace) = warpjit::tracefile::load_with(&path, &opts) else {
                continue;
            };
            for l in &trace.launches {
                assert!(
                    !uniformity_counted(&l.program).0.widened(),
                    "{}: uniformity cut off",
                    path.display()
                );
                seen += 1;
            }
        }
    }
    assert!(seen > 80, "only {seen} programs");
}

#[test]
fn blocks_past_the_jit_function_limit_are_interpreted() {
    let mut jit = Jit::new().expect("Cranelift supports this host");
    jit.max_functions = 16;
    let b = Shape::Ladder.build(200);
    run(&b, &jit, "jit_limit");
    let c = jit.compile_stats();
    assert_eq!(c.blocks, 16, "tier 1 compiles up to the limit");
    assert!(c.limited > 0, "the other blocks are refused: {c:?}");
    // The same program through the library: the limit holds per program.
    let p = Arc::new(program(&b));
    assert!(
        jit.compile_all(&p).is_err(),
        "compiling everything hits the limit"
    );
}

/// Maxwell code with a branch target at every other instruction (the decoder looked each
/// target up by a search through the code, and each branch's label by a search through the
/// targets: a 4 MiB cubin of ptxas took 77 s to load).
#[test]
fn maxwell_code_with_many_branch_targets_decodes() {
    const BRA_NEXT: u64 = 0xe240_0000_0007_000f; // BRA to the next instruction (offset 0)
    const NOP: u64 = 0x50b0_0000_0007_0f00;
    const EXIT: u64 = 0xe300_0000_0007_000f;
    let slots = 3 << 16;
    let mut words = Vec::new();
    for k in 0..slots {
        if k % 3 == 0 {
            words.push(0); // the scheduling word before every three instructions
        }
        words.push(match k {
            _ if k == slots - 1 => EXIT,
            _ if k % 2 == 0 => BRA_NEXT,
            _ => NOP,
        });
    }
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = warpjit::maxwell::DecodeOptions { registers: 255 };
    let p = warpjit::maxwell::decode(&code, &opts).expect("decodes");
    let branches = p.blocks.iter().filter(|b| b.term.pc().is_some()).count();
    assert!(branches >= slots / 2, "{branches} branches");
}
