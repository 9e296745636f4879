//! `B2R.RESULT`: one load of the warp state's `bar_result` (left there by the execution core
//! when it released a `BAR.RED`), splat to the lanes; the predicate is that word being non-zero.

use super::{flags, Lower, Tx};
use crate::ir::*;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use std::mem::offset_of;

impl Lower for B2r {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let at = offset_of!(warpjit_runtime::WarpState, bar_result) as i32;
        let r = tx.b.ins().load(types::I32, flags(), tx.w, at);
        if !self.d.is_rz() {
            let row = tx.splat_val(r);
            tx.set_reg(self.d, row, m);
        }
        if !self.p.is_pt() {
            // Mirrors the interpreter: Pd = result != 0 in the executing lanes.
            let zero = tx.iconst(0);
            let t = tx.b.ins().icmp(IntCC::NotEqual, r, zero);
            let v = tx.b.ins().select(t, m, zero);
            tx.set_pred(self.p, m, v);
        }
        true
    }
}
