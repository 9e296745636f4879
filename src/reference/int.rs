//! ISET, PSET, CSETP, R2P, IMUL, IMUL32I and IMAD (docs/semantics.md §22a).

use super::alu::{bop_mask, icmp};
use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::cc::cc_mask;
use crate::semantics::imul;
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{WarpState, LANES};

/// Writes a set-to-register result: `true_val` in the lanes of `r`, 0 elsewhere; with `cc`,
/// ZF and SF from the value, CF = OF = 0.
fn put_set(w: &mut WarpState, d: Reg, mask: u32, cc: bool, bf: bool, r: u32) {
    let v = set_value(bf);
    let row: Row = std::array::from_fn(|l| if lane_on(r, l) { v } else { 0 });
    put(w, d.0, &row, mask);
    if cc {
        set_cc(w, mask, &row, 0, 0);
    }
}

impl Exec for Iset {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let (cf, zf) = (w.cc[CF], w.cc[ZF]);
        let t = mask_of(|l| {
            icmp(
                self.cmp,
                self.unsigned,
                self.x,
                a[l],
                b[l],
                lane_on(cf, l),
                lane_on(zf, l),
            )
        });
        let r = bop_mask(self.bop, t, pred_mask(w, self.c));
        put_set(w, self.d, mask, self.cc, self.bf, r);
        Ok(())
    }
}

impl Exec for Pset {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let (a, b, c) = (
            pred_mask(w, self.a),
            pred_mask(w, self.b),
            pred_mask(w, self.c),
        );
        let r = bop_mask(self.bop2, bop_mask(self.bop1, a, b), c);
        put_set(w, self.d, mask, self.cc, self.bf, r);
        Ok(())
    }
}

impl Exec for Csetp {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let t = cc_mask(self.test, w.cc[ZF], w.cc[SF], w.cc[CF], w.cc[OF]);
        let c = pred_mask(w, self.c);
        w.set_pred(self.p.0, mask, bop_mask(self.bop, t, c));
        w.set_pred(self.q.0, mask, bop_mask(self.bop, !t, c));
        Ok(())
    }
}

impl Exec for R2p {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let m = src(w, self.mask, mask, env)?;
        let a = reg(w, self.a);
        let sh = 8 * self.byte as u32;
        // Per target bit i: the lanes whose mask selects it, and the lanes whose Ra has it set.
        let sel = |i: u32| mask_of(|l| m[l] >> i & 1 != 0);
        let val = |i: u32| mask_of(|l| a[l] >> (sh + i) & 1 != 0);
        match self.dst {
            P2rSrc::Pr => {
                for i in 0..7 {
                    w.set_pred(i as u8, mask & sel(i), val(i));
                }
            }
            P2rSrc::Cc => {
                for (i, f) in [ZF, SF, CF, OF].into_iter().enumerate() {
                    let i = i as u32;
                    w.set_flag(f, mask & sel(i), val(i));
                }
            }
        }
        Ok(())
    }
}

/// IMUL, IMUL32I and IMAD: the product word plus `c` plus, with `x`, CF (docs/semantics.md §21,
/// §22a); with `cc`, CF = the carry out of that addition (0 without `c`), ZF and SF from the
/// result, OF = 0.
#[allow(clippy::too_many_arguments)]
fn mul_add(
    w: &mut WarpState,
    mask: u32,
    d: Reg,
    (cc, x): (bool, bool),
    (hi, a_signed, b_signed): (bool, bool, bool),
    a: &Row,
    b: &Row,
    c: Option<&Row>,
) {
    let cin = if x { w.cc[CF] } else { 0 };
    let wide: [u64; LANES] = std::array::from_fn(|l| {
        let p = imul(a[l], b[l], a_signed, b_signed, hi);
        p as u64 + c.map_or(0, |c| c[l]) as u64 + (cin >> l & 1) as u64
    });
    let r: Row = std::array::from_fn(|l| wide[l] as u32);
    put(w, d.0, &r, mask);
    if cc {
        let cf = mask_of(|l| wide[l] >> 32 != 0);
        set_cc(w, mask, &r, cf, 0);
    }
}

impl Exec for Imul {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let s = (self.hi, self.a_signed, self.b_signed);
        mul_add(w, mask, self.d, (self.cc, false), s, &a, &b, None);
        Ok(())
    }
}

impl Exec for Imad {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let a = reg(w, self.a);
        let s = (self.hi, self.a_signed, self.b_signed);
        mul_add(w, mask, self.d, (self.cc, self.x), s, &a, &b, Some(&c));
        Ok(())
    }
}

impl Exec for Imadsp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let a = reg(w, self.a);
        let r: Row = std::array::from_fn(|l| crate::semantics::imadsp(self, a[l], b[l], c[l]));
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}
