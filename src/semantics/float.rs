//! The Maxwell binary32 float instructions on one lane (docs/semantics.md §28): what FADD, FMUL,
//! FFMA (and their 32-bit-immediate forms), FMNMX, FSET, FSETP, FCMP, MUFU, RRO and FCHK compute
//! from raw register bits. The interpreter applies these to every lane; the JIT lowers the
//! round-to-nearest ops as vector code that must give the same bits, and calls these for the
//! rest (directed rounding, MUFU, RRO, FCHK).
//!
//! The rules: a source modifier takes `|x|` and then `-x` (bit operations, also on NaN); `.FTZ`
//! flushes subnormal inputs (after the modifiers) and a subnormal result to a zero of the same
//! sign; every NaN an arithmetic op produces is [`CANONICAL_NAN32`]; `.SAT` clamps the result to
//! [+0, 1] (NaN and every negative value, -0 included, give +0).

use super::ieee::{add32, f64_to_f32, flush32, fma32, is_nan32, mul32, Rounding, CANONICAL_NAN32};
use crate::ir::{FCmp, FMod, FRnd, Fadd, Ffma, Fmul, MufuFn, Rro};

/// 1.0 in binary32.
pub const ONE32: u32 = 0x3f80_0000;

/// The IEEE rounding of a float op's mode.
pub fn rounding(r: FRnd) -> Rounding {
    match r {
        FRnd::Rn => Rounding::Nearest,
        FRnd::Rm => Rounding::Down,
        FRnd::Rp => Rounding::Up,
        FRnd::Rz => Rounding::Zero,
    }
}

/// An input: the modifier applied, then flushed with `.FTZ`.
#[inline]
pub fn fin(x: u32, m: FMod, ftz: bool) -> u32 {
    let x = m.apply(x);
    if ftz {
        flush32(x)
    } else {
        x
    }
}

/// A result: NaN made canonical, flushed with `.FTZ`, clamped with `.SAT`.
#[inline]
pub fn fout(r: u32, ftz: bool, sat: bool) -> u32 {
    let r = if is_nan32(r) { CANONICAL_NAN32 } else { r };
    let r = if ftz { flush32(r) } else { r };
    if sat {
        saturate(r)
    } else {
        r
    }
}

/// `.SAT`: NaN and negative values (-0 included) to +0, values above 1.0 to 1.0.
#[inline]
pub fn saturate(r: u32) -> u32 {
    if is_nan32(r) || r & 0x8000_0000 != 0 {
        0
    } else if r > ONE32 {
        ONE32
    } else {
        r
    }
}

/// FADD on one lane.
pub fn fadd(o: &Fadd, a: u32, b: u32) -> u32 {
    let (a, b) = (fin(a, o.am, o.ftz), fin(b, o.bm, o.ftz));
    fout(add32(a, b, rounding(o.rnd)), o.ftz, o.sat)
}

/// FMUL on one lane.
pub fn fmul(o: &Fmul, a: u32, b: u32) -> u32 {
    let (a, b) = (fin(a, FMod::NONE, o.ftz), fin(b, FMod::neg(o.neg_b), o.ftz));
    let r = if o.scale == 0 {
        mul32(a, b, rounding(o.rnd))
    } else {
        // The exact product (48 significant bits) times 2^scale is exact in binary64 (its
        // exponent stays within -302..262), so this is the scaled product with one rounding.
        let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
        let p = p * f64::from_bits(((1023 + o.scale as i64) as u64) << 52);
        f64_to_f32(p.to_bits(), rounding(o.rnd))
    };
    fout(r, o.ftz, o.sat)
}

/// FFMA on one lane.
pub fn ffma(o: &Ffma, a: u32, b: u32, c: u32) -> u32 {
    let a = fin(a, FMod::NONE, o.ftz);
    let b = fin(b, FMod::neg(o.neg_b), o.ftz);
    let c = fin(c, FMod::neg(o.neg_c), o.ftz);
    fout(fma32(a, b, c, rounding(o.rnd)), o.ftz, o.sat)
}

/// The order of two non-NaN binary32 values as a signed key (-0 below +0).
#[inline]
fn key(x: u32) -> i64 {
    if x & 0x8000_0000 != 0 {
        -((x & 0x7fff_ffff) as i64) - 1
    } else {
        x as i64
    }
}

/// FMNMX on one lane, inputs already through [`fin`]: the minimum (`min`) or maximum of `a` and
/// `b`; a NaN operand gives the other; two NaNs give the canonical NaN; -0 < +0.
pub fn fmnmx(min: bool, a: u32, b: u32) -> u32 {
    match (is_nan32(a), is_nan32(b)) {
        (true, true) => CANONICAL_NAN32,
        (true, false) => b,
        (false, true) => a,
        _ => {
            if (key(a) < key(b)) == min {
                a
            } else {
                b
            }
        }
    }
}

/// Whether `a cmp b` holds, inputs already through [`fin`] (IEEE comparison: -0 == +0).
pub fn fcmp(cmp: FCmp, a: u32, b: u32) -> bool {
    float_test(cmp, f32::from_bits(a) as f64, f32::from_bits(b) as f64)
}

/// The one definition of the float comparisons of FSETP, FSET, FCMP, DSETP and DSET on two
/// values (binary32 operands widened, which is exact): ordered tests are false when either side
/// is NaN, the `U` ones true; `NUM` and `NAN` test for NaN; -0 == +0.
pub fn float_test(cmp: FCmp, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match cmp {
        FCmp::F => false,
        FCmp::Lt => x < y,
        FCmp::Eq => x == y,
        FCmp::Le => x <= y,
        FCmp::Gt => x > y,
        FCmp::Ne => !un && x != y,
        FCmp::Ge => x >= y,
        FCmp::Num => !un,
        FCmp::Nan => un,
        FCmp::Ltu => un || x < y,
        FCmp::Equ => un || x == y,
        FCmp::Leu => un || x <= y,
        FCmp::Gtu => un || x > y,
        FCmp::Neu => un || x != y,
        FCmp::Geu => un || x >= y,
        FCmp::T => true,
    }
}

/// The binary32 nearest to the binary64 `v` (NaN canonical), with subnormal results flushed.
fn narrow(v: f64) -> u32 {
    if v.is_nan() {
        return CANONICAL_NAN32;
    }
    flush32(f64_to_f32(v.to_bits(), Rounding::Nearest))
}

/// The high word of the binary64 `v` rounded (to nearest, ties to even) to 20 fraction bits;
/// NaN gives 0x7fffffff, subnormal results are flushed.
fn narrow_high(v: f64) -> u32 {
    if v.is_nan() {
        return CANONICAL_NAN32;
    }
    let bits = v.to_bits();
    let (hi, lo) = (bits >> 32, bits as u32);
    let up = lo > 0x8000_0000 || (lo == 0x8000_0000 && hi & 1 == 1);
    let hi = (hi + up as u64) as u32;
    if hi & 0x7ff0_0000 == 0 {
        hi & 0x8000_0000
    } else {
        hi
    }
}

/// MUFU on one lane, the input already through the modifier: every function evaluated in
/// binary64 with the portable `libm` crate and rounded to the nearest binary32 (for RCP64H and
/// RSQ64H: to the nearest binary64 with a zero low word, its high word returned). Subnormal
/// inputs and results are flushed to zero (MUFU has no denormal support); NaN results are the
/// canonical NaN; `.SAT` clamps as for the other ops.
pub fn mufu(func: MufuFn, sat: bool, x: u32) -> u32 {
    let r = match func {
        MufuFn::Rcp64h | MufuFn::Rsq64h => {
            let hi = if x & 0x7ff0_0000 == 0 {
                x & 0x8000_0000
            } else {
                x
            };
            let v = f64::from_bits((hi as u64) << 32);
            let r = if func == MufuFn::Rcp64h {
                1.0 / v
            } else {
                1.0 / libm::sqrt(v)
            };
            return narrow_high(r);
        }
        _ => {
            let v = f32::from_bits(flush32(x)) as f64;
            narrow(match func {
                MufuFn::Cos => libm::cos(v),
                MufuFn::Sin => libm::sin(v),
                MufuFn::Ex2 => libm::exp2(v),
                MufuFn::Lg2 => libm::log2(v),
                MufuFn::Rcp => 1.0 / v,
                MufuFn::Rsq => 1.0 / libm::sqrt(v),
                _ => libm::sqrt(v),
            })
        }
    };
    if sat {
        saturate(r)
    } else {
        r
    }
}

/// RRO on one lane, the input already through the modifier: the operand flushed (NaN canonical),
/// which is the form warpjit's MUFU.SIN/COS/EX2 read (silicon writes a private fixed-point
/// format instead; docs/semantics.md §28).
pub fn rro(_o: &Rro, x: u32) -> u32 {
    if is_nan32(x) {
        CANONICAL_NAN32
    } else {
        flush32(x)
    }
}

/// FCHK.DIVIDE on one lane, inputs already through the modifiers: true unless both operands are
/// normal numbers in the range where MUFU.RCP followed by ptxas's FFMA refinement gives the
/// correctly rounded quotient (the dividend's biased exponent in [30, 250], the divisor's in
/// [3, 250], their difference in [-97, 123]): zeros, subnormals, infinities, NaNs and quotients
/// near overflow or underflow take the slow path.
pub fn fchk_divide(a: u32, b: u32) -> bool {
    let ea = (a >> 23 & 0xff) as i32;
    let eb = (b >> 23 & 0xff) as i32;
    !((30..=250).contains(&ea) && (3..=250).contains(&eb) && (-97..=123).contains(&(ea - eb)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_ftz_nan_and_sat() {
        let m = FMod {
            neg: true,
            abs: true,
        };
        assert_eq!(fin(0x3f80_0000, m, false), 0xbf80_0000);
        assert_eq!(fin(0x8000_0001, FMod::NONE, true), 0x8000_0000);
        assert_eq!(fin(0x0000_0001, FMod::neg(true), true), 0x8000_0000);
        assert_eq!(fout(0xffc0_0000, false, false), CANONICAL_NAN32);
        assert_eq!(fout(0x0000_0005, true, false), 0);
        assert_eq!(fout(0x8000_0000, false, true), 0);
        assert_eq!(fout(0x4000_0000, false, true), ONE32);
        assert_eq!(fout(0x7fc0_0000, false, true), 0);
        assert_eq!(fout(0x3f00_0000, false, true), 0x3f00_0000);
    }

    #[test]
    fn min_max_and_compares() {
        let (pz, nz, one, nan) = (0u32, 0x8000_0000u32, ONE32, 0x7fc0_0001u32);
        assert_eq!(fmnmx(true, pz, nz), nz);
        assert_eq!(fmnmx(false, nz, pz), pz);
        assert_eq!(fmnmx(true, nan, one), one);
        assert_eq!(fmnmx(false, one, nan), one);
        assert_eq!(fmnmx(true, nan, nan), CANONICAL_NAN32);
        assert_eq!(fmnmx(true, 0xbf80_0000, one), 0xbf80_0000);
        assert!(fcmp(FCmp::Eq, pz, nz));
        assert!(!fcmp(FCmp::Ne, one, nan) && fcmp(FCmp::Neu, one, nan));
        assert!(!fcmp(FCmp::Lt, nan, one) && fcmp(FCmp::Ltu, nan, one));
        assert!(fcmp(FCmp::Nan, nan, one) && !fcmp(FCmp::Num, nan, one));
    }

    #[test]
    fn mufu_edges() {
        assert_eq!(mufu(MufuFn::Rcp, false, 0x4000_0000), 0x3f00_0000);
        assert_eq!(mufu(MufuFn::Rcp, false, 0x8000_0000), 0xff80_0000);
        assert_eq!(
            mufu(MufuFn::Rcp, false, 0x0000_0001),
            0x7f80_0000,
            "flushed to +0"
        );
        assert_eq!(mufu(MufuFn::Rcp, false, 0x7f00_0000), 0, "2^-127 flushed");
        assert_eq!(mufu(MufuFn::Rsq, false, 0x4080_0000), 0x3f00_0000);
        assert_eq!(mufu(MufuFn::Rsq, false, 0xbf80_0000), CANONICAL_NAN32);
        assert_eq!(mufu(MufuFn::Lg2, false, 0x4100_0000), 0x4040_0000);
        assert_eq!(mufu(MufuFn::Lg2, false, 0), 0xff80_0000);
        assert_eq!(mufu(MufuFn::Ex2, false, 0xc000_0000), 0x3e80_0000);
        assert_eq!(mufu(MufuFn::Sin, false, 0), 0);
        assert_eq!(mufu(MufuFn::Cos, false, 0), ONE32);
        assert_eq!(mufu(MufuFn::Sin, false, 0x7f80_0000), CANONICAL_NAN32);
        assert_eq!(mufu(MufuFn::Sqrt, false, 0x4110_0000), 0x4040_0000);
        // 1/2 as binary64 has high word 0x3fe00000; 1/3 (0x3fd55555_55555555) rounds down.
        assert_eq!(mufu(MufuFn::Rcp64h, false, 0x4000_0000), 0x3fe0_0000);
        assert_eq!(mufu(MufuFn::Rcp64h, false, 0x4008_0000), 0x3fd5_5555);
        assert_eq!(mufu(MufuFn::Rsq64h, false, 0x4010_0000), 0x3fe0_0000);
    }

    #[test]
    fn fchk_flags_every_risky_operand() {
        let one = ONE32;
        assert!(!fchk_divide(one, 0x4040_0000));
        for risky in [0, 0x8000_0000, 1, 0x7f80_0000, 0x7fc0_0000, 0x7f7f_ffff] {
            assert!(fchk_divide(one, risky) && fchk_divide(risky, one));
        }
        assert!(fchk_divide(0x0d00_0000, one), "dividend too small");
        assert!(
            fchk_divide(0x3000_0000, 0x7000_0000),
            "quotient near underflow"
        );
        assert!(
            fchk_divide(0x7b80_0000, 0x7f00_0000),
            "1/2^127 is subnormal: MUFU.RCP flushes it"
        );
    }
}
