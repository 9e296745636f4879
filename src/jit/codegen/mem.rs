//! The JIT's decision for the memory and barrier ops: the accesses lower inline in
//! `jit/memory.rs` (with the interpreter as their slow path); a constant read through `RZ`
//! lowers to a scalar load; MEMBAR, NOP and DEPBAR have no effect in lockstep execution.

use super::{Lower, Tx};
use crate::ir::*;

impl Lower for Ldc {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        if o.a.is_rz() && o.size.bytes() == 4 && o.imm % 4 == 0 {
            let m = tx.guard_mask(g);
            let v = if o.mode == LdcMode::Isl && o.bank > 13 {
                tx.iconst(0)
            } else {
                tx.const_scalar(ConstRef {
                    bank: o.bank,
                    offset: o.imm as u16,
                })
            };
            let r = tx.splat_val(v);
            tx.set_reg(o.d, r, m);
            return true;
        }
        if !o.a.is_rz() {
            let h = tx.env.mem_slow;
            tx.ldc_indexed(inst, o, h);
            return true;
        }
        false
    }
}

impl Lower for Ldg {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.env.mem_slow, tx.mem_ops);
        tx.mem_ops += 1;
        tx.ldg(inst, o, slot, h);
        true
    }
}

impl Lower for Stg {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.env.mem_slow, tx.mem_ops);
        tx.mem_ops += 1;
        tx.stg(inst, o, slot, h);
        true
    }
}

impl Lower for Ld {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.env.mem_slow, tx.mem_ops);
        tx.mem_ops += 1;
        tx.ld(inst, o, slot, h);
        true
    }
}

impl Lower for St {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.env.mem_slow, tx.mem_ops);
        tx.mem_ops += 1;
        tx.st(inst, o, slot, h);
        true
    }
}

impl Lower for Lds {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let h = tx.env.mem_slow;
        tx.lds(inst, o, h);
        true
    }
}

impl Lower for Sts {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let h = tx.env.mem_slow;
        tx.sts(inst, o, h);
        true
    }
}

/// Ops with no functional effect in lockstep execution lower to nothing.
macro_rules! no_code {
    ($($s:ident),*) => {
        $(
            impl Lower for $s {
                fn lower(&self, _: &mut Tx<'_, '_, '_>, _: &Inst) -> bool {
                    true
                }
            }
        )*
    };
}
no_code!(Membar, Nop, Depbar);
