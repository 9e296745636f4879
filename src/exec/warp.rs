//! Running one warp: blocks, terminators and the reconvergence stack (docs/semantics.md §7),
//! for both engines.
//!
//! Model: the warp has an active mask, an exited mask and a stack of pending entries.
//! - A divergent `BRA` pushes the fall-through lanes as a `Div` entry and runs the taken lanes.
//! - A `BRX` ([`Terminator::Brx`]) sends each lane to the block of its own target
//!   (`semantics::brx_block`): the lanes are grouped by block, the group of the lowest lane runs
//!   now and every other group, then the lanes whose condition failed, are pushed as `Div`
//!   entries (the later groups deeper), so that they run in the order of their lowest lanes.
//! - `SSY`, `PBK` and `PCNT` ([`Terminator::Push`]) push an entry of their [`Region`] kind: its
//!   target block and the current active mask. `CAL` pushes a [`Region::Call`] entry holding the
//!   return point (the next block) and the active mask, and jumps to its target.
//! - `SYNC`, `BRK`, `CONT` and `RET` ([`Terminator::Wait`]) take their lanes out of the active
//!   mask and out of every entry above the innermost entry of their kind: they wait there, and run
//!   again when that entry is popped. With no entry of their kind pending, `SYNC`, `BRK` and
//!   `CONT` do nothing; a `RET` that some active lane executes is a fault
//!   ([`FaultKind::ReturnWithoutCall`]).
//! - `EXIT` marks its lanes exited and takes them out of the active mask.
//! - Whenever the active mask is empty, the warp pops entries until one still has live lanes
//!   (its mask minus exited lanes) and continues there; an empty stack ends the warp.
//!
//! The instruction budgets count issued warp instructions (terminators that are written
//! instructions included): the warp's own, and its CTA's share of the launch budget, which the
//! CTA's warps draw on in the order they run ([`Budget`]). The instruction that would exceed
//! either faults instead of executing.
//!
//! A warp's turn ends at the quantum ([`Budget::quantum`], docs/semantics.md §9): before a block
//! that would take the instructions the warp issued in this turn past it, once it issued at
//! least one, the warp stops ([`Stop::Yield`]) and the dispatcher lets the next ready warp run.
//! An engine that runs several blocks in one call ([`BodyRunner::run_from`]) gets a `room` that
//! ends where the turn would, so it returns to the dispatcher at the same instruction.

use super::{CtaEnv, Stats};
use crate::ir::*;
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{Fault, FaultKind, WarpState};

/// Most entries the reconvergence stack may hold.
pub const MAX_STACK: usize = 1024;

/// Kind of a reconvergence-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Pushed by [`Terminator::Push`] (SSY, PBK, PCNT, CAL): where the lanes of a region
    /// continue (for a call, the return point).
    Region(Region),
    /// Pushed by a divergent branch: the fall-through lanes, still to run.
    Div,
}

/// One reconvergence-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// What pushed it.
    pub kind: EntryKind,
    /// Where its lanes continue.
    pub block: BlockId,
    /// Its lanes.
    pub mask: u32,
}

/// The control state of one warp between blocks.
#[derive(Clone, Debug, Default)]
pub struct WarpCtl {
    /// Next block to run.
    pub block: BlockId,
    /// Reconvergence stack.
    pub stack: Vec<Entry>,
    /// Warp instructions issued so far (against the budget).
    pub issued: u64,
}

/// The instruction budgets a warp draws on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Warp instructions one warp may issue ([`crate::exec::Launch::budget`]).
    pub warp: u64,
    /// The launch budget ([`crate::exec::Machine::launch_budget`]), for the fault.
    pub launch: u64,
    /// CTAs sharing the launch budget, for the fault.
    pub ctas: u64,
    /// What is left of this CTA's share of the launch budget.
    pub cta_left: u64,
    /// Warp instructions the running warp may issue in its turn: the machine's quantum when
    /// another warp could run, `u64::MAX` when none could (ending the turn would give it back
    /// to the same warp, so it goes on).
    pub quantum: u64,
    /// What is left of the running warp's turn: set to [`Budget::quantum`] by the dispatcher
    /// when a turn starts, and counted down (to 0 at the least) by the instructions it issues.
    pub turn_left: u64,
}

/// Why a warp stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every lane exited.
    Exited,
    /// The warp's turn ended at the quantum (control continues at `WarpCtl::block`, which has
    /// not run, in its next turn).
    Yield,
    /// Waiting at barrier `id` (control continues at `WarpCtl::block` once released).
    Barrier {
        /// Barrier index.
        id: u8,
        /// pc of the BAR.
        pc: u32,
        /// What the warp brings to a `BAR.RED` (`None` for `BAR.SYNC`).
        red: Option<RedArrival>,
        /// The barrier's thread count (0: every live warp).
        count: u32,
        /// `BAR.ARV`: the warp goes on once its arrival is counted.
        arrive: bool,
    },
}

/// A warp's part of a barrier reduction: its arriving threads (active, guard true) and how
/// many of them hold the reduced predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedArrival {
    /// The reduction the warp asked for (each warp gets its own op's result).
    pub op: crate::ir::BarRedOp,
    /// Arriving threads whose predicate holds.
    pub trues: u32,
    /// Arriving threads.
    pub threads: u32,
}

impl RedArrival {
    /// The result this warp gets when the barrier's totals are `trues` of `threads`.
    pub fn result(self, trues: u32, threads: u32) -> u32 {
        crate::semantics::warp::bar_red_result(self.op, trues, threads)
    }
}

/// What [`BodyRunner::run_from`] ran beyond the block it was asked to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Further {
    /// Further block runs (each a whole block; counted by the JIT in `jit::RunCounters::looped`).
    pub runs: u64,
    /// The warp instructions they issued: their instructions and written terminators.
    pub issued: u64,
    /// The block whose instructions ran last, whose terminator the dispatcher carries out.
    pub last: BlockId,
}

impl Further {
    /// Nothing beyond block `id`.
    pub fn none(id: BlockId) -> Further {
        Further {
            runs: 0,
            issued: 0,
            last: id,
        }
    }
}

/// Runs the instructions of a block (not its terminator) for the warp's active mask: what an
/// engine supplies to the dispatcher. The interpreter runs every block with the reference
/// definitions (`interp::Interp`); the JIT runs compiled code where it has some. Either way the dispatcher
/// counts the block's instructions into [`Stats`]; a fault comes back with its lane and pc set.
pub trait BodyRunner {
    /// Runs block `id` (which is `block`) once.
    fn run_body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault>;

    /// Runs block `id` (which is `block`) once, like [`BodyRunner::run_body`], and then may go
    /// on as the dispatcher would, carrying out terminators itself: an engine that compiles a
    /// loop runs its further blocks without returning (`jit::region`). It may only go on from a
    /// block whose terminator sends the whole active mask to one block (no divergence, no
    /// change of the active mask: a jump, a uniform branch, a push, a wait no lane takes or
    /// every lane takes at an entry it pushed itself), into a block whose instructions and
    /// written terminator fit in `room` (the warp instructions the budgets and the warp's turn
    /// leave after the first block), setting `w.clock` before each block as the dispatcher does. Returns what
    /// it ran beyond the first block (the dispatcher counts it) and how the last block ended (a
    /// fault boxed: see `run_warp`); the warp is left after the instructions of
    /// [`Further::last`], before its terminator, which the dispatcher then carries out.
    /// Reconvergence-stack entries pushed on the way that are still there by then are on
    /// `stack` (the warp's) when it returns. The default runs the block once.
    #[allow(clippy::too_many_arguments)]
    fn run_from(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
        room: u64,
        stack: &mut Vec<Entry>,
    ) -> (Further, Result<(), Box<Fault>>) {
        let _ = (room, stack);
        let r = self.run_body(id, block, w, env).map_err(Box::new);
        (Further::none(id), r)
    }

    /// Runs only instructions `part` of block `id` (a range within their count), for the lanes
    /// that execute each, adding 1 to `w.clock` after each: the dispatcher runs the first `n`
    /// where an instruction budget ends inside the block, before instruction `n` or its
    /// terminator; a [`WarpStepper`](super::step::WarpStepper) runs one at a time.
    fn run_part(
        &mut self,
        id: BlockId,
        block: &Block,
        part: std::ops::Range<usize>,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault>;
}

/// The lanes for which a control condition holds.
#[inline]
pub fn cond_mask(w: &WarpState, c: Cond) -> u32 {
    let g = c.guard.0;
    let mut m = w.pred(g.pred.0) ^ if g.neg { u32::MAX } else { 0 };
    if let Some(t) = c.cc {
        m &= crate::semantics::cc::cc_mask(t, w.cc[ZF], w.cc[SF], w.cc[CF], w.cc[OF]);
    }
    m
}

/// The lanes that execute an instruction with guard `g`: active and guard true.
#[inline]
pub fn exec_mask(w: &WarpState, g: Guard) -> u32 {
    w.active & cond_mask(w, Cond { guard: g, cc: None })
}

fn first_active(w: &WarpState) -> u32 {
    if w.active != 0 {
        w.active.trailing_zeros()
    } else {
        0
    }
}

/// Runs a warp from `ctl.block` until it exits, waits at a barrier, its turn ends at the
/// quantum, or it faults.
///
/// The fault is boxed, as in [`BodyRunner::run_from`]'s result: these results pass through
/// the dispatcher for every block a warp runs, and a 120-byte `Result` moved on each return
/// cost a warp about 6 ns (a sixth of a straight-line warp's dispatch and set-up).
///
/// Events go to `env.observer` only with `OBSERVE` (the dispatcher passes true exactly when an
/// observer is attached), so that without one the per-block path has no test for it.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn run_warp<const OBSERVE: bool>(
    prog: &Program,
    runner: &mut dyn BodyRunner,
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    env: &mut CtaEnv<'_>,
    budget: &mut Budget,
    stats: &mut Stats,
) -> Result<Stop, Box<Fault>> {
    let obs = if OBSERVE { env.observer } else { None };
    loop {
        if w.active == 0 && !resume(w, ctl) {
            return Ok(Stop::Exited);
        }
        let block = &prog.blocks[ctl.block as usize];
        let term_pc = block.term.pc();
        let n = block.insts.len() as u64;
        let total = n + term_pc.is_some() as u64;
        // Whichever budget leaves less binds: the warp's own or its CTA's share.
        let left = budget.warp.saturating_sub(ctl.issued).min(budget.cta_left);
        if total > left.min(budget.turn_left) {
            // The turn ends before a block that would take it past the quantum (a turn always
            // runs its first block, however long).
            if total > budget.turn_left && budget.turn_left != budget.quantum {
                return Ok(Stop::Yield);
            }
            if total > left {
                if let Some(o) = obs {
                    o.block_enter(env.at, ctl.block, block.pc, w.active);
                }
                return Err(exhausted(block, runner, w, ctl, env, budget, stats, left));
            }
        }
        if let Some(o) = obs {
            o.block_enter(env.at, ctl.block, block.pc, w.active);
        }
        w.clock = ctl.issued;
        ctl.issued += total;
        budget.cta_left -= total;
        budget.turn_left = budget.turn_left.saturating_sub(total);
        let (block, id) = if OBSERVE {
            count(stats, total, w.active);
            runner.run_body(ctl.block, block, w, env)?;
            (block, ctl.block)
        } else {
            // Further blocks must fit in both budgets and in the turn.
            let room = (left - total).min(budget.turn_left);
            let active = w.active;
            let (f, r) = runner.run_from(ctl.block, block, w, env, room, &mut ctl.stack);
            // The further blocks, counted with the first (a region never changes the active
            // mask, and a fault in it leaves the mask its block started with).
            ctl.issued += f.issued;
            budget.cta_left -= f.issued;
            budget.turn_left = budget.turn_left.saturating_sub(f.issued);
            count(stats, total + f.issued, active);
            r?;
            (&prog.blocks[f.last as usize], f.last)
        };
        if let (Some(o), Some(pc), true) = (obs, term_pc, env.observe_inst) {
            o.inst(env.at, pc, w.active, w.active);
        }
        if let Some(stop) = terminate(prog, block, id, w, ctl, env, obs)? {
            return Ok(stop);
        }
        if let Some(o) = obs {
            o.block_exit(env.at, id);
        }
    }
}

/// The fault of block `block` (the warp's next), which does not fit in the `left` instructions
/// its budgets leave: the instructions that fit run, then the first that does not faults
/// instead of running.
#[cold]
#[allow(clippy::too_many_arguments)]
fn exhausted(
    block: &Block,
    runner: &mut dyn BodyRunner,
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    env: &mut CtaEnv<'_>,
    budget: &Budget,
    stats: &mut Stats,
    left: u64,
) -> Box<Fault> {
    let kind = if budget.warp.saturating_sub(ctl.issued) <= budget.cta_left {
        FaultKind::BudgetExhausted {
            budget: budget.warp,
            ctas: None,
        }
    } else {
        FaultKind::BudgetExhausted {
            budget: budget.launch,
            ctas: Some(budget.ctas),
        }
    };
    // Step to the exact instruction that exceeds the budget.
    let left = left as usize;
    let pc = block
        .insts
        .get(left)
        .map(|i| i.pc)
        .or(block.term.pc())
        .unwrap_or(block.pc);
    let done = left.min(block.insts.len());
    count(stats, done as u64, w.active);
    w.clock = ctl.issued;
    if let Err(f) = runner.run_part(ctl.block, block, 0..done, w, env) {
        return Box::new(f);
    }
    Box::new(Fault::new(kind, first_active(w)).at_pc(pc))
}

/// When the active mask is empty: pops reconvergence-stack entries until one still has live
/// lanes (its mask minus the exited lanes) and continues there. False when the stack ran out
/// (the warp is done).
#[inline]
pub fn resume(w: &mut WarpState, ctl: &mut WarpCtl) -> bool {
    while let Some(e) = ctl.stack.pop() {
        let m = e.mask & !w.exited;
        if m != 0 {
            w.active = m;
            ctl.block = e.block;
            return true;
        }
    }
    false
}

/// Carries out block `id`'s terminator, once its instructions have run: sets the next block,
/// the active mask and the reconvergence stack. A barrier the warp reaches stops it (`Some`).
/// `prog` is the program `block` belongs to (it holds the targets of a `BRX`).
#[inline(always)]
pub fn terminate(
    prog: &Program,
    block: &Block,
    id: BlockId,
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    env: &mut CtaEnv<'_>,
    obs: Option<&dyn crate::exec::Observer>,
) -> Result<Option<Stop>, Fault> {
    match block.term {
        Terminator::Jump { target, .. } => ctl.block = target,
        Terminator::Branch {
            cond,
            taken,
            fallthrough,
            pc,
        } => {
            let t = w.active & cond_mask(w, cond);
            if t == w.active {
                ctl.block = taken;
            } else if t == 0 {
                ctl.block = fallthrough;
            } else {
                push(
                    ctl,
                    w,
                    Entry {
                        kind: EntryKind::Div,
                        block: fallthrough,
                        mask: w.active & !t,
                    },
                    pc,
                )?;
                w.active = t;
                ctl.block = taken;
            }
        }
        Terminator::Brx {
            cond,
            reg,
            offset,
            table,
            next,
            pc,
        } => brx(prog, w, ctl, (cond, reg, offset, table, next, pc))?,
        Terminator::Push {
            region,
            target,
            next,
            pc,
        } => {
            let (now, resume) = region.resumes_at(target, next);
            push(
                ctl,
                w,
                Entry {
                    kind: EntryKind::Region(region),
                    block: resume,
                    mask: w.active,
                },
                pc,
            )?;
            ctl.block = now;
        }
        Terminator::Wait {
            region,
            cond,
            next,
            pc,
        } => {
            let kind = EntryKind::Region(region);
            let waiting = w.active & cond_mask(w, cond);
            if let Some(at) = ctl.stack.iter().rposition(|e| e.kind == kind) {
                w.active &= !waiting;
                for e in &mut ctl.stack[at + 1..] {
                    e.mask &= !waiting;
                }
            } else if region == Region::Call && waiting != 0 {
                // A RET with nowhere to return to: the lanes have no defined continuation.
                let lane = waiting.trailing_zeros();
                return Err(Fault::new(FaultKind::ReturnWithoutCall, lane).at_pc(pc));
            }
            ctl.block = next;
        }
        Terminator::Exit { cond, next, .. } => {
            let e = match next {
                Some(_) => w.active & cond_mask(w, cond),
                None => w.active,
            };
            w.exited |= e;
            w.active &= !e;
            if let Some(next) = next {
                ctl.block = next;
            }
        }
        Terminator::Barrier {
            id: bar,
            cond,
            red,
            count,
            arrive,
            next,
            pc,
        } => {
            ctl.block = next;
            let arriving = w.active & cond_mask(w, cond);
            if arriving != 0 {
                let red = red.map(|r| {
                    let p = w.pred(r.pred.pred.0) ^ if r.pred.neg { u32::MAX } else { 0 };
                    RedArrival {
                        op: r.op,
                        trues: (arriving & p).count_ones(),
                        threads: arriving.count_ones(),
                    }
                });
                // Live lanes that do not arrive: inactive (diverged) or guard false.
                let idle = !w.exited & !arriving;
                if env.check && idle != 0 {
                    let l = idle.trailing_zeros();
                    let kind = crate::exec::FindingKind::PartialWarp { barrier: bar, idle };
                    env.finding_of(
                        l as usize,
                        kind,
                        format!(
                            "barrier {bar} reached by a partial warp (lane {l} does not arrive)"
                        ),
                    );
                    env.flush_findings(pc);
                }
                if let Some(o) = obs {
                    o.barrier(env.at, bar, pc, w.active);
                    o.block_exit(env.at, id);
                }
                return Ok(Some(Stop::Barrier {
                    id: bar,
                    pc,
                    red,
                    count,
                    arrive,
                }));
            }
        }
    }
    Ok(None)
}

/// A `BRX`'s operands: condition, register, offset, jump table, next block, pc.
type BrxArgs = (Cond, Reg, i32, u32, Option<BlockId>, u32);

/// Carries out a `BRX` (docs/semantics.md §31): every branching lane's target is checked
/// before anything changes (the lowest lane whose target is not declared faults, as does a
/// split that would overflow the stack); then the lanes go to their blocks, grouped, the group
/// of the lowest lane first.
#[cold]
fn brx(
    prog: &Program,
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    (cond, reg, offset, table, next, pc): BrxArgs,
) -> Result<(), Fault> {
    let taking = w.active & cond_mask(w, cond);
    let staying = w.active & !taking;
    // (A program's BRX names one of its own tables; an empty one sends every lane to a fault.)
    let empty = JumpTable::default();
    let table = prog.jump_tables.get(table as usize).unwrap_or(&empty);
    // Each group's block and lanes, in the order of their lowest lanes (at most one a lane).
    let mut groups = [(0 as BlockId, 0u32); 32];
    let mut n = 0;
    let mut m = taking;
    while m != 0 {
        let lane = m.trailing_zeros();
        m &= m - 1;
        let value = if reg.is_rz() {
            0
        } else {
            w.regs[reg.index()][lane as usize]
        };
        let t = crate::semantics::brx_target(pc, offset, value);
        let b = crate::semantics::brx_block(prog, table, t).map_err(|why| {
            Fault::new(FaultKind::BadBranchTarget { target: t, why }, lane).at_pc(pc)
        })?;
        match groups[..n].iter_mut().find(|g| g.0 == b) {
            Some(g) => g.1 |= 1 << lane,
            None => {
                groups[n] = (b, 1 << lane);
                n += 1;
            }
        }
    }
    let groups = &groups[..n];
    let later = n.saturating_sub(1) + usize::from(staying != 0 && taking != 0);
    if ctl.stack.len() + later > MAX_STACK {
        let kind = FaultKind::StackOverflow {
            depth: MAX_STACK as u32,
        };
        return Err(Fault::new(kind, first_active(w)).at_pc(pc));
    }
    let Some(&(first, mask)) = groups.first() else {
        // No lane branches: every active lane continues at `next` (a BRX without a next block
        // has a condition that always holds, so some lane branches while any is active).
        if let Some(next) = next {
            ctl.block = next;
        }
        return Ok(());
    };
    if staying != 0 {
        if let Some(next) = next {
            ctl.stack.push(Entry {
                kind: EntryKind::Div,
                block: next,
                mask: staying,
            });
        }
    }
    for &(block, mask) in groups.iter().skip(1).rev() {
        ctl.stack.push(Entry {
            kind: EntryKind::Div,
            block,
            mask,
        });
    }
    w.active = mask;
    ctl.block = first;
    Ok(())
}

/// Counts `n` issued instructions with the active mask `active`.
#[inline]
fn count(stats: &mut Stats, n: u64, active: u32) {
    stats.warp_insts += n;
    stats.lane_insts += n * active.count_ones() as u64;
}

fn push(ctl: &mut WarpCtl, w: &WarpState, e: Entry, pc: u32) -> Result<(), Fault> {
    if ctl.stack.len() >= MAX_STACK {
        let kind = FaultKind::StackOverflow {
            depth: MAX_STACK as u32,
        };
        return Err(Fault::new(kind, first_active(w)).at_pc(pc));
    }
    ctl.stack.push(e);
    Ok(())
}
