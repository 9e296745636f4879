//! Random valid SASS programs and a differential check of the two engines (feature `testgen`).
//!
//! [`Case::generate`] turns a byte string (through [`arbitrary::Unstructured`]) into a [`Case`]:
//! a SASS program that the assembler accepts, a launch shape and the contents of memory. Running
//! out of bytes always picks the simplest choice, so a shorter input gives a smaller program and
//! shrinking the bytes (proptest, `cargo fuzz tmin`) shrinks the program.
//!
//! Every generated program has the same frame ([`gen`](self) writes it):
//! - a prologue that computes the global thread id into `R24`, the CTA-local thread id into
//!   `R25`, the lane id into `R27`, and fills `R0..R19` with per-lane values;
//! - random code from the chosen [`Profile`] over `R0..R19` (`R16..R19` double as address
//!   scratch, `R20..R23` are loop counters, `R24..R27` are read only);
//! - an epilogue that makes the whole per-thread state observable: `P2R R29, CC, RZ, 0xf` and
//!   `P2R R28, PR, RZ, 0x7f`, then `R0..R29` stored with `STG.E` to the thread's slot of
//!   [`layout::OUT`] (at `OUT + gid * SLOT`), and 16 bytes of shared memory per thread; or,
//!   for [`Frame::Minimal`], only what the random code can have changed; [`Frame::Bare`] has
//!   none (only what the random code stores is observable: for checking the static analyses).
//!
//! [`check`] runs the interpreter once and the JIT two or three times (fresh machine each time:
//! twice at tier 1, the second run reusing the code compiled by the first, then, in a quarter of
//! the cases, once with every block recompiled by tier 2) and requires bit-identical results: the same `Ok` statistics (`warps`,
//! `warp_insts`, `lane_insts`, `yields`) or the same [`Fault`] (kind, launch, CTA, warp, lane, pc), and
//! the same bytes in every global segment afterwards (also after a fault). It also compiles
//! every block in both JIT variants (any active mask and full warp) at both tiers, so a block
//! that Cranelift rejects is reported instead of silently interpreted.

pub mod dxbc;
mod gen;
pub mod hostile;

use crate::exec::{Engine, Launch, Machine, RunOptions, Stats};
use crate::interp::Interpreter;
use crate::jit::{Jit, Tier};
use crate::sass::{parse_program, AsmOptions};
use arbitrary::{Arbitrary, Unstructured};
use std::fmt;
use std::sync::Arc;
use warpjit_runtime::memory::Init;
use warpjit_runtime::{BankMode, ConstBanks, Fault, DEFAULT_SHARED_WINDOW};

/// The memory map every case uses (all of it below 4 GiB except `HIGH` and `TOP`).
///
/// Segment sizes are mostly not multiples of 16, so that a 16-byte access can straddle a
/// segment's end; a segment sits at address 0 and one ends just below 2^64, so that address
/// arithmetic and bound checks that wrap around the 64-bit space are exercised.
pub mod layout {
    /// Per-thread output slots: thread `gid` owns `[OUT + gid * SLOT, + SLOT)`.
    pub const OUT: u64 = 0x0040_0000;
    /// Local memory per thread of every generated case (LDL/STL offsets stay below it unless
    /// an access is meant to fault).
    pub const LOCAL_BYTES: u32 = 0x40;
    /// Bytes per output slot: `R0..R27` at 0x00, the two P2R words at 0x70, shared memory at
    /// 0x80.
    pub const SLOT: u64 = 0x100;
    /// First data segment (random contents); its second 64 KiB tile may be sparse.
    pub const SEG1: u64 = 0x0010_0000;
    /// Size of [`SEG1`]: it ends 8 bytes before a 16-byte boundary.
    pub const SEG1_SIZE: u64 = 0x2_fff8;
    /// Second data segment, right after [`SEG1`]: a 16-byte access at `SEG2 - 8` straddles both
    /// and faults.
    pub const SEG2: u64 = SEG1 + SEG1_SIZE;
    /// Size of [`SEG2`].
    pub const SEG2_SIZE: u64 = 0x1_0008;
    /// The tile of [`SEG1`] marked non-resident when `Case::sparse` is set.
    pub const SPARSE_TILE: u64 = 0x0011_0000;
    /// A base near the [`SEG1`]/[`SEG2`] boundary.
    pub const EDGE: u64 = 0x0012_ff00;
    /// A segment above 4 GiB (only `.E` forms reach it); its second tile may be sparse.
    pub const HIGH: u64 = 0x1_0000_0000;
    /// Size of [`HIGH`].
    pub const HIGH_SIZE: u64 = 0x2_0000;
    /// Size of the global segment mapped at the shared window base when
    /// `Case::window_segment` is set (LDG and LD steered global reach it, LD steered shared
    /// does not).
    pub const WINSEG_SIZE: u64 = 0x1000;
    /// A segment at address 0 (reached by absolute and 32-bit addresses; an address computed
    /// below it wraps to the top of the 64-bit space).
    pub const ZERO: u64 = 0;
    /// Size of [`ZERO`]: it ends 4 bytes past a 16-byte boundary.
    pub const ZERO_SIZE: u64 = 0x1004;
    /// A segment at the top of the 64-bit space (only `.E` forms reach it).
    pub const TOP: u64 = 0xffff_ffff_ffff_f000;
    /// Size of [`TOP`]: it ends at 2^64 - 12, so the last 12 addresses of the space are
    /// unmapped, and a 16-byte access at 2^64 - 16 straddles its end (a segment that ends
    /// exactly at 2^64 is covered by `tests/memory_edges.rs`).
    pub const TOP_SIZE: u64 = 0xff4;
    /// A small segment whose size is one of [`ODD_SIZES`] (per case).
    pub const ODD: u64 = 0x0020_0000;
    /// The sizes [`ODD`] can have: none a multiple of 16, some smaller than 16.
    pub const ODD_SIZES: [u64; 8] = [0x401, 0x1008, 0x7f4, 0x3, 0x10c, 0xff9, 0x2001, 0x18];
    /// Where the kernel parameters (64-bit bases) live in `c[0x0]`.
    pub const PARAMS: u16 = 0x140;
    /// Parameter offsets in `c[0x0]`: OUT, SEG1, EDGE, HIGH, shared window, TOP, ODD, ZERO (lo,
    /// hi words).
    pub const P_OUT: u16 = 0x140;
    /// See [`P_OUT`].
    pub const P_SEG1: u16 = 0x148;
    /// See [`P_OUT`].
    pub const P_EDGE: u16 = 0x150;
    /// See [`P_OUT`].
    pub const P_HIGH: u16 = 0x158;
    /// See [`P_OUT`].
    pub const P_WIN: u16 = 0x160;
    /// See [`P_OUT`].
    pub const P_TOP: u16 = 0x168;
    /// See [`P_OUT`].
    pub const P_ODD: u16 = 0x170;
    /// See [`P_OUT`].
    pub const P_ZERO: u16 = 0x178;
    /// Random constant data: `c[b][0x0..0x400]` (for bank 0 from 0x180 on) and
    /// `c[b][0xff00..0x10000]` in every bank.
    pub const CONST_DATA: u16 = 0x180;
}

use layout::*;

/// Which kinds of code the generator writes (besides the fixed prologue and epilogue).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Straight-line ALU code: every ALU op of the op table with random modifiers, guards, and
    /// chains through CC (`.CC`/`.X` adds, LEA chains, wide ISETP.X compares, XMAD idioms).
    Alu,
    /// Control flow: divergent if/else with and without SSY/SYNC, uniform and divergent
    /// counted loops, CC-driven loops, endless loops (budget faults), guarded and CC EXIT,
    /// BAR.SYNC (also inside divergent code: partial warps and deadlocks), shared memory
    /// exchanged across warps.
    Control,
    /// Memory: LDC in every mode and size, LDG/STG (`.E` and 32-bit, absolute, Ps, sparse
    /// tiles, the segment boundary, above 4 GiB), LD/ST steered by LEA's Plg or any predicate,
    /// LDS/STS, in and out of range.
    Memory,
    /// Everything.
    Mixed,
    /// Mostly global accesses of mixed sizes at segment ends and starts: loops walking toward
    /// and off them (several blocks per loop body), accesses straddling them, at address 0, at
    /// the top of the 64-bit space and wrapping around it (see [`layout`]).
    Edges,
    /// The control-flow shapes that made loading slow ([`hostile`]), small and with random code
    /// inside: subroutines (called from several places, nested, recursive), nests of up to 24
    /// `SSY`s, `PBK`s or `PCNT`s, chains of backward jumps, a block per statement, fans of
    /// branches on the lane id, chains of divergent regions.
    Hostile,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 6] = [
        Profile::Alu,
        Profile::Control,
        Profile::Memory,
        Profile::Mixed,
        Profile::Edges,
        Profile::Hostile,
    ];
}

/// One generated test: a program, its launch and the initial memory.
#[derive(Clone, PartialEq, Eq)]
pub struct Case {
    /// SASS text (prologue, random code, epilogue).
    pub text: String,
    /// Registers the launch gives the program (`AsmOptions::registers`).
    pub registers: u32,
    /// CTAs per grid.
    pub grid: [u32; 3],
    /// Threads per CTA.
    pub block: [u32; 3],
    /// Constant-bank mode.
    pub mode: BankMode,
    /// Shared memory bytes per CTA.
    pub shared_bytes: u32,
    /// Local memory bytes per thread.
    pub local_bytes: u32,
    /// Per-warp instruction budget.
    pub budget: u64,
    /// Seed of the random contents of the data segments and constant banks.
    pub seed: u64,
    /// Mark [`layout::SPARSE_TILE`] and the second tile of [`layout::HIGH`] non-resident.
    pub sparse: bool,
    /// Map a global segment at the shared window base.
    pub window_segment: bool,
    /// JIT tiering threshold (executions of a block before it is compiled).
    pub threshold: u32,
    /// Size of the segment at [`layout::ODD`] (one of [`layout::ODD_SIZES`]).
    pub odd_size: u64,
    /// Whether [`check`] also recompiles every block at tier 2 and runs that code (the tier-2
    /// compile of every block is most of the cost of a case, so only some cases do it).
    pub tier2: bool,
    /// What the epilogue stores (set by the generator: [`Case::generate_with`]).
    pub frame: Frame,
    /// The words of the switches' jump tables in constant bank 2, `(offset, value)`: the pcs
    /// of their cases (written over the bank's random data).
    pub jump_tables: Vec<(u32, u32)>,
    /// The machine's quantum (docs/semantics.md §9): mostly a few instructions, so that warps'
    /// turns end inside generated loops and code, where both engines must end them alike.
    pub quantum: u64,
}

/// How much of a thread's state the prologue sets and the epilogue stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The prologue fills `R0..R19`; the epilogue stores `R0..R27` (at 0x00 of the thread's
    /// slot), the P2R words of PR and CC (0x70) and 16 bytes of shared memory (0x80).
    Full,
    /// The epilogue stores only the 16-byte groups of the slot that hold a register the random
    /// code writes, the P2R words, and shared memory if the code stores there; the prologue fills
    /// only the registers the code reads or the epilogue stores. What is stored is what the full
    /// frame stores there, and what is not stored the random code did not change: the same
    /// state is observable in less code, and small cases compile several times faster (the fuzz
    /// target uses it).
    Minimal,
    /// No epilogue: the prologue and the random code, then `EXIT`. Only what the random code
    /// stores to memory (and the counts or the fault) is observable, so most register, predicate
    /// and flag values are dead: the cases `tests/analyses.rs` checks liveness and uniformity on
    /// (half of them; the other half use [`Frame::Minimal`]).
    Bare,
}

impl fmt::Debug for Case {
    /// Prints the case as Rust code that rebuilds it (paste it into a regression test).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Case {{")?;
        writeln!(f, "    text: r#\"\n{}\"#", self.text)?;
        writeln!(f, "    .into(),")?;
        writeln!(f, "    registers: {},", self.registers)?;
        writeln!(f, "    grid: {:?},", self.grid)?;
        writeln!(f, "    block: {:?},", self.block)?;
        writeln!(f, "    mode: BankMode::{:?},", self.mode)?;
        writeln!(f, "    shared_bytes: {},", self.shared_bytes)?;
        writeln!(f, "    local_bytes: {},", self.local_bytes)?;
        writeln!(f, "    budget: {},", self.budget)?;
        writeln!(f, "    seed: {:#x},", self.seed)?;
        writeln!(f, "    sparse: {},", self.sparse)?;
        writeln!(f, "    window_segment: {},", self.window_segment)?;
        writeln!(f, "    threshold: {},", self.threshold)?;
        writeln!(f, "    odd_size: {:#x},", self.odd_size)?;
        writeln!(f, "    tier2: {},", self.tier2)?;
        writeln!(f, "    frame: Frame::{:?},", self.frame)?;
        writeln!(f, "    jump_tables: vec!{:#x?},", self.jump_tables)?;
        writeln!(f, "    quantum: {},", self.quantum)?;
        write!(f, "}}")
    }
}

impl<'a> Arbitrary<'a> for Case {
    /// A case of any [`Profile`] (the first byte picks it).
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let profile = *u.choose(&Profile::ALL).unwrap_or(&Profile::Mixed);
        Ok(Case::generate(u, profile))
    }
}

/// xorshift64*: the deterministic filler of memory and constants.
struct Fill(u64);

impl Fill {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0; n];
        self.fill(&mut v);
        v
    }
    /// Fills `out` with the bytes [`Fill::bytes`] gives for its length.
    fn fill(&mut self, out: &mut [u8]) {
        let mut chunks = out.chunks_exact_mut(8);
        for chunk in &mut chunks {
            chunk.copy_from_slice(&self.next().to_le_bytes());
        }
        let tail = chunks.into_remainder();
        if !tail.is_empty() {
            let n = tail.len();
            tail.copy_from_slice(&self.next().to_le_bytes()[..n]);
        }
    }
}

impl Case {
    /// Generates a case of `profile` from the bytes left in `u` (never fails: missing bytes
    /// read as the simplest choice).
    pub fn generate(u: &mut Unstructured<'_>, profile: Profile) -> Case {
        gen::generate(u, profile, Frame::Full)
    }

    /// [`Case::generate`] with the given frame (the same random code from the same bytes; only
    /// the prologue's register fills and the epilogue differ).
    pub fn generate_with(u: &mut Unstructured<'_>, profile: Profile, frame: Frame) -> Case {
        gen::generate(u, profile, frame)
    }

    /// [`Case::generate`] from a byte string.
    pub fn from_bytes(bytes: &[u8], profile: Profile) -> Case {
        Case::generate(&mut Unstructured::new(bytes), profile)
    }

    /// [`Case::generate_with`] from a byte string.
    pub fn from_bytes_with(bytes: &[u8], profile: Profile, frame: Frame) -> Case {
        Case::generate_with(&mut Unstructured::new(bytes), profile, frame)
    }

    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u64 {
        self.block.iter().map(|&v| v as u64).product()
    }

    /// Threads in the grid.
    pub fn threads(&self) -> u64 {
        self.threads_per_cta() * self.grid.iter().map(|&v| v as u64).product::<u64>()
    }

    /// The global segments as (base, size), in address order.
    pub fn segments(&self) -> Vec<(u64, u64)> {
        let mut v = vec![
            (ZERO, ZERO_SIZE),
            (TOP, TOP_SIZE),
            (ODD, self.odd_size),
            (SEG1, SEG1_SIZE),
            (SEG2, SEG2_SIZE),
            (OUT, self.threads() * SLOT),
            (HIGH, HIGH_SIZE),
        ];
        if self.window_segment {
            v.push((DEFAULT_SHARED_WINDOW, WINSEG_SIZE));
        }
        v.sort_unstable();
        v
    }

    /// A fresh machine: the segments with their initial contents (the output zeroed).
    pub fn machine(&self) -> Result<Machine, String> {
        self.machine_from(&self.initial_memory())
    }

    /// The initial contents of every segment, as `(base, bytes)` (the output area empty: it
    /// starts zeroed). Make them once to build several machines with [`Case::machine_from`].
    pub fn initial_memory(&self) -> Vec<(u64, Vec<u8>)> {
        let mut fill = Fill(self.seed | 1);
        self.segments()
            .into_iter()
            .map(|(base, size)| {
                let init = if base == OUT {
                    Vec::new()
                } else {
                    fill.bytes(size as usize)
                };
                (base, init)
            })
            .collect()
    }

    /// A fresh machine holding `memory` ([`Case::initial_memory`]).
    pub fn machine_from(&self, memory: &[(u64, Vec<u8>)]) -> Result<Machine, String> {
        let mut m = Machine {
            quantum: self.quantum,
            ..Machine::default()
        };
        for ((base, size), (b, init)) in self.segments().into_iter().zip(memory) {
            debug_assert_eq!(base, *b);
            m.global
                .map(base, size, Init::Bytes(init))
                .map_err(|e| e.to_string())?;
        }
        if self.sparse {
            for tile in [SPARSE_TILE, HIGH + 0x1_0000] {
                m.global
                    .mark_sparse(tile, 0x1_0000)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(m)
    }

    /// The constant banks: launch constants and parameters in `c[0x0]`, random data elsewhere.
    pub fn consts(&self) -> ConstBanks {
        let mut c = ConstBanks::new();
        self.write_consts(&mut c);
        c
    }

    /// Writes [`Case::consts`] into banks that hold the constants of this or of another case:
    /// every byte any case writes is written (the local-memory words as 0 when the case has
    /// none), so the banks end up equal to fresh ones. A fuzzer reuses one set of banks
    /// instead of zeroing 2 MiB per case.
    pub fn write_consts(&self, c: &mut ConstBanks) {
        let mut fill = Fill(self.seed.rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15);
        let mut buf = [0; 0x400];
        for bank in 0..32 {
            let lo = if bank == 0 { CONST_DATA } else { 0 };
            let low = &mut buf[..0x400 - lo as usize];
            fill.fill(low);
            c.write(bank, lo as u32, low);
            fill.fill(&mut buf[..0x100]);
            c.write(bank, 0xff00, &buf[..0x100]);
        }
        let word = |c: &mut ConstBanks, off: u16, v: u32| {
            c.write(0, off as u32, &v.to_le_bytes());
        };
        let window = DEFAULT_SHARED_WINDOW;
        word(c, 0x0, window as u32);
        for i in 0..3 {
            word(c, 0x8 + 4 * i as u16, self.block[i]);
            word(c, 0x14 + 4 * i as u16, self.grid[i]);
        }
        word(c, 0xfc, self.shared_bytes);
        let local_window = if self.local_bytes > 0 {
            warpjit_runtime::DEFAULT_LOCAL_WINDOW as u32
        } else {
            0
        };
        word(c, 0x4, local_window);
        for &(off, v) in &self.jump_tables {
            c.write(2, off, &v.to_le_bytes());
        }
        word(c, 0x20, self.local_bytes);
        for (off, v) in [
            (P_OUT, OUT),
            (P_SEG1, SEG1),
            (P_EDGE, EDGE),
            (P_HIGH, HIGH),
            (P_WIN, window),
            (P_TOP, TOP),
            (P_ODD, ODD),
            (P_ZERO, ZERO),
        ] {
            word(c, off, v as u32);
            word(c, off + 4, (v >> 32) as u32);
        }
    }

    /// Assembles the program and builds the launch.
    pub fn launch(&self) -> Result<Launch, String> {
        self.launch_with(Arc::new(self.consts()))
    }

    /// [`Case::launch`] with constant banks the caller made ([`Case::write_consts`]).
    pub fn launch_with(&self, consts: Arc<ConstBanks>) -> Result<Launch, String> {
        let prog = parse_program(
            &self.text,
            &AsmOptions {
                registers: self.registers,
            },
        )
        .map_err(|e| format!("generated program does not assemble: {e}\n{self:?}"))?;
        Ok(Launch {
            index: 0,
            program: Arc::new(prog),
            grid: self.grid,
            block: self.block,
            mode: self.mode,
            shared_bytes: self.shared_bytes,
            local_bytes: self.local_bytes,
            consts,
            budget: self.budget,
            cooperative: false,
        })
    }

    /// Runs `launch` (built by [`Case::launch`]) once on a fresh machine, on one host thread
    /// (so that CTAs run in order and racing CTAs cannot make the memory differ).
    pub fn run(&self, engine: &dyn Engine, launch: &Launch) -> Result<Outcome, String> {
        let machine = self.machine()?;
        let opts = RunOptions {
            threads: 1,
            ..RunOptions::default()
        };
        let result = engine.run(&machine, launch, &opts);
        let mut memory = Vec::new();
        for (base, size) in self.segments() {
            let bytes = machine
                .global
                .read_bytes(base, size)
                .map_err(|e| e.to_string())?;
            memory.push((base, bytes));
        }
        Ok(Outcome {
            result: result.map(Counts::from),
            stats: result.ok(),
            memory,
        })
    }

    /// What a byte of global memory is, for mismatch reports.
    fn describe(&self, addr: u64) -> String {
        if (OUT..OUT + self.threads() * SLOT).contains(&addr) {
            let gid = (addr - OUT) / SLOT;
            let off = (addr - OUT) % SLOT;
            let what = match off {
                0..0x70 => format!("R{}", off / 4),
                0x70..0x74 => "P2R PR (P0..P6)".to_string(),
                0x74..0x78 => "P2R CC (ZF SF CF OF)".to_string(),
                0x80..0x90 => format!("shared word {}", (off - 0x80) / 4),
                _ => "unused".to_string(),
            };
            format!("output of thread {gid}, {what}")
        } else {
            let name = [
                (ZERO, ZERO_SIZE, "ZERO"),
                (SEG1, SEG1_SIZE, "SEG1"),
                (SEG2, SEG2_SIZE, "SEG2"),
                (ODD, self.odd_size, "ODD"),
                (HIGH, HIGH_SIZE, "HIGH"),
                (TOP, TOP_SIZE, "TOP"),
            ]
            .iter()
            .find(|(b, s, _)| addr >= *b && addr - b < *s)
            .map_or("window", |t| t.2);
            format!("data segment {name}")
        }
    }
}

/// The counts both engines must agree on (the others are engine-specific).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Warps run.
    pub warps: u64,
    /// Warp instructions issued.
    pub warp_insts: u64,
    /// Lane instructions issued.
    pub lane_insts: u64,
    /// Misaligned lane accesses aligned down.
    pub misaligned: u64,
    /// Warp turns ended at the quantum.
    pub yields: u64,
}

impl From<Stats> for Counts {
    fn from(s: Stats) -> Counts {
        Counts {
            warps: s.warps,
            warp_insts: s.warp_insts,
            lane_insts: s.lane_insts,
            misaligned: s.misaligned,
            yields: s.yields,
        }
    }
}

/// What one run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The engine's result (counts on success).
    pub result: Result<Counts, Fault>,
    /// The full statistics on success.
    pub stats: Option<Stats>,
    /// Every segment's bytes after the run, as (base, bytes).
    pub memory: Vec<(u64, Vec<u8>)>,
}

/// Compares two outcomes; `Err` describes the differences.
pub fn compare(case: &Case, want: &Outcome, got: &Outcome) -> Result<(), String> {
    let mut msg = String::new();
    if want.result != got.result {
        msg += &format!(
            "results differ:\n  interpreter: {:?}\n  jit:         {:?}\n",
            want.result, got.result
        );
    }
    let mut shown = 0;
    let mut total = 0usize;
    for ((base, a), (_, b)) in want.memory.iter().zip(&got.memory) {
        if a == b {
            continue;
        }
        for (i, (x, y)) in a.chunks(4).zip(b.chunks(4)).enumerate() {
            if x != y {
                total += 1;
                if shown < 12 {
                    shown += 1;
                    let addr = base + 4 * i as u64;
                    let w = |v: &[u8]| {
                        v.iter()
                            .rev()
                            .map(|b| format!("{b:02x}"))
                            .collect::<String>()
                    };
                    msg += &format!(
                        "  memory at {addr:#x} ({}): interpreter {}, jit {}\n",
                        case.describe(addr),
                        w(x),
                        w(y)
                    );
                }
            }
        }
    }
    if total > 0 {
        msg = format!("{msg}  ({total} differing words in all)\n");
    }
    if msg.is_empty() {
        Ok(())
    } else {
        Err(msg)
    }
}

/// A summary of a checked case (for coverage statistics).
#[derive(Clone, Debug)]
pub struct Checked {
    /// The interpreter's outcome (the JIT's is identical).
    pub outcome: Outcome,
    /// Blocks the JIT compiled while running (both runs).
    pub compiled_in_runs: u64,
}

/// Runs `case` under the interpreter once and under `candidate` `runs` times, each on a fresh
/// machine, and requires identical outcomes. Returns the interpreter's outcome; `Err` is a
/// report with the case as a reproducer.
pub fn differential(case: &Case, candidate: &dyn Engine, runs: u32) -> Result<Outcome, String> {
    agree(case, &case.launch()?, candidate, candidate.name(), runs)
}

fn agree(
    case: &Case,
    launch: &Launch,
    candidate: &dyn Engine,
    what: &str,
    runs: u32,
) -> Result<Outcome, String> {
    let want = case.run(&Interpreter, launch)?;
    for pass in 1..=runs {
        let got = case.run(candidate, launch)?;
        compare(case, &want, &got).map_err(|m| {
            format!("interpreter and {what} disagree (run {pass} of {runs}):\n{m}\n{case:?}")
        })?;
    }
    Ok(want)
}

/// The differential check of the JIT, against a new JIT with tiering threshold
/// `case.threshold`:
/// 1. two runs at tier 1 (the second reuses the code the first compiled); tier 2 is kept off so
///    that the runs are reproducible;
/// 2. every block compiled by tier 1 in both variants (any active mask and full warp): a block
///    Cranelift rejects would otherwise run interpreted without notice;
/// 3. when `case.tier2` is set: every block recompiled by tier 2 in both variants, and one more
///    run on that code;
/// 4. no instruction of any block compiled declined by its op's lowering (`Lower` returning
///    `false`, which would run the interpreter's code and so agree with it by construction;
///    [`CompileStats::declined`](crate::jit::CompileStats::declined)).
pub fn check(case: &Case) -> Result<Checked, String> {
    let mut jit = Jit::new().map_err(|e| e.to_string())?;
    jit.threshold = case.threshold;
    jit.hot_threshold = u32::MAX;
    let launch = case.launch()?;
    let outcome = agree(case, &launch, &jit, "the JIT (tier 1)", 2)?;
    let compiled_in_runs = jit.compile_stats().blocks;
    let tiers: &[Tier] = if case.tier2 {
        &[Tier::One, Tier::Two]
    } else {
        &[Tier::One]
    };
    for &tier in tiers {
        jit.compile_all_tier(&launch.program, tier)
            .map_err(|e| format!("the JIT cannot compile a block at {tier:?}: {e}\n{case:?}"))?;
    }
    if case.tier2 {
        agree(case, &launch, &jit, "the JIT (tier 2, every block)", 1)?;
    }
    // Every block is compiled now: an instance some op's lowering declined (to run the
    // interpreter's code instead) would have passed the comparisons unnoticed.
    let declined = jit.compile_stats().declined;
    if declined != 0 {
        return Err(format!(
            "the JIT's lowerings declined {declined} instructions (run by the interpreter's code)\n{case:?}"
        ));
    }
    Ok(Checked {
        outcome,
        compiled_in_runs,
    })
}
