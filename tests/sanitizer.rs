//! The sanitizer (`--check`): every seeded bug of `tests/sanitize/` (CUDA kernels of
//! `tests/cubin/sanitize.cu` through NVRTC and ptxas, an fxc listing with a barrier removed,
//! DXBC listings) is found exactly once, by the right tool, at the right instruction and thread,
//! under both engines and any number of host threads; the clean kernels beside them, and every
//! trace and example of the repository, report nothing (but the traces that exercise undefined
//! behaviour on purpose, which report exactly what they exercise).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use warpjit::exec::{Engine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::runner::{self, TraceReport};
use warpjit::sanitizer::*;
use warpjit::tracefile::{LoadOptions, Trace};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn jit() -> warpjit::jit::Jit {
    warpjit::jit::Jit::new().expect("Cranelift supports this host")
}

/// Runs `path` under `engine` on `threads` host threads with `tools`.
fn run_with(
    path: &Path,
    engine: &dyn Engine,
    threads: usize,
    tools: Tools,
) -> (TraceReport, Findings, Trace) {
    let san = Arc::new(Sanitizer::new(tools));
    let opts = RunOptions {
        threads,
        observer: Some(san.clone()),
        ..RunOptions::default()
    };
    // The traces name kernels elsewhere in the repository (tests/cubin, tests/dxbc, examples),
    // beside their sources.
    let load = LoadOptions {
        allow_paths: vec![root()],
    };
    let mut trace = runner::load_trace_with(path, &load).unwrap_or_else(|e| panic!("{e:?}"));
    let report = runner::run_in(&mut trace, engine, &opts).unwrap_or_else(|e| panic!("{e:?}"));
    (report, san.take(), trace)
}

/// Runs `tests/sanitize/NAME.toml` with every tool, under both engines and on 1 and 3 host
/// threads: the findings must be the same every time. Returns them (and the interpreter's
/// report and trace).
fn run(name: &str) -> (TraceReport, Findings, Trace) {
    let path = root().join("tests/sanitize").join(format!("{name}.toml"));
    let first = run_with(&path, &Interpreter, 1, Tools::ALL);
    let jit = jit();
    for (engine, threads) in [(&jit as &dyn Engine, 1), (&Interpreter, 3), (&jit, 3)] {
        let (_, f, _) = run_with(&path, engine, threads, Tools::ALL);
        assert_eq!(
            f,
            first.1,
            "{name}: {} on {threads} threads finds otherwise",
            engine.name()
        );
    }
    first
}

/// The source line of the instruction at `pc` of launch `launch`.
fn line(trace: &Trace, launch: u32, pc: u32) -> String {
    trace.launches[launch as usize]
        .source
        .at(pc)
        .unwrap_or_else(|| panic!("no source for pc {pc:#x}"))
}

/// The one report of `f`, which must hold exactly one.
fn only(f: &Findings) -> &Report {
    assert_eq!(f.reports.len(), 1, "{:#?}", f.reports);
    assert!(f.ub.is_empty(), "{:?}", f.ub);
    &f.reports[0]
}

fn clean(name: &str) {
    let (report, f, _) = run(name);
    assert!(report.passed(), "{name}: {}", report.failure_text(5));
    assert!(f.is_empty(), "{name}: {:#?} {:#?}", f.reports, f.ub);
}

#[test]
fn an_out_of_bounds_read_is_reported_with_the_nearest_allocation() {
    let (report, f, trace) = run("oob_read");
    // The access faults and stops the launch (docs/semantics.md §10).
    let fault = report.fault.as_ref().expect("an illegal-address fault");
    let r = only(&f);
    assert_eq!(
        (r.tool, r.severity, r.launch),
        (Tool::Memcheck, Severity::Error, 0)
    );
    // Thread 63 = block 1, thread 31 reads in[64], just past in (64 words at 0x10000).
    assert_eq!(r.at.cta, [1, 0, 0]);
    assert_eq!(r.at.thread, [31, 0, 0]);
    assert_eq!((r.at.warp, r.at.lane, r.at.pc), (0, 31, fault.pc));
    assert_eq!(
        r.what,
        What::Access {
            space: Space::Global,
            kind: AccessKind::Read,
            size: 4,
            addr: 0x10100,
            problem: Problem::OutOfBounds {
                nearest: Some(Allocation {
                    base: 0x10000,
                    size: 256,
                    freed: false
                })
            },
            fault: true,
        }
    );
    assert!(line(&trace, 0, r.at.pc).contains("LDG.E"));
    let text = r.render(&|_, _| None, &|_| Some("oob_read".into()));
    assert!(
        text.starts_with("memcheck: Invalid __global__ read of size 4 bytes at pc "),
        "{text}"
    );
    assert!(
        text.contains("by thread (31,0,0) in block (1,0,0)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Address 0x10100 is out of bounds and is 0 bytes after the nearest allocation at 0x10000 of size 256 bytes"
        ),
        "{text}"
    );
    clean("oob_read_ok");
}

#[test]
fn a_misaligned_store_is_reported_and_the_run_goes_on() {
    let (report, f, trace) = run("misaligned_store");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!((r.tool, r.count), (Tool::Memcheck, 1));
    assert_eq!((r.at.thread, r.at.warp, r.at.lane), ([3, 0, 0], 0, 3));
    assert_eq!(
        r.what,
        What::Access {
            space: Space::Global,
            kind: AccessKind::Write,
            size: 4,
            addr: 0x1000e,
            problem: Problem::Misaligned {
                aligned: 0x1000c,
                inside: Some(Allocation {
                    base: 0x10000,
                    size: 256,
                    freed: false
                })
            },
            fault: false,
        }
    );
    assert!(line(&trace, 0, r.at.pc).contains("STG.E"));
}

#[test]
fn a_missing_barrier_is_one_race_between_the_store_and_the_load() {
    let (report, f, trace) = run("race_rotate");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!((r.tool, r.severity), (Tool::Racecheck, Severity::Error));
    let What::Race { write, with } = &r.what else {
        panic!("{r:?}")
    };
    assert_eq!(*write, AccessKind::Write);
    // The store after the missing barrier (the kernel's second STS), by warp 0.
    let store = line(&trace, 0, r.at.pc);
    assert!(store.contains("STS"), "{store}");
    assert_eq!(r.at.warp, 0);
    // It races with warp 1's load of the words warp 0 rewrote (RAW), and warp 0's loads race
    // with warp 1's stores (WAR), at the one load: the low byte of each of 32 words each way
    // (the other bytes keep their value, 0: no hazard).
    assert_eq!(with.len(), 1, "{with:?}");
    let w = &with[0];
    assert!(line(&trace, 0, w.at.pc).contains("LDS"));
    assert_eq!((w.kind, w.hazard), (AccessKind::Read, Hazard::Raw));
    assert_eq!((w.at.thread, w.at.warp), ([32, 0, 0], 1));
    assert_eq!((w.byte, w.values), (0, Some((0, 33))));
    assert_eq!((w.count, r.count), (64, 64));
    clean("race_rotate_ok");
}

#[test]
fn lanes_of_one_warp_without_syncwarp_are_a_warning() {
    let (report, f, trace) = run("warp_neighbour");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!((r.tool, r.severity), (Tool::Racecheck, Severity::Warning));
    assert_eq!((f.errors(), f.warnings()), (0, 1));
    let What::Race { with, .. } = &r.what else {
        panic!("{r:?}")
    };
    assert!(line(&trace, 0, r.at.pc).contains("STS"));
    assert_eq!(with.len(), 1);
    assert!(line(&trace, 0, with[0].at.pc).contains("LDS"));
    assert!(with[0].same_warp);
    // Every lane reads its neighbour's 4 bytes.
    assert_eq!(r.count, 128);
}

#[test]
fn reads_of_shared_memory_never_written_are_reported_once() {
    let (report, f, trace) = run("uninit_shared");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!(r.tool, Tool::Initcheck);
    assert_eq!(
        r.what,
        What::Uninit {
            space: Space::Shared,
            kind: AccessKind::Read,
            size: 4,
            addr: 0xfc,
            alloc: None
        }
    );
    assert_eq!((r.at.thread, r.count), ([0, 0, 0], 32));
    assert!(line(&trace, 0, r.at.pc).contains("LDS"));
}

#[test]
fn reads_of_an_uninitialized_allocation_are_reported_in_the_launch_that_reads() {
    let (report, f, trace) = run("uninit_global");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!((r.tool, r.launch), (Tool::Initcheck, 1));
    assert_eq!(
        r.what,
        What::Uninit {
            space: Space::Global,
            kind: AccessKind::Read,
            size: 4,
            addr: 0x10080,
            alloc: Some(Allocation {
                base: 0x10000,
                size: 256,
                freed: false
            })
        }
    );
    assert_eq!((r.at.thread, r.at.warp, r.count), ([32, 0, 0], 1, 32));
    assert!(line(&trace, 1, r.at.pc).contains("LDG.E"));
    clean("uninit_global_ok");
}

#[test]
fn a_barrier_in_divergent_code_and_barriers_at_different_places_are_reported() {
    let (report, f, trace) = run("barrier_in_branch");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!(r.tool, Tool::Synccheck);
    assert_eq!(
        r.what,
        What::DivergentWarp {
            barrier: 0,
            idle: 0xffff_0000
        }
    );
    assert_eq!((r.at.thread, r.at.warp, r.at.lane), ([48, 0, 0], 1, 16));
    assert!(line(&trace, 0, r.at.pc).contains("BAR.SYNC"));

    let (report, f, trace) = run("two_barriers");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    let What::DivergentBlock { barrier: 0, at } = &r.what else {
        panic!("{r:?}")
    };
    assert_eq!(at.len(), 2, "{at:?}");
    let warps: Vec<u32> = at.iter().flat_map(|(_, w)| w.clone()).collect();
    assert_eq!(warps.len(), 2);
    assert!(at[0].0 != at[1].0);
    for (pc, _) in at {
        assert!(line(&trace, 0, *pc).contains("BAR.SYNC"));
    }
}

#[test]
fn shuffles_reading_lanes_that_do_not_execute_them_are_reported() {
    let (report, f, trace) = run("shfl_half");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!(r.what, What::ShflInactive { src: 16 });
    assert_eq!((r.at.thread, r.count), ([0, 0, 0], 16));
    assert!(line(&trace, 0, r.at.pc).contains("SHFL.DOWN"));

    // reduce7 at 256 threads: the last warp's five shuffles run in lanes 0-7 and read lanes
    // 8-23; lanes 0-7, 0-7, 4-7, 6-7 and 7 of each of the two blocks read a lane outside.
    let (_, f, trace) = run("reduce7");
    assert_eq!(f.reports.len(), 5, "{:#?}", f.reports);
    let got: Vec<(String, u32, u64)> = f
        .reports
        .iter()
        .map(|r| {
            let What::ShflInactive { src } = r.what else {
                panic!("{r:?}")
            };
            let text = line(&trace, 0, r.at.pc);
            let shfl = text.split(": ").last().unwrap_or_default().to_string();
            (shfl, src, r.count)
        })
        .collect();
    let offsets = ["0x10", "0x8", "0x4", "0x2", "0x1"];
    for (k, (shfl, src, count)) in got.iter().enumerate() {
        assert!(shfl.starts_with("SHFL.DOWN"), "{shfl}");
        assert!(shfl.contains(&format!(", {}, 0x1f", offsets[k])), "{shfl}");
        assert_eq!(*count, [16, 16, 8, 4, 2][k], "{shfl}");
        assert_eq!(*src, [16, 8, 8, 8, 8][k], "{shfl}");
    }
    clean("reduce_ok");
}

#[test]
fn dxbc_races_divergent_barriers_and_uninitialized_group_memory_are_reported() {
    // fxc's BitonicSort: clean.
    clean("dxbc_bitonic");
    // The same listing without the barrier before the loop's store.
    let (_, f, trace) = run("dxbc_bitonic_race");
    let r = only(&f);
    assert_eq!((r.tool, r.severity), (Tool::Racecheck, Severity::Error));
    let store = line(&trace, 0, r.at.pc);
    assert!(store.contains("store_structured g0.x"), "{store}");
    let What::Race { with, .. } = &r.what else {
        panic!("{r:?}")
    };
    assert!(!with.is_empty());
    for w in with {
        let load = line(&trace, 0, w.at.pc);
        assert!(
            load.contains("ld_structured") && load.contains("g0"),
            "{load}"
        );
        assert!(!w.same_warp || w.at.warp == r.at.warp);
    }

    let (report, f, trace) = run("dxbc_sync_divergent");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!(
        r.what,
        What::DivergentWarp {
            barrier: 0,
            idle: 0xffff_0000
        }
    );
    assert_eq!(r.at.thread, [48, 0, 0]);
    assert!(line(&trace, 0, r.at.pc).contains("sync_g_t"));

    let (report, f, trace) = run("dxbc_tgsm_uninit");
    assert!(report.passed(), "{}", report.failure_text(5));
    let r = only(&f);
    assert_eq!(
        r.what,
        What::Uninit {
            space: Space::Shared,
            kind: AccessKind::Read,
            size: 4,
            addr: 0xfc,
            alloc: None
        }
    );
    assert_eq!((r.at.thread, r.count), ([0, 0, 0], 32));
    assert!(line(&trace, 0, r.at.pc).contains("ld_structured"));
}

/// Each tool reports only its own findings: the seeded bug of each tool is found by it alone.
#[test]
fn each_tool_finds_its_own_bugs_only() {
    let cases = [
        ("misaligned_store", Tool::Memcheck),
        ("race_rotate", Tool::Racecheck),
        ("uninit_shared", Tool::Initcheck),
        ("shfl_half", Tool::Synccheck),
        ("dxbc_sync_divergent", Tool::Synccheck),
    ];
    for (name, tool) in cases {
        let path = root().join("tests/sanitize").join(format!("{name}.toml"));
        for t in Tool::ALL {
            let mut tools = Tools::NONE;
            match t {
                Tool::Memcheck => tools.memcheck = true,
                Tool::Racecheck => tools.racecheck = true,
                Tool::Initcheck => tools.initcheck = true,
                Tool::Synccheck => tools.synccheck = true,
            }
            let (_, f, _) = run_with(&path, &Interpreter, 1, tools);
            let want = usize::from(t == tool);
            assert_eq!(f.reports.len(), want, "{name} under {}", t.name());
            assert!(f.reports.iter().all(|r| r.tool == tool));
        }
    }
}

/// The traces of the repository that exercise undefined behaviour on purpose, and what they
/// report (tool, reports); every other trace and example reports nothing.
const ON_PURPOSE: &[(&str, Tool, usize)] = &[
    // Divergent arrivals at BAR.RED, each its own completion (docs/semantics.md §30).
    ("tests/traces/barrier_red.toml", Tool::Synccheck, 3),
    // A shuffle from inactive lanes in divergent code (tests/cubin/warp.ptx).
    ("tests/traces/cubin_warp_ops.toml", Tool::Synccheck, 2),
    // Misaligned accesses aligned down (§16): two loads, a store, a shared store.
    (
        "tests/traces/misaligned_aligned_down.toml",
        Tool::Memcheck,
        4,
    ),
    // SHFL from lanes that do not execute it (§22c).
    (
        "tests/traces/shfl_from_missing_lanes.toml",
        Tool::Synccheck,
        1,
    ),
    // Misaligned accesses to sparse tiles.
    ("tests/traces/sparse_tiles.toml", Tool::Memcheck, 4),
    // A load through a misaligned 64-bit address pair, aligned down (one site).
    ("tests/traces/lea_pairs.toml", Tool::Memcheck, 1),
    // Warps that hand data over through shared memory by spinning on flags, with no barrier
    // (tests/cubin/spin.cu `handoff`): racecheck orders accesses by barriers and __syncwarp
    // only, never by a spin on memory (docs/semantics.md §24, what racecheck cannot do).
    ("tests/traces/cubin_handoff.toml", Tool::Racecheck, 3),
    // Cooperative groups' 128-thread tile barrier, made of shared atomics, MEMBAR and a spin
    // (tests/cubin/spin.cu `tile_reduce`): the same limitation.
    ("tests/traces/cubin_tile_reduce.toml", Tool::Racecheck, 3),
    // A shared counter the kernel never sets (ATOMS.ADD from 0): warpjit zeroes shared memory
    // at launch (docs/semantics.md §5), CUDA does not.
    ("tests/traces/warp_turns.toml", Tool::Initcheck, 1),
];

/// Traces too large to run interpreted in a test (they run under `--check` in minutes).
const TOO_LARGE: &[&str] = &[
    "benches/traces/loop_1g.toml",
    "benches/traces/ffma_loop.toml",
    "examples/gather_1m.toml",
];

fn tomls(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn no_trace_of_the_repository_reports_what_it_does_not_do_on_purpose() {
    let mut ran = 0;
    let mut wrong = Vec::new();
    let clean_seeds = tomls("tests/sanitize").into_iter().filter(|p| {
        let n = p.file_stem().unwrap_or_default().to_string_lossy();
        n.ends_with("_ok") || n == "dxbc_bitonic"
    });
    let all = tomls("tests/traces")
        .into_iter()
        .chain(tomls("tests/traces/cooperative"))
        .chain(tomls("examples"))
        .chain(tomls("benches/traces"))
        .chain(clean_seeds);
    for path in all {
        let rel = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if TOO_LARGE.contains(&rel.as_str()) {
            continue;
        }
        let (report, f, _) = run_with(&path, &Interpreter, 2, Tools::ALL);
        ran += 1;
        if !report.passed() {
            wrong.push(format!("{rel}: {}", report.failure_text(5)));
            continue;
        }
        let render = |f: &Findings| {
            f.reports
                .iter()
                .map(|r| r.render(&|_, _| None, &|_| None))
                .collect::<String>()
        };
        match ON_PURPOSE.iter().find(|(p, _, _)| *p == rel) {
            Some(&(_, tool, n))
                if f.reports.len() != n || f.reports.iter().any(|r| r.tool != tool) =>
            {
                wrong.push(format!(
                    "{rel}: want {n} of {}:\n{}",
                    tool.name(),
                    render(&f)
                ));
            }
            Some(_) => {}
            None if !f.reports.is_empty() => wrong.push(format!("{rel}:\n{}", render(&f))),
            None => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(ran > 90, "{ran} traces");
}

/// The host's allocation events, as a driver sends them: an access to an allocation it freed is
/// memcheck's (a fault when the memory is gone, a report and the run going on when it is still
/// mapped), and initcheck follows what the host wrote of an undefined allocation.
#[test]
fn freed_allocations_and_host_writes_as_a_driver_reports_them() {
    use warpjit::exec::{Launch, Machine, Observer};
    use warpjit_runtime::memory::Init;
    use warpjit_runtime::ConstBanks;
    // Thread 0 loads the word at the address in c[0x0][0x140].
    let text = "
        S2R R0, SR_TID.X;
        ISETP.NE.AND P0, PT, R0, RZ, PT;
    @P0 EXIT;
        MOV R2, c[0x0][0x140];
        MOV R3, RZ;
        LDG.E R4, [R2];
        EXIT;
    ";
    let prog =
        Arc::new(warpjit::sass::parse_program(text, &Default::default()).expect("assembles"));
    let run = |addr: u32, setup: &dyn Fn(&Sanitizer)| {
        let mut m = Machine::default();
        for base in [0x10000, 0x20000, 0x40000] {
            m.global.map(base, 256, Init::Zero).expect("maps");
        }
        let mut consts = ConstBanks::new();
        consts.write(0, 0x140, &addr.to_le_bytes()).expect("bank 0");
        let launch = Launch::new(prog.clone(), consts);
        let san = Arc::new(Sanitizer::new(Tools::ALL));
        for base in [0x10000, 0x20000] {
            san.alloc(base, 256, true);
        }
        setup(&san);
        let opts = RunOptions {
            observer: Some(san.clone()),
            ..RunOptions::default()
        };
        let r = Interpreter.run(&m, &launch, &opts);
        (r, san.take())
    };
    let freed = Allocation {
        base: 0x20000,
        size: 256,
        freed: true,
    };
    // Freed, still mapped: the load happens (the run goes on) and is reported.
    let (r, f) = run(0x20010, &|s| s.free(0x20000, 256));
    assert!(r.is_ok());
    let rep = only(&f);
    assert_eq!(
        rep.what,
        What::Access {
            space: Space::Global,
            kind: AccessKind::Read,
            size: 4,
            addr: 0x20010,
            problem: Problem::Freed { alloc: freed },
            fault: false,
        }
    );
    // Allocated again: no report.
    let (_, f) = run(0x20010, &|s| {
        s.free(0x20000, 256);
        s.alloc(0x20000, 256, true);
    });
    assert!(f.is_empty(), "{:?}", f.reports);
    // Freed and gone (the host unmapped it; here: never mapped): the load faults.
    let (r, f) = run(0x30008, &|s| {
        s.alloc(0x30000, 256, true);
        s.free(0x30000, 256);
    });
    assert!(r.is_err());
    let rep = only(&f);
    let What::Access { problem, fault, .. } = &rep.what else {
        panic!("{rep:?}")
    };
    assert!(*fault);
    assert_eq!(
        *problem,
        Problem::Freed {
            alloc: Allocation {
                base: 0x30000,
                size: 256,
                freed: true
            }
        }
    );
    // An allocation the sanitizer knew that is no longer mapped was freed.
    let (_, f) = run(0x50008, &|s| s.alloc(0x50000, 16, true));
    let What::Access { problem, .. } = &only(&f).what else {
        panic!()
    };
    assert!(matches!(problem, Problem::Freed { alloc } if alloc.base == 0x50000));
    // Outside everything: the nearest allocation (0x40000 is mapped but was never announced:
    // the launch's segments are allocations too).
    let (_, f) = run(0x40108, &|_| {});
    let What::Access { problem, .. } = &only(&f).what else {
        panic!()
    };
    assert_eq!(
        *problem,
        Problem::OutOfBounds {
            nearest: Some(Allocation {
                base: 0x40000,
                size: 256,
                freed: false
            })
        }
    );
    // initcheck: an undefined allocation the host wrote half of.
    let undefined = |s: &Sanitizer| {
        s.alloc(0x40000, 256, false);
        s.host_write(0x40000, 128);
    };
    let (_, f) = run(0x4007c, &undefined);
    assert!(f.is_empty(), "{:?}", f.reports);
    let (_, f) = run(0x40080, &undefined);
    let rep = only(&f);
    assert_eq!(rep.tool, Tool::Initcheck);
    assert!(matches!(rep.what, What::Uninit { addr: 0x40080, .. }));
}
