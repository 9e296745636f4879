//! The shared routine of the conversions and binary64 instructions (docs/semantics.md §29):
//! compiled code stores the lanes' 64-bit operands to an [`FpArea`] on its stack and calls
//! [`warpjit_jit_fp`], which applies `crate::semantics::convert::lane` (the interpreter's
//! definition) to all 32 lanes. The forms the JIT writes as vector code do not come here.

use super::abi::JitCx;
use crate::ir::Op;
use crate::semantics::convert::lane;

/// The operands and the result of [`warpjit_jit_fp`], one row of 32 words each (a 64-bit
/// operand is a low and a high row).
#[repr(C, align(16))]
pub struct FpArea {
    /// Low words of `a`.
    pub a_lo: [u32; 32],
    /// High words of `a`.
    pub a_hi: [u32; 32],
    /// Low words of `b` (the source of a conversion).
    pub b_lo: [u32; 32],
    /// High words of `b`.
    pub b_hi: [u32; 32],
    /// Low words of `c`.
    pub c_lo: [u32; 32],
    /// High words of `c`.
    pub c_hi: [u32; 32],
    /// DMNMX's predicate per lane (non-zero: minimum).
    pub p: [u32; 32],
    /// Low words of the result (DSETP and DSET: all ones where the comparison holds).
    pub out_lo: [u32; 32],
    /// High words of the result.
    pub out_hi: [u32; 32],
}

/// One conversion or binary64 op on all 32 lanes, with the interpreter's definition.
///
/// # Safety
/// `op` and `area` must be valid; called only from compiled blocks.
pub unsafe extern "C" fn warpjit_jit_fp(
    _jcx: *mut JitCx,
    op: *const Op,
    _mask: u32,
    area: *mut FpArea,
) {
    // SAFETY: compiled code passes the op it was compiled from and its own stack area.
    let (op, area) = unsafe { (&*op, &mut *area) };
    let test = matches!(op, Op::Dsetp(_) | Op::Dset(_));
    for l in 0..32 {
        let w = |lo: &[u32; 32], hi: &[u32; 32]| (hi[l] as u64) << 32 | lo[l] as u64;
        let r = lane(
            op,
            w(&area.a_lo, &area.a_hi),
            w(&area.b_lo, &area.b_hi),
            w(&area.c_lo, &area.c_hi),
            area.p[l] != 0,
        );
        let r = if test && r != 0 { u64::MAX } else { r };
        area.out_lo[l] = r as u32;
        area.out_hi[l] = (r >> 32) as u32;
    }
}
