//! The JIT's decision for the memory and barrier ops: the accesses lower inline in
//! `jit/memory.rs` (with the interpreter as their slow path); a constant read through `RZ`
//! lowers to a scalar load; NOP, DEPBAR and a CTA-scope MEMBAR have no effect in lockstep execution,
//! a wider MEMBAR is a host fence.

use super::{Lower, Tx};
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::InstBuilder;

/// The weight of an inline access of `size` (a fast path and a cold slow path; see
/// [`super::table`]).
pub(super) fn access_weight(size: MemSize) -> u32 {
    match size {
        MemSize::B128 => 24,
        MemSize::B64 => 16,
        MemSize::B32 => 12,
        // As weighed before weights were per op (a fallback arm): `.U.128` like the narrow
        // sizes, though it compiles like `.128`. Kept so that pieces do not change.
        MemSize::U8 | MemSize::S8 | MemSize::U16 | MemSize::S16 | MemSize::U128 => 14,
    }
}

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
            let h = tx.helper(Helper::MemSlow);
            tx.ldc_indexed(inst, o, h);
            return true;
        }
        false
    }
}

impl Lower for Ldg {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.helper(Helper::MemSlow), tx.mem_ops);
        tx.mem_ops += 1;
        tx.ldg(inst, o, slot, h);
        true
    }
}

impl Lower for Stg {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.helper(Helper::MemSlow), tx.mem_ops);
        tx.mem_ops += 1;
        tx.stg(inst, o, slot, h);
        true
    }
}

impl Lower for Ld {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.helper(Helper::MemSlow), tx.mem_ops);
        tx.mem_ops += 1;
        tx.ld(inst, o, slot, h);
        true
    }
}

impl Lower for St {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let (h, slot) = (tx.helper(Helper::MemSlow), tx.mem_ops);
        tx.mem_ops += 1;
        tx.st(inst, o, slot, h);
        true
    }
}

impl Lower for Lds {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let h = tx.helper(Helper::MemSlow);
        tx.lds(inst, o, h);
        true
    }
}

impl Lower for Sts {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let h = tx.helper(Helper::MemSlow);
        tx.sts(inst, o, h);
        true
    }
}

impl Lower for Ldl {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let h = tx.helper(Helper::MemSlow);
        tx.ldl(inst, self, h);
        true
    }
}

impl Lower for Stl {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let h = tx.helper(Helper::MemSlow);
        tx.stl(inst, self, h);
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
no_code!(Nop, Depbar);

impl Lower for Membar {
    /// A scope beyond the CTA: a host memory fence (docs/semantics.md §22f), emitted whatever
    /// the guard (a fence no lane asked for changes no result).
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, _: &Inst) -> bool {
        if self.host_fence() {
            tx.b.ins().fence();
        }
        true
    }
}

impl Lower for Bpt {
    /// The interpreter's code, called here, faults (a trap ends the launch, so it is never
    /// hot).
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.delegate(inst);
        true
    }
}
