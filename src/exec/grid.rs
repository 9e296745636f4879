//! Running a grid: CTAs on a rayon pool, the warps of one CTA in turns, barriers between them
//! (for both engines).
//!
//! Scheduling inside a CTA is deterministic (docs/semantics.md §9): the warps take turns in
//! order, each running until it exits, waits at a barrier, or has issued the machine's quantum
//! of instructions in its turn while another warp could run; a pass gives every ready warp one
//! turn, and when no warp is ready and every live warp waits at the same barrier, all are
//! released and the passes go on. If live warps wait at different barriers, none can complete:
//! a barrier-deadlock fault. CTAs are independent; with several host threads the reported fault
//! is the one of the lowest-numbered faulting CTA, as with one thread. The CTAs of a cooperative
//! launch are resident together on one host thread and take passes in turn
//! (`run_cooperative`).

use super::observe::WarpAt;
use super::warp::{run_warp, BodyRunner, Budget, RedArrival, Stop, WarpCtl};
use super::{max_threads, CtaEnv, Launch, Machine, RunOptions, Stats};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

/// Host-thread scratch reused across CTAs: the running CTA's state and the body runner.
pub struct Scratch<'r> {
    /// The CTA running (each CTA this host thread runs starts in it, over the last one's
    /// memory).
    cta: Cta,
    /// Registers a thread may read before writing them (live into the entry block): the only
    /// ones whose launch value (0) is observable, so the only ones cleared at each warp's start.
    /// Computed once per program ([`crate::ir::Program::entry_reads`]).
    clear: Vec<u8>,
    runner: Box<dyn BodyRunner + 'r>,
}

impl<'r> Scratch<'r> {
    /// Empty scratch using `runner`, clearing registers `clear` at each warp's start.
    pub fn new(runner: Box<dyn BodyRunner + 'r>, clear: Vec<u8>) -> Self {
        Scratch {
            cta: Cta::default(),
            clear,
            runner,
        }
    }
}

/// One CTA in flight: its warps' states and where each stands, its barriers, its shared and
/// local memory, what is left of its share of the launch budget, and what it counted.
#[derive(Default)]
struct Cta {
    /// Linear index in the grid.
    index: u64,
    /// Coordinates in the grid.
    coords: [u32; 3],
    /// Warp states and their control, in slots: a warp takes a free slot when it first runs
    /// and frees it when it exits, so a CTA whose warps never wait (at a barrier or for their
    /// next turn) runs every warp in one slot, which stays in the host core's first-level
    /// cache.
    warps: Vec<Box<WarpState>>,
    ctls: Vec<WarpCtl>,
    /// The slot of each warp (`NO_SLOT` before it starts).
    slot: Vec<u32>,
    /// Slots no warp holds.
    free: Vec<u32>,
    status: Vec<Status>,
    /// How many warps are [`Status::Ready`].
    ready: usize,
    /// Barriers with a thread count: threads arrived so far (a warp per arrival), and the
    /// reduction totals of every barrier (docs/semantics.md §30).
    bars: [BarState; 16],
    shared: Vec<u8>,
    local: Vec<u8>,
    /// The interpreter's segment-lookup hint, kept from pass to pass.
    hint: usize,
    budget: Budget,
    stats: Stats,
    /// Every warp exited.
    done: bool,
}

impl Drop for Cta {
    /// Gives the warp states back to this host thread's spares, for its next launch.
    fn drop(&mut self) {
        let warps = std::mem::take(&mut self.warps);
        let _ = SPARE_WARPS.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                let room = SPARE_WARPS_MAX.saturating_sub(spare.len());
                spare.extend(warps.into_iter().take(room));
            }
        });
    }
}

thread_local! {
    /// Warp states a launch on this host thread has finished with, for the next one. A state is
    /// 33 KiB: allocating and zeroing a CTA's worth for every launch (and the page faults that
    /// brings) cost more than a small launch's whole work. A state is reused as the CTAs of one
    /// launch reuse it: [`init_warp`] resets every field whose old value a program could observe.
    static SPARE_WARPS: std::cell::RefCell<Vec<Box<WarpState>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A warp that has not started yet holds no slot of [`Scratch`].
const NO_SLOT: u32 = u32::MAX;

/// The most warp states a host thread keeps between launches (a CTA of 1024 threads' worth).
const SPARE_WARPS_MAX: usize = 32;

/// A warp state from this host thread's spares, or a new one.
fn spare_warp() -> Box<WarpState> {
    SPARE_WARPS
        .try_with(|spare| spare.try_borrow_mut().ok()?.pop())
        .ok()
        .flatten()
        .unwrap_or_else(|| WarpState::new_boxed(0))
}

/// Makes a body runner for one host thread.
pub type RunnerFactory<'a> = dyn Fn() -> Box<dyn BodyRunner + 'a> + Sync + 'a;

/// Runs every CTA of `launch`; each host thread runs block bodies with a runner from
/// `make_runner`.
pub fn run_grid(
    machine: &Machine,
    launch: &Launch,
    opts: &RunOptions,
    make_runner: &RunnerFactory<'_>,
) -> Result<Stats, Fault> {
    let Some(o) = opts.observer.as_deref() else {
        return run_ctas(machine, launch, opts, make_runner);
    };
    o.launch_start(machine, launch);
    let r = run_ctas(machine, launch, opts, make_runner);
    o.launch_end(launch, r.as_ref());
    r
}

/// [`run_grid`] without the launch's observer events.
fn run_ctas(
    machine: &Machine,
    launch: &Launch,
    opts: &RunOptions,
    make_runner: &RunnerFactory<'_>,
) -> Result<Stats, Fault> {
    let n = launch.ctas();
    let clear: &[u8] = launch
        .program
        .entry_reads
        .get_or_init(|| registers_to_clear(&launch.program));
    if launch.cooperative && n > 1 {
        return run_cooperative(machine, launch, opts, make_runner(), clear);
    }
    if opts.threads == 1 || n == 1 {
        let mut scratch = Scratch::new(make_runner(), clear.to_vec());
        let mut total = Stats::default();
        for i in 0..n {
            total += run_cta(machine, launch, opts, i, &mut scratch)?;
            if let Some(p) = &opts.progress {
                p.cta_done();
            }
        }
        return Ok(total);
    }
    // Several host threads: the calling thread and `threads - 1` pool threads each take the
    // next chunk of CTAs from a shared counter until none is left (so a thread that is slowed
    // down, by other work on the host or by costlier CTAs, simply takes fewer chunks), each
    // with one scratch (warp states, shared memory, body runner) made on its first chunk and
    // reused for the rest of the launch. A chunk is an eighth of each thread's share of the
    // CTAs left (`chunk_at`): large while much is left, single CTAs at the end, so the threads
    // finish close together with few trips to the counter.
    //
    // A small launch (at most `ALONE_WARPS` warps) first runs on the calling thread alone, one
    // CTA at a time, for `ALONE`: waking a pool thread costs the waker about 10 us and the
    // launch as much again before the woken thread starts (measured on a 2-core VM), more than
    // such a launch's whole work usually is; one done within `ALONE` wakes nobody, and a longer
    // one loses at most `ALONE` and a CTA of one thread. A larger launch wakes the others at
    // once: its first CTAs are where blocks are compiled, which the others then do not wait
    // for (they run those blocks through the reference definitions meanwhile).
    let threads = match opts.threads.min(max_threads()) {
        0 => rayon::current_num_threads().max(1),
        t => t,
    };
    let next = AtomicU64::new(0);
    let first_fault = AtomicU64::new(u64::MAX);
    let fault: Mutex<Option<(u64, Fault)>> = Mutex::new(None);
    let total = Mutex::new(Stats::default());
    // Runs CTAs until none is left (or, with `until`, one at a time until that instant).
    let worker = |scratch: &mut Option<_>, until: Option<std::time::Instant>| {
        let mut sum = Stats::default();
        'chunks: loop {
            let (start, end) = match until {
                Some(t) if std::time::Instant::now() >= t => break,
                Some(_) => {
                    let start = next.fetch_add(1, Ordering::Relaxed);
                    (start, start + 1)
                }
                None => take_chunk(&next, n, threads as u64),
            };
            // Past the end, or past a faulting CTA (those after it need not run: the fault
            // reported is the lowest-numbered one's, and every CTA before it has been taken).
            if start >= n || start > first_fault.load(Ordering::Relaxed) {
                break;
            }
            let scratch =
                scratch.get_or_insert_with(|| Scratch::new(make_runner(), clear.to_vec()));
            for i in start..end {
                if i > first_fault.load(Ordering::Relaxed) {
                    break 'chunks;
                }
                match run_cta(machine, launch, opts, i, scratch) {
                    Ok(s) => {
                        sum += s;
                        if let Some(p) = &opts.progress {
                            p.cta_done();
                        }
                    }
                    Err(f) => {
                        first_fault.fetch_min(i, Ordering::Relaxed);
                        if let Ok(mut slot) = fault.lock() {
                            if slot.as_ref().is_none_or(|(j, _)| i < *j) {
                                *slot = Some((i, f));
                            }
                        }
                        break 'chunks;
                    }
                }
            }
        }
        if let Ok(mut t) = total.lock() {
            *t += sum;
        }
    };
    let mut mine: Option<Scratch<'_>> = None;
    if n.saturating_mul(launch.warps_per_cta()) <= ALONE_WARPS {
        worker(&mut mine, Some(std::time::Instant::now() + ALONE));
    }
    let left = next.load(Ordering::Relaxed) < n && first_fault.load(Ordering::Relaxed) == u64::MAX;
    if left {
        // The spawned workers not yet finished. The launching thread, once out of CTAs, waits
        // for them spinning a little (`JOIN_SPIN`) before the scope's wait puts it to sleep: the
        // others are then on their last CTA, and waking a sleeping thread takes tens of
        // microseconds.
        let unfinished = AtomicUsize::new(threads - 1);
        let spawned = || {
            worker(&mut None, None);
            unfinished.fetch_sub(1, Ordering::Release);
        };
        let (worker, spawned, unfinished) = (&worker, &spawned, &unfinished);
        let mine = &mut mine;
        let mut launching = move || {
            worker(mine, None);
            let t = std::time::Instant::now();
            while unfinished.load(Ordering::Acquire) > 0 && t.elapsed() < JOIN_SPIN {
                std::hint::spin_loop();
            }
        };
        match pool(opts.threads) {
            Some(pool) => pool.in_place_scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(move |_| spawned());
                }
                launching();
            }),
            None => rayon::in_place_scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(move |_| spawned());
                }
                launching();
            }),
        }
    }
    match fault.into_inner().ok().flatten() {
        Some((_, f)) => Err(f),
        None => Ok(total.into_inner().unwrap_or_else(|e| e.into_inner())),
    }
}

/// How long the launching thread of a parallel launch runs CTAs alone before it wakes the
/// other host threads (see `run_ctas`).
const ALONE: std::time::Duration = std::time::Duration::from_micros(50);

/// The most warps a launch may have for its calling thread to start alone ([`ALONE`]).
const ALONE_WARPS: u64 = 1024;

/// How long the launching thread of a parallel launch spins for the other host threads to
/// finish before it sleeps until they do.
const JOIN_SPIN: std::time::Duration = std::time::Duration::from_micros(100);

/// How many CTAs a host thread takes when `left` of the launch's are still to be taken by
/// `threads` threads: an eighth of an even share, at least one.
fn chunk_at(left: u64, threads: u64) -> u64 {
    (left / (threads.max(1) * 8)).max(1)
}

/// Takes the next chunk of CTAs (`chunk_at` of those left) from the counter `next` of a launch
/// of `n`: the range `start..end` (`start >= n` when none is left).
fn take_chunk(next: &AtomicU64, n: u64, threads: u64) -> (u64, u64) {
    let mut start = next.load(Ordering::Relaxed);
    loop {
        if start >= n {
            return (start, start);
        }
        let end = start + chunk_at(n - start, threads);
        match next.compare_exchange_weak(start, end, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return (start, end),
            Err(now) => start = now,
        }
    }
}

/// Sets warp `wi` of CTA `cta` up to start `launch`: its live lanes active (the others exited),
/// its thread and CTA ids, the registers in `clear` (those the program may read before writing
/// them) and the predicates and condition code at their launch values, at block 0 with an empty
/// stack.
pub fn init_warp(
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    launch: &Launch,
    cta: [u32; 3],
    wi: u32,
    clear: &[u8],
) {
    let threads = launch.threads_per_cta();
    let [bx, by, _] = launch.block.map(|v| v as u64);
    let base = wi as u64 * LANES as u64;
    let live = if base + 32 <= threads {
        u32::MAX
    } else {
        (1u32 << (threads - base)) - 1
    };
    for &r in clear.iter() {
        w.regs[r as usize] = [0; LANES];
    }
    w.lea_lo = [0; LANES];
    w.preds = [0, 0, 0, 0, 0, 0, 0, u32::MAX];
    w.cc = [0; 4];
    w.active = live;
    w.exited = !live;
    // A scratch warp state last ran another CTA (or launch): every field but the registers
    // outside `clear` takes its launch value, the barrier result included (§30: 0 at launch).
    w.clock = 0;
    w.bar_result = 0;
    w.ctaid = cta;
    w.warp_id = wi;
    // Thread ids of lane 0, then counted up (no division per lane; none at all in the first
    // row of the block, where every warp of a one-dimensional block is).
    let (x, y, z) = if base < bx {
        (base as u32, 0, 0)
    } else {
        (
            (base % bx) as u32,
            (base / bx % by) as u32,
            (base / (bx * by)) as u32,
        )
    };
    if x as u64 + LANES as u64 <= bx {
        // The whole warp in one row of the block (any block at least 32 wide): x counts up,
        // y and z are the same for every lane.
        for (t, l) in w.tid[0].iter_mut().zip(0u32..) {
            *t = x + l;
        }
        w.tid[1] = [y; LANES];
        w.tid[2] = [z; LANES];
    } else {
        init_tids(w, bx, by, (x, y, z));
    }
    ctl.block = 0;
    ctl.stack.clear();
    ctl.issued = 0;
}

/// Thread ids lane by lane from lane 0's `(x, y, z)`, wrapping at the block's width `bx` and
/// height `by`.
fn init_tids(w: &mut WarpState, bx: u64, by: u64, (mut x, mut y, mut z): (u32, u32, u32)) {
    for l in 0..LANES {
        w.tid[0][l] = x;
        w.tid[1][l] = y;
        w.tid[2][l] = z;
        x += 1;
        if x as u64 == bx {
            x = 0;
            y += 1;
            if y as u64 == by {
                y = 0;
                z += 1;
            }
        }
    }
}

/// The rayon pool for `threads` host threads (clamped to [`max_threads`]): `threads - 1` pool
/// threads, the thread that runs the launch being the last one. Built once and reused by every
/// later launch with the same count; `None` for the global pool (`threads` 0, all cores, or a
/// pool that cannot be built) and for one thread (no pool: the calling thread runs every CTA).
/// One pool is kept: asking for another count replaces it (the old one ends when its last
/// launch does).
pub fn pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    static POOL: Mutex<Option<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(None);
    let threads = threads.min(max_threads());
    if threads <= 1 {
        return None;
    }
    let mut slot = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((n, p)) = slot.as_ref() {
        if *n == threads {
            return Some(p.clone());
        }
    }
    let p = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads - 1)
            .thread_name(|i| format!("warpjit-cta-{i}"))
            .build()
            .ok()?,
    );
    *slot = Some((threads, p.clone()));
    Some(p)
}

/// Starts the host threads that launches on `threads` threads (as [`RunOptions::threads`])
/// will use, and has each run once, so that the first launch does not pay for making them:
/// the trace runner calls it before its first launch, outside the launch's time.
pub fn start_threads(threads: usize) {
    let work = |_: rayon::BroadcastContext<'_>| std::hint::black_box(0u8);
    match threads.min(max_threads()) {
        1 => {}
        0 => {
            rayon::broadcast(work);
        }
        t => {
            if let Some(p) = pool(t) {
                p.broadcast(work);
            }
        }
    }
}

/// The registers a thread may read before writing them (live into the entry block): the only
/// ones whose launch value, 0, is observable. A launch takes them from its program's
/// [`entry_reads`](crate::ir::Program::entry_reads), worked out by this on its first launch.
pub fn registers_to_clear(prog: &crate::ir::Program) -> Vec<u8> {
    let live = crate::analysis::liveness(prog);
    live.live_in
        .first()
        .map(|l| l.iter_regs().map(|r| r.0).collect())
        .unwrap_or_default()
}

/// `f` with the general registers its instruction (the one at `f.pc`) reads (none for an
/// instruction guarded by `!PT`) and the faulting lane's values in them, from the warp's state as the fault left it (both engines leave every
/// register an instruction reads current in the state before it can fault).
pub fn note_reads(prog: &crate::ir::Program, w: &WarpState, mut f: Fault) -> Fault {
    let inst = prog
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find(|i| i.pc == f.pc);
    // An instruction guarded by `!PT` never runs and reads nothing (liveness agrees: neither
    // engine need keep what it names current).
    if let Some(inst) = inst.filter(|i| !crate::analysis::effects::never(i.guard)) {
        let lane = f.lane as usize % LANES;
        inst.op.for_each_reg(&mut |u| {
            if u.def {
                return;
            }
            for k in 0..u.count {
                let r = u.reg.offset(k);
                if !r.is_rz() {
                    f.reads.push(r.0, w.regs[r.index()][lane]);
                }
            }
        });
    } else if let Some(crate::ir::Terminator::Brx { cond, reg, .. }) = prog
        .blocks
        .iter()
        .map(|b| b.term)
        .find(|t| t.pc() == Some(f.pc))
    {
        // A BRX reads the register that holds each lane's offset.
        if !crate::analysis::effects::never(cond.guard) && !reg.is_rz() {
            f.reads
                .push(reg.0, w.regs[reg.index()][f.lane as usize % LANES]);
        }
    }
    f
}

/// CTA coordinates of linear CTA index `i` (x fastest).
pub fn cta_coords(grid: [u32; 3], i: u64) -> [u32; 3] {
    let (gx, gy) = (grid[0] as u64, grid[1] as u64);
    [
        (i % gx) as u32,
        (i / gx % gy) as u32,
        (i / (gx * gy)) as u32,
    ]
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Status {
    /// Not started, or its turn ended at the quantum: it runs in its next turn.
    #[default]
    Ready,
    Waiting {
        id: u8,
        pc: u32,
        red: Option<RedArrival>,
    },
    Done,
}

/// A barrier's count of arrived threads (counted barriers only) and its reduction totals.
#[derive(Clone, Copy, Default)]
struct BarState {
    arrived: u32,
    trues: u32,
    threads: u32,
}

/// Runs CTA `i` to completion.
pub fn run_cta(
    machine: &Machine,
    launch: &Launch,
    opts: &RunOptions,
    i: u64,
    s: &mut Scratch<'_>,
) -> Result<Stats, Fault> {
    let cta = &mut s.cta;
    cta_start(launch, opts, i);
    let r = (|| {
        cta.start(machine, launch, i)?;
        while !cta.pass(machine, launch, opts, &mut *s.runner, &s.clear, false)? {}
        Ok(cta.stats)
    })();
    cta_end(launch, opts, i, r.as_ref().err());
    r
}

/// Tells the observer, if any, CTA `i` of `launch` starts.
fn cta_start(launch: &Launch, opts: &RunOptions, i: u64) {
    if let Some(o) = opts.observer.as_deref() {
        let at = WarpAt {
            launch: launch.index,
            cta: cta_coords(launch.grid, i),
            warp: 0,
        };
        o.cta_start(at, i);
    }
}

/// Tells the observer, if any, CTA `i` of `launch` ended (with `fault`, or stopped by another
/// CTA's fault of a cooperative launch, or done).
fn cta_end(launch: &Launch, opts: &RunOptions, i: u64, fault: Option<&Fault>) {
    if let Some(o) = opts.observer.as_deref() {
        let at = WarpAt {
            launch: launch.index,
            cta: cta_coords(launch.grid, i),
            warp: 0,
        };
        o.cta_end(at, fault);
    }
}

/// Runs a cooperative launch (docs/semantics.md §9) on the calling host thread: as many CTAs as
/// the device holds at once ([`super::device::resident_ctas`], all of them for a launch the
/// trace loader accepts) are in flight together and take passes in turn, in rounds: each round
/// gives each CTA in flight, lowest-numbered first, one pass (every ready warp one turn, then
/// its barriers). At the end of a round the CTAs that finished leave, and the next CTAs in
/// linear order (if any are left) take their places, at the end. The first fault in this order
/// stops the launch.
fn run_cooperative(
    machine: &Machine,
    launch: &Launch,
    opts: &RunOptions,
    mut runner: Box<dyn BodyRunner + '_>,
    clear: &[u8],
) -> Result<Stats, Fault> {
    let n = launch.ctas();
    let resident = super::device::resident_ctas(launch).clamp(1, n);
    let mut total = Stats::default();
    let mut flight: Vec<Cta> = Vec::new();
    // CTAs that finished, whose states (warps, memory) the next to start reuse.
    let mut finished: Vec<Cta> = Vec::new();
    let mut next = 0;
    // A fault stops the launch: the observer hears of the faulting CTA's end with it, then of
    // the other CTAs in flight (stopped with it).
    let stop = |flight: &[Cta], at: u64, f: Fault| {
        cta_end(launch, opts, at, Some(&f));
        for c in flight.iter().filter(|c| !c.done && c.index != at) {
            cta_end(launch, opts, c.index, None);
        }
        Err(f)
    };
    loop {
        while (flight.len() as u64) < resident && next < n {
            let mut cta = finished.pop().unwrap_or_default();
            cta_start(launch, opts, next);
            if let Err(f) = cta.start(machine, launch, next) {
                return stop(&flight, next, f);
            }
            flight.push(cta);
            next += 1;
        }
        if flight.is_empty() {
            return Ok(total);
        }
        // CTAs in flight that have not finished (each has a ready warp: a pass ends with one,
        // with its barrier released, or with the CTA done).
        let mut unfinished = flight.len();
        for k in 0..flight.len() {
            let others = unfinished > 1;
            let cta = &mut flight[k];
            match cta.pass(machine, launch, opts, &mut *runner, clear, others) {
                Ok(true) => {
                    unfinished -= 1;
                    total += cta.stats;
                    cta_end(launch, opts, cta.index, None);
                    if let Some(p) = &opts.progress {
                        p.cta_done();
                    }
                }
                Ok(false) => {}
                Err(f) => {
                    let at = cta.index;
                    return stop(&flight, at, f);
                }
            }
        }
        let (done, live): (Vec<Cta>, Vec<Cta>) = flight.into_iter().partition(|c| c.done);
        finished.extend(done);
        flight = live;
    }
}

impl Cta {
    /// Starts CTA `i` of `launch` in this state: every warp ready and not started, shared and
    /// local memory zeroed, the budget its share of the launch budget less the start's cost.
    /// A CTA whose share does not even cover its start faults at warp 0's first instruction,
    /// before any of that work.
    fn start(&mut self, machine: &Machine, launch: &Launch, i: u64) -> Result<(), Fault> {
        let prog = &*launch.program;
        let coords = cta_coords(launch.grid, i);
        let nw = launch.warps_per_cta() as usize;
        // The CTA's share of the launch budget, less its start (16, one per warp, one per 256
        // bytes of shared memory zeroed).
        let share = launch.cta_share(machine.launch_budget);
        let start = launch.cta_start_cost();
        if start > share {
            let kind = FaultKind::BudgetExhausted {
                budget: machine.launch_budget,
                ctas: Some(launch.ctas()),
            };
            let pc = prog.blocks.first().map_or(0, |b| b.pc);
            return Err(Fault::new(kind, 0)
                .at_pc(pc)
                .in_warp(launch.index, coords, 0));
        }
        self.index = i;
        self.coords = coords;
        self.budget = Budget {
            warp: launch.budget,
            launch: machine.launch_budget,
            ctas: launch.ctas(),
            cta_left: share - start,
            quantum: u64::MAX,
            turn_left: u64::MAX,
        };
        // Every slot free, the lowest first.
        self.slot.clear();
        self.slot.resize(nw, NO_SLOT);
        self.free.clear();
        self.free.extend((0..self.warps.len() as u32).rev());
        self.shared.clear();
        self.shared.resize(launch.shared_bytes as usize, 0);
        self.local.clear();
        self.local.resize(launch.cta_local_bytes() as usize, 0);
        self.status.clear();
        self.status.resize(nw, Status::Ready);
        self.ready = nw;
        self.bars = [BarState::default(); 16];
        self.hint = 0;
        self.stats = Stats {
            warps: nw as u64,
            ..Stats::default()
        };
        self.done = false;
        Ok(())
    }

    /// One pass: every warp that is ready, in order, runs one turn (until it exits, waits at a
    /// barrier, or its turn ends at the machine's quantum while another warp could run: one of
    /// this CTA, or of another CTA when `others` holds). Then, if no warp is ready, the barrier
    /// every live warp waits at is released (or, waiting at different ones, they deadlock: a
    /// fault). True when every warp has exited.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &mut self,
        machine: &Machine,
        launch: &Launch,
        opts: &RunOptions,
        runner: &mut dyn BodyRunner,
        clear: &[u8],
        others: bool,
    ) -> Result<bool, Fault> {
        let prog = &*launch.program;
        let Cta {
            coords,
            warps,
            ctls,
            slot,
            free,
            status,
            ready,
            bars,
            shared,
            local,
            hint,
            budget,
            stats,
            done,
            ..
        } = self;
        let cta = *coords;
        let nw = status.len();
        let observer = opts.observer.as_deref();
        let mut env = CtaEnv {
            mem: &machine.global,
            consts: &launch.consts,
            nbanks: launch.mode.banks(),
            shared,
            resources: &machine.resources,
            shared_window: machine.shared_window,
            local,
            local_bytes: launch.local_bytes,
            local_window: machine.local_window,
            hint: *hint,
            observer,
            check: observer.is_some_and(|o| o.checks()),
            observe_mem: observer.is_some_and(|o| o.wants_mem(launch.index)),
            observe_inst: observer.is_some_and(|o| o.wants_inst(launch.index)),
            at: WarpAt {
                launch: launch.index,
                cta,
                warp: 0,
            },
            pc: 0,
            findings: Vec::new(),
            host: &machine.host_output,
            misaligned: 0,
        };
        let fault = |wi: usize, f: Fault| f.in_warp(launch.index, cta, wi as u32);
        'warps: for wi in 0..nw {
            if status[wi] != Status::Ready {
                continue;
            }
            env.at.warp = wi as u32;
            if slot[wi] == NO_SLOT {
                let k = free.pop().unwrap_or_else(|| {
                    warps.push(spare_warp());
                    ctls.push(WarpCtl::default());
                    warps.len() as u32 - 1
                });
                slot[wi] = k;
                let (w, ctl) = (&mut warps[k as usize], &mut ctls[k as usize]);
                init_warp(w, ctl, launch, cta, wi as u32, clear);
            }
            let k = slot[wi] as usize;
            // A warp runs until it exits, waits or its turn ends: an arrival that does not wait
            // (BAR.ARV, or the arrival that completes a counted barrier) lets it go on at once,
            // in a new turn.
            let now = loop {
                // The turn may end at the quantum only if another warp could then run (else
                // the same warp would take the next turn: ending this one would change
                // nothing).
                budget.quantum = if others || *ready > 1 {
                    machine.quantum.max(1)
                } else {
                    u64::MAX
                };
                budget.turn_left = budget.quantum;
                let (w, ctl) = (&mut warps[k], &mut ctls[k]);
                let stop = if observer.is_some() {
                    run_warp::<true>(prog, runner, w, ctl, &mut env, budget, stats)
                } else {
                    run_warp::<false>(prog, runner, w, ctl, &mut env, budget, stats)
                };
                let stop = stop.map_err(|f| fault(wi, note_reads(prog, &warps[k], *f)))?;
                let (id, pc, red, count, arrive) = match stop {
                    Stop::Exited => {
                        free.push(k as u32);
                        break Status::Done;
                    }
                    Stop::Yield => {
                        stats.yields += 1;
                        continue 'warps;
                    }
                    Stop::Barrier {
                        id,
                        pc,
                        red,
                        count,
                        arrive,
                    } => (id, pc, red, count, arrive),
                };
                let b = &mut bars[id as usize];
                if let Some(r) = red {
                    b.trues += r.trues;
                    b.threads += r.threads;
                }
                if count == 0 {
                    break Status::Waiting { id, pc, red };
                }
                b.arrived += LANES as u32;
                if b.arrived < count {
                    if arrive {
                        continue;
                    }
                    break Status::Waiting { id, pc, red };
                }
                // The counted barrier completes: its waiting warps are released (those before
                // this one run in the next pass), this warp goes on.
                let (trues, threads) = (b.trues, b.threads);
                bars[id as usize] = BarState::default();
                let mut released = Vec::new();
                for (v, st) in status.iter_mut().enumerate() {
                    if let Status::Waiting { id: i, red: r, .. } = *st {
                        if i == id {
                            if let Some(r) = r {
                                warps[slot[v] as usize].bar_result = r.result(trues, threads);
                            }
                            *st = Status::Ready;
                            *ready += 1;
                            if observer.is_some() {
                                released.push(v as u32);
                            }
                        }
                    }
                }
                if let Some(r) = red {
                    warps[k].bar_result = r.result(trues, threads);
                }
                if let Some(o) = observer {
                    // The warp whose arrival completed it goes on too (unless it only arrived).
                    if !arrive {
                        released.push(wi as u32);
                        released.sort_unstable();
                    }
                    o.barrier_done(env.at, id, &released);
                }
            };
            status[wi] = now;
            *ready -= 1;
        }
        *hint = env.hint;
        stats.misaligned += env.misaligned;
        if *ready > 0 {
            return Ok(false);
        }
        let mut waiting = status.iter().enumerate().filter_map(|(wi, st)| match *st {
            Status::Waiting { id, pc, .. } => Some((wi, id, pc)),
            _ => None,
        });
        let Some((w0, id0, pc0)) = waiting.next() else {
            *done = true;
            return Ok(true);
        };
        // Every warp left waits: a barrier without a count completes when all of them wait at
        // it (none at a counted barrier, which would still be short of threads).
        let counted = |id: u8| bars[id as usize].arrived != 0;
        if waiting.all(|(_, id, _)| id == id0) && !counted(id0) {
            // A reduction is over every thread that arrived with one, in all warps; each such
            // warp gets its own op's result.
            let BarState { trues, threads, .. } = bars[id0 as usize];
            bars[id0 as usize] = BarState::default();
            for (wi, st) in status.iter().enumerate() {
                if let Status::Waiting { red: Some(r), .. } = st {
                    warps[slot[wi] as usize].bar_result = r.result(trues, threads);
                }
            }
            if let Some(o) = observer {
                let released: Vec<u32> = (0..nw as u32)
                    .filter(|&v| status[v as usize] != Status::Done)
                    .collect();
                o.barrier_done(env.at, id0, &released);
            }
            for st in status.iter_mut().filter(|st| **st != Status::Done) {
                *st = Status::Ready;
                *ready += 1;
            }
            Ok(false)
        } else {
            let w = &warps[slot[w0] as usize];
            let kind = FaultKind::BarrierDeadlock {
                barrier: id0 as u32,
            };
            let lane = w.active.trailing_zeros() % 32;
            Err(fault(w0, Fault::new(kind, lane).at_pc(pc0)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interp;
    use std::collections::HashSet;
    use std::thread::ThreadId;
    use warpjit_runtime::ConstBanks;

    fn launch(grid: u32, text: &str) -> Launch {
        let program = crate::sass::parse_program(text, &Default::default()).expect("assembles");
        Launch {
            grid: [grid, 1, 1],
            block: [64, 1, 1],
            budget: 1_000_000,
            ..Launch::new(Arc::new(program), ConstBanks::new())
        }
    }

    const LOOP: &str = "
        MOV32I R1, 0x200;
    .L_loop:
        IADD32I R1, R1, -0x1;
        ISETP.NE.AND P0, PT, R1, RZ, PT;
    @P0 BRA `(.L_loop);
        EXIT;
    ";

    /// Each warp's thread ids are its lanes' linear ids in the block, x fastest, with the live
    /// mask covering the threads that exist: blocks at least 32 wide (one row per warp, the
    /// fast path), narrower ones (a warp spans rows and planes) and a partial last warp.
    #[test]
    fn warps_get_their_threads_ids() {
        for block in [
            [32, 1, 1],
            [96, 2, 1],
            [40, 3, 2],
            [7, 5, 3],
            [1, 1, 64],
            [33, 1, 1],
        ] {
            let l = Launch {
                block,
                ..launch(1, LOOP)
            };
            let threads = block.iter().product::<u32>();
            let mut w = WarpState::new_boxed(0);
            let mut ctl = WarpCtl::default();
            for wi in 0..threads.div_ceil(32) {
                init_warp(&mut w, &mut ctl, &l, [0; 3], wi, &[]);
                for lane in 0..32 {
                    let t = 32 * wi + lane;
                    let live = t < threads;
                    assert_eq!(w.active >> lane & 1 == 1, live, "{block:?} thread {t}");
                    if live {
                        let want = [
                            t % block[0],
                            t / block[0] % block[1],
                            t / (block[0] * block[1]),
                        ];
                        let got = [0, 1, 2].map(|d| w.tid[d][lane as usize]);
                        assert_eq!(got, want, "{block:?} thread {t}");
                    }
                }
            }
        }
    }

    /// A program's registers read before written are worked out on its first launch and kept
    /// with it for later launches; a clone of the program starts without them and still
    /// compares equal.
    #[test]
    fn registers_to_clear_kept_with_the_program() {
        let l = launch(2, "IADD R1, R7, R5;\nMOV R2, R1;\nEXIT;\n");
        assert_eq!(l.program.entry_reads.get(), None);
        let opts = RunOptions::default();
        run_grid(&Machine::default(), &l, &opts, &|| Box::new(Interp)).expect("runs");
        let first = l.program.entry_reads.get().expect("worked out").as_ptr();
        assert_eq!(l.program.entry_reads.get(), Some(&vec![5, 7]));
        run_grid(&Machine::default(), &l, &opts, &|| Box::new(Interp)).expect("runs");
        let again = l.program.entry_reads.get().expect("kept").as_ptr();
        assert_eq!(first, again, "the second launch reuses the first's");
        let copy = (*l.program).clone();
        assert_eq!(copy.entry_reads.get(), None);
        assert_eq!(copy, *l.program);
    }

    /// The chunks threads take cover every CTA once, in order; they shrink as the CTAs left
    /// do, to single CTAs at the end; and a launch takes few of them.
    #[test]
    fn chunks_cover_the_grid_and_shrink() {
        for (n, threads) in [(0, 2), (1, 2), (7, 2), (4096, 2), (4096, 8), (100_000, 3)] {
            let next = AtomicU64::new(0);
            let mut sizes = Vec::new();
            let mut at = 0;
            loop {
                let (start, end) = take_chunk(&next, n, threads);
                if start >= n {
                    break;
                }
                assert_eq!(start, at, "n {n}: chunks in order, none skipped");
                assert!(end > start && end <= n, "n {n}: {start}..{end}");
                sizes.push(end - start);
                at = end;
            }
            assert_eq!(at, n, "every CTA taken");
            assert!(sizes.windows(2).all(|w| w[1] <= w[0]), "n {n}: {sizes:?}");
            if n >= 16 {
                assert_eq!(sizes.last(), Some(&1), "n {n}: single CTAs at the end");
                assert!(sizes[0] == n / (8 * threads), "n {n}: {}", sizes[0]);
                assert!(
                    sizes.len() < 16 * threads as usize * 8,
                    "n {n}: {}",
                    sizes.len()
                );
            }
        }
    }

    /// Launches with the same thread count share one pool: CTAs of two launches run on at most
    /// that many host threads in all (a pool per launch would bring new threads each time).
    #[test]
    fn launches_reuse_one_pool() {
        let l = launch(64, LOOP);
        let machine = Machine::default();
        let opts = RunOptions {
            threads: 3,
            ..RunOptions::default()
        };
        let seen = Mutex::new(HashSet::<ThreadId>::new());
        let make = || -> Box<dyn BodyRunner> {
            seen.lock().unwrap().insert(std::thread::current().id());
            Box::new(Interp)
        };
        for _ in 0..4 {
            run_grid(&machine, &l, &opts, &make).expect("runs");
        }
        let n = seen.lock().unwrap().len();
        assert!((1..=3).contains(&n), "CTAs ran on {n} host threads");
        assert!(Arc::ptr_eq(&pool(3).unwrap(), &pool(3).unwrap()));
        assert!(pool(0).is_none());
        assert!(pool(usize::MAX).unwrap().current_num_threads() < max_threads());
    }

    /// A small launch (at most `ALONE_WARPS` warps) starts on the calling thread alone and
    /// wakes the others once `ALONE` has passed: whichever way its CTAs are split between the
    /// two phases and the threads, it counts the same work, and a fault is the lowest-numbered
    /// faulting CTA's, as on one thread. (300 CTAs of a 1,536-instruction loop: more than
    /// `ALONE` on any host; faults in CTAs 150 and 200, both after the first CTAs.)
    #[test]
    fn small_launches_start_alone_and_give_the_same_result() {
        let l = launch(300, LOOP);
        assert!(300 * l.warps_per_cta() <= ALONE_WARPS);
        let faulting = launch(
            300,
            &format!(
                "S2R R0, SR_CTAID.X;
                ISETP.EQ.AND P0, PT, R0, 0x96, PT;
                ISETP.EQ.OR P0, PT, R0, 0xc8, P0;
            @P0 STG [RZ], R0;
            {LOOP}"
            ),
        );
        let machine = Machine::default();
        let run = |l: &Launch, threads| {
            let opts = RunOptions {
                threads,
                ..RunOptions::default()
            };
            run_grid(&machine, l, &opts, &|| Box::new(Interp))
        };
        let one = run(&l, 1).expect("runs");
        for threads in [2, 3] {
            assert_eq!(run(&l, threads).expect("runs"), one, "{threads} threads");
            let f = run(&faulting, threads).expect_err("CTAs 150 and 200 fault");
            assert_eq!((f.cta, f.warp), ([150, 0, 0], 0), "{threads} threads");
        }
    }

    /// A CTA's warps draw on its share of the launch budget in the order they run; the share,
    /// and so the fault, is the same whatever the thread count.
    #[test]
    fn the_launch_budget_is_shared_per_cta() {
        let l = launch(4, LOOP);
        // Per CTA: 2 warps, each 1 + 512 * 3 + 1 = 1538 warp instructions, plus 16 + 2 to start.
        let need = 2 * 1538 + 18;
        for threads in [1, 3] {
            let opts = RunOptions {
                threads,
                ..RunOptions::default()
            };
            let run = |budget: u64| {
                let machine = Machine {
                    launch_budget: budget,
                    ..Machine::default()
                };
                run_grid(&machine, &l, &opts, &|| Box::new(Interp))
            };
            let s = run(4 * need).expect("exactly enough");
            assert_eq!(s.warp_insts, 4 * (need - 18));
            let f = run(4 * need - 1).expect_err("one short");
            assert_eq!(
                f.kind,
                FaultKind::BudgetExhausted {
                    budget: 4 * need - 1,
                    ctas: Some(4)
                }
            );
            // CTA 0's share is one short: warp 1 faults at its last instruction, the EXIT.
            assert_eq!((f.cta, f.warp, f.lane), ([0, 0, 0], 1, 0));
            assert_eq!(f.pc, l.program.blocks.last().unwrap().pc);
            // Not enough to start: warp 0 faults before its first instruction.
            let f = run(4 * 18 - 1).expect_err("cannot start");
            assert_eq!((f.cta, f.warp, f.lane, f.pc), ([0, 0, 0], 0, 0, 0x8));
            // The per-warp budget binds when it leaves less.
            let mut short = l.clone();
            short.budget = 100;
            let f = run_grid(&Machine::default(), &short, &opts, &|| Box::new(Interp));
            assert_eq!(
                f.expect_err("per-warp budget").kind,
                FaultKind::BudgetExhausted {
                    budget: 100,
                    ctas: None
                }
            );
        }
    }

    /// A barrier with a thread count completes once that many threads (a warp per arrival)
    /// arrived; one that cannot reach its count is a deadlock at the warp that waits there.
    #[test]
    fn counted_barriers_complete_at_their_count() {
        let run = |text: &str| {
            run_grid(
                &Machine::default(),
                &launch(1, text),
                &RunOptions::default(),
                &|| Box::new(Interp),
            )
        };
        // Two warps: warp 0 arrives at barrier 1 without waiting, warp 1 completes it.
        let ok = "S2R R0, SR_TID.X;\nISETP.LT.U32.AND P0, PT, R0, 0x20, PT;\n@P0 BAR.ARV 0x1, 0x40;\n@!P0 BAR.SYNC 0x1, 0x40;\nEXIT;\n";
        run(ok).expect("completes");
        // A count of 96 in a CTA of 64 threads never completes.
        let f = run("BAR.SYNC 0x2, 0x60;\nEXIT;\n").expect_err("deadlock");
        assert_eq!(f.kind, FaultKind::BarrierDeadlock { barrier: 2 });
        assert_eq!((f.warp, f.pc), (0, 0x8));
        // Warp 0 waits for 64 threads, warp 1 only arrives at 32: short of the count.
        let f = run("S2R R0, SR_TID.X;\nISETP.LT.U32.AND P0, PT, R0, 0x20, PT;\n@P0 BAR.SYNC 0x1, 0x60;\n@!P0 BAR.ARV 0x1, 0x60;\nEXIT;\n")
            .expect_err("short");
        assert_eq!(f.kind, FaultKind::BarrierDeadlock { barrier: 1 });
    }

    /// A warp takes a state slot when it starts and frees it when it exits: a CTA whose warps
    /// never wait runs them all in one slot, while warps waiting at a barrier hold one each.
    #[test]
    fn warps_share_state_slots_unless_they_wait() {
        let run = |text: &str, block: u32| {
            let l = Launch {
                block: [block, 1, 1],
                ..launch(2, text)
            };
            let mut s = Scratch::new(Box::new(Interp), registers_to_clear(&l.program));
            for i in 0..2 {
                run_cta(&Machine::default(), &l, &RunOptions::default(), i, &mut s).expect("runs");
            }
            s.cta.warps.len()
        };
        assert_eq!(run(LOOP, 256), 1);
        let bar = "S2R R0, SR_TID.X;\nBAR.SYNC 0x0;\nEXIT;\n";
        assert_eq!(run(bar, 256), 8);
        assert_eq!(run(bar, 40), 2);
    }

    /// A warp spinning on shared memory for a word the next warp writes ends its turn at the
    /// quantum, and the launch finishes; the counts are the rule's: warp 0 runs its first block
    /// (3 instructions) and spin iterations (3 each) while the turn holds them, then warp 1 (6),
    /// then warp 0's last iteration, which leaves the loop, and its EXIT.
    #[test]
    fn a_spinning_warp_lets_the_next_warp_run() {
        let text = "S2R R0, SR_TID.X;\nISETP.LT.U32.AND P0, PT, R0, 0x20, PT;\n@!P0 BRA `(.L_set);\n\
            .L_spin:\nLDS R1, [0x0];\nISETP.EQ.AND P1, PT, R1, RZ, PT;\n@P1 BRA `(.L_spin);\nEXIT;\n\
            .L_set:\nMOV32I R2, 0x1;\nSTS [0x0], R2;\nEXIT;\n";
        let l = Launch {
            shared_bytes: 4,
            ..launch(1, text)
        };
        let run = |quantum: u64| {
            let machine = Machine {
                quantum,
                ..Machine::default()
            };
            run_grid(&machine, &l, &RunOptions::default(), &|| Box::new(Interp))
        };
        // The default quantum, 4096: 3 + 1364 * 3 = 4095 in warp 0's first turn.
        let s = run(crate::exec::DEFAULT_QUANTUM).expect("finishes");
        assert_eq!((s.warp_insts, s.yields), (4095 + 6 + 3 + 1, 1));
        // A quantum of 10: two spin iterations (3 + 6 = 9; a third would make 12).
        let s = run(10).expect("finishes");
        assert_eq!((s.warp_insts, s.yields), (9 + 6 + 3 + 1, 1));
        // A turn that never ends: warp 0 spins until its budget is gone.
        let f = run(u64::MAX).expect_err("spins");
        assert_eq!(
            f.kind,
            FaultKind::BudgetExhausted {
                budget: 1_000_000,
                ctas: None
            }
        );
        assert_eq!(f.warp, 0);
    }

    /// A cooperative launch with more CTAs than the device holds (here 32: two CTAs of 48 KiB
    /// of shared memory per SM) runs 32 at a time on one host thread, CTA after CTA in rounds,
    /// the next ones joining as the first finish: with a quantum of 12 each CTA's one warp logs
    /// one iteration per turn, so the log holds, in runs of 32 tickets, CTAs 0-31, 0-31, 32-39,
    /// 32-39, whatever the thread count.
    #[test]
    fn cooperative_ctas_take_turns_and_the_next_join_as_they_finish() {
        use warpjit_runtime::memory::Init;
        let text = "S2R R0, SR_CTAID.X;\nMOV R2, RZ;\nMOV32I R6, 0x1;\nMOV R4, c[0x0][0x140];\n\
            MOV R5, c[0x0][0x144];\n.L_loop:\nATOM.E.ADD R3, [R4], R6;\n\
            LEA R8.CC, R3, c[0x0][0x148], 0x2;\nLEA.HI.X R9, R3, c[0x0][0x14c], RZ, 0x2;\n\
            STG.E [R8], R0;\nIADD32I R2, R2, 0x1;\nISETP.LT.AND P0, PT, R2, 0x2, PT;\n\
            @P0 BRA `(.L_loop);\nEXIT;\n";
        let mut consts = ConstBanks::new();
        let words: Vec<u8> = [0x1000u32, 0, 0x2000, 0]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        consts.write(0, 0x140, &words);
        let program = crate::sass::parse_program(text, &Default::default()).expect("assembles");
        let l = Launch {
            grid: [40, 1, 1],
            shared_bytes: 48 << 10,
            cooperative: true,
            ..Launch::new(Arc::new(program), consts)
        };
        assert_eq!(crate::exec::device::resident_ctas(&l), 32);
        let mut want = Vec::new();
        for ctas in [0..32u32, 0..32, 32..40, 32..40] {
            for c in ctas {
                want.extend(std::iter::repeat_n(c, 32));
            }
        }
        for threads in [1, 8] {
            let mut machine = Machine {
                quantum: 12,
                ..Machine::default()
            };
            machine.global.map(0x1000, 4, Init::Zero).expect("maps");
            machine
                .global
                .map(0x2000, 80 * 32 * 4, Init::Zero)
                .expect("maps");
            let opts = RunOptions {
                threads,
                ..RunOptions::default()
            };
            let s = run_grid(&machine, &l, &opts, &|| Box::new(Interp)).expect("runs");
            assert_eq!((s.warps, s.warp_insts, s.yields), (40, 40 * 20, 40));
            let log: Vec<u32> = machine
                .global
                .read_bytes(0x2000, 80 * 32 * 4)
                .expect("reads")
                .chunks(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            assert_eq!(log, want, "{threads} threads");
        }
    }
}
