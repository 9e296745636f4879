//! Texture sampling (`Sample`) and screen-space derivatives (`Deriv`) through one shared
//! routine each (`jit::sample`), which applies the interpreter's definition: the operand rows
//! go to an area on the stack, the results come back from it into registers. No register is
//! flushed around the call.

use super::super::sample::SampleArea;
use super::{Lower, Tx};
use crate::ir::*;
use crate::jit::helper::Helper;
use crate::reference::sample_sources;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind};
use std::mem::offset_of;

impl Lower for Sample {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let slot = tx.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<SampleArea>() as u32,
            4,
        ));
        let area = tx.b.ins().stack_addr(tx.env.ptr, slot, 0);
        for (k, s) in sample_sources(self).into_iter().enumerate() {
            let row = tx.src(s);
            tx.store_row(area, offset_of!(SampleArea, rows) + 128 * k, &row);
        }
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const Sample as i64);
        let f = tx.helper(Helper::Sample);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        for c in 0..4 {
            if !self.d[c].is_rz() {
                let row = tx.load_row(area, offset_of!(SampleArea, out) + 128 * c);
                tx.set_reg(self.d[c], row, m);
            }
        }
        true
    }
}

impl Lower for Deriv {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let f = tx.helper(Helper::Deriv);
        let op = self as *const Deriv as *const u8;
        tx.func_routine(f, op, &[self.a], self.d, inst);
        true
    }
}
