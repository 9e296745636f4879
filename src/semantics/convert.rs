//! The conversions (I2F, F2I, F2F, I2I) and the binary64 instructions (DADD, DMUL, DFMA,
//! DMNMX, DSETP, DSET) on one lane's values (docs/semantics.md §29).
//!
//! Operands are raw bits: a 64-bit operand as a `u64` (low word first in the register pair), a
//! narrower one in the low bits. The interpreter calls these functions for every lane; the JIT
//! mirrors some forms in vector code and runs the others through [`lane`] (one routine for all
//! of them); `jit::tests` compares both on edge values.

use super::ieee::{self, Rounding};
use crate::ir::*;
use rustc_apfloat::ieee::{Double, Half};
use rustc_apfloat::{Float, FloatConvert, Round};

/// The NaN a binary64 instruction produces when no operand is a NaN (an invalid operation such
/// as `inf - inf`, `0 * inf`), and DMNMX of two NaNs.
pub const CANONICAL_NAN64: u64 = 0xfff8_0000_0000_0000;

/// The NaN a conversion to binary16 produces.
pub const CANONICAL_NAN16: u64 = 0x7fff;

/// The result of a float-to-integer conversion of a NaN into 64 bits (signed or unsigned).
pub const NAN_TO_I64: u64 = 0x8000_0000_0000_0000;

const SIGN64: u64 = 1 << 63;
const QUIET64: u64 = 1 << 51;

/// What a 32-bit immediate means in a 64-bit slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imm64 {
    /// The high word of a binary64 (the low word is 0).
    High,
    /// A signed integer.
    Sext,
}

/// The 64-bit value of an immediate operand in a slot of `regs` registers.
pub fn imm_value(v: u32, regs: u8, kind: Imm64) -> u64 {
    match (regs, kind) {
        (2, Imm64::High) => (v as u64) << 32,
        (2, Imm64::Sext) => v as i32 as i64 as u64,
        _ => v as u64,
    }
}

/// The IEEE rounding of an IR rounding mode.
pub fn rounding(r: FpRound) -> Rounding {
    match r {
        FpRound::Rn => Rounding::Nearest,
        FpRound::Rm => Rounding::Down,
        FpRound::Rp => Rounding::Up,
        FpRound::Rz => Rounding::Zero,
    }
}

fn apround(r: FpRound) -> Round {
    match r {
        FpRound::Rn => Round::NearestTiesToEven,
        FpRound::Rm => Round::TowardNegative,
        FpRound::Rp => Round::TowardPositive,
        FpRound::Rz => Round::TowardZero,
    }
}

/// The sign bit of a float format.
pub fn sign_bit(t: FloatType) -> u64 {
    match t {
        FloatType::F16 => 1 << 15,
        FloatType::F32 => 1 << 31,
        FloatType::F64 => SIGN64,
    }
}

/// The source modifiers of a float operand: `|x|` clears the sign, then `-` flips it.
pub fn float_mods(x: u64, t: FloatType, neg: bool, abs: bool) -> u64 {
    let s = sign_bit(t);
    let x = if abs { x & !s } else { x };
    if neg {
        x ^ s
    } else {
        x
    }
}

/// The low `t.bits` of `raw` as an integer of type `t` (sign- or zero-extended).
pub fn int_value(raw: u64, t: IntType) -> i128 {
    let sh = 64 - t.bits as u32;
    if t.signed {
        ((raw << sh) as i64 >> sh) as i128
    } else {
        ((raw << sh) >> sh) as i128
    }
}

/// An integer of type `t` written to its register(s): 64 bits as they are, narrower types
/// sign- or zero-extended to 32 bits.
pub fn int_bits(v: i128, t: IntType) -> u64 {
    if t.bits == 64 {
        v as u64
    } else {
        let sh = 64 - t.bits as u32;
        let x = if t.signed {
            ((v as u64) << sh) as i64 >> sh
        } else {
            (((v as u64) << sh) >> sh) as i64
        };
        x as u64 & 0xffff_ffff
    }
}

/// The float `x` of format `t` widened exactly to binary64 (a NaN keeps its sign and its top
/// payload bits, quiet).
pub fn to_f64(x: u64, t: FloatType) -> u64 {
    match t {
        FloatType::F64 => x,
        // A NaN explicitly (the host's widening need not keep the payload).
        FloatType::F32 if ieee::is_nan32(x as u32) => {
            (x & 0x8000_0000) << 32 | 0x7ff0_0000_0000_0000 | (x & 0x7f_ffff) << 29
        }
        FloatType::F32 => ieee::f32_to_f64(x as u32),
        FloatType::F16 => {
            let mut loses = false;
            let v: Double = Half::from_bits((x & 0xffff) as u128)
                .convert(&mut loses)
                .value;
            v.to_bits() as u64
        }
    }
}

fn is_nan(x: u64, t: FloatType) -> bool {
    match t {
        FloatType::F16 => x & 0x7fff > 0x7c00,
        FloatType::F32 => ieee::is_nan32(x as u32),
        FloatType::F64 => ieee::is_nan64(x),
    }
}

/// `I2F`: the integer `raw` (of `op.src`) converted to `op.dst`, rounded by `op.rnd`.
pub fn i2f(op: &I2f, raw: u64) -> u64 {
    let mut v = int_value(raw >> (8 * op.sel), op.src);
    if op.abs {
        v = v.abs();
    }
    if op.neg {
        v = -v;
    }
    let r = rounding(op.rnd);
    match op.dst {
        FloatType::F16 => Half::from_i128_r(v, apround(op.rnd)).value.to_bits() as u64,
        FloatType::F32 => ieee::int_to_f32(v, r) as u64,
        FloatType::F64 => ieee::int_to_f64(v, r),
    }
}

/// `x` (binary64, not NaN) rounded to an integral binary64 by `r` (exact).
pub fn round_integral(x: u64, r: IntRound) -> u64 {
    let f = f64::from_bits(x);
    let v = match r {
        IntRound::Round => f.round_ties_even(),
        IntRound::Floor => f.floor(),
        IntRound::Ceil => f.ceil(),
        IntRound::Trunc => f.trunc(),
    };
    v.to_bits()
}

/// `F2I`: the float `raw` (of `op.src`) rounded to an integer by `op.rnd` and saturated to
/// `op.dst`'s range; NaN gives 0, or [`NAN_TO_I64`] for a 64-bit result. `.FTZ` flushes a
/// binary32 subnormal source to zero first.
pub fn f2i(op: &F2i, raw: u64) -> u64 {
    let mut x = float_mods(raw >> (8 * op.sel), op.src, op.neg, op.abs);
    if op.ftz && op.src == FloatType::F32 {
        x = ieee::flush32(x as u32) as u64;
    }
    if is_nan(x, op.src) {
        return if op.dst.bits == 64 { NAN_TO_I64 } else { 0 };
    }
    let v = f64::from_bits(round_integral(to_f64(x, op.src), op.rnd));
    // An integral binary64 converts exactly (`as` saturates beyond i128, far outside any range).
    let v = (v as i128).clamp(op.dst.min(), op.dst.max());
    int_bits(v, op.dst)
}

/// `F2F`: the float `raw` (of `op.src`) converted to `op.dst` (rounded by the mode), or
/// rounded to an integral value of its format; `.SAT` clamps to [+0, 1] (NaN gives +0); `.FTZ`
/// flushes binary32 subnormal sources and results. A NaN result is 0x7fffffff (binary32),
/// 0x7fff (binary16), or the source NaN widened and quiet (binary64).
pub fn f2f(op: &F2f, raw: u64) -> u64 {
    let mut x = float_mods(raw >> (8 * op.sel), op.src, op.neg, op.abs);
    if op.ftz && op.src == FloatType::F32 {
        x = ieee::flush32(x as u32) as u64;
    }
    let nan = is_nan(x, op.src);
    let r = if nan {
        match op.dst {
            FloatType::F16 => CANONICAL_NAN16,
            FloatType::F32 => ieee::CANONICAL_NAN32 as u64,
            FloatType::F64 => to_f64(x, op.src) | QUIET64,
        }
    } else {
        match op.rnd {
            F2fRound::Int(ir) => {
                // Within one format (the syntax and the decoder refuse others): the integral
                // binary64 is a value of the format, so narrowing it back is exact.
                let v = round_integral(to_f64(x, op.src), ir);
                narrow(v, op.dst, FpRound::Rn)
            }
            F2fRound::Fp(_) if op.src == op.dst => x,
            F2fRound::Fp(fr) => narrow(to_f64(x, op.src), op.dst, fr),
        }
    };
    let r = if op.sat { sat(r, op.dst) } else { r };
    if op.ftz && op.dst == FloatType::F32 {
        ieee::flush32(r as u32) as u64
    } else {
        r
    }
}

/// The binary64 `v` (not NaN) converted to `t`, rounded by `r`.
fn narrow(v: u64, t: FloatType, r: FpRound) -> u64 {
    match t {
        FloatType::F64 => v,
        FloatType::F32 => ieee::f64_to_f32(v, rounding(r)) as u64,
        FloatType::F16 => {
            let mut loses = false;
            let h: Half = Double::from_bits(v as u128)
                .convert_r(apround(r), &mut loses)
                .value;
            h.to_bits() as u64
        }
    }
}

/// `.SAT` of a float result: NaN and values below +0 (-0 included) give +0, values above 1
/// give 1.
fn sat(x: u64, t: FloatType) -> u64 {
    let one = match t {
        FloatType::F16 => 0x3c00,
        FloatType::F32 => 0x3f80_0000,
        FloatType::F64 => 0x3ff0_0000_0000_0000,
    };
    if is_nan(x, t) || x & sign_bit(t) != 0 {
        0
    } else if x > one {
        one
    } else {
        x
    }
}

/// `I2I`: the integer `raw` (of `op.src`) as `op.dst`, after `|x|` and `-` (exact); with
/// `.SAT` clamped to the destination's range, else its low bits; sign- or zero-extended.
pub fn i2i(op: &I2i, raw: u32) -> u32 {
    let mut v = int_value((raw >> (8 * op.sel)) as u64, op.src);
    if op.abs {
        v = v.abs();
    }
    if op.neg {
        v = -v;
    }
    if op.sat {
        v = v.clamp(op.dst.min(), op.dst.max());
    }
    int_bits(v, op.dst) as u32
}

/// A binary64 operand's modifiers (`|x|`, then `-`).
pub fn dmods(x: u64, m: FMod) -> u64 {
    float_mods(x, FloatType::F64, m.neg, m.abs)
}

/// The NaN rule of the binary64 arithmetic: the first NaN operand, quiet; else a NaN result
/// (an invalid operation) is [`CANONICAL_NAN64`]; else the result.
pub fn nan_rule64(ops: &[u64], r: u64) -> u64 {
    for &x in ops {
        if ieee::is_nan64(x) {
            return x | QUIET64;
        }
    }
    if ieee::is_nan64(r) {
        CANONICAL_NAN64
    } else {
        r
    }
}

/// `DADD`.
pub fn dadd(op: &Dadd, a: u64, b: u64) -> u64 {
    let (a, b) = (dmods(a, op.ma), dmods(b, op.mb));
    nan_rule64(&[a, b], ieee::add64(a, b, rounding(op.rnd)))
}

/// `DMUL` (the negation of the product flips the sign of Sb; NaNs propagate as read).
pub fn dmul(op: &Dmul, a: u64, b: u64) -> u64 {
    let nb = if op.neg { b ^ SIGN64 } else { b };
    nan_rule64(&[a, b], ieee::mul64(a, nb, rounding(op.rnd)))
}

/// `DFMA`: `a * b + c` rounded once.
pub fn dfma(op: &Dfma, a: u64, b: u64, c: u64) -> u64 {
    let nb = if op.neg_ab { b ^ SIGN64 } else { b };
    let nc = if op.neg_c { c ^ SIGN64 } else { c };
    nan_rule64(&[a, b, c], ieee::fma64(a, nb, nc, rounding(op.rnd)))
}

/// A key that orders non-NaN binary64 values as numbers, with -0 below +0.
fn order_key(x: u64) -> i64 {
    if x & SIGN64 != 0 {
        -((x & !SIGN64) as i64) - 1
    } else {
        x as i64
    }
}

/// `DMNMX`: the minimum (`min`) or maximum; a NaN operand loses to a number, two NaNs give
/// [`CANONICAL_NAN64`]; -0 is below +0.
pub fn dmnmx(op: &Dmnmx, a: u64, b: u64, min: bool) -> u64 {
    let (a, b) = (dmods(a, op.ma), dmods(b, op.mb));
    match (ieee::is_nan64(a), ieee::is_nan64(b)) {
        (true, true) => CANONICAL_NAN64,
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let a_below = order_key(a) < order_key(b);
            if a_below == min {
                a
            } else {
                b
            }
        }
    }
}

/// A float comparison of two binary64 values (after their modifiers): the comparisons of
/// [`super::float::float_test`].
pub fn dcmp(cmp: FCmp, a: u64, b: u64) -> bool {
    super::float::float_test(cmp, f64::from_bits(a), f64::from_bits(b))
}

/// `DSETP`/`DSET`'s comparison of raw operands, modifiers applied.
pub fn dtest(cmp: FCmp, ma: FMod, a: u64, mb: FMod, b: u64) -> bool {
    dcmp(cmp, dmods(a, ma), dmods(b, mb))
}

/// DSET's result word for a combined test.
pub fn dset_word(bf: bool, t: bool) -> u32 {
    match (t, bf) {
        (false, _) => 0,
        (true, true) => 0x3f80_0000,
        (true, false) => u32::MAX,
    }
}

/// One lane of any op of this family, on 64-bit operands: `a`, `b`, `c` as the op reads them
/// (the source of a conversion is `b`), `p` DMNMX's predicate. DSETP and DSET give their
/// comparison (1 or 0) before the combination with Pp. The JIT's shared routine calls this;
/// other ops give 0.
pub fn lane(op: &Op, a: u64, b: u64, c: u64, p: bool) -> u64 {
    match op {
        Op::I2f(o) => i2f(o, b),
        Op::F2i(o) => f2i(o, b),
        Op::F2f(o) => f2f(o, b),
        Op::I2i(o) => i2i(o, b as u32) as u64,
        Op::Dadd(o) => dadd(o, a, b),
        Op::Dmul(o) => dmul(o, a, b),
        Op::Dfma(o) => dfma(o, a, b, c),
        Op::Dmnmx(o) => dmnmx(o, a, b, p),
        Op::Dsetp(o) => dtest(o.cmp, o.ma, a, o.mb, b) as u64,
        Op::Dset(o) => dtest(o.cmp, o.ma, a, o.mb, b) as u64,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f2i_op(dst: IntType, src: FloatType, rnd: IntRound) -> F2i {
        F2i {
            d: Reg(0),
            sel: 0,
            ftz: false,
            dst,
            src,
            rnd,
            neg: false,
            abs: false,
            b: Src::Reg(Reg(0)),
        }
    }

    #[test]
    fn float_to_integer_rounds_saturates_and_zeroes_nan() {
        let s32 = f2i_op(IntType::S32, FloatType::F32, IntRound::Round);
        // 2.5 rounds to even (2), -2.5 to -2; 3.5 to 4.
        assert_eq!(f2i(&s32, 0x4020_0000), 2);
        assert_eq!(f2i(&s32, 0xc020_0000), 0xffff_fffe);
        assert_eq!(f2i(&s32, 0x4060_0000), 4);
        // 2^31 saturates to 0x7fffffff, -2^31 is exact, -inf saturates, NaN is 0.
        assert_eq!(f2i(&s32, 0x4f00_0000), 0x7fff_ffff);
        assert_eq!(f2i(&s32, 0xcf00_0000), 0x8000_0000);
        assert_eq!(f2i(&s32, 0xff80_0000), 0x8000_0000);
        assert_eq!(f2i(&s32, 0x7fc0_0000), 0);
        // Unsigned: negative values give 0, -0.5 floors to -1 and saturates to 0.
        let u32f = f2i_op(IntType::U32, FloatType::F32, IntRound::Floor);
        assert_eq!(f2i(&u32f, 0xbf00_0000), 0);
        assert_eq!(f2i(&u32f, 0x4f80_0000), 0xffff_ffff);
        // 64-bit: NaN gives 0x8000000000000000, signed or not; 2^63 saturates.
        let s64 = f2i_op(
            IntType {
                bits: 64,
                signed: true,
            },
            FloatType::F64,
            IntRound::Trunc,
        );
        let u64t = f2i_op(
            IntType {
                bits: 64,
                signed: false,
            },
            FloatType::F64,
            IntRound::Trunc,
        );
        assert_eq!(f2i(&s64, 0x7ff8_0000_0000_0000), 1 << 63);
        assert_eq!(f2i(&u64t, 0xfff8_0000_0000_0001), 1 << 63);
        assert_eq!(f2i(&s64, 0x43e0_0000_0000_0000), i64::MAX as u64);
        assert_eq!(f2i(&u64t, 0x43f0_0000_0000_0000), u64::MAX);
        assert_eq!(f2i(&u64t, 0x43ef_ffff_ffff_ffff), 0xffff_ffff_ffff_f800);
        // Narrow results are sign-extended: -200.0 to s8 saturates to -128.
        let s8 = f2i_op(
            IntType {
                bits: 8,
                signed: true,
            },
            FloatType::F32,
            IntRound::Trunc,
        );
        assert_eq!(f2i(&s8, 0xc348_0000), 0xffff_ff80);
        // .FTZ: the smallest subnormal is zero before CEIL (else 1).
        let mut c = f2i_op(IntType::S32, FloatType::F32, IntRound::Ceil);
        assert_eq!(f2i(&c, 1), 1);
        c.ftz = true;
        assert_eq!(f2i(&c, 1), 0);
    }

    #[test]
    fn float_conversions_round_by_mode_and_make_nan_canonical() {
        let op = |dst, src, rnd| F2f {
            d: Reg(0),
            sel: 0,
            ftz: false,
            sat: false,
            dst,
            src,
            rnd,
            neg: false,
            abs: false,
            b: Src::Reg(Reg(0)),
        };
        let rn = F2fRound::Fp(FpRound::Rn);
        // `.H1`: the binary16 in the upper half (1.0 there, -2.0 below) is 1.0.
        let h1 = F2f {
            sel: 2,
            ..op(FloatType::F32, FloatType::F16, rn)
        };
        assert_eq!(f2f(&h1, 0x3c00_c000), 0x3f80_0000);
        // binary32 1 + 2^-23 + 2^-24 ... to binary16: 65520.0 rounds to infinity (RN), 65519 not.
        let h = op(FloatType::F16, FloatType::F32, rn);
        assert_eq!(f2f(&h, 0x477f_f000), 0x7c00);
        assert_eq!(f2f(&h, 0x477f_efff), 0x7bff);
        assert_eq!(f2f(&h, 0x7f80_0001), CANONICAL_NAN16);
        // binary16 1.0 widened; a binary16 NaN to binary32 is 0x7fffffff.
        let w = op(FloatType::F32, FloatType::F16, rn);
        assert_eq!(f2f(&w, 0x3c00), 0x3f80_0000);
        assert_eq!(f2f(&w, 0xfe01), 0x7fff_ffff);
        // binary32 to binary64 keeps a NaN's sign and payload, quiet.
        let d = op(FloatType::F64, FloatType::F32, rn);
        assert_eq!(f2f(&d, 0xff80_0001), 0xfff8_0000_2000_0000);
        // Round to integral: -0.5 rounds to -0; .SAT makes it +0; 0.5 to +0.
        let mut r = op(
            FloatType::F32,
            FloatType::F32,
            F2fRound::Int(IntRound::Round),
        );
        assert_eq!(f2f(&r, 0xbf00_0000), 0x8000_0000);
        r.sat = true;
        assert_eq!(f2f(&r, 0xbf00_0000), 0);
        assert_eq!(f2f(&r, 0x4020_0000), 0x3f80_0000);
    }

    #[test]
    fn integer_conversions() {
        let i = I2f {
            d: Reg(0),
            sel: 0,
            dst: FloatType::F32,
            src: IntType {
                bits: 64,
                signed: false,
            },
            rnd: FpRound::Rz,
            neg: false,
            abs: false,
            b: Src::Reg(Reg(0)),
        };
        // u64::MAX toward zero is the largest binary32 below 2^64.
        assert_eq!(i2f(&i, u64::MAX), 0x5f7f_ffff);
        // -(-2^31) is 2^31 exactly (no wrap).
        let n = I2f {
            src: IntType::S32,
            neg: true,
            rnd: FpRound::Rn,
            ..i
        };
        assert_eq!(i2f(&n, 0x8000_0000), 0x4f00_0000);
        let ii = |dst, src, sat| I2i {
            d: Reg(0),
            sel: 0,
            cc: false,
            sat,
            dst,
            src,
            neg: false,
            abs: false,
            b: Src::Reg(Reg(0)),
        };
        let s8 = IntType {
            bits: 8,
            signed: true,
        };
        let u16t = IntType {
            bits: 16,
            signed: false,
        };
        // Byte and half selects: the source starts at byte `sel` (cvt.s32.s8 of byte 2 of
        // 0x12c0_3456 is sext(0xc0) = -64; cvt.rn.f32.u16 of the upper half of 0x0123_4567 is
        // 291.0 = 0x4391_8000; .B3 of 0x8000_0000 as u8 is 128.0 = 0x4300_0000).
        let b2 = I2i {
            sel: 2,
            ..ii(IntType::S32, s8, false)
        };
        assert_eq!(i2i(&b2, 0x12c0_3456), 0xffff_ffc0);
        let h1 = I2f {
            sel: 2,
            src: u16t,
            rnd: FpRound::Rn,
            ..i
        };
        assert_eq!(i2f(&h1, 0x0123_4567), 0x4391_8000);
        let b3 = I2f {
            sel: 3,
            src: IntType {
                bits: 8,
                signed: false,
            },
            rnd: FpRound::Rn,
            ..i
        };
        assert_eq!(i2f(&b3, 0x8000_0000), 0x4300_0000);
        assert_eq!(i2i(&ii(s8, IntType::S32, true), 300), 127);
        assert_eq!(i2i(&ii(s8, IntType::S32, false), 300), 44);
        assert_eq!(i2i(&ii(s8, IntType::S32, false), 0x80), 0xffff_ff80);
        assert_eq!(i2i(&ii(u16t, IntType::S32, true), 0xffff_fff0), 0);
        assert_eq!(
            i2i(&ii(IntType::S32, IntType::U32, true), 0x8000_0000),
            0x7fff_ffff
        );
    }

    #[test]
    fn double_nan_rule_min_max_and_compares() {
        let add = Dadd {
            d: Reg(0),
            rnd: FpRound::Rn,
            ma: FMod::default(),
            a: Reg(0),
            mb: FMod::default(),
            b: Src::Reg(Reg(0)),
        };
        let inf = 0x7ff0_0000_0000_0000;
        // inf - inf creates the canonical NaN; a NaN operand comes back quiet.
        assert_eq!(dadd(&add, inf, inf | SIGN64), CANONICAL_NAN64);
        assert_eq!(
            dadd(&add, 0x7ff0_0000_0000_0001, 1.0f64.to_bits()),
            0x7ff8_0000_0000_0001
        );
        assert_eq!(
            dadd(&add, 1.0f64.to_bits(), 0xfff0_0000_0000_0002),
            0xfff8_0000_0000_0002
        );
        let mm = Dmnmx {
            d: Reg(0),
            ma: FMod::default(),
            a: Reg(0),
            mb: FMod::default(),
            b: Src::Reg(Reg(0)),
            p: PredSrc {
                pred: Pred::PT,
                neg: false,
            },
        };
        assert_eq!(dmnmx(&mm, 0, SIGN64, true), SIGN64);
        assert_eq!(dmnmx(&mm, 0, SIGN64, false), 0);
        assert_eq!(
            dmnmx(&mm, 0x7ff8_0000_0000_0000, 2.0f64.to_bits(), true),
            2.0f64.to_bits()
        );
        assert_eq!(
            dmnmx(&mm, 0x7ff8_0000_0000_0000, 0x7ff8_0000_0000_0001, true),
            CANONICAL_NAN64
        );
        let nan = 0x7ff8_0000_0000_0000;
        assert!(!dcmp(FCmp::Ne, nan, 0) && dcmp(FCmp::Neu, nan, 0));
        assert!(dcmp(FCmp::Eq, 0, SIGN64) && !dcmp(FCmp::Lt, SIGN64, 0));
    }
}
