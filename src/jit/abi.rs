//! The contract between compiled blocks and the host: the context JIT code receives and the
//! `extern "C"` helpers it calls by symbol.
//!
//! A compiled block is `extern "C" fn(w: *mut WarpState, jcx: *mut JitCx) -> u32`: it runs the
//! block's instructions for the warp's active mask and returns 0, or records a fault in
//! `jcx.fault` and returns 1.

use crate::interp::ops::{exec_op, Cx, LaneFault};
use crate::ir::Inst;
use std::ffi::c_void;
use warpjit_runtime::helpers::FaultSlot;
use warpjit_runtime::WarpState;

/// The per-warp-run context compiled code addresses with `offset_of!`.
#[repr(C)]
pub struct JitCx {
    /// Where a fault is recorded.
    pub fault: FaultSlot,
    /// The launch's constant banks (bank `b` at `b * 0x10000`).
    pub consts: *const u8,
    /// Banks available in the launch's mode.
    pub nbanks: u32,
    /// Padding (keeps the layout explicit).
    pub _pad: u32,
    /// Base of the shared window.
    pub shared_window: u64,
    /// The interpreter context (`*mut Cx`), for instructions run by [`warpjit_jit_exec_inst`].
    pub cx: *mut c_void,
    /// Instruction executions delegated to the interpreter's code (counted for `--stats`).
    pub delegated: u64,
}

/// The signature of a compiled block.
pub type BlockFn = unsafe extern "C" fn(*mut WarpState, *mut JitCx) -> u32;

/// Runs one instruction with the interpreter's own code, for the lanes in `mask`; used by compiled
/// code for instructions it does not lower inline. Returns 0, or 1 after recording a fault.
///
/// # Safety
/// `w`, `jcx` (with a live `cx`) and `inst` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_exec_inst(
    w: *mut WarpState,
    jcx: *mut JitCx,
    inst: *const Inst,
    mask: u32,
) -> u32 {
    // SAFETY: the dispatcher passes live pointers for the duration of the block call.
    let (w, jcx, inst) = unsafe { (&mut *w, &mut *jcx, &*inst) };
    jcx.delegated += 1;
    if mask == 0 {
        return 0;
    }
    // SAFETY: `cx` is the `Cx` the dispatcher built for this warp run.
    let cx = unsafe { &mut *(jcx.cx as *mut Cx<'_>) };
    match exec_op(&inst.op, w, mask, cx) {
        Ok(()) => 0,
        Err(LaneFault { kind, lane }) => {
            jcx.fault = FaultSlot::encode(kind, lane, inst.pc);
            1
        }
    }
}
