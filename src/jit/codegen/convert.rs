//! Conversions and the binary64 instructions (docs/semantics.md §29).
//!
//! Written as vector code where Cranelift computes exactly what `crate::semantics::convert`
//! defines: DADD and DMUL in round-to-nearest (as `f64x2`, with the NaN rule applied
//! explicitly, so the host's NaN choices never show), I2F.F32.S32 in round-to-nearest
//! (`fcvt_from_sint`), F2I.S32.F32 in every rounding (`nearest`/`floor`/`ceil`, then
//! `fcvt_to_sint_sat`, which saturates and gives 0 for NaN, as the rule says). Every other form
//! (directed rounding, 64-bit integers, binary16, DFMA, DMNMX, DSETP, DSET, I2I) stores its
//! operands to an [`FpArea`] and calls the one shared routine `jit::fp::warpjit_jit_fp`, which
//! applies the interpreter's definition to the 32 lanes without flushing registers.

use super::super::fp::FpArea;
use super::{flags, Lower, Row, Tx, V};
use crate::ir::*;
use crate::jit::helper::Helper;
use crate::semantics::convert::{Imm64, CANONICAL_NAN64};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{
    types, Endianness, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use std::mem::offset_of;

/// The compile weight of a form through the routine (operand stores, a call, result loads).
pub(super) const ROUTINE_WEIGHT: u32 = 10;

impl Tx<'_, '_, '_> {
    /// A source of `regs` registers as (low row, high row).
    pub(super) fn wide_rows(&mut self, s: Src, regs: u8, kind: Imm64) -> (Row, Row) {
        match (s, regs) {
            (Src::Imm(v) | Src::Imm32(v), 2) => match kind {
                Imm64::High => (self.splat(0), self.splat(v)),
                Imm64::Sext => (self.splat(v), self.splat(((v as i32) >> 31) as u32)),
            },
            (Src::Reg(r), 2) => (self.reg(r), self.reg(r.offset(1))),
            (Src::Const(c), 2) => {
                let hi = ConstRef {
                    bank: c.bank,
                    offset: c.offset.wrapping_add(4),
                };
                (self.src(s), self.src(Src::Const(hi)))
            }
            _ => {
                let lo = self.src(s);
                (lo, self.splat(0))
            }
        }
    }

    fn fp_store(&mut self, area: Value, at: usize, row: &Row) {
        for (k, v) in row.iter().enumerate() {
            self.b.ins().store(flags(), *v, area, (at + 16 * k) as i32);
        }
    }

    fn fp_load(&mut self, area: Value, at: usize) -> Row {
        std::array::from_fn(|k| self.b.ins().load(V, flags(), area, (at + 16 * k) as i32))
    }

    /// Runs `inst` (one of this family) through `warpjit_jit_fp` with the given operand rows;
    /// returns the result's (low, high) rows.
    fn fp_routine(
        &mut self,
        inst: &Inst,
        a: Option<(Row, Row)>,
        b: (Row, Row),
        c: Option<(Row, Row)>,
        p: Option<PredSrc>,
    ) -> (Row, Row) {
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            std::mem::size_of::<FpArea>() as u32,
            4,
        ));
        let area = self.b.ins().stack_addr(self.env.ptr, slot, 0);
        if let Some((lo, hi)) = a {
            self.fp_store(area, offset_of!(FpArea, a_lo), &lo);
            self.fp_store(area, offset_of!(FpArea, a_hi), &hi);
        }
        self.fp_store(area, offset_of!(FpArea, b_lo), &b.0);
        self.fp_store(area, offset_of!(FpArea, b_hi), &b.1);
        if let Some((lo, hi)) = c {
            self.fp_store(area, offset_of!(FpArea, c_lo), &lo);
            self.fp_store(area, offset_of!(FpArea, c_hi), &hi);
        }
        if let Some(p) = p {
            let pm = self.pred_src(p);
            let row = self.mask_vec(pm);
            self.fp_store(area, offset_of!(FpArea, p), &row);
        }
        let op = self
            .b
            .ins()
            .iconst(self.env.ptr, &inst.op as *const Op as i64);
        let m = self.active;
        let f = self.helper(Helper::Fp);
        self.b.ins().call(f, &[self.jcx, op, m, area]);
        (
            self.fp_load(area, offset_of!(FpArea, out_lo)),
            self.fp_load(area, offset_of!(FpArea, out_hi)),
        )
    }

    /// Writes a result of `regs` registers.
    fn put_wide(&mut self, d: Reg, regs: u8, r: (Row, Row), m: Value) {
        self.set_reg(d, r.0, m);
        if regs == 2 {
            self.set_reg(d.offset(1), r.1, m);
        }
    }

    /// `|x|` then `-x` on the sign bit of each lane of `hi` (the high words of binary64 values,
    /// or binary32 values).
    fn sign_mods(&mut self, hi: Row, neg: bool, abs: bool) -> Row {
        let hi = if abs {
            let k = self.splat(0x7fff_ffff);
            self.bin(&hi, &k, |b, x, y| b.ins().band(x, y))
        } else {
            hi
        };
        if neg {
            let k = self.splat(0x8000_0000);
            self.bin(&hi, &k, |b, x, y| b.ins().bxor(x, y))
        } else {
            hi
        }
    }

    /// `ieee::flush32` on each lane: a subnormal binary32 becomes a zero of its sign.
    fn flush_denormals_f32(&mut self, x: &Row) -> Row {
        let exp = self.splat(0x7f80_0000);
        let sign = self.splat(0x8000_0000);
        let zero = self.splat(0);
        std::array::from_fn(|k| {
            let e = self.b.ins().band(x[k], exp[k]);
            let sub = self
                .b
                .ins()
                .icmp(cranelift_codegen::ir::condcodes::IntCC::Equal, e, zero[k]);
            let z = self.b.ins().band(x[k], sign[k]);
            self.b.ins().bitselect(sub, z, x[k])
        })
    }

    fn bytes(&mut self, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(types::I8X16, le, x)
    }

    /// Interleaves 32-bit lanes of `x` and `y` by `lanes` (indices 0..8 over x then y).
    fn shuffle32(&mut self, x: Value, y: Value, lanes: [u8; 4]) -> Value {
        let (x, y) = (self.bytes(x), self.bytes(y));
        let r = self.shuffle_words(x, y, lanes);
        self.recast(V, r)
    }

    /// 32 binary64 lanes (low and high rows) as 16 `i64x2`-shaped `i32x4` values, lanes in order.
    fn interleave_pairs(&mut self, lo: &Row, hi: &Row) -> [Value; 16] {
        std::array::from_fn(|j| {
            let k = j / 2;
            let sel = if j % 2 == 0 {
                [0, 4, 1, 5]
            } else {
                [2, 6, 3, 7]
            };
            self.shuffle32(lo[k], hi[k], sel)
        })
    }

    /// The inverse of [`Tx::interleave_pairs`].
    fn split_pairs(&mut self, p: &[Value; 16]) -> (Row, Row) {
        let lo = std::array::from_fn(|k| self.shuffle32(p[2 * k], p[2 * k + 1], [0, 2, 4, 6]));
        let hi = std::array::from_fn(|k| self.shuffle32(p[2 * k], p[2 * k + 1], [1, 3, 5, 7]));
        (lo, hi)
    }

    fn i64x2_const(&mut self, v: u64) -> Value {
        let c = self.b.ins().iconst(types::I64, v as i64);
        self.b.ins().splat(types::I64X2, c)
    }

    /// DADD/DMUL in round-to-nearest as `f64x2` arithmetic, with
    /// `semantics::convert::nan_rule64` applied explicitly: the first NaN operand made quiet,
    /// else a NaN result made [`CANONICAL_NAN64`].
    fn d_arith(&mut self, a: (Row, Row), b: (Row, Row), nb_hi: Row, mul: bool) -> (Row, Row) {
        let pa = self.interleave_pairs(&a.0, &a.1);
        let pb = self.interleave_pairs(&b.0, &b.1);
        let pn = self.interleave_pairs(&b.0, &nb_hi);
        let quiet = self.i64x2_const(1 << 51);
        let canon = self.i64x2_const(CANONICAL_NAN64);
        let out: [Value; 16] = std::array::from_fn(|j| {
            let x = self.recast(types::F64X2, pa[j]);
            let y = self.recast(types::F64X2, pb[j]);
            let yn = self.recast(types::F64X2, pn[j]);
            let r = if mul {
                self.b.ins().fmul(x, yn)
            } else {
                self.b.ins().fadd(x, yn)
            };
            let nan_x = self.b.ins().fcmp(FloatCC::Unordered, x, x);
            let nan_y = self.b.ins().fcmp(FloatCC::Unordered, y, y);
            let nan_r = self.b.ins().fcmp(FloatCC::Unordered, r, r);
            let (nan_x, nan_y, nan_r) = (
                self.recast(types::I64X2, nan_x),
                self.recast(types::I64X2, nan_y),
                self.recast(types::I64X2, nan_r),
            );
            let xi = self.recast(types::I64X2, x);
            let yi = self.recast(types::I64X2, y);
            let ri = self.recast(types::I64X2, r);
            let qx = self.b.ins().bor(xi, quiet);
            let qy = self.b.ins().bor(yi, quiet);
            let v = self.b.ins().bitselect(nan_r, canon, ri);
            let v = self.b.ins().bitselect(nan_y, qy, v);
            let v = self.b.ins().bitselect(nan_x, qx, v);
            self.recast(V, v)
        });
        self.split_pairs(&out)
    }
}

impl Lower for I2f {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        if self.dst == FloatType::F32
            && self.src == IntType::S32
            && self.rnd == FpRound::Rn
            && !self.neg
            && !self.abs
        {
            // cvtdq2ps: exact in round-to-nearest.
            let b = tx.src(self.b);
            let r = tx.un(&b, |b, x| {
                let f = b.ins().fcvt_from_sint(types::F32X4, x);
                let le = MemFlagsData::new().with_endianness(Endianness::Little);
                b.ins().bitcast(V, le, f)
            });
            tx.set_reg(self.d, r, m);
            return true;
        }
        let b = tx.wide_rows(self.b, self.src.regs(), Imm64::Sext);
        let r = tx.fp_routine(inst, None, b, None, None);
        tx.put_wide(self.d, self.dst.regs(), r, m);
        true
    }
}

impl Lower for F2i {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        if self.src == FloatType::F32 && self.dst == IntType::S32 {
            let b = tx.src(self.b);
            let b = if self.ftz {
                tx.flush_denormals_f32(&b)
            } else {
                b
            };
            let b = tx.sign_mods(b, self.neg, self.abs);
            let rnd = self.rnd;
            let r = tx.un(&b, |b, x| {
                let le = MemFlagsData::new().with_endianness(Endianness::Little);
                let f = b.ins().bitcast(types::F32X4, le, x);
                let f = match rnd {
                    IntRound::Round => b.ins().nearest(f),
                    IntRound::Floor => b.ins().floor(f),
                    IntRound::Ceil => b.ins().ceil(f),
                    IntRound::Trunc => f,
                };
                // Saturating; NaN gives 0.
                b.ins().fcvt_to_sint_sat(V, f)
            });
            tx.set_reg(self.d, r, m);
            return true;
        }
        let b = tx.wide_rows(self.b, self.src.regs(), Imm64::High);
        let r = tx.fp_routine(inst, None, b, None, None);
        tx.put_wide(self.d, self.dst.regs(), r, m);
        true
    }
}

impl Lower for F2f {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let b = tx.wide_rows(self.b, self.src.regs(), Imm64::High);
        let r = tx.fp_routine(inst, None, b, None, None);
        tx.put_wide(self.d, self.dst.regs(), r, m);
        true
    }
}

impl Lower for I2i {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let b = tx.wide_rows(self.b, 1, Imm64::Sext);
        let r = tx.fp_routine(inst, None, b, None, None);
        tx.set_reg(self.d, r.0, m);
        let f = LogicCc {
            cc: self.cc,
            x: false,
        };
        tx.logic_out(m, &r.0, f, None, PredOut::None);
        true
    }
}

impl Lower for Dadd {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let a = tx.wide_rows(Src::Reg(self.a), 2, Imm64::High);
        let b = tx.wide_rows(self.b, 2, Imm64::High);
        let r = if self.rnd == FpRound::Rn {
            let a_hi = tx.sign_mods(a.1, self.ma.neg, self.ma.abs);
            let b_hi = tx.sign_mods(b.1, self.mb.neg, self.mb.abs);
            tx.d_arith((a.0, a_hi), (b.0, b_hi), b_hi, false)
        } else {
            tx.fp_routine(inst, Some(a), b, None, None)
        };
        tx.put_wide(self.d, 2, r, m);
        true
    }
}

impl Lower for Dmul {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let a = tx.wide_rows(Src::Reg(self.a), 2, Imm64::High);
        let b = tx.wide_rows(self.b, 2, Imm64::High);
        let r = if self.rnd == FpRound::Rn {
            let nb_hi = tx.sign_mods(b.1, self.neg, false);
            tx.d_arith(a, b, nb_hi, true)
        } else {
            tx.fp_routine(inst, Some(a), b, None, None)
        };
        tx.put_wide(self.d, 2, r, m);
        true
    }
}

impl Lower for Dfma {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let a = tx.wide_rows(Src::Reg(self.a), 2, Imm64::High);
        let b = tx.wide_rows(self.b, 2, Imm64::High);
        let c = tx.wide_rows(self.c, 2, Imm64::High);
        let r = tx.fp_routine(inst, Some(a), b, Some(c), None);
        tx.put_wide(self.d, 2, r, m);
        true
    }
}

impl Lower for Dmnmx {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let a = tx.wide_rows(Src::Reg(self.a), 2, Imm64::High);
        let b = tx.wide_rows(self.b, 2, Imm64::High);
        let r = tx.fp_routine(inst, Some(a), b, None, Some(self.p));
        tx.put_wide(self.d, 2, r, m);
        true
    }
}

impl Tx<'_, '_, '_> {
    /// The comparison mask of DSETP/DSET (through the routine).
    fn d_test(&mut self, inst: &Inst, a: Reg, b: Src) -> Value {
        let a = self.wide_rows(Src::Reg(a), 2, Imm64::High);
        let b = self.wide_rows(b, 2, Imm64::High);
        let r = self.fp_routine(inst, Some(a), b, None, None);
        self.lane_mask(&r.0)
    }
}

impl Lower for Dsetp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let t = tx.d_test(inst, self.a, self.b);
        let c = tx.pred_src(self.c);
        let p = tx.bop(self.bop, t, c);
        let nt = tx.b.ins().bnot(t);
        let q = tx.bop(self.bop, nt, c);
        tx.set_pred(self.p, m, p);
        tx.set_pred(self.q, m, q);
        true
    }
}

impl Lower for Dset {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let t = tx.d_test(inst, self.a, self.b);
        let c = tx.pred_src(self.c);
        let t = tx.bop(self.bop, t, c);
        let on = tx.mask_vec(t);
        let r = if self.bf {
            let one = tx.splat(0x3f80_0000);
            tx.bin(&on, &one, |b, x, y| b.ins().band(x, y))
        } else {
            on
        };
        tx.set_reg_cc(m, self.d, self.cc, &r);
        true
    }
}
