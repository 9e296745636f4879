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
        std::array::from_fn(|k| {
            let e = self.b.ins().band(x[k], exp[k]);
            let sub = self.b.ins().icmp(IntCC::Equal, e, zero[k]);
            let z = self.b.ins().band(x[k], sign[k]);
            self.b.ins().bitselect(sub, z, x[k])
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
        let mut r: Row = std::array::from_fn(|k| self.b.ins().bitselect(nan[k], canon[k], r[k]));
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
            r = std::array::from_fn(|k| {
                let v = self.b.ins().bitselect(big[k], one[k], r[k]);
                let z = self.b.ins().bor(neg[k], nan[k]);
                self.b.ins().bitselect(z, zero[k], v)
            });
        }
        r
    }

    /// `op(a, b)` on every row as `f32x4`.
    fn fop2(&mut self, a: &Row, b: &Row, op: FOp) -> Row {
        std::array::from_fn(|k| {
            let x = self.bits_as_f32x4(a[k]);
            let y = self.bits_as_f32x4(b[k]);
            let r = op(self.b, x, y);
            self.f32x4_as_bits(r)
        })
    }

    /// `a * b + c` fused, on every row.
    fn ffma_rows(&mut self, a: &Row, b: &Row, c: &Row) -> Row {
        std::array::from_fn(|k| {
            let x = self.bits_as_f32x4(a[k]);
            let y = self.bits_as_f32x4(b[k]);
            let z = self.bits_as_f32x4(c[k]);
            let r = self.b.ins().fma(x, y, z);
            self.f32x4_as_bits(r)
        })
    }

    /// One float comparison condition, all ones where it holds.
    fn fcc(&mut self, cc: FloatCC, a: &Row, b: &Row) -> Row {
        std::array::from_fn(|k| {
            let x = self.bits_as_f32x4(a[k]);
            let y = self.bits_as_f32x4(b[k]);
            let m = self.b.ins().fcmp(cc, x, y);
            self.f32x4_as_bits(m)
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
    fn weight(&self) -> u32 {
        if self.rnd == FRnd::Rn {
            6
        } else {
            12
        }
    }

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

impl Lower for Fadd32i {
    fn weight(&self) -> u32 {
        6
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.splat(o.imm);
        let a = tx.fin_row(a, o.am, o.ftz);
        let b = tx.fin_row(b, FMod::NONE, o.ftz);
        let r = tx.fop2(&a, &b, |b, x, y| b.ins().fadd(x, y));
        let r = tx.fout_row(&r, o.ftz, false);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fmul {
    fn weight(&self) -> u32 {
        if self.rnd == FRnd::Rn && self.scale == 0 {
            6
        } else {
            12
        }
    }

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

impl Lower for Fmul32i {
    fn weight(&self) -> u32 {
        6
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.splat(o.imm);
        let a = tx.fin_row(a, FMod::NONE, o.ftz);
        let b = tx.fin_row(b, FMod::NONE, o.ftz);
        let r = tx.fop2(&a, &b, |b, x, y| b.ins().fmul(x, y));
        let r = tx.fout_row(&r, o.ftz, o.sat);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Ffma {
    fn weight(&self) -> u32 {
        if self.rnd == FRnd::Rn {
            8
        } else {
            14
        }
    }

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

impl Lower for Ffma32i {
    fn weight(&self) -> u32 {
        8
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let c = tx.reg(o.d);
        let b = tx.splat(o.imm);
        let a = tx.fin_row(a, FMod::neg(o.neg_a), o.ftz);
        let b = tx.fin_row(b, FMod::NONE, o.ftz);
        let c = tx.fin_row(c, FMod::neg(o.neg_c), o.ftz);
        let r = tx.ffma_rows(&a, &b, &c);
        let r = tx.fout_row(&r, o.ftz, o.sat);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fmnmx {
    fn weight(&self) -> u32 {
        10
    }

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
        let r: Row = std::array::from_fn(|k| {
            let b = &mut *tx.b;
            // x when (x < y) == min.
            let d = b.ins().bxor(lt[k], min[k]);
            let r = b.ins().bitselect(d, y[k], x[k]);
            let r = b.ins().bitselect(ny[k], x[k], r);
            let r = b.ins().bitselect(nx[k], y[k], r);
            let both = b.ins().band(nx[k], ny[k]);
            b.ins().bitselect(both, canon[k], r)
        });
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fsetp {
    fn weight(&self) -> u32 {
        8
    }

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
    fn weight(&self) -> u32 {
        8
    }

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
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Fcmp {
    fn weight(&self) -> u32 {
        8
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let c = tx.src(o.c);
        let c = tx.fin_row(c, FMod::NONE, o.ftz);
        let zero = tx.splat(0);
        let r = tx.fcmp_rows(o.cmp, &c, &zero);
        let v: Row = std::array::from_fn(|k| tx.b.ins().bitselect(r[k], a[k], b[k]));
        tx.set_reg(o.d, v, m);
        true
    }
}

impl Lower for Mufu {
    fn weight(&self) -> u32 {
        12
    }

    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.float_routine(inst, &[Src::Reg(self.a)], self.d);
        true
    }
}

impl Lower for Rro {
    fn weight(&self) -> u32 {
        6
    }

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
    fn weight(&self) -> u32 {
        10
    }

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
