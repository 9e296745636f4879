//! Warp uniformity: which registers, predicates, CC flags and LEA.LO words hold the same value in
//! every active lane, at the entry of each block and after each instruction; which blocks always
//! run converged; which branches never split the warp.
//!
//! # What a "uniform" answer guarantees
//!
//! Whenever the warp runs the block, every **active** lane holds the same value of the item. In a
//! block that [`is_converged`](Uniformity::is_converged) (every lane that has not exited is
//! active) that is every live lane of the warp.
//!
//! # Rules
//!
//! Launch state is uniform: every register, predicate, flag and the LEA.LO word start at 0.
//! An instruction's outputs (registers, pair/quad included, predicates, flags, LEA.LO word) are
//! uniform exactly when **all** of these hold, else they become non-uniform:
//!
//! - the instruction is unguarded (a guarded write leaves the lanes whose guard failed with their
//!   old value: never uniform, even under a uniform guard);
//! - its block is converged (a write made while some live lanes are inactive leaves those lanes
//!   with their old value);
//! - everything it reads is uniform: registers (RZ is), predicates (PT is), CC flags, the LEA.LO
//!   word; immediates and `c[b][imm]` operands always are;
//! - its source is lane-independent: `S2R SR_CTAID.*` is, `S2R SR_TID.*`/`SR_LANEID` are not;
//!   loads from global or shared memory (LDG, LD, LDS) are conservatively not; LDC is (the
//!   address decides, and it is a read like any other).
//!
//! The one exception to "all inputs": the LEA.LO word read by LEA.HI only reaches its window
//! test, so it decides the uniformity of CC.OF and `Plg` only, not of Rd, CF, ZF and SF.
//!
//! An instruction guarded by `!PT` never runs and changes nothing. At a join, an item is uniform
//! when it is uniform on every incoming thread edge (meet = both uniform), iterated to the
//! greatest fixed point (so uniform loop counters stay uniform). The thread edges are
//! [`Terminator::successors`] without a push's edge to where its entry resumes (a thread reaches
//! an SSY's reconvergence block only by a SYNC or by ordinary flow, never straight from the SSY;
//! a CAL's return point only by a RET; a CAL keeps its edge to the callee) plus, for a wait
//! (SYNC, BRK, CONT, RET), the resume point of every push of its kind in the program (the target
//! of each SSY, PBK, PCNT; the return point after each CAL). Calls are not told apart: a
//! subroutine's entry meets what every caller passes, and each RET reaches every return point.
//!
//! # Convergence
//!
//! A block is converged unless the warp may reach it with live lanes inactive. Such blocks are the
//! least set that contains
//!
//! - both successors of a `BRA` whose condition (guard predicate, the flags of a CC test) is not
//!   uniform at the end of its block;
//! - every successor of a `BRX` (its declared targets and its next block) whose condition or
//!   register is not uniform at the end of its block;
//! - the next block of a wait (`SYNC`, `BRK`, `CONT`, `RET`) whose condition is not uniform
//!   (the waiting lanes leave);
//! - when the program has a `BRK`, `CONT`, `RET` or `CAL` and any block is non-converged, the
//!   resume point of every push (an `SSY`, `PBK` or `PCNT` target, a `CAL`'s return point):
//!   those waits take their lanes out of the entries above the one they wait at, so an entry may
//!   resume without lanes that were active at its push (with calls, a `SYNC` in a callee may pass
//!   a call entry to reach its caller's `SSY` entry, and leaves the call entry);
//!
//! and that is closed under the warp's mask-preserving edges out of a non-converged block: BRA
//! and BRX targets, JMP, EXIT/BAR/SSY next, a push → where its entry resumes (the entry pushed holds
//! that block's mask), a CAL → its callee, and a wait → next, except for an unconditional wait
//! while an entry of its kind is surely pending (then every lane waits and none goes to next).
//! Without BRK, CONT, CAL and RET, an SSY's reconvergence block is not tainted by the divergence
//! inside the region: when the warp resumes there, the active mask is the SSY's mask minus exited
//! lanes, which is every live lane if the SSY ran converged.
//!
//! A non-uniform `EXIT` does not diverge: exited lanes never come back, and the lanes left are
//! exactly the live ones. A non-uniform `BAR.SYNC` condition does not change the mask either.
//!
//! "An entry of a kind is surely pending" is a must-analysis over the warp's control flow, one per
//! kind: true after a push of that kind (for a CAL, in the callee), unchanged along every other
//! edge, and where a push's entry resumes whatever held at the push (the stack below the popped
//! entry is the stack the push pushed onto).
//!
//! Uniformity uses convergence (writes in non-converged blocks are non-uniform) and convergence
//! uses uniformity (of branch conditions); both are iterated together from the optimistic start
//! until neither changes.

use super::cfg::{ix, Hubs, Order, Work, KINDS};
use super::effects::never;
use super::{StateSet, FLAG_OF};
use crate::ir::*;
use warpjit_runtime::warp::{CF, OF, SF, ZF};

/// A set of warp-uniform per-thread state items (see [`StateSet`] for the layout and queries).
pub type UniformSet = StateSet;

/// The result of [`uniformity`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uniformity {
    /// Uniform at block entry; `None` for a block no thread reaches.
    entry: Vec<Option<UniformSet>>,
    /// Uniform after each instruction of each block.
    after: Vec<Vec<UniformSet>>,
    /// Blocks that always run with every live lane active.
    converged: Vec<bool>,
    /// Whether each block's terminator condition is uniform.
    cond_uniform: Vec<bool>,
    /// Whether an entry of each region kind is surely on the stack when each block runs.
    pending: Vec<[bool; KINDS]>,
    /// Whether the cut-off [`MAX_EVALS`] took some block's entry as nothing uniform.
    widened: bool,
}

/// Whether a lane condition evaluates the same in every active lane, given the uniform items.
pub(super) fn cond_is_uniform(c: Cond, u: &UniformSet) -> bool {
    if never(c.guard) {
        return true;
    }
    let guard = c.guard.0.pred.is_pt() || u.has_pred(c.guard.0.pred);
    let reads = super::cc_test_flags(c.cc);
    let cc = [CF, ZF, SF, OF]
        .into_iter()
        .all(|f| reads >> f & 1 == 0 || u.has_flag(f));
    guard && cc
}

/// Whether the op's result can differ between lanes with equal inputs: its roles say so (a
/// thread id), or it loads from global or shared memory or a resource view.
fn lane_dependent_source(op: &Op, e: &super::Effects) -> bool {
    struct Varying(bool);
    impl Visitor for Varying {
        fn lane_varying(&mut self) {
            self.0 = true;
        }
    }
    let mut v = Varying(false);
    op.operands(&mut v);
    v.0 || e.mem_reads.global || e.mem_reads.shared || e.mem_reads.local || e.mem_reads.view
}

/// Steps forward over one instruction: `u` (uniform before `i`) becomes what is uniform after
/// it, for an instruction in a block that is (`converged`) or may not be converged.
///
/// Every output depends on every input, with one exception: the LEA.LO word that LEA.HI reads
/// only reaches its window test (CC.OF and `Plg`), not Rd, CF, ZF or SF.
pub fn step_forward(i: &Inst, u: &mut UniformSet, converged: bool) {
    if never(i.guard) {
        return;
    }
    let e = i.op.effects();
    let mut uni = converged && i.guard.is_always() && !lane_dependent_source(&i.op, &e);
    if uni {
        i.op.for_each_reg(&mut |r| {
            if !r.def && !u.has_regs(r.reg, r.count) {
                uni = false;
            }
        });
        uni &= e.pred_reads & !u.preds == 0 && e.cc_reads & !u.cc == 0;
    }
    // Outputs of the window test (only LEA.HI reads the word; for every other op this is `uni`).
    let uni_window = uni && (!e.lea_lo_read || u.lea_lo);
    i.op.for_each_reg(&mut |r| {
        if r.def {
            if uni {
                u.insert_regs(r.reg, r.count);
            } else {
                u.remove_regs(r.reg, r.count);
            }
        }
    });
    let set = |bits: &mut u8, mask: u8, on: bool| {
        if on {
            *bits |= mask;
        } else {
            *bits &= !mask;
        }
    };
    set(&mut u.preds, e.pred_writes, uni_window);
    set(&mut u.cc, e.cc_writes & !FLAG_OF, uni);
    set(&mut u.cc, e.cc_writes & FLAG_OF, uni_window);
    if e.lea_lo_write {
        u.lea_lo = uni;
    }
}

/// Where a thread may go from block `b` for uniformity (without the hub edges): a push's edge to
/// where its entry resumes is left out (a call keeps its edge to the callee), a wait goes to its
/// next block (and, through its kind's hub, to every resume point of the kind).
fn plain_edges(p: &Program, b: usize) -> Vec<BlockId> {
    let mut s = match p.blocks[b].term {
        Terminator::Push {
            region,
            target,
            next,
            ..
        } => vec![region.resumes_at(target, next).0],
        Terminator::Wait { next, .. } => vec![next],
        ref t => t.successors(p),
    };
    s.retain(|&t| (t as usize) < p.blocks.len());
    s.sort_unstable();
    s.dedup();
    s
}

/// Edges of the warp along which the active mask is kept: where a non-converged block passes
/// its state on (see the module docs).
fn warp_mask_edges(p: &Program, t: &Terminator, pending: [bool; KINDS]) -> Vec<BlockId> {
    match *t {
        Terminator::Wait {
            region, cond, next, ..
        } => {
            if cond.is_always() && pending[ix(region)] {
                vec![]
            } else {
                vec![next]
            }
        }
        _ => t.successors(p),
    }
}

/// The must-analysis "an entry of region kind k is on the reconvergence stack" at each block's
/// entry, for every kind, and the edges it followed (each block's value changes at most
/// `KINDS + 1` times).
fn entries_pending(p: &Program, order: &Order) -> (Vec<[bool; KINDS]>, u64) {
    let n = p.blocks.len();
    let mut pend: Vec<Option<[bool; KINDS]>> = vec![None; n];
    if n == 0 {
        return (vec![], 0);
    }
    let mut followed = 0u64;
    pend[0] = Some([false; KINDS]);
    let mut work = Work::new(order, true);
    work.push(0);
    while let Some(b) = work.pop() {
        let Some(v) = pend[b] else { continue };
        let edges: Vec<(BlockId, [bool; KINDS])> = match p.blocks[b].term {
            Terminator::Push {
                region,
                target,
                next,
                ..
            } => {
                let mut after = v;
                after[ix(region)] = true;
                let (now, resume) = region.resumes_at(target, next);
                vec![(now, after), (resume, v)]
            }
            ref t => t.successors(p).into_iter().map(|s| (s, v)).collect(),
        };
        for (s, val) in edges {
            followed += 1;
            let Some(slot) = pend.get_mut(s as usize) else {
                continue;
            };
            let new = match *slot {
                None => Some(val),
                Some(c) => Some(std::array::from_fn(|k| c[k] && val[k])),
            };
            if new != *slot {
                *slot = new;
                work.push(s as usize);
            }
        }
    }
    let pend = pend
        .into_iter()
        .map(|v| v.unwrap_or([false; KINDS]))
        .collect();
    (pend, followed)
}

/// Computes uniformity and convergence for every block of `p` (see the module docs).
pub fn uniformity(p: &Program) -> Uniformity {
    uniformity_counted(p).0
}

/// The state of the combined fixed point of [`uniformity_counted`].
struct Solver<'a> {
    p: &'a Program,
    hubs: &'a Hubs,
    pending: &'a [[bool; KINDS]],
    /// Uniform at each block's entry; `None` where no thread arrives (yet).
    entry: Vec<Option<UniformSet>>,
    /// Uniform at each block's end, once evaluated.
    exit: Vec<Option<UniformSet>>,
    /// Per kind, what is uniform at the end of every wait of the kind that threads reach: what
    /// the hub passes to the kind's resume points.
    hub: [Option<UniformSet>; KINDS],
    /// Blocks that may run with live lanes inactive.
    div: Vec<bool>,
    /// Whether a wait may take its lanes past other entries (see [`uniformity_counted`]).
    waits_past: bool,
    /// Whether any block is divergent yet.
    any_div: bool,
    /// The work done: instructions stepped, edges followed, blocks marked divergent.
    work: u64,
    /// Evaluations of each block so far.
    evals: Vec<u32>,
    /// Whether a block's entry was widened to nothing uniform ([`MAX_EVALS`]).
    widened: bool,
}

/// Evaluations of one block after which its entry is taken as nothing uniform (the answer
/// stays sound: fewer items uniform, which only costs the JIT some speed). Each evaluation
/// after the first follows a loss at its entry or its becoming divergent, so a block reaches
/// this only in a loop that loses one item per pass around it, such as a chain of register
/// moves written against the loop's order (a loop of 10^5 blocks moving a value through 239
/// registers took 239 passes: 11 s); real programs take a few passes. With the cut-off every
/// block is evaluated at most `MAX_EVALS + 2` times.
pub const MAX_EVALS: u32 = 12;

impl Solver<'_> {
    /// Meets `u` into the entry of block `s`; queues `s` if that changed it.
    fn meet_into(&mut self, s: usize, u: &UniformSet, work: &mut Work) {
        self.work += 1;
        let changed = match &mut self.entry[s] {
            None => {
                self.entry[s] = Some(*u);
                true
            }
            Some(e) => e.intersect_with(u),
        };
        if changed {
            work.push(s);
        }
    }

    /// Marks block `b` divergent, with every block its mask reaches (see the module docs), and
    /// queues them: their writes are no longer uniform.
    fn diverge(&mut self, b: usize, work: &mut Work) {
        let n = self.p.blocks.len();
        let mut stack = vec![b];
        while let Some(b) = stack.pop() {
            self.work += 1;
            if b >= n || self.div[b] {
                continue;
            }
            self.div[b] = true;
            work.push(b);
            for s in warp_mask_edges(self.p, &self.p.blocks[b].term, self.pending[b]) {
                stack.push(s as usize);
            }
            if self.waits_past && !self.any_div {
                // The first divergent block: every entry may now resume without lanes that
                // were active at its push.
                for t in self.hubs.resume.iter().flatten() {
                    stack.push(*t as usize);
                }
            }
            self.any_div = true;
        }
    }

    /// Evaluates block `b`: its exit from its entry, passed on to its successors (and its hub),
    /// and the divergence its terminator causes.
    fn eval(&mut self, b: usize, work: &mut Work) {
        self.evals[b] += 1;
        if self.evals[b] > MAX_EVALS && self.entry[b].is_some_and(|e| !e.is_empty()) {
            self.entry[b] = Some(UniformSet::EMPTY);
            self.widened = true;
        }
        let Some(mut u) = self.entry[b] else { return };
        let block = &self.p.blocks[b];
        self.work += 1 + block.insts.len() as u64;
        for i in &block.insts {
            step_forward(i, &mut u, !self.div[b]);
        }
        if self.exit[b] != Some(u) {
            self.exit[b] = Some(u);
            for s in plain_edges(self.p, b) {
                self.meet_into(s as usize, &u, work);
            }
            if let Terminator::Wait { region, .. } = block.term {
                let k = ix(region);
                let changed = match &mut self.hub[k] {
                    None => {
                        self.hub[k] = Some(u);
                        true
                    }
                    Some(h) => h.intersect_with(&u),
                };
                if changed {
                    let h = self.hub[k].unwrap_or(UniformSet::FULL);
                    for i in 0..self.hubs.resume[k].len() {
                        let t = self.hubs.resume[k][i] as usize;
                        self.meet_into(t, &h, work);
                    }
                }
            }
        }
        let seeds: [Option<BlockId>; 2] = match block.term {
            Terminator::Branch {
                cond,
                taken,
                fallthrough,
                ..
            } if !cond_is_uniform(cond, &u) => [Some(taken), Some(fallthrough)],
            Terminator::Wait { cond, next, .. } if !cond_is_uniform(cond, &u) => [Some(next), None],
            _ => [None, None],
        };
        for s in seeds.into_iter().flatten() {
            self.diverge(s as usize, work);
        }
        if let Terminator::Brx { cond, reg, .. } = block.term {
            if !cond_is_uniform(cond, &u) || !(reg.is_rz() || u.has_reg(reg)) {
                for s in block.term.successors(self.p) {
                    self.diverge(s as usize, work);
                }
            }
        }
    }
}

/// [`uniformity`], and the work it did: per block evaluation, one and the instructions stepped,
/// plus the edges followed (hubs included) and the blocks visited marking divergence. Tests
/// compare it with the program's size to check that it stays linear.
///
/// Uniformity and convergence are solved together, in one work list: a block is evaluated when
/// its entry loses a uniform item or it becomes divergent, and an evaluation that finds its
/// terminator's condition not uniform marks blocks divergent (and queues them). Both only move
/// one way from the optimistic start, so this reaches the fixed point that solving each in turn
/// until neither changes reaches; a block evaluated more than [`MAX_EVALS`] times has its entry
/// taken as nothing uniform (see [`Uniformity::widened`]), so each is evaluated at most
/// `MAX_EVALS + 2` times.
pub fn uniformity_counted(p: &Program) -> (Uniformity, u64) {
    let n = p.blocks.len();
    let hubs = Hubs::new(p);
    let order = Order::new(p, &hubs);
    let (pending, followed) = entries_pending(p, &order);
    // A BRK, CONT or RET takes its lanes out of the entries above the one it waits at, so with
    // one in the program a push's entry may resume without lanes that were active at the push.
    // So may a SYNC once the program has a CAL: a call entry can sit above an SSY entry (a SYNC
    // in the callee for an SSY of the caller) and holds the syncing lanes.
    let waits_past = p.blocks.iter().any(|b| {
        matches!(
            b.term,
            Terminator::Wait {
                region: Region::Break | Region::Continue | Region::Call,
                ..
            } | Terminator::Push {
                region: Region::Call,
                ..
            }
        )
    });
    let mut s = Solver {
        p,
        hubs: &hubs,
        pending: &pending,
        entry: vec![None; n],
        exit: vec![None; n],
        hub: [None; KINDS],
        div: vec![false; n],
        waits_past,
        any_div: false,
        work: followed,
        evals: vec![0; n],
        widened: false,
    };
    let mut work = Work::new(&order, true);
    if n > 0 {
        s.entry[0] = Some(UniformSet::FULL);
        work.push(0);
    }
    while let Some(b) = work.pop() {
        s.eval(b, &mut work);
    }
    let work_done = s.work;
    let (entry, exit, div, widened) = (s.entry, s.exit, s.div, s.widened);
    let mut after = Vec::with_capacity(n);
    let mut cond_uniform = Vec::with_capacity(n);
    for b in 0..n {
        let block = &p.blocks[b];
        let mut u = entry[b].unwrap_or(UniformSet::FULL);
        let mut v = Vec::with_capacity(block.insts.len());
        for i in &block.insts {
            if entry[b].is_some() {
                step_forward(i, &mut u, !div[b]);
            }
            v.push(u);
        }
        debug_assert!(entry[b].is_none() || exit[b] == Some(u));
        after.push(v);
        let c = match block.term {
            Terminator::Jump { .. }
            | Terminator::Push { .. }
            | Terminator::Exit { next: None, .. } => true,
            Terminator::Branch { cond, .. }
            | Terminator::Wait { cond, .. }
            | Terminator::Exit { cond, .. }
            | Terminator::Barrier { cond, .. } => cond_is_uniform(cond, &u),
            Terminator::Brx { cond, reg, .. } => {
                cond_is_uniform(cond, &u) && (reg.is_rz() || u.has_reg(reg))
            }
        };
        cond_uniform.push(c);
    }
    let u = Uniformity {
        entry,
        after,
        converged: div.iter().map(|d| !d).collect(),
        cond_uniform,
        pending,
        widened,
    };
    (u, work_done)
}

impl Uniformity {
    /// Whether any thread can reach block `b` (the answers for an unreachable block are
    /// vacuous: everything is reported uniform).
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.entry[b as usize].is_some()
    }

    /// The uniform items at the entry of block `b`.
    pub fn uniform_in(&self, b: BlockId) -> UniformSet {
        self.entry[b as usize].unwrap_or(UniformSet::FULL)
    }

    /// The uniform items right after instruction `inst` of block `b`.
    pub fn uniform_after(&self, b: BlockId, inst: usize) -> UniformSet {
        self.after[b as usize][inst]
    }

    /// The uniform items at the end of block `b`'s body (what its terminator sees).
    pub fn uniform_out(&self, b: BlockId) -> UniformSet {
        self.after[b as usize]
            .last()
            .copied()
            .unwrap_or_else(|| self.uniform_in(b))
    }

    /// Whether register `r` is uniform at the entry of block `b` (`RZ` always is).
    pub fn reg_uniform_in(&self, b: BlockId, r: Reg) -> bool {
        r.is_rz() || self.uniform_in(b).has_reg(r)
    }

    /// Whether predicate `p` is uniform at the entry of block `b` (`PT` always is).
    pub fn pred_uniform_in(&self, b: BlockId, p: Pred) -> bool {
        p.is_pt() || self.uniform_in(b).has_pred(p)
    }

    /// Whether register `r` is uniform right after instruction `inst` of block `b`.
    pub fn reg_uniform_after(&self, b: BlockId, inst: usize, r: Reg) -> bool {
        r.is_rz() || self.uniform_after(b, inst).has_reg(r)
    }

    /// Whether predicate `p` is uniform right after instruction `inst` of block `b`.
    pub fn pred_uniform_after(&self, b: BlockId, inst: usize, p: Pred) -> bool {
        p.is_pt() || self.uniform_after(b, inst).has_pred(p)
    }

    /// Whether the condition of block `b`'s terminator is the same in every active lane. For a
    /// `Branch` this means the warp never splits there (every active lane goes the same way).
    /// Terminators without a condition (and an EXIT with no next block) answer `true`.
    pub fn branch_is_uniform(&self, b: BlockId) -> bool {
        self.cond_uniform[b as usize]
    }

    /// Whether block `b` always runs with every live (not exited) lane of the warp active.
    pub fn is_converged(&self, b: BlockId) -> bool {
        self.converged[b as usize]
    }

    /// Whether the cut-off [`MAX_EVALS`] took some block's entry as nothing uniform: then the
    /// answers are sound but may report fewer items uniform (and fewer blocks converged) than
    /// the fixed point would.
    pub fn widened(&self) -> bool {
        self.widened
    }

    /// Whether an entry of kind `region` (for [`Region::Sync`], an SSY entry) is surely on the
    /// reconvergence stack whenever block `b` runs (then an unconditional wait of that kind at
    /// its end never falls through to the next block).
    pub fn pending(&self, b: BlockId, region: Region) -> bool {
        self.pending[b as usize][ix(region)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    fn c0(offset: u16) -> Src {
        Src::Const(ConstRef { bank: 0, offset })
    }

    #[test]
    fn ctaid_vs_tid() {
        let ldc = |d, a| Ldc {
            d: Reg(d),
            size: MemSize::B32,
            mode: LdcMode::Ia,
            bank: 0,
            a: Reg(a),
            imm: 0x140,
        };
        let p = prog(vec![
            blk(
                vec![
                    inst(s2r(0, SpecialReg::CtaidX)),           // 0
                    inst(s2r(1, SpecialReg::TidX)),             // 1
                    inst(iadd(2, 0, c0(0x140))),                // 2 uniform
                    inst(iadd(3, 1, sr(0))),                    // 3 not
                    inst(ldc(4, 0)),                            // 4 uniform (uniform index)
                    inst(ldc(5, 1)),                            // 5 not
                    inst(ldc(6, 255)),                          // 6 uniform (RZ)
                    inst(ldg(8, 2, MemSize::B64)),              // 7 not (pair)
                    inst(isetp(0, Cmp::Lt, 2, sr(4))),          // 8 P0 uniform
                    inst(isetp(1, Cmp::Lt, 3, sr(4))),          // 9 P1 not
                    inst(s2r(10, SpecialReg::LaneId)),          // 10 not
                    inst(movi(11, 5)),                          // 11 uniform
                    inst(xmad(Reg(12), Reg(2), sr(11), c0(0))), // 12 uniform
                ],
                br(pcond(0, false), 1, 1),
            ),
            blk(vec![], br(pcond(1, false), 2, 2)),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        let out = u.uniform_out(0);
        for r in [0, 2, 4, 6, 11, 12, 13, 200] {
            assert!(out.has_reg(Reg(r)), "R{r} uniform");
        }
        for r in [1, 3, 5, 8, 9, 10] {
            assert!(!out.has_reg(Reg(r)), "R{r} not uniform");
        }
        assert!(u.reg_uniform_after(0, 0, Reg(0)) && !u.reg_uniform_after(0, 1, Reg(1)));
        assert!(u.pred_uniform_after(0, 8, Pred(0)) && !u.pred_uniform_after(0, 9, Pred(1)));
        assert!(
            u.branch_is_uniform(0),
            "branch on a ctaid-derived predicate"
        );
        assert!(!u.branch_is_uniform(1), "branch on a tid-derived predicate");
        assert!(u.is_converged(0) && u.is_converged(1) && !u.is_converged(2));
        assert!(u.reg_uniform_in(2, Reg::RZ) && u.pred_uniform_in(2, Pred::PT));
        // Launch state is uniform everywhere.
        assert_eq!(u.uniform_in(0), UniformSet::FULL);
    }

    #[test]
    fn divergent_branch_loses_uniformity() {
        // B0: R5 = 5; R0 = tid; P0 = R0 < 16; @P0 BRA B2 -> B1
        // B1: R1 = 1; R6 = 6; BRA B3
        // B2: R1 = 2
        // B3: R7 = R5 + 1; EXIT
        let p = prog(vec![
            blk(
                vec![
                    inst(movi(5, 5)),
                    inst(s2r(0, SpecialReg::TidX)),
                    inst(isetp(0, Cmp::Lt, 0, Src::Imm(16))),
                ],
                br(pcond(0, false), 2, 1),
            ),
            blk(vec![inst(movi(1, 1)), inst(movi(6, 6))], jump(3)),
            blk(vec![inst(movi(1, 2))], jump(3)),
            blk(vec![inst(iadd(7, 5, Src::Imm(1)))], exit()),
        ]);
        let u = uniformity(&p);
        assert!(!u.branch_is_uniform(0));
        assert!(u.is_converged(0));
        assert!(
            !u.is_converged(1) && !u.is_converged(2) && !u.is_converged(3),
            "no SSY: no reconvergence"
        );
        assert!(
            !u.reg_uniform_in(3, Reg(1)),
            "written under a divergent mask"
        );
        assert!(!u.reg_uniform_in(3, Reg(6)));
        assert!(
            !u.reg_uniform_after(1, 0, Reg(1)),
            "even inside the divergent block"
        );
        assert!(u.reg_uniform_in(3, Reg(5)), "written before the split");
        assert!(
            !u.reg_uniform_after(3, 0, Reg(7)),
            "written in a non-converged block"
        );
        // The same with a uniform condition keeps everything.
        let mut q = p.clone();
        q.blocks[0].insts[1] = inst(s2r(0, SpecialReg::CtaidY));
        let u = uniformity(&q);
        assert!(u.branch_is_uniform(0) && (0..4).all(|b| u.is_converged(b)));
        assert!(u.reg_uniform_in(3, Reg(1)) && u.reg_uniform_after(3, 0, Reg(7)));
    }

    #[test]
    fn guarded_writes_are_not_uniform() {
        // P0 uniform; @P0 MOV R1, 1; @!PT MOV R2, tid; R3 = R1 + 1
        let p = prog(vec![
            blk(
                vec![
                    inst(isetp(0, Cmp::Eq, 4, Src::Imm(0))),
                    guarded(Pred(0), false, movi(1, 1)),
                    guarded(Pred::PT, true, s2r(2, SpecialReg::TidX)),
                    inst(iadd(3, 1, Src::Imm(1))),
                    guarded(Pred(0), false, isetp(5, Cmp::Eq, 4, Src::Imm(0))),
                    guarded(Pred(0), false, iadd_cc(6, 6, Src::Imm(1), true, false)),
                ],
                br(
                    Cond {
                        guard: Guard::ALWAYS,
                        cc: Some(CcTest::Eq),
                    },
                    1,
                    1,
                ),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(u.pred_uniform_after(0, 0, Pred(0)));
        assert!(!u.reg_uniform_after(0, 1, Reg(1)));
        assert!(u.reg_uniform_after(0, 2, Reg(2)), "@!PT never runs");
        assert!(!u.reg_uniform_after(0, 3, Reg(3)));
        assert!(!u.pred_uniform_after(0, 4, Pred(5)));
        assert!(!u.uniform_after(0, 5).has_flag(ZF));
        assert!(
            !u.branch_is_uniform(0),
            "CC.EQ on a flag written under a guard"
        );
        assert!(
            u.is_converged(0) && !u.is_converged(1),
            "the branch may split the warp"
        );
    }

    #[test]
    fn uniform_loop_counter() {
        // B0: R1 = 0; R2 = ctaid -> B1
        // B1: R1 = R1 + 1; R3 = R3 + R2; P0 = R1 < c[0][0x140]; @P0 BRA B1 -> B2
        // B2: EXIT
        let p = prog(vec![
            blk(
                vec![inst(mov(1, Src::Imm(0))), inst(s2r(2, SpecialReg::CtaidX))],
                jump(1),
            ),
            blk(
                vec![
                    inst(iadd(1, 1, Src::Imm(1))),
                    inst(iadd(3, 3, sr(2))),
                    inst(isetp(0, Cmp::Lt, 1, c0(0x140))),
                ],
                br(pcond(0, false), 1, 2),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(u.reg_uniform_in(1, Reg(1)) && u.reg_uniform_in(1, Reg(3)));
        assert!(u.branch_is_uniform(1));
        assert!((0..3).all(|b| u.is_converged(b)));
        assert!(u.reg_uniform_in(2, Reg(1)));
        // Accumulating a tid-derived value makes the accumulator (but not the counter)
        // non-uniform, around the loop.
        let mut q = p.clone();
        q.blocks[0].insts[1] = inst(s2r(2, SpecialReg::TidX));
        let u = uniformity(&q);
        assert!(
            u.reg_uniform_in(1, Reg(1)) && !u.reg_uniform_in(1, Reg(3)) && u.branch_is_uniform(1)
        );
        // A tid-bounded loop diverges: the counter is non-uniform at the head.
        let mut q = p.clone();
        q.blocks[1].insts[2] = inst(isetp(0, Cmp::Lt, 1, sr(4)));
        q.blocks[0].insts.push(inst(s2r(4, SpecialReg::TidX)));
        let u = uniformity(&q);
        assert!(!u.branch_is_uniform(1) && !u.is_converged(1) && !u.is_converged(2));
        assert!(!u.reg_uniform_in(1, Reg(1)) && !u.reg_uniform_in(2, Reg(1)));
    }

    /// B0: R5 = 5; R0 = tid; P0 = R0 < 16; SSY B4 -> B1
    /// B1: @P0 BRA B3 -> B2
    /// B2: R1 = 1; SYNC -> B3
    /// B3: R1 = 2; SYNC -> B4
    /// B4: R6 = R5 + 1; P1 = R6 < 9; @P1 BRA B5 -> B5
    /// B5: EXIT
    fn if_else_region() -> Program {
        prog(vec![
            blk(
                vec![
                    inst(movi(5, 5)),
                    inst(s2r(0, SpecialReg::TidX)),
                    inst(isetp(0, Cmp::Lt, 0, Src::Imm(16))),
                ],
                ssy(4, 1),
            ),
            blk(vec![], br(pcond(0, false), 3, 2)),
            blk(vec![inst(movi(1, 1))], sync(3)),
            blk(vec![inst(movi(1, 2))], sync(4)),
            blk(
                vec![
                    inst(iadd(6, 5, Src::Imm(1))),
                    inst(isetp(1, Cmp::Lt, 6, Src::Imm(9))),
                ],
                br(pcond(1, false), 5, 5),
            ),
            blk(vec![], exit()),
        ])
    }

    #[test]
    fn ssy_sync_reconverges() {
        let p = if_else_region();
        let u = uniformity(&p);
        assert!(!u.branch_is_uniform(1));
        assert_eq!(
            (0..6).map(|b| u.is_converged(b)).collect::<Vec<_>>(),
            vec![true, true, false, false, true, true]
        );
        assert!(
            u.pending(1, Region::Sync)
                && u.pending(2, Region::Sync)
                && u.pending(3, Region::Sync)
                && !u.pending(4, Region::Sync)
        );
        assert!(!u.reg_uniform_in(4, Reg(1)), "each side wrote its own R1");
        assert!(u.reg_uniform_in(4, Reg(5)));
        assert!(
            u.reg_uniform_after(4, 0, Reg(6)),
            "written after reconvergence"
        );
        assert!(u.branch_is_uniform(4));
        assert!(u.is_converged(5));

        // If the else side jumps to B4 instead of syncing, B4 may run with part of the warp.
        let mut q = p.clone();
        q.blocks[3].term = jump(4);
        let u = uniformity(&q);
        assert!(
            !u.is_converged(4) && !u.reg_uniform_after(4, 0, Reg(6)) && !u.branch_is_uniform(4)
        );

        // Without the SSY the SYNCs fall through: no reconvergence.
        let mut q = p.clone();
        q.blocks[0].term = jump(1);
        let u = uniformity(&q);
        assert!(!u.is_converged(4));

        // An SSY run by a diverged warp reconverges only that part of it.
        let mut q = p.clone();
        q.blocks.insert(
            0,
            blk(
                vec![
                    inst(s2r(9, SpecialReg::TidY)),
                    inst(isetp(2, Cmp::Eq, 9, Src::Imm(0))),
                ],
                br(pcond(2, false), 1, 1),
            ),
        );
        for b in &mut q.blocks[1..] {
            b.term = match b.term {
                Terminator::Push {
                    region,
                    target,
                    next,
                    pc,
                } => Terminator::Push {
                    region,
                    target: target + 1,
                    next: next + 1,
                    pc,
                },
                Terminator::Branch {
                    cond,
                    taken,
                    fallthrough,
                    pc,
                } => Terminator::Branch {
                    cond,
                    taken: taken + 1,
                    fallthrough: fallthrough + 1,
                    pc,
                },
                Terminator::Wait {
                    region,
                    cond,
                    next,
                    pc,
                } => Terminator::Wait {
                    region,
                    cond,
                    next: next + 1,
                    pc,
                },
                t => t,
            };
        }
        let u = uniformity(&q);
        assert!(!u.is_converged(5) && !u.branch_is_uniform(0));
    }

    #[test]
    fn divergent_sync_and_exit() {
        // B0: R0 = tid; P0 = R0 < 3; SSY B3 -> B1
        // B1: @P0 SYNC -> B2                 (the P0 lanes wait)
        // B2: R1 = 1; SYNC -> B3
        // B3: R2 = 2; @P0 EXIT -> B4        (a divergent EXIT does not split the rest)
        // B4: R3 = R2 + 1; P1 = R3 == 3; @P1 BRA B5 -> B5
        // B5: EXIT
        let p = prog(vec![
            blk(
                vec![
                    inst(s2r(0, SpecialReg::TidX)),
                    inst(isetp(0, Cmp::Lt, 0, Src::Imm(3))),
                ],
                ssy(3, 1),
            ),
            blk(vec![], sync_if(pcond(0, false), 2)),
            blk(vec![inst(movi(1, 1))], sync(3)),
            blk(vec![inst(movi(2, 2))], exit_if(pcond(0, false), 4)),
            blk(
                vec![
                    inst(iadd(3, 2, Src::Imm(1))),
                    inst(isetp(1, Cmp::Eq, 3, Src::Imm(3))),
                ],
                br(pcond(1, false), 5, 5),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(!u.branch_is_uniform(1) && !u.branch_is_uniform(3));
        assert_eq!(
            (0..6).map(|b| u.is_converged(b)).collect::<Vec<_>>(),
            vec![true, true, false, true, true, true]
        );
        assert!(!u.reg_uniform_in(3, Reg(1)));
        assert!(u.reg_uniform_in(4, Reg(2)) && u.reg_uniform_after(4, 0, Reg(3)));
        assert!(u.branch_is_uniform(4));
    }

    #[test]
    fn calls_return_to_the_return_point() {
        // B0: R0 = tid; P0 = R0 < 3; R1 = 5; CAL B2 (returns to B1)
        // B1: R4 = R1 + 1; EXIT                 (the return point)
        // B2: R5 = 7; @P0 RET -> B3             (lanes 0-2 return early, with R1 = 5)
        // B3: R1 = 9; RET -> B4                 (the others, R1 = 9)
        // B4: EXIT                              (only a RET with no call falls through)
        let p = prog(vec![
            blk(
                vec![
                    inst(s2r(0, SpecialReg::TidX)),
                    inst(isetp(0, Cmp::Lt, 0, Src::Imm(3))),
                    inst(movi(1, 5)),
                ],
                push(Region::Call, 2, 1),
            ),
            blk(vec![inst(iadd(4, 1, Src::Imm(1)))], exit()),
            blk(
                vec![inst(movi(5, 7))],
                wait_if(Region::Call, pcond(0, false), 3),
            ),
            blk(
                vec![inst(movi(1, 9))],
                wait_if(Region::Call, Cond::ALWAYS, 4),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(u.pending(2, Region::Call) && u.pending(3, Region::Call));
        assert!(!u.pending(0, Region::Call) && !u.pending(1, Region::Call));
        // The callee runs with the caller's mask; the divergent RET splits it.
        assert!(u.is_converged(2) && !u.is_converged(3));
        assert!(!u.branch_is_uniform(2));
        // The CAL passes R1 = 5 to the callee; at the return point it is 5 or 9 by lane.
        assert!(u.reg_uniform_in(2, Reg(1)));
        assert!(!u.reg_uniform_in(1, Reg(1)));
        assert!(u.reg_uniform_in(1, Reg(5)));
        // Threads: the CAL goes to the callee (and, conservatively, the return point); each
        // RET to the return point of every CAL.
        let ts = |b| super::super::liveness::thread_successors(&p, b);
        assert_eq!((ts(0), ts(2), ts(3)), (vec![1, 2], vec![1, 3], vec![1, 4]));
        let l = super::super::liveness::liveness(&p);
        assert!(l.live_out[3].has_reg(Reg(1)) && l.live_out[2].has_reg(Reg(1)));
        assert!(!l.live_in[2].has_reg(Reg(5)));
    }

    #[test]
    fn break_out_of_an_ssy_region_taints_its_target() {
        // B0: R0 = tid; P0 = R0 < 3; PBK B5 -> B1
        // B1: SSY B4 -> B2
        // B2: @P0 BRK -> B3                  (lanes 0-2 leave the loop, and the SSY entry)
        // B3: SYNC -> B4
        // B4: R1 = 1; BRK -> B5             (runs without lanes 0-2)
        // B5: EXIT
        let p = prog(vec![
            blk(
                vec![
                    inst(s2r(0, SpecialReg::TidX)),
                    inst(isetp(0, Cmp::Lt, 0, Src::Imm(3))),
                ],
                push(Region::Break, 5, 1),
            ),
            blk(vec![], ssy(4, 2)),
            blk(vec![], wait_if(Region::Break, pcond(0, false), 3)),
            blk(vec![], sync(4)),
            blk(
                vec![inst(movi(1, 1))],
                wait_if(Region::Break, Cond::ALWAYS, 5),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(!u.branch_is_uniform(2));
        assert!(!u.is_converged(3) && !u.is_converged(4));
        assert!(u.pending(4, Region::Break) && u.pending(3, Region::Sync));
        assert!(!u.pending(5, Region::Break));
        // A thread that breaks resumes at the PBK target.
        assert_eq!(super::super::liveness::thread_successors(&p, 2), vec![3, 5]);
        // Without the BRK (a plain SYNC there) the SSY target would be converged.
        let mut q = p.clone();
        q.blocks[2].term = sync_if(pcond(0, false), 3);
        q.blocks[4].term = jump(5);
        let u = uniformity(&q);
        assert!(u.is_converged(4) && !u.is_converged(3));
    }

    #[test]
    fn uniform_counter_around_divergent_if() {
        // B0: R1 = 0; R0 = tid -> B1
        // B1: SSY B5 -> B2                   (loop head)
        // B2: P0 = R0 < R1; @P0 BRA B4 -> B3  (divergent)
        // B3: R2 = R2 + 1; SYNC -> B4        (then part)
        // B4: SYNC -> B5                     (where the taken lanes sync)
        // B5: R1 = R1 + 1; P1 = R1 < 8; @P1 BRA B1 -> B6
        // B6: EXIT
        let p = prog(vec![
            blk(
                vec![inst(mov(1, Src::Imm(0))), inst(s2r(0, SpecialReg::TidX))],
                jump(1),
            ),
            blk(vec![], ssy(5, 2)),
            blk(
                vec![inst(isetp(0, Cmp::Lt, 0, sr(1)))],
                br(pcond(0, false), 4, 3),
            ),
            blk(vec![inst(iadd(2, 2, Src::Imm(1)))], sync(4)),
            blk(vec![], sync(5)),
            blk(
                vec![
                    inst(iadd(1, 1, Src::Imm(1))),
                    inst(isetp(1, Cmp::Lt, 1, Src::Imm(8))),
                ],
                br(pcond(1, false), 1, 6),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        assert!(!u.branch_is_uniform(2));
        assert!(u.is_converged(1) && u.is_converged(5) && !u.is_converged(3) && !u.is_converged(4));
        assert!(
            u.reg_uniform_in(1, Reg(1)),
            "the counter stays uniform around the loop"
        );
        assert!(u.branch_is_uniform(5));
        assert!(!u.reg_uniform_in(5, Reg(2)) && !u.reg_uniform_in(1, Reg(2)));
    }

    #[test]
    fn condition_code_and_predicates() {
        // Uniform 64-bit add chain, then a tid-based .CC.
        let psetp = |p, a: u8, b: u8| Psetp {
            bop1: BoolOp::And,
            bop2: BoolOp::Or,
            p: Pred(p),
            q: Pred::PT,
            a: PredSrc {
                pred: Pred(a),
                neg: false,
            },
            b: PredSrc {
                pred: Pred(b),
                neg: true,
            },
            c: PredSrc::TRUE,
        };
        let p2r = P2r {
            d: Reg(9),
            byte: 0,
            src: P2rSrc::Pr,
            a: Reg::RZ,
            mask: Src::Imm(0x3),
        };
        let p = prog(vec![
            blk(
                vec![
                    inst(s2r(0, SpecialReg::CtaidX)),              // 0
                    inst(iadd_cc(2, 0, c0(0x140), true, false)),   // 1 uniform flags
                    inst(iadd_cc(3, 1, c0(0x144), false, true)),   // 2 uniform (CF uniform)
                    inst(isetp(0, Cmp::Eq, 3, Src::Imm(0))),       // 3 P0 uniform
                    inst(psetp(1, 0, 0)),                          // 4 P1 uniform
                    inst(s2r(4, SpecialReg::TidX)),                // 5
                    inst(isetp(2, Cmp::Eq, 4, Src::Imm(0))),       // 6 P2 not
                    inst(psetp(3, 0, 2)),                          // 7 P3 not
                    inst(p2r),                                     // 8 reads P0, P1: uniform
                    inst(iadd_cc(5, 4, Src::Imm(1), true, false)), // 9 flags not
                    inst(iadd_cc(6, 2, Src::Imm(0), false, true)), // 10 R6 not (CF not)
                ],
                br(
                    Cond {
                        guard: Guard::ALWAYS,
                        cc: Some(CcTest::Ne),
                    },
                    1,
                    1,
                ),
            ),
            blk(vec![], exit()),
        ]);
        let u = uniformity(&p);
        let s = |i| u.uniform_after(0, i);
        assert_eq!(s(1).cc, super::super::FLAGS_ALL);
        assert!(s(2).has_reg(Reg(3)));
        assert!(s(4).has_pred(Pred(0)) && s(4).has_pred(Pred(1)));
        assert!(!s(6).has_pred(Pred(2)) && !s(7).has_pred(Pred(3)));
        assert!(s(8).has_reg(Reg(9)), "P2R of uniform predicates");
        assert!(
            !s(9).has_flag(CF) && !s(9).has_flag(ZF) && !s(9).has_flag(SF) && !s(9).has_flag(OF)
        );
        assert!(!s(10).has_reg(Reg(6)));
        assert!(!u.branch_is_uniform(0), "CC.NE on a tid-derived ZF");
        assert!(!u.is_converged(1));
    }

    #[test]
    fn lea_word_uniformity() {
        let lea = |hi, a| Lea {
            hi,
            x: hi,
            cc: !hi,
            p: if hi { Some(Pred(0)) } else { None },
            d: Reg(2),
            neg_a: false,
            a: Reg(a),
            b: c0(0x140),
            c: Reg::RZ,
            shift: 2,
        };
        let p = prog(vec![blk(
            vec![
                inst(s2r(0, SpecialReg::CtaidX)),
                inst(s2r(1, SpecialReg::TidX)),
                inst(lea(false, 1)),
                inst(lea(true, 0)),
            ],
            exit(),
        )]);
        let u = uniformity(&p);
        assert!(!u.uniform_after(0, 2).lea_lo);
        assert!(
            !u.pred_uniform_after(0, 3, Pred(0)),
            "LEA.HI's window test reads the tid-derived word"
        );
        assert!(
            !u.reg_uniform_after(0, 3, Reg(2)),
            "and CF from the tid-derived LEA.LO"
        );
        let mut q = p.clone();
        q.blocks[0].insts[2] = inst(lea(false, 0));
        let u = uniformity(&q);
        assert!(u.uniform_after(0, 2).lea_lo && u.pred_uniform_after(0, 3, Pred(0)));
        // Only the word differs: a tid-derived LEA.LO without CC, then a LEA.HI without carry
        // in on uniform operands. Its Rd is uniform; its Plg (window test of {Rd, word}) is not.
        let mut q = p.clone();
        q.blocks[0].insts[2] = inst(Lea {
            cc: false,
            ..lea(false, 1)
        });
        q.blocks[0].insts[3] = inst(Lea {
            x: false,
            ..lea(true, 0)
        });
        let u = uniformity(&q);
        assert!(u.uniform_after(0, 2).has_flag(CF), "no CC written");
        assert!(u.reg_uniform_after(0, 3, Reg(2)));
        assert!(!u.pred_uniform_after(0, 3, Pred(0)));
        // With CC instead of Plg: OF is the window test, CF/ZF/SF are not.
        q.blocks[0].insts[3] = inst(Lea {
            x: false,
            cc: true,
            p: None,
            ..lea(true, 0)
        });
        let after = uniformity(&q).uniform_after(0, 3);
        assert!(
            after.has_flag(CF) && after.has_flag(ZF) && after.has_flag(SF) && !after.has_flag(OF)
        );
        // Without CC or Plg, LEA.HI does not look at the word.
        q.blocks[0].insts[3] = inst(Lea {
            x: false,
            p: None,
            ..lea(true, 0)
        });
        assert!(uniformity(&q).reg_uniform_after(0, 3, Reg(2)));
    }

    /// A BRX on a lane-varying register splits the warp: its targets are not converged and its
    /// branch is not uniform; on a uniform register (a constant) it is a uniform jump.
    #[test]
    fn brx_diverges_on_a_lane_varying_register() {
        let text = |src: &str| {
            format!(
                "{src}\nSSY `(.L_end);\nBRX R2 -0x30 (*\"BRANCH_TARGETS .L_a,.L_b\"*);\n.L_a:\nMOV32I R3, 0x1;\nSYNC;\n.L_b:\nMOV32I R3, 0x2;\nSYNC;\n.L_end:\nEXIT;\n"
            )
        };
        let parse = |t: &str| {
            crate::sass::parse_program(t, &crate::sass::AsmOptions::default()).expect("assembles")
        };
        let q = parse(&text("S2R R2, SR_TID.X;"));
        let u = uniformity(&q);
        let brx = q
            .blocks
            .iter()
            .position(|b| matches!(b.term, Terminator::Brx { .. }))
            .unwrap() as BlockId;
        assert!(!u.branch_is_uniform(brx));
        let targets = q.blocks[brx as usize].term.successors(&q);
        assert_eq!(targets.len(), 2);
        for t in targets {
            assert!(!u.is_converged(t), "{t}");
        }
        // The SSY's reconvergence block is converged again.
        assert!(u.is_converged(q.blocks.len() as BlockId - 1));
        let q = parse(&text("MOV R2, c[0x0][0x0];"));
        let u = uniformity(&q);
        assert!(u.branch_is_uniform(brx));
        for t in q.blocks[brx as usize].term.successors(&q) {
            assert!(u.is_converged(t), "{t}");
        }
    }

    #[test]
    fn unreachable_and_empty() {
        assert_eq!(uniformity(&prog(vec![])).converged.len(), 0);
        let p = prog(vec![
            blk(vec![], exit()),
            blk(vec![inst(s2r(1, SpecialReg::TidX))], exit()),
        ]);
        let u = uniformity(&p);
        assert!(!u.is_reachable(1) && u.is_reachable(0));
        assert_eq!(u.uniform_in(1), UniformSet::FULL);
    }
}
