//! The condition-code tests evaluated on lane masks: each [`CcTest`]'s formula is defined once,
//! as a [`CcExpr`](crate::ir::CcExpr) tree in `ir::cc`; the interpreter and the dispatcher call
//! [`cc_mask`], the JIT emits the same tree as scalar mask arithmetic.

use crate::ir::CcTest;

/// The lanes (bits) of `zf`, `sf`, `cf`, `of` for which test `t` holds.
pub fn cc_mask(t: CcTest, zf: u32, sf: u32, cf: u32, of: u32) -> u32 {
    t.expr().eval(zf, sf, cf, of)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One flag state, as bools: (ZF, SF, CF, OF).
    fn holds(t: CcTest, z: bool, s: bool, c: bool, o: bool) -> bool {
        cc_mask(t, z as u32, s as u32, c as u32, o as u32) & 1 != 0
    }

    /// The flags `IADD RZ.CC, a, -b` leaves (docs/semantics.md §21), computed here by hand.
    fn sub_flags(a: u32, b: u32) -> (bool, bool, bool, bool) {
        let wide = a as u64 + (!b) as u64 + 1;
        let r = wide as u32;
        let signed = a as i32 as i64 - b as i32 as i64;
        (
            r == 0,
            r >> 31 != 0,
            wide >> 32 != 0,
            signed != signed as i32 as i64,
        )
    }

    #[test]
    fn integer_comparisons_after_a_subtraction_mean_their_names() {
        let vals = [
            0u32,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_ffff,
            0x1234_5678,
        ];
        for &a in &vals {
            for &b in &vals {
                let (z, s, c, o) = sub_flags(a, b);
                let (sa, sb) = (a as i32, b as i32);
                let want = [
                    (CcTest::Lt, sa < sb),
                    (CcTest::Le, sa <= sb),
                    (CcTest::Gt, sa > sb),
                    (CcTest::Ge, sa >= sb),
                    (CcTest::Eq, a == b),
                    (CcTest::Ne, a != b),
                    (CcTest::Ltu, sa < sb),
                    (CcTest::Leu, sa <= sb),
                    (CcTest::Gtu, sa > sb),
                    (CcTest::Geu, sa >= sb),
                    (CcTest::Equ, a == b),
                    (CcTest::Neu, a != b),
                    (CcTest::Num, true),
                    (CcTest::Nan, false),
                    (CcTest::Lo, a < b),
                    (CcTest::Ls, a <= b),
                    (CcTest::Hi, a > b),
                    (CcTest::Hs, a >= b),
                ];
                for (t, w) in want {
                    assert_eq!(holds(t, z, s, c, o), w, "{t} after {a:#x} - {b:#x}");
                }
            }
        }
    }

    #[test]
    fn unordered_and_single_flag_tests() {
        // ZF and SF together: unordered.
        for (t, w) in [
            (CcTest::Nan, true),
            (CcTest::Num, false),
            (CcTest::Eq, false),
            (CcTest::Equ, true),
            (CcTest::Ne, false),
            (CcTest::Neu, true),
            (CcTest::Lt, false),
            (CcTest::Ltu, true),
            (CcTest::Gtu, true),
            (CcTest::Geu, true),
            (CcTest::Leu, true),
        ] {
            assert_eq!(holds(t, true, true, false, false), w, "{t} unordered");
        }
        for (t, f) in [
            (CcTest::Oft, 3),
            (CcTest::Hs, 2),
            (CcTest::Sft, 1),
            (CcTest::Off, 3),
            (CcTest::Lo, 2),
            (CcTest::Sff, 1),
        ] {
            let set = [f == 0, f == 1, f == 2, f == 3];
            let on = holds(t, set[0], set[1], set[2], set[3]);
            let off = holds(t, false, false, false, false);
            assert_eq!(on, t.code() >= 20, "{t} with its flag set");
            assert_eq!(off, t.code() < 20, "{t} with every flag clear");
        }
        assert_eq!(CcTest::Hi.expr().reads(), [true, false, true, false]);
        assert_eq!(CcTest::T.expr().reads(), [false; 4]);
        for t in CcTest::ALL {
            assert_eq!(CcTest::from_code(t.code() as u64), Some(t));
        }
        assert_eq!(CcTest::from_code(24), None);
    }
}
