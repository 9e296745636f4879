//! The routines compiled code calls for texture sampling (`Sample`) and screen-space
//! derivatives (`Deriv`): the lanes' operand rows go through an area on the compiled function's
//! stack, and the reference definition ([`crate::reference::sample_lanes`],
//! [`crate::reference::deriv_row`], both [`crate::semantics::sample`]) computes the results. No
//! register goes back to the warp state and nothing faults, so compiled code keeps its
//! registers in SSA values around the call.

use super::abi::JitCx;
use super::view::FuncArea;
use crate::exec::CtaEnv;
use crate::ir::{Deriv, Sample};
use crate::reference::{deriv_row, sample_lanes, SampleRows};

/// What compiled code hands the sampling routine: the operand rows, and on return the four
/// result components per lane.
#[repr(C, align(16))]
pub struct SampleArea {
    /// The operand rows ([`SampleRows`] order).
    pub rows: SampleRows,
    /// The words each destination component receives, per lane.
    pub out: [[u32; 32]; 4],
}

/// Samples for the lanes of `mask` (0 in the other lanes of `area.out`).
///
/// # Safety
/// `jcx` (with a live `env`), `op` and `area` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_sample(
    jcx: *mut JitCx,
    op: *const Sample,
    mask: u32,
    area: *mut SampleArea,
) {
    // SAFETY: the dispatcher passes live pointers for the duration of the block call; `env` is
    // the `CtaEnv` it built for this warp run.
    let (jcx, op, area) = unsafe { (&mut *jcx, &*op, &mut *area) };
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    area.out = sample_lanes(op, env, mask, &area.rows);
}

/// A derivative on all 32 lanes: `area.out` from the operand row `area.a`.
///
/// # Safety
/// `op` and `area` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_deriv(
    _jcx: *mut JitCx,
    op: *const Deriv,
    _mask: u32,
    area: *mut FuncArea,
) {
    // SAFETY: compiled code passes the op it was compiled from and its own stack area.
    let (op, area) = unsafe { (&*op, &mut *area) };
    area.out = deriv_row(op, &area.a);
}
