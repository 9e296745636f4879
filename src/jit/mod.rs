//! The Cranelift JIT engine.
//!
//! Each IR block of a program is translated, for a whole warp, into one native function
//! (`codegen`). Compiled blocks are cached per program and block and run by the engine-neutral
//! dispatcher both engines share (`exec::warp::run_warp`, private): terminators, divergence,
//! barriers and the instruction budget are shared code, so both engines agree by construction
//! there. The JIT does not use the interpreter: it runs the reference definitions both engines
//! share ([`crate::reference`]): [`crate::reference::run_insts`] for blocks not compiled (yet),
//! [`crate::reference::exec_inst`] for the few instances compiled code delegates (a constant
//! operand that faults, a memory access's slow path), and the lane routines its shared routines
//! run (the atomics, SHFL, the DXBC view accesses and queries).
//!
//! Tiering: a block is interpreted until it has run [`Jit::threshold`] times (default
//! [`DEFAULT_THRESHOLD`]) on any warp, then compiled by tier 1 (Cranelift with its single-pass
//! register allocator: about 3x faster to compile, 25-50% slower code) on the thread that hit the
//! threshold. A block that then runs [`Jit::hot_threshold`] more times (default
//! [`DEFAULT_HOT_THRESHOLD`]; counted per host thread, and summed over launches as each ends) is
//! recompiled by tier 2 (the backtracking allocator) on a background
//! thread, off the critical path, and its address swapped in when ready. Both tiers produce the
//! same results.
//!
//! Ahead of time: [`Jit::compile_ahead`] compiles a program's full-warp code with tier 2 before
//! any launch runs it (the loops first, then the other blocks, within [`AHEAD_WEIGHT`]); the
//! trace runner calls it before each launch through [`Engine::prepare`] when [`Jit::ahead`] is
//! set (the default; `warpjit run --compile lazy` clears it). What it compiled never goes
//! through the tiers; the rest (the variants for partial warps, a heavy program's other
//! blocks) does. A short launch on several host threads no longer shares its cores with the
//! tier-2 thread, and a launch's time is its kernel's.
//!
//! Compile time grows with a block's length and, much more, with its memory instructions (each
//! has an inline fast path and a cold slow path; a 128-bit global load costs about 60 times an
//! add). So that no compile takes long (about 50 ms at tier 1 and 200 ms at tier 2 on a slow
//! host), a block is compiled in pieces of at most [`MAX_PIECE_WEIGHT`] by [`weight`], one
//! function each, run one after the other; the state a later piece needs is stored at a piece's
//! end as at a block's.
//! With an observer attached (`--check` is one), every block is interpreted: events are per lane.
//! Without one, compiled code is exactly as if observers did not exist.
//!
//! One JIT module and one Cranelift context per tier are reused for every function.
//! Runtime helpers are registered with `JITBuilder::symbol`; the warp state and the `abi::JitCx`
//! are addressed with `offset_of!`. With `WARPJIT_DUMP_CLIF=DIR` each compiled block's CLIF is
//! written to `DIR`, each guest instruction as a comment above the code it produced, and its
//! machine code as raw bytes beside it (`NAME.bin`).
//!
//! A function Cranelift rejects (a warpjit bug) leaves its piece interpreted: the failure is
//! counted in [`CompileStats::failed`] (printed by `--stats`) and kept in [`Jit::errors`].
//! Each tier compiles at most [`Jit::max_functions`] functions for one program (a bound on the code
//! memory and compile time any program can take); blocks past it are interpreted.
//!
//! The files: this one holds the [`Jit`] engine; `cache.rs` the per-program code cache (a slot
//! per piece and variant); `compile.rs` the [`Tier`]s, one tier's Cranelift module and the
//! compilation of one piece (and the CLIF dump); `tier.rs` tier-1 compilation into the cache and
//! the tier-2 thread; `weight.rs` [`weight`] and [`pieces`]; `region.rs` the regions compiled as
//! one function; `runner.rs` the [`BodyRunner`] (`JitRunner`) the dispatcher calls per block.
//! Their imports form no cycle (`tests/layers.rs`): `weight` and `region` stand on `codegen`,
//! `cache` on `region`, `compile` on `cache` and `codegen`, `tier` on `cache` and `compile`.
//!
//! [`BodyRunner`]: crate::exec::BodyRunner

pub(crate) mod abi;
mod cache;
pub(crate) mod codegen;
mod compile;
pub(crate) mod fp;
pub(crate) mod helper;
pub(crate) mod lanes;
pub(crate) mod memory;
pub(crate) mod region;
mod runner;
pub(crate) mod sample;
pub(crate) mod scalar;
mod tier;
pub(crate) mod view;
pub(crate) mod views;
pub(crate) mod warp;
mod weight;

pub use compile::Tier;
pub use weight::{pieces, weight, MAX_PIECE_WEIGHT};

use crate::exec::{run_grid, BodyRunner, Engine, Launch, Machine, RunOptions, Stats};
use crate::reference::Reference;
use compile::Inner;
use runner::JitRunner;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use tier::{tier2_worker, Tier2Request};
use warpjit_runtime::Fault;

/// Executions of a block (by any warp) before it is compiled.
pub const DEFAULT_THRESHOLD: u32 = 2;
/// Executions of a tier-1 block (on one host thread) before tier 2 recompiles it.
pub const DEFAULT_HOT_THRESHOLD: u32 = 64;

/// Most functions (pieces of blocks, in either variant) each tier compiles for one program, by
/// default ([`Jit::max_functions`]): a
/// block of a larger program that reaches the threshold after that is interpreted (tier 1) or
/// keeps its tier-1 code (tier 2), counted in [`CompileStats::limited`]. Each function takes at
/// least a page of code memory (Cranelift gives each its own pages, 4 to 8 KiB with its data)
/// and, at tier 1, 50 to 100 µs to compile, so a program of 10^5 blocks that each run twice
/// took 960 MB and 17 s: the limit bounds both, to about 100 MB and 2 s a tier, for any program.
/// Real programs stay far below it (the largest DXBC shader of `tests/dxbc/` has about 200
/// blocks).
pub const MAX_FUNCTIONS: u32 = 16384;

/// Most total [`weight`] of the functions [`Jit::compile_ahead`] compiles for one program: a
/// bound on the time it takes before a launch (at most about 0.4 s on a slow host by the
/// weight's scale; the peers' three kernels, 72 to 80, compile ahead in 2-3 ms on a 2-core
/// VM). A heavier program's other blocks are compiled when they get hot, by tiers.
pub const AHEAD_WEIGHT: u32 = 2 * MAX_PIECE_WEIGHT;

/// Why the JIT could not be set up or could not compile. A bug or an unsupported host, never a
/// user error.
#[derive(Debug, thiserror::Error)]
pub enum JitError {
    /// Cranelift does not support this host.
    #[error("this host is not supported by Cranelift: {0}")]
    Host(String),
    /// `WARPJIT_DUMP_CLIF` names a directory the dumps cannot be written to (a user error).
    #[error("WARPJIT_DUMP_CLIF={dir}: cannot write the CLIF dumps there: {msg}")]
    Dump {
        /// The directory.
        dir: String,
        /// What went wrong.
        msg: String,
    },
    /// The block's program already has [`Jit::max_functions`] functions at this tier: the block
    /// is not compiled (its instructions are interpreted, or keep their tier-1 code).
    #[error(
        "block {block} not compiled: its program has as many compiled functions as a program may"
    )]
    Limit {
        /// The block.
        block: u32,
    },
    /// Cranelift rejected a function (a warpjit bug).
    #[error("compiling block {block} failed: {msg}")]
    Compile {
        /// The block.
        block: u32,
        /// Cranelift's message.
        msg: String,
    },
}

/// The JIT engine (`--engine jit`).
pub struct Jit {
    tier1: Mutex<Inner>,
    tier2: Arc<Mutex<Inner>>,
    progs: Mutex<cache::Programs>,
    queue: Mutex<Option<mpsc::Sender<Tier2Request>>>,
    /// Set when the Jit is dropped: the tier-2 thread abandons its queue.
    shutdown: Arc<AtomicBool>,
    /// Executions before a block is compiled (tier 1).
    pub threshold: u32,
    /// Executions of a tier-1 block on one host thread before tier 2 recompiles it
    /// (`u32::MAX`: never).
    pub hot_threshold: u32,
    /// Most functions each tier compiles for one program (default [`MAX_FUNCTIONS`]).
    pub max_functions: u32,
    /// Recompile a hot block with tier 2 on the thread that found it hot, before running it
    /// again, instead of in the background (default false): which code runs is then the same
    /// in every run, for tests that must check tier-2 code.
    pub tier2_inline: bool,
    /// Compile a program's likely hot code with tier 2 when [`Engine::prepare`] is called for
    /// a launch of it, before the launch runs (default true; see [`Jit::compile_ahead`]).
    /// False: every block is compiled when it gets hot, by tiers, while launches run.
    pub ahead: bool,
    /// What the launches' runners counted since the last [`Jit::take_counters`].
    counters: Mutex<RunCounters>,
}

/// What the JIT's runners count while running launches, beyond the engine-neutral
/// [`Stats`]: how much of the work ran in compiled code. None of it is part
/// of a launch's result (the interpreter has no such counts), so two engines agree on `Stats`
/// and these are only this engine's report ([`Jit::take_counters`], `warpjit run --stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    /// Blocks run through the reference definitions because none of their code was compiled
    /// yet (a block is compiled the [`Jit::threshold`]th time a warp reaches it), or could
    /// not be.
    pub interp_blocks: u64,
    /// Instruction executions inside compiled blocks delegated to the reference definition
    /// (instructions whose lowering declined: 0 unless a lowering is missing).
    pub delegated: u64,
    /// Slow-path runs of inline memory instructions in compiled blocks (an address outside the
    /// instruction's cached segment, a sparse tile, or a fault).
    pub slow_paths: u64,
    /// Block runs that compiled code started itself, carrying out the terminator before them
    /// without returning to the dispatcher (a compiled loop's blocks after the first of each
    /// call: [`BodyRunner::run_from`]).
    pub looped: u64,
}

impl std::ops::AddAssign<&RunCounters> for RunCounters {
    fn add_assign(&mut self, o: &RunCounters) {
        self.interp_blocks += o.interp_blocks;
        self.delegated += o.delegated;
        self.slow_paths += o.slow_paths;
        self.looped += o.looped;
    }
}

/// Compile statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    /// Functions compiled by tier 2 before the launches that run them ([`Jit::compile_ahead`]).
    pub ahead_blocks: u64,
    /// The time that took, in nanoseconds.
    pub ahead_nanos: u64,
    /// Functions (a variant of a block, or of a piece of one) compiled by tier 1 (on the
    /// critical path).
    pub blocks: u64,
    /// Time tier 1 spent compiling, in nanoseconds.
    pub nanos: u64,
    /// Functions recompiled by tier 2 (on the background thread).
    pub tier2_blocks: u64,
    /// Time tier 2 spent compiling, in nanoseconds.
    pub tier2_nanos: u64,
    /// The longest single tier-1 compile (one function), in nanoseconds.
    pub longest_nanos: u64,
    /// The longest single tier-2 compile, in nanoseconds.
    pub tier2_longest_nanos: u64,
    /// Functions tier 1 failed to compile (Cranelift rejected them: a warpjit bug, see
    /// [`Jit::errors`]); their instructions are interpreted.
    pub failed: u64,
    /// Functions tier 2 failed to recompile; their tier-1 code keeps running.
    pub tier2_failed: u64,
    /// Functions not compiled because their program had [`Jit::max_functions`] at that tier
    /// already (tier 1: interpreted; tier 2: their tier-1 code keeps running).
    pub limited: u64,
    /// Instructions of the functions compiled (both tiers) that an op's lowering declined, to
    /// run the interpreter's code instead (constant operands that would fault and BPT, which
    /// run it by design, are not counted). The differential checks require 0.
    pub declined: u64,
}

impl Jit {
    /// Sets up Cranelift for the host: a module per tier and the tier-2 compiler thread.
    pub fn new() -> Result<Jit, JitError> {
        let tier2 = Arc::new(Mutex::new(Inner::new(Tier::Two)?));
        let (tx, rx) = mpsc::channel::<Tier2Request>();
        let shutdown = Arc::new(AtomicBool::new(false));
        let (t2, stop) = (tier2.clone(), shutdown.clone());
        // Detached: dropping the Jit never waits for it (see `tier2_worker`).
        std::thread::Builder::new()
            .name("warpjit-tier2".into())
            .spawn(move || tier2_worker(&rx, &t2, &stop))
            .map_err(|e| JitError::Host(e.to_string()))?;
        Ok(Jit {
            tier1: Mutex::new(Inner::new(Tier::One)?),
            tier2,
            progs: Mutex::new(cache::Programs::default()),
            queue: Mutex::new(Some(tx)),
            shutdown,
            threshold: DEFAULT_THRESHOLD,
            hot_threshold: DEFAULT_HOT_THRESHOLD,
            max_functions: MAX_FUNCTIONS,
            tier2_inline: false,
            ahead: true,
            counters: Mutex::new(RunCounters::default()),
        })
    }

    /// What the launches run since the last call counted ([`RunCounters`]), resetting them.
    /// A launch's runners add their counts when it ends, so after [`Engine::run`] returns, its
    /// counts are in; launches running at once on one `Jit` add into the same counters.
    pub fn take_counters(&self) -> RunCounters {
        self.counters
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default()
    }

    /// Adds a runner's counts ([`Jit::take_counters`]).
    fn add_counters(&self, c: &RunCounters) {
        if let Ok(mut all) = self.counters.lock() {
            *all += c;
        }
    }

    /// Blocks compiled so far, the time it took, and the failures, per tier.
    pub fn compile_stats(&self) -> CompileStats {
        let get = |m: &Mutex<Inner>| {
            m.lock()
                .map(|i| {
                    let failed = i.errors.len() as u64;
                    (i.counts, i.ahead, failed, i.limited, i.declined)
                })
                .unwrap_or_default()
        };
        let (one, _, failed, limited1, declined1) = get(&self.tier1);
        let (two, ahead, tier2_failed, limited2, declined2) = get(&self.tier2);
        CompileStats {
            ahead_blocks: ahead.functions,
            ahead_nanos: ahead.nanos,
            blocks: one.functions,
            nanos: one.nanos,
            tier2_blocks: two.functions,
            tier2_nanos: two.nanos,
            longest_nanos: one.longest,
            tier2_longest_nanos: two.longest,
            failed,
            tier2_failed,
            limited: limited1 + limited2,
            declined: declined1 + declined2,
        }
    }

    /// Compile errors so far (each a warpjit bug; the blocks concerned stay interpreted, or at
    /// tier 1).
    pub fn errors(&self) -> Vec<String> {
        let mut v = self
            .tier1
            .lock()
            .map(|i| i.errors.clone())
            .unwrap_or_default();
        v.extend(
            self.tier2
                .lock()
                .map(|i| i.errors.clone())
                .unwrap_or_default(),
        );
        v
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // The tier-2 thread is not joined: it sees the flag (or the closed queue) before its
        // next request and ends, abandoning the rest of the queue. A compile it is in the middle
        // of finishes into its own module, which it owns a share of; no code of ours runs any
        // more (running needs `&self`) and finalized code is never freed.
        self.shutdown.store(true, Ordering::Release);
        if let Ok(mut q) = self.queue.lock() {
            q.take();
        }
    }
}

impl Engine for Jit {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        if opts.observer.is_some() {
            return run_grid(machine, launch, opts, &|| Box::new(Reference));
        }
        let code = self.code_for(&launch.program);
        run_grid(machine, launch, opts, &|| {
            Box::new(JitRunner::new(self, code.clone(), machine))
        })
    }

    /// With [`Jit::ahead`] and no observer (which makes every block interpreted), compiles
    /// the launch's program ahead ([`Jit::compile_ahead`]).
    fn prepare(&self, launch: &Launch, opts: &RunOptions) {
        if self.ahead && opts.observer.is_none() {
            self.compile_ahead(&launch.program);
        }
    }

    fn body_runner<'a>(
        &'a self,
        machine: &'a Machine,
        launch: &'a Launch,
        observed: bool,
    ) -> Box<dyn BodyRunner + 'a> {
        if observed {
            return Box::new(Reference);
        }
        Box::new(JitRunner::new(
            self,
            self.code_for(&launch.program),
            machine,
        ))
    }
}

#[cfg(test)]
mod tests;
