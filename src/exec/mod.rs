//! The engine-neutral execution core: the machine, a launch, run options and statistics, and
//! the dispatcher both engines run under.
//!
//! Engines (the interpreter in [`crate::interp`], the JIT in [`crate::jit`]) implement [`Engine`]; the
//! runner builds a [`Machine`] and [`Launch`]es from a trace file and hands them to one. Both
//! engines run a launch with [`run_grid`]: CTAs on a rayon pool, the warps of a CTA in turn,
//! barriers and fault selection (the private `grid` module); blocks, terminators, the
//! reconvergence stack and the instruction budgets per warp (`warp`). An engine supplies only a [`BodyRunner`], which runs
//! the instructions of one block for a warp, against the CTA's [`CtaEnv`]. Execution events go to
//! an [`Observer`] ([`observe`]).

pub mod device;
pub mod env;
pub(crate) mod grid;
pub mod hostcall;
pub mod observe;
pub mod step;
pub(crate) mod warp;

pub use env::CtaEnv;
pub use grid::{run_grid, start_threads, RunnerFactory};
pub use observe::{
    CheckFinding, CheckObserver, FindingKind, MemAccess, MemSpace, Observer, WarpAt,
};
pub use warp::{cond_mask, BodyRunner, Entry, EntryKind, Further, MAX_STACK};

use crate::ir::Program;
use std::sync::Arc;
use warpjit_runtime::resource::Resources;
use warpjit_runtime::{
    BankMode, ConstBanks, Fault, GlobalMemory, DEFAULT_LOCAL_WINDOW, DEFAULT_SHARED_WINDOW,
};

/// The state launches share: global memory, the generic shared window and the launch budget.
pub struct Machine {
    /// Global memory segments and sparse tiles.
    pub global: GlobalMemory,
    /// Base of the 16 MiB shared window. Both engines accept any base; trace files keep it
    /// below 4 GiB and 16 MiB aligned.
    pub shared_window: u64,
    /// Base of the 16 MiB local window: in a launch with local memory, a generic access steered
    /// global inside it reaches the thread's local memory. Trace files keep it below 4 GiB,
    /// 16 MiB aligned and apart from the shared window.
    pub local_window: u64,
    /// The launch budget: warp instructions any one launch may issue in all, shared equally
    /// among its CTAs (see [`Launch::cta_share`]). Default [`DEFAULT_LAUNCH_BUDGET`].
    pub launch_budget: u64,
    /// The bound textures and buffers (DXBC `t#`, `u#`): like global memory, they keep what
    /// launches write for the launches after them.
    pub resources: Resources,
    /// The quantum: warp instructions a warp may issue in one turn while another warp could
    /// run (docs/semantics.md §9). Default [`DEFAULT_QUANTUM`]; at least 1.
    pub quantum: u64,
    /// What the kernels' host calls (`vprintf`, `__assertfail`: docs/semantics.md §22g)
    /// printed, for the host program to take after each launch.
    pub host_output: hostcall::HostOutput,
}

impl Default for Machine {
    fn default() -> Self {
        Machine {
            global: GlobalMemory::new(),
            shared_window: DEFAULT_SHARED_WINDOW,
            local_window: DEFAULT_LOCAL_WINDOW,
            launch_budget: DEFAULT_LAUNCH_BUDGET,
            resources: Resources::new(),
            quantum: DEFAULT_QUANTUM,
            host_output: hostcall::HostOutput::default(),
        }
    }
}

/// Default per-warp instruction budget (warp instructions issued by one warp in one launch).
pub const DEFAULT_BUDGET: u64 = 100_000_000;

/// Default launch budget ([`Machine::launch_budget`]): 2^28 warp instructions per launch (about
/// 8.6 * 10^9 lane-instructions in full warps; 7.7 times `benches/traces/loop_1g.toml`).
pub const DEFAULT_LAUNCH_BUDGET: u64 = 1 << 28;

/// Default quantum ([`Machine::quantum`]): a warp's turn ends before the block that would take
/// it past 4096 warp instructions, when another warp could run (docs/semantics.md §9).
pub const DEFAULT_QUANTUM: u64 = 4096;

/// Most invocations of a DXBC vertex, geometry or pixel shader launch (each has its own rows of
/// inputs and outputs in the trace), and the largest launch `warpjit gen-trace` writes (each
/// thread has its own output): 2^30. A grid of CTAs has no such limit: CUDA's grid dimensions
/// bound it ([`crate::device::MAX_GRID`]) and the launch budget ([`Machine::launch_budget`])
/// bounds the work it does (docs/semantics.md §11).
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
    /// Local memory bytes per thread (0: no local memory, and no local window).
    pub local_bytes: u32,
    /// The constant banks as this launch sees them (launch constants already filled in).
    pub consts: Arc<ConstBanks>,
    /// Per-warp instruction budget.
    pub budget: u64,
    /// A cooperative launch (CUDA's `cuLaunchCooperativeKernel`): its CTAs are resident
    /// together and take turns on one host thread, so that they can wait for each other through
    /// global memory (docs/semantics.md §9). It may have at most [`device::resident_ctas`] CTAs
    /// (the trace loader refuses more; a larger one given to an engine runs that many at once,
    /// the next starting as one finishes).
    pub cooperative: bool,
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
            local_bytes: 0,
            consts: Arc::new(consts),
            budget: DEFAULT_BUDGET,
            cooperative: false,
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
    /// and of the CTA's local memory (`local_bytes` for each of its warps' 32 lanes), both
    /// zeroed at the start.
    pub fn cta_start_cost(&self) -> u64 {
        CTA_START_INSTS
            + self.warps_per_cta()
            + (self.shared_bytes as u64).div_ceil(SHARED_BYTES_PER_INST)
            + self.cta_local_bytes().div_ceil(SHARED_BYTES_PER_INST)
    }
    /// Bytes of local memory one CTA holds: `local_bytes` for each lane of each of its warps
    /// (lanes past the last thread included, so that thread `32 * warp + lane` is at
    /// `(32 * warp + lane) * local_bytes`).
    pub fn cta_local_bytes(&self) -> u64 {
        self.warps_per_cta() * 32 * self.local_bytes as u64
    }
}

/// Most host threads a launch runs CTAs on: 4 × the host's available parallelism (more would
/// only add threads, not speed). [`RunOptions::threads`] above it is clamped to it; `warpjit run`
/// rejects it.
///
/// Read from the host once per process: asking it (`available_parallelism` reads the cgroup's
/// CPU quota) took about 28 µs here, and a parallel launch used to ask twice, adding 57 µs to
/// every launch (2% of a 2.5 ms one).
pub fn max_threads() -> usize {
    static MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MAX.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()) * 4)
}

/// How to run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Host threads for CTAs (0 = all cores; more than [`max_threads`] is clamped to it).
    pub threads: usize,
    /// Receives execution events (`--check` is one observer, [`CheckObserver`]). With one
    /// attached, an engine may run every block through the interpreter; without, nothing is
    /// reported and nothing slowed down.
    pub observer: Option<Arc<dyn Observer>>,
    /// Counts the CTAs of the run as they finish (for a progress display); `None` counts
    /// nothing.
    pub progress: Option<Arc<Progress>>,
}

/// How far a run has got, readable from another thread while it runs: CTAs to run (added by
/// `runner::run_in` per trace, before its launches) and CTAs finished (counted by the
/// dispatcher as each CTA ends).
#[derive(Debug, Default)]
pub struct Progress {
    /// CTAs the runs sharing this counter will run.
    pub total: std::sync::atomic::AtomicU64,
    /// CTAs finished so far.
    pub done: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// Counts one finished CTA.
    #[inline]
    pub fn cta_done(&self) {
        self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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
    /// Lane accesses to global, shared or local memory whose address was not a multiple of the
    /// access size and was aligned down (docs/semantics.md §16): legal, but usually a bug.
    pub misaligned: u64,
    /// Warp turns that ended at the quantum while another warp could run
    /// ([`Machine::quantum`], docs/semantics.md §9).
    pub yields: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.warps += o.warps;
        self.warp_insts += o.warp_insts;
        self.lane_insts += o.lane_insts;
        self.misaligned += o.misaligned;
        self.yields += o.yields;
    }
}

/// An execution engine.
pub trait Engine: Sync {
    /// Short name (`interp`, `jit`).
    fn name(&self) -> &'static str;
    /// Runs every CTA of a launch over the machine. On a fault, the fault of the lowest-numbered
    /// CTA (x fastest) that faulted is returned, whatever the thread count.
    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault>;
    /// Gets ready to run `launch` with `opts`, before it is timed: the trace runner calls it
    /// before each launch ([`crate::runner::run_in`]), as a graphics API builds a pipeline
    /// before its dispatches. The JIT compiles the launch's program ahead there
    /// ([`crate::jit::Jit::compile_ahead`]); by default, nothing. Results never depend on it.
    fn prepare(&self, launch: &Launch, opts: &RunOptions) {
        let _ = (launch, opts);
    }
    /// The body runner this engine runs `launch`'s blocks with on `machine` (one per host
    /// thread; [`step::WarpStepper`] steps a warp with one). `observed`: an observer is
    /// attached, and the runner must report per-lane events (the JIT then runs every block
    /// through the reference definitions).
    fn body_runner<'a>(
        &'a self,
        machine: &'a Machine,
        launch: &'a Launch,
        observed: bool,
    ) -> Box<dyn BodyRunner + 'a>;
}
