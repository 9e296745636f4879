//! Integer, logic, predicate and address arithmetic: one `Exec` per op (docs/semantics.md §19,
//! §21, §22).

use super::lanes::*;
use super::ops::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use crate::semantics::{
    add_ones, bfe, bfi, flo, iadd3_ones, icmp_zero, imnmx, lea_outside_window, logic_zero, lut3,
    p2r_bits, p2r_merge, prmt, prmt_selector, shf, shl, shr, xmad_csfu,
};
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{WarpState, LANES};

/// The shared integer add of IADD, IADD32I and ISCADD (docs/semantics.md §21): `a + b + plus` where
/// `plus` collects the +1 of negated operands, the carry in and `.PO`; with `cc`, also the CC.
#[inline(always)]
fn add(w: &mut WarpState, d: Reg, mask: u32, cc: bool, a: &Row, b: &Row, plus: &Row) {
    if cc {
        let (sum, cf, of) = add_row(a, b, plus);
        put(w, d.0, &sum, mask);
        set_cc(w, mask, &sum, cf, of);
    } else {
        let sum = map3(a, b, plus, |a, b, p| a.wrapping_add(b).wrapping_add(p));
        put(w, d.0, &sum, mask);
    }
}

/// `a + b + plus` with carry and signed-overflow lane masks. Returns (sum, cf, of).
#[inline(always)]
fn add_row(a: &Row, b: &Row, plus: &Row) -> (Row, u32, u32) {
    let mut sum = [0u32; LANES];
    let mut cf = 0u32;
    let mut of = 0u32;
    for l in 0..LANES {
        let wide = a[l] as u64 + b[l] as u64 + plus[l] as u64;
        let signed = a[l] as i32 as i64 + b[l] as i32 as i64 + plus[l] as i64;
        sum[l] = wide as u32;
        cf |= ((wide >> 32 != 0) as u32) << l;
        of |= ((signed != signed as i32 as i64) as u32) << l;
    }
    (sum, cf, of)
}

/// The +1s and carry of an add with negated operands (`neg` counts them), `.X` and `.PO`:
/// with `.X` the carry in replaces the +1 of one negated operand.
#[inline(always)]
fn plus_row(w: &WarpState, negs: u32, x: bool, po: bool) -> Row {
    let base = add_ones(negs, x, po);
    if x {
        let cf = w.cc[CF];
        let mut p = [0; LANES];
        for (l, v) in p.iter_mut().enumerate() {
            *v = base + (cf >> l & 1);
        }
        p
    } else {
        splat(base)
    }
}

// Not inlined: inlined into the adds it made their bodies a third larger and the `loop` bench
// kernel's interpreter 6% slower (measured after the interpreter's split into files).
#[inline(never)]
fn not_if(v: Row, neg: bool) -> Row {
    if neg {
        map(&v, |x| !x)
    } else {
        v
    }
}

impl Exec for Mov {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let v = src(w, self.b, mask, env)?;
        put(w, self.d.0, &v, mask);
        Ok(())
    }
}

impl Exec for S2r {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let v = match self.sr {
            SpecialReg::TidX => w.tid[0],
            SpecialReg::TidY => w.tid[1],
            SpecialReg::TidZ => w.tid[2],
            SpecialReg::CtaidX => splat(w.ctaid[0]),
            SpecialReg::CtaidY => splat(w.ctaid[1]),
            SpecialReg::CtaidZ => splat(w.ctaid[2]),
            SpecialReg::LaneId => std::array::from_fn(|l| l as u32),
            SpecialReg::ClockLo => splat(w.clock as u32),
            SpecialReg::ClockHi => splat((w.clock >> 32) as u32),
            SpecialReg::LmemHiOff => splat(0),
            m => std::array::from_fn(|l| m.lane_mask(l as u32).unwrap_or_default()),
        };
        put(w, self.d.0, &v, mask);
        Ok(())
    }
}

impl Exec for Iadd {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        if self.sat {
            let (a, b) = (reg(w, self.a), src(w, self.b, mask, env)?);
            let r = map2(&a, &b, |a, b| {
                crate::semantics::iadd_sat(self.neg_a, a, self.neg_b, b)
            });
            put(w, self.d.0, &r, mask);
            return Ok(());
        }
        let a = not_if(reg(w, self.a), self.neg_a);
        let b = not_if(src(w, self.b, mask, env)?, self.neg_b);
        let plus = plus_row(w, self.neg_a as u32 + self.neg_b as u32, self.x, self.po);
        add(w, self.d, mask, self.cc, &a, &b, &plus);
        Ok(())
    }
}

impl Exec for Iscadd {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let s = self.shift as u32;
        let a = not_if(map(&reg(w, self.a), |v| v << s), self.neg_a);
        let b = not_if(src(w, self.b, mask, env)?, self.neg_b);
        let plus = plus_row(w, self.neg_a as u32 + self.neg_b as u32, false, self.po);
        add(w, self.d, mask, self.cc, &a, &b, &plus);
        Ok(())
    }
}

fn half(v: u32, h: Half) -> u32 {
    match h {
        Half::None => v,
        Half::H0 => v & 0xffff,
        Half::H1 => v >> 16,
    }
}

impl Exec for Iadd3 {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let ra = reg(w, self.a.src);
        let rb = src(w, self.b.src, mask, env)?;
        let rc = reg(w, self.c.src);
        let [na, nb, nc] = iadd3_ones(self).map(|n| n as u64);
        // `.X`: the carry in is CF + OF, the whole carry of an IADD3 `.CC` (0, 1 or 2).
        let (cfin, ofin) = if self.x { (w.cc[CF], w.cc[OF]) } else { (0, 0) };
        let mut res = [0u32; LANES];
        let (mut cf, mut of) = (0u32, 0u32);
        for l in 0..LANES {
            let op = |v: u32, h: Half, neg: bool| {
                let v = half(v, h);
                if neg {
                    !v
                } else {
                    v
                }
            };
            let a = op(ra[l], self.a.half, self.a.neg) as u64;
            let b = op(rb[l], self.b.half, self.b.neg) as u64;
            let c = op(rc[l], self.c.half, self.c.neg) as u64;
            let p = a + b + na + nb;
            of |= ((p >> 32 != 0) as u32) << l;
            let partial = match self.shift {
                Iadd3Shift::None => p as u32 as u64,
                Iadd3Shift::Rs => (p & 0x1_ffff_ffff) >> 16,
                Iadd3Shift::Ls => ((p as u32) << 16) as u64,
            };
            let f = partial + c + nc + (cfin >> l & 1) as u64 + (ofin >> l & 1) as u64;
            cf |= ((f >> 32 != 0) as u32) << l;
            res[l] = f as u32;
        }
        put(w, self.d.0, &res, mask);
        if self.cc {
            set_cc(w, mask, &res, cf, of);
        }
        Ok(())
    }
}

impl Exec for Xmad {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let ra = reg(w, self.a);
        let rb = src(w, self.b, mask, env)?;
        let rc = src(w, self.c, mask, env)?;
        let sel = crate::semantics::xmad_half;
        let mut res = [0u32; LANES];
        let mut cf = 0u32;
        for l in 0..LANES {
            let mut p = sel(ra[l], self.a_h1, self.a_signed).wrapping_mul(sel(
                rb[l],
                self.b_h1,
                self.b_signed,
            ));
            if self.psl {
                p <<= 16;
            }
            let addend = match self.mode {
                XmadMode::None => rc[l],
                XmadMode::Clo => rc[l] & 0xffff,
                XmadMode::Chi => rc[l] >> 16,
                XmadMode::Cbcc => rc[l].wrapping_add(rb[l] << 16),
                XmadMode::Csfu => rc[l].wrapping_sub(xmad_csfu(
                    ra[l],
                    self.a_h1,
                    self.a_signed,
                    rb[l],
                    self.b_h1,
                    self.b_signed,
                )),
            };
            let r = p as u64 + addend as u64;
            cf |= ((r >> 32 != 0) as u32) << l;
            res[l] = if self.mrg {
                (r as u32 & 0xffff) | (rb[l] << 16)
            } else {
                r as u32
            };
        }
        put(w, self.d.0, &res, mask);
        if self.cc {
            set_cc(w, mask, &res, cf, 0);
        }
        Ok(())
    }
}

impl Exec for Shl {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let r = map2(&reg(w, self.a), &b, |a, s| shl(self, a, s));
        put(w, self.d.0, &r, mask);
        logic_out(w, mask, &r, self.f, None, PredOut::None);
        Ok(())
    }
}

impl Exec for Shr {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let r = map2(&reg(w, self.a), &b, |a, s| shr(self, a, s));
        put(w, self.d.0, &r, mask);
        logic_out(w, mask, &r, self.f, None, PredOut::None);
        Ok(())
    }
}

impl Exec for Shf {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let (right, wrap, ty, hi) = (self.right, self.w, self.ty, self.hi);
        let r = map3(&reg(w, self.a), &b, &reg(w, self.c), |a, s, c| {
            shf(right, wrap, ty, hi, a, s, c)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

fn lop(func: LopFn, a: u32, b: u32) -> u32 {
    match func {
        LopFn::And => a & b,
        LopFn::Or => a | b,
        LopFn::Xor => a ^ b,
        LopFn::PassB => b,
    }
}

/// The predicate output and the flags of a logic, shift or I2I op (docs/semantics.md §21):
/// both use the zero test `semantics::logic_zero` (with `.X`, ZF before the op is read).
pub(super) fn logic_out(
    w: &mut WarpState,
    mask: u32,
    res: &Row,
    f: LogicCc,
    p: Option<Pred>,
    pout: PredOut,
) {
    if !f.cc && p.is_none() {
        return;
    }
    let zf = w.cc[ZF];
    let zero = mask_of(|l| logic_zero(res[l], f.x, zf >> l & 1 != 0));
    if let Some(p) = p {
        let v = match pout {
            PredOut::None | PredOut::F => 0,
            PredOut::T => u32::MAX,
            PredOut::Z => zero,
            PredOut::Nz => !zero,
        };
        w.set_pred(p.0, mask, v);
    }
    if f.cc {
        let sf = mask_of(|l| res[l] >> 31 != 0);
        w.set_flag(ZF, mask, zero);
        w.set_flag(SF, mask, sf);
        w.set_flag(CF, mask, 0);
        w.set_flag(OF, mask, 0);
    }
}

impl Exec for Lop {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let a = not_if(reg(w, self.a), self.not_a);
        let b = not_if(src(w, self.b, mask, env)?, self.not_b);
        let f = self.func;
        let r = map2(&a, &b, |a, b| lop(f, a, b));
        put(w, self.d.0, &r, mask);
        logic_out(w, mask, &r, self.f, self.p, self.pout);
        Ok(())
    }
}

impl Exec for Lop3 {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let lut = self.lut;
        let r = map3(&reg(w, self.a), &b, &reg(w, self.c), |a, b, c| {
            lut3(lut, a, b, c)
        });
        put(w, self.d.0, &r, mask);
        logic_out(w, mask, &r, self.f, self.p, self.pout);
        Ok(())
    }
}

impl Exec for Bfe {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let (signed, brev) = (self.signed, self.brev);
        let r = map2(&reg(w, self.a), &b, |a, b| bfe(a, b, signed, brev));
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}

impl Exec for Bfi {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let r = map3(&reg(w, self.a), &b, &c, bfi);
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}

impl Exec for Popc {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = not_if(src(w, self.b, mask, env)?, self.not_b);
        put(w, self.d.0, &map(&b, u32::count_ones), mask);
        Ok(())
    }
}

impl Exec for Flo {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = not_if(src(w, self.b, mask, env)?, self.not_b);
        let (signed, sh) = (self.signed, self.sh);
        put(w, self.d.0, &map(&b, |v| flo(signed, sh, v)), mask);
        Ok(())
    }
}

impl Exec for Sel {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let p = pred_mask(w, self.p);
        let a = reg(w, self.a);
        let r: Row = std::array::from_fn(|l| if lane_on(p, l) { a[l] } else { b[l] });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

/// One lane of ISETP's comparison.
pub(super) fn icmp(cmp: Cmp, unsigned: bool, x: bool, a: u32, b: u32, cf: bool, zf: bool) -> bool {
    let (a, b) = if unsigned {
        (a as i64, b as i64)
    } else {
        (a as i32 as i64, b as i32 as i64)
    };
    if x {
        let d = a - b - (1 - cf as i64);
        match cmp {
            Cmp::F => false,
            Cmp::T => true,
            Cmp::Eq => d == 0 && zf,
            Cmp::Ne => !(d == 0 && zf),
            Cmp::Lt => d < 0,
            Cmp::Ge => d >= 0,
            Cmp::Gt => d > 0 || (d == 0 && !zf),
            Cmp::Le => d < 0 || (d == 0 && zf),
        }
    } else {
        match cmp {
            Cmp::F => false,
            Cmp::T => true,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Ge => a >= b,
            Cmp::Gt => a > b,
            Cmp::Le => a <= b,
        }
    }
}

pub(super) fn bop_mask(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

impl Exec for Isetp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let (cf, zf) = (w.cc[CF], w.cc[ZF]);
        let r = mask_of(|l| {
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
        let c = pred_mask(w, self.c);
        w.set_pred(self.p.0, mask, bop_mask(self.bop, r, c));
        w.set_pred(self.q.0, mask, bop_mask(self.bop, !r, c));
        Ok(())
    }
}

impl Exec for Psetp {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let (a, b, c) = (
            pred_mask(w, self.a),
            pred_mask(w, self.b),
            pred_mask(w, self.c),
        );
        let p = bop_mask(self.bop2, bop_mask(self.bop1, a, b), c);
        let q = bop_mask(self.bop2, bop_mask(self.bop1, !a, b), c);
        w.set_pred(self.p.0, mask, p);
        w.set_pred(self.q.0, mask, q);
        Ok(())
    }
}

impl Exec for P2r {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let m = src(w, self.mask, mask, env)?;
        let sh = 8 * self.byte as u32;
        let bits = p2r_bits(self.src, &w.preds, &w.cc);
        let r = map3(&reg(w, self.a), &bits, &m, |a, bits, m| {
            p2r_merge(sh, a, bits, m)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Imnmx {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let a = reg(w, self.a);
        let p = pred_mask(w, self.p);
        let (zf, sf) = (w.cc[ZF], w.cc[SF]);
        let mut r = [0; LANES];
        let (mut z, mut s) = (0u32, 0u32);
        for l in 0..LANES {
            let (v, lz, ls) = imnmx(
                self.mode,
                self.unsigned,
                lane_on(p, l),
                a[l],
                b[l],
                lane_on(zf, l),
                lane_on(sf, l),
            );
            r[l] = v;
            z |= (lz as u32) << l;
            s |= (ls as u32) << l;
        }
        put(w, self.d.0, &r, mask);
        if self.cc {
            w.set_flag(ZF, mask, z);
            w.set_flag(SF, mask, s);
            w.set_flag(CF, mask, 0);
            w.set_flag(OF, mask, 0);
        }
        Ok(())
    }
}

impl Exec for Icmp {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let a = reg(w, self.a);
        let (cmp, u) = (self.cmp, self.unsigned);
        let r: Row = std::array::from_fn(|l| if icmp_zero(cmp, u, c[l]) { a[l] } else { b[l] });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Prmt {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let b = src(w, self.b, mask, env)?;
        let c = src(w, self.c, mask, env)?;
        let mode = self.mode;
        let r = map3(&reg(w, self.a), &b, &c, |a, b, c| {
            prmt(a, prmt_selector(mode, b), c)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Lea {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let a = reg(w, self.a);
        let b = src(w, self.b, mask, env)?;
        let s = self.shift as u32;
        // The scaled offset: low32(±{Rc, Ra} << s) for LO, low32(±{Rc, Ra} >> (32 - s)) for HI.
        let v: Row = match (self.hi, self.neg_a) {
            (false, false) => map(&a, |x| x << s),
            (false, true) => map(&a, |x| x.wrapping_neg() << s),
            (true, neg) => {
                let c = reg(w, self.c);
                map2(&a, &c, |lo, hi| {
                    let off = (hi as u64) << 32 | lo as u64;
                    let off = if neg { off.wrapping_neg() } else { off };
                    (off >> (32 - s)) as u32
                })
            }
        };
        // Rd = Sb + v (+ CF): 32-bit adds, the carry out as two unsigned compares.
        let cin: Row = if self.x {
            std::array::from_fn(|l| w.cc[CF] >> l & 1)
        } else {
            [0; LANES]
        };
        let r1 = map2(&b, &v, |b, v| b.wrapping_add(v));
        let res = map2(&r1, &cin, |r, c| r.wrapping_add(c));
        if self.cc || self.p.is_some() {
            // Plg = CC.OF = NOT window_detect(EA) (crate::semantics::lea_outside_window).
            let (win, hi, lo) = (env.shared_window, self.hi, &w.lea_lo);
            let outside = mask_of(|l| lea_outside_window(win, hi, res[l], lo[l]));
            if self.cc {
                let cf = mask_of(|l| r1[l] < b[l] || res[l] < r1[l]);
                set_cc(w, mask, &res, cf, outside);
            }
            if let Some(p) = self.p {
                w.set_pred(p.0, mask, outside);
            }
        }
        if !self.hi {
            let lo = w.lea_lo;
            w.lea_lo = std::array::from_fn(|l| if lane_on(mask, l) { res[l] } else { lo[l] });
        }
        put(w, self.d.0, &res, mask);
        Ok(())
    }
}

/// A video instruction: `f(a, b, c)` per lane of `Ra`, `Sb` and `Rc` into `Rd`.
fn exec_video(
    v: &Video,
    w: &mut WarpState,
    mask: u32,
    env: &mut CtaEnv<'_>,
    f: impl Fn(u32, u32, u32) -> u32,
) -> OpResult {
    let (a, b, c) = (reg(w, v.a), src(w, v.b, mask, env)?, reg(w, v.c));
    let r = std::array::from_fn(|l| f(a[l], b[l], c[l]));
    put(w, v.d.0, &r, mask);
    Ok(())
}

impl Exec for Vmnmx {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        exec_video(&self.v, w, mask, env, |a, b, c| {
            crate::semantics::vmnmx(&self.v, self.max, a, b, c)
        })
    }
}

impl Exec for Vabsdiff {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        exec_video(&self.v, w, mask, env, |a, b, c| {
            crate::semantics::vabsdiff(&self.v, a, b, c)
        })
    }
}

impl Exec for Vabsdiff4 {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let (a, b, c) = (reg(w, self.a), reg(w, self.b), reg(w, self.c));
        let r = map3(&a, &b, &c, |a, b, c| {
            crate::semantics::vabsdiff4(self, a, b, c)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_sign_of_value() {
        assert_eq!(bfe(0x8000_0000, 0x11f, true, false), u32::MAX);
        assert_eq!(bfe(0x7fff_ffff, 0x11f, true, false), 0);
        assert_eq!(bfe(0xabcd_1234, 0x0808, false, false), 0x12);
        assert_eq!(
            bfe(0xabcd_1234, 0x0800 | 28, false, false),
            0xa,
            "bits past 31 read 0"
        );
        assert_eq!(
            bfe(0xabcd_1234, 0x0800 | 28, true, false),
            0xffff_fffa,
            "bits past 31 read bit 31"
        );
        assert_eq!(bfe(0x1234, 0x0000, false, false), 0, "length 0");
    }

    #[test]
    fn bfi_clamps_length() {
        assert_eq!(bfi(0xff, 0x0804, 0), 0xff0);
        assert_eq!(
            bfi(0xffff_ffff, 0x201e, 0),
            0xc000_0000,
            "length clamps below bit 32"
        );
        assert_eq!(bfi(0xff, 0x0820, 7), 7, "position 32 leaves Rc");
    }

    #[test]
    fn prmt_and_lut() {
        assert_eq!(prmt(0x4433_2211, 0x3210, 0x8877_6655), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x7654, 0x8877_6655), 0x8877_6655);
        assert_eq!(prmt(0x0000_0080, 0x8888, 0), 0xffff_ffff, "sign replicate");
        assert_eq!(lut3(0xc0, 0xf0, 0xcc, 0xaa), 0xf0 & 0xcc);
        assert_eq!(lut3(0x96, 0xf0, 0xcc, 0xaa), 0xf0 ^ 0xcc ^ 0xaa);
    }
}
