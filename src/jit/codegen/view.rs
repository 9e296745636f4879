//! Buffer-view loads and stores (`LdBuf`, `StBuf`) and texture loads (`LdTex`): the lanes'
//! operands are stored to a [`ViewArea`] (a [`TexArea`]) on the stack. A load whose binding the
//! run's view table (`jit::views`) describes runs inline ([`inline`]: one compiled loop over the
//! lanes, bounds-checked as the interpreter checks, and the texel conversion in vector code);
//! otherwise, and for every store, one shared routine (`jit::view`) does the accesses with the
//! interpreter's definition. Loaded values come back from the area into registers. No register
//! is flushed around a routine call (the routine reads and writes only the area and the
//! resources).

mod inline;

use super::super::view::{FuncArea, TexArea, ViewArea};
use super::{flags, Lower, Row, Tx, V};
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::{FuncRef, InstBuilder, StackSlotData, StackSlotKind, Value};
use std::mem::offset_of;

impl Tx<'_, '_, '_> {
    /// A fresh [`ViewArea`] on the stack and its address.
    fn view_area(&mut self) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<ViewArea>() as u32,
            4,
        ));
        self.b.ins().stack_addr(self.env.ptr, slot, 0)
    }

    /// Stores a row into the area at byte `at`.
    pub(in crate::jit) fn store_row(&mut self, area: Value, at: usize, row: &Row) {
        for (k, v) in row.iter().enumerate() {
            self.b.ins().store(flags(), *v, area, (at + 16 * k) as i32);
        }
    }

    /// A fresh [`ViewArea`] holding the lanes' structure indices and byte offsets.
    fn view_operands(&mut self, index: Src, offset: Src) -> Value {
        let area = self.view_area();
        let index = self.src(index);
        let offset = self.src(offset);
        self.store_row(area, offset_of!(ViewArea, index), &index);
        self.store_row(area, offset_of!(ViewArea, offset), &offset);
        area
    }

    /// Loads the row at byte `at` of the area.
    pub(super) fn load_row(&mut self, area: Value, at: usize) -> Row {
        std::array::from_fn(|k| self.b.ins().load(V, flags(), area, (at + 16 * k) as i32))
    }

    /// A function op through its routine (`f`, called with the op at `op`): the sources' rows
    /// in a [`FuncArea`] on the stack, the result row back into `d` for the lanes of the
    /// guard. No register is flushed: the routine touches only the area.
    pub(super) fn func_routine(
        &mut self,
        f: FuncRef,
        op: *const u8,
        srcs: &[Src],
        d: Reg,
        inst: &Inst,
    ) {
        let m = self.guard_mask(inst.guard);
        let rows: Vec<Row> = srcs.iter().map(|s| self.src(*s)).collect();
        let row = self.routine_row(f, op, &rows, m);
        self.set_reg(d, row, m);
    }

    /// Calls routine `f` on the op at `op` with `rows` as [`FuncArea`]'s `a`, `b`, `c` and the
    /// lane mask `m`; returns its `out` row.
    pub(in crate::jit) fn routine_row(
        &mut self,
        f: FuncRef,
        op: *const u8,
        rows: &[Row],
        m: Value,
    ) -> Row {
        let area = self.func_area();
        for (k, row) in rows.iter().enumerate() {
            self.store_row(area, 128 * k, row);
        }
        self.call_routine(f, op, area, m)
    }

    /// A fresh [`FuncArea`] on the stack and its address.
    pub(in crate::jit) fn func_area(&mut self) -> Value {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<FuncArea>() as u32,
            4,
        ));
        self.b.ins().stack_addr(self.env.ptr, slot, 0)
    }

    /// Calls routine `f` on the op at `op` with the [`FuncArea`] at `area` (its sources stored)
    /// and the lane mask `m`; returns its `out` row.
    pub(in crate::jit) fn call_routine(
        &mut self,
        f: FuncRef,
        op: *const u8,
        area: Value,
        m: Value,
    ) -> Row {
        let op = self.b.ins().iconst(self.env.ptr, op as i64);
        self.b.ins().call(f, &[self.jcx, op, m, area]);
        self.load_row(area, offset_of!(FuncArea, out))
    }
}

impl Lower for LdBuf {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let area = tx.view_area();
        let index = tx.src(self.index);
        tx.store_row(area, offset_of!(ViewArea, index), &index);
        // An immediate offset is folded into the fast path's addresses; only the routine reads
        // its row.
        let imm = match self.offset {
            Src::Imm(v) | Src::Imm32(v) => Some(v),
            _ => None,
        };
        let offset = tx.src(self.offset);
        let offset_at = offset_of!(ViewArea, offset);
        let slow_rows = match imm {
            Some(_) => vec![(offset_at, offset)],
            None => {
                tx.store_row(area, offset_at, &offset);
                Vec::new()
            }
        };
        // (component, word) per destination read.
        let comps: Vec<(usize, u32)> = (0..4)
            .filter(|&c| !self.d[c].is_rz())
            .map(|c| (c, self.comp[c] as u32))
            .collect();
        if comps.is_empty() {
            // No component is read: nothing happens (not even a `--check` finding).
            return true;
        }
        let op = self as *const LdBuf as *const u8;
        let f = tx.helper(Helper::LdBuf);
        match tx.buffer_binding(self.view) {
            Some((ok, base, len)) => tx.split_view(ok, f, op, m, area, &slow_rows, &mut |tx| {
                tx.buffer_loop(area, base, len, self.stride, imm, &comps)
            }),
            None => {
                for (at, row) in &slow_rows {
                    tx.store_row(area, *at, row);
                }
                tx.view_call(f, op, m, area)
            }
        }
        // Both paths leave component c's words in `vals[c]`.
        for &(c, _) in &comps {
            let row = tx.load_row(area, offset_of!(ViewArea, vals) + 128 * c);
            tx.set_reg(self.d[c], row, m);
        }
        true
    }
}

impl Lower for StBuf {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let area = tx.view_operands(self.index, self.offset);
        for (c, v) in self.v.iter().enumerate() {
            if self.mask & (1 << c) != 0 {
                let row = tx.src(*v);
                tx.store_row(area, offset_of!(ViewArea, vals) + 128 * c, &row);
            }
        }
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const StBuf as i64);
        let f = tx.helper(Helper::StBuf);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        true
    }
}

impl Lower for LdTex {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let slot = tx.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<TexArea>() as u32,
            4,
        ));
        let area = tx.b.ins().stack_addr(tx.env.ptr, slot, 0);
        for (k, s) in [self.x, self.y, self.slice, self.sample, self.mip]
            .into_iter()
            .enumerate()
        {
            let row = tx.src(s);
            tx.store_row(area, offset_of!(TexArea, coords) + 128 * k, &row);
        }
        let comps: Vec<(usize, u32)> = (0..4)
            .filter(|&c| !self.d[c].is_rz())
            .map(|c| (c, self.comp[c] as u32 & 3))
            .collect();
        let op = self as *const LdTex as *const u8;
        let f = tx.helper(Helper::LdTex);
        match tx.texture_binding(self.view) {
            Some((ok, desc)) if !comps.is_empty() => {
                tx.split_view(ok, f, op, m, area, &[], &mut |tx| {
                    tx.texel_loop(area, desc, [self.offset[0], self.offset[1]], &comps)
                })
            }
            _ => tx.view_call(f, op, m, area),
        }
        for &(c, _) in &comps {
            let row = tx.load_row(area, offset_of!(TexArea, vals) + 128 * c);
            tx.set_reg(self.d[c], row, m);
        }
        true
    }
}
