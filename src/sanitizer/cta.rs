//! What the sanitizer keeps for one running CTA: racecheck's shadow of shared memory and the
//! warps' vector clocks, initcheck's written bits, synccheck's barrier arrivals, and the
//! reports found so far. A CTA's events all come on one host thread (`exec::observe`), so its
//! state lives in a thread-local slot from `cta_start` to `cta_end`, reached without a lock.

use super::report::*;
use super::{LaunchInfo, SiteKey, Tools};
use crate::exec::{CheckFinding, MemAccess, MemSpace};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A report found in a CTA, with its count there and the order of its first occurrence.
#[derive(Clone, Debug)]
pub(super) struct Site {
    /// The first occurrence.
    pub report: Report,
    /// Occurrences.
    pub count: u64,
    /// When the first occurrence happened: (the CTA's linear index, its event number there).
    pub first: (u64, u64),
}

/// What a CTA found.
#[derive(Default)]
pub(super) struct CtaOut {
    /// Reports by site.
    pub sites: HashMap<SiteKey, Site>,
    /// The `ub` findings, in the order they came.
    pub ub: Vec<CheckFinding>,
}

/// One access as racecheck's shadow remembers it.
#[derive(Clone, Copy, Default)]
struct Acc {
    /// The thread in the CTA, plus 1 (`32 * warp + lane + 1`); 0: no access.
    tid: u32,
    /// The instruction's pc.
    pc: u32,
    /// The warp's own component of its vector clock at the access.
    epoch: u32,
    /// The warp's instruction count at the access (the instruction instance).
    ic: u32,
    /// 0 read, 1 write, 2 atomic.
    kind: u8,
}

impl Acc {
    fn warp(&self) -> usize {
        ((self.tid - 1) / 32) as usize
    }
    fn access_kind(&self) -> AccessKind {
        match self.kind {
            0 => AccessKind::Read,
            1 => AccessKind::Write,
            _ => AccessKind::Atomic,
        }
    }
}

/// racecheck's record of one byte of shared memory: its last write, up to two reads since
/// (of different threads), and its value before and after that write.
#[derive(Clone, Copy, Default)]
struct Byte {
    w: Acc,
    r: [Acc; 2],
    /// The value the last write left.
    val: u8,
    /// The value before the last write.
    prev: u8,
    /// Bit 0: `val` known (some write happened); bit 1: `prev` known.
    known: u8,
}

/// Bytes of shared memory per shadow chunk.
const CHUNK: usize = 64;

/// How the current access relates to an earlier one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// The earlier one happens before it (a barrier, or program order).
    Before,
    /// Both are lanes of one warp instruction.
    SameInst,
    /// Two instructions of one warp with nothing but lockstep between them.
    Lockstep,
    /// Nothing orders them.
    Unordered,
}

/// The state of the CTA a host thread is running.
pub(super) struct Cta {
    /// The sanitizer it belongs to.
    pub sid: u64,
    /// The launch.
    pub info: Arc<LaunchInfo>,
    /// The CTA's linear index and coordinates.
    pub index: u64,
    cta: [u32; 3],
    tools: Tools,
    /// What it found.
    pub out: CtaOut,
    /// Event counter (orders first occurrences).
    seq: u64,
    /// Warps.
    nw: usize,
    /// Per warp: instructions issued so far, and the count at its last barrier arrival.
    ic: Vec<u32>,
    sync_ic: Vec<u32>,
    /// Vector clocks, `nw` × `nw`: row `v` is what warp `v` knows of every warp's clock.
    vc: Vec<u32>,
    /// Per barrier id: the join of the clocks of the warps that arrived since it last completed.
    pending: Vec<Option<Vec<u32>>>,
    /// Per warp: its last barrier arrival not yet completed (barrier, pc).
    arrived: Vec<Option<(u8, u32)>>,
    /// racecheck's shadow, in chunks of [`CHUNK`] bytes, each valid when its generation is
    /// the CTA's.
    shadow: Vec<Option<Box<[Byte; CHUNK]>>>,
    shadow_gen: Vec<u32>,
    gen: u32,
    /// racecheck runs for this CTA.
    race: bool,
    /// initcheck's bits of shared memory: set = written since the CTA started.
    written: Vec<u64>,
}

thread_local! {
    /// The CTAs this host thread is running (between `cta_start` and `cta_end`): one, but for a
    /// cooperative launch, whose CTAs in flight take passes in turn on one host thread.
    // Boxed: a CTA's state moves between `CURRENT` and `SPARE` without copying.
    #[allow(clippy::vec_box)]
    static CURRENT: RefCell<Vec<Box<Cta>>> = const { RefCell::new(Vec::new()) };
    /// A finished CTA's state, for the next one to reuse its allocations.
    static SPARE: RefCell<Option<Box<Cta>>> = const { RefCell::new(None) };
}

/// Most warps per CTA racecheck follows (vector clocks are `warps²` words): 64, 2048 threads.
pub(super) const RACE_MAX_WARPS: usize = 64;

/// Most shared memory per CTA racecheck follows: 1 MiB (its shadow takes 64 bytes per byte, on
/// each host thread; Maxwell has at most 48 KiB per block).
pub(super) const RACE_MAX_SHARED: u32 = 1 << 20;

impl Cta {
    /// Starts CTA `index` (`cta`) of the launch `info` on this host thread.
    pub fn start(sid: u64, tools: Tools, info: Arc<LaunchInfo>, index: u64, cta: [u32; 3]) {
        let mut c = SPARE
            .with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .unwrap_or_else(|| {
                Box::new(Cta {
                    sid,
                    info: info.clone(),
                    index,
                    cta,
                    tools,
                    out: CtaOut::default(),
                    seq: 0,
                    nw: 0,
                    ic: Vec::new(),
                    sync_ic: Vec::new(),
                    vc: Vec::new(),
                    pending: Vec::new(),
                    arrived: Vec::new(),
                    shadow: Vec::new(),
                    shadow_gen: Vec::new(),
                    gen: 0,
                    race: false,
                    written: Vec::new(),
                })
            });
        let nw = info.warps as usize;
        c.sid = sid;
        c.index = index;
        c.cta = cta;
        c.tools = tools;
        c.out = CtaOut::default();
        c.seq = 0;
        c.nw = nw;
        c.ic.clear();
        c.ic.resize(nw, 0);
        c.sync_ic.clear();
        c.sync_ic.resize(nw, 0);
        c.arrived.clear();
        c.arrived.resize(nw, None);
        c.pending.clear();
        c.pending.resize(16, None);
        c.race = tools.racecheck && nw <= RACE_MAX_WARPS && info.shared_bytes <= RACE_MAX_SHARED;
        let shared = info.shared_bytes as usize;
        if c.race {
            c.vc.clear();
            c.vc.resize(nw * nw, 0);
            for v in 0..nw {
                c.vc[v * nw + v] = 1;
            }
            let chunks = shared.div_ceil(CHUNK);
            if c.shadow.len() < chunks {
                c.shadow.resize_with(chunks, || None);
                c.shadow_gen.resize(chunks, 0);
            }
            c.gen = c.gen.wrapping_add(1);
            if c.gen == 0 {
                // After 2^32 CTAs: forget every chunk's generation once.
                c.shadow_gen.iter_mut().for_each(|g| *g = 0);
                c.gen = 1;
            }
        }
        if tools.initcheck {
            c.written.clear();
            c.written.resize(shared.div_ceil(64), 0);
        }
        c.info = info;
        CURRENT.with(|cur| {
            if let Ok(mut cur) = cur.try_borrow_mut() {
                // A CTA of this sanitizer's earlier launch that never ended (its launch
                // stopped) is dropped.
                let launch = c.info.index;
                cur.retain(|o| o.sid != sid || o.info.index == launch);
                cur.push(c);
            }
        });
    }

    /// Ends this host thread's CTA `cta` of launch `launch` of sanitizer `sid`: what it found.
    pub fn end(sid: u64, launch: u32, cta: [u32; 3]) -> Option<(u64, CtaOut)> {
        let c = CURRENT.with(|cur| {
            let mut cur = cur.try_borrow_mut().ok()?;
            let k = cur.iter().position(|c| c.is(sid, launch, cta))?;
            Some(cur.swap_remove(k))
        })?;
        let mut c = c;
        let out = std::mem::take(&mut c.out);
        let index = c.index;
        SPARE.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = Some(c);
            }
        });
        Some((index, out))
    }

    /// Whether this is CTA `cta` of launch `launch` of sanitizer `sid`.
    #[inline]
    fn is(&self, sid: u64, launch: u32, cta: [u32; 3]) -> bool {
        self.sid == sid && self.cta == cta && self.info.index == launch
    }

    /// Runs `f` on CTA `cta` of launch `launch` of sanitizer `sid`, if this host thread is
    /// running it.
    #[inline]
    pub fn with<R>(
        sid: u64,
        launch: u32,
        cta: [u32; 3],
        f: impl FnOnce(&mut Cta) -> R,
    ) -> Option<R> {
        CURRENT.with(|cur| {
            let mut cur = cur.try_borrow_mut().ok()?;
            // Almost always the only one.
            let c = cur.iter_mut().find(|c| c.is(sid, launch, cta))?;
            Some(f(c))
        })
    }

    /// Where lane `lane` of warp `warp` is, at `pc`.
    pub fn place(&self, warp: u32, lane: u32, pc: u32) -> Where {
        Where {
            cta: self.cta,
            thread: self.info.thread(warp, lane),
            warp,
            lane,
            pc,
        }
    }

    /// Counts `n` occurrences at `key`, the first being `report`'s.
    pub fn hit(&mut self, key: SiteKey, n: u64, report: impl FnOnce() -> Report) {
        self.seq += 1;
        let (index, seq) = (self.index, self.seq);
        self.out
            .sites
            .entry(key)
            .or_insert_with(|| Site {
                report: report(),
                count: 0,
                first: (index, seq),
            })
            .count += n;
    }

    /// A warp instruction was issued.
    #[inline]
    pub fn inst(&mut self, warp: u32) {
        let v = warp as usize;
        if v < self.nw {
            self.ic[v] = self.ic[v].wrapping_add(1);
        }
    }

    /// A lane's memory access.
    pub fn mem(&mut self, warp: u32, a: &MemAccess) {
        match a.space {
            MemSpace::Shared => {
                if self.race {
                    self.race_access(warp, a);
                }
                if self.tools.initcheck {
                    self.shared_init(warp, a);
                }
            }
            MemSpace::Global => {
                if self.tools.memcheck && !self.info.freed.is_empty() {
                    self.use_after_free(warp, a);
                }
                if self.tools.memcheck && !self.info.slack.is_empty() {
                    self.past_end(warp, a);
                }
                if self.tools.initcheck && !self.info.undefined.is_empty() {
                    self.global_init(warp, a);
                }
            }
            _ => {}
        }
    }

    /// memcheck: an access to an allocation the host freed, whose memory is still mapped.
    fn use_after_free(&mut self, warp: u32, a: &MemAccess) {
        let Some(alloc) = self.info.freed_at(a.addr, a.size) else {
            return;
        };
        let kind = match (a.store, a.atomic) {
            (_, true) => AccessKind::Atomic,
            (true, _) => AccessKind::Write,
            _ => AccessKind::Read,
        };
        let key = SiteKey::new(self.info.index, Tool::Memcheck, 2, a.pc, 0, 0);
        let at = self.place(warp, a.lane, a.pc);
        let launch = self.info.index;
        self.hit(key, 1, || Report {
            tool: Tool::Memcheck,
            severity: Severity::Error,
            launch,
            at,
            what: What::Access {
                space: Space::Global,
                kind,
                size: a.size,
                addr: a.addr,
                problem: Problem::Freed { alloc },
                fault: false,
            },
            count: 0,
        });
    }

    /// memcheck: an access past an allocation's end that its mapping still covers (a driver
    /// maps whole pages): no fault, the run goes on, but it is out of bounds as on a GPU.
    fn past_end(&mut self, warp: u32, a: &MemAccess) {
        if !self.info.in_slack(a.addr, a.size) {
            return;
        }
        let kind = match (a.store, a.atomic) {
            (_, true) => AccessKind::Atomic,
            (true, _) => AccessKind::Write,
            _ => AccessKind::Read,
        };
        let problem = self.info.nearest(a.addr, a.size);
        let key = SiteKey::new(self.info.index, Tool::Memcheck, 3, a.pc, 0, 0);
        let at = self.place(warp, a.lane, a.pc);
        let launch = self.info.index;
        self.hit(key, 1, || Report {
            tool: Tool::Memcheck,
            severity: Severity::Error,
            launch,
            at,
            what: What::Access {
                space: Space::Global,
                kind,
                size: a.size,
                addr: a.addr,
                problem,
                fault: false,
            },
            count: 0,
        });
    }

    /// initcheck on a shared-memory access.
    fn shared_init(&mut self, warp: u32, a: &MemAccess) {
        let (start, end) = (a.addr as usize, a.addr as usize + a.size as usize);
        if end > self.written.len() * 64 {
            return;
        }
        let bit = |w: &[u64], i: usize| w[i / 64] >> (i % 64) & 1 == 1;
        if (!a.store || a.atomic) && (start..end).any(|i| !bit(&self.written, i)) {
            self.uninit(warp, a, Space::Shared, 1, None);
        }
        if a.store {
            for i in start..end {
                self.written[i / 64] |= 1 << (i % 64);
            }
        }
    }

    /// initcheck on a global access (only in the undefined allocations).
    fn global_init(&mut self, warp: u32, a: &MemAccess) {
        let Some(t) = self.info.tracked(a.addr, a.size) else {
            return;
        };
        let off = (a.addr - t.alloc.base) as usize;
        let alloc = t.alloc;
        let unwritten = (!a.store || a.atomic) && !t.all_set(off, a.size as usize);
        if a.store {
            t.set(off, a.size as usize);
        }
        if unwritten {
            self.uninit(warp, a, Space::Global, 0, Some(alloc));
        }
    }

    /// An initcheck report of access `a` (a read or atomic of bytes never written) in `space`,
    /// merged by site (`sub`: 0 for global, 1 for shared).
    fn uninit(
        &mut self,
        warp: u32,
        a: &MemAccess,
        space: Space,
        sub: u8,
        alloc: Option<Allocation>,
    ) {
        let kind = if a.atomic {
            AccessKind::Atomic
        } else {
            AccessKind::Read
        };
        let key = SiteKey::new(self.info.index, Tool::Initcheck, sub, a.pc, 0, 0);
        let at = self.place(warp, a.lane, a.pc);
        let launch = self.info.index;
        self.hit(key, 1, || Report {
            tool: Tool::Initcheck,
            severity: Severity::Error,
            launch,
            at,
            what: What::Uninit {
                space,
                kind,
                size: a.size,
                addr: a.addr,
                alloc,
            },
            count: 0,
        });
    }

    /// How the current access of warp `v` relates to the earlier access `e`.
    fn order(&self, v: usize, e: &Acc) -> Order {
        let u = e.warp();
        if u == v {
            if e.ic == self.ic[v] {
                Order::SameInst
            } else if self.sync_ic[v] > e.ic {
                Order::Before
            } else {
                Order::Lockstep
            }
        } else if u < self.nw && self.vc[v * self.nw + u] >= e.epoch {
            Order::Before
        } else {
            Order::Unordered
        }
    }

    /// racecheck on a shared-memory access of lane `a.lane` of warp `warp`.
    fn race_access(&mut self, warp: u32, a: &MemAccess) {
        let v = warp as usize;
        if v >= self.nw {
            return;
        }
        let me = Acc {
            tid: warp * 32 + a.lane + 1,
            pc: a.pc,
            epoch: self.vc[v * self.nw + v],
            ic: self.ic[v],
            kind: if a.atomic {
                2
            } else if a.store {
                1
            } else {
                0
            },
        };
        let bytes: [u8; 16] = {
            let mut b = [0u8; 16];
            for (k, w) in a.data.iter().enumerate() {
                b[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
            }
            b
        };
        // An aligned access of at most 16 bytes lies in one chunk: take it out of the shadow
        // while its bytes are checked (the checks borrow the rest of the state).
        let at = a.addr as usize;
        let c = at / CHUNK;
        if c >= self.shadow.len() || (at + a.size as usize - 1) / CHUNK != c {
            return;
        }
        let mut chunk = self.shadow[c]
            .take()
            .unwrap_or_else(|| Box::new([Byte::default(); CHUNK]));
        if self.shadow_gen[c] != self.gen {
            *chunk = [Byte::default(); CHUNK];
            self.shadow_gen[c] = self.gen;
        }
        // Two atomics never race; nor does a plain read with an atomic (the read sees the value
        // before or after it: how a CAS loop starts, or a flag is polled).
        let exempt = |x: u8, y: u8| x == 2 && y != 1 || y == 2 && x != 1;
        for (k, &incoming) in bytes.iter().enumerate().take(a.size as usize) {
            let i = at + k;
            let b = &mut chunk[i % CHUNK];
            // The earlier write, against this read, write or atomic.
            if b.w.tid != 0 && b.w.tid != me.tid && !exempt(b.w.kind, me.kind) {
                let o = self.order(v, &b.w);
                let relevant = match o {
                    Order::Before => false,
                    // Two lanes of one instruction: only two writes can meet.
                    Order::SameInst => me.kind != 0 && b.w.kind != 0,
                    _ => true,
                };
                if relevant {
                    let (hazard, benign, values) = if me.kind == 0 {
                        // The read gets the same value whether the write came first or not.
                        let prev = b.known & 2 != 0;
                        (
                            Hazard::Raw,
                            prev && b.prev == b.val,
                            prev.then_some((b.prev, b.val)),
                        )
                    } else {
                        // Both leave the same value.
                        (Hazard::Waw, b.val == incoming, Some((b.val, incoming)))
                    };
                    if !benign {
                        let w = b.w;
                        self.race(hazard, o, w, me, v, a, i as u64, values);
                    }
                }
            }
            let b = &mut chunk[i % CHUNK];
            if me.kind != 0 {
                // Earlier reads, against this write or atomic.
                let known = b.known & 1 != 0;
                let (val, reads) = (b.val, b.r);
                if !(known && val == incoming) {
                    for r in reads {
                        if r.tid == 0 || r.tid == me.tid || exempt(r.kind, me.kind) {
                            continue;
                        }
                        let o = self.order(v, &r);
                        if matches!(o, Order::Lockstep | Order::Unordered) {
                            let values = known.then_some((val, incoming));
                            self.race(Hazard::War, o, r, me, v, a, i as u64, values);
                        }
                    }
                }
                let b = &mut chunk[i % CHUNK];
                b.prev = b.val;
                b.known = (b.known & 1) << 1 | 1;
                b.val = incoming;
                b.w = me;
                b.r = [Acc::default(); 2];
            } else {
                // Keep the newest read of each thread, two threads at most: a slot of the same
                // thread or one that happens before this read (which then covers it) is
                // replaced.
                let r = b.r;
                let slot = (0..2).find(|&s| {
                    r[s].tid == 0 || r[s].tid == me.tid || self.order(v, &r[s]) == Order::Before
                });
                if let Some(s) = slot {
                    chunk[i % CHUNK].r[s] = me;
                }
            }
        }
        self.shadow[c] = Some(chunk);
    }

    /// Reports a hazard between the earlier access `e` and the current one.
    #[allow(clippy::too_many_arguments)]
    fn race(
        &mut self,
        hazard: Hazard,
        o: Order,
        e: Acc,
        me: Acc,
        v: usize,
        a: &MemAccess,
        byte: u64,
        values: Option<(u8, u8)>,
    ) {
        // Two instructions of one warp are in lockstep on Maxwell: a warning in SASS; DXBC
        // promises no such order between a group's threads.
        let severity = if o == Order::Lockstep && !self.info.dxbc {
            Severity::Warning
        } else {
            Severity::Error
        };
        // The report is the write's (for WAW, the earlier write's); the other access joins it.
        let ((wr, wr_warp, wr_lane), (ot, ot_warp, ot_lane)) = {
            let e_place = (e, e.warp() as u32, (e.tid - 1) % 32);
            let me_place = (me, v as u32, a.lane);
            match hazard {
                Hazard::War => (me_place, e_place),
                _ => (e_place, me_place),
            }
        };
        let key = SiteKey::new(
            self.info.index,
            Tool::Racecheck,
            severity as u8,
            wr.pc,
            0,
            0,
        );
        self.seq += 1;
        let order = (self.index, self.seq);
        let write_at = self.place(wr_warp, wr_lane, wr.pc);
        let other = RaceWith {
            order,
            kind: ot.access_kind(),
            at: self.place(ot_warp, ot_lane, ot.pc),
            hazard,
            byte,
            values,
            same_warp: matches!(o, Order::Lockstep | Order::SameInst),
            count: 1,
        };
        let launch = self.info.index;
        let site = self.out.sites.entry(key).or_insert_with(|| Site {
            report: Report {
                tool: Tool::Racecheck,
                severity,
                launch,
                at: write_at,
                what: What::Race {
                    write: wr.access_kind(),
                    with: Vec::new(),
                },
                count: 0,
            },
            count: 0,
            first: order,
        });
        site.count += 1;
        if let What::Race { with, .. } = &mut site.report.what {
            match with.iter_mut().find(|w| w.at.pc == other.at.pc) {
                Some(w) => w.count += 1,
                None => with.push(other),
            }
        }
    }

    /// Warp `warp` arrived at barrier `id` (at `pc`).
    pub fn barrier(&mut self, warp: u32, id: u8, pc: u32) {
        let v = warp as usize;
        if v >= self.nw {
            return;
        }
        self.arrived[v] = Some((id, pc));
        self.sync_ic[v] = self.ic[v];
        if self.race {
            let nw = self.nw;
            let row = &self.vc[v * nw..v * nw + nw];
            let p = self.pending[id as usize & 15].get_or_insert_with(|| vec![0; nw]);
            for (x, y) in p.iter_mut().zip(row) {
                *x = (*x).max(*y);
            }
            self.vc[v * nw + v] += 1;
        }
    }

    /// Barrier `id` completed, releasing the warps `released`.
    pub fn barrier_done(&mut self, id: u8, released: &[u32]) {
        if self.tools.synccheck {
            self.divergent_block(id, released);
        }
        for v in 0..self.nw {
            if self.arrived[v].is_some_and(|(b, _)| b == id) {
                self.arrived[v] = None;
            }
        }
        if let Some(join) = self.pending[id as usize & 15].take() {
            let nw = self.nw;
            for &v in released {
                let v = v as usize;
                if v < nw {
                    for (x, y) in self.vc[v * nw..v * nw + nw].iter_mut().zip(&join) {
                        *x = (*x).max(*y);
                    }
                }
            }
        }
    }

    /// synccheck: the released warps waited at different instructions.
    fn divergent_block(&mut self, id: u8, released: &[u32]) {
        let mut at: Vec<(u32, Vec<u32>)> = Vec::new();
        for &v in released {
            if let Some(Some((b, pc))) = self.arrived.get(v as usize) {
                if *b == id {
                    match at.iter_mut().find(|(p, _)| p == pc) {
                        Some((_, ws)) => ws.push(v),
                        None => at.push((*pc, vec![v])),
                    }
                }
            }
        }
        if at.len() < 2 {
            return;
        }
        at.sort();
        let (lo, hi) = (at[0].0, at[at.len() - 1].0);
        let key = SiteKey::new(self.info.index, Tool::Synccheck, 1, lo, hi, id as u32);
        // The first warp at another instruction than the lowest warp's.
        let first_warp = at[0].1[0];
        let odd = at
            .iter()
            .flat_map(|(pc, ws)| ws.iter().map(move |w| (*w, *pc)))
            .filter(|&(w, _)| w != first_warp)
            .min()
            .unwrap_or((first_warp, lo));
        let here = self.place(odd.0, 0, odd.1);
        let launch = self.info.index;
        self.hit(key, 1, || Report {
            tool: Tool::Synccheck,
            severity: Severity::Error,
            launch,
            at: here,
            what: What::DivergentBlock { barrier: id, at },
            count: 0,
        });
    }
}

impl super::Tracked {
    /// Whether bytes `[off, off + len)` are all written.
    fn all_set(&self, off: usize, len: usize) -> bool {
        (off..off + len).all(|i| self.bits[i / 64].load(Ordering::Relaxed) >> (i % 64) & 1 == 1)
    }
    /// Marks bytes `[off, off + len)` written.
    pub(super) fn set(&self, off: usize, len: usize) {
        let mut i = off;
        let end = off + len;
        while i < end {
            let w = i / 64;
            let hi = end.min((w + 1) * 64);
            let bits = if hi - i == 64 {
                u64::MAX
            } else {
                ((1u64 << (hi - i)) - 1) << (i % 64)
            };
            self.bits[w].fetch_or(bits, Ordering::Relaxed);
            i = hi;
        }
    }
}
