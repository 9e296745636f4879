//! Inline lowering of ISET, PSET, CSETP, R2P, IMUL, IMUL32I and IMAD (docs/semantics.md §22a):
//! predicate and flag lane masks are scalars, so the first four are mostly scalar mask
//! arithmetic.

use super::{Lower, Row, Tx};
use crate::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use warpjit_runtime::warp::{CF, OF, SF, ZF};

impl Tx<'_, '_, '_> {
    /// A CC test's formula ([`CcExpr`], defined once in `ir::cc`) as mask arithmetic on the
    /// flags' lane masks, as `semantics::cc::cc_mask` evaluates it.
    pub(in crate::jit) fn cc_test_mask(&mut self, e: &CcExpr) -> Value {
        match *e {
            CcExpr::Never => self.iconst(0),
            CcExpr::Always => self.iconst(u32::MAX),
            CcExpr::Z => self.flag(ZF),
            CcExpr::S => self.flag(SF),
            CcExpr::C => self.flag(CF),
            CcExpr::O => self.flag(OF),
            CcExpr::Not(a) => {
                let a = self.cc_test_mask(a);
                self.b.ins().bnot(a)
            }
            CcExpr::And(a, b) => {
                let (a, b) = (self.cc_test_mask(a), self.cc_test_mask(b));
                self.b.ins().band(a, b)
            }
            CcExpr::Or(a, b) => {
                let (a, b) = (self.cc_test_mask(a), self.cc_test_mask(b));
                self.b.ins().bor(a, b)
            }
            CcExpr::Xor(a, b) => {
                let (a, b) = (self.cc_test_mask(a), self.cc_test_mask(b));
                self.b.ins().bxor(a, b)
            }
        }
    }

    /// ISET's and PSET's destination: `set_value(bf)` in the lanes of `r`, 0 elsewhere; with
    /// `cc`, ZF and SF from it, CF = OF = 0 (as the interpreter's `put_set`).
    fn put_set(&mut self, m: Value, d: Reg, cc: bool, bf: bool, r: Value) {
        let lanes = self.mask_vec(r);
        let v = self.splat(set_value(bf));
        let row: Row = self.bin(&lanes, &v, |b, x, y| b.ins().band(x, y));
        self.set_reg_cc(m, d, cc, &row);
    }
}

impl Lower for Iset {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let t = tx.isetp_cmp(o.cmp, o.unsigned, o.x, &a, &b);
        let c = tx.pred_src(o.c);
        let r = tx.bop(o.bop, t, c);
        tx.put_set(m, o.d, o.cc, o.bf, r);
        true
    }
}

impl Lower for Pset {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.pred_src(o.a);
        let b = tx.pred_src(o.b);
        let c = tx.pred_src(o.c);
        let ab = tx.bop(o.bop1, a, b);
        let r = tx.bop(o.bop2, ab, c);
        tx.put_set(m, o.d, o.cc, o.bf, r);
        true
    }
}

impl Lower for Csetp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let t = tx.cc_test_mask(o.test.expr());
        let c = tx.pred_src(o.c);
        let p = tx.bop(o.bop, t, c);
        let nt = tx.b.ins().bnot(t);
        let q = tx.bop(o.bop, nt, c);
        tx.set_pred(o.p, m, p);
        tx.set_pred(o.q, m, q);
        true
    }
}

impl Lower for R2p {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let mk = tx.src(o.mask);
        let a = tx.reg(o.a);
        let sh = 8 * o.byte as u32;
        let n = if o.dst == P2rSrc::Pr { 7 } else { 4 };
        let zero = tx.splat(0);
        for i in 0..n {
            // The lanes whose mask has bit i, and those whose Ra has bit sh + i.
            let bit = tx.splat(1 << i);
            let sel = tx.bin(&mk, &bit, |b, x, y| b.ins().band(x, y));
            let sel = tx.cmp(IntCC::NotEqual, &sel, &zero);
            let sel = tx.lane_mask(&sel);
            let vbit = tx.splat(1 << (sh + i));
            let val = tx.bin(&a, &vbit, |b, x, y| b.ins().band(x, y));
            let val = tx.cmp(IntCC::NotEqual, &val, &zero);
            let val = tx.lane_mask(&val);
            let wm = tx.b.ins().band(m, sel);
            match o.dst {
                P2rSrc::Pr => tx.set_pred(Pred(i as u8), wm, val),
                P2rSrc::Cc => tx.set_flag([ZF, SF, CF, OF][i as usize], wm, val),
            }
        }
        true
    }
}

impl Tx<'_, '_, '_> {
    /// IMUL's and IMAD's product word (as `semantics::imul`): the low word as vector code, the
    /// high word lane by lane through a 64-bit multiply; plus `c` and, with `.X`, CF; Rd and
    /// `.CC` (ZF and SF from Rd, CF the carry out of the addition (0 without `c`), OF = 0).
    #[allow(clippy::too_many_arguments)]
    fn mul_add(
        &mut self,
        m: Value,
        d: Reg,
        (cc, x): (bool, bool),
        (hi, a_signed, b_signed): (bool, bool, bool),
        a: &Row,
        b: &Row,
        c: Option<&Row>,
    ) {
        let p = if hi {
            self.per_lane(&[*a, *b], |bb, x| {
                let ext = |bb: &mut cranelift_frontend::FunctionBuilder<'_>, v, s: bool| {
                    if s {
                        bb.ins().sextend(types::I64, v)
                    } else {
                        bb.ins().uextend(types::I64, v)
                    }
                };
                let (x0, x1) = (ext(bb, x[0], a_signed), ext(bb, x[1], b_signed));
                // The low 64 bits of the product of the extended factors hold the exact
                // product's bits 32..63 for every mix of signedness.
                let prod = bb.ins().imul(x0, x1);
                let h = bb.ins().ushr_imm_u(prod, 32);
                bb.ins().ireduce(types::I32, h)
            })
        } else {
            self.bin(a, b, |bb, x, y| bb.ins().imul(x, y))
        };
        // IMUL's word + Rc + (CF with `.X`); with `.CC` CF is the carry out of that sum, as
        // the interpreter's `mul_add`.
        let Some(c) = c else {
            self.set_reg(d, p, m);
            if cc {
                let zero = self.splat(0);
                self.write_cc(m, &p, &zero, None);
            }
            return;
        };
        let plus = self.plus(0, x, false);
        if cc {
            let (r, carry, _) = self.add3(&p, c, plus, self.after.has_flag(CF), false);
            self.set_reg(d, r, m);
            // CF's row is read only when CF is live, which is when it was made.
            self.write_cc(m, &r, &carry.unwrap_or(r), None);
        } else {
            let mut r = self.bin(&p, c, |bb, x, y| bb.ins().iadd(x, y));
            if let Some(q) = plus {
                r = self.bin(&r, &q, |bb, x, y| bb.ins().iadd(x, y));
            }
            self.set_reg(d, r, m);
        }
    }
}

impl Lower for Imul {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        tx.mul_add(
            m,
            o.d,
            (o.cc, false),
            (o.hi, o.a_signed, o.b_signed),
            &a,
            &b,
            None,
        );
        true
    }
}

impl Lower for Imad {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let c = tx.src(o.c);
        tx.mul_add(
            m,
            o.d,
            (o.cc, o.x),
            (o.hi, o.a_signed, o.b_signed),
            &a,
            &b,
            Some(&c),
        );
        true
    }
}

impl Tx<'_, '_, '_> {
    /// IMADSP's part of a row (as `SpPart::of`): masks and shifts in vector code.
    fn sp_part(&mut self, v: &Row, p: SpPart) -> Row {
        let and = |t: &mut Self, v: &Row, k: u32| {
            let m = t.splat(k);
            t.bin(v, &m, |b, x, y| b.ins().band(x, y))
        };
        match p {
            SpPart::U32 | SpPart::S32 => *v,
            SpPart::U24 => and(self, v, 0xff_ffff),
            SpPart::S24 => {
                let s = self.shl_c(v, 8);
                self.sshr_c(&s, 8)
            }
            SpPart::U16H0 => and(self, v, 0xffff),
            SpPart::S16H0 => {
                let s = self.shl_c(v, 16);
                self.sshr_c(&s, 16)
            }
            SpPart::U16H1 => self.ushr_c(v, 16),
            SpPart::S16H1 => self.sshr_c(v, 16),
        }
    }
}

impl Lower for Imadsp {
    /// `semantics::imadsp` in vector code: the parts, then a wrapping multiply and add.
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let a = tx.sp_part(&a, o.pa);
        let b = tx.src(o.b);
        let b = tx.sp_part(&b, o.pb);
        let c = tx.src(o.c);
        let c = tx.sp_part(&c, o.pc);
        let p = tx.bin(&a, &b, |bb, x, y| bb.ins().imul(x, y));
        let r = tx.bin(&p, &c, |bb, x, y| bb.ins().iadd(x, y));
        tx.set_reg_cc(m, o.d, o.cc, &r);
        true
    }
}
