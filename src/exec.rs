//! What every engine runs: the machine, a launch, run options and statistics.
//!
//! Engines (the interpreter in [`crate::interp`], the JIT in [`crate::jit`]) implement [`Engine`]; the
//! runner builds a [`Machine`] and [`Launch`]es from a trace file and hands them to one.

use crate::ir::Program;
use std::sync::{Arc, Mutex};
use warpjit_runtime::{BankMode, ConstBanks, Fault, GlobalMemory, DEFAULT_SHARED_WINDOW};

/// The state launches share: global memory, the generic shared window and the launch budget.
pub struct Machine {
    /// Global memory segments and sparse tiles.
    pub global: GlobalMemory,
    /// Base of the 16 MiB shared window. Both engines accept any base; trace files keep it
    /// below 4 GiB and 16 MiB aligned.
    pub shared_window: u64,
    /// The launch budget: warp instructions any one launch may issue in all, shared equally
    /// among its CTAs (see [`Launch::cta_share`]). Default [`DEFAULT_LAUNCH_BUDGET`].
    pub launch_budget: u64,
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            global: GlobalMemory::new(),
            shared_window: DEFAULT_SHARED_WINDOW,
            launch_budget: DEFAULT_LAUNCH_BUDGET,
        }
    }
}

/// Default per-warp instruction budget (warp instructions issued by one warp in one launch).
pub const DEFAULT_BUDGET: u64 = 100_000_000;

/// Default launch budget ([`Machine::launch_budget`]): 2^28 warp instructions per launch (about
/// 8.6 * 10^9 lane-instructions in full warps; 7.7 times `benches/traces/loop_1g.toml`).
pub const DEFAULT_LAUNCH_BUDGET: u64 = 1 << 28;

/// Most threads (grid × block) one launch may have: 2^30, checked when a trace is loaded.
pub const MAX_LAUNCH_THREADS: u64 = 1 << 30;

/// What starting a CTA costs its share of the launch budget, besides one instruction per warp and
/// one per [`SHARED_BYTES_PER_INST`] bytes of shared memory: about the host time of 16 compiled
/// warp instructions.
pub const CTA_START_INSTS: u64 = 16;

/// Shared memory zeroed at a CTA's start that costs one instruction of the launch budget.
pub const SHARED_BYTES_PER_INST: u64 = 256;

/// One kernel launch, ready to run.
#[derive(Clone)]
pub struct Launch {
    /// 0-based index in the trace (file order), reported in faults.
    pub index: u32,
    /// The program.
    pub program: Arc<Program>,
    /// CTAs per grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads per CTA (x, y, z).
    pub block: [u32; 3],
    /// Constant-bank mode.
    pub mode: BankMode,
    /// Shared memory bytes per CTA.
    pub shared_bytes: u32,
    /// The constant banks as this launch sees them (launch constants already filled in).
    pub consts: Arc<ConstBanks>,
    /// Per-warp instruction budget.
    pub budget: u64,
}

impl Launch {
    /// A launch of `program` over `consts` with the trace format's defaults: launch index 0, one
    /// CTA of 32 threads, compute mode, no shared memory, the default per-warp budget. Set other
    /// fields with struct-update syntax: `Launch { grid: [4, 1, 1], ..Launch::new(p, c) }`.
    pub fn new(program: Arc<Program>, consts: ConstBanks) -> Launch {
        Launch {
            index: 0,
            program,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            mode: BankMode::Compute,
            shared_bytes: 0,
            consts: Arc::new(consts),
            budget: DEFAULT_BUDGET,
        }
    }

    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u64 {
        self.block.iter().map(|&v| v as u64).product()
    }
    /// Warps per CTA.
    pub fn warps_per_cta(&self) -> u64 {
        self.threads_per_cta().div_ceil(32)
    }
    /// CTAs in the grid.
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&v| v as u64).product()
    }
    /// Threads in the launch (grid × block).
    pub fn threads(&self) -> u128 {
        self.ctas() as u128 * self.threads_per_cta() as u128
    }
    /// Each CTA's share of a launch budget of `launch_budget` warp instructions:
    /// `launch_budget / ctas` (rounded down). A CTA's warps draw on it in the order they run.
    pub fn cta_share(&self, launch_budget: u64) -> u64 {
        launch_budget
            .checked_div(self.ctas())
            .unwrap_or(launch_budget)
    }
    /// What starting one CTA costs against its share of the launch budget: [`CTA_START_INSTS`],
    /// plus one instruction per warp and one per [`SHARED_BYTES_PER_INST`] bytes of shared memory
    /// (zeroed at the start).
    pub fn cta_start_cost(&self) -> u64 {
        CTA_START_INSTS
            + self.warps_per_cta()
            + (self.shared_bytes as u64).div_ceil(SHARED_BYTES_PER_INST)
    }
}

/// A `--check` diagnostic: undefined or suspicious behaviour that got a defined result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Launch index.
    pub launch: u32,
    /// CTA coordinates.
    pub cta: [u32; 3],
    /// Warp within the CTA.
    pub warp: u32,
    /// Lane.
    pub lane: u32,
    /// Guest pc.
    pub pc: u32,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "check: {} (launch {}, CTA ({}, {}, {}), warp {}, lane {}, pc {:#06x})",
            self.message,
            self.launch,
            self.cta[0],
            self.cta[1],
            self.cta[2],
            self.warp,
            self.lane,
            self.pc
        )
    }
}

/// Collected diagnostics (shared across host threads; capped).
#[derive(Default)]
pub struct Diagnostics {
    list: Mutex<Vec<Diagnostic>>,
}

/// Most diagnostics kept per run.
pub const MAX_DIAGNOSTICS: usize = 1000;

impl Diagnostics {
    /// Records one (dropped past [`MAX_DIAGNOSTICS`]).
    pub fn push(&self, d: Diagnostic) {
        if let Ok(mut l) = self.list.lock() {
            if l.len() < MAX_DIAGNOSTICS {
                l.push(d);
            }
        }
    }
    /// Takes the collected diagnostics, sorted by (launch, CTA, warp, pc, lane) so the output does
    /// not depend on host thread timing.
    pub fn take(&self) -> Vec<Diagnostic> {
        let mut v = self
            .list
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        v.sort_by_key(|d| (d.launch, d.cta[2], d.cta[1], d.cta[0], d.warp, d.pc, d.lane));
        v
    }
}

/// Most host threads a launch runs CTAs on: 4 × the host's available parallelism (more would
/// only add threads, not speed). [`RunOptions::threads`] above it is clamped to it; `warpjit run`
/// rejects it.
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()) * 4
}

/// How to run.
pub struct RunOptions {
    /// Host threads for CTAs (0 = all cores; more than [`max_threads`] is clamped to it).
    pub threads: usize,
    /// Report undefined behaviour as diagnostics.
    pub check: bool,
    /// Where diagnostics go.
    pub diagnostics: Arc<Diagnostics>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            threads: 0,
            check: false,
            diagnostics: Arc::new(Diagnostics::default()),
        }
    }
}

/// Work counted while running.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Warps run.
    pub warps: u64,
    /// Warp instructions issued (each executed instruction of a warp, whatever its mask).
    pub warp_insts: u64,
    /// Lane instructions: for each issued instruction, the number of active lanes.
    pub lane_insts: u64,
    /// Blocks run by the interpreter where a JIT engine fell back to it.
    pub interp_blocks: u64,
    /// Instruction executions inside compiled blocks that were delegated to the interpreter's
    /// code (instructions without an inline lowering).
    pub delegated: u64,
    /// Slow-path runs of inline memory instructions in compiled blocks (an address outside the
    /// instruction's cached segment, a sparse tile, or a fault).
    pub slow_paths: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.warps += o.warps;
        self.warp_insts += o.warp_insts;
        self.lane_insts += o.lane_insts;
        self.interp_blocks += o.interp_blocks;
        self.delegated += o.delegated;
        self.slow_paths += o.slow_paths;
    }
}

/// An execution engine.
pub trait Engine: Sync {
    /// Short name (`interp`, `jit`).
    fn name(&self) -> &'static str;
    /// Runs every CTA of a launch over the machine. On a fault, the fault of the lowest-numbered
    /// CTA (x fastest) that faulted is returned, whatever the thread count.
    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault>;
}
