//! The DXBC ops that were last to be lowered: the immediate constant buffer lookup (`Table`)
//! and view queries (`Info`) inline, typed stores (`StTex`) and view atomics (`Atom`) through
//! one shared lane routine each (`jit::view`) that applies the reference definition (`crate::reference`).
//!
//! - `Table`: vector code. The bounds test `index < len` is one vector compare; each lane then
//!   loads `table[in range ? index : 0]` from the op's own words (the program owns them, and
//!   compiled code lives no longer than the program), and the compare's mask zeroes the lanes
//!   out of range: exact for every `u32` index.
//! - `Info`: the view's binding may change between launches of the same compiled code, so the
//!   routine reads it at run time and returns each lane's four words at its mip level
//!   ([`crate::reference::info_words`]).
//! - `StTex` and `Atom`: the operand rows go to an area on the stack and the routine runs
//!   [`crate::reference::st_tex_lanes`] / [`crate::reference::view_atom_lanes`] (lanes in ascending
//!   order, the runtime's format conversion; a view access never faults). No register is
//!   flushed around the call: the routines touch only the area, the resources and shared
//!   memory.

use super::super::view::{AtomArea, InfoArea, StTexArea};
use super::{Lower, Row, Tx, V};
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use std::mem::offset_of;

impl Tx<'_, '_, '_> {
    /// A fresh stack area of `T`'s size and its address.
    fn area_of<T>(&mut self) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<T>() as u32,
            4,
        ));
        self.b.ins().stack_addr(self.env.ptr, slot, 0)
    }
}

impl Lower for Table {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let len = self.table.len();
        let row = if len == 0 {
            tx.splat(0)
        } else {
            // At most 4096 entries of 4 words: the length fits in 32 bits.
            let n = u32::try_from(len).unwrap_or(u32::MAX);
            let index = tx.src(self.index);
            let lim = tx.splat(n);
            let inside = tx.cmp(IntCC::UnsignedLessThan, &index, &lim);
            let safe: Row = std::array::from_fn(|k| tx.b.ins().band(index[k], inside[k]));
            let base =
                tx.b.ins()
                    .iconst(tx.env.ptr, self.table.as_ptr() as usize as i64);
            let ptr = tx.env.ptr;
            let flags = MemFlagsData::trusted().with_readonly();
            let words = tx.per_lane(&[safe], |b, x| {
                let i = if ptr == types::I32 {
                    x[0]
                } else {
                    b.ins().uextend(ptr, x[0])
                };
                let off = b.ins().ishl_imm_u(i, 2);
                let at = b.ins().iadd(base, off);
                b.ins().load(types::I32, flags, at, 0)
            });
            std::array::from_fn(|k| tx.b.ins().band(words[k], inside[k]))
        };
        tx.set_reg(self.d, row, m);
        true
    }
}

impl Lower for Info {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let area = tx.area_of::<InfoArea>();
        let mip = tx.src(self.mip);
        tx.store_row(area, offset_of!(InfoArea, mip), &mip);
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const Info as i64);
        let f = tx.helper(Helper::Info);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        for (c, d) in self.d.iter().enumerate() {
            if d.is_rz() {
                continue;
            }
            let at = offset_of!(InfoArea, out) + 128 * (self.comp[c] as usize & 3);
            let row = tx.load_row(area, at);
            tx.set_reg(*d, row, m);
        }
        true
    }
}

impl Lower for StTex {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let area = tx.area_of::<StTexArea>();
        for (k, s) in [self.x, self.y, self.slice].into_iter().enumerate() {
            let row = tx.src(s);
            tx.store_row(area, offset_of!(StTexArea, coords) + 128 * k, &row);
        }
        for (c, s) in self.v.into_iter().enumerate() {
            let row = tx.src(s);
            tx.store_row(area, offset_of!(StTexArea, vals) + 128 * c, &row);
        }
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const StTex as i64);
        let f = tx.helper(Helper::StTex);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        true
    }
}

impl Lower for Atom {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let area = tx.area_of::<AtomArea>();
        let [a0, a1, a2] = self.addr;
        for (k, s) in [a0, a1, a2, self.a, self.b].into_iter().enumerate() {
            let row = tx.src(s);
            tx.store_row(area, offset_of!(AtomArea, rows) + 128 * k, &row);
        }
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const Atom as i64);
        let f = tx.helper(Helper::ViewAtom);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        if !self.d.is_rz() {
            let row: Row = std::array::from_fn(|k| {
                tx.b.ins().load(
                    V,
                    super::flags(),
                    area,
                    (offset_of!(AtomArea, out) + 16 * k) as i32,
                )
            });
            tx.set_reg(self.d, row, m);
        }
        true
    }
}
