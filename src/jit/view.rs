//! The shared routines compiled code calls for buffer-view loads and stores (`LdBuf`, `StBuf`)
//! and texture loads (`LdTex`):
//! the lanes' indices, offsets and values go through a [`ViewArea`] on the compiled function's
//! stack, and the interpreter's own per-lane definition
//! ([`crate::interp::ld_buf_lanes`], [`crate::interp::st_buf_lanes`]) does the access. No
//! register goes back to the warp state and nothing faults, so the compiled code keeps its
//! registers in SSA values around the call.

use super::abi::JitCx;
use crate::exec::CtaEnv;
use crate::interp::{ld_buf_lanes, ld_tex_lanes, st_buf_lanes, TexCoords};
use crate::ir::{LdBuf, LdTex, StBuf};

/// What compiled code hands a view routine: per lane, the index and the offset, and the four
/// components' values (the stored values, or the loaded ones on return).
#[repr(C, align(16))]
pub struct ViewArea {
    /// Structure index per lane.
    pub index: [u32; 32],
    /// Byte offset per lane.
    pub offset: [u32; 32],
    /// Component values per lane.
    pub vals: [[u32; 32]; 4],
}

/// Loads for the lanes of `mask`: `area.vals` receives the words each destination component
/// gets (0 in the other lanes).
///
/// # Safety
/// `jcx` (with a live `env`), `op` and `area` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_ld_buf(
    jcx: *mut JitCx,
    op: *const LdBuf,
    mask: u32,
    area: *mut ViewArea,
) {
    // SAFETY: the dispatcher passes live pointers for the duration of the block call; `env` is
    // the `CtaEnv` it built for this warp run.
    let (jcx, op, area) = unsafe { (&mut *jcx, &*op, &mut *area) };
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    area.vals = ld_buf_lanes(op, env, mask, &area.index, &area.offset);
}

/// Stores for the lanes of `mask`, in ascending lane order.
///
/// # Safety
/// As [`warpjit_jit_ld_buf`].
pub unsafe extern "C" fn warpjit_jit_st_buf(
    jcx: *mut JitCx,
    op: *const StBuf,
    mask: u32,
    area: *mut ViewArea,
) {
    // SAFETY: as in `warpjit_jit_ld_buf`.
    let (jcx, op, area) = unsafe { (&mut *jcx, &*op, &*area) };
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    st_buf_lanes(op, env, mask, &area.index, &area.offset, &area.vals);
}

/// What compiled code hands the texture-load routine: per lane, the five coordinates (column,
/// row, slice, sample, mip), and on return the four components.
#[repr(C, align(16))]
pub struct TexArea {
    /// Coordinates per lane.
    pub coords: TexCoords,
    /// Component values per lane.
    pub vals: [[u32; 32]; 4],
}

/// Texture loads (`ld`, `ldms`, `ld_uav_typed`) for the lanes of `mask`.
///
/// # Safety
/// As [`warpjit_jit_ld_buf`].
pub unsafe extern "C" fn warpjit_jit_ld_tex(
    jcx: *mut JitCx,
    op: *const LdTex,
    mask: u32,
    area: *mut TexArea,
) {
    // SAFETY: as in `warpjit_jit_ld_buf`.
    let (jcx, op, area) = unsafe { (&mut *jcx, &*op, &mut *area) };
    let env = unsafe { &mut *(jcx.env as *mut CtaEnv<'_>) };
    area.vals = ld_tex_lanes(op, env, mask, &area.coords);
}
