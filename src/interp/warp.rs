//! Running one warp: blocks, terminators and the reconvergence stack (docs/semantics.md §7).
//!
//! Model: the warp has an active mask, an exited mask and a stack of pending entries.
//! - A divergent `BRA` pushes the fall-through lanes as a `Div` entry and runs the taken lanes.
//! - `SSY` pushes a `Sync` entry: the reconvergence block and the current active mask.
//! - `SYNC` takes its lanes out of the active mask (they wait at the innermost `Sync` entry);
//!   with no `Sync` entry pending it does nothing.
//! - `EXIT` marks its lanes exited and takes them out of the active mask.
//! - Whenever the active mask is empty, the warp pops entries until one still has live lanes
//!   (its mask minus exited lanes) and continues there; an empty stack ends the warp.
//!
//! The instruction budgets count issued warp instructions (terminators that are written
//! instructions included): the warp's own, and its CTA's share of the launch budget, which the
//! CTA's warps draw on in the order they run ([`Budget`]). The instruction that would exceed
//! either faults instead of executing.

use super::lanes::lanes;
use super::ops::{exec_op, Cx, LaneFault};
use crate::exec::Stats;
use crate::ir::*;
use warpjit_runtime::warp::ZF;
use warpjit_runtime::{FaultKind, WarpState};

/// Most entries the reconvergence stack may hold.
pub const MAX_STACK: usize = 1024;

/// Kind of a reconvergence-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// Pushed by SSY: where the warp reconverges.
    Sync,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Warp instructions one warp may issue ([`crate::exec::Launch::budget`]).
    pub warp: u64,
    /// The launch budget ([`crate::exec::Machine::launch_budget`]), for the fault.
    pub launch: u64,
    /// CTAs sharing the launch budget, for the fault.
    pub ctas: u64,
    /// What is left of this CTA's share of the launch budget.
    pub cta_left: u64,
}

/// Why a warp stopped running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Every lane exited.
    Exited,
    /// Waiting at barrier `id` (control continues at `WarpCtl::block` once released).
    Barrier {
        /// Barrier index.
        id: u8,
        /// pc of the BAR.
        pc: u32,
    },
}

/// A fault inside a warp, before the engine adds launch/CTA/warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// Lane.
    pub lane: u32,
    /// pc.
    pub pc: u32,
}

/// Runs the instructions of a block (not its terminator) for the warp's active mask. The
/// interpreter runs every block itself ([`Interp`]); the JIT runs compiled code where it has some.
/// Either way the caller counts the block's instructions into [`Stats`].
pub trait BodyRunner {
    /// Runs block `id` (which is `block`) once.
    fn run_body(
        &mut self,
        id: BlockId,
        block: &Block,
        w: &mut WarpState,
        cx: &mut Cx<'_>,
        stats: &mut Stats,
        diag: &mut dyn FnMut(u32, u32, String),
    ) -> Result<(), WarpFault>;
}

/// The interpreter's body runner.
pub struct Interp;

impl BodyRunner for Interp {
    #[inline]
    fn run_body(
        &mut self,
        _: BlockId,
        block: &Block,
        w: &mut WarpState,
        cx: &mut Cx<'_>,
        _: &mut Stats,
        diag: &mut dyn FnMut(u32, u32, String),
    ) -> Result<(), WarpFault> {
        run_body(block, w, cx, diag)
    }
}

/// The lanes for which a control condition holds.
#[inline]
pub fn cond_mask(w: &WarpState, c: Cond) -> u32 {
    let g = c.guard.0;
    let mut m = w.pred(g.pred.0) ^ if g.neg { u32::MAX } else { 0 };
    match c.cc {
        None => {}
        Some(CcTest::Eq) => m &= w.cc[ZF],
        Some(CcTest::Ne) => m &= !w.cc[ZF],
    }
    m
}

/// Interprets one block's instructions for the current active mask; `diag` receives
/// (lane, pc, message) diagnostics.
#[inline]
pub fn run_body(
    block: &Block,
    w: &mut WarpState,
    cx: &mut Cx<'_>,
    diag: &mut dyn FnMut(u32, u32, String),
) -> Result<(), WarpFault> {
    run_insts(&block.insts, w, cx, diag)
}

/// Interprets a run of instructions for the current active mask.
#[inline]
pub fn run_insts(
    insts: &[Inst],
    w: &mut WarpState,
    cx: &mut Cx<'_>,
    diag: &mut dyn FnMut(u32, u32, String),
) -> Result<(), WarpFault> {
    for inst in insts {
        let mask = w.active
            & cond_mask(
                w,
                Cond {
                    guard: inst.guard,
                    cc: None,
                },
            );
        if mask != 0 {
            exec_op(&inst.op, w, mask, cx).map_err(|LaneFault { kind, lane }| WarpFault {
                kind,
                lane,
                pc: inst.pc,
            })?;
            if !cx.diags.is_empty() {
                for (lane, msg) in cx.diags.drain(..) {
                    diag(lane, inst.pc, msg);
                }
            }
        }
    }
    Ok(())
}

fn first_active(w: &WarpState) -> u32 {
    if w.active != 0 {
        w.active.trailing_zeros()
    } else {
        0
    }
}

/// Runs a warp from `ctl.block` until it exits, waits at a barrier, or faults.
#[allow(clippy::too_many_arguments)]
pub fn run_warp(
    prog: &Program,
    runner: &mut dyn BodyRunner,
    w: &mut WarpState,
    ctl: &mut WarpCtl,
    cx: &mut Cx<'_>,
    budget: &mut Budget,
    stats: &mut Stats,
    diag: &mut dyn FnMut(u32, u32, String),
) -> Result<Stop, WarpFault> {
    loop {
        if w.active == 0 {
            loop {
                match ctl.stack.pop() {
                    None => return Ok(Stop::Exited),
                    Some(e) => {
                        let m = e.mask & !w.exited;
                        if m != 0 {
                            w.active = m;
                            ctl.block = e.block;
                            break;
                        }
                    }
                }
            }
        }
        let block = &prog.blocks[ctl.block as usize];
        let term_pc = block.term.pc();
        let n = block.insts.len() as u64;
        let total = n + term_pc.is_some() as u64;
        // Whichever budget leaves less binds: the warp's own or its CTA's share.
        let left = budget.warp.saturating_sub(ctl.issued).min(budget.cta_left);
        if total > left {
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
                .or(term_pc)
                .unwrap_or(block.pc);
            let done = left.min(block.insts.len());
            count(stats, done as u64, w.active);
            run_insts(&block.insts[..done], w, cx, diag)?;
            return Err(WarpFault {
                kind,
                lane: first_active(w),
                pc,
            });
        }
        ctl.issued += total;
        budget.cta_left -= total;
        count(stats, total, w.active);
        runner.run_body(ctl.block, block, w, cx, stats, diag)?;
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
            Terminator::Ssy {
                reconverge,
                next,
                pc,
            } => {
                push(
                    ctl,
                    w,
                    Entry {
                        kind: EntryKind::Sync,
                        block: reconverge,
                        mask: w.active,
                    },
                    pc,
                )?;
                ctl.block = next;
            }
            Terminator::Sync { cond, next, .. } => {
                if ctl.stack.iter().any(|e| e.kind == EntryKind::Sync) {
                    w.active &= !cond_mask(w, cond);
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
            Terminator::Barrier { id, cond, next, pc } => {
                ctl.block = next;
                if w.active & cond_mask(w, cond) != 0 {
                    if w.active != (!w.exited) && cx.check {
                        for l in lanes(!w.exited & !w.active).take(1) {
                            diag(l as u32, pc, format!("BAR.SYNC {id} reached by a partial warp (lane {l} is not active)"));
                        }
                    }
                    return Ok(Stop::Barrier { id, pc });
                }
            }
        }
    }
}

/// Counts `n` issued instructions with the active mask `active`.
#[inline]
fn count(stats: &mut Stats, n: u64, active: u32) {
    stats.warp_insts += n;
    stats.lane_insts += n * active.count_ones() as u64;
}

fn push(ctl: &mut WarpCtl, w: &WarpState, e: Entry, pc: u32) -> Result<(), WarpFault> {
    if ctl.stack.len() >= MAX_STACK {
        return Err(WarpFault {
            kind: FaultKind::StackOverflow {
                depth: MAX_STACK as u32,
            },
            lane: first_active(w),
            pc,
        });
    }
    ctl.stack.push(e);
    Ok(())
}
