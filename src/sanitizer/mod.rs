//! The sanitizer: compute-sanitizer's four tools on the CPU, as one [`Observer`].
//!
//! - **memcheck**: accesses outside every global allocation, outside the CTA's shared memory
//!   or the thread's local memory, or in freed memory (each a fault that stops the launch,
//!   docs/semantics.md §10: reported with the nearest allocation and by how much it misses),
//!   and misaligned accesses (aligned down, §16: reported, and the run goes on).
//! - **racecheck**: read-after-write, write-after-read and write-after-write hazards on shared
//!   memory (DXBC's `g#`) between threads of a CTA that no barrier orders, byte by byte, with
//!   both accesses' places; hazards between two instructions of one warp with no `__syncwarp`
//!   between them are warnings (a warp runs in lockstep on Maxwell).
//! - **initcheck**: reads of shared memory never written since the CTA started, and of global
//!   allocations the host left undefined (a trace's `uninitialized` segment, a driver's fresh
//!   allocation: [`Observer::alloc`]) never written since.
//! - **synccheck**: barriers reached by a warp with diverged lanes, barriers whose warps wait at
//!   different instructions, SHFLs reading a lane that does not execute them.
//!
//! and `ub`, the other `--check` findings (docs/semantics.md §24) as [`CheckFinding`]s.
//!
//! Reports are grouped by site (a kind of problem at one instruction, or at one pair of
//! instructions for a race) per launch: each [`Report`] is the first occurrence, by CTA number
//! and then in the CTA's own (deterministic) order, with the number of occurrences. Reports of
//! CTAs after the one whose fault stopped a launch are dropped, so that the result is the same
//! for any number of host threads. The tools see every lane's access: under the JIT, a run
//! with an observer is interpreted ([`crate::jit`]).
//!
//! ```
//! use std::sync::Arc;
//! use warpjit::exec::RunOptions;
//! use warpjit::interp::Interpreter;
//! use warpjit::runner::run_trace;
//! use warpjit::sanitizer::{Sanitizer, Tools};
//!
//! let san = Arc::new(Sanitizer::new(Tools::ALL));
//! let opts = RunOptions { observer: Some(san.clone()), ..RunOptions::default() };
//! let report = run_trace("examples/gather.toml".as_ref(), &Interpreter, &opts).unwrap();
//! assert!(report.passed());
//! assert!(san.take().is_empty(), "a clean kernel");
//! ```

mod cta;
mod report;

pub use report::*;

use crate::exec::{
    CheckFinding, FindingKind, Launch, Machine, MemAccess, MemSpace, Observer, Stats, WarpAt,
};
use crate::ir::{Isa, Program};
use cta::{Cta, CtaOut, Site};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use warpjit_runtime::{Fault, FaultKind};

/// Which tools run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tools {
    /// memcheck.
    pub memcheck: bool,
    /// racecheck.
    pub racecheck: bool,
    /// initcheck.
    pub initcheck: bool,
    /// synccheck.
    pub synccheck: bool,
    /// `ub`: the other `--check` findings (docs/semantics.md §24).
    pub ub: bool,
}

impl Tools {
    /// Every tool and the `ub` findings: what `--check` alone runs.
    pub const ALL: Tools = Tools {
        memcheck: true,
        racecheck: true,
        initcheck: true,
        synccheck: true,
        ub: true,
    };

    /// No tool.
    pub const NONE: Tools = Tools {
        memcheck: false,
        racecheck: false,
        initcheck: false,
        synccheck: false,
        ub: false,
    };

    /// The names `--check=` takes, in order.
    pub const NAMES: [&'static str; 5] = ["memcheck", "racecheck", "initcheck", "synccheck", "ub"];

    /// The tools of a comma-separated list of names (`memcheck,racecheck`); `all` is every
    /// one. An unknown or empty name is an error naming the choices.
    pub fn parse(list: &str) -> Result<Tools, String> {
        let mut t = Tools::NONE;
        for name in list.split(',').map(str::trim) {
            match name {
                "memcheck" => t.memcheck = true,
                "racecheck" => t.racecheck = true,
                "initcheck" => t.initcheck = true,
                "synccheck" => t.synccheck = true,
                "ub" => t.ub = true,
                "all" => t = Tools::ALL,
                _ => {
                    return Err(format!(
                        "unknown check `{name}`: the checks are {}, or all",
                        Tools::NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(t)
    }

    /// Whether `tool` runs.
    pub fn has(self, tool: Tool) -> bool {
        match tool {
            Tool::Memcheck => self.memcheck,
            Tool::Racecheck => self.racecheck,
            Tool::Initcheck => self.initcheck,
            Tool::Synccheck => self.synccheck,
        }
    }
}

/// Most reports (sites) kept per run, and most `ub` findings: the rest are counted.
pub const MAX_REPORTS: usize = 1000;

/// Most reports of the CTAs of one launch held back until it ends (to drop those after a
/// faulting CTA): past it, they are merged at once.
const MAX_HELD: usize = 1 << 16;

/// Where a report belongs: the launch, the tool, a kind number and up to two pcs and a value;
/// sites order the reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SiteKey {
    launch: u32,
    tool: Tool,
    kind: u8,
    pc: u32,
    pc2: u32,
    extra: u32,
}

impl SiteKey {
    fn new(launch: u32, tool: Tool, kind: u8, pc: u32, pc2: u32, extra: u32) -> SiteKey {
        SiteKey {
            launch,
            tool,
            kind,
            pc,
            pc2,
            extra,
        }
    }
}

/// A global allocation whose contents the host left undefined, with a bit per byte: written
/// since.
pub(crate) struct Tracked {
    alloc: Allocation,
    bits: Vec<AtomicU64>,
}

impl Tracked {
    fn new(base: u64, size: u64) -> Tracked {
        let words = size.div_ceil(64) as usize;
        Tracked {
            alloc: Allocation {
                base,
                size,
                freed: false,
            },
            bits: (0..words).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// What the sanitizer knows of a launch while it runs.
pub(crate) struct LaunchInfo {
    index: u32,
    block: [u32; 3],
    shared_bytes: u32,
    local_bytes: u32,
    warps: u32,
    dxbc: bool,
    /// Every allocation, live or freed, by base.
    allocs: Vec<Allocation>,
    /// The freed allocations whose addresses are still mapped (no live allocation there), by
    /// base: an access there is a use after free that does not fault.
    freed: Vec<Allocation>,
    /// Live allocations whose mapping goes on past their end (a driver maps whole pages): the
    /// bytes `[base + size, end)` of each, where an access does not fault but is out of bounds.
    slack: Vec<(Allocation, u64)>,
    /// The undefined allocations initcheck follows, by base.
    undefined: Vec<Arc<Tracked>>,
    program: Arc<Program>,
    grid: [u32; 3],
}

impl LaunchInfo {
    /// The coordinates in its CTA of lane `lane` of warp `warp`.
    fn thread(&self, warp: u32, lane: u32) -> [u32; 3] {
        let t = warp as u64 * 32 + lane as u64;
        let [bx, by, _] = self.block.map(|v| v.max(1) as u64);
        [
            (t % bx) as u32,
            (t / bx % by) as u32,
            (t / (bx * by)) as u32,
        ]
    }

    /// The undefined allocation holding `[addr, addr + size)`.
    fn tracked(&self, addr: u64, size: u32) -> Option<&Arc<Tracked>> {
        let i = self.undefined.partition_point(|t| t.alloc.base <= addr);
        let t = self.undefined.get(i.checked_sub(1)?)?;
        let end = t.alloc.base + (t.alloc.size - 1);
        (addr.checked_add(size as u64 - 1)? <= end).then_some(t)
    }

    /// The allocation nearest to `[addr, addr + size)` (live ones first: a freed allocation
    /// that holds the address is reported as such).
    fn nearest(&self, addr: u64, size: u32) -> Problem {
        let dist = |a: &Allocation| -> u64 {
            if addr < a.base {
                a.base - addr
            } else if addr - a.base < a.size {
                0
            } else {
                addr - (a.base + (a.size - 1))
            }
        };
        let _ = size;
        if let Some(f) = self
            .allocs
            .iter()
            .filter(|a| a.freed && dist(a) == 0)
            .max_by_key(|a| a.base)
        {
            return Problem::Freed { alloc: *f };
        }
        let nearest = self
            .allocs
            .iter()
            .filter(|a| !a.freed)
            .min_by_key(|a| (dist(a), a.base))
            .copied();
        Problem::OutOfBounds { nearest }
    }

    /// The freed (but still mapped) allocation holding `[addr, addr + size)`.
    fn freed_at(&self, addr: u64, size: u32) -> Option<Allocation> {
        let _ = size;
        self.freed
            .iter()
            .find(|a| addr >= a.base && addr - a.base < a.size)
            .filter(|_| self.holding(addr).is_none())
            .copied()
    }

    /// The slack past a live allocation's end that `[addr, addr + size)` touches, outside every
    /// live allocation: out of bounds, though mapped.
    fn in_slack(&self, addr: u64, size: u32) -> bool {
        let last = addr.saturating_add(size.max(1) as u64 - 1);
        self.slack
            .iter()
            .any(|(a, end)| last >= a.base + a.size && addr < *end)
            && self.holding(addr).is_none()
    }

    /// The live allocation holding `addr`.
    fn holding(&self, addr: u64) -> Option<Allocation> {
        self.allocs
            .iter()
            .filter(|a| !a.freed && addr >= a.base && addr - a.base < a.size)
            .copied()
            .next()
    }
}

/// The state of a launch while its CTAs run.
struct LaunchState {
    info: Arc<LaunchInfo>,
    /// The tools need each lane's memory accesses ([`Observer::wants_mem`]).
    mem: bool,
    /// Each finished CTA's findings (its linear index), held until the launch ends.
    held: Vec<(u64, CtaOut)>,
    /// Sites held in `held`.
    held_sites: usize,
    /// Findings merged before the launch ended (past [`MAX_HELD`]).
    early: bool,
}

/// Everything found so far, and what the tools follow between launches.
#[derive(Default)]
struct State {
    /// Allocations, live or freed, by base.
    allocs: BTreeMap<u64, Allocation>,
    /// Undefined allocations, by base.
    undefined: BTreeMap<u64, Arc<Tracked>>,
    launches: HashMap<u32, LaunchState>,
    sites: BTreeMap<SiteKey, Site>,
    ub: Vec<CheckFinding>,
    ub_total: u64,
    /// A launch's findings were merged before it ended, and it faulted (so they may include
    /// CTAs after the faulting one).
    approximate: bool,
}

/// Everything the sanitizer found in a run ([`Sanitizer::take`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// The reports, sorted by launch, tool, place and pc (at most [`MAX_REPORTS`]).
    pub reports: Vec<Report>,
    /// Reports beyond [`MAX_REPORTS`], not kept.
    pub dropped: u64,
    /// The `ub` findings, sorted by launch, CTA, warp, pc and lane (at most [`MAX_REPORTS`]).
    pub ub: Vec<CheckFinding>,
    /// `ub` findings beyond those kept.
    pub ub_dropped: u64,
    /// Some counts may include CTAs after a launch's faulting one (a launch with more than
    /// 65,536 CTAs' worth of reports that faulted on several host threads).
    pub approximate: bool,
}

impl Findings {
    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.reports.is_empty() && self.ub.is_empty()
    }
    /// Reports of severity error (the kept ones).
    pub fn errors(&self) -> usize {
        self.reports
            .iter()
            .filter(|r| r.severity == Severity::Error)
            .count()
    }
    /// Reports of severity warning (the kept ones).
    pub fn warnings(&self) -> usize {
        self.reports.len() - self.errors()
    }
    /// The summary line: errors and warnings per tool (empty when nothing was found).
    pub fn summary(&self) -> String {
        if self.reports.is_empty() {
            return String::new();
        }
        let per: Vec<String> = Tool::ALL
            .iter()
            .filter_map(|&t| {
                let (e, w) =
                    self.reports
                        .iter()
                        .filter(|r| r.tool == t)
                        .fold((0, 0), |(e, w), r| match r.severity {
                            Severity::Error => (e + 1, w),
                            Severity::Warning => (e, w + 1),
                        });
                match (e, w) {
                    (0, 0) => None,
                    (e, 0) => Some(format!("{} {e}", t.name())),
                    (e, w) => Some(format!("{} {e} and {w} warning(s)", t.name())),
                }
            })
            .collect();
        let (e, w) = (self.errors(), self.warnings());
        format!(
            "check: {e} error{}, {w} warning{} ({}){}",
            if e == 1 { "" } else { "s" },
            if w == 1 { "" } else { "s" },
            per.join(", "),
            if self.dropped > 0 {
                format!(
                    "; {} more reports dropped (at most {MAX_REPORTS})",
                    self.dropped
                )
            } else {
                String::new()
            }
        )
    }
}

/// The sanitizer ([`Observer`]): the tools of [`Tools`], their findings taken with
/// [`Sanitizer::take`]. One sanitizer per run of a trace (or program): it follows the global
/// allocations from launch to launch.
pub struct Sanitizer {
    id: u64,
    tools: Tools,
    state: Mutex<State>,
}

impl Sanitizer {
    /// A sanitizer running `tools`.
    pub fn new(tools: Tools) -> Sanitizer {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Sanitizer {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            tools,
            state: Mutex::new(State::default()),
        }
    }

    /// The tools it runs.
    pub fn tools(&self) -> Tools {
        self.tools
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes what was found so far (sorted, so the same for any number of host threads), and
    /// starts afresh (the allocations it follows stay).
    pub fn take(&self) -> Findings {
        let mut st = self.state();
        let sites = std::mem::take(&mut st.sites);
        let mut reports: Vec<Report> = sites
            .into_values()
            .map(|s| {
                let mut r = Report {
                    count: s.count,
                    ..s.report
                };
                if let What::Race { with, .. } = &mut r.what {
                    with.sort_by_key(|w| (w.at.pc, w.kind));
                }
                r
            })
            .collect();
        reports.sort_by(|a, b| {
            let k = |r: &Report| {
                (
                    r.launch,
                    r.tool,
                    [r.at.cta[2], r.at.cta[1], r.at.cta[0]],
                    r.at.warp,
                    r.at.pc,
                    r.at.lane,
                )
            };
            k(a).cmp(&k(b)).then_with(|| a.what.cmp(&b.what))
        });
        let dropped = reports.len().saturating_sub(MAX_REPORTS) as u64;
        reports.truncate(MAX_REPORTS);
        let mut ub = std::mem::take(&mut st.ub);
        sort_ub(&mut ub);
        let total = std::mem::take(&mut st.ub_total);
        let ub_dropped = total - ub.len() as u64;
        let approximate = std::mem::take(&mut st.approximate);
        Findings {
            reports,
            dropped,
            ub,
            ub_dropped,
            approximate,
        }
    }

    /// Merges a CTA's findings into the run's.
    fn merge(st: &mut State, index: u64, out: CtaOut) {
        let _ = index;
        for (key, site) in out.sites {
            match st.sites.get_mut(&key) {
                Some(s) => merge_site(s, site),
                None => {
                    st.sites.insert(key, site);
                }
            }
        }
        st.ub_total += out.ub.len() as u64;
        st.ub.extend(out.ub);
        if st.ub.len() > 2 * MAX_REPORTS {
            sort_ub(&mut st.ub);
            st.ub.truncate(MAX_REPORTS);
        }
    }

    /// The memcheck report of a launch's fault, if it is an invalid access.
    fn fault_report(info: &LaunchInfo, f: &Fault) -> Option<(SiteKey, Site)> {
        let (space, size, addr, problem) = match f.kind {
            FaultKind::IllegalAddress { addr, size } => {
                (Space::Global, size, addr, info.nearest(addr, size))
            }
            FaultKind::SharedOutOfRange {
                offset,
                size,
                shared_bytes,
            } => (
                Space::Shared,
                size,
                offset,
                Problem::OutOfRange {
                    bytes: shared_bytes as u64,
                },
            ),
            FaultKind::LocalOutOfRange {
                offset,
                size,
                local_bytes,
            } => (
                Space::Local,
                size,
                offset,
                Problem::OutOfRange {
                    bytes: local_bytes as u64,
                },
            ),
            _ => return None,
        };
        let kind = access_kind(&info.program, f.pc);
        let at = Where {
            cta: f.cta,
            thread: info.thread(f.warp, f.lane),
            warp: f.warp,
            lane: f.lane,
            pc: f.pc,
        };
        let index = cta_index(info.grid, f.cta);
        let report = Report {
            tool: Tool::Memcheck,
            severity: Severity::Error,
            launch: info.index,
            at,
            what: What::Access {
                space,
                kind,
                size,
                addr,
                problem,
                fault: true,
            },
            count: 0,
        };
        let key = SiteKey::new(info.index, Tool::Memcheck, 0, f.pc, 0, 0);
        Some((
            key,
            Site {
                report,
                count: 1,
                first: (index, u64::MAX),
            },
        ))
    }
}

/// Adds `b`'s occurrences to `a`: the first occurrence of the two (by CTA, then in the CTA's
/// order) is the report's; a race's other accesses are merged by instruction, each keeping its
/// own first hazard (so the result does not depend on the order CTAs finish in).
fn merge_site(a: &mut Site, b: Site) {
    a.count += b.count;
    let mut b = b;
    let earlier = b.first < a.first;
    let (from, into) = if earlier {
        // b's report becomes the site's; a's race partners merge into it.
        a.first = b.first;
        std::mem::swap(&mut a.report, &mut b.report);
        (b.report, &mut a.report)
    } else {
        (b.report, &mut a.report)
    };
    if let (What::Race { with: w_from, .. }, What::Race { with: w_into, .. }) =
        (from.what, &mut into.what)
    {
        for w in w_from {
            match w_into.iter_mut().find(|x| x.at.pc == w.at.pc) {
                Some(x) => {
                    let count = x.count + w.count;
                    if w.order < x.order {
                        *x = w;
                    }
                    x.count = count;
                }
                None => w_into.push(w),
            }
        }
    }
}

/// Sorts `ub` findings as `--check` prints them.
fn sort_ub(v: &mut [CheckFinding]) {
    v.sort_by(|a, b| {
        let k = |d: &CheckFinding| (d.launch, d.cta[2], d.cta[1], d.cta[0], d.warp, d.pc, d.lane);
        k(a).cmp(&k(b)).then_with(|| a.message.cmp(&b.message))
    });
}

/// The linear index of CTA `c` in `grid` (x fastest).
fn cta_index(grid: [u32; 3], c: [u32; 3]) -> u64 {
    let (gx, gy) = (grid[0] as u64, grid[1] as u64);
    c[0] as u64 + gx * (c[1] as u64 + gy * c[2] as u64)
}

/// Whether the instruction at `pc` loads, stores or is atomic.
fn access_kind(prog: &Program, pc: u32) -> AccessKind {
    struct Dirs(bool, bool);
    impl crate::ir::Visitor for Dirs {
        fn mem(&mut self, m: crate::ir::MemRole) {
            if m.addr.is_some() {
                match m.dir {
                    crate::ir::Dir::Use => self.0 = true,
                    crate::ir::Dir::Def => self.1 = true,
                }
            }
        }
    }
    let inst = prog
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find(|i| i.pc == pc);
    let mut d = Dirs(false, false);
    if let Some(i) = inst {
        i.op.operands(&mut d);
    }
    match d {
        Dirs(true, true) => AccessKind::Atomic,
        Dirs(_, true) => AccessKind::Write,
        _ => AccessKind::Read,
    }
}

impl Observer for Sanitizer {
    fn checks(&self) -> bool {
        true
    }

    fn alloc(&self, base: u64, size: u64, defined: bool) {
        if size == 0 {
            return;
        }
        let mut st = self.state();
        st.allocs.insert(
            base,
            Allocation {
                base,
                size,
                freed: false,
            },
        );
        if defined {
            st.undefined.remove(&base);
        } else if self.tools.initcheck {
            st.undefined
                .insert(base, Arc::new(Tracked::new(base, size)));
        }
    }

    fn free(&self, base: u64, size: u64) {
        let mut st = self.state();
        st.allocs.insert(
            base,
            Allocation {
                base,
                size,
                freed: true,
            },
        );
        st.undefined.remove(&base);
    }

    fn host_write(&self, base: u64, len: u64) {
        let st = self.state();
        for t in st.undefined.values() {
            let (b, e) = (t.alloc.base, t.alloc.base + t.alloc.size);
            let (lo, hi) = (base.max(b), base.saturating_add(len).min(e));
            if lo < hi {
                t.set((lo - b) as usize, (hi - lo) as usize);
            }
        }
    }

    fn launch_start(&self, machine: &Machine, launch: &Launch) {
        let mut st = self.state();
        // The machine's segments are the live allocations; one the sanitizer knew as live that
        // is gone was freed.
        let segs = machine.global.segments();
        let live: std::collections::HashSet<u64> = segs.iter().map(|s| s.base()).collect();
        for a in st.allocs.values_mut() {
            if !a.freed && !live.contains(&a.base) {
                a.freed = true;
            }
        }
        // A segment the host did not announce is a live allocation (one it freed but left
        // mapped stays freed until it is allocated again).
        for s in segs {
            st.allocs.entry(s.base()).or_insert(Allocation {
                base: s.base(),
                size: s.size(),
                freed: false,
            });
        }
        let gone: Vec<u64> = st
            .undefined
            .keys()
            .filter(|b| !live.contains(b))
            .copied()
            .collect();
        for b in gone {
            st.undefined.remove(&b);
        }
        let prog = launch.program.clone();
        let info = Arc::new(LaunchInfo {
            index: launch.index,
            block: launch.block,
            shared_bytes: launch.shared_bytes,
            local_bytes: launch.local_bytes,
            warps: launch.warps_per_cta() as u32,
            dxbc: prog.isa == Isa::Dxbc,
            allocs: st.allocs.values().copied().collect(),
            freed: st
                .allocs
                .values()
                .filter(|a| a.freed && segs.iter().any(|s| s.holds(a.base, a.size)))
                .copied()
                .collect(),
            slack: st
                .allocs
                .values()
                .filter(|a| !a.freed)
                .filter_map(|a| {
                    let s = segs.iter().find(|s| s.base() == a.base)?;
                    (s.size() > a.size).then(|| (*a, a.base + s.size()))
                })
                .collect(),
            undefined: st.undefined.values().cloned().collect(),
            program: prog,
            grid: launch.grid,
        });
        let _ = info.local_bytes;
        // Only what the tools need: shared memory for racecheck and initcheck, undefined
        // allocations for initcheck, freed ones still mapped for memcheck.
        let t = self.tools;
        let shared = launch.shared_bytes > 0;
        let mem = t.racecheck && shared
            || t.initcheck && (shared || !info.undefined.is_empty())
            || t.memcheck && !(info.freed.is_empty() && info.slack.is_empty());
        st.launches.insert(
            launch.index,
            LaunchState {
                mem,
                info,
                held: Vec::new(),
                held_sites: 0,
                early: false,
            },
        );
    }

    fn launch_end(&self, launch: &Launch, result: Result<&Stats, &Fault>) {
        let mut st = self.state();
        let Some(ls) = st.launches.remove(&launch.index) else {
            return;
        };
        let last = match result {
            Err(f) => cta_index(launch.grid, f.cta),
            Ok(_) => u64::MAX,
        };
        if ls.early && result.is_err() {
            st.approximate = true;
        }
        for (index, out) in ls.held {
            if index <= last {
                Sanitizer::merge(&mut st, index, out);
            }
        }
        if let Err(f) = result {
            if self.tools.memcheck {
                if let Some((key, site)) = Sanitizer::fault_report(&ls.info, f) {
                    st.sites.insert(key, site);
                }
            }
        }
        let too_large = if ls.info.warps as usize > cta::RACE_MAX_WARPS {
            Some(format!(
                "its CTAs have {} warps, more than racecheck follows ({})",
                ls.info.warps,
                cta::RACE_MAX_WARPS
            ))
        } else if ls.info.shared_bytes > cta::RACE_MAX_SHARED {
            Some(format!(
                "its CTAs have {} bytes of shared memory, more than racecheck follows ({})",
                ls.info.shared_bytes,
                cta::RACE_MAX_SHARED
            ))
        } else {
            None
        };
        if let (true, Some(why)) = (self.tools.racecheck && ls.info.shared_bytes > 0, too_large) {
            let key = SiteKey::new(launch.index, Tool::Racecheck, 0xff, 0, 0, 0);
            let report = Report {
                tool: Tool::Racecheck,
                severity: Severity::Warning,
                launch: launch.index,
                at: Where::default(),
                what: What::NotChecked { why },
                count: 0,
            };
            st.sites.insert(
                key,
                Site {
                    report,
                    count: 1,
                    first: (0, 0),
                },
            );
        }
    }

    fn cta_start(&self, at: WarpAt, index: u64) {
        let info = match self.state().launches.get(&at.launch) {
            Some(l) => l.info.clone(),
            None => return,
        };
        Cta::start(self.id, self.tools, info, index, at.cta);
    }

    fn cta_end(&self, at: WarpAt, _fault: Option<&Fault>) {
        let Some((index, out)) = Cta::end(self.id, at.launch, at.cta) else {
            return;
        };
        if out.sites.is_empty() && out.ub.is_empty() {
            return;
        }
        let mut st = self.state();
        let n = out.sites.len() + out.ub.len();
        let Some(ls) = st.launches.get_mut(&at.launch) else {
            return;
        };
        if ls.early || ls.held_sites + n > MAX_HELD {
            // Too much to hold: merge now (and everything held so far).
            ls.early = true;
            let held = std::mem::take(&mut ls.held);
            ls.held_sites = 0;
            for (i, o) in held {
                Sanitizer::merge(&mut st, i, o);
            }
            Sanitizer::merge(&mut st, index, out);
        } else {
            ls.held_sites += n;
            ls.held.push((index, out));
        }
    }

    fn wants_mem(&self, launch: u32) -> bool {
        self.state().launches.get(&launch).is_none_or(|l| l.mem)
    }

    fn wants_inst(&self, launch: u32) -> bool {
        // racecheck counts each warp's instructions (two lanes' accesses in one instruction
        // are simultaneous).
        self.tools.racecheck
            && self
                .state()
                .launches
                .get(&launch)
                .is_none_or(|l| l.info.shared_bytes > 0)
    }

    fn inst(&self, at: WarpAt, _pc: u32, _active: u32, _exec: u32) {
        if self.tools.racecheck {
            Cta::with(self.id, at.launch, at.cta, |c| c.inst(at.warp));
        }
    }

    fn mem(&self, at: WarpAt, access: MemAccess) {
        if !(self.tools.racecheck || self.tools.initcheck || self.tools.memcheck) {
            return;
        }
        if matches!(access.space, MemSpace::Shared | MemSpace::Global) {
            Cta::with(self.id, at.launch, at.cta, |c| c.mem(at.warp, &access));
        }
    }

    fn barrier(&self, at: WarpAt, id: u8, pc: u32, _active: u32) {
        Cta::with(self.id, at.launch, at.cta, |c| c.barrier(at.warp, id, pc));
    }

    fn barrier_done(&self, at: WarpAt, id: u8, released: &[u32]) {
        Cta::with(self.id, at.launch, at.cta, |c| c.barrier_done(id, released));
    }

    fn finding(&self, f: CheckFinding) {
        let tools = self.tools;
        let handled = Cta::with(self.id, f.launch, f.cta, |c| {
            let at = c.place(f.warp, f.lane, f.pc);
            let launch = f.launch;
            match f.kind {
                FindingKind::Misaligned {
                    space,
                    size,
                    addr,
                    store,
                    atomic,
                } if tools.memcheck => {
                    let space = match space {
                        MemSpace::Shared => Space::Shared,
                        MemSpace::Local => Space::Local,
                        _ => Space::Global,
                    };
                    let kind = match (store, atomic) {
                        (_, true) => AccessKind::Atomic,
                        (true, _) => AccessKind::Write,
                        _ => AccessKind::Read,
                    };
                    let aligned = addr & !(size as u64 - 1);
                    let inside = match space {
                        Space::Global => c.info.holding(aligned),
                        _ => None,
                    };
                    let key = SiteKey::new(launch, Tool::Memcheck, 1, f.pc, 0, space as u32);
                    c.hit(key, 1, || Report {
                        tool: Tool::Memcheck,
                        severity: Severity::Error,
                        launch,
                        at,
                        what: What::Access {
                            space,
                            kind,
                            size,
                            addr,
                            problem: Problem::Misaligned { aligned, inside },
                            fault: false,
                        },
                        count: 0,
                    });
                }
                FindingKind::PartialWarp { barrier, idle } if tools.synccheck => {
                    let key = SiteKey::new(launch, Tool::Synccheck, 0, f.pc, 0, barrier as u32);
                    c.hit(key, 1, || Report {
                        tool: Tool::Synccheck,
                        severity: Severity::Error,
                        launch,
                        at,
                        what: What::DivergentWarp { barrier, idle },
                        count: 0,
                    });
                }
                FindingKind::ShflInactive { src } if tools.synccheck => {
                    let key = SiteKey::new(launch, Tool::Synccheck, 2, f.pc, 0, 0);
                    c.hit(key, 1, || Report {
                        tool: Tool::Synccheck,
                        severity: Severity::Error,
                        launch,
                        at,
                        what: What::ShflInactive { src },
                        count: 0,
                    });
                }
                FindingKind::Other if tools.ub => c.out.ub.push(f.clone()),
                _ => {}
            }
        });
        // A finding outside a CTA this sanitizer follows (a warp run by hand): `ub` only.
        if handled.is_none() && tools.ub && f.kind == FindingKind::Other {
            let mut st = self.state();
            st.ub_total += 1;
            st.ub.push(f);
        }
    }
}
