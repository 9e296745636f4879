//! The per-lane function ops ([`Un`], [`Bin`], [`Tern`]): the integer and bitwise functions
//! inline as vector code, each exactly what `crate::semantics::func` computes (a differential
//! test runs every function under both engines on edge values); the float functions, with their
//! flush and NaN rules, and the rarer integer ones run with the interpreter's code for now.

use super::{Lower, Row, Tx};
use crate::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::InstBuilder;

/// Whether the JIT lowers `f` inline (a shift only by a constant amount).
fn bin_inline(f: BinFn, b: Src) -> bool {
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
        | BinFn::Uge => true,
        BinFn::Ishl | BinFn::Ishr | BinFn::Ushr => matches!(b, Src::Imm(_)),
        BinFn::ImulHi
        | BinFn::UmulHi
        | BinFn::Udiv
        | BinFn::Urem
        | BinFn::AddCarry
        | BinFn::SubBorrow
        | BinFn::BfMask
        | BinFn::Add
        | BinFn::Mul
        | BinFn::Div
        | BinFn::Min
        | BinFn::Max
        | BinFn::Eq
        | BinFn::Ne
        | BinFn::Lt
        | BinFn::Ge => false,
    }
}

impl Lower for Bin {
    fn weight(&self) -> u32 {
        4
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        if !bin_inline(self.f, self.b) {
            return false;
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.src(self.a);
        let r: Row = match (self.f, self.b) {
            (BinFn::Ishl, Src::Imm(s)) => tx.shl_c(&a, s & 31),
            (BinFn::Ushr, Src::Imm(s)) => tx.ushr_c(&a, s & 31),
            (BinFn::Ishr, Src::Imm(s)) => tx.sshr_c(&a, s & 31),
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
                    | BinFn::Add
                    | BinFn::Mul
                    | BinFn::Div
                    | BinFn::Min
                    | BinFn::Max
                    | BinFn::Eq
                    | BinFn::Ne
                    | BinFn::Lt
                    | BinFn::Ge => unreachable!("bin_inline said no"),
                }
            }
        };
        tx.set_reg(self.d, r, m);
        true
    }
}

impl Lower for Un {
    fn weight(&self) -> u32 {
        4
    }

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
            | UnFn::Sat => return false,
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
    fn weight(&self) -> u32 {
        6
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        match self.f {
            TernFn::Imad | TernFn::Movc | TernFn::BitSelect => {}
            TernFn::Mad | TernFn::Ubfe | TernFn::Ibfe | TernFn::Msad => return false,
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
                std::array::from_fn(|k| tx.b.ins().bitselect(on[k], b[k], c[k]))
            }
            TernFn::BitSelect => std::array::from_fn(|k| tx.b.ins().bitselect(a[k], b[k], c[k])),
            TernFn::Mad | TernFn::Ubfe | TernFn::Ibfe | TernFn::Msad => {
                unreachable!("delegated above")
            }
        };
        tx.set_reg(self.d, r, m);
        true
    }
}
