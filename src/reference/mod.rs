//! The reference semantics of every op at warp level: the specification in code, below both
//! engines.
//!
//! Ops outside, lanes inside: each instruction is dispatched once per warp ([`exec_inst`]) and
//! runs a 32-lane loop over the register-major file (`ops` holds the [`Exec`] trait, its
//! dispatcher and what the ops share; `alu`, `int`, `float`, `convert`, `func`, `memory`,
//! `resource`, `sample`, `warp` and `barrier` hold the ops; `lanes` the row helpers). The per-lane rules
//! the ops apply are pure functions in [`crate::semantics`]; what is here is their application to
//! a warp: masks, operand rows, memory, resource views, atomics in lane order, shuffles, votes,
//! faults at the lowest lane and the observer's events.
//!
//! Both engines run these definitions: the interpreter ([`crate::interp`]) runs every block with
//! [`run_insts`]; the JIT ([`crate::jit`]) runs them for blocks it has not compiled, for the
//! instances its compiled code delegates ([`exec_inst`]) and through its shared routines (the
//! lane routines below: [`atom_lanes`], [`shfl_rows`], and the resource-view accesses and
//! queries [`ld_buf_lanes`], [`st_buf_lanes`], [`ld_tex_lanes`], [`st_tex_lanes`],
//! [`view_atom_lanes`], [`info_words`], and texture sampling [`sample_lanes`] with the derivative
//! rows [`deriv_row`]). The step-by-step runner ([`crate::exec::step::WarpStepper`]) runs
//! single instructions through its engine's body runner, which both engines implement with
//! [`run_insts`]. Nothing here knows either engine.

#![allow(clippy::needless_range_loop)] // lane loops index several rows at once

mod alu;
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

pub use ops::{Exec, OpResult};
pub(crate) use resource::buffer as view_buffer;
pub use resource::{
    info_words, ld_buf_lanes, ld_tex_lanes, st_buf_lanes, st_tex_lanes, view_atom_lanes, AtomRows,
    TexCoords,
};
pub use sample::{deriv_row, sample_lanes, sample_sources, SampleRows};
pub use warp::{atom_lanes, shfl_rows, AtomLanes};

use crate::exec::warp::exec_mask;
use crate::exec::CtaEnv;
use crate::ir::Inst;
use warpjit_runtime::{Fault, WarpState};

/// Runs one instruction for the lanes in `mask` (the lanes that execute it: active and guard
/// true; non-zero). A fault comes back with its lane and the instruction's pc. `--check`
/// findings and memory accesses go to `env`'s observer.
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

/// Runs a run of instructions for the warp's active mask, each under its guard, counting each
/// in the warp's clock. With an observer attached, each instruction issued is reported to it.
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

/// The body runner that runs every block with these definitions, an instruction at a time:
/// the interpreter's ([`crate::interp::Interp`] is this runner), and the JIT's while an observer
/// is attached (events are then exact per lane).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reference;

impl crate::exec::BodyRunner for Reference {
    #[inline]
    fn run_body(
        &mut self,
        _: crate::ir::BlockId,
        block: &crate::ir::Block,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        run_insts(&block.insts, w, env)
    }

    fn run_part(
        &mut self,
        _: crate::ir::BlockId,
        block: &crate::ir::Block,
        part: std::ops::Range<usize>,
        w: &mut WarpState,
        env: &mut CtaEnv<'_>,
    ) -> Result<(), Fault> {
        run_insts(&block.insts[part], w, env)
    }
}
