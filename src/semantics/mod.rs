//! Rules both engines need, defined once: pure functions of one lane's values.
//!
//! The interpreter calls these functions; the JIT calls them at compile time where their inputs
//! are constants (the carry rules) and otherwise mirrors them in generated code, with a comment at
//! the mirror pointing here and a test (`jit::tests::semantics_mirrors`,
//! `jit::tests::effective_address_mirror`, `jit::tests::bit_ops_mirror_the_interpreter`) that runs the generated code on edge values and
//! compares it with these functions.
//!
//! | rule | here | docs/semantics.md |
//! |---|---|---|
//! | +1s of negated operands, `.X`, `.PO` | [`add_ones`], [`iadd3_ones`] | §21 |
//! | effective global/generic address | [`effective`] | §16 |
//! | LDC bank and address per mode, and which reads are in range | [`ldc_address`], [`ldc_readable`] | §17 |
//! | LEA's window predicate (Plg and CC.OF) | [`lea_outside_window`] | §15, §19 |
//! | SHF's funnel shift, FLO's leading one, ICMP's test of Rc | [`shf`], [`flo`], [`icmp_zero`] | §22 |
//! | SHL, SHR, LOP3's table, BFE, BFI, PRMT's default mode, P2R | [`bits`] | §22 |
//! | IMADSP's parts and multiply-add | [`imadsp`] | §22a |
//! | the zero test of LOP, LOP32I, LOP3, SHL, SHR and I2I (`.X`, `.CC`, `.Z`/`.NZ`) | [`logic_zero`] | §21 |
//! | IADD.SAT's and IADD32I.SAT's clamped sum (through the JIT's lane routine) | [`iadd_sat`] | §21 |
//! | the video instructions VMNMX, VABSDIFF, VABSDIFF4 (through the JIT's lane routine) | [`vmnmx`], [`vabsdiff`], [`vabsdiff4`] | §22e |
//! | Direct3D 11 float and integer arithmetic (DXBC) | [`d3d`] | DXBC numerics |
//! | what each per-lane function op computes | [`func`] | DXBC numerics |
//! | IEEE binary32/binary64 add, mul, fma and conversions in every rounding mode | [`ieee`] | §28 |
//! | conversions (I2F, F2I, F2F, I2I) and the binary64 instructions | [`convert`] | §29 |
//! | a `BRX` lane's target and the block it goes to | [`brx_target`], [`brx_block`] | §31 |
//! | texture sampling (`sample*`, `gather4*`, `lod`) and screen-space derivatives | [`sample`] | §32, §33 |

pub mod bits;
pub mod cc;
pub mod convert;
pub mod d3d;
pub mod float;
pub mod func;
pub mod ieee;
pub mod sample;
pub mod warp;

pub use bits::{bfe, bfi, lut3, p2r_bits, p2r_merge, prmt, shl, shr};

use crate::ir::{
    Addr, Cmp, Iadd3, ImnmxMode, LdcMode, PrmtMode, ShfType, Video, VideoPart, VideoSecond,
};
use warpjit_runtime::helpers::window_detect;
use warpjit_runtime::{BadTarget, WarpState};

/// A `BRX` lane's target address (docs/semantics.md §31): `pc + 8 + value + offset`, computed
/// exactly, the register's `value` as a signed 32-bit number.
pub fn brx_target(pc: u32, offset: i32, value: u32) -> i64 {
    i64::from(pc) + 8 + i64::from(value as i32) + i64::from(offset)
}

/// The block a `BRX` lane whose target is `t` ([`brx_target`]) goes to, among the branch's
/// declared targets `table` (docs/semantics.md §31). An address at a multiple of 0x20, where a
/// group of three instructions starts with its scheduling word, means the group's first
/// instruction, as for a `BRA` target (ptxas's jump tables hold such addresses). Any other
/// address is a fault: outside the code of `prog` (the program the branch is in), not at one of
/// its instructions, or an instruction the branch does not declare.
pub fn brx_block(
    prog: &crate::ir::Program,
    table: &crate::ir::JumpTable,
    t: i64,
) -> Result<crate::ir::BlockId, BadTarget> {
    let find = |t: i64| {
        let t = u32::try_from(t).ok()?;
        let i = table.targets.binary_search_by_key(&t, |e| e.0).ok()?;
        Some(table.targets[i].1)
    };
    let group = t.rem_euclid(0x20) == 0;
    if let Some(b) = find(t).or_else(|| find(t + 8).filter(|_| group)) {
        return Ok(b);
    }
    // Why not (a fault's slow path).
    let at = |t: i64| u32::try_from(t).is_ok_and(|t| prog.has_instruction_at(t));
    if at(t) || (group && at(t + 8)) {
        return Err(BadTarget::Undeclared);
    }
    // The code's first group starts with a scheduling word, 8 bytes before its first
    // instruction.
    let inside = prog
        .pc_extent()
        .is_some_and(|(lo, hi)| t >= i64::from(lo) - 8 && t < i64::from(hi) + 8);
    Err(if inside {
        BadTarget::NotInstruction
    } else {
        BadTarget::Outside
    })
}

/// A video operand's value (docs/semantics.md §22e): `part` of `v`, sign-extended when
/// `signed`, else zero-extended (a word extends to 33 bits: an unsigned word stays positive).
pub fn video_operand(v: u32, part: VideoPart, signed: bool) -> i64 {
    let (bits, shift) = match part {
        VideoPart::Byte(i) => (8, 8 * (i as u32 & 3)),
        VideoPart::Half(i) => (16, 16 * (i as u32 & 1)),
        VideoPart::Word => (32, 0),
    };
    let x = (v >> shift) as u64 & ((1u64 << bits) - 1);
    if signed && x >> (bits - 1) & 1 != 0 {
        x as i64 - (1i64 << bits)
    } else {
        x as i64
    }
}

/// One lane of VMNMX (`op` the minimum or maximum) or VABSDIFF (`op` the absolute difference)
/// after the primary operation `t` on the 33-bit operands (docs/semantics.md §22e): `.SAT`
/// clamps `t` to the destination type (a byte or half for the 8- and 16-bit merges), then the
/// secondary step combines its low 32 bits with `c`; `.MIN`/`.MAX` compare 32-bit values, signed
/// with `.SD`.
pub fn video_finish(v: &Video, t: i64, c: u32) -> u32 {
    let bits = match v.second {
        VideoSecond::Mrg16h | VideoSecond::Mrg16l => 16,
        VideoSecond::Mrg8b0 | VideoSecond::Mrg8b2 => 8,
        _ => 32,
    };
    let t = if v.sat {
        let (lo, hi) = if v.d_signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        };
        t.clamp(lo, hi)
    } else {
        t
    } as u32;
    let less = |x: u32, y: u32| {
        if v.d_signed {
            (x as i32) < (y as i32)
        } else {
            x < y
        }
    };
    match v.second {
        VideoSecond::Mrg16h => (c & 0xffff) | t << 16,
        VideoSecond::Mrg16l => (c & 0xffff_0000) | (t & 0xffff),
        VideoSecond::Mrg8b0 => (c & !0xff) | (t & 0xff),
        VideoSecond::Mrg8b2 => (c & !0xff_0000) | (t & 0xff) << 16,
        VideoSecond::Acc => t.wrapping_add(c),
        VideoSecond::Min => {
            if less(c, t) {
                c
            } else {
                t
            }
        }
        VideoSecond::Max => {
            if less(t, c) {
                c
            } else {
                t
            }
        }
        VideoSecond::Plain => t,
    }
}

/// A video instruction's two operands, `Ra` and `Sb`, as [`video_operand`] reads them.
fn video_operands(v: &Video, a: u32, b: u32) -> (i64, i64) {
    (
        video_operand(a, v.a_part, v.a_signed),
        video_operand(b, v.b_part, v.b_signed),
    )
}

/// One lane of VMNMX (docs/semantics.md §22e): `max` is `.MX`.
pub fn vmnmx(v: &Video, max: bool, a: u32, b: u32, c: u32) -> u32 {
    let (x, y) = video_operands(v, a, b);
    video_finish(v, if max { x.max(y) } else { x.min(y) }, c)
}

/// One lane of VABSDIFF (docs/semantics.md §22e).
pub fn vabsdiff(v: &Video, a: u32, b: u32, c: u32) -> u32 {
    let (x, y) = video_operands(v, a, b);
    video_finish(v, (x - y).abs(), c)
}

/// One lane of VABSDIFF4 (docs/semantics.md §22e).
pub fn vabsdiff4(o: &crate::ir::Vabsdiff4, a: u32, b: u32, c: u32) -> u32 {
    let byte = |v: u32, i: u32, signed: bool| {
        let x = (v >> (8 * i)) as u8;
        if signed {
            i32::from(x as i8)
        } else {
            i32::from(x)
        }
    };
    let t = |i: u32| {
        let t = (byte(a, i, o.a_signed) - byte(b, i, o.b_signed)).unsigned_abs();
        match (o.sat, o.d_signed) {
            (true, true) => t.min(0x7f),
            (true, false) => t.min(0xff),
            (false, _) => t,
        }
    };
    if o.acc {
        (0..4).fold(c, |s, i| s.wrapping_add(t(i)))
    } else {
        (0..4).fold(0, |d, i| d | (t(i) & 0xff) << (8 * i))
    }
}

/// One lane of IADD.SAT and IADD32I.SAT (docs/semantics.md §21): `[-]a + [-]b` on the operands as signed 32-bit
/// values, exactly, clamped to [-2^31, 2^31 - 1].
pub fn iadd_sat(neg_a: bool, a: u32, neg_b: bool, b: u32) -> u32 {
    let v = |neg: bool, x: u32| {
        let x = i64::from(x as i32);
        if neg {
            -x
        } else {
            x
        }
    };
    (v(neg_a, a) + v(neg_b, b)).clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32
}

/// One lane of IMNMX (docs/semantics.md §22, §22a): `min` is Pp; `zf`, `sf` are the flags
/// `.XLO` reads. Returns the result and, for `.XHI`, the flags its `.CC` writes: ZF = (a == b),
/// SF = (a < b) in the instruction's signedness (CF and OF are cleared). `.XLO` takes a whole
/// side: when ZF is set (equal high words) the smaller (or larger) of a and b, else a when the
/// high-word comparison chose a's side (SF for min, not SF for max), else b.
pub fn imnmx(
    mode: ImnmxMode,
    unsigned: bool,
    min: bool,
    a: u32,
    b: u32,
    zf: bool,
    sf: bool,
) -> (u32, bool, bool) {
    let lt = if unsigned {
        a < b
    } else {
        (a as i32) < (b as i32)
    };
    let gt = if unsigned {
        a > b
    } else {
        (a as i32) > (b as i32)
    };
    let take_a = match mode {
        ImnmxMode::Xlo if !zf => {
            if min {
                sf
            } else {
                !sf
            }
        }
        _ => {
            if min {
                lt
            } else {
                gt
            }
        }
    };
    (if take_a { a } else { b }, a == b, lt)
}

/// An XMAD operand (docs/semantics.md §22, XMAD): the low half of `v`, or with `h1` the high
/// half; sign-extended when `signed`.
#[inline(always)]
pub fn xmad_half(v: u32, h1: bool, signed: bool) -> u32 {
    let h = if h1 { v >> 16 } else { v & 0xffff };
    if signed {
        h as u16 as i16 as i32 as u32
    } else {
        h
    }
}

/// What XMAD `.CSFU` subtracts from its addend (docs/semantics.md §22a): 0x10000 for each
/// operand half that is read signed and is negative while the *other* half of the other
/// operand's 32-bit value is nonzero (a's high half and b's low half, and so on), that is, for
/// each of the two cross products of a 32 × 32 multiplication that is negative. With it,
/// ptxas's four-XMAD `mul.hi.s32` sequence gives the exact high word.
pub fn xmad_csfu(a: u32, a_h1: bool, a_signed: bool, b: u32, b_h1: bool, b_signed: bool) -> u32 {
    let neg =
        |v: u32, h1: bool, signed: bool| signed && (if h1 { v >> 31 } else { v >> 15 & 1 }) != 0;
    let other = |v: u32, h1: bool| (if h1 { v & 0xffff } else { v >> 16 }) != 0;
    let n = (neg(a, a_h1, a_signed) && other(b, b_h1)) as u32
        + (neg(b, b_h1, b_signed) && other(a, a_h1)) as u32;
    n << 16
}

/// The default-mode PRMT selector a mode's selector `sel` stands for (docs/semantics.md §22a):
/// the default mode returns `sel`; the others use `s` = `sel[1:0]` and pick, for result byte *i*,
/// source byte (`F4E`) *s* + *i* mod 8, (`B4E`) *s* − *i* mod 8, (`RC8`) *s*, (`ECL`)
/// max(*i*, *s*), (`ECR`) min(*i*, *s*), (`RC16`) 2·(*s* & 1) + (*i* & 1), PTX `prmt`'s tables,
/// without sign replication.
pub fn prmt_selector(mode: PrmtMode, sel: u32) -> u32 {
    let s = sel & 3;
    let byte = |i: u32| match mode {
        PrmtMode::Idx => sel >> (4 * i) & 0xf,
        PrmtMode::F4e => (s + i) & 7,
        PrmtMode::B4e => (s + 8 - i) & 7,
        PrmtMode::Rc8 => s,
        PrmtMode::Ecl => s.max(i),
        PrmtMode::Ecr => s.min(i),
        PrmtMode::Rc16 => 2 * (s & 1) + (i & 1),
    };
    (0..4).map(|i| byte(i) << (4 * i)).sum()
}

/// IMUL's and IMAD's product word (docs/semantics.md §22a): the low word of Ra × Sb, or with
/// `hi` the high word of the exact 64-bit product of the operands read signed or unsigned.
pub fn imul(a: u32, b: u32, a_signed: bool, b_signed: bool, hi: bool) -> u32 {
    if !hi {
        return a.wrapping_mul(b);
    }
    let wide = |v: u32, s: bool| if s { v as i32 as i64 } else { v as i64 };
    // |product| < 2^64 for 32-bit factors: i128 holds it exactly.
    let p = wide(a, a_signed) as i128 * wide(b, b_signed) as i128;
    (p >> 32) as u32
}

/// The constant part of an add's extra term: one per negated operand (`-b` is `~b + 1`), minus
/// the one that the carry in replaces with `.X`, plus one for `.PO` (docs/semantics.md §21).
#[inline(always)]
pub fn add_ones(negs: u32, x: bool, po: bool) -> u32 {
    negs - (x && negs > 0) as u32 + po as u32
}

/// The +1 of each negated IADD3 operand (A, B, C), added in the add that holds the operand;
/// with `.X` none: the high words of a wide sum take the low words' carry (CF + OF) instead,
/// which already holds every negated operand's +1 (docs/semantics.md §21).
#[inline(always)]
pub fn iadd3_ones(o: &Iadd3) -> [u32; 3] {
    if o.x {
        return [0; 3];
    }
    [o.a.neg as u32, o.b.neg as u32, o.c.neg as u32]
}

/// The effective global/generic address of lane `l` (docs/semantics.md §16): 32-bit
/// zero-extended, or the 64-bit pair `{Ra+1, Ra}` with `.E`; absolute when the address has no
/// base register. Not yet aligned down to the access size.
#[inline(always)]
pub fn effective(w: &WarpState, addr: Addr, e: bool, l: usize) -> u64 {
    let base = addr.base.map(|r| {
        let hi = if e { w.regs[r.offset(1).index()][l] } else { 0 };
        (w.regs[r.index()][l], hi)
    });
    effective_of(base, addr.offset, e)
}

/// [`effective`] from the lane's values: `base` is `(Ra, Ra+1)` (the second read only with
/// `.E`), `None` for an absolute address. The JIT's lane routine calls this too.
#[inline(always)]
pub fn effective_of(base: Option<(u32, u32)>, offset: i32, e: bool) -> u64 {
    match base {
        None => offset as u32 as u64,
        Some((lo, hi)) if e => ((hi as u64) << 32 | lo as u64).wrapping_add(offset as i64 as u64),
        Some((lo, _)) => lo.wrapping_add(offset as u32) as u64,
    }
}

/// The bank and (signed) byte address one lane of an indexed `LDC` reads (docs/semantics.md
/// §17), from the instruction's bank `imm5`, its immediate `imm` and the lane's `ra`:
///
/// - IA: bank `imm5`, address `ra + imm` (32-bit wrap);
/// - IL: `t = ra + imm`; bank `imm5 + t[31:16]`, address `t[15:0]`;
/// - IS and ISL: bank `imm5 + ra[31:16]`, address `imm + ra[15:0]` (may be negative).
///
/// With `Ra = RZ` the immediate is the unsigned 16-bit address and every mode gives
/// (`imm5`, `imm`); callers use that directly.
#[inline(always)]
pub fn ldc_address(mode: LdcMode, imm5: u32, imm: i32, ra: u32) -> (u32, i64) {
    match mode {
        LdcMode::Ia => (imm5, ra.wrapping_add(imm as u32) as i64),
        LdcMode::Il => {
            let t = ra.wrapping_add(imm as u32);
            (imm5 + (t >> 16), (t & 0xffff) as i64)
        }
        LdcMode::Is | LdcMode::Isl => (imm5 + (ra >> 16), imm as i64 + (ra & 0xffff) as i64),
    }
}

/// Whether an aligned `size`-byte `LDC` read at (`bank`, `addr`) returns data (docs/semantics.md
/// §17): the whole read inside the 64 KiB bank, a bank available in the launch's mode (`nbanks`),
/// and for ISL a bank of at most 13. Any other read returns 0. (Alignment is checked first: a
/// misaligned read faults.)
#[inline(always)]
pub fn ldc_readable(bank: u32, addr: i64, size: u32, nbanks: u32, isl: bool) -> bool {
    (0..0x1_0000 - size as i64 + 1).contains(&addr) && bank < nbanks.min(32) && !(isl && bank > 13)
}

/// LEA's window predicate, the value of both Plg and CC.OF (docs/semantics.md §15, §19): true
/// when the effective address is *not* in the shared window at `window`. The effective address is
/// the zero-extended result `rd` for `.LO`, and `{rd, lea_lo}` (the LEA.LO word of the same lane as
/// the low half) for `.HI`.
#[inline(always)]
pub fn lea_outside_window(window: u64, hi: bool, rd: u32, lea_lo: u32) -> bool {
    let ea = if hi {
        (rd as u64) << 32 | lea_lo as u64
    } else {
        rd as u64
    };
    !window_detect(window, ea)
}

/// SHF on one lane (docs/semantics.md §22): `a` the low word, `s` the amount, `c` the high
/// word; `right`, `w`, `ty` and `hi` as in [`Shf`](crate::ir::Shf).
pub fn shf(right: bool, w: bool, ty: ShfType, hi: bool, a: u32, s: u32, c: u32) -> u32 {
    let bits = if ty == ShfType::B32 { 32 } else { 64 };
    let n = if w { s & (bits - 1) } else { s.min(bits) };
    let x = (c as u64) << 32 | a as u64;
    if !right {
        // The high word of x << n (n = 64 shifts everything out).
        return (x.checked_shl(n).unwrap_or(0) >> 32) as u32;
    }
    let v = if ty == ShfType::S64 {
        let x = x as i64;
        x.checked_shr(n).unwrap_or(x >> 63) as u64
    } else {
        x.checked_shr(n).unwrap_or(0)
    };
    if hi {
        (v >> 32) as u32
    } else {
        v as u32
    }
}

/// IMADSP on one lane (docs/semantics.md §22a): low32(part_a(a) × part_b(b) + part_c(c)).
/// Each part is the operand's value mod 2^32 after its extension, so the low word of the
/// exact product and sum is that of the 32-bit wrapping arithmetic.
pub fn imadsp(o: &crate::ir::Imadsp, a: u32, b: u32, c: u32) -> u32 {
    o.pa.of(a).wrapping_mul(o.pb.of(b)).wrapping_add(o.pc.of(c))
}

/// The zero test of the logic, shift and I2I ops on one lane (docs/semantics.md §21): the
/// result `r` is zero and, with `.X` (`x`), the flag ZF (`zf`, the zero test of the earlier
/// words of a wide value) is set too. `.CC` writes it as ZF; `.Z`/`.NZ` predicate outputs test
/// it. (`.CC` also writes SF = bit 31 of `r`, CF = OF = 0.)
pub fn logic_zero(r: u32, x: bool, zf: bool) -> bool {
    r == 0 && (!x || zf)
}

/// FLO on one lane (docs/semantics.md §22): `v` is the source after any `~`.
pub fn flo(signed: bool, sh: bool, v: u32) -> u32 {
    let v = if signed && (v as i32) < 0 { !v } else { v };
    if v == 0 {
        return u32::MAX;
    }
    let pos = 31 - v.leading_zeros();
    if sh {
        31 - pos
    } else {
        pos
    }
}

/// ICMP's test of one lane (docs/semantics.md §22): `c` compared with zero, signed unless
/// `unsigned`.
pub fn icmp_zero(cmp: Cmp, unsigned: bool, c: u32) -> bool {
    let v = if unsigned { c as i64 } else { c as i32 as i64 };
    match cmp {
        Cmp::F => false,
        Cmp::Lt => v < 0,
        Cmp::Eq => v == 0,
        Cmp::Le => v <= 0,
        Cmp::Gt => v > 0,
        Cmp::Ne => v != 0,
        Cmp::Ge => v >= 0,
        Cmp::T => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iadd_sat_clamps_the_exact_signed_sum() {
        let max = i32::MAX as u32;
        let min = i32::MIN as u32;
        assert_eq!(iadd_sat(false, max, false, 1), max);
        assert_eq!(iadd_sat(false, min, false, u32::MAX), min);
        assert_eq!(iadd_sat(false, 5, true, 7), (-2i32) as u32);
        // -INT_MIN is 2^31 exactly: 0 - INT_MIN saturates, -1 - INT_MIN does not.
        assert_eq!(iadd_sat(false, 0, true, min), max);
        assert_eq!(iadd_sat(false, u32::MAX, true, min), max);
        assert_eq!(iadd_sat(true, min, true, 1), max);
        assert_eq!(iadd_sat(true, 1, false, min), min);
        assert_eq!(iadd_sat(false, 0x4000_0000, false, 0x4000_0000), max);
    }

    #[test]
    fn vabsdiff4_bytes_and_accumulation() {
        let op = |signed: bool, d_signed: bool, sat: bool, acc: bool| crate::ir::Vabsdiff4 {
            d: crate::ir::Reg(0),
            d_signed,
            sat,
            acc,
            a: crate::ir::Reg(1),
            a_signed: signed,
            b: crate::ir::Reg(2),
            b_signed: signed,
            c: crate::ir::Reg(3),
        };
        let (a, b) = (0x80_ff_7f_00, 0x7f_00_80_ff);
        // Unsigned bytes: |0x80-0x7f|, |0xff-0x00|, |0x7f-0x80|, |0x00-0xff|.
        assert_eq!(
            vabsdiff4(&op(false, false, false, false), a, b, 7),
            0x01_ff_01_ff
        );
        assert_eq!(
            vabsdiff4(&op(false, false, false, true), a, b, 7),
            7 + 1 + 0xff + 1 + 0xff
        );
        // Signed bytes: |-128-127| = 255, |-1-0| = 1, |127-(-128)| = 255, |0-(-1)| = 1.
        assert_eq!(
            vabsdiff4(&op(true, false, false, false), a, b, 0),
            0xff_01_ff_01
        );
        // .SAT with a signed destination clamps each byte to 127; unsigned changes nothing.
        assert_eq!(
            vabsdiff4(&op(true, true, true, false), a, b, 0),
            0x7f_01_7f_01
        );
        assert_eq!(
            vabsdiff4(&op(true, false, true, false), a, b, 0),
            0xff_01_ff_01
        );
        // The accumulation wraps.
        assert_eq!(
            vabsdiff4(&op(true, false, false, true), a, b, u32::MAX),
            255 + 1 + 255
        );
    }

    #[test]
    fn ldc_modes_on_edge_values() {
        // IA wraps in 32 bits; IL carries into the bank; IS/ISL take the bank from Ra's high half
        // and may give a negative address.
        assert_eq!(ldc_address(LdcMode::Ia, 2, -4, 0), (2, 0xffff_fffc));
        assert_eq!(ldc_address(LdcMode::Il, 2, 4, 0xfffe), (3, 2));
        assert_eq!(ldc_address(LdcMode::Is, 1, -8, 0x0002_0004), (3, -4));
        assert_eq!(
            ldc_address(LdcMode::Isl, 0, 0x10, 0xffff_fff0),
            (0xffff, 0x1_0000)
        );
        assert!(ldc_readable(3, 0xfffc, 4, 18, false));
        assert!(!ldc_readable(3, 0xfffd, 4, 18, false));
        assert!(!ldc_readable(3, -4, 4, 18, false));
        assert!(
            !ldc_readable(14, 0, 4, 18, true),
            "ISL reaches banks 0 to 13"
        );
        assert!(!ldc_readable(32, 0, 4, 40, false), "at most 32 banks");
        assert!(!ldc_readable(18, 0, 4, 18, false), "banks of the mode only");
    }

    #[test]
    fn lea_window_edges() {
        let w = 0x0100_0000;
        assert!(!lea_outside_window(w, false, 0x0100_0000, 0));
        assert!(!lea_outside_window(w, false, 0x01ff_ffff, 0));
        assert!(lea_outside_window(w, false, 0x0200_0000, 0));
        assert!(
            lea_outside_window(w, true, 1, 0x0100_0000),
            "HI: bits above 32"
        );
        assert!(!lea_outside_window(w, true, 0, 0x0100_0000));
        // A window at 4 GiB: only HI can reach it.
        let hi = 0x1_0000_0000;
        assert!(lea_outside_window(hi, false, 0, 0));
        assert!(!lea_outside_window(hi, true, 1, 0));
        assert!(!lea_outside_window(hi, true, 1, 0xff_ffff));
        assert!(lea_outside_window(hi, true, 1, 0x100_0000));
    }

    #[test]
    fn carry_rules() {
        assert_eq!(add_ones(2, true, false), 1);
        assert_eq!(add_ones(0, true, true), 1);
        assert_eq!(add_ones(1, false, true), 2);
    }

    #[test]
    fn shf_edges() {
        let (lo, hi) = (0x8765_4321, 0x8000_0001);
        // Left: the high word of {hi, lo} << n, n clamped to 32 (32-bit) or 64.
        assert_eq!(shf(false, false, ShfType::B32, false, lo, 0, hi), hi);
        assert_eq!(
            shf(false, false, ShfType::B32, false, lo, 4, hi),
            0x0000_0018
        );
        assert_eq!(shf(false, false, ShfType::B32, false, lo, 32, hi), lo);
        assert_eq!(
            shf(false, false, ShfType::B32, false, lo, 40, hi),
            lo,
            "clamped"
        );
        assert_eq!(
            shf(false, true, ShfType::B32, false, lo, 36, hi),
            0x0000_0018,
            "wraps"
        );
        assert_eq!(
            shf(false, false, ShfType::U64, false, lo, 36, hi),
            0x7654_3210
        );
        assert_eq!(shf(false, false, ShfType::U64, false, lo, 64, hi), 0);
        assert_eq!(
            shf(false, true, ShfType::U64, false, lo, 64, hi),
            hi,
            "64 wraps to 0"
        );
        // Right: the low word (or .HI the high word) of {hi, lo} >> n.
        assert_eq!(
            shf(true, false, ShfType::B32, false, lo, 4, hi),
            0x1876_5432
        );
        assert_eq!(shf(true, false, ShfType::B32, true, lo, 4, hi), 0x0800_0000);
        assert_eq!(shf(true, false, ShfType::B32, false, lo, 99, hi), hi);
        assert_eq!(
            shf(true, false, ShfType::S64, false, lo, 36, hi),
            0xf800_0000
        );
        assert_eq!(
            shf(true, false, ShfType::U64, false, lo, 36, hi),
            0x0800_0000
        );
        assert_eq!(shf(true, false, ShfType::S64, true, lo, 64, hi), u32::MAX);
        assert_eq!(shf(true, false, ShfType::S64, false, lo, 64, hi), u32::MAX);
        assert_eq!(shf(true, false, ShfType::U64, true, lo, 64, hi), 0);
    }

    #[test]
    fn flo_edges() {
        assert_eq!(flo(false, false, 0), u32::MAX);
        assert_eq!(flo(false, true, 0), u32::MAX);
        assert_eq!(flo(false, false, 1), 0);
        assert_eq!(flo(false, true, 1), 31);
        assert_eq!(flo(false, false, 0x8000_0000), 31);
        assert_eq!(flo(true, false, 0x8000_0000), 30);
        assert_eq!(flo(true, false, u32::MAX), u32::MAX);
        assert_eq!(flo(true, true, 0xffff_fff0), 28);
    }

    #[test]
    fn icmp_zero_unsigned() {
        assert!(!icmp_zero(Cmp::Lt, true, u32::MAX));
        assert!(icmp_zero(Cmp::Lt, false, u32::MAX));
        assert!(icmp_zero(Cmp::Le, true, 0));
        assert!(icmp_zero(Cmp::Gt, true, 0x8000_0000));
        assert!(!icmp_zero(Cmp::Gt, false, 0x8000_0000));
    }
}
