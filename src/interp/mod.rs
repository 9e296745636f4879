//! The reference interpreter: the op semantics in code, and the baseline the JIT must beat.
//!
//! Ops outside, lanes inside: each instruction is dispatched once per warp and runs a 32-lane
//! loop over the register-major file (`ops` dispatches; `alu` and `memory` hold the ops,
//! `lanes` the row helpers they share).
//! Control flow, warp and CTA scheduling, barriers and budgets are not here: they are the
//! engine-neutral dispatcher in [`crate::exec`], which both engines run under. The interpreter
//! supplies its [`BodyRunner`], [`Interp`].
//!
//! **The boundary.** Other parts of the crate use exactly these items:
//! - [`Interpreter`], the engine;
//! - [`Interp`], its body runner (the JIT runs blocks it has not compiled, and every block while
//!   an observer is attached, with it), and [`Interp::run_insts`] for a run of instructions;
//! - [`exec_inst`], one instruction for a given set of lanes: the JIT's per-instruction fallback
//!   (instructions without an inline lowering, and the slow paths of inline memory accesses).

#![allow(clippy::needless_range_loop)] // lane loops index several rows at once

pub(crate) mod alu;
mod barrier;
mod convert;
mod float;
mod func;
mod int;
mod lanes;
mod memory;
mod ops;
mod resource;
mod sample;
mod warp;

pub(crate) use alu::{bfe, bfi, p2r_bits, p2r_merge, prmt, shl, shr};
pub(crate) use resource::buffer as view_buffer;
pub use resource::{
    info_words, ld_buf_lanes, ld_tex_lanes, st_buf_lanes, st_tex_lanes, view_atom_lanes, AtomRows,
    TexCoords,
};
pub use sample::{deriv_row, sample_lanes, sample_sources, SampleRows};
pub use warp::{atom_lanes, shfl_rows, AtomLanes};

use crate::exec::warp::exec_mask;
use crate::exec::{grid::run_grid, BodyRunner, CtaEnv, Engine, Launch, Machine, RunOptions, Stats};
use crate::ir::{Block, BlockId, Inst};
use warpjit_runtime::{Fault, WarpState};

/// The reference interpreter engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interpreter;

impl Engine for Interpreter {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        run_grid(machine, launch, opts, &|| Box::new(Interp))
    }
}

/// Runs one instruction with the interpreter's code for the lanes in `mask` (the lanes that
/// execute it: active and guard true; non-zero). A fault comes back with its lane and the
/// instruction's pc. `--check` findings and memory accesses go to `env`'s observer.
#[inline(always)]
pub fn exec_inst(
    inst: &Inst,
    w: &mut WarpState,
    mask: u32,
    env: &mut CtaEnv<'_>,
) -> Result<(), Fault> {
    env.pc = inst.pc;
    ops::exec_op(&inst.op, w, mask, env).map_err(|f| f.at_pc(inst.pc))?;
    if !env.findings.is_empty() {
        env.flush_findings(inst.pc);
    }
    Ok(())
}

/// The interpreter's body runner: every instruction of a block, in order, for the lanes that
/// execute it.
pub struct Interp;

impl Interp {
    /// Interprets a run of instructions for the warp's active mask (each under its guard). With
    /// an observer attached, each instruction issued is reported to it.
    #[inline]
    pub fn run_insts(insts: &[Inst], w: &mut WarpState, env: &mut CtaEnv<'_>) -> Result<(), Fault> {
        if let Some(o) = env.observer.filter(|_| env.observe_inst) {
            for inst in insts {
                let mask = exec_mask(w, inst.guard);
                o.inst(env.at, inst.pc, w.active, mask);
                if mask != 0 {
                    exec_inst(inst, w, mask, env)?;
                }
                w.clock += 1;
            }
            return Ok(());
        }
        for inst in insts {
            let mask = exec_mask(w, inst.guard);
            if mask != 0 {
                exec_inst(inst, w, mask, env)?;
            }
            w.clock += 1;
        }
        Ok(())
    }
}

impl BodyRunner for Interp {
    #[inline]
    fn run_body(
        &mut self,
        _: BlockId,
        block: &Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
        _: &mut Stats,
    ) -> Result<(), Fault> {
        Interp::run_insts(&block.insts, w, env)
    }

    fn run_prefix(
        &mut self,
        _: BlockId,
        block: &Block,
        n: usize,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        Interp::run_insts(&block.insts[..n], w, env)
    }
}
