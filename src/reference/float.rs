//! The binary32 float ops (docs/semantics.md §28): each a 32-lane loop over the per-lane
//! definitions of `crate::semantics::float`.

use super::alu::bop_mask;
use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::float as f;
use warpjit_runtime::WarpState;

impl Exec for Fadd {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        put(
            w,
            self.d.0,
            &map2(&reg(w, self.a), &b, |a, b| f::fadd(self, a, b)),
            mask,
        );
        Ok(())
    }
}

impl Exec for Fmul {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        put(
            w,
            self.d.0,
            &map2(&reg(w, self.a), &b, |a, b| f::fmul(self, a, b)),
            mask,
        );
        Ok(())
    }
}

impl Exec for Ffma {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let r = map3(&reg(w, self.a), &b, &c, |a, b, c| f::ffma(self, a, b, c));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Fmnmx {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let p = pred_mask(w, self.p);
        let r: Row = std::array::from_fn(|l| {
            let x = f::fin(a[l], self.am, self.ftz);
            let y = f::fin(b[l], self.bm, self.ftz);
            f::fout(f::fmnmx(lane_on(p, l), x, y), self.ftz, false)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

/// The lanes where `(Ra cmp Sb)` holds, inputs through their modifiers and `.FTZ`.
fn compare(a: &Row, b: &Row, cmp: FCmp, ftz: bool, am: FMod, bm: FMod) -> u32 {
    mask_of(|l| f::fcmp(cmp, f::fin(a[l], am, ftz), f::fin(b[l], bm, ftz)))
}

impl Exec for Fsetp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let r = compare(&reg(w, self.a), &b, self.cmp, self.ftz, self.am, self.bm);
        let c = pred_mask(w, self.c);
        w.set_pred(self.p.0, mask, bop_mask(self.bop, r, c));
        w.set_pred(self.q.0, mask, bop_mask(self.bop, !r, c));
        Ok(())
    }
}

impl Exec for Fset {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let r = compare(&reg(w, self.a), &b, self.cmp, self.ftz, self.am, self.bm);
        let r = bop_mask(self.bop, r, pred_mask(w, self.c));
        let t = if self.bf { f::ONE32 } else { u32::MAX };
        let v: Row = std::array::from_fn(|l| if lane_on(r, l) { t } else { 0 });
        put(w, self.d.0, &v, mask);
        if self.cc {
            set_cc(w, mask, &v, 0, 0);
        }
        Ok(())
    }
}

impl Exec for Fcmp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let a = reg(w, self.a);
        let r = compare(&c, &splat(0), self.cmp, self.ftz, FMod::NONE, FMod::NONE);
        let v: Row = std::array::from_fn(|l| if lane_on(r, l) { a[l] } else { b[l] });
        put(w, self.d.0, &v, mask);
        Ok(())
    }
}

impl Exec for Mufu {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let r = map(&reg(w, self.a), |x| {
            f::mufu(self.func, self.sat, self.am.apply(x))
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Rro {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        put(
            w,
            self.d.0,
            &map(&b, |x| f::rro(self, self.bm.apply(x))),
            mask,
        );
        Ok(())
    }
}

impl Exec for Fchk {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let r = mask_of(|l| f::fchk_divide(self.am.apply(a[l]), self.bm.apply(b[l])));
        w.set_pred(self.p.0, mask, r);
        Ok(())
    }
}
