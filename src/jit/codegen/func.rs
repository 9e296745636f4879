//! The per-lane function ops ([`Un`], [`Bin`], [`Tern`]): the integer and bitwise functions and
//! the float add, mul, div, mad and compares (with D3D's flush and NaN rules) inline as vector
//! code, each exactly what `crate::semantics::func` computes (a differential test runs every
//! function under both engines on edge values); the rest (transcendentals, conversions,
//! rounding, min/max, `_sat`, bit scans, the two-result halves, shifts by a register) call one
//! routine per arity that applies the same definition to all 32 lanes, without flushing
//! registers (`jit::view`).

use super::{Lower, Row, Tx};
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Value};

/// The D3D float rules of `crate::semantics::d3d` in vector code: inputs flushed (a denormal
/// becomes a zero of its sign), results flushed and NaN made canonical (0x7fc00000).
impl Tx<'_, '_, '_> {
    fn flush_denormals(&mut self, x: &Row) -> Row {
        let exp = self.splat(0x7f80_0000);
        let sign = self.splat(0x8000_0000);
        let zero = self.splat(0);
        self.each([x, &exp, &sign, &zero], |t, [x, exp, sign, zero]| {
            let e = t.b.ins().band(x, exp);
            let denorm = t.b.ins().icmp(IntCC::Equal, e, zero);
            let signed_zero = t.b.ins().band(x, sign);
            t.b.ins().bitselect(denorm, signed_zero, x)
        })
    }

    fn as_f32(&mut self, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(types::F32X4, le, x)
    }

    fn as_i32(&mut self, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(types::I32X4, le, x)
    }

    /// `fout(op(fin(a), fin(b)))`.
    fn float_op(
        &mut self,
        a: &Row,
        b: &Row,
        op: fn(&mut cranelift_frontend::FunctionBuilder<'_>, Value, Value) -> Value,
    ) -> Row {
        let a = self.flush_denormals(a);
        let b = self.flush_denormals(b);
        let nan = self.splat(0x7fc0_0000);
        let r: Row = self.each([&a, &b, &nan], |t, [a, b, nan]| {
            let x = t.as_f32(a);
            let y = t.as_f32(b);
            let r = op(t.b, x, y);
            let is_nan = t.b.ins().fcmp(FloatCC::Unordered, r, r);
            let is_nan = t.as_i32(is_nan);
            let bits = t.as_i32(r);
            t.b.ins().bitselect(is_nan, nan, bits)
        });
        self.flush_denormals(&r)
    }

    /// A comparison of flushed inputs: all ones where it holds.
    fn float_cmp(&mut self, cc: FloatCC, a: &Row, b: &Row) -> Row {
        let a = self.flush_denormals(a);
        let b = self.flush_denormals(b);
        self.each([&a, &b], |t, [a, b]| {
            let x = t.as_f32(a);
            let y = t.as_f32(b);
            let m = t.b.ins().fcmp(cc, x, y);
            t.as_i32(m)
        })
    }
}

/// Whether the JIT lowers `f` inline (a shift only by a constant amount).
pub(super) fn bin_inline(f: BinFn, b: Src) -> bool {
    match f {
        BinFn::Iadd
        | BinFn::Isub
        | BinFn::MulLo
        | BinFn::And
        | BinFn::Or
        | BinFn::Xor
        | BinFn::Imin
        | BinFn::Imax
        | BinFn::Umin
        | BinFn::Umax
        | BinFn::Ieq
        | BinFn::Ine
        | BinFn::Ilt
        | BinFn::Ige
        | BinFn::Ult
        | BinFn::Uge
        | BinFn::Add
        | BinFn::Mul
        | BinFn::Div
        | BinFn::Eq
        | BinFn::Ne
        | BinFn::Lt
        | BinFn::Ge => true,
        BinFn::Ishl | BinFn::Ishr | BinFn::Ushr => b.imm().is_some(),
        BinFn::ImulHi
        | BinFn::UmulHi
        | BinFn::Udiv
        | BinFn::Urem
        | BinFn::AddCarry
        | BinFn::SubBorrow
        | BinFn::BfMask
        | BinFn::Min
        | BinFn::Max => false,
    }
}

impl Lower for Bin {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        if !bin_inline(self.f, self.b) {
            let f = tx.helper(Helper::Bin);
            tx.func_routine(
                f,
                self as *const Bin as *const u8,
                &[self.a, self.b],
                self.d,
                inst,
            );
            return true;
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.src(self.a);
        let r: Row = match (self.f, self.b) {
            (BinFn::Ishl, Src::Imm(s) | Src::Imm32(s)) => tx.shl_c(&a, s & 31),
            (BinFn::Ushr, Src::Imm(s) | Src::Imm32(s)) => tx.ushr_c(&a, s & 31),
            (BinFn::Ishr, Src::Imm(s) | Src::Imm32(s)) => tx.sshr_c(&a, s & 31),
            (f, b) => {
                let b = tx.src(b);
                let cmp = |tx: &mut Tx<'_, '_, '_>, cc| tx.cmp(cc, &a, &b);
                match f {
                    BinFn::Iadd => tx.bin(&a, &b, |b, x, y| b.ins().iadd(x, y)),
                    BinFn::Isub => tx.bin(&a, &b, |b, x, y| b.ins().isub(x, y)),
                    BinFn::MulLo => tx.bin(&a, &b, |b, x, y| b.ins().imul(x, y)),
                    BinFn::And => tx.bin(&a, &b, |b, x, y| b.ins().band(x, y)),
                    BinFn::Or => tx.bin(&a, &b, |b, x, y| b.ins().bor(x, y)),
                    BinFn::Xor => tx.bin(&a, &b, |b, x, y| b.ins().bxor(x, y)),
                    BinFn::Imin => tx.bin(&a, &b, |b, x, y| b.ins().smin(x, y)),
                    BinFn::Imax => tx.bin(&a, &b, |b, x, y| b.ins().smax(x, y)),
                    BinFn::Umin => tx.bin(&a, &b, |b, x, y| b.ins().umin(x, y)),
                    BinFn::Umax => tx.bin(&a, &b, |b, x, y| b.ins().umax(x, y)),
                    // Vector compares give all ones or 0 per lane: D3D's true and false.
                    BinFn::Ieq => cmp(tx, IntCC::Equal),
                    BinFn::Ine => cmp(tx, IntCC::NotEqual),
                    BinFn::Ilt => cmp(tx, IntCC::SignedLessThan),
                    BinFn::Ige => cmp(tx, IntCC::SignedGreaterThanOrEqual),
                    BinFn::Ult => cmp(tx, IntCC::UnsignedLessThan),
                    BinFn::Uge => cmp(tx, IntCC::UnsignedGreaterThanOrEqual),
                    BinFn::Add => tx.float_op(&a, &b, |b, x, y| b.ins().fadd(x, y)),
                    BinFn::Mul => tx.float_op(&a, &b, |b, x, y| b.ins().fmul(x, y)),
                    BinFn::Div => tx.float_op(&a, &b, |b, x, y| b.ins().fdiv(x, y)),
                    BinFn::Eq => tx.float_cmp(FloatCC::Equal, &a, &b),
                    // True when either is NaN, as D3D's `ne`.
                    BinFn::Ne => tx.float_cmp(FloatCC::NotEqual, &a, &b),
                    BinFn::Lt => tx.float_cmp(FloatCC::LessThan, &a, &b),
                    BinFn::Ge => tx.float_cmp(FloatCC::GreaterThanOrEqual, &a, &b),
                    BinFn::Ishl
                    | BinFn::Ishr
                    | BinFn::Ushr
                    | BinFn::ImulHi
                    | BinFn::UmulHi
                    | BinFn::Udiv
                    | BinFn::Urem
                    | BinFn::AddCarry
                    | BinFn::SubBorrow
                    | BinFn::BfMask
                    | BinFn::Min
                    | BinFn::Max => unreachable!("bin_inline said no"),
                }
            }
        };
        tx.set_reg(self.d, r, m);
        true
    }
}

impl Lower for Un {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let bits = match self.f {
            UnFn::Ineg | UnFn::Not => None,
            UnFn::FNeg => Some(0x8000_0000u32),
            UnFn::FAbs => Some(0x7fff_ffff),
            UnFn::Bfrev
            | UnFn::CountBits
            | UnFn::FirstBitHi
            | UnFn::FirstBitLo
            | UnFn::FirstBitShi
            | UnFn::Itof
            | UnFn::Utof
            | UnFn::Ftoi
            | UnFn::Ftou
            | UnFn::F32ToF16
            | UnFn::F16ToF32
            | UnFn::Frc
            | UnFn::RoundNe
            | UnFn::RoundNi
            | UnFn::RoundPi
            | UnFn::RoundZ
            | UnFn::Sqrt
            | UnFn::Rsq
            | UnFn::Rcp
            | UnFn::Exp
            | UnFn::Log
            | UnFn::Sin
            | UnFn::Cos
            | UnFn::Sat => {
                let f = tx.helper(Helper::Un);
                tx.func_routine(f, self as *const Un as *const u8, &[self.a], self.d, inst);
                return true;
            }
        };
        let m = tx.guard_mask(inst.guard);
        let a = tx.src(self.a);
        let r = match (self.f, bits) {
            (UnFn::Ineg, _) => tx.un(&a, |b, x| b.ins().ineg(x)),
            (UnFn::Not, _) => tx.un(&a, |b, x| b.ins().bnot(x)),
            // The float sign modifiers only flip or clear the sign bit (no flush).
            (UnFn::FNeg, Some(k)) => {
                let k = tx.splat(k);
                tx.bin(&a, &k, |b, x, y| b.ins().bxor(x, y))
            }
            (_, Some(k)) => {
                let k = tx.splat(k);
                tx.bin(&a, &k, |b, x, y| b.ins().band(x, y))
            }
            (_, None) => unreachable!("only Ineg and Not have no constant"),
        };
        tx.set_reg(self.d, r, m);
        true
    }
}

impl Lower for Tern {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        match self.f {
            TernFn::Imad | TernFn::Movc | TernFn::BitSelect | TernFn::Mad => {}
            TernFn::Ubfe | TernFn::Ibfe | TernFn::Msad => {
                let f = tx.helper(Helper::Tern);
                let srcs = [self.a, self.b, self.c];
                tx.func_routine(f, self as *const Tern as *const u8, &srcs, self.d, inst);
                return true;
            }
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.src(self.a);
        let b = tx.src(self.b);
        let c = tx.src(self.c);
        let r: Row = match self.f {
            TernFn::Imad => {
                let p = tx.bin(&a, &b, |b, x, y| b.ins().imul(x, y));
                tx.bin(&p, &c, |b, x, y| b.ins().iadd(x, y))
            }
            TernFn::Movc => {
                // All ones where `a` is not zero, then a bitwise select.
                let z = tx.splat(0);
                let on = tx.cmp(IntCC::NotEqual, &a, &z);
                tx.select_rows(&on, &b, &c)
            }
            TernFn::BitSelect => tx.select_rows(&a, &b, &c),
            // Unfused: the product rounded, flushed and made canonical, then the sum.
            TernFn::Mad => {
                let p = tx.float_op(&a, &b, |b, x, y| b.ins().fmul(x, y));
                tx.float_op(&p, &c, |b, x, y| b.ins().fadd(x, y))
            }
            TernFn::Ubfe | TernFn::Ibfe | TernFn::Msad => {
                unreachable!("delegated above")
            }
        };
        tx.set_reg(self.d, r, m);
        true
    }
}
