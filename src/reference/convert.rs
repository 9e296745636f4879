//! Conversions and the binary64 instructions (docs/semantics.md §29): operands gathered per lane
//! as 64-bit values, the per-lane definitions of [`crate::semantics::convert`], results written
//! to one register or a pair.

use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::convert::{self as cv, imm_value, Imm64};
use warpjit_runtime::{Fault, WarpState, LANES};

/// One source of `regs` registers (a pair, a constant pair, an immediate) as 64-bit lanes.
pub(super) fn wide_src(
    w: &WarpState,
    s: Src,
    regs: u8,
    kind: Imm64,
    mask: u32,
    env: &mut CtaEnv<'_>,
) -> Result<[u64; LANES], Fault> {
    let lo = src(w, s, mask, env)?;
    let hi = match (s, regs) {
        (_, 1) | (Src::Imm(_) | Src::Imm32(_), _) => None,
        (Src::Reg(r), _) => Some(reg(w, r.offset(1))),
        (Src::Const(c), _) => {
            let c = ConstRef {
                bank: c.bank,
                offset: c.offset.wrapping_add(4),
            };
            Some(src(w, Src::Const(c), mask, env)?)
        }
    };
    Ok(std::array::from_fn(|l| match (s, hi) {
        (Src::Imm(v) | Src::Imm32(v), _) => imm_value(v, regs, kind),
        (_, Some(h)) => (h[l] as u64) << 32 | lo[l] as u64,
        (_, None) => lo[l] as u64,
    }))
}

/// A register pair as 64-bit lanes.
fn pair(w: &WarpState, r: Reg) -> [u64; LANES] {
    let (lo, hi) = (reg(w, r), reg(w, r.offset(1)));
    std::array::from_fn(|l| (hi[l] as u64) << 32 | lo[l] as u64)
}

/// Writes 64-bit lanes to `regs` registers at `d` (the low word first).
fn put_wide(w: &mut WarpState, d: Reg, regs: u8, v: &[u64; LANES], mask: u32) {
    let lo: Row = std::array::from_fn(|l| v[l] as u32);
    put(w, d.0, &lo, mask);
    if regs == 2 {
        let hi: Row = std::array::from_fn(|l| (v[l] >> 32) as u32);
        put(w, d.offset(1).0, &hi, mask);
    }
}

impl Exec for I2f {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, self.src.regs(), Imm64::Sext, mask, env)?;
        let r = b.map(|x| cv::i2f(self, x));
        put_wide(w, self.d, self.dst.regs(), &r, mask);
        Ok(())
    }
}

impl Exec for F2i {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, self.src.regs(), Imm64::High, mask, env)?;
        let r = b.map(|x| cv::f2i(self, x));
        put_wide(w, self.d, self.dst.regs(), &r, mask);
        Ok(())
    }
}

impl Exec for F2f {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, self.src.regs(), Imm64::High, mask, env)?;
        let r = b.map(|x| cv::f2f(self, x));
        put_wide(w, self.d, self.dst.regs(), &r, mask);
        Ok(())
    }
}

impl Exec for I2i {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let r = map(&b, |x| cv::i2i(self, x));
        put(w, self.d.0, &r, mask);
        let f = LogicCc {
            cc: self.cc,
            x: false,
        };
        super::alu::logic_out(w, mask, &r, f, None, PredOut::None);
        Ok(())
    }
}

impl Exec for Dadd {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let r: [u64; LANES] = std::array::from_fn(|l| cv::dadd(self, a[l], b[l]));
        put_wide(w, self.d, 2, &r, mask);
        Ok(())
    }
}

impl Exec for Dmul {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let r: [u64; LANES] = std::array::from_fn(|l| cv::dmul(self, a[l], b[l]));
        put_wide(w, self.d, 2, &r, mask);
        Ok(())
    }
}

impl Exec for Dfma {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let c = wide_src(w, self.c, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let r: [u64; LANES] = std::array::from_fn(|l| cv::dfma(self, a[l], b[l], c[l]));
        put_wide(w, self.d, 2, &r, mask);
        Ok(())
    }
}

impl Exec for Dmnmx {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let p = pred_mask(w, self.p);
        let r: [u64; LANES] = std::array::from_fn(|l| cv::dmnmx(self, a[l], b[l], lane_on(p, l)));
        put_wide(w, self.d, 2, &r, mask);
        Ok(())
    }
}

/// The combination of a test mask with Pp.
fn bop_mask(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

impl Exec for Dsetp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let t = mask_of(|l| cv::dtest(self.cmp, self.ma, a[l], self.mb, b[l]));
        let c = pred_mask(w, self.c);
        w.set_pred(self.p.0, mask, bop_mask(self.bop, t, c));
        w.set_pred(self.q.0, mask, bop_mask(self.bop, !t, c));
        Ok(())
    }
}

impl Exec for Dset {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = wide_src(w, self.b, 2, Imm64::High, mask, env)?;
        let a = pair(w, self.a);
        let t = mask_of(|l| cv::dtest(self.cmp, self.ma, a[l], self.mb, b[l]));
        let t = bop_mask(self.bop, t, pred_mask(w, self.c));
        let r: Row = std::array::from_fn(|l| cv::dset_word(self.bf, lane_on(t, l)));
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}
