//! Benchmark kernels: the workloads behind `warpjit bench` and the criterion benches.
//!
//! Each kernel is a SASS program over 1M threads (4096 CTAs of 256) with its memory set up, and a
//! native Rust function computing the same result, so an engine can be measured against the
//! other engine and against native code in the same run, and checked against native output.

use crate::exec::{Engine, Launch, Machine, RunOptions, Stats, DEFAULT_BUDGET};
use crate::sass::{parse_program, AsmOptions};
use rayon::prelude::*;
use std::sync::Arc;
use std::time::Instant;
use warpjit_runtime::memory::Init;
use warpjit_runtime::{BankMode, ConstBanks};

/// Threads per CTA in every kernel.
pub const BLOCK: u32 = 256;
/// Where every kernel's `src` array is mapped.
pub const SRC: u64 = 0x1_0000_0000;
/// Where its `idx` array is mapped.
pub const IDX: u64 = 0x2_0000_0000;
/// Where its output is.
pub const OUT: u64 = 0x3_0000_0000;
/// The kernel parameters at `c[0x0][0x140]`: the 64-bit addresses of `src`, `idx` and `out`.
pub const PARAMS: [u32; 6] = [
    SRC as u32,
    (SRC >> 32) as u32,
    IDX as u32,
    (IDX >> 32) as u32,
    OUT as u32,
    (OUT >> 32) as u32,
];

/// A benchmark kernel.
pub struct Kernel {
    /// Short name.
    pub name: &'static str,
    /// What it exercises.
    pub about: &'static str,
    /// SASS text.
    pub sass: &'static str,
    /// Bytes of output per thread.
    pub out_bytes: u32,
    /// Computes output element `i` (`out_bytes` little-endian bytes) natively.
    pub native: fn(&Inputs, u32) -> [u32; 4],
}

/// The input arrays every kernel may read (also mapped into guest memory).
pub struct Inputs {
    /// `src[i]`.
    pub src: Vec<u32>,
    /// `idx[i]`, a scrambled permutation-like index into `src`.
    pub idx: Vec<u32>,
    /// Constant bank 2 (table A, and a scalar at 0x400).
    pub bank2: Vec<u32>,
    /// Constant bank 3 (table B).
    pub bank3: Vec<u32>,
    /// The 64-bit bases in `c[0][0x160..0x170]`.
    pub base128: [u32; 4],
}

impl Inputs {
    /// Inputs for `n` threads.
    pub fn new(n: u32) -> Inputs {
        Inputs {
            src: (0..n)
                .map(|i| i.wrapping_mul(0x9e37_79b9) ^ 0x5555)
                .collect(),
            idx: (0..n)
                .map(|i| (i as u64 * 2_654_435_761 % n as u64) as u32)
                .collect(),
            bank2: (0..0x101).map(|i| i * 7 + 1).collect(),
            bank3: (0..0x100).map(|i| 0x1000 - i * 3).collect(),
            base128: [0xffff_fff0, 0x1234_5678, 0xffff_ffff, 0x0000_0001],
        }
    }
}

/// The benchmark kernels.
pub fn kernels() -> Vec<Kernel> {
    vec![
        Kernel {
            name: "stream",
            about: "out[i] = a[i] * table[i & 3] + b[i]: straight-line LEA/LDG/LDC/STG, sequential",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LEA R2.CC, R0, c[0x0][0x140], 0x2;
                LEA.HI.X R3, R0, c[0x0][0x144], RZ, 0x2;
                LDG.E R4, [R2];
                LEA R6.CC, R0, c[0x0][0x148], 0x2;
                LEA.HI.X R7, R0, c[0x0][0x14c], RZ, 0x2;
                LDG.E R5, [R6];
                LOP.AND R10, R0, 0x3;
                SHL R10, R10, 0x2;
                LDC R11, c[0x2][R10];
                XMAD R12, R4, R11, R5;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R12;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| {
                let a = inp.src[i as usize] & 0xffff;
                let t = inp.bank2[(i & 3) as usize] & 0xffff;
                [a.wrapping_mul(t).wrapping_add(inp.idx[i as usize]), 0, 0, 0]
            },
        },
        Kernel {
            name: "gather",
            about: "out[i] = src[idx[i]]: LEA.LO/LEA.HI.X 64-bit addressing, two LDG.E, STG.E",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LEA R2.CC, R0, c[0x0][0x148], 0x2;
                LEA.HI.X R3, R0, c[0x0][0x14c], RZ, 0x2;
                LDG.E R4, [R2];
                LEA R6.CC, R4, c[0x0][0x140], 0x2;
                LEA.HI.X R7, R4, c[0x0][0x144], RZ, 0x2;
                LDG.E R5, [R6];
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R5;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| [inp.src[inp.idx[i as usize] as usize], 0, 0, 0],
        },
        Kernel {
            name: "const_table",
            about: "out[i] = A[i & 255] + B[i & 255] + s: LDC.IL, LDC.IS, LDC immediate, IADD3",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                LOP.AND R2, R0, 0xff;
                SHL R2, R2, 0x2;
                LDC.IL R3, c[0x2][R2];
                LOP32I.OR R4, R2, 0x30000;
                LDC.IS R5, c[0x0][R4];
                LDC R6, c[0x2][0x400];
                IADD3 R7, R3, R5, R6;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R7;
                EXIT;
            ",
            out_bytes: 4,
            native: |inp, i| {
                let k = (i & 0xff) as usize;
                [
                    inp.bank2[k]
                        .wrapping_add(inp.bank3[k])
                        .wrapping_add(inp.bank2[0x100]),
                    0,
                    0,
                    0,
                ]
            },
        },
        Kernel {
            name: "addr128",
            about: "U128 = base + (off << 17) with a LEA.LO/LEA.HI.X .CC chain, STG.E.128",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                MOV R8, R0;
                IADD R9, R0, 0x7;
                XMAD R10, R0, 0x3, RZ;
                MOV32I R11, 0x1;
                MOV R12, c[0x0][0x160];
                MOV R13, c[0x0][0x164];
                MOV R14, c[0x0][0x168];
                MOV R15, c[0x0][0x16c];
                LEA R16.CC, R8, R12, 0x11;
                LEA.HI.X R17.CC, R8, R13, R9, 0x11;
                LEA.HI.X R18.CC, R9, R14, R10, 0x11;
                LEA.HI.X R19, R10, R15, R11, 0x11;
                LEA R2.CC, R0, c[0x0][0x150], 0x4;
                LEA.HI.X R3, R0, c[0x0][0x154], RZ, 0x4;
                STG.E.128 [R2], R16;
                EXIT;
            ",
            out_bytes: 16,
            native: |inp, i| {
                let off = (i as u128)
                    | ((i.wrapping_add(7) as u128) << 32)
                    | (((i & 0xffff) * 3) as u128) << 64
                    | 1u128 << 96;
                let b = inp.base128;
                let base = b[0] as u128
                    | (b[1] as u128) << 32
                    | (b[2] as u128) << 64
                    | (b[3] as u128) << 96;
                let r = base.wrapping_add(off << 17);
                [
                    r as u32,
                    (r >> 32) as u32,
                    (r >> 64) as u32,
                    (r >> 96) as u32,
                ]
            },
        },
        Kernel {
            name: "loop",
            about: "64 iterations of XMAD, LOP3, SHR, IADD with a uniform ISETP/BRA back edge",
            sass: "
                S2R R0, SR_TID.X;
                S2R R1, SR_CTAID.X;
                ISCADD R0, R1, R0, 0x8;
                MOV R2, R0;
                MOV R3, RZ;
            loop:
                XMAD R2, R2, 0x3, R3;
                LOP3.LUT R2, R2, R0, RZ, 0x3c;
                SHR.U32 R4, R2, 0x3;
                IADD R2, R2, R4;
                IADD R3, R3, 0x1;
                ISETP.LT.AND P0, PT, R3, 0x40, PT;
                @P0 BRA loop;
                LEA R8.CC, R0, c[0x0][0x150], 0x2;
                LEA.HI.X R9, R0, c[0x0][0x154], RZ, 0x2;
                STG.E [R8], R2;
                EXIT;
            ",
            out_bytes: 4,
            native: |_, i| {
                let mut acc = i;
                for j in 0..64u32 {
                    acc = (acc & 0xffff).wrapping_mul(3).wrapping_add(j);
                    acc ^= i;
                    acc = acc.wrapping_add(acc >> 3);
                }
                [acc, 0, 0, 0]
            },
        },
    ]
}

/// A kernel ready to run: machine, launch and inputs.
pub struct Prepared {
    /// Machine with the input and output segments.
    pub machine: Machine,
    /// The launch.
    pub launch: Launch,
    /// Inputs (for the native version).
    pub inputs: Inputs,
    /// Threads.
    pub n: u32,
}

/// Sets a kernel up for `n` threads (a multiple of [`BLOCK`]).
pub fn prepare(k: &Kernel, n: u32) -> Result<Prepared, String> {
    let prog = parse_program(k.sass, &AsmOptions::default()).map_err(|e| e.to_string())?;
    let inputs = Inputs::new(n);
    let mut machine = Machine::default();
    let bytes = |v: &[u32]| v.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    let map = |m: &mut Machine, base, data: &[u8], size| {
        m.global
            .map(base, size, Init::Bytes(data))
            .map_err(|e| e.to_string())
    };
    map(&mut machine, SRC, &bytes(&inputs.src), 4 * n as u64)?;
    map(&mut machine, IDX, &bytes(&inputs.idx), 4 * n as u64)?;
    map(&mut machine, OUT, &[], k.out_bytes as u64 * n as u64)?;
    let mut consts = ConstBanks::new();
    consts.write(0, 0x140, &bytes(&PARAMS));
    consts.write(0, 0x160, &bytes(&inputs.base128));
    consts.write(2, 0, &bytes(&inputs.bank2));
    consts.write(3, 0, &bytes(&inputs.bank3));
    let launch = Launch {
        index: 0,
        program: Arc::new(prog),
        grid: [n / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
        mode: BankMode::Compute,
        shared_bytes: 0,
        local_bytes: 0,
        consts: Arc::new(consts),
        budget: DEFAULT_BUDGET,
        cooperative: false,
    };
    Ok(Prepared {
        machine,
        launch,
        inputs,
        n,
    })
}

impl Prepared {
    /// Runs the launch once on `engine`.
    pub fn run(&self, engine: &dyn Engine, opts: &RunOptions) -> Result<Stats, String> {
        engine
            .run(&self.machine, &self.launch, opts)
            .map_err(|f| f.to_string())
    }

    /// Runs the native version once (rayon over CTAs, as the engines), writing into `out`.
    pub fn run_native(&self, k: &Kernel, out: &mut [u32]) {
        let words = (k.out_bytes / 4) as usize;
        out.par_chunks_mut(BLOCK as usize * words)
            .enumerate()
            .for_each(|(c, chunk)| {
                for t in 0..BLOCK as usize {
                    let i = (c * BLOCK as usize + t) as u32;
                    let v = (k.native)(&self.inputs, i);
                    chunk[t * words..(t + 1) * words].copy_from_slice(&v[..words]);
                }
            });
    }

    /// Checks the guest output against the native output; `Err` names the first difference.
    pub fn check(&self, k: &Kernel) -> Result<(), String> {
        let got = self
            .machine
            .global
            .read_bytes(OUT, k.out_bytes as u64 * self.n as u64)
            .map_err(|e| e.to_string())?;
        let words = (k.out_bytes / 4) as usize;
        let mut want = vec![0u32; self.n as usize * words];
        self.run_native(k, &mut want);
        for (i, w) in want.iter().enumerate() {
            let g =
                u32::from_le_bytes([got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3]]);
            if g != *w {
                return Err(format!(
                    "{}: word {i} is {g:#x}, native computes {w:#x}",
                    k.name
                ));
            }
        }
        Ok(())
    }
}

/// The trace-level workloads `warpjit bench` runs after the kernels, by name: DXBC programs
/// with their resources (the traces in `benches/traces/`, built in).
pub const TRACE_WORKLOADS: &[(&str, &str)] = &[
    (
        "dxbc_gather",
        include_str!("../benches/traces/dxbc_gather.toml"),
    ),
    (
        "dxbc_msaa_resolve",
        include_str!("../benches/traces/dxbc_msaa_resolve.toml"),
    ),
    (
        "dxbc_texture_filter",
        include_str!("../benches/traces/dxbc_texture_filter.toml"),
    ),
];

/// A trace to measure: a built-in workload (its text) or a file.
pub enum TraceSource {
    /// A [`TRACE_WORKLOADS`] entry: its name and text.
    BuiltIn(&'static str, &'static str),
    /// A trace file, and where its side files may be.
    File(std::path::PathBuf, crate::tracefile::LoadOptions),
}

impl TraceSource {
    /// The name a bench table shows.
    pub fn name(&self) -> String {
        match self {
            TraceSource::BuiltIn(name, _) => name.to_string(),
            TraceSource::File(p, _) => p.display().to_string(),
        }
    }

    /// Loads it afresh (every run starts from the trace's own memory).
    pub fn load(&self) -> Result<crate::tracefile::Trace, String> {
        match self {
            // Built into warpjit, so trusted: its side files are where the repository has them.
            TraceSource::BuiltIn(name, text) => crate::tracefile::load_text_with(
                std::path::Path::new(&format!("benches/traces/{name}.toml")),
                text.to_string(),
                &crate::tracefile::LoadOptions {
                    allow_paths: vec!["/".into()],
                },
            ),
            TraceSource::File(p, load) => crate::tracefile::load_with(p, load),
        }
        .map_err(|e| e.render(false))
    }

    /// Runs it once with `engine` (a fresh load, not timed): the lane-instructions and the
    /// seconds its launches took. A fault or a failed expectation is an error.
    pub fn run(&self, engine: &dyn Engine, opts: &RunOptions) -> Result<(u64, f64), String> {
        let mut trace = self.load()?;
        let r = crate::runner::run_in(&mut trace, engine, opts).map_err(|e| e.render(false))?;
        if !r.passed() {
            return Err(r.failure_text(3));
        }
        Ok((r.total.lane_insts, r.seconds))
    }
}

/// How long, at least, [`rounds`] measures each contestant (engine). A ratio of two engines is
/// only sound when both were measured in the same stretch of time, and a parallel run only
/// undisturbed when the host leaves every core free for its whole length: a run of a few
/// milliseconds needs more tries than `iters` to find such a stretch on a shared machine, and a
/// second of them per engine costs little.
pub const SECONDS_PER_CONTESTANT: f64 = 1.0;

/// Whether a measurement that has made `rounds` rounds since `start` goes on: until it has at
/// least `iters` of them and `seconds` have passed.
pub fn more_rounds(rounds: usize, iters: u32, start: Instant, seconds: f64) -> bool {
    rounds < iters.max(1) as usize || start.elapsed().as_secs_f64() < seconds
}

/// How many host cores this process may run on (those [`on_core`] takes turns on).
pub fn host_cores() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `cpu_set_t` is plain bits; the call fills the set for the calling thread.
        let n = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                libc::CPU_COUNT(&set) as usize
            } else {
                0
            }
        };
        if n > 0 {
            return n;
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `f` on the calling thread held to one host core, the `k`-th (wrapping) of those it may
/// run on, then lets it run on all of them again (where the host cannot pin a thread, simply
/// runs `f`). A scaling measurement runs its one-thread runs on each core in turn: a virtual
/// machine's cores do not always run at the same speed, and a one-thread baseline left on a
/// slowed core would make the speedup look better than the code's.
pub fn on_core<R>(k: usize, f: impl FnOnce() -> R) -> R {
    // (`host_cores` counts the same set: run `k` is held to core `k % host_cores()`.)
    #[cfg(target_os = "linux")]
    {
        /// Gives the thread its old cores back when dropped.
        struct Restore(libc::cpu_set_t);
        impl Drop for Restore {
            fn drop(&mut self) {
                // SAFETY: sets the calling thread's affinity from a valid set.
                unsafe {
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
                }
            }
        }
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `cpu_set_t` is plain bits (all zero is the empty set); the calls read and
        // write only the sets given, for the calling thread (pid 0).
        let pinned = unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                None
            } else {
                let cores: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &old))
                    .collect();
                let mut one: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(
                    cores.get(k % cores.len().max(1)).copied().unwrap_or(0),
                    &mut one,
                );
                (cores.len() > 1 && libc::sched_setaffinity(0, size, &one) == 0)
                    .then_some(Restore(old))
            }
        };
        let r = f();
        drop(pinned);
        r
    }
    #[cfg(not(target_os = "linux"))]
    f()
}

/// Which run a [`rounds`] contestant is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The work on one host thread, held to the `k`-th host core ([`on_core`]).
    One(usize),
    /// The work on all the measurement's host threads.
    Many,
}

/// One run's wall-clock seconds (as the contestant timed it) and, on one thread, its core.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// Seconds the work took.
    pub seconds: f64,
    /// For a run on one host thread, the host core it was held to (its index among those the
    /// process may run on).
    pub core: Option<usize>,
}

/// Every timed run of one [`rounds`] contestant, per side, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Runs {
    /// The runs on all the host threads.
    pub many: Vec<Run>,
    /// The runs on one host thread (none unless the measurement scales).
    pub one: Vec<Run>,
}

impl Runs {
    fn seconds(runs: &[Run]) -> Vec<f64> {
        let mut s: Vec<f64> = runs.iter().map(|r| r.seconds).collect();
        s.sort_by(f64::total_cmp);
        s
    }

    /// The best (least disturbed) run on all the host threads, in seconds.
    pub fn best(&self) -> f64 {
        Self::seconds(&self.many)
            .first()
            .copied()
            .unwrap_or(f64::NAN)
    }

    /// The median run on all the host threads, in seconds.
    pub fn median(&self) -> f64 {
        let s = Self::seconds(&self.many);
        s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// The slowest run on all the host threads over the fastest.
    pub fn spread(&self) -> f64 {
        let s = Self::seconds(&self.many);
        match (s.first(), s.last()) {
            (Some(a), Some(b)) => b / a.max(1e-12),
            _ => f64::NAN,
        }
    }

    /// The scaling from one host thread to `threads` (the best run of each; the best run on
    /// one thread held to each core), if there were runs on one.
    pub fn scaling(&self, threads: usize) -> Option<Scaling> {
        let one = Self::seconds(&self.one).first().copied()?;
        let mut per_core: Vec<f64> = Vec::new();
        for r in &self.one {
            let c = r.core.unwrap_or(0);
            if per_core.len() <= c {
                per_core.resize(c + 1, f64::INFINITY);
            }
            per_core[c] = per_core[c].min(r.seconds);
        }
        Some(Scaling {
            threads,
            one_thread_seconds: one,
            n_threads_seconds: self.best(),
            one_thread_seconds_per_core: per_core,
        })
    }
}

/// A [`rounds`] contestant: runs the work once on the side asked and returns the seconds it
/// took (timed by the contestant, so that it can leave out set-up such as loading a trace).
pub type Contestant<'a> = dyn FnMut(Side) -> Result<f64, String> + 'a;

/// Measures contestants (engines doing the same work) in interleaved rounds, so that every
/// ratio between them, and every scaling figure, compares runs from the same stretch of time:
/// on a shared host that slows for seconds at a time, engines measured one after the other
/// would each get a different machine.
///
/// After one warm-up run of each contestant on each side, every round runs each contestant
/// once on all the host threads and, with `scale`, once on one thread, held to each host core
/// in turn (round `r` to the `r`-th: a virtual machine's cores do not always run at the same
/// speed, and a one-thread baseline left on a slowed core would flatter the speedup). The
/// contestants' order rotates from round to round, and so does which side of each runs first,
/// so none always runs after the same neighbour. Then `between` runs with the round's number
/// (`warpjit bench` takes a compile-latency sample there, which so spreads over the same
/// stretch). Rounds go on until there are `iters` of them and `seconds` have passed.
/// The first error a contestant returns ends the measurement.
pub fn rounds(
    iters: u32,
    seconds: f64,
    scale: bool,
    contestants: &mut [&mut Contestant<'_>],
    mut between: impl FnMut(usize),
) -> Result<Vec<Runs>, String> {
    let cores = host_cores();
    let timed = |c: &mut Contestant<'_>, side: Side| -> Result<Run, String> {
        let seconds = c(side)?;
        Ok(Run {
            seconds,
            core: match side {
                Side::One(k) => Some(k % cores),
                Side::Many => None,
            },
        })
    };
    for c in contestants.iter_mut() {
        if scale {
            c(Side::One(0))?;
        }
        c(Side::Many)?;
    }
    let n = contestants.len();
    let mut runs = vec![Runs::default(); n];
    let start = Instant::now();
    let mut round = 0;
    while more_rounds(round, iters, start, seconds) {
        for i in 0..n {
            let at = (round + i) % n;
            let c = &mut *contestants[at];
            let sides = match (scale, round % 2 == 0) {
                (false, _) => [Some(Side::Many), None],
                (true, true) => [Some(Side::One(round)), Some(Side::Many)],
                (true, false) => [Some(Side::Many), Some(Side::One(round))],
            };
            for side in sides.into_iter().flatten() {
                let r = timed(c, side)?;
                match side {
                    Side::One(_) => runs[at].one.push(r),
                    Side::Many => runs[at].many.push(r),
                }
            }
        }
        between(round);
        round += 1;
    }
    Ok(runs)
}

/// How a workload's throughput grows from one host thread to several, for one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    /// The host threads of the second measurement.
    pub threads: usize,
    /// Seconds a run takes on one host thread.
    pub one_thread_seconds: f64,
    /// Seconds it takes on `threads` host threads.
    pub n_threads_seconds: f64,
    /// Seconds a run takes on one host thread held to each host core (the best run there; by
    /// core index, infinite for a core no run was held to).
    pub one_thread_seconds_per_core: Vec<f64>,
}

impl Scaling {
    /// How many times faster `threads` host threads run it than one.
    pub fn speedup(&self) -> f64 {
        self.one_thread_seconds / self.n_threads_seconds.max(1e-12)
    }

    /// The speedup `threads` host threads would reach if each ran at the speed one thread had
    /// on its core: the sum, over the `threads` fastest cores, of the best one-thread time over
    /// that core's. On a virtual machine whose cores do not run at one speed this is what the
    /// host allows; it is `threads` only when every core is as fast as the fastest. `None`
    /// when fewer cores than `threads` were measured.
    pub fn ideal_speedup(&self) -> Option<f64> {
        let mut t: Vec<f64> = self
            .one_thread_seconds_per_core
            .iter()
            .copied()
            .filter(|t| t.is_finite())
            .collect();
        t.sort_by(f64::total_cmp);
        let fastest = *t.first()?;
        (t.len() >= self.threads).then(|| {
            t[..self.threads]
                .iter()
                .map(|s| fastest / s.max(1e-12))
                .sum()
        })
    }
}

/// The geometric mean of `xs` (`None` if empty).
pub fn geometric_mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| (xs.iter().map(|r| r.ln()).sum::<f64>() / xs.len() as f64).exp())
}

/// Times `f` and returns its seconds (for a [`rounds`] contestant that times all it does).
pub fn timed(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// How many compile samples, at least, [`compile_latency`] takes the median of.
pub const LATENCY_SAMPLES: usize = 21;

/// One tier-1 compile-latency sample of `prog`, in microseconds per guest instruction: the time
/// a new JIT's tier 1 takes to compile every block of the program (in both variants, any active
/// mask and full warp), divided by twice the program's instruction count. A compile during a
/// run is one such sample, moved by whatever the run left in the caches (`bench --json` gives
/// that time as the JIT's `compile_seconds`). `None` if the host cannot run the JIT or a block
/// fails to compile.
pub fn compile_sample(prog: &Arc<crate::ir::Program>) -> Option<f64> {
    use crate::jit::{Jit, Tier};
    let insts = prog.inst_count().max(1) as f64;
    let jit = Jit::new().ok()?;
    jit.compile_all_tier(prog, Tier::One).ok()?;
    Some(jit.compile_stats().nanos as f64 / 1e3 / (2.0 * insts))
}

/// Tier-1 compile latency of `prog` ([`compile_sample`]): the median of `samples` (taken
/// earlier: `warpjit bench` takes one after each measuring round, the second of two compiles in
/// a row, so that samples spread over the time the engines were measured) and as many more,
/// back to back, as it takes to have [`LATENCY_SAMPLES`]. `None` if a sample cannot be taken.
pub fn compile_latency(prog: &Arc<crate::ir::Program>, mut samples: Vec<f64>) -> Option<f64> {
    while samples.len() < LATENCY_SAMPLES {
        samples.push(compile_sample(prog)?);
    }
    samples.sort_by(f64::total_cmp);
    Some(samples[samples.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A contestant that logs its calls as `(name, side)` and takes the seconds given per side.
    fn logging<'a>(
        name: char,
        log: &'a std::cell::RefCell<Vec<(char, Side)>>,
        one: f64,
        many: f64,
    ) -> impl FnMut(Side) -> Result<f64, String> + 'a {
        move |side| {
            log.borrow_mut().push((name, side));
            Ok(match side {
                Side::One(_) => one,
                Side::Many => many,
            })
        }
    }

    #[test]
    fn rounds_interleave_the_contestants_and_rotate_their_order_and_sides() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = logging('a', &log, 4.0, 2.0);
        let mut b = logging('b', &log, 6.0, 4.0);
        let mut between = Vec::new();
        let runs = rounds(3, 0.0, true, &mut [&mut a, &mut b], |r| between.push(r)).unwrap();
        use Side::*;
        let want = [
            // Warm-ups, then round 0 (one thread first), 1 (b first, many first), 2.
            ('a', One(0)),
            ('a', Many),
            ('b', One(0)),
            ('b', Many),
            ('a', One(0)),
            ('a', Many),
            ('b', One(0)),
            ('b', Many),
            ('b', Many),
            ('b', One(1)),
            ('a', Many),
            ('a', One(1)),
            ('a', One(2)),
            ('a', Many),
            ('b', One(2)),
            ('b', Many),
        ];
        assert_eq!(log.borrow().as_slice(), &want[..]);
        assert_eq!(between, [0, 1, 2]);
        assert_eq!((runs[0].one.len(), runs[0].many.len()), (3, 3));
        let s = runs[1].scaling(2).unwrap();
        assert_eq!((s.one_thread_seconds, s.n_threads_seconds), (6.0, 4.0));
        assert_eq!(s.speedup(), 1.5);
    }

    #[test]
    fn without_scaling_only_the_many_side_runs() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = logging('a', &log, 1.0, 1.0);
        let runs = rounds(2, 0.0, false, &mut [&mut a], |_| {}).unwrap();
        assert!(log.borrow().iter().all(|(_, s)| *s == Side::Many));
        assert_eq!(log.borrow().len(), 3, "a warm-up and two rounds");
        assert_eq!(runs[0].scaling(2), None);
    }

    #[test]
    fn a_contestant_error_ends_the_measurement() {
        let mut calls = 0;
        let mut bad = |_| {
            calls += 1;
            if calls == 3 {
                Err("fault".to_string())
            } else {
                Ok(1.0)
            }
        };
        assert_eq!(
            rounds(5, 0.0, true, &mut [&mut bad], |_| {}),
            Err("fault".to_string())
        );
        assert_eq!(calls, 3);
    }

    #[test]
    fn runs_summarise_best_median_and_spread() {
        let r = |s: f64, core: Option<usize>| Run { seconds: s, core };
        let runs = Runs {
            many: vec![r(3.0, None), r(1.0, None), r(2.0, None)],
            one: vec![r(4.0, Some(0))],
        };
        assert_eq!((runs.best(), runs.median(), runs.spread()), (1.0, 2.0, 3.0));
        // One core measured: no ideal for two threads.
        assert_eq!(runs.scaling(2).unwrap().ideal_speedup(), None);
    }

    /// The ideal speedup adds, over the fastest cores, each core's speed relative to the fastest
    /// (its best one-thread run), and the rounds record which core each such run was held to.
    #[test]
    fn the_ideal_speedup_follows_each_cores_best_run() {
        let r = |s: f64, core: usize| Run {
            seconds: s,
            core: Some(core),
        };
        let runs = Runs {
            many: vec![r(1.0, 0)],
            one: vec![r(3.0, 0), r(4.0, 1), r(2.0, 0), r(5.0, 1)],
        };
        let s = runs.scaling(2).unwrap();
        assert_eq!(s.one_thread_seconds_per_core, [2.0, 4.0]);
        assert_eq!(s.ideal_speedup(), Some(1.5));
        assert_eq!(runs.scaling(1).unwrap().ideal_speedup(), Some(1.0));
        assert_eq!(runs.scaling(3).unwrap().ideal_speedup(), None);
        let mut a = |_| Ok(1.0);
        let measured = rounds(4, 0.0, true, &mut [&mut a], |_| {}).unwrap();
        let cores: Vec<Option<usize>> = measured[0].one.iter().map(|r| r.core).collect();
        let n = host_cores();
        assert_eq!(cores, (0..4).map(|k| Some(k % n)).collect::<Vec<_>>());
    }
}
