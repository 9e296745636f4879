//! Expected values from the definitions (IEEE 754 encodings, the Direct3D 11 instruction
//! definitions), never from the functions under test.

use super::*;
use proptest::prelude::*;

fn b(x: f32) -> u32 {
    x.to_bits()
}

const ONE: u32 = 0x3f80_0000;
const NEG_ZERO: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const NEG_INF: u32 = 0xff80_0000;
const MIN_DENORM: u32 = 0x0000_0001;
const NEG_DENORM: u32 = 0x8000_0001;
const MIN_NORMAL: u32 = 0x0080_0000;

#[test]
fn add_mul_div_flush_denormals_and_canonicalise_nan() {
    assert_eq!(add(b(1.0), b(2.0)), b(3.0));
    assert_eq!(add(MIN_DENORM, 0), 0, "denormal input flushed");
    assert_eq!(
        add(NEG_DENORM, NEG_ZERO),
        NEG_ZERO,
        "flushed to -0, and -0 + -0 = -0"
    );
    assert_eq!(add(NEG_ZERO, 0), 0, "-0 + +0 = +0");
    assert_eq!(
        add(MIN_NORMAL + 1, MIN_NORMAL | 0x8000_0000),
        0,
        "denormal output (2^-149) flushed"
    );
    assert_eq!(
        add((MIN_NORMAL + 1) | 0x8000_0000, MIN_NORMAL),
        NEG_ZERO,
        "negative denormal output flushed to -0"
    );
    assert_eq!(add(INF, NEG_INF), CANONICAL_NAN);
    assert_eq!(
        add(0xffc0_0001, ONE),
        CANONICAL_NAN,
        "NaN payload and sign not kept"
    );
    assert_eq!(add(0x7f80_0001, ONE), CANONICAL_NAN);
    assert_eq!(add(b(1.0), b(2f32.powi(-24))), ONE, "tie to even");
    assert_eq!(
        add(b(1.0 + 2f32.powi(-23)), b(2f32.powi(-24))),
        b(1.0 + 2f32.powi(-22)),
        "tie to even (up)"
    );
    let tiny = b(2f32.powi(-70));
    assert_eq!(mul(tiny, tiny), 0, "2^-140 is denormal: flushed");
    assert_eq!(mul(tiny | 0x8000_0000, tiny), NEG_ZERO);
    assert_eq!(mul(INF, 0), CANONICAL_NAN);
    assert_eq!(
        mul(MIN_DENORM, INF),
        CANONICAL_NAN,
        "the denormal is 0 first"
    );
    assert_eq!(mul(b(3.0), b(-0.5)), b(-1.5));
    assert_eq!(div(ONE, b(3.0)), 0x3eaa_aaab);
    assert_eq!(div(ONE, 0), INF);
    assert_eq!(div(b(-1.0), 0), NEG_INF);
    assert_eq!(div(ONE, MIN_DENORM), INF, "x / denormal is x / 0");
    assert_eq!(div(0, 0), CANONICAL_NAN);
    assert_eq!(div(INF, INF), CANONICAL_NAN);
    assert_eq!(div(b(6.0), b(3.0)), b(2.0));
}

#[test]
fn mad_is_unfused() {
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: the product rounds (tie, to even) to 1 + 2^-11, so
    // the sum with -(1 + 2^-11) is 0; a fused multiply-add would give 2^-24.
    let a = b(1.0 + 2f32.powi(-12));
    let c = b(-(1.0 + 2f32.powi(-11)));
    assert_eq!(mad(a, a, c), 0);
    assert_eq!(mad(b(2.0), b(3.0), b(4.0)), b(10.0));
    // The product is flushed before the add: 2^-70 * 2^-70 + 0 = +0, not 2^-140.
    let tiny = b(2f32.powi(-70));
    assert_eq!(mad(tiny, tiny, 0), 0);
}

#[test]
fn dot_products_accumulate_left_to_right() {
    let v = |x: &[f32]| x.iter().map(|&f| b(f)).collect::<Vec<_>>();
    assert_eq!(dp(&v(&[1.0, 2.0]), &v(&[3.0, 4.0])), b(11.0));
    assert_eq!(dp(&v(&[1.0, 2.0, 3.0]), &v(&[4.0, 5.0, 6.0])), b(32.0));
    // 2^24 + 1 - 2^24: ((2^24 * 1) + 1 * 1) rounds to 2^24, then - 2^24 = 0 (left to right).
    let a = v(&[16777216.0, 1.0, -16777216.0, 0.0]);
    let one = v(&[1.0, 1.0, 1.0, 1.0]);
    assert_eq!(dp(&a, &one), 0);
}

#[test]
fn min_max_nan_and_zero_rules() {
    assert_eq!(min(CANONICAL_NAN, ONE), ONE);
    assert_eq!(min(ONE, 0xffc0_1234), ONE);
    assert_eq!(max(CANONICAL_NAN, b(-2.0)), b(-2.0));
    assert_eq!(max(b(-2.0), CANONICAL_NAN), b(-2.0));
    assert_eq!(min(0x7f80_0001, 0xffc0_0000), CANONICAL_NAN);
    assert_eq!(max(0x7f80_0001, 0xffc0_0000), CANONICAL_NAN);
    assert_eq!(min(NEG_ZERO, 0), NEG_ZERO);
    assert_eq!(min(0, NEG_ZERO), NEG_ZERO);
    assert_eq!(max(NEG_ZERO, 0), 0);
    assert_eq!(max(0, NEG_ZERO), 0);
    assert_eq!(min(NEG_ZERO, NEG_ZERO), NEG_ZERO);
    assert_eq!(max(NEG_ZERO, NEG_ZERO), NEG_ZERO);
    assert_eq!(
        min(NEG_DENORM, 0),
        NEG_ZERO,
        "denormals flushed before comparing"
    );
    assert_eq!(max(MIN_DENORM, NEG_ZERO), 0);
    assert_eq!(max(MIN_DENORM, MIN_DENORM), 0, "and the result is flushed");
    assert_eq!(min(b(1.0), b(2.0)), b(1.0));
    assert_eq!(max(b(1.0), b(2.0)), b(2.0));
    assert_eq!(min(NEG_INF, b(5.0)), NEG_INF);
    assert_eq!(max(INF, b(5.0)), INF);
    assert_eq!(
        min(CANONICAL_NAN, MIN_DENORM),
        0,
        "the other operand, flushed"
    );
}

#[test]
fn sqrt_rsq_rcp() {
    assert_eq!(sqrt(b(4.0)), b(2.0));
    assert_eq!(sqrt(b(2.0)), 0x3fb5_04f3);
    assert_eq!(sqrt(NEG_ZERO), NEG_ZERO);
    assert_eq!(sqrt(NEG_DENORM), NEG_ZERO);
    assert_eq!(sqrt(b(-1.0)), CANONICAL_NAN);
    assert_eq!(sqrt(INF), INF);
    assert_eq!(rsq(b(4.0)), b(0.5));
    assert_eq!(rsq(b(0.25)), b(2.0));
    assert_eq!(rsq(NEG_ZERO), NEG_INF);
    assert_eq!(rsq(0), INF);
    assert_eq!(rsq(MIN_DENORM), INF);
    assert_eq!(rsq(b(-1.0)), CANONICAL_NAN);
    assert_eq!(rsq(INF), 0);
    // 1/sqrt(2) = 0.70710678118654752...: nearest f32 0x3f3504f3 (0.707106769...,
    // 0.707106829... above; the value below, 0x3f3504f2, is 0.707106709...).
    assert_eq!(rsq(b(2.0)), 0x3f35_04f3);
    assert_eq!(rcp(b(2.0)), b(0.5));
    assert_eq!(rcp(0), INF);
    assert_eq!(rcp(NEG_ZERO), NEG_INF);
    assert_eq!(rcp(b(3.0)), 0x3eaa_aaab);
    assert_eq!(rcp(INF), 0);
    assert_eq!(rcp(b(2f32.powi(127))), 0, "2^-127 is denormal: flushed");
    assert_eq!(rcp(b(-(2f32.powi(126)))), b(-(2f32.powi(-126))));
}

#[test]
fn exp_and_log_are_exact_on_powers_of_two() {
    for k in -126..=127i32 {
        let p = ((k + 127) as u32) << 23; // 2^k
        assert_eq!(exp(b(k as f32)), p, "exp({k})");
        assert_eq!(log(p), b(k as f32), "log(2^{k})");
    }
    assert_eq!(exp(b(-127.0)), 0, "2^-127 is denormal: flushed");
    assert_eq!(exp(b(128.0)), INF);
    assert_eq!(exp(NEG_INF), 0);
    assert_eq!(exp(INF), INF);
    assert_eq!(exp(0), ONE);
    assert_eq!(exp(NEG_ZERO), ONE);
    assert_eq!(exp(MIN_DENORM), ONE);
    assert_eq!(exp(CANONICAL_NAN), CANONICAL_NAN);
    assert_eq!(exp(b(0.5)), 0x3fb5_04f3, "sqrt(2), rounded to nearest");
    assert_eq!(log(0), NEG_INF);
    assert_eq!(log(NEG_ZERO), NEG_INF);
    assert_eq!(log(MIN_DENORM), NEG_INF);
    assert_eq!(log(b(-1.0)), CANONICAL_NAN);
    assert_eq!(log(NEG_INF), CANONICAL_NAN);
    assert_eq!(log(INF), INF);
    assert_eq!(log(ONE), 0);
}

#[test]
fn sincos_cases() {
    assert_eq!(sincos(0), (0, ONE));
    assert_eq!(sincos(NEG_ZERO), (NEG_ZERO, ONE));
    assert_eq!(sincos(NEG_DENORM), (NEG_ZERO, ONE));
    assert_eq!(sincos(INF), (CANONICAL_NAN, CANONICAL_NAN));
    assert_eq!(sincos(NEG_INF), (CANONICAL_NAN, CANONICAL_NAN));
    assert_eq!(sincos(CANONICAL_NAN), (CANONICAL_NAN, CANONICAL_NAN));
    // pi/2 as f32 (1.57079637...): sin is 1 - 1.9e-15, which rounds to 1.
    assert_eq!(sincos(0x3fc9_0fdb).0, ONE);
    // pi as f32 (3.14159274...): cos is -1 + 3.8e-15 -> -1; sin is pi - x = -8.742278e-8
    // (to 7 digits), whose nearest f32 is 0xb3bb_bd2e.
    assert_eq!(sincos(0x4049_0fdb), (0xb3bb_bd2e, b(-1.0)));
}

#[test]
fn frc_and_rounding() {
    assert_eq!(frc(b(1.25)), b(0.25));
    assert_eq!(frc(b(-1.25)), b(0.75));
    assert_eq!(frc(b(3.0)), 0);
    assert_eq!(frc(NEG_ZERO), 0, "-0 - -0 = +0");
    assert_eq!(frc(INF), CANONICAL_NAN);
    assert_eq!(frc(NEG_INF), CANONICAL_NAN);
    assert_eq!(
        frc(b(-1e-10)),
        0x3f7f_ffff,
        "1 - 1e-10 rounds to 1: kept below 1"
    );
    assert_eq!(frc(NEG_DENORM), 0);
    let cases: &[(f32, [f32; 4])] = &[
        // x: [ne, ni, pi, z]
        (2.5, [2.0, 2.0, 3.0, 2.0]),
        (3.5, [4.0, 3.0, 4.0, 3.0]),
        (-2.5, [-2.0, -3.0, -2.0, -2.0]),
        (-0.5, [-0.0, -1.0, -0.0, -0.0]),
        (0.5, [0.0, 0.0, 1.0, 0.0]),
        (1.7, [2.0, 1.0, 2.0, 1.0]),
        (-1.7, [-2.0, -2.0, -1.0, -1.0]),
        (8388609.0, [8388609.0; 4]),
    ];
    for &(x, [ne, ni, pi, z]) in cases {
        assert_eq!(round_ne(b(x)), b(ne), "round_ne {x}");
        assert_eq!(round_ni(b(x)), b(ni), "round_ni {x}");
        assert_eq!(round_pi(b(x)), b(pi), "round_pi {x}");
        assert_eq!(round_z(b(x)), b(z), "round_z {x}");
    }
    assert_eq!(round_ni(NEG_DENORM), NEG_ZERO);
    assert_eq!(round_pi(MIN_DENORM), 0, "flushed first: not 1");
    assert_eq!(round_ne(INF), INF);
    assert_eq!(round_z(0x7f80_0001), CANONICAL_NAN);
}

#[test]
fn source_modifiers_only_touch_the_sign() {
    assert_eq!(
        fneg(MIN_DENORM),
        NEG_DENORM,
        "no flush by the modifier itself"
    );
    assert_eq!(fneg(NEG_ZERO), 0);
    assert_eq!(fneg(CANONICAL_NAN), 0xffc0_0000);
    assert_eq!(fabs(NEG_INF), INF);
    assert_eq!(fneg(fabs(b(2.0))), b(-2.0));
    assert_eq!(add(fneg(b(1.0)), b(1.0)), 0);
}

#[test]
fn saturate() {
    assert_eq!(sat(CANONICAL_NAN), 0);
    assert_eq!(sat(0xffc0_0000), 0);
    assert_eq!(sat(NEG_ZERO), 0);
    assert_eq!(sat(b(-1.0)), 0);
    assert_eq!(sat(NEG_INF), 0);
    assert_eq!(sat(b(2.0)), ONE);
    assert_eq!(sat(INF), ONE);
    assert_eq!(sat(ONE), ONE);
    assert_eq!(sat(b(0.5)), b(0.5));
    assert_eq!(sat(MIN_DENORM), 0);
}

#[test]
fn comparisons() {
    assert_eq!(eq(0, NEG_ZERO), TRUE);
    assert_eq!(eq(MIN_DENORM, 0), TRUE, "denormals compare as 0");
    assert_eq!(eq(CANONICAL_NAN, CANONICAL_NAN), 0);
    assert_eq!(ne(CANONICAL_NAN, CANONICAL_NAN), TRUE);
    assert_eq!(ne(CANONICAL_NAN, ONE), TRUE);
    assert_eq!(ne(ONE, ONE), 0);
    assert_eq!(lt(CANONICAL_NAN, ONE), 0);
    assert_eq!(lt(ONE, CANONICAL_NAN), 0);
    assert_eq!(ge(CANONICAL_NAN, CANONICAL_NAN), 0);
    assert_eq!(ge(ONE, ONE), TRUE);
    assert_eq!(lt(NEG_INF, ONE), TRUE);
    assert_eq!(lt(NEG_DENORM, MIN_DENORM), 0, "-0 < +0 is false");
    assert_eq!(ge(b(-1.0), INF), 0);
}

#[test]
fn float_integer_conversions() {
    assert_eq!(ftoi(CANONICAL_NAN), 0);
    assert_eq!(ftoi(b(3e9)), i32::MAX as u32);
    assert_eq!(ftoi(b(-3e9)), i32::MIN as u32);
    assert_eq!(ftoi(INF), i32::MAX as u32);
    assert_eq!(ftoi(NEG_INF), i32::MIN as u32);
    assert_eq!(ftoi(b(2.7)), 2);
    assert_eq!(ftoi(b(-2.7)), (-2i32) as u32);
    assert_eq!(ftoi(b(-2147483648.0)), i32::MIN as u32);
    assert_eq!(ftou(CANONICAL_NAN), 0);
    assert_eq!(ftou(b(-1.0)), 0);
    assert_eq!(ftou(b(-0.9)), 0);
    assert_eq!(ftou(b(5e9)), u32::MAX);
    assert_eq!(ftou(b(3e9)), 3_000_000_000);
    assert_eq!(ftou(b(2.9)), 2);
    assert_eq!(ftou(INF), u32::MAX);
    // 2^24 + 1 is a tie between 2^24 and 2^24 + 2: even (2^24); 2^24 + 3: 2^24 + 4.
    assert_eq!(itof(16_777_217), 0x4b80_0000);
    assert_eq!(itof(16_777_219), 0x4b80_0002);
    assert_eq!(itof(i32::MIN as u32), 0xcf00_0000);
    assert_eq!(itof(u32::MAX), b(-1.0));
    assert_eq!(utof(u32::MAX), 0x4f80_0000, "rounds up to 2^32");
    assert_eq!(utof(0x8000_0000), 0x4f00_0000);
    assert_eq!(f32tof16(ONE), 0x3c00);
    assert_eq!(f32tof16(b(-2.0)), 0xc000, "upper 16 bits 0");
    assert_eq!(f16tof32(0xffff_3c00), ONE, "upper 16 bits ignored");
    assert_eq!(f16tof32(0x0001), 0x3380_0000, "2^-24, exactly");
}

#[test]
fn shifts_division_and_wide_products() {
    assert_eq!(ishl(1, 33), 2, "count masked to 5 bits");
    assert_eq!(ishl(1, 31), 0x8000_0000);
    assert_eq!(ishr(0x8000_0000, 31), u32::MAX);
    assert_eq!(ishr(0x8000_0000, 32), 0x8000_0000);
    assert_eq!(ushr(0x8000_0000, 63), 1);
    assert_eq!(ushr(0x8000_0000, 32), 0x8000_0000);
    assert_eq!(udiv(7, 2), (3, 1));
    assert_eq!(udiv(5, 0), (u32::MAX, u32::MAX));
    assert_eq!(udiv(0, 0), (u32::MAX, u32::MAX));
    assert_eq!(udiv(u32::MAX, 1), (u32::MAX, 0));
    let m = |x: i32| x as u32;
    assert_eq!(imul(m(-1), m(-1)), (0, 1));
    assert_eq!(imul(m(-2), 3), (u32::MAX, m(-6)));
    assert_eq!(
        imul(0x8000_0000, 0x8000_0000),
        (0x4000_0000, 0),
        "(-2^31)^2 = 2^62"
    );
    assert_eq!(umul(u32::MAX, u32::MAX), (0xffff_fffe, 1));
    assert_eq!(umul(0x8000_0000, 2), (1, 0));
    assert_eq!(uaddc(u32::MAX, 1), (0, 1));
    assert_eq!(uaddc(1, 2), (3, 0));
    assert_eq!(usubb(0, 1), (u32::MAX, 1));
    assert_eq!(usubb(5, 3), (2, 0));
    assert_eq!(usubb(3, 3), (0, 0));
}

#[test]
fn bitfields_and_bit_scans() {
    assert_eq!(ubfe(0, 4, 0xffff_ffff), 0, "width 0");
    assert_eq!(ibfe(0, 4, 0xffff_ffff), 0, "width 0");
    assert_eq!(ubfe(32, 0, 0xffff_ffff), 0, "width 32 is width 0 (5 bits)");
    assert_eq!(ubfe(4, 4, 0xabcd), 0xc);
    assert_eq!(ibfe(4, 4, 0xabcd), 0xffff_fffc);
    assert_eq!(ibfe(4, 0, 0x7), 7);
    assert_eq!(ubfe(8, 28, 0xf000_0000), 0xf, "cut at bit 31");
    assert_eq!(
        ibfe(8, 28, 0xf000_0000),
        u32::MAX,
        "cut at bit 31: bit 31 is the sign"
    );
    assert_eq!(ibfe(8, 28, 0x7000_0000), 7);
    assert_eq!(ubfe(4, 36, 0xf0), 0xf, "offset masked to 5 bits");
    assert_eq!(bfi(4, 4, 0xff, 0), 0xf0);
    assert_eq!(bfi(0, 5, 0xff, 0x1234), 0x1234);
    assert_eq!(bfi(8, 28, 0xff, 0), 0xf000_0000, "bits past 31 lost");
    assert_eq!(bfi(36, 0, 0xff, 0), 0xf, "width masked to 5 bits");
    assert_eq!(bfi(4, 4, 0, u32::MAX), 0xffff_ff0f);
    assert_eq!(bfrev(0x1234_5678), 0x1e6a_2c48);
    assert_eq!(countbits(0xf0f0_0001), 9);
    assert_eq!(firstbit_hi(0x1000_0000), 3, "counted from the MSB");
    assert_eq!(firstbit_hi(1), 31);
    assert_eq!(firstbit_hi(0), u32::MAX);
    assert_eq!(firstbit_lo(1), 0);
    assert_eq!(firstbit_lo(0x8000_0000), 31);
    assert_eq!(firstbit_lo(0), u32::MAX);
    assert_eq!(firstbit_shi(u32::MAX), u32::MAX, "-1: no 0 bit");
    assert_eq!(firstbit_shi(0), u32::MAX);
    assert_eq!(
        firstbit_shi((-2i32) as u32),
        31,
        "first 0 from the MSB of ...1110"
    );
    assert_eq!(firstbit_shi(0xf000_0000), 4);
    assert_eq!(firstbit_shi(1), 31);
    assert_eq!(msad(0x0102_0300, 0x0301_0aff, 10), 10 + 7 + 1 + 2);
    assert_eq!(msad(0xffff_ffff, 0, u32::MAX - 300), u32::MAX, "saturates");
}

/// Per-bit definitions of the bitfield ops: the field is bits [o, min(o + w, 32)).
fn field_end(w: u32, o: u32) -> u32 {
    (o + w).min(32)
}

proptest! {
    #[test]
    fn ubfe_ibfe_match_the_bit_definition(w in 0u32..64, o in 0u32..64, src: u32) {
        let (we, oe) = (w % 32, o % 32);
        let end = field_end(we, oe);
        let mut u = 0u32;
        for i in oe..end {
            u |= (src >> i & 1) << (i - oe);
        }
        let n = end - oe; // bits in the field: 1 to 31 when the width is not 0
        let expect_i = if we == 0 {
            0
        } else if src >> (end - 1) & 1 == 1 {
            u | u32::MAX << n
        } else {
            u
        };
        prop_assert_eq!(ubfe(w, o, src), if we == 0 { 0 } else { u });
        prop_assert_eq!(ibfe(w, o, src), expect_i);
    }

    #[test]
    fn bfi_matches_the_bit_definition(w in 0u32..64, o in 0u32..64, ins: u32, base: u32) {
        let (we, oe) = (w % 32, o % 32);
        let mut expect = base;
        for j in oe..field_end(we, oe) {
            expect = expect & !(1 << j) | (ins >> (j - oe) & 1) << j;
        }
        prop_assert_eq!(bfi(w, o, ins, base), expect);
    }

    #[test]
    fn bit_scans_match_loops(x: u32) {
        let hi = (0..32).find(|&i| x >> (31 - i) & 1 == 1).unwrap_or(u32::MAX);
        let lo = (0..32).find(|&i| x >> i & 1 == 1).unwrap_or(u32::MAX);
        prop_assert_eq!(firstbit_hi(x), hi);
        prop_assert_eq!(firstbit_lo(x), lo);
        let want = if x >> 31 == 1 { 0 } else { 1 };
        let shi = (0..32).find(|&i| x >> (31 - i) & 1 == want).unwrap_or(u32::MAX);
        prop_assert_eq!(firstbit_shi(x), shi);
        let mut rev = 0;
        for i in 0..32 {
            rev |= (x >> i & 1) << (31 - i);
        }
        prop_assert_eq!(bfrev(x), rev);
        prop_assert_eq!(countbits(x), (0..32).filter(|&i| x >> i & 1 == 1).count() as u32);
    }

    #[test]
    fn wide_products_and_carries_match_i128(a: u32, c: u32) {
        let s = a as i32 as i128 * c as i32 as i128;
        prop_assert_eq!(imul(a, c), ((s >> 32) as u32, s as u32));
        let u = a as u128 * c as u128;
        prop_assert_eq!(umul(a, c), ((u >> 32) as u32, u as u32));
        let sum = a as u64 + c as u64;
        prop_assert_eq!(uaddc(a, c), (sum as u32, (sum >> 32) as u32));
        prop_assert_eq!(usubb(a, c), (a.wrapping_sub(c), (a < c) as u32));
    }

    #[test]
    fn float_results_are_never_denormal_and_nan_is_canonical(x: u32, y: u32) {
        for r in [add(x, y), mul(x, y), div(x, y), mad(x, y, x), min(x, y), max(x, y),
                  sqrt(x), rsq(x), rcp(x), exp(x), log(x), sincos(x).0, sincos(x).1, frc(x),
                  round_ne(x), round_z(x), sat(x)] {
            prop_assert!(r & 0x7f80_0000 != 0 || r & 0x7fff_ffff == 0, "{:#x}", r);
            if f32::from_bits(r).is_nan() {
                prop_assert_eq!(r, CANONICAL_NAN);
            }
        }
        let f = frc(x);
        prop_assert!(f32::from_bits(f).is_nan() || (0.0..1.0).contains(&f32::from_bits(f)));
        // add and mul commute; eq/ne are complements; lt/ge are complements without NaN.
        prop_assert_eq!(add(x, y), add(y, x));
        prop_assert_eq!(mul(x, y), mul(y, x));
        prop_assert_eq!(eq(x, y) ^ ne(x, y), TRUE);
        let nan = fin(x).is_nan() || fin(y).is_nan();
        if !nan {
            prop_assert_eq!(lt(x, y) ^ ge(x, y), TRUE);
        }
        // min and max return one of the flushed operands (or NaN when both are NaN), and
        // min <= max.
        let (mn, mx) = (min(x, y), max(x, y));
        if !(fin(x).is_nan() && fin(y).is_nan()) {
            prop_assert!(mn == flush(x) || mn == flush(y));
            prop_assert!(mx == flush(x) || mx == flush(y));
            prop_assert!(f32::from_bits(mn) <= f32::from_bits(mx));
        }
        prop_assert_eq!(min(x, y), min(y, x));
        prop_assert_eq!(max(x, y), max(y, x));
    }
}
