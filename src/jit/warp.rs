//! The shared routines compiled code calls for the atomics (`ATOM`, `RED`, `ATOMS`) and `SHFL`.
//!
//! An atomic's operand rows go through an [`AtomLanes`] on the compiled function's stack, and
//! [`crate::reference::atom_lanes`], the one definition the interpreter also runs, performs the
//! lanes' updates in order. No register is flushed around the call: the routine touches only
//! the area, memory and, on a fault, `JitCx::fault`. `SHFL` runs [`crate::reference::shfl_rows`]
//! on the rows in a [`ShflArea`].

use super::abi::JitCx;
use crate::exec::CtaEnv;
use crate::ir::{Inst, Op, Shfl};
use crate::reference::{atom_lanes, shfl_rows, AtomLanes};

/// Runs the atomic `inst` for the lanes of `mask` on the operand rows in `area`; the old values
/// come back in `area.out`. Returns 0, or 1 after recording a fault (nothing changed).
///
/// # Safety
/// `jcx` (with a live `env`), `inst` (an atomic) and `area` must be valid; called only from
/// compiled blocks.
pub unsafe extern "C" fn warpjit_jit_atom(
    jcx: *mut JitCx,
    inst: *const Inst,
    mask: u32,
    area: *mut AtomLanes,
) -> u32 {
    // SAFETY: the dispatcher passes live pointers for the duration of the block call; `env` is
    // the `CtaEnv` it built for this warp run.
    let (jcx, inst, area) = unsafe { (&mut *jcx, &*inst, &mut *area) };
    if mask == 0 {
        return 0;
    }
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    let access = match &inst.op {
        Op::Atomg(o) => o.access(),
        Op::Red(o) => o.access(),
        Op::Atoms(o) => o.access(),
        _ => unreachable!("warpjit_jit_atom called for {}", inst.op.name()),
    };
    env.pc = inst.pc;
    match atom_lanes(&access, env, mask, area) {
        Ok(()) => 0,
        Err(f) => {
            jcx.fault = Some(f.at_pc(inst.pc));
            1
        }
    }
}

/// What compiled code hands the SHFL routine: the source, lane and clamp rows, and on return
/// the result row and the in-range mask.
#[repr(C, align(16))]
pub struct ShflArea {
    /// The value row (every lane's register).
    pub a: [u32; 32],
    /// Lane operand row.
    pub b: [u32; 32],
    /// Clamp and segment mask row.
    pub c: [u32; 32],
    /// Result row.
    pub out: [u32; 32],
    /// In-range lanes.
    pub ok: u32,
}

/// SHFL for the lanes of `mask`.
///
/// # Safety
/// `op` and `area` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_shfl(
    _jcx: *mut JitCx,
    op: *const Shfl,
    mask: u32,
    area: *mut ShflArea,
) {
    // SAFETY: live for the call.
    let (op, area) = unsafe { (&*op, &mut *area) };
    let (out, ok) = shfl_rows(op.mode, &area.a, &area.b, &area.c, mask);
    area.out = out;
    area.ok = ok;
}
