//! Differential fuzzing: the fuzzer's bytes become a valid SASS program and launch
//! (`warpjit::testgen`, the generator behind tests/differential.rs), run under the interpreter
//! and under the JIT, and any difference in results, faults or global memory, or a block the
//! JIT cannot compile, panics with the case (as Rust code) as a reproducer.
//!
//! Input layout: byte 0 picks the generator profile, byte 1 the JIT variant, the rest feeds the
//! generator (more bytes, more code: up to its limit of about 260 instructions).
//!
//! Compiling is nearly all the cost of an input, so unlike `testgen::check` (a new `Jit` and
//! five runs with every block compiled four ways per case) each input checks one JIT variant,
//! and programs end in the folded epilogue (`Frame::Minimal`: a hash of every register, the
//! predicates, CC and shared memory in three stores; the full one is eleven memory instructions,
//! which took most of the compile time of a small case). The variants (byte 1 modulo 32):
//! - 0-23, tiered: the JIT as it runs traces (interpret a block `case.threshold` times, then
//!   tier 1), run twice, the second run reusing the code the first compiled;
//! - 24-30, tier 1: every block compiled by tier 1 in both variants (any active mask, full warp)
//!   before one run;
//! - 31, tier 2: the same with tier 2. Tier 2 lowers exactly as tier 1 and differs only in
//!   Cranelift's register allocator, but compiles every block of a fuzz program 3.5 times
//!   slower (25.6 ms against 7.3 ms per input, measured over a 1,179-input corpus): at one
//!   input in 16 it took a quarter of the target's time, at one in 32 an eighth.
//!
//! A difference is reported with the case; to see which register differs, run the case with
//! `frame: Frame::Full` through `testgen::check`.
//!
//! Machines are reused: each of the two engines keeps its machine between inputs, and an input
//! whose case maps the same segments resets it in place (its initial bytes written over it, the
//! output zeroed) instead of mapping fresh memory; memory is read back into buffers kept
//! across inputs. Page faults of fresh mappings and large allocations otherwise cost a tenth of
//! an input's time.
//!
//! Tier 2 is never started in the background (`hot_threshold` off), so runs are reproducible.
//! One `Jit` serves many inputs (its code cache is keyed by the program, and each input has a
//! new one); it is replaced every [`CASES_PER_JIT`] inputs because it keeps every program and
//! its code. Replaying a crash runs the input on a fresh `Jit`.
//!
//! Run (nightly): `cargo +nightly fuzz run differential fuzz/corpus/differential fuzz/seeds/differential`
//! (see fuzz/README.md).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::sync::Arc;
use warpjit::exec::{Engine, Launch, Machine, RunOptions};
use warpjit::interp::Interpreter;
use warpjit::jit::{Jit, Tier};
use warpjit_runtime::ConstBanks;
use warpjit::testgen::{compare, Case, Counts, Frame, Outcome, Profile};

/// Inputs one `Jit` serves before it is replaced (it keeps every program it has seen).
const CASES_PER_JIT: u32 = 256;

/// Which JIT configuration an input checks (byte 1).
#[derive(Clone, Copy, Debug)]
enum Variant {
    Tiered,
    AllTier1,
    AllTier2,
}

thread_local! {
    /// The shared JIT and how many inputs it has served.
    static JIT: RefCell<Option<(Jit, u32)>> = const { RefCell::new(None) };
    /// The interpreter's machine (0) and the JIT's (1), with the layout they were mapped for.
    static MACHINES: RefCell<[Option<Kept>; 2]> = const { RefCell::new([None, None]) };
    /// Read-back buffers, reused: the interpreter's outcome memory and the JIT's.
    static BUFFERS: RefCell<[Vec<(u64, Vec<u8>)>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
    /// The constant banks, rewritten for each input ([`Case::write_consts`]): fresh banks are
    /// 2 MiB to zero per input.
    static CONSTS: RefCell<Option<Arc<ConstBanks>>> = const { RefCell::new(None) };
    /// Zero bytes to clear output areas with (grown as needed).
    static ZEROS: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A machine kept for the next input, and what it maps: the segments and whether two tiles
/// are sparse.
struct Kept {
    layout: (Vec<(u64, u64)>, bool),
    machine: Machine,
}

/// Runs `f` with the shared JIT (made or replaced as needed).
fn with_jit<R>(f: impl FnOnce(&mut Jit) -> R) -> R {
    JIT.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.as_ref().is_none_or(|(_, n)| *n >= CASES_PER_JIT) {
            *slot = None; // drop the old one first (it joins its tier-2 thread)
            *slot = Some((Jit::new().expect("Cranelift supports this host"), 0));
        }
        let (jit, n) = slot.as_mut().unwrap();
        *n += 1;
        f(jit)
    })
}

/// A machine holding `memory` (the case's initial memory): the one kept in `slot`, reset in
/// place, when it maps the same segments; else a fresh one.
fn machine(slot: usize, case: &Case, memory: &[(u64, Vec<u8>)]) -> Kept {
    let layout = (case.segments(), case.sparse);
    let kept = MACHINES.with(|m| m.borrow_mut()[slot].take());
    if let Some(mut k) = kept.filter(|k| k.layout == layout) {
        // The case's quantum (docs/semantics.md §9), which a kept machine may not have.
        k.machine.quantum = case.quantum;
        ZEROS.with(|z| {
            let mut zeros = z.borrow_mut();
            for (&(base, size), (_, init)) in layout.0.iter().zip(memory) {
                let bytes: &[u8] = if init.is_empty() {
                    if zeros.len() < size as usize {
                        zeros.resize(size as usize, 0);
                    }
                    &zeros[..size as usize]
                } else {
                    init
                };
                k.machine
                    .global
                    .write_bytes(base, bytes)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        });
        return k;
    }
    let machine = case.machine_from(memory).unwrap_or_else(|e| panic!("{e}"));
    Kept { layout, machine }
}

/// `Case::run` on one host thread, on the machine of `slot` (see [`machine`]), then every
/// segment's bytes as loads see them (non-resident tiles read 0), read back a segment at a time
/// into the buffers of `slot`.
fn run(
    slot: usize,
    case: &Case,
    memory: &[(u64, Vec<u8>)],
    engine: &dyn Engine,
    launch: &Launch,
) -> Outcome {
    let kept = machine(slot, case, memory);
    let opts = RunOptions {
        threads: 1,
        ..RunOptions::default()
    };
    let result = engine.run(&kept.machine, launch, &opts);
    let mut out = BUFFERS.with(|b| std::mem::take(&mut b.borrow_mut()[slot]));
    let segs = kept.machine.global.segments();
    out.resize_with(segs.len(), Default::default);
    for (s, (base, bytes)) in segs.iter().zip(out.iter_mut()) {
        *base = s.base();
        bytes.resize(s.size() as usize, 0);
        kept.machine
            .global
            .read_into(s.base(), bytes)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    MACHINES.with(|m| m.borrow_mut()[slot] = Some(kept));
    Outcome {
        result: result.map(Counts::from),
        stats: result.ok(),
        memory: out,
    }
}

/// Gives an outcome's memory buffers back to `slot` for the next run.
fn recycle(slot: usize, o: Outcome) {
    BUFFERS.with(|b| b.borrow_mut()[slot] = o.memory);
}

/// Runs the case under the JIT and compares with the interpreter's outcome.
fn agree(
    case: &Case,
    memory: &[(u64, Vec<u8>)],
    launch: &Launch,
    jit: &Jit,
    want: &Outcome,
    what: &str,
) {
    let got = run(1, case, memory, jit, launch);
    if let Err(m) = compare(case, want, &got) {
        panic!("interpreter and the JIT ({what}) disagree:\n{m}\n{case:?}");
    }
    recycle(1, got);
}

fuzz_target!(|data: &[u8]| {
    let profile = Profile::ALL[data.first().map_or(3, |&b| b as usize % Profile::ALL.len())];
    let variant = match data.get(1).map_or(0, |&b| b % 32) {
        0..=23 => Variant::Tiered,
        24..=30 => Variant::AllTier1,
        _ => Variant::AllTier2,
    };
    let mut u = Unstructured::new(data.get(2..).unwrap_or(&[]));
    let case = Case::generate_with(&mut u, profile, Frame::Minimal);
    // The generator promises a program that assembles and a machine that maps.
    let mut consts = CONSTS
        .with(|c| c.borrow_mut().take())
        .unwrap_or_else(|| Arc::new(ConstBanks::new()));
    // The last input's launch is gone, so the banks are not shared.
    case.write_consts(Arc::get_mut(&mut consts).expect("no launch holds the banks"));
    let launch = case
        .launch_with(consts)
        .unwrap_or_else(|e| panic!("{e}"));
    let memory = case.initial_memory();
    let want = run(0, &case, &memory, &Interpreter, &launch);
    with_jit(|jit| {
        jit.threshold = case.threshold;
        jit.hot_threshold = u32::MAX;
        match variant {
            Variant::Tiered => {
                let errors = jit.errors().len();
                agree(&case, &memory, &launch, jit, &want, "tiered, run 1");
                agree(&case, &memory, &launch, jit, &want, "tiered, run 2");
                // A block Cranelift rejects runs interpreted: the results agree, but it is a bug.
                if let Some(e) = jit.errors().get(errors) {
                    panic!("the JIT could not compile a block: {e}\n{case:?}");
                }
            }
            Variant::AllTier1 | Variant::AllTier2 => {
                let tier = match variant {
                    Variant::AllTier1 => Tier::One,
                    _ => Tier::Two,
                };
                if let Err(e) = jit.compile_all_tier(&launch.program, tier) {
                    panic!("the JIT cannot compile a block at {tier:?}: {e}\n{case:?}");
                }
                agree(
                    &case,
                    &memory,
                    &launch,
                    jit,
                    &want,
                    &format!("every block at {tier:?}"),
                );
            }
        }
    });
    recycle(0, want);
    CONSTS.with(|c| *c.borrow_mut() = Some(launch.consts));
});
