//! What each per-lane function of [`UnFn`], [`BinFn`] and [`TernFn`] computes: the one definition
//! both engines use (the interpreter calls these; the JIT inlines the simple ones and calls
//! these for the rest). The float and DXBC integer rules are in [`super::d3d`].

use super::d3d;
use crate::ir::{BinFn, TernFn, UnFn};

/// `f(a)`.
pub fn un(f: UnFn, a: u32) -> u32 {
    match f {
        UnFn::Ineg => a.wrapping_neg(),
        UnFn::Not => !a,
        UnFn::Bfrev => d3d::bfrev(a),
        UnFn::CountBits => d3d::countbits(a),
        UnFn::FirstBitHi => d3d::firstbit_hi(a),
        UnFn::FirstBitLo => d3d::firstbit_lo(a),
        UnFn::FirstBitShi => d3d::firstbit_shi(a),
        UnFn::Itof => d3d::itof(a),
        UnFn::Utof => d3d::utof(a),
        UnFn::Ftoi => d3d::ftoi(a),
        UnFn::Ftou => d3d::ftou(a),
        UnFn::F32ToF16 => d3d::f32tof16(a),
        UnFn::F16ToF32 => d3d::f16tof32(a),
        UnFn::Frc => d3d::frc(a),
        UnFn::RoundNe => d3d::round_ne(a),
        UnFn::RoundNi => d3d::round_ni(a),
        UnFn::RoundPi => d3d::round_pi(a),
        UnFn::RoundZ => d3d::round_z(a),
        UnFn::Sqrt => d3d::sqrt(a),
        UnFn::Rsq => d3d::rsq(a),
        UnFn::Rcp => d3d::rcp(a),
        UnFn::Exp => d3d::exp(a),
        UnFn::Log => d3d::log(a),
        UnFn::Sin => d3d::sincos(a).0,
        UnFn::Cos => d3d::sincos(a).1,
        UnFn::Sat => d3d::sat(a),
        UnFn::FNeg => a ^ 0x8000_0000,
        UnFn::FAbs => a & 0x7fff_ffff,
    }
}

/// All ones for true.
fn mask(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

/// `f(a, b)`.
pub fn bin(f: BinFn, a: u32, b: u32) -> u32 {
    match f {
        BinFn::Iadd => a.wrapping_add(b),
        BinFn::MulLo => a.wrapping_mul(b),
        BinFn::ImulHi => d3d::imul(a, b).0,
        BinFn::UmulHi => d3d::umul(a, b).0,
        BinFn::Udiv => d3d::udiv(a, b).0,
        BinFn::Urem => d3d::udiv(a, b).1,
        BinFn::AddCarry => d3d::uaddc(a, b).1,
        BinFn::SubBorrow => d3d::usubb(a, b).1,
        BinFn::Isub => a.wrapping_sub(b),
        BinFn::Ishl => d3d::ishl(a, b),
        BinFn::Ishr => d3d::ishr(a, b),
        BinFn::Ushr => d3d::ushr(a, b),
        BinFn::And => a & b,
        BinFn::Or => a | b,
        BinFn::Xor => a ^ b,
        BinFn::Imin => (a as i32).min(b as i32) as u32,
        BinFn::Imax => (a as i32).max(b as i32) as u32,
        BinFn::Umin => a.min(b),
        BinFn::Umax => a.max(b),
        BinFn::Ieq => mask(a == b),
        BinFn::Ine => mask(a != b),
        BinFn::Ilt => mask((a as i32) < (b as i32)),
        BinFn::Ige => mask((a as i32) >= (b as i32)),
        BinFn::Ult => mask(a < b),
        BinFn::Uge => mask(a >= b),
        BinFn::BfMask => ((1u32 << (a & 31)) - 1) << (b & 31),
        BinFn::Add => d3d::add(a, b),
        BinFn::Mul => d3d::mul(a, b),
        BinFn::Div => d3d::div(a, b),
        BinFn::Min => d3d::min(a, b),
        BinFn::Max => d3d::max(a, b),
        BinFn::Eq => d3d::eq(a, b),
        BinFn::Ne => d3d::ne(a, b),
        BinFn::Lt => d3d::lt(a, b),
        BinFn::Ge => d3d::ge(a, b),
    }
}

/// `f(a, b, c)`.
pub fn tern(f: TernFn, a: u32, b: u32, c: u32) -> u32 {
    match f {
        TernFn::Imad => a.wrapping_mul(b).wrapping_add(c),
        TernFn::Mad => d3d::mad(a, b, c),
        TernFn::Movc => {
            if a != 0 {
                b
            } else {
                c
            }
        }
        TernFn::BitSelect => (b & a) | (c & !a),
        TernFn::Ubfe => d3d::ubfe(a, b, c),
        TernFn::Ibfe => d3d::ibfe(a, b, c),
        TernFn::Msad => d3d::msad(a, b, c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfi_is_mask_shift_select() {
        // D3D's bfi(width, offset, insert, base), as the lowering builds it from three functions.
        for (w, o, ins, base) in [
            (8, 4, 0xab, 0xffff_ffff),
            (0, 7, 0xffff_ffff, 0x1234_5678),
            (31, 1, 0xffff_ffff, 0),
            (4, 30, 0xf, 0),
            (36, 33, 0x5, 0xf0f0_f0f0),
        ] {
            let m = bin(BinFn::BfMask, w, o);
            let s = bin(BinFn::Ishl, ins, o);
            assert_eq!(
                tern(TernFn::BitSelect, m, s, base),
                d3d::bfi(w, o, ins, base),
                "bfi({w}, {o}, {ins:#x}, {base:#x})"
            );
        }
        assert_eq!(bin(BinFn::BfMask, 8, 4), 0xff0);
        assert_eq!(bin(BinFn::BfMask, 4, 30), 0xc000_0000);
    }

    #[test]
    fn integer_functions() {
        assert_eq!(bin(BinFn::Ilt, (-1i32) as u32, 0), u32::MAX);
        assert_eq!(bin(BinFn::Ult, u32::MAX, 0), 0);
        assert_eq!(bin(BinFn::Imin, (-5i32) as u32, 3), (-5i32) as u32);
        assert_eq!(bin(BinFn::Umin, (-5i32) as u32, 3), 3);
        assert_eq!(bin(BinFn::ImulHi, (-2i32) as u32, 3), u32::MAX);
        assert_eq!(bin(BinFn::UmulHi, 0x8000_0000, 4), 2);
        assert_eq!(bin(BinFn::MulLo, 0x8000_0001, 3), 0x8000_0003);
        assert_eq!(bin(BinFn::AddCarry, u32::MAX, 1), 1);
        assert_eq!(bin(BinFn::SubBorrow, 0, 1), 1);
        assert_eq!(tern(TernFn::Imad, 0x1_0000, 0x1_0000, 7), 7);
        assert_eq!(tern(TernFn::Movc, 0x8000_0000, 1, 2), 1);
        assert_eq!(tern(TernFn::Movc, 0, 1, 2), 2);
        assert_eq!(un(UnFn::FNeg, 0), 0x8000_0000);
        assert_eq!(un(UnFn::FAbs, 0xff80_0000), 0x7f80_0000);
    }
}
