//! Direct3D 11 shader arithmetic (DXBC, shader models 4 and 5): pure per-lane functions on the
//! 32 bits of one register component, the same bits on every host.
//!
//! The float rules (docs/semantics.md, "DXBC numerics"):
//!
//! - IEEE 754 binary32 with round to nearest even for `add`, `mul`, `div`, `sqrt` and the
//!   int-to-float conversions; `mad` is unfused (the product is rounded, then the sum).
//! - Denormals are flushed to zero of the same sign on the input and on the output of every
//!   arithmetic op and comparison ([`flush`]); never by data movement (`mov`, `movc`, loads,
//!   stores, swizzles), which the callers do not route through here.
//! - A NaN result is always [`CANONICAL_NAN`] (the host's NaN payloads differ between x86 and
//!   Arm, and Direct3D leaves the pattern open): the JIT must canonicalise likewise.
//! - `rcp` and `rsq` are evaluated in binary64 and rounded to binary32; `exp`, `log` and `sincos`
//!   in binary64 by the `libm` crate (a pure Rust port of musl's libm, the same bits on every
//!   host), then rounded to binary32.
//! - `min`/`max` with one NaN operand return the other; `ftoi`/`ftou` truncate, saturate and
//!   give 0 for NaN; `_sat` ([`sat`]) clamps to [0, 1] with NaN to +0.
//!
//! Integer ops that Rust's operators would get wrong for Direct3D: shift counts masked to 5
//! bits, division by zero giving 0xffffffff, bitfields with 5-bit width and offset, the bit scans
//! giving 0xffffffff when there is no bit to find, carries and borrows as registers.

/// The NaN every float op here returns (quiet, positive, no payload: the pattern of
/// Cranelift's NaN canonicalisation as well).
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

/// `true` as a comparison writes it.
pub const TRUE: u32 = 0xffff_ffff;

/// A denormal flushed to zero of the same sign; other values unchanged.
#[inline]
pub fn flush(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// The f32 an op reads: flushed.
#[inline]
fn fin(x: u32) -> f32 {
    f32::from_bits(flush(x))
}

/// The bits an op writes: NaN canonical, denormals flushed.
#[inline]
fn fout(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        flush(x.to_bits())
    }
}

/// The `-` source modifier on a float operand: the sign bit flipped (NaN and denormals
/// included; the op that reads the operand flushes it).
pub fn fneg(a: u32) -> u32 {
    a ^ 0x8000_0000
}

/// The `_abs` source modifier on a float operand: the sign bit cleared (`-x_abs` is
/// `fneg(fabs(x))`).
pub fn fabs(a: u32) -> u32 {
    a & 0x7fff_ffff
}

/// `add`: a + b.
pub fn add(a: u32, b: u32) -> u32 {
    fout(fin(a) + fin(b))
}

/// `mul`: a * b.
pub fn mul(a: u32, b: u32) -> u32 {
    fout(fin(a) * fin(b))
}

/// `div`: a / b, correctly rounded (x / 0 is +-inf, 0 / 0 NaN).
pub fn div(a: u32, b: u32) -> u32 {
    fout(fin(a) / fin(b))
}

/// `mad`: a * b + c, unfused: the product rounded (and flushed), then the sum.
pub fn mad(a: u32, b: u32, c: u32) -> u32 {
    add(mul(a, b), c)
}

/// `dp2`/`dp3`/`dp4`: the sum of the products of `a[i]` and `b[i]`, evaluated left to right
/// as `mul` then `mad`s (each step rounded and flushed).
pub fn dp(a: &[u32], b: &[u32]) -> u32 {
    debug_assert!(!a.is_empty() && a.len() == b.len());
    let mut acc = mul(a[0], b[0]);
    for (&x, &y) in a.iter().zip(b).skip(1) {
        acc = mad(x, y, acc);
    }
    acc
}

/// `min`: the smaller of a and b after flushing; with one NaN the other operand, with two the
/// canonical NaN; -0 is below +0 (either order).
pub fn min(a: u32, b: u32) -> u32 {
    min_max(a, b, true)
}

/// `max`: the larger of a and b after flushing; with one NaN the other operand, with two the
/// canonical NaN; +0 is above -0 (either order).
pub fn max(a: u32, b: u32) -> u32 {
    min_max(a, b, false)
}

fn min_max(a: u32, b: u32, want_min: bool) -> u32 {
    let (a, b) = (flush(a), flush(b));
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == 0.0 && y == 0.0 => {
            // Zeros of either sign: min is -0 if either is, max is +0 if either is.
            let neg = if want_min {
                (a | b) >> 31
            } else {
                (a & b) >> 31
            };
            neg << 31
        }
        _ => {
            if (x < y) == want_min {
                a
            } else {
                b
            }
        }
    }
}

/// `sqrt`: correctly rounded (sqrt(-0) = -0, negative: NaN).
pub fn sqrt(a: u32) -> u32 {
    fout(fin(a).sqrt())
}

/// `rsq`: 1 / sqrt(a) in binary64, rounded to binary32 (rsq(+-0) = +-inf, negative: NaN).
pub fn rsq(a: u32) -> u32 {
    fout((1.0 / (fin(a) as f64).sqrt()) as f32)
}

/// `rcp`: 1 / a in binary64, rounded to binary32 (rcp(+-0) = +-inf).
pub fn rcp(a: u32) -> u32 {
    fout((1.0 / fin(a) as f64) as f32)
}

/// `exp`: 2^a, in binary64 by `libm::exp2`, rounded to binary32 (exp(-inf) = 0).
pub fn exp(a: u32) -> u32 {
    fout(libm::exp2(fin(a) as f64) as f32)
}

/// `log`: log2(a), in binary64 by `libm::log2`, rounded to binary32 (log(+-0) = -inf,
/// negative: NaN).
pub fn log(a: u32) -> u32 {
    fout(libm::log2(fin(a) as f64) as f32)
}

/// `sincos`: (sin a, cos a), in binary64 by `libm`, rounded to binary32 (infinities: NaN).
pub fn sincos(a: u32) -> (u32, u32) {
    let x = fin(a) as f64;
    (fout(libm::sin(x) as f32), fout(libm::cos(x) as f32))
}

/// `frc`: a - floor(a), in [+0, 1): a result that rounds to 1.0 (a tiny negative `a`) gives the
/// largest f32 below 1 instead; infinities and NaN give NaN.
pub fn frc(a: u32) -> u32 {
    let x = fin(a);
    let r = fout(x - x.floor());
    if r == 0x3f80_0000 {
        0x3f7f_ffff
    } else {
        r
    }
}

/// `round_ne`: to the nearest integral value, ties to even.
pub fn round_ne(a: u32) -> u32 {
    fout(fin(a).round_ties_even())
}

/// `round_ni`: toward -infinity (floor).
pub fn round_ni(a: u32) -> u32 {
    fout(fin(a).floor())
}

/// `round_pi`: toward +infinity (ceil).
pub fn round_pi(a: u32) -> u32 {
    fout(fin(a).ceil())
}

/// `round_z`: toward zero (truncate).
pub fn round_z(a: u32) -> u32 {
    fout(fin(a).trunc())
}

/// `_sat`: clamp to [0, 1] after flushing; NaN, -0 and negative values give +0.
pub fn sat(a: u32) -> u32 {
    let x = fin(a);
    if x > 1.0 {
        0x3f80_0000
    } else if x > 0.0 {
        x.to_bits()
    } else {
        0
    }
}

fn mask(b: bool) -> u32 {
    if b {
        TRUE
    } else {
        0
    }
}

/// `eq`: a == b (flushed; +0 equals -0; NaN: false), as 0xffffffff or 0.
pub fn eq(a: u32, b: u32) -> u32 {
    mask(fin(a) == fin(b))
}

/// `ne`: a != b (flushed; NaN: true).
pub fn ne(a: u32, b: u32) -> u32 {
    mask(fin(a) != fin(b))
}

/// `lt`: a < b (flushed; NaN: false).
pub fn lt(a: u32, b: u32) -> u32 {
    mask(fin(a) < fin(b))
}

/// `ge`: a >= b (flushed; NaN: false).
pub fn ge(a: u32, b: u32) -> u32 {
    mask(fin(a) >= fin(b))
}

/// `ftoi`: toward zero, saturating to the i32 range, NaN to 0.
pub fn ftoi(a: u32) -> u32 {
    fin(a) as i32 as u32
}

/// `ftou`: toward zero, saturating to the u32 range (negative to 0), NaN to 0.
pub fn ftou(a: u32) -> u32 {
    fin(a) as u32
}

/// `itof`: a signed integer to the nearest f32 (ties to even).
pub fn itof(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// `utof`: an unsigned integer to the nearest f32 (ties to even).
pub fn utof(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// `f32tof16`: the f16 nearest to a (ties to even) in the low 16 bits, the high 16 bits 0.
pub fn f32tof16(a: u32) -> u32 {
    warpjit_runtime::format::f32_to_f16(a) as u32
}

/// `f16tof32`: the f16 in the low 16 bits of a, exactly (NaN payloads kept).
pub fn f16tof32(a: u32) -> u32 {
    warpjit_runtime::format::f16_to_f32(a as u16)
}

/// `ishl`: a << (b & 31).
pub fn ishl(a: u32, b: u32) -> u32 {
    a << (b & 31)
}

/// `ishr`: arithmetic a >> (b & 31).
pub fn ishr(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}

/// `ushr`: logical a >> (b & 31).
pub fn ushr(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}

/// `udiv`: (quotient, remainder); division by zero gives 0xffffffff for both.
pub fn udiv(a: u32, b: u32) -> (u32, u32) {
    match (a.checked_div(b), a.checked_rem(b)) {
        (Some(q), Some(r)) => (q, r),
        _ => (u32::MAX, u32::MAX),
    }
}

/// `imul`: the signed 64-bit product as (high, low) words.
pub fn imul(a: u32, b: u32) -> (u32, u32) {
    let p = a as i32 as i64 * b as i32 as i64;
    ((p >> 32) as u32, p as u32)
}

/// `umul`: the unsigned 64-bit product as (high, low) words.
pub fn umul(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// `uaddc`: (a + b mod 2^32, carry out as 1 or 0).
pub fn uaddc(a: u32, b: u32) -> (u32, u32) {
    let (s, c) = a.overflowing_add(b);
    (s, c as u32)
}

/// `usubb`: (a - b mod 2^32, borrow as 1 or 0).
pub fn usubb(a: u32, b: u32) -> (u32, u32) {
    let (d, c) = a.overflowing_sub(b);
    (d, c as u32)
}

/// `ubfe`: `width` (low 5 bits) bits of `src` from bit `offset` (low 5 bits), zero-extended;
/// width 0 gives 0, and a field passing bit 31 is cut there.
pub fn ubfe(width: u32, offset: u32, src: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (src << (32 - (w + o))) >> (32 - w)
    } else {
        src >> o
    }
}

/// `ibfe`: as [`ubfe`], sign-extended from the field's top bit (a field cut at bit 31 takes
/// bit 31 as its sign).
pub fn ibfe(width: u32, offset: u32, src: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (((src << (32 - (w + o))) as i32) >> (32 - w)) as u32
    } else {
        ((src as i32) >> o) as u32
    }
}

/// `bfi`: `base` with `width` (low 5 bits) bits from bit `offset` (low 5 bits) replaced by the
/// low bits of `insert`; bits shifted past bit 31 are lost.
pub fn bfi(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    let (w, o) = (width & 31, offset & 31);
    let mask = ((1u32 << w) - 1) << o;
    ((insert << o) & mask) | (base & !mask)
}

/// `bfrev`: the bits in reverse order.
pub fn bfrev(a: u32) -> u32 {
    a.reverse_bits()
}

/// `countbits`: the number of set bits.
pub fn countbits(a: u32) -> u32 {
    a.count_ones()
}

/// `firstbit_hi`: the position of the highest set bit counted from the MSB (0 for bit 31), or
/// 0xffffffff for 0.
pub fn firstbit_hi(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}

/// `firstbit_lo`: the position of the lowest set bit counted from the LSB, or 0xffffffff for 0.
pub fn firstbit_lo(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}

/// `firstbit_shi`: for a negative value the first 0 from the MSB, else the first 1 (positions
/// counted from the MSB), or 0xffffffff for 0 and -1.
pub fn firstbit_shi(a: u32) -> u32 {
    firstbit_hi(if (a as i32) < 0 { !a } else { a })
}

/// `msad`: the masked sum of absolute differences of the bytes of `reference` and `src` (bytes
/// where `reference` is 0 skipped) added to `accum`, saturating at 0xffffffff (the recommended
/// overflow behaviour).
pub fn msad(reference: u32, src: u32, accum: u32) -> u32 {
    let mut acc = accum;
    for i in 0..4 {
        let r = (reference >> (8 * i)) as u8;
        if r == 0 {
            continue;
        }
        let s = (src >> (8 * i)) as u8;
        acc = acc.saturating_add(r.abs_diff(s) as u32);
    }
    acc
}

#[cfg(test)]
mod tests;
