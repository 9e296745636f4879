//! The JIT's lowering table: for every op of the IR table, what the JIT knows of an instance
//! before lowering it, as one line `Op(o) => weight, strip;` (expressions over the op's fields,
//! `o`):
//!
//! - its compile **weight**, for splitting long blocks into pieces (see [`crate::jit::weight`]
//!   for the unit and how it was measured);
//! - whether tier 1 may run it in a **strip** loop ([`Tx::strip_run`]), four lanes at a time:
//!   its lowering always succeeds, calls no routine, cannot fault, and treats every vector of
//!   four lanes alike (each lane's result depends on that lane's operands only, and no lane's
//!   position shapes the code).
//!
//! The lowering itself is the op's [`Lower`](super::Lower) impl. An op of the IR table missing
//! here is a compile error ([`Cost`] not implemented, in [`op_weight`]'s expansion).

#[allow(unused_imports)]
use super::Tx;
use super::{alu, convert, func, mem};
use crate::ir::*;

/// An op's line of the table (implemented by [`lowering_table!`] only).
pub(super) trait Cost {
    /// What this instance costs to compile.
    fn weight(&self) -> u32;
    /// Whether tier 1 may run this instance in a strip loop.
    fn strip(&self) -> bool;
}

/// Implements [`Cost`] for each line.
macro_rules! lowering_table {
    ($($s:ident($o:pat) => $w:expr, $st:expr;)*) => {
        $(
            impl Cost for $s {
                #[allow(unused_variables)]
                fn weight(&self) -> u32 {
                    let $o = self;
                    $w
                }
                #[allow(unused_variables)]
                fn strip(&self) -> bool {
                    let $o = self;
                    $st
                }
            }
        )*
    };
}

lowering_table! {
    Mov(_) => 4, true;
    // Thread and CTA ids: vectors alike in every chunk; lane ids and masks, the clock: not.
    S2r(o) => 4, matches!(
        o.sr,
        SpecialReg::TidX
            | SpecialReg::TidY
            | SpecialReg::TidZ
            | SpecialReg::CtaidX
            | SpecialReg::CtaidY
            | SpecialReg::CtaidZ
    );
    Iadd(o) => if o.sat { 12 } else { 4 }, !o.sat;
    Iadd3(_) => 4, true;
    Iscadd(_) => 4, true;
    Xmad(_) => 8, true;
    Shl(o) => if alu::reg_src(&o.b) { 8 } else { 4 }, true;
    Shr(o) => if o.brev || alu::reg_src(&o.b) { 8 } else { 4 }, true;
    Shf(o) => if alu::reg_src(&o.b) { 12 } else { 4 }, true;
    Lop(_) => 4, true;
    Lop3(_) => 8, true;
    Bfe(o) => if o.brev || alu::reg_src(&o.b) { 12 } else { 4 }, true;
    Bfi(o) => if alu::reg_src(&o.b) { 12 } else { 4 }, true;
    Popc(_) => 8, true;
    Flo(_) => 12, true;
    Sel(_) => 8, true;
    Isetp(_) => 4, true;
    Psetp(_) => 4, true;
    P2r(_) => 16, false;
    Imnmx(_) => 8, true;
    Vmnmx(_) => 12, false;
    Vabsdiff(_) => 12, false;
    Vabsdiff4(_) => 12, false;
    Icmp(_) => 8, true;
    // An immediate selector is a byte shuffle within each vector; a register one calls
    // the lane routine.
    Prmt(o) => 4, o.b.imm().is_some();
    // Directed rounding calls the lane routine.
    Fadd(o) => if o.rnd == FRnd::Rn { 6 } else { 12 }, o.rnd == FRnd::Rn;
    // Directed rounding and the scaled product call the lane routine.
    Fmul(o) => if o.rnd == FRnd::Rn && o.scale == 0 { 6 } else { 12 },
        o.rnd == FRnd::Rn && o.scale == 0;
    Ffma(o) => if o.rnd == FRnd::Rn { 8 } else { 14 }, o.rnd == FRnd::Rn;
    Fmnmx(_) => 10, true;
    Fset(_) => 8, true;
    Fsetp(_) => 8, true;
    Fcmp(_) => 8, true;
    Mufu(_) => 12, false;
    Rro(_) => 6, true;
    Fchk(_) => 10, false;
    Iset(_) => 6, true;
    Pset(_) => 4, true;
    Csetp(_) => 2, true;
    R2p(_) => 16, true;
    Imul(o) => if o.hi { 24 } else { 4 }, true;
    Imad(o) => if o.hi { 24 } else { 6 }, true;
    Imadsp(_) => 8, true;
    Lea(_) => 4, true;
    Ldc(o) => if o.a.is_rz() { 4 } else { 12 }, false;
    Ldg(o) => mem::access_weight(o.size), false;
    Stg(o) => mem::access_weight(o.size), false;
    Ld(o) => mem::access_weight(o.size) + 8, false;
    St(o) => mem::access_weight(o.size) + 8, false;
    Lds(o) => mem::access_weight(o.size), false;
    Sts(o) => mem::access_weight(o.size), false;
    Ldl(o) => mem::access_weight(o.size), false;
    Stl(o) => mem::access_weight(o.size), false;
    // A CTA-scope fence is no code; a wider one is a fence instruction, emitted once.
    Membar(o) => 1, !o.host_fence();
    // Nothing to run.
    Nop(_) => 1, true;
    // Runs the interpreter's code, which traps.
    Bpt(_) => 1, false;
    // Nothing to run.
    Depbar(_) => 1, true;
    Atomg(_) => 16, false;
    Red(_) => 12, false;
    Atoms(_) => 16, false;
    Shfl(_) => 16, false;
    Vote(_) => 6, false;
    Cs2r(_) => 4, false;
    // The others call the routine.
    Un(o) => 4, matches!(o.f, UnFn::Ineg | UnFn::Not | UnFn::FNeg | UnFn::FAbs);
    Bin(o) => 4, func::bin_inline(o.f, o.b);
    Tern(o) => 6, matches!(o.f, TernFn::Imad | TernFn::Movc | TernFn::BitSelect | TernFn::Mad);
    LdBuf(_) => 12, false;
    StBuf(_) => 12, false;
    LdTex(_) => 16, false;
    Sample(_) => 24, false;
    Deriv(_) => 8, false;
    StTex(_) => 12, false;
    Atom(_) => 12, false;
    Info(_) => 8, false;
    Table(_) => 12, false;
    I2f(_) => convert::ROUTINE_WEIGHT, false;
    F2i(_) => convert::ROUTINE_WEIGHT, false;
    F2f(_) => convert::ROUTINE_WEIGHT, false;
    I2i(_) => convert::ROUTINE_WEIGHT, false;
    Dadd(_) => convert::ROUTINE_WEIGHT, false;
    Dmul(_) => convert::ROUTINE_WEIGHT, false;
    Dfma(_) => convert::ROUTINE_WEIGHT, false;
    Dmnmx(_) => convert::ROUTINE_WEIGHT, false;
    Dsetp(_) => convert::ROUTINE_WEIGHT, false;
    Dset(_) => convert::ROUTINE_WEIGHT, false;
    B2r(_) => 4, false;
}

macro_rules! cost_dispatch {
    ($($v:ident($s:ident),)*) => {
        /// The op's compile weight, from its line of the table.
        pub(in crate::jit) fn op_weight(op: &Op) -> u32 {
            match op {
                $(Op::$v(o) => Cost::weight(o),)*
            }
        }

        /// Whether the op may run in a strip loop, from its line of the table.
        pub(super) fn op_strip(op: &Op) -> bool {
            match op {
                $(Op::$v(o) => Cost::strip(o),)*
            }
        }
    };
}
crate::for_each_op!(cost_dispatch);
