//! The binary32 float ops (docs/semantics.md §28) as vector code over the lane rows: FADD, FMUL
//! and FFMA to nearest (and their 32-bit-immediate forms), FMNMX, FSETP, FSET, FCMP, RRO and
//! FCHK, each the bits `crate::semantics::float` defines (source modifiers, `.FTZ`, the canonical
//! NaN 0x7fffffff, `.SAT`). FADD, FMUL and FFMA in a directed rounding mode, and MUFU, call one
//! routine (`jit::view::warpjit_jit_lane_op`) that applies the same definitions to the 32 lanes.

use super::{Lower, Row, Tx};
use crate::ir::*;
use crate::jit::helper::Helper;
use crate::semantics::float::ONE32;
use crate::semantics::ieee::CANONICAL_NAN32;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Value};

/// A float binary operation on `f32x4` values.
type FOp = fn(&mut cranelift_frontend::FunctionBuilder<'_>, Value, Value) -> Value;

impl Tx<'_, '_, '_> {
    fn bits_as_f32x4(&mut self, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(types::F32X4, le, x)
    }

    fn f32x4_as_bits(&mut self, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(types::I32X4, le, x)
    }

    /// `m` applied to `x`: `|x|` clears the sign, then `-x` flips it.
    fn fmod_row(&mut self, x: Row, m: FMod) -> Row {
        let mut x = x;
        if m.abs {
            let k = self.splat(0x7fff_ffff);
            x = self.bin(&x, &k, |b, x, y| b.ins().band(x, y));
        }
        if m.neg {
            let k = self.splat(0x8000_0000);
            x = self.bin(&x, &k, |b, x, y| b.ins().bxor(x, y));
        }
        x
    }

    /// Subnormal lanes replaced by a zero of their sign.
    fn ftz_row(&mut self, x: &Row) -> Row {
        let exp = self.splat(0x7f80_0000);
        let sign = self.splat(0x8000_0000);
        let zero = self.splat(0);
        self.each([x, &exp, &sign, &zero], |t, [x, exp, sign, zero]| {
            let e = t.b.ins().band(x, exp);
            let sub = t.b.ins().icmp(IntCC::Equal, e, zero);
            let z = t.b.ins().band(x, sign);
            t.b.ins().bitselect(sub, z, x)
        })
    }

    /// An input as `semantics::float::fin`: modifier, then `.FTZ`.
    fn fin_row(&mut self, x: Row, m: FMod, ftz: bool) -> Row {
        let x = self.fmod_row(x, m);
        if ftz {
            self.ftz_row(&x)
        } else {
            x
        }
    }

    /// NaN lanes (all ones where `x` is a NaN): |x| > 0x7f800000.
    fn nan_lanes(&mut self, x: &Row) -> Row {
        let k = self.splat(0x7fff_ffff);
        let inf = self.splat(0x7f80_0000);
        let a = self.bin(x, &k, |b, x, y| b.ins().band(x, y));
        self.cmp(IntCC::SignedGreaterThan, &a, &inf)
    }

    /// A result as `semantics::float::fout`: NaN canonical, `.FTZ`, `.SAT`.
    fn fout_row(&mut self, r: &Row, ftz: bool, sat: bool) -> Row {
        let nan = self.nan_lanes(r);
        let canon = self.splat(CANONICAL_NAN32);
        let mut r: Row = self.select_rows(&nan, &canon, r);
        if ftz {
            r = self.ftz_row(&r);
        }
        if sat {
            // After canonicalisation a NaN is 0x7fffffff, the largest positive pattern.
            let zero = self.splat(0);
            let one = self.splat(ONE32);
            let inf = self.splat(0x7f80_0000);
            let neg = self.cmp(IntCC::SignedLessThan, &r, &zero);
            let nan = self.cmp(IntCC::SignedGreaterThan, &r, &inf);
            let big = self.cmp(IntCC::SignedGreaterThan, &r, &one);
            r = self.each(
                [&big, &one, &r, &neg, &nan, &zero],
                |t, [big, one, r, neg, nan, zero]| {
                    let v = t.b.ins().bitselect(big, one, r);
                    let z = t.b.ins().bor(neg, nan);
                    t.b.ins().bitselect(z, zero, v)
                },
            );
        }
        r
    }

    /// `op(a, b)` on every row as `f32x4`.
    fn fop2(&mut self, a: &Row, b: &Row, op: FOp) -> Row {
        self.each([a, b], |t, [a, b]| {
            let x = t.bits_as_f32x4(a);
            let y = t.bits_as_f32x4(b);
            let r = op(t.b, x, y);
            t.f32x4_as_bits(r)
        })
    }

    /// `a * b + c` fused, on every row.
    fn ffma_rows(&mut self, a: &Row, b: &Row, c: &Row) -> Row {
        self.each([a, b, c], |t, [a, b, c]| {
            let x = t.bits_as_f32x4(a);
            let y = t.bits_as_f32x4(b);
            let z = t.bits_as_f32x4(c);
            let r = t.b.ins().fma(x, y, z);
            t.f32x4_as_bits(r)
        })
    }

    /// One float comparison condition, all ones where it holds.
    fn fcc(&mut self, cc: FloatCC, a: &Row, b: &Row) -> Row {
        self.each([a, b], |t, [a, b]| {
            let x = t.bits_as_f32x4(a);
            let y = t.bits_as_f32x4(b);
            let m = t.b.ins().fcmp(cc, x, y);
            t.f32x4_as_bits(m)
        })
    }

    /// Where `a cmp b` holds (all-ones lanes), as `semantics::float::fcmp`, built from the
    /// ordered conditions every target has (`<`, `<=`, `==`, unordered).
    fn fcmp_rows(&mut self, cmp: FCmp, a: &Row, b: &Row) -> Row {
        let or = |t: &mut Self, x: &Row, y: &Row| t.bin(x, y, |b, x, y| b.ins().bor(x, y));
        let not = |t: &mut Self, x: &Row| t.un(x, |b, x| b.ins().bnot(x));
        let un = |t: &mut Self| t.fcc(FloatCC::Unordered, a, b);
        match cmp {
            FCmp::F => self.splat(0),
            FCmp::T => self.splat(u32::MAX),
            FCmp::Lt => self.fcc(FloatCC::LessThan, a, b),
            FCmp::Le => self.fcc(FloatCC::LessThanOrEqual, a, b),
            FCmp::Gt => self.fcc(FloatCC::LessThan, b, a),
            FCmp::Ge => self.fcc(FloatCC::LessThanOrEqual, b, a),
            FCmp::Eq => self.fcc(FloatCC::Equal, a, b),
            FCmp::Nan => un(self),
            FCmp::Num => {
                let u = un(self);
                not(self, &u)
            }
            FCmp::Ne => {
                let e = self.fcc(FloatCC::Equal, a, b);
                let u = un(self);
                let x = or(self, &e, &u);
                not(self, &x)
            }
            FCmp::Neu => {
                let e = self.fcc(FloatCC::Equal, a, b);
                not(self, &e)
            }
            FCmp::Ltu | FCmp::Leu | FCmp::Gtu | FCmp::Geu | FCmp::Equ => {
                let base = match cmp {
                    FCmp::Ltu => FCmp::Lt,
                    FCmp::Leu => FCmp::Le,
                    FCmp::Gtu => FCmp::Gt,
                    FCmp::Geu => FCmp::Ge,
                    _ => FCmp::Eq,
                };
                let r = self.fcmp_rows(base, a, b);
                let u = un(self);
                or(self, &r, &u)
            }
        }
    }

    /// The float routine on the op of `inst`, its sources in `srcs`, the result to `d`.
    fn float_routine(&mut self, inst: &Inst, srcs: &[Src], d: Reg) {
        let f = self.helper(Helper::LaneOp);
        self.func_routine(f, &inst.op as *const Op as *const u8, srcs, d, inst);
    }
}

impl Lower for Fadd {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        if o.rnd != FRnd::Rn {
            tx.float_routine(inst, &[Src::Reg(o.a), o.b], o.d);
            return true;
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let a = tx.fin_row(a, o.am, o.ftz);
        let b = tx.fin_row(b, o.bm, o.ftz);
        let r = tx.fop2(&a, &b, |b, x, y| b.ins().fadd(x, y));
        let r = tx.fout_row(&r, o.ftz, o.sat);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fmul {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        // Directed rounding and the scaled product (`.D2` .. `.M8`, one rounding) go through
        // the lane routine, which applies `semantics::float::fmul`.
        if o.rnd != FRnd::Rn || o.scale != 0 {
            tx.float_routine(inst, &[Src::Reg(o.a), o.b], o.d);
            return true;
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let a = tx.fin_row(a, FMod::NONE, o.ftz);
        let b = tx.fin_row(b, FMod::neg(o.neg_b), o.ftz);
        let r = tx.fop2(&a, &b, |b, x, y| b.ins().fmul(x, y));
        let r = tx.fout_row(&r, o.ftz, o.sat);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Ffma {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        if o.rnd != FRnd::Rn {
            tx.float_routine(inst, &[Src::Reg(o.a), o.b, o.c], o.d);
            return true;
        }
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let c = tx.src(o.c);
        let a = tx.fin_row(a, FMod::NONE, o.ftz);
        let b = tx.fin_row(b, FMod::neg(o.neg_b), o.ftz);
        let c = tx.fin_row(c, FMod::neg(o.neg_c), o.ftz);
        let r = tx.ffma_rows(&a, &b, &c);
        let r = tx.fout_row(&r, o.ftz, o.sat);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fmnmx {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let p = tx.pred_src(o.p);
        let min = tx.mask_vec(p);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let x = tx.fin_row(a, o.am, o.ftz);
        let y = tx.fin_row(b, o.bm, o.ftz);
        // Order keys: x ^ ((x >> 31, arithmetic) >> 1, logical) puts -0 just below +0.
        let key = |t: &mut Tx<'_, '_, '_>, v: &Row| {
            let s = t.sshr_c(v, 31);
            let s = t.ushr_c(&s, 1);
            t.bin(v, &s, |b, x, y| b.ins().bxor(x, y))
        };
        let kx = key(tx, &x);
        let ky = key(tx, &y);
        let lt = tx.cmp(IntCC::SignedLessThan, &kx, &ky);
        let nx = tx.nan_lanes(&x);
        let ny = tx.nan_lanes(&y);
        let canon = tx.splat(CANONICAL_NAN32);
        let r: Row = tx.each(
            [&lt, &min, &x, &y, &nx, &ny, &canon],
            |t, [lt, min, x, y, nx, ny, canon]| {
                let b = &mut *t.b;
                // x when (x < y) == min.
                let d = b.ins().bxor(lt, min);
                let r = b.ins().bitselect(d, y, x);
                let r = b.ins().bitselect(ny, x, r);
                let r = b.ins().bitselect(nx, y, r);
                let both = b.ins().band(nx, ny);
                b.ins().bitselect(both, canon, r)
            },
        );
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fsetp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let a = tx.fin_row(a, o.am, o.ftz);
        let b = tx.fin_row(b, o.bm, o.ftz);
        let r = tx.fcmp_rows(o.cmp, &a, &b);
        let r = tx.lane_mask(&r);
        let c = tx.pred_src(o.c);
        let p = tx.bop(o.bop, r, c);
        let nr = tx.b.ins().bnot(r);
        let q = tx.bop(o.bop, nr, c);
        tx.set_pred(o.p, m, p);
        tx.set_pred(o.q, m, q);
        true
    }
}

impl Lower for Fset {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let a = tx.fin_row(a, o.am, o.ftz);
        let b = tx.fin_row(b, o.bm, o.ftz);
        let r = tx.fcmp_rows(o.cmp, &a, &b);
        let c = tx.pred_src(o.c);
        let c = tx.mask_vec(c);
        let r: Row = match o.bop {
            BoolOp::And => tx.bin(&r, &c, |b, x, y| b.ins().band(x, y)),
            BoolOp::Or => tx.bin(&r, &c, |b, x, y| b.ins().bor(x, y)),
            BoolOp::Xor => tx.bin(&r, &c, |b, x, y| b.ins().bxor(x, y)),
        };
        let r = if o.bf {
            let one = tx.splat(ONE32);
            tx.bin(&r, &one, |b, x, y| b.ins().band(x, y))
        } else {
            r
        };
        tx.set_reg_cc(m, o.d, o.cc, &r);
        true
    }
}

impl Lower for Fcmp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let c = tx.src(o.c);
        let c = tx.fin_row(c, FMod::NONE, o.ftz);
        let zero = tx.splat(0);
        let r = tx.fcmp_rows(o.cmp, &c, &zero);
        let v: Row = tx.select_rows(&r, &a, &b);
        tx.set_reg(o.d, v, m);
        true
    }
}

impl Lower for Mufu {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.float_routine(inst, &[Src::Reg(self.a)], self.d);
        true
    }
}

impl Lower for Rro {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let b = tx.src(o.b);
        let b = tx.fmod_row(b, o.bm);
        let r = tx.fout_row(&b, true, false);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fchk {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        // The modifiers never change an exponent: only the raw exponents matter.
        let ff = tx.splat(0xff);
        let exp = |t: &mut Tx<'_, '_, '_>, v: &Row| {
            let e = t.ushr_c(v, 23);
            t.bin(&e, &ff, |b, x, y| b.ins().band(x, y))
        };
        let ea = exp(tx, &a);
        let eb = exp(tx, &b);
        let d = tx.bin(&ea, &eb, |b, x, y| b.ins().isub(x, y));
        let mut ok = tx.splat(u32::MAX);
        for (v, lo, hi) in [(&ea, 30, 250), (&eb, 3, 250), (&d, -97i32, 123)] {
            let lo = tx.splat(lo as u32);
            let hi = tx.splat(hi as u32);
            let ge = tx.cmp(IntCC::SignedGreaterThanOrEqual, v, &lo);
            let le = tx.cmp(IntCC::SignedLessThanOrEqual, v, &hi);
            ok = tx.bin(&ok, &ge, |b, x, y| b.ins().band(x, y));
            ok = tx.bin(&ok, &le, |b, x, y| b.ins().band(x, y));
        }
        let okm = tx.lane_mask(&ok);
        let p = tx.b.ins().bnot(okm);
        tx.set_pred(o.p, m, p);
        true
    }
}
