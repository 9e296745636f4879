//! Forward progress between warps and between the CTAs of a cooperative launch
//! (docs/semantics.md §9): kernels whose warps or CTAs wait for each other by spinning on memory
//! finish, with the same results, instruction counts and turns under both engines and any
//! number of host threads.

use std::path::{Path, PathBuf};
use warpjit::exec::{Engine, RunOptions, Stats};
use warpjit::interp::Interpreter;
use warpjit::jit::{Jit, Tier};
use warpjit::runner::{load_trace_with, run_in};
use warpjit::tracefile::{LoadOptions, TraceError};
use warpjit_runtime::FaultKind;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Loads a trace of tests/traces, whose cubins are in tests/cubin (outside its directory).
fn load_trace(path: &Path) -> Result<warpjit::tracefile::Trace, TraceError> {
    let load = LoadOptions {
        allow_paths: vec![root().join("tests")],
    };
    load_trace_with(path, &load)
}

/// The engines: the interpreter; the JIT compiling every block on its first run (tier 1, its
/// compiled loops returning to the dispatcher where a turn ends); the JIT with every block
/// compiled by tier 2 before the run.
const ENGINES: [&str; 3] = ["interp", "jit tier 1", "jit tier 2"];

/// What a run gave: its statistics per launch (warps, warp and lane instructions, turns ended
/// at the quantum), whether every expectation held, and every global segment's bytes.
type Run = (Vec<(u64, u64, u64, u64)>, bool, Vec<Vec<u8>>);

fn run(path: &Path, engine: &str, threads: usize) -> Run {
    let mut trace = load_trace(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut jit = Jit::new().expect("Cranelift supports this host");
    let engine: &dyn Engine = match engine {
        "interp" => &Interpreter,
        "jit tier 1" => {
            jit.threshold = 1;
            &jit
        }
        _ => {
            jit.hot_threshold = u32::MAX;
            for l in &trace.launches {
                jit.compile_all_tier(&l.program, Tier::Two)
                    .expect("compiles");
            }
            &jit
        }
    };
    let opts = RunOptions {
        threads,
        ..RunOptions::default()
    };
    let report = run_in(&mut trace, engine, &opts).expect("runs");
    let stats = report
        .launches
        .iter()
        .map(|l| {
            let s: Stats = l.stats;
            (s.warps, s.warp_insts, s.lane_insts, s.yields)
        })
        .collect();
    let mem = &trace.machine.global;
    let bytes = mem
        .segments()
        .iter()
        .map(|s| mem.read_bytes(s.base(), s.size()).expect("readable"))
        .collect();
    let passed = report.passed();
    if !passed {
        eprintln!("{}", report.failure_text(20));
    }
    (stats, passed, bytes)
}

/// Each trace passes under every engine on 1, 2 and 8 host threads, with the same counts and
/// memory every time, and ends some warp turns at the quantum (it cannot finish without).
fn alike_everywhere(trace: &str) -> Run {
    let path = root().join(trace);
    let mut first: Option<Run> = None;
    for name in ENGINES {
        for threads in [1, 2, 8] {
            let r = run(&path, name, threads);
            assert!(
                r.1,
                "{trace} on {name} with {threads} threads: expectations"
            );
            match &first {
                None => first = Some(r),
                Some(f) => {
                    assert_eq!(r.0, f.0, "{trace} on {name}, {threads} threads: counts");
                    assert!(r.2 == f.2, "{trace} on {name}, {threads} threads: memory");
                }
            }
        }
    }
    let first = first.expect("ran");
    assert!(
        first.0.iter().any(|l| l.3 > 0),
        "{trace}: no turn ended at the quantum"
    );
    first
}

#[test]
fn a_cooperative_groups_tile_reduce_finishes() {
    alike_everywhere("tests/traces/cubin_tile_reduce.toml");
}

#[test]
fn producer_and_consumer_warps_hand_boxes_over() {
    alike_everywhere("tests/traces/cubin_handoff.toml");
}

#[test]
fn warps_take_turns_at_a_spin_lock() {
    alike_everywhere("tests/traces/cubin_warp_lock.toml");
}

#[test]
fn cooperative_ctas_meet_at_a_grid_barrier() {
    alike_everywhere("tests/traces/cubin_grid_sums.toml");
}

/// The hand-worked interleaving of tests/traces/warp_turns.toml: 39 instructions per warp, and
/// three turns per CTA ending at the quantum in each of the first two passes.
#[test]
fn turns_end_where_the_rule_says() {
    let (stats, _, _) = alike_everywhere("tests/traces/warp_turns.toml");
    assert_eq!(stats, [(6, 6 * 39, 6 * 39 * 32, 12)]);
}

/// Without turns ending (a quantum larger than any budget), the tile reduce's first warp spins
/// until its CTA's share of the launch budget is gone, as every kernel whose warps wait for
/// each other did before warps took turns.
#[test]
fn without_turns_a_spinning_warp_exhausts_its_budget() {
    let path = root().join("tests/traces/cubin_tile_reduce.toml");
    let mut trace = load_trace(&path).expect("loads");
    trace.machine.quantum = u64::MAX;
    let report = run_in(&mut trace, &Interpreter, &RunOptions::default()).expect("runs");
    let fault = report.fault.expect("faults");
    assert!(
        matches!(fault.kind, FaultKind::BudgetExhausted { ctas: Some(4), .. }),
        "{fault}"
    );
    assert_eq!((fault.cta, fault.warp), ([0, 0, 0], 0));
}

/// Cooperative groups' own grid.sync() (tests/cubin/cg_grid.cu) in a cooperative launch, which
/// gets the grid workspace. The kernel calls __threadfence (MEMBAR.GL.IVALLD): where warpjit does
/// not decode that yet, the trace is refused at that instruction, which this test checks
/// instead; where it does, the kernel runs as the other cooperative traces do.
#[test]
fn cooperative_groups_grid_sync_runs_in_a_cooperative_launch() {
    let trace = "tests/traces/cooperative/cubin_cg_grid.toml";
    match load_trace(&root().join(trace)) {
        Err(e) => {
            let text = e.to_string();
            assert!(
                text.contains("MEMBAR") && text.contains("0xef98000000070101"),
                "{text}"
            );
        }
        Ok(_) => {
            alike_everywhere(trace);
        }
    }
}

/// The same trace, its launch not cooperative: the kernel finds no workspace (address 0) and
/// faults at its barrier word, 0x4. (ptxas guards the kernel's `trap` for a null workspace with
/// the predicate of the branch around it, `@P0 BRA; @P0 BPT.TRAP`, so it never traps.)
#[test]
fn grid_sync_outside_a_cooperative_launch_faults() {
    let text = std::fs::read_to_string(root().join("tests/traces/cooperative/cubin_cg_grid.toml"))
        .expect("reads")
        .replace("cooperative = true", "");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scheduling");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let path = dir.join("cg_grid_plain.toml");
    let cubin = root().join("tests/cubin/cg_grid.cubin");
    let text = text.replace(
        "\"../../cubin/cg_grid.cubin\"",
        &format!("{:?}", cubin.display().to_string()),
    );
    std::fs::write(&path, text).expect("writes");
    let Ok(mut trace) = load_trace(&path) else {
        return; // MEMBAR.GL not decoded: checked above.
    };
    let report = run_in(&mut trace, &Interpreter, &RunOptions::default()).expect("runs");
    let fault = report.fault.expect("faults");
    assert_eq!(
        fault.kind,
        FaultKind::IllegalAddress { addr: 4, size: 4 },
        "{fault}"
    );
}
