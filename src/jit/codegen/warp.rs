//! Atomics and warp ops. The atomics call one routine (`jit::warp::warpjit_jit_atom`, the
//! reference definition [`crate::reference::atom_lanes`]) with their operand rows in an `AtomLanes` on
//! the stack, and branch to the fault exit when it reports a fault; SHFL calls its routine with
//! its rows in a `ShflArea`; VOTE is scalar mask arithmetic.

use super::super::warp::ShflArea;
use super::{flags, Lower, Tx};
use crate::ir::*;
use crate::jit::helper::Helper;
use crate::reference::AtomLanes;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, StackSlotData, StackSlotKind};
use std::mem::offset_of;

impl Tx<'_, '_, '_> {
    /// An atomic through its routine: the address, operand and swap rows stored to a fresh
    /// `AtomLanes`, the old values back into `d` (pair) for the lanes of the guard.
    fn atomic(&mut self, inst: &Inst, a: AtomAccess, b: Reg, d: Option<Reg>) {
        let m = self.guard_mask(inst.guard);
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<AtomLanes>() as u32,
            4,
        ));
        let area = self.b.ins().stack_addr(self.env.ptr, slot, 0);
        let row_at = |field: usize, k: u8| field + 128 * k as usize;
        if let Some(r) = a.addr.base {
            let lo = self.reg(r);
            self.store_row(area, row_at(offset_of!(AtomLanes, addr), 0), &lo);
            if a.space == AtomSpace::Global(true) {
                let hi = self.reg(r.offset(1));
                self.store_row(area, row_at(offset_of!(AtomLanes, addr), 1), &hi);
            }
        }
        for k in 0..a.ty.regs() {
            let v = self.reg(b.offset(k));
            self.store_row(area, row_at(offset_of!(AtomLanes, b), k), &v);
            if a.op == AtomOp::Cas {
                let c = self.reg(cas_swap(b, a.ty).offset(k));
                self.store_row(area, row_at(offset_of!(AtomLanes, c), k), &c);
            }
        }
        let ip = self
            .b
            .ins()
            .iconst(self.env.ptr, inst as *const Inst as i64);
        let f = self.helper(Helper::Atom);
        let call = self.b.ins().call(f, &[self.jcx, ip, m, area]);
        let r = self.b.inst_results(call)[0];
        let ok = self.b.create_block();
        // On a fault, the registers the atomic reads are made current in the warp state first
        // (the report names their values, as the interpreter leaves them).
        let flush = self.b.create_block();
        self.b.set_cold_block(flush);
        self.b.ins().brif(r, flush, &[], ok, &[]);
        self.b.switch_to_block(flush);
        let saved = (self.lane_bits, self.mask_vecs.clone());
        self.flush_for(inst);
        (self.lane_bits, self.mask_vecs) = saved;
        self.b.ins().jump(self.fault_block, &[]);
        self.b.switch_to_block(ok);
        if let Some(d) = d {
            for k in 0..a.ty.regs() {
                let row = self.load_row(area, row_at(offset_of!(AtomLanes, out), k));
                self.set_reg(d.offset(k), row, m);
            }
        }
    }

    /// The low or high word of the clock of the instruction being translated: the warp's
    /// `clock` (the dispatcher's count at the piece's start) plus the instructions before it in
    /// the piece (docs/semantics.md §22d).
    pub(super) fn clock_word(&mut self, hi: bool) -> cranelift_codegen::ir::Value {
        let at = offset_of!(warpjit_runtime::WarpState, clock) as i32;
        let c = self.b.ins().load(types::I64, flags(), self.w, at);
        let c = self.b.ins().iadd_imm_u(c, self.index as i64);
        let c = if hi {
            self.b.ins().ushr_imm_u(c, 32)
        } else {
            c
        };
        self.b.ins().ireduce(types::I32, c)
    }

    fn reg_imm(&mut self, x: RegImm) -> super::Row {
        match x {
            RegImm::Reg(r) => self.reg(r),
            RegImm::Imm(v) => self.splat(v),
        }
    }
}

impl Lower for Atomg {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.atomic(inst, self.access(), self.b, Some(self.d));
        true
    }
}

impl Lower for Red {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.atomic(inst, self.access(), self.b, None);
        true
    }
}

impl Lower for Atoms {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.atomic(inst, self.access(), self.b, Some(self.d));
        true
    }
}

impl Lower for Shfl {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let slot = tx.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<ShflArea>() as u32,
            4,
        ));
        let area = tx.b.ins().stack_addr(tx.env.ptr, slot, 0);
        let a = tx.reg(self.a);
        let b = tx.reg_imm(self.b);
        let c = tx.reg_imm(self.c);
        tx.store_row(area, offset_of!(ShflArea, a), &a);
        tx.store_row(area, offset_of!(ShflArea, b), &b);
        tx.store_row(area, offset_of!(ShflArea, c), &c);
        let op = tx.b.ins().iconst(tx.env.ptr, self as *const Shfl as i64);
        let f = tx.helper(Helper::Shfl);
        tx.b.ins().call(f, &[tx.jcx, op, m, area]);
        let out = tx.load_row(area, offset_of!(ShflArea, out));
        tx.set_reg(self.d, out, m);
        if !self.p.is_pt() {
            let ok =
                tx.b.ins()
                    .load(types::I32, flags(), area, offset_of!(ShflArea, ok) as i32);
            tx.set_pred(self.p, m, ok);
        }
        true
    }
}

impl Lower for Cs2r {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let s = tx.clock_word(self.hi);
        let row = tx.splat_val(s);
        tx.set_reg(self.d, row, m);
        true
    }
}

impl Lower for Vote {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let p = tx.pred_src(self.a);
        // Mirrors `semantics::warp::vote` on the ballot of the executing lanes.
        let ballot = tx.b.ins().band(p, m);
        if !self.d.is_rz() {
            let row = tx.splat_val(ballot);
            tx.set_reg(self.d, row, m);
        }
        if !self.p.is_pt() {
            let zero = tx.iconst(0);
            let t = match self.mode {
                VoteMode::All => tx.b.ins().icmp(IntCC::Equal, ballot, m),
                VoteMode::Any => tx.b.ins().icmp(IntCC::NotEqual, ballot, zero),
                VoteMode::Eq => {
                    let all = tx.b.ins().icmp(IntCC::Equal, ballot, m);
                    let none = tx.b.ins().icmp(IntCC::Equal, ballot, zero);
                    tx.b.ins().bor(all, none)
                }
            };
            let v = tx.b.ins().select(t, m, zero);
            tx.set_pred(self.p, m, v);
        }
        true
    }
}
