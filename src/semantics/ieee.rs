//! IEEE 754 binary32 and binary64 arithmetic in every rounding mode, on raw bits.
//!
//! Maxwell's float instructions name a rounding mode (`.RN`, `.RZ`, `.RM`, `.RP`); conversions
//! name one too. Round-to-nearest-even uses the host's IEEE operations, which are exact by the
//! standard (`f32::mul_add` is the correctly rounded fused multiply-add); the directed modes go
//! through `rustc_apfloat`, a software implementation of the same standard, so the results are the
//! same bits on every host. These functions return the IEEE result: NaN canonicalisation and
//! `.FTZ` flushing are the instruction's business (see [`flush32`], [`CANONICAL_NAN32`]).

use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// An IEEE rounding mode, as Maxwell's `.RN`, `.RM`, `.RP` and `.RZ` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rounding {
    /// To nearest, ties to even (`.RN`, the default).
    #[default]
    Nearest,
    /// Toward minus infinity (`.RM`).
    Down,
    /// Toward plus infinity (`.RP`).
    Up,
    /// Toward zero (`.RZ`).
    Zero,
}

impl Rounding {
    fn apfloat(self) -> Round {
        match self {
            Rounding::Nearest => Round::NearestTiesToEven,
            Rounding::Down => Round::TowardNegative,
            Rounding::Up => Round::TowardPositive,
            Rounding::Zero => Round::TowardZero,
        }
    }
}

/// The NaN every binary32 arithmetic instruction of Maxwell produces (docs/semantics.md §28).
pub const CANONICAL_NAN32: u32 = 0x7fff_ffff;

/// `x` with a subnormal value replaced by a zero of the same sign (`.FTZ`); other values unchanged.
#[inline]
pub fn flush32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// `x` with a subnormal value replaced by a zero of the same sign; other values unchanged.
#[inline]
pub fn flush64(x: u64) -> u64 {
    if x & 0x7ff0_0000_0000_0000 == 0 {
        x & 0x8000_0000_0000_0000
    } else {
        x
    }
}

/// Whether the binary32 `x` is a NaN.
#[inline]
pub fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// Whether the binary64 `x` is a NaN.
#[inline]
pub fn is_nan64(x: u64) -> bool {
    x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
}

fn s(x: u32) -> Single {
    Single::from_bits(x as u128)
}
fn d(x: u64) -> Double {
    Double::from_bits(x as u128)
}

/// `a + b` in binary32, rounded by `r`.
pub fn add32(a: u32, b: u32, r: Rounding) -> u32 {
    match r {
        Rounding::Nearest => (f32::from_bits(a) + f32::from_bits(b)).to_bits(),
        _ => s(a).add_r(s(b), r.apfloat()).value.to_bits() as u32,
    }
}

/// `a * b` in binary32, rounded by `r`.
pub fn mul32(a: u32, b: u32, r: Rounding) -> u32 {
    match r {
        Rounding::Nearest => (f32::from_bits(a) * f32::from_bits(b)).to_bits(),
        _ => s(a).mul_r(s(b), r.apfloat()).value.to_bits() as u32,
    }
}

/// `a * b + c` in binary32 with one rounding (fused), rounded by `r`.
pub fn fma32(a: u32, b: u32, c: u32, r: Rounding) -> u32 {
    match r {
        Rounding::Nearest => f32::from_bits(a)
            .mul_add(f32::from_bits(b), f32::from_bits(c))
            .to_bits(),
        _ => s(a).mul_add_r(s(b), s(c), r.apfloat()).value.to_bits() as u32,
    }
}

/// `a + b` in binary64, rounded by `r`.
pub fn add64(a: u64, b: u64, r: Rounding) -> u64 {
    match r {
        Rounding::Nearest => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        _ => d(a).add_r(d(b), r.apfloat()).value.to_bits() as u64,
    }
}

/// `a * b` in binary64, rounded by `r`.
pub fn mul64(a: u64, b: u64, r: Rounding) -> u64 {
    match r {
        Rounding::Nearest => (f64::from_bits(a) * f64::from_bits(b)).to_bits(),
        _ => d(a).mul_r(d(b), r.apfloat()).value.to_bits() as u64,
    }
}

/// `a * b + c` in binary64 with one rounding (fused), rounded by `r`.
pub fn fma64(a: u64, b: u64, c: u64, r: Rounding) -> u64 {
    match r {
        Rounding::Nearest => f64::from_bits(a)
            .mul_add(f64::from_bits(b), f64::from_bits(c))
            .to_bits(),
        _ => d(a).mul_add_r(d(b), d(c), r.apfloat()).value.to_bits() as u64,
    }
}

/// The binary64 `x` rounded to binary32 by `r` (NaNs keep their sign and top payload bits, quiet).
pub fn f64_to_f32(x: u64, r: Rounding) -> u32 {
    let mut loses = false;
    let v: Single = d(x).convert_r(r.apfloat(), &mut loses).value;
    v.to_bits() as u32
}

/// The binary32 `x` widened to binary64 (exact).
pub fn f32_to_f64(x: u32) -> u64 {
    (f32::from_bits(x) as f64).to_bits()
}

/// The integer `v` rounded to binary32 by `r`.
pub fn int_to_f32(v: i128, r: Rounding) -> u32 {
    Single::from_i128_r(v, r.apfloat()).value.to_bits() as u32
}

/// The integer `v` rounded to binary64 by `r`.
pub fn int_to_f64(v: i128, r: Rounding) -> u64 {
    Double::from_i128_r(v, r.apfloat()).value.to_bits() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u32 = 0x3f80_0000;
    const EPS_HALF: u32 = 0x3380_0000; // 2^-24: half an ulp of 1.0

    #[test]
    fn directed_modes_round_the_exact_sum_the_right_way() {
        // 1 + 2^-24 lies exactly between 1.0 and 1.0 + 2^-23.
        assert_eq!(add32(ONE, EPS_HALF, Rounding::Nearest), ONE); // tie to even
        assert_eq!(add32(ONE, EPS_HALF, Rounding::Zero), ONE);
        assert_eq!(add32(ONE, EPS_HALF, Rounding::Down), ONE);
        assert_eq!(add32(ONE, EPS_HALF, Rounding::Up), ONE + 1);
        // -(1 + 2^-24): toward minus infinity moves away from zero.
        let (n1, ne) = (ONE | 1 << 31, EPS_HALF | 1 << 31);
        assert_eq!(add32(n1, ne, Rounding::Down), (ONE + 1) | 1 << 31);
        assert_eq!(add32(n1, ne, Rounding::Up), n1);
        assert_eq!(add32(n1, ne, Rounding::Zero), n1);
        // x + (-x) is +0 in every mode but toward minus infinity, where it is -0.
        assert_eq!(add32(ONE, n1, Rounding::Nearest), 0);
        assert_eq!(add32(ONE, n1, Rounding::Down), 0x8000_0000);
    }

    #[test]
    fn products_overflow_to_infinity_or_the_largest_finite_by_mode() {
        let big = 0x7f00_0000; // 2^127
        assert_eq!(mul32(big, big, Rounding::Nearest), 0x7f80_0000);
        assert_eq!(mul32(big, big, Rounding::Up), 0x7f80_0000);
        assert_eq!(mul32(big, big, Rounding::Zero), 0x7f7f_ffff);
        assert_eq!(mul32(big, big, Rounding::Down), 0x7f7f_ffff);
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-23) * (1 - 2^-23) - 1 = -2^-46 exactly; unfused it would be 0.
        let a = ONE + 1;
        let b = 0x3f7f_fffe; // 1 - 2^-23
        assert_eq!(fma32(a, b, ONE | 1 << 31, Rounding::Nearest), 0xa880_0000);
        assert_eq!(fma32(a, b, ONE | 1 << 31, Rounding::Zero), 0xa880_0000);
    }

    #[test]
    fn conversions_round_by_mode() {
        // 2^24 + 1 is not a binary32: nearest-even and toward zero give 2^24, up gives 2^24 + 2.
        let v = (1 << 24) + 1;
        assert_eq!(int_to_f32(v, Rounding::Nearest), 0x4b80_0000);
        assert_eq!(int_to_f32(v, Rounding::Zero), 0x4b80_0000);
        assert_eq!(int_to_f32(v, Rounding::Up), 0x4b80_0001);
        assert_eq!(int_to_f32(-v, Rounding::Down), 0xcb80_0001);
        // 1/3 in binary64 narrowed: toward zero truncates, up rounds away.
        let third = (1.0f64 / 3.0).to_bits();
        assert_eq!(f64_to_f32(third, Rounding::Zero), 0x3eaa_aaaa);
        assert_eq!(f64_to_f32(third, Rounding::Up), 0x3eaa_aaab);
        assert_eq!(f64_to_f32(third, Rounding::Nearest), 0x3eaa_aaab);
        assert_eq!(
            int_to_f64(i64::MIN as i128, Rounding::Zero),
            0xc3e0_0000_0000_0000
        );
    }

    #[test]
    fn flush_keeps_the_sign_and_leaves_normals() {
        assert_eq!(flush32(0x0000_0001), 0);
        assert_eq!(flush32(0x8070_0000), 0x8000_0000);
        assert_eq!(flush32(0x0080_0000), 0x0080_0000);
        assert_eq!(flush64(0x800f_ffff_ffff_ffff), 0x8000_0000_0000_0000);
        assert!(is_nan32(0x7fc0_0000) && !is_nan32(0x7f80_0000));
        assert!(is_nan64(0xfff8_0000_0000_0000) && !is_nan64(0xfff0_0000_0000_0000));
    }
}
