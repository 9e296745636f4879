//! The atomics' update rule and the warp operations' lane rules (docs/semantics.md §22b,
//! §22c), one lane (or one pair of lanes) at a time.

use crate::ir::{AtomOp, AtomType, BarRedOp, ShflMode, VoteMode};

/// The result of a barrier reduction (`BAR.RED`, docs/semantics.md §30) over the threads that
/// arrived with it: `trues` of the `threads` held the predicate. `.POPC` gives the count,
/// `.AND` 1 when every one held it (also when none arrived), `.OR` 1 when some did.
pub fn bar_red_result(op: BarRedOp, trues: u32, threads: u32) -> u32 {
    match op {
        BarRedOp::Popc => trues,
        BarRedOp::And => (trues == threads) as u32,
        BarRedOp::Or => (trues != 0) as u32,
    }
}

/// A binary32 value with its subnormals flushed to a zero of the same sign (`.FTZ`).
#[inline]
fn ftz(v: u32) -> u32 {
    if v & 0x7f80_0000 == 0 {
        v & 0x8000_0000
    } else {
        v
    }
}

/// `.F32.FTZ.RN` addition: subnormal inputs and result flushed to signed zero, the sum rounded
/// to nearest even, every NaN result 0x7fffffff.
pub fn f32_add_ftz(a: u32, b: u32) -> u32 {
    let s = f32::from_bits(ftz(a)) + f32::from_bits(ftz(b));
    if s.is_nan() {
        0x7fff_ffff
    } else {
        ftz(s.to_bits())
    }
}

/// The value an atomic stores, given the old value `old`, its operand `b` (the compare value
/// of `.CAS`) and, for `.CAS`, the swap value `c`. 32-bit types use the low 32 bits of each
/// and return a zero-extended result.
pub fn atom_apply(op: AtomOp, ty: AtomType, old: u64, b: u64, c: u64) -> u64 {
    let wide = ty.regs() == 2;
    let mask = if wide { u64::MAX } else { u32::MAX as u64 };
    let (old, b, c) = (old & mask, b & mask, c & mask);
    // Values as signed integers of the type's width, for MIN and MAX.
    let signed = |v: u64| {
        if wide {
            v as i64
        } else {
            v as u32 as i32 as i64
        }
    };
    let r = match op {
        AtomOp::Add if ty == AtomType::F32 => f32_add_ftz(old as u32, b as u32) as u64,
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::Min | AtomOp::Max => {
            let less = match ty {
                AtomType::S32 | AtomType::S64 => signed(b) < signed(old),
                _ => b < old,
            };
            if less == (op == AtomOp::Min) {
                b
            } else {
                old
            }
        }
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
    };
    r & mask
}

/// SHFL's source lane for `lane` and whether it is in range, from the lane operand `b` (bits
/// 0-4 used) and `c` (clamp in bits 0-4, segment mask in bits 8-12), as PTX `shfl` defines it.
/// Out of range, the source is the lane itself.
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (lane, b) = (lane as i32, (b & 0x1f) as i32);
    let clamp = (c & 0x1f) as i32;
    let seg = ((c >> 8) & 0x1f) as i32;
    let max_lane = (lane & seg) | (clamp & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        ShflMode::Up => (lane - b, lane - b >= max_lane),
        ShflMode::Down => (lane + b, lane + b <= max_lane),
        ShflMode::Bfly => (lane ^ b, (lane ^ b) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (b & !seg);
            (j, j <= max_lane)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane as u32, false)
    }
}

/// VOTE's result over the executing lanes `mask`, given the lanes where the predicate holds
/// (`ballot`, already restricted to `mask`).
pub fn vote(mode: VoteMode, mask: u32, ballot: u32) -> bool {
    match mode {
        VoteMode::All => ballot == mask,
        VoteMode::Any => ballot != 0,
        VoteMode::Eq => ballot == 0 || ballot == mask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inc_dec_wrap_at_the_operand() {
        // PTX atom.inc: ((old >= b) ? 0 : old + 1); atom.dec: ((old == 0) || (old > b)) ? b : old - 1.
        let inc = |o, b| atom_apply(AtomOp::Inc, AtomType::U32, o, b, 0);
        let dec = |o, b| atom_apply(AtomOp::Dec, AtomType::U32, o, b, 0);
        assert_eq!([inc(0, 5), inc(4, 5), inc(5, 5), inc(9, 5)], [1, 5, 0, 0]);
        assert_eq!([dec(0, 3), dec(1, 3), dec(3, 3), dec(7, 3)], [3, 0, 2, 3]);
    }

    #[test]
    fn f32_add_flushes_and_canonicalises() {
        assert_eq!(f32_add_ftz(0x3f80_0000, 0x0000_0001), 0x3f80_0000);
        assert_eq!(f32_add_ftz(0x8000_0001, 0x0000_0000), 0x0000_0000);
        assert_eq!(f32_add_ftz(0x0080_0000, 0x8070_0000), 0x0080_0000);
        assert_eq!(f32_add_ftz(0x0080_0001, 0x8080_0000), 0x0000_0000);
        assert_eq!(f32_add_ftz(0x7f80_0000, 0xff80_0000), 0x7fff_ffff);
        assert_eq!(f32_add_ftz(0x3fc0_0000, 0x3fc0_0000), 0x4040_0000);
    }

    #[test]
    fn shfl_sources_follow_ptx() {
        assert_eq!(shfl_source(ShflMode::Down, 30, 4, 0x1f), (30, false));
        assert_eq!(shfl_source(ShflMode::Down, 3, 4, 0x1f), (7, true));
        assert_eq!(shfl_source(ShflMode::Up, 2, 3, 0), (2, false));
        assert_eq!(shfl_source(ShflMode::Up, 9, 3, 0x1800), (9, false));
        assert_eq!(shfl_source(ShflMode::Up, 11, 3, 0x1800), (8, true));
        assert_eq!(shfl_source(ShflMode::Bfly, 5, 16, 0x1f), (21, true));
        assert_eq!(shfl_source(ShflMode::Idx, 13, 2, 0x1c1f), (14, true));
        assert_eq!(shfl_source(ShflMode::Idx, 13, 7, 0x1c02), (13, false));
    }
}
