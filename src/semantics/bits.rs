//! The bit-manipulation rules of the integer ops on one lane (docs/semantics.md §22): shifts,
//! LOP3's truth table, bit-field extract and insert, PRMT's default mode and P2R's gathering and
//! merge. The reference definitions (`crate::reference::alu`) apply them to every lane; the
//! JIT's lane routine (`crate::jit::view::warpjit_jit_lane_op`) calls them for the forms it does
//! not compile inline, and its inline code mirrors them.

use crate::ir::{P2rSrc, Shl, Shr};
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::LANES;

/// One value per lane.
type Row = [u32; LANES];

/// SHL on one value: `a` shifted left by `s` (`s & 31` with `.W`; 0 from 32 on).
#[inline]
pub fn shl(o: &Shl, a: u32, s: u32) -> u32 {
    let s = if o.w { s & 31 } else { s };
    if s >= 32 {
        0
    } else {
        a << s
    }
}

/// SHR on one value: `a` (bit-reversed first with `.BREV`) shifted right by `s` (`s & 31` with
/// `.W`), logically (0 from 32 on) or arithmetically (the sign from 31 on).
#[inline]
pub fn shr(o: &Shr, a: u32, s: u32) -> u32 {
    let a = if o.brev { a.reverse_bits() } else { a };
    let s = if o.w { s & 31 } else { s.min(32) };
    if o.unsigned {
        if s >= 32 {
            0
        } else {
            a >> s
        }
    } else {
        ((a as i32) >> s.min(31)) as u32
    }
}

/// LOP3's truth table as a bitwise function.
#[inline]
pub fn lut3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let pa = if i & 4 != 0 { a } else { !a };
            let pb = if i & 2 != 0 { b } else { !b };
            let pc = if i & 1 != 0 { c } else { !c };
            r |= pa & pb & pc;
        }
    }
    r
}

/// BFE on one value (docs/semantics.md §22).
#[inline]
pub fn bfe(a: u32, ctl: u32, signed: bool, brev: bool) -> u32 {
    let a = if brev { a.reverse_bits() } else { a };
    let pos = ctl & 0xff;
    let len = (ctl >> 8) & 0xff;
    if len == 0 {
        return 0;
    }
    if signed {
        let v = (a as i32 as i64) >> pos.min(63);
        if len >= 32 {
            v as u32
        } else {
            ((v << (64 - len)) >> (64 - len)) as u32
        }
    } else {
        let v = if pos >= 32 { 0 } else { a >> pos };
        if len >= 32 {
            v
        } else {
            v & ((1u32 << len) - 1)
        }
    }
}

/// BFI on one value.
#[inline]
pub fn bfi(a: u32, ctl: u32, c: u32) -> u32 {
    let pos = ctl & 0xff;
    let len = (ctl >> 8) & 0xff;
    if pos >= 32 || len == 0 {
        return c;
    }
    let len = len.min(32 - pos);
    let m = (((1u64 << len) - 1) << pos) as u32;
    (c & !m) | ((a << pos) & m)
}

/// The bits P2R gathers in each lane: predicates P0..P6 as bits 0..6 (`PR`), or ZF, SF, CF, OF
/// as bits 0..3 (`CC`), from the warp's predicate and CC masks.
#[inline]
pub fn p2r_bits(src: P2rSrc, preds: &[u32], cc: &[u32; 4]) -> Row {
    match src {
        P2rSrc::Pr => std::array::from_fn(|l| (0..7).map(|p| (preds[p] >> l & 1) << p).sum()),
        P2rSrc::Cc => std::array::from_fn(|l| {
            (cc[ZF] >> l & 1)
                | (cc[SF] >> l & 1) << 1
                | (cc[CF] >> l & 1) << 2
                | (cc[OF] >> l & 1) << 3
        }),
    }
}

/// P2R's result in one lane: byte `sh / 8` of `a` replaced by `bits` where the mask `m` has a
/// bit.
#[inline]
pub fn p2r_merge(sh: u32, a: u32, bits: u32, m: u32) -> u32 {
    let (bits, m) = ((bits & 0xff) << sh, (m & 0xff) << sh);
    (a & !m) | (bits & m)
}

/// PRMT's default mode on one value.
#[inline]
pub fn prmt(a: u32, sel: u32, c: u32) -> u32 {
    let src = (c as u64) << 32 | a as u64;
    let mut r = 0u32;
    for i in 0..4 {
        let n = sel >> (4 * i) & 0xf;
        let byte = (src >> (8 * (n & 7))) as u8;
        let out = if n & 8 != 0 {
            ((byte as i8) >> 7) as u8
        } else {
            byte
        };
        r |= (out as u32) << (8 * i);
    }
    r
}
