//! Per-thread liveness of registers, predicates, CC flags and the LEA.LO word.
//!
//! Each thread follows one path through the CFG, so liveness is the classic backward may-analysis
//! over the *thread* CFG ([`thread_successors`]):
//!
//! - a read makes an item live (RZ and PT never are; a pair or quad operand reads 2 or 4
//!   registers); a guard predicate, the predicate of a control instruction's condition and the
//!   flags of its CC test are reads;
//! - a write kills an item only when the instruction is unguarded: a thread whose guard is false
//!   keeps its old value, so a guarded write does not kill;
//! - an instruction guarded by `!PT` never executes: it neither reads nor writes.
//!
//! [`Liveness::live_out`] of a block is what its *body* must leave in the warp state: the reads of
//! its terminator plus what its successors need.
//!
//! One read is not the thread's own: `SHFL` reads its source register in *other* lanes, which
//! may be on another path, waiting or exited. The source register of every `SHFL` of the program
//! is therefore live at the end of every block (within a block no other lane's instruction runs,
//! so a value overwritten inside it is never seen), and live into the entry block: a lane past
//! the end of a partial warp never runs, so its registers keep their launch values (0) for a
//! `SHFL` of the lanes that do.
//!
//! The work is linear in the program's size (see [`liveness`]): a wait's edges to every resume
//! point of its kind go through one hub per kind ([`super::cfg`]), which gives the same sets.

use super::cfg::{ix, plain_successors, Hubs, Order, Work, KINDS};
use super::effects::never;
use super::StateSet;
use crate::ir::*;

/// A set of live per-thread state items (see [`StateSet`] for the layout and queries).
pub type LiveSet = StateSet;

/// Liveness per block of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Liveness {
    /// Live at the start of each block (before its first instruction).
    pub live_in: Vec<LiveSet>,
    /// Live at the end of each block's body (after its last instruction, before its
    /// terminator): the terminator's reads and the live-in of every thread successor.
    pub live_out: Vec<LiveSet>,
}

/// Where a thread may go after block `b`: [`Terminator::successors`] plus, for a
/// [`Terminator::Wait`] (`SYNC`, `BRK`, `CONT`, `RET`), the resume point of every
/// [`Terminator::Push`] of the same region kind in the program (a thread that waits resumes where
/// whichever entry of that kind is innermost when it waits resumes: an `SSY`'s target, a `CAL`'s
/// return point). A thread that exits goes nowhere. Ids outside the program are dropped; the list
/// has no duplicates.
///
/// Each call reads the whole program (the resume points) and a wait's list is as long as the
/// program has resume points of its kind: this answers for one block (tests, tools). [`liveness`]
/// takes the same edges through one hub per kind ([`super::cfg`]).
pub fn thread_successors(p: &Program, b: BlockId) -> Vec<BlockId> {
    let term = &p.blocks[b as usize].term;
    let mut s = term.successors(p);
    if let Terminator::Wait { region, .. } = *term {
        s.extend(resume_points(p, region));
    }
    s.retain(|&t| (t as usize) < p.blocks.len());
    s.sort_unstable();
    s.dedup();
    s
}

/// Where the entries that every [`Terminator::Push`] of kind `region` in the program pushes
/// resume ([`Region::resumes_at`]: for [`Region::Sync`], the reconvergence blocks of every `SSY`;
/// for [`Region::Call`], the return point after every `CAL`), sorted, without duplicates.
pub fn resume_points(p: &Program, region: Region) -> Vec<BlockId> {
    let mut t: Vec<BlockId> = p
        .blocks
        .iter()
        .filter_map(|b| match b.term {
            Terminator::Push {
                region: r,
                target,
                next,
                ..
            } if r == region => Some(r.resumes_at(target, next).1),
            _ => None,
        })
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// What a terminator reads (its condition's predicate and flags, a BRX's register).
pub fn term_uses(t: &Terminator) -> LiveSet {
    let e = t.effects();
    let mut s = LiveSet {
        preds: e.pred_reads,
        cc: e.cc_reads,
        ..LiveSet::EMPTY
    };
    if let Some(r) = t.reg_read() {
        s.insert_reg(r);
    }
    s
}

/// The items an instruction reads and the items it surely writes (empty when guarded), as
/// `(uses, kills)`.
pub fn inst_uses_kills(i: &Inst) -> (LiveSet, LiveSet) {
    let mut uses = LiveSet::EMPTY;
    let mut kills = LiveSet::EMPTY;
    if never(i.guard) {
        return (uses, kills);
    }
    let e = i.effects();
    let kill = i.guard.is_always();
    i.op.for_each_reg(&mut |u| {
        if !u.def {
            uses.insert_regs(u.reg, u.count);
        } else if kill {
            kills.insert_regs(u.reg, u.count);
        }
    });
    uses.preds = e.pred_reads;
    uses.cc = e.cc_reads;
    uses.lea_lo = e.lea_lo_read;
    if kill {
        kills.preds = e.pred_writes;
        kills.cc = e.cc_writes;
        kills.lea_lo = e.lea_lo_write;
    }
    (uses, kills)
}

/// Steps backward over one instruction: `live` (live after `i`) becomes what is live before it.
pub fn step_back(i: &Inst, live: &mut LiveSet) {
    let (uses, kills) = inst_uses_kills(i);
    live.subtract(&kills);
    live.union_with(&uses);
}

/// Computes per-thread liveness for every block of `p`.
///
/// Linear in the program's size: each block's instructions are summarised once (what it reads
/// before writing, what it surely writes), the waits reach their resume points through one hub
/// per region kind ([`super::cfg`]), and each block is then evaluated once plus once per change
/// of what is live out of it (at most [`ITEMS`](super::cfg::ITEMS) times).
pub fn liveness(p: &Program) -> Liveness {
    liveness_counted(p).0
}

/// [`liveness`], and the work it did: instructions summarised, plus, per block evaluation, one
/// and the edges it read, plus the waits queued when a hub changed. Tests compare it with the
/// program's size to check that it stays linear.
pub fn liveness_counted(p: &Program) -> (Liveness, u64) {
    let n = p.blocks.len();
    let hubs = Hubs::new(p);
    let order = Order::new(p, &hubs);
    let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
    for b in 0..n {
        for s in plain_successors(p, b) {
            preds[s].push(b as BlockId);
        }
    }
    // The registers other lanes may read by SHFL: live at every block end.
    let mut shuffled = LiveSet::EMPTY;
    for i in p.blocks.iter().flat_map(|b| &b.insts) {
        if let Op::Shfl(s) = &i.op {
            if !never(i.guard) {
                shuffled.insert_reg(s.a);
            }
        }
    }
    // Each block's summary: what is live out of it whatever follows (its terminator's reads and
    // the shuffled registers), what its body reads before writing (`gen`) and what it surely
    // writes (`kill`): live in = gen | (live out - kill).
    let mut base = Vec::with_capacity(n);
    let mut gen = Vec::with_capacity(n);
    let mut kill = Vec::with_capacity(n);
    let mut work_done = 0u64;
    for block in &p.blocks {
        let mut out = term_uses(&block.term);
        out.union_with(&shuffled);
        base.push(out);
        let (mut g, mut k) = (LiveSet::EMPTY, LiveSet::EMPTY);
        for i in block.insts.iter().rev() {
            let (uses, kills) = inst_uses_kills(i);
            g.subtract(&kills);
            g.union_with(&uses);
            k.union_with(&kills);
        }
        work_done += block.insts.len() as u64;
        gen.push(g);
        kill.push(k);
    }
    let mut live_in = vec![LiveSet::EMPTY; n];
    let mut live_out = vec![LiveSet::EMPTY; n];
    // Per kind, what is live into any of its resume points: live out of each of its waits.
    let mut hub = [LiveSet::EMPTY; KINDS];
    // Every block once, successors first, then whatever changes.
    let mut work = Work::all(&order, false);
    while let Some(b) = work.pop() {
        let mut out = base[b];
        work_done += 1;
        for s in plain_successors(p, b) {
            out.union_with(&live_in[s]);
            work_done += 1;
        }
        if let Terminator::Wait { region, .. } = p.blocks[b].term {
            out.union_with(&hub[ix(region)]);
            work_done += 1;
        }
        live_out[b] = out;
        let mut live = out;
        live.subtract(&kill[b]);
        live.union_with(&gen[b]);
        if live != live_in[b] {
            live_in[b] = live;
            for &q in &preds[b] {
                work.push(q as usize);
            }
            for k in hubs.kinds_resuming_at(b) {
                if hub[k].union_with(&live) {
                    work_done += hubs.waits[k].len() as u64;
                    for &w in &hubs.waits[k] {
                        work.push(w as usize);
                    }
                }
            }
        }
    }
    // Lanes that do not exist never run the entry block; their launch values are read as
    // any other lane's.
    if let Some(entry) = live_in.first_mut() {
        entry.union_with(&shuffled);
    }
    (Liveness { live_in, live_out }, work_done)
}

impl Liveness {
    /// What is live right after instruction `inst` of block `block` (before the next instruction,
    /// or before the terminator for the last one). The JIT can skip computing any flag, predicate
    /// or register an instruction writes that is not in this set.
    pub fn live_after(&self, p: &Program, block: BlockId, inst: usize) -> LiveSet {
        let insts = &p.blocks[block as usize].insts;
        let mut live = self.live_out[block as usize];
        for i in insts[inst + 1..].iter().rev() {
            step_back(i, &mut live);
        }
        live
    }

    /// [`live_after`](Self::live_after) for every instruction of `block`, in order (one backward
    /// walk).
    pub fn live_after_each(&self, p: &Program, block: BlockId) -> Vec<LiveSet> {
        let insts = &p.blocks[block as usize].insts;
        let mut out = vec![LiveSet::EMPTY; insts.len()];
        let mut live = self.live_out[block as usize];
        for (k, i) in insts.iter().enumerate().rev() {
            out[k] = live;
            step_back(i, &mut live);
        }
        out
    }

    /// What is live right before instruction `inst` of block `block`.
    pub fn live_before(&self, p: &Program, block: BlockId, inst: usize) -> LiveSet {
        let mut live = self.live_after(p, block, inst);
        step_back(&p.blocks[block as usize].insts[inst], &mut live);
        live
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::{FLAGS_ALL, FLAG_CF, FLAG_SF, FLAG_ZF};
    use super::*;
    use warpjit_runtime::warp::{CF, OF, SF, ZF};

    fn regs(s: &LiveSet) -> Vec<u8> {
        s.iter_regs().map(|r| r.0).collect()
    }

    #[test]
    fn straight_line_kill() {
        // R1 = R2 + R3; R1 = R1 + 1; R6 = R1; STG.E [R4], R6 (the address is the pair R4, R5)
        let p = prog(vec![blk(
            vec![
                inst(iadd(1, 2, sr(3))),
                inst(iadd(1, 1, Src::Imm(1))),
                inst(mov(6, sr(1))),
                inst(stg(4, 6)),
            ],
            exit(),
        )]);
        let l = liveness(&p);
        assert_eq!(
            regs(&l.live_in[0]),
            vec![2, 3, 4, 5],
            "R1 and R6 are written before read"
        );
        assert!(l.live_out[0].is_empty());
        let after = l.live_after_each(&p, 0);
        assert_eq!(regs(&after[0]), vec![1, 4, 5]);
        assert_eq!(regs(&after[1]), vec![1, 4, 5]);
        assert_eq!(regs(&after[2]), vec![4, 5, 6]);
        assert!(after[3].is_empty());
        assert_eq!(l.live_after(&p, 0, 1), after[1]);
        assert_eq!(regs(&l.live_before(&p, 0, 1)), vec![1, 4, 5]);
        assert_eq!(regs(&l.live_before(&p, 0, 0)), vec![2, 3, 4, 5]);
    }

    #[test]
    fn guarded_write_does_not_kill() {
        // @P0 MOV R1, 7; STG [R2], R1: a thread with P0 false stores its old R1.
        let p = prog(vec![blk(
            vec![
                guarded(Pred(0), false, mov(1, Src::Imm(7))),
                inst(stg(2, 1)),
            ],
            exit(),
        )]);
        let l = liveness(&p);
        assert_eq!(regs(&l.live_in[0]), vec![1, 2, 3]);
        assert_eq!(l.live_in[0].preds, 1, "the guard is a read");
        // Unguarded: killed.
        let p = prog(vec![blk(
            vec![inst(mov(1, Src::Imm(7))), inst(stg(2, 1))],
            exit(),
        )]);
        assert_eq!(regs(&liveness(&p).live_in[0]), vec![2, 3]);
        // @!PT never runs: it neither kills R1 nor reads P0's... anything.
        let p = prog(vec![blk(
            vec![guarded(Pred::PT, true, iadd(1, 6, sr(7))), inst(stg(2, 1))],
            exit(),
        )]);
        assert_eq!(regs(&liveness(&p).live_in[0]), vec![1, 2, 3]);
    }

    #[test]
    fn guarded_predicate_and_flag_writes_do_not_kill() {
        // @P1 ISETP P0 ...; @P1 IADD.CC R1 ...; branch on P0; IADD.X reads CF.
        let p = prog(vec![
            blk(
                vec![
                    guarded(Pred(1), false, isetp(0, Cmp::Lt, 2, Src::Imm(3))),
                    guarded(Pred(1), false, iadd_cc(3, 3, Src::Imm(1), true, false)),
                ],
                br(pcond(0, false), 1, 1),
            ),
            blk(
                vec![inst(iadd_cc(4, 4, sr(5), false, true)), inst(stg(6, 4))],
                exit(),
            ),
        ]);
        let l = liveness(&p);
        assert_eq!(
            l.live_in[0].preds, 0b11,
            "P0 survives the guarded ISETP; P1 is the guard"
        );
        assert_eq!(l.live_in[0].cc, FLAG_CF);
        assert_eq!(l.live_out[0].preds, 0b1, "the branch reads P0");
        assert_eq!(l.live_in[1].cc, FLAG_CF);
    }

    #[test]
    fn loop_carried_liveness() {
        // B0: R1 = 0 -> B1
        // B1: R2 = R2 + R1; R1 = R1 + 1; P0 = R1 < R3; @P0 BRA B1 -> B2
        // B2: STG [R4], R2; EXIT
        let p = prog(vec![
            blk(vec![inst(mov(1, Src::Imm(0)))], jump(1)),
            blk(
                vec![
                    inst(iadd(2, 2, sr(1))),
                    inst(iadd(1, 1, Src::Imm(1))),
                    inst(isetp(0, Cmp::Lt, 1, sr(3))),
                ],
                br(pcond(0, false), 1, 2),
            ),
            blk(vec![inst(stg(4, 2))], exit()),
        ]);
        let l = liveness(&p);
        assert_eq!(regs(&l.live_in[1]), vec![1, 2, 3, 4, 5]);
        assert_eq!(
            regs(&l.live_out[1]),
            vec![1, 2, 3, 4, 5],
            "R1, R3 carried around the loop"
        );
        assert_eq!(l.live_out[1].preds, 1);
        assert_eq!(
            l.live_in[1].preds, 0,
            "P0 is written before the branch reads it"
        );
        assert_eq!(regs(&l.live_in[0]), vec![2, 3, 4, 5]);
        assert_eq!(regs(&l.live_in[2]), vec![2, 4, 5]);
    }

    #[test]
    fn divergent_branch() {
        // B0: @P0 BRA B2
        // B1: R1 = R5; BRA B3
        // B2: R1 = R6
        // B3: STG [R2], R1
        let p = prog(vec![
            blk(vec![], br(pcond(0, false), 2, 1)),
            blk(vec![inst(mov(1, sr(5)))], jump(3)),
            blk(vec![inst(mov(1, sr(6)))], jump(3)),
            blk(vec![inst(stg(2, 1))], exit()),
        ]);
        let l = liveness(&p);
        assert_eq!(
            regs(&l.live_in[0]),
            vec![2, 3, 5, 6],
            "each path kills R1, reads one of R5/R6"
        );
        assert_eq!(l.live_in[0].preds, 1);
        assert_eq!(regs(&l.live_in[1]), vec![2, 3, 5]);
        assert_eq!(regs(&l.live_in[2]), vec![2, 3, 6]);
        // One path without the write: R1 is live at the top.
        let mut q = p.clone();
        q.blocks[2].insts.clear();
        assert_eq!(regs(&liveness(&q).live_in[0]), vec![1, 2, 3, 5]);
    }

    #[test]
    fn ssy_sync_reconvergence() {
        // B0: SSY B4 -> B1
        // B1: @P0 BRA B3 -> B2
        // B2: R1 = 1; SYNC -> B3
        // B3: R1 = 2; SYNC -> B4
        // B4: STG [R2], R1; R7 = R9; STG [R2], R7
        // A thread that syncs in B2 resumes at B4, not B3: its R1 = 1 reaches the store, so R1
        // is live out of B2 although B3 (the program-order successor) overwrites it.
        let p = prog(vec![
            blk(vec![], ssy(4, 1)),
            blk(vec![], br(pcond(0, false), 3, 2)),
            blk(vec![inst(mov(1, Src::Imm(1)))], sync(3)),
            blk(vec![inst(mov(1, Src::Imm(2)))], sync(4)),
            blk(
                vec![inst(stg(2, 1)), inst(mov(7, sr(9))), inst(stg(2, 7))],
                exit(),
            ),
        ]);
        assert_eq!(thread_successors(&p, 2), vec![3, 4]);
        assert_eq!(thread_successors(&p, 0), vec![1, 4]);
        let l = liveness(&p);
        assert_eq!(regs(&l.live_in[4]), vec![1, 2, 3, 9]);
        assert_eq!(
            regs(&l.live_out[2]),
            vec![1, 2, 3, 9],
            "B2 -> B4 by the reconvergence edge"
        );
        assert_eq!(regs(&l.live_in[3]), vec![2, 3, 9]);
        assert_eq!(regs(&l.live_in[2]), vec![2, 3, 9]);
        assert_eq!(regs(&l.live_in[1]), vec![2, 3, 9]);
        assert_eq!(l.live_in[1].preds, 1);
        // The SSY -> reconvergence edge of `Terminator::successors` is kept (conservative).
        assert_eq!(regs(&l.live_in[0]), vec![1, 2, 3, 9]);
        // A SYNC reaches the reconvergence block of every SSY in the program.
        let mut q = p.clone();
        q.blocks[4].term = ssy(5, 5);
        q.blocks.push(blk(vec![inst(stg(10, 12))], exit()));
        assert_eq!(thread_successors(&q, 2), vec![3, 4, 5]);
        assert!(liveness(&q).live_out[2].has_reg(Reg(12)));
        // Without an SSY anywhere, a SYNC only falls through.
        let mut q = p.clone();
        q.blocks[0].term = jump(1);
        assert_eq!(thread_successors(&q, 2), vec![3]);
        assert!(!liveness(&q).live_out[2].has_reg(Reg(1)));
    }

    #[test]
    fn pairs_and_quads_expand() {
        // LDG.E.128 R4, [R2]; STG.E.64 [R8], R6 ; R4, R5 dead, R6, R7 used; address pair R2, R3.
        let st64 = Stg {
            e: true,
            cop: CacheOp::Default,
            size: MemSize::B64,
            addr: Addr {
                base: Some(Reg(8)),
                offset: 0,
            },
            v: Reg(6),
        };
        let p = prog(vec![blk(
            vec![inst(ldg(4, 2, MemSize::B128)), inst(st64)],
            exit(),
        )]);
        let l = liveness(&p);
        assert_eq!(regs(&l.live_in[0]), vec![2, 3, 8, 9]);
        let after = l.live_after_each(&p, 0);
        assert_eq!(regs(&after[0]), vec![6, 7, 8, 9]);
        // A quad write kills all four.
        let mut live = LiveSet::EMPTY;
        live.insert_regs(Reg(4), 4);
        live.insert_reg(Reg(8));
        step_back(&p.blocks[0].insts[0], &mut live);
        assert_eq!(regs(&live), vec![2, 3, 8]);
        // RZ never lives; a non-.E address reads one register.
        let p = prog(vec![blk(
            vec![
                inst(iadd(1, 255, sr(255))),
                inst(Stg {
                    e: false,
                    cop: CacheOp::Default,
                    size: MemSize::B32,
                    addr: Addr {
                        base: Some(Reg(8)),
                        offset: 0,
                    },
                    v: Reg::RZ,
                }),
            ],
            exit(),
        )]);
        assert_eq!(regs(&liveness(&p).live_in[0]), vec![8]);
    }

    #[test]
    fn cc_chain_liveness() {
        // 64-bit add: IADD R0.CC, R0, R2; IADD.X R1, R1, R3; then ISETP.LT.X reading CF only.
        // B0: IADD R4.CC, R0, R2 ; IADD.X R5, R1, R3 ; IADD RZ.CC, -R6, R7 ; ISETP.LT.X P0, R8, R9
        //     @P0 BRA B1 ; B1: STG [R4] R5 (with CC.EQ exit test)
        let isetp_x = Isetp {
            cmp: Cmp::Lt,
            unsigned: false,
            x: true,
            bop: BoolOp::And,
            p: Pred(0),
            q: Pred::PT,
            a: Reg(8),
            b: sr(9),
            c: PredSrc::TRUE,
        };
        let sub = Iadd {
            d: Reg::RZ,
            sat: false,
            cc: true,
            x: false,
            po: false,
            neg_a: true,
            a: Reg(6),
            neg_b: false,
            b: sr(7),
        };
        let p = prog(vec![
            blk(
                vec![
                    inst(iadd_cc(4, 0, sr(2), true, false)),
                    inst(iadd_cc(5, 1, sr(3), false, true)),
                    inst(sub),
                    inst(isetp_x),
                ],
                br(pcond(0, false), 1, 1),
            ),
            blk(
                vec![inst(stg(4, 5))],
                Terminator::Exit {
                    cond: Cond {
                        guard: Guard::ALWAYS,
                        cc: Some(CcTest::Eq),
                    },
                    next: Some(2),
                    pc: Some(0),
                },
            ),
            blk(vec![], exit()),
        ]);
        let l = liveness(&p);
        let after = l.live_after_each(&p, 0);
        assert_eq!(
            after[0].cc, FLAG_CF,
            "only the carry of the low add is needed"
        );
        assert_eq!(
            after[1].cc, 0,
            "the .X add consumes CF; the next .CC rewrites all flags"
        );
        assert_eq!(
            after[2].cc,
            FLAG_CF | FLAG_ZF | FLAG_SF,
            "ZF and SF survive ISETP.LT.X to the EXIT CC.EQ test (ZF and not SF)"
        );
        assert_eq!(after[3].cc, FLAG_ZF | FLAG_SF);
        assert_eq!(l.live_out[0].cc, FLAG_ZF | FLAG_SF);
        assert_eq!(l.live_in[1].cc, FLAG_ZF | FLAG_SF);
        assert_eq!(l.live_in[0].cc, 0, "the first .CC write kills every flag");
        assert!(!after[0].has_flag(ZF) && !after[0].has_flag(SF) && !after[0].has_flag(OF));
        assert!(after[0].has_flag(CF));
        // P2R CC reads all four flags (mask 0xf).
        let p2r = P2r {
            d: Reg(1),
            byte: 0,
            src: P2rSrc::Cc,
            a: Reg::RZ,
            mask: Src::Imm(0xf),
        };
        let p = prog(vec![blk(
            vec![
                inst(iadd_cc(4, 0, sr(2), true, false)),
                inst(p2r),
                inst(stg(2, 1)),
            ],
            exit(),
        )]);
        assert_eq!(liveness(&p).live_after(&p, 0, 0).cc, FLAGS_ALL);
    }

    #[test]
    fn predicate_liveness() {
        // ISETP P0; ISETP P1; PSETP P2 = P0 & P1; @P2 STG; SEL reads P3; P0 redefined, P1 not.
        let psetp = Psetp {
            bop1: BoolOp::And,
            bop2: BoolOp::And,
            p: Pred(2),
            q: Pred::PT,
            a: PredSrc {
                pred: Pred(0),
                neg: false,
            },
            b: PredSrc {
                pred: Pred(1),
                neg: false,
            },
            c: PredSrc::TRUE,
        };
        let sel = Sel {
            d: Reg(7),
            a: Reg(8),
            b: Src::Imm(0),
            p: PredSrc {
                pred: Pred(3),
                neg: true,
            },
        };
        let p = prog(vec![blk(
            vec![
                inst(isetp(0, Cmp::Lt, 1, sr(2))),
                inst(psetp),
                guarded(Pred(2), false, stg(4, 6)),
                inst(sel),
                inst(stg(4, 7)),
            ],
            exit(),
        )]);
        let l = liveness(&p);
        assert_eq!(
            l.live_in[0].preds, 0b1010,
            "P1 and P3 come from outside; P0 is written first"
        );
        let after = l.live_after_each(&p, 0);
        assert_eq!(after[0].preds, 0b1011);
        assert_eq!(after[1].preds, 0b1100);
        assert_eq!(after[2].preds, 0b1000);
        assert_eq!(after[3].preds, 0);
        // LOP writes P0 when it has a predicate destination.
        let p = prog(vec![
            blk(
                vec![inst(lop_p(Reg(1), Reg(2), Pred(0)))],
                br(pcond(0, true), 1, 1),
            ),
            blk(vec![], exit()),
        ]);
        let l = liveness(&p);
        assert_eq!((l.live_in[0].preds, l.live_out[0].preds), (0, 1));
    }

    #[test]
    fn lea_lo_liveness() {
        let lea = |hi, p| Lea {
            hi,
            x: hi,
            cc: !hi,
            p,
            d: Reg(2),
            neg_a: false,
            a: Reg(0),
            b: sr(4),
            c: Reg(1),
            shift: 2,
        };
        // LEA.LO.CC; LEA.HI.X P0; LD [R2], P0
        let ld = Ld {
            d: Reg(6),
            e: true,
            cop: CacheOp::Default,
            size: MemSize::B32,
            addr: Addr {
                base: Some(Reg(2)),
                offset: 0,
            },
            steer: PredSrc {
                pred: Pred(0),
                neg: false,
            },
        };
        let p = prog(vec![blk(
            vec![
                inst(lea(false, None)),
                inst(lea(true, Some(Pred(0)))),
                inst(ld),
                inst(stg(8, 6)),
            ],
            exit(),
        )]);
        let l = liveness(&p);
        let after = l.live_after_each(&p, 0);
        assert!(after[0].lea_lo && after[0].has_flag(CF));
        assert!(!after[1].lea_lo && after[1].preds == 1);
        assert!(!l.live_in[0].lea_lo, "LEA.LO writes the word");
        let p = prog(vec![blk(vec![inst(lea(true, Some(Pred(0))))], exit())]);
        assert!(liveness(&p).live_in[0].lea_lo);
    }

    #[test]
    fn exit_and_barrier_conditions() {
        // @P1 EXIT -> B1 (reads R3) ; BAR.SYNC with @P2 guard; EXIT with CC.NE reads ZF.
        let p = prog(vec![
            blk(vec![], exit_if(pcond(1, false), 1)),
            blk(
                vec![],
                Terminator::Barrier {
                    id: 0,
                    cond: pcond(2, false),
                    red: None,
                    count: 0,
                    arrive: false,
                    next: 2,
                    pc: 0,
                },
            ),
            blk(vec![inst(stg(4, 3))], exit()),
        ]);
        let l = liveness(&p);
        assert_eq!(l.live_in[0].preds, 0b110);
        assert_eq!(regs(&l.live_in[0]), vec![3, 4, 5]);
        assert_eq!(
            l.live_out[2],
            LiveSet::EMPTY,
            "nothing is live after the final EXIT"
        );
    }

    #[test]
    fn shuffled_registers_are_live_at_every_block_end() {
        // Lane 0 writes R5 and exits; the other lanes shuffle R5 from lane 0 afterwards.
        let q = crate::sass::parse_program(
            "S2R R0, SR_LANEID;\nISETP.EQ.AND P0, PT, R0, RZ, PT;\n@!P0 BRA .L_1;\nMOV32I R5, 0x7;\nEXIT;\n.L_1:\nSHFL.IDX PT, R6, R5, RZ, 0x1f;\nEXIT;\n",
            &crate::sass::AsmOptions::default(),
        )
        .expect("assembles");
        let l = liveness(&q);
        assert!(
            l.live_out[1].has_reg(Reg(5)),
            "the exiting lane's R5 is read by others"
        );
    }

    #[test]
    fn a_brx_reads_its_register_and_reaches_every_declared_target() {
        // R2 is read by the BRX only (its block's instructions do not); R3 by one target, R4
        // by the other, R5 by none.
        let q = crate::sass::parse_program(
            "MOV32I R3, 0x1;\nMOV32I R4, 0x2;\nMOV32I R5, 0x3;\nBRX R2 -0x30 (*\"BRANCH_TARGETS .L_a,.L_b\"*);\n.L_a:\nSTG [R3], R3;\nEXIT;\n.L_b:\nSTG [R4], R4;\nEXIT;\n",
            &crate::sass::AsmOptions::default(),
        )
        .expect("assembles");
        let l = liveness(&q);
        assert_eq!(thread_successors(&q, 0), [1, 2]);
        let out = l.live_out[0];
        assert!(out.has_reg(Reg(2)) && out.has_reg(Reg(3)) && out.has_reg(Reg(4)));
        assert!(!out.has_reg(Reg(5)));
        assert!(l.live_in[0].has_reg(Reg(2)) && !l.live_in[0].has_reg(Reg(3)));
        // A BRX guarded by !PT never runs: it reads nothing.
        let q = crate::sass::parse_program(
            "@!PT BRX R2 -0x10 (*\"BRANCH_TARGETS .L_a\"*);\n.L_a:\nEXIT;\n",
            &crate::sass::AsmOptions::default(),
        )
        .expect("assembles");
        assert!(!liveness(&q).live_out[0].has_reg(Reg(2)));
    }

    #[test]
    fn shuffled_registers_are_live_into_the_entry() {
        // Every lane that runs writes R5 first; a lane past the end of a partial warp never
        // runs, and its R5 (0 at launch) is what the others shuffle from it.
        let q = crate::sass::parse_program(
            "MOV32I R5, 0x7;\nSHFL.IDX PT, R6, R5, 0x1f, 0x1f;\nEXIT;\n",
            &crate::sass::AsmOptions::default(),
        )
        .expect("assembles");
        let l = liveness(&q);
        assert!(
            l.live_in[0].has_reg(Reg(5)),
            "R5 is read at its launch value"
        );
        assert!(!l.live_in[0].has_reg(Reg(6)));
    }
}
