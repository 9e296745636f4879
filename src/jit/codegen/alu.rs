//! Inline lowering of the register and predicate ops (moves, adds, shifts, logic, bit fields,
//! comparisons, selects), and their arithmetic helpers. LEA is in [`super::lea`]; per-lane
//! scalar lowerings are in `jit/scalar.rs`.

use super::{flags, Lower, Row, Tx};
use crate::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use std::mem::offset_of;
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::WarpState;

/// A source in a register or constant (not an immediate): its lowering works lane by lane or
/// with a variable amount, and weighs more (see [`super::table`]).
pub(super) fn reg_src(s: &Src) -> bool {
    s.imm().is_none()
}

impl Lower for Mov {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let v = tx.src(o.b);
        tx.set_reg(o.d, v, m);
        true
    }
}

impl Lower for S2r {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let v = match o.sr {
            SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ => {
                let i = match o.sr {
                    SpecialReg::TidX => 0,
                    SpecialReg::TidY => 1,
                    _ => 2,
                };
                tx.state_row(offset_of!(WarpState, tid) as i32 + i * 128)
            }
            SpecialReg::CtaidX | SpecialReg::CtaidY | SpecialReg::CtaidZ => {
                let i = match o.sr {
                    SpecialReg::CtaidX => 0,
                    SpecialReg::CtaidY => 1,
                    _ => 2,
                };
                let s = tx.b.ins().load(
                    types::I32,
                    flags(),
                    tx.w,
                    offset_of!(WarpState, ctaid) as i32 + 4 * i,
                );
                tx.splat_val(s)
            }
            SpecialReg::LaneId => std::array::from_fn(|k| {
                let k = 4 * k as u32;
                tx.vconst([k, k + 1, k + 2, k + 3])
            }),
            SpecialReg::ClockLo | SpecialReg::ClockHi => {
                let s = tx.clock_word(o.sr == SpecialReg::ClockHi);
                tx.splat_val(s)
            }
            SpecialReg::LmemHiOff => std::array::from_fn(|_| tx.vconst([0; 4])),
            m => std::array::from_fn(|k| {
                let mask = |l: usize| m.lane_mask(l as u32).unwrap_or_default();
                tx.vconst(std::array::from_fn(|i| mask(4 * k + i)))
            }),
        };
        tx.set_reg(o.d, v, m);
        true
    }
}

impl Lower for Iadd {
    /// `.SAT` (rare: ptxas writes it for `add.sat.s32`) through the lane routine
    /// (`semantics::iadd_sat`).
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        if o.sat {
            let r = tx.lane_routine(inst, &[Src::Reg(o.a), o.b], m);
            tx.set_reg(o.d, r, m);
            return true;
        }
        let a = tx.reg(o.a);
        let a = tx.not_if(a, o.neg_a);
        let b = tx.src(o.b);
        let b = tx.not_if(b, o.neg_b);
        let plus = tx.plus(o.neg_a as u32 + o.neg_b as u32, o.x, o.po);
        tx.finish_add(m, o.d, o.cc, &a, &b, plus);
        true
    }
}

impl Lower for Iscadd {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let a = tx.reg(o.a);
        let a = tx.shl_c(&a, o.shift as u32);
        let a = tx.not_if(a, o.neg_a);
        let b = tx.src(o.b);
        let b = tx.not_if(b, o.neg_b);
        let plus = tx.plus(o.neg_a as u32 + o.neg_b as u32, false, o.po);
        tx.finish_add(m, o.d, o.cc, &a, &b, plus);
        true
    }
}

impl Lower for Iadd3 {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        tx.iadd3(g, o)
    }
}

impl Lower for Xmad {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        tx.xmad(g, o);
        true
    }
}

impl Lower for Shl {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        // A register or constant shift amount varies by lane: the lane routine.
        let m = tx.guard_mask(g);
        let r = if let Some(s) = o.b.imm() {
            let s = if o.w { s & 31 } else { s };
            let a = tx.reg(o.a);
            tx.shl_c(&a, s)
        } else {
            tx.lane_routine(inst, &[Src::Reg(o.a), o.b], m)
        };
        tx.set_reg(o.d, r, m);
        tx.logic_out(m, &r, o.f, None, PredOut::None);
        true
    }
}

impl Lower for Shr {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let r = match (o.b, o.brev) {
            (Src::Imm(s) | Src::Imm32(s), false) => {
                let s = if o.w { s & 31 } else { s };
                let a = tx.reg(o.a);
                if o.unsigned {
                    tx.ushr_c(&a, s)
                } else {
                    tx.sshr_c(&a, s)
                }
            }
            _ => tx.lane_routine(inst, &[Src::Reg(o.a), o.b], m),
        };
        tx.set_reg(o.d, r, m);
        tx.logic_out(m, &r, o.f, None, PredOut::None);
        true
    }
}

impl Lower for Shf {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        // A register amount varies by lane: the lane routine.
        let m = tx.guard_mask(g);
        let r = if let Some(s) = o.b.imm() {
            let a = tx.reg(o.a);
            let c = tx.reg(o.c);
            tx.shf_c(o, &a, &c, s)
        } else {
            tx.lane_routine(inst, &[Src::Reg(o.a), o.b, Src::Reg(o.c)], m)
        };
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Lop {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let a = tx.reg(o.a);
        let a = tx.not_if(a, o.not_a);
        // An immediate is inverted here, as LOP32I's `~imm` always was.
        let b = match o.b.imm() {
            Some(v) => tx.splat(if o.not_b { !v } else { v }),
            None => {
                let b = tx.src(o.b);
                tx.not_if(b, o.not_b)
            }
        };
        let r = match o.func {
            LopFn::And => {
                let r = tx.bin(&a, &b, |b, x, y| b.ins().band(x, y));
                if let (Some(v), false, false) = (o.b.imm(), o.not_a, o.not_b) {
                    tx.mask_steps(&a, v, r);
                    tx.note_recipe(r, super::Recipe::And(a, v));
                }
                r
            }
            LopFn::Or => tx.bin(&a, &b, |b, x, y| b.ins().bor(x, y)),
            LopFn::Xor => tx.bin(&a, &b, |b, x, y| b.ins().bxor(x, y)),
            LopFn::PassB => b,
        };
        tx.set_reg(o.d, r, m);
        tx.logic_out(m, &r, o.f, o.p, o.pout);
        true
    }
}

impl Lower for Lop3 {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let c = tx.reg(o.c);
        let r = tx.lut3(o.lut, &a, &b, &c);
        tx.set_reg(o.d, r, m);
        tx.logic_out(m, &r, o.f, o.p, o.pout);
        true
    }
}

impl Lower for Bfe {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let (Some(ctl), false) = (o.b.imm(), o.brev) else {
            // A per-lane control (or `.BREV`): the lane routine.
            let r = tx.lane_routine(inst, &[Src::Reg(o.a), o.b], m);
            tx.set_reg_cc(m, o.d, o.cc, &r);
            return true;
        };
        let (pos, len) = (ctl & 0xff, (ctl >> 8) & 0xff);
        let a = tx.reg(o.a);
        let r = if len == 0 {
            tx.splat(0)
        } else if o.signed {
            // Bits past 31 read as bit 31: shift right arithmetically by min(pos, 31),
            // then sign-extend from bit len-1 when len < 32.
            let v = tx.sshr_c(&a, pos.min(31));
            let hi = (pos + len).min(32) - pos.min(31);
            if len >= 32 || pos >= 31 || hi >= 32 {
                v
            } else {
                let l = len.min(32 - pos);
                let t = tx.shl_c(&v, 32 - l);
                tx.sshr_c(&t, 32 - l)
            }
        } else {
            let v = tx.ushr_c(&a, pos);
            if len >= 32 {
                v
            } else {
                let mk = tx.splat((1u32 << len) - 1);
                tx.bin(&v, &mk, |b, x, y| b.ins().band(x, y))
            }
        };
        tx.set_reg_cc(m, o.d, o.cc, &r);
        true
    }
}

impl Lower for Bfi {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let Some(ctl) = o.b.imm() else {
            // A per-lane control: the lane routine.
            let r = tx.lane_routine(inst, &[Src::Reg(o.a), o.b, o.c], m);
            tx.set_reg_cc(m, o.d, o.cc, &r);
            return true;
        };
        let (pos, len) = (ctl & 0xff, (ctl >> 8) & 0xff);
        let c = tx.src(o.c);
        let r = if pos >= 32 || len == 0 {
            c
        } else {
            let len = len.min(32 - pos);
            let mk = (((1u64 << len) - 1) << pos) as u32;
            let a = tx.reg(o.a);
            let a = tx.shl_c(&a, pos);
            let mv = tx.splat(mk);
            tx.select_rows(&mv, &a, &c)
        };
        tx.set_reg_cc(m, o.d, o.cc, &r);
        true
    }
}

impl Lower for Popc {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let b = tx.src(o.b);
        let b = tx.not_if(b, o.not_b);
        let r = tx.popcount(&b);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Flo {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let b = tx.src(o.b);
        let mut v = tx.not_if(b, o.not_b);
        if o.signed {
            // A negative value is inverted: v ^ (v >> 31, arithmetic).
            let sign = tx.sshr_c(&v, 31);
            v = tx.bin(&v, &sign, |b, x, y| b.ins().bxor(x, y));
        }
        // Smear the leading one down: k = popcount = position + 1 (0 when v = 0).
        for sh in [1, 2, 4, 8, 16] {
            let t = tx.ushr_c(&v, sh);
            v = tx.bin(&v, &t, |b, x, y| b.ins().bor(x, y));
        }
        let k = tx.popcount(&v);
        let r = if o.sh {
            // 31 - (k - 1) = 32 - k, and all ones when k = 0.
            let c32 = tx.splat(32);
            let d = tx.bin(&c32, &k, |b, x, y| b.ins().isub(x, y));
            let z = tx.splat(0);
            let none = tx.cmp(IntCC::Equal, &k, &z);
            tx.bin(&d, &none, |b, x, y| b.ins().bor(x, y))
        } else {
            // k - 1: 0xffffffff when k = 0.
            let one = tx.splat(1);
            tx.bin(&k, &one, |b, x, y| b.ins().isub(x, y))
        };
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Sel {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let p = tx.pred_src(o.p);
        let pv = tx.mask_vec(p);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let r = tx.select_rows(&pv, &a, &b);
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Isetp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let r = tx.isetp_cmp(o.cmp, o.unsigned, o.x, &a, &b);
        tx.isetp_out(o, m, r);
        true
    }
}

impl Tx<'_, '_, '_> {
    /// The lanes where ISETP's (and ISET's) comparison of `a` with `b` holds.
    pub(in crate::jit) fn isetp_cmp(
        &mut self,
        cmp: Cmp,
        unsigned: bool,
        x: bool,
        a: &Row,
        b: &Row,
    ) -> Value {
        if x {
            return self.isetp_x(cmp, unsigned, a, b);
        }
        match cmp {
            Cmp::F => self.iconst(0),
            Cmp::T => self.iconst(u32::MAX),
            c => {
                let cc = match (c, unsigned) {
                    (Cmp::Lt, false) => IntCC::SignedLessThan,
                    (Cmp::Lt, true) => IntCC::UnsignedLessThan,
                    (Cmp::Le, false) => IntCC::SignedLessThanOrEqual,
                    (Cmp::Le, true) => IntCC::UnsignedLessThanOrEqual,
                    (Cmp::Gt, false) => IntCC::SignedGreaterThan,
                    (Cmp::Gt, true) => IntCC::UnsignedGreaterThan,
                    (Cmp::Ge, false) => IntCC::SignedGreaterThanOrEqual,
                    (Cmp::Ge, true) => IntCC::UnsignedGreaterThanOrEqual,
                    (Cmp::Eq, _) => IntCC::Equal,
                    _ => IntCC::NotEqual,
                };
                let v = self.cmp(cc, a, b);
                self.lane_mask(&v)
            }
        }
    }
}

impl Lower for Psetp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let a = tx.pred_src(o.a);
        let b = tx.pred_src(o.b);
        let c = tx.pred_src(o.c);
        let ab = tx.bop(o.bop1, a, b);
        let p = tx.bop(o.bop2, ab, c);
        let na = tx.b.ins().bnot(a);
        let nab = tx.bop(o.bop1, na, b);
        let q = tx.bop(o.bop2, nab, c);
        tx.set_pred(o.p, m, p);
        tx.set_pred(o.q, m, q);
        true
    }
}

impl Lower for P2r {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.p2r(inst, self);
        true
    }
}

impl Lower for Imnmx {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let g = inst.guard;
        let m = tx.guard_mask(g);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        let (mn, mx) = if o.unsigned {
            (
                tx.bin(&a, &b, |b, x, y| b.ins().umin(x, y)),
                tx.bin(&a, &b, |b, x, y| b.ins().umax(x, y)),
            )
        } else {
            (
                tx.bin(&a, &b, |b, x, y| b.ins().smin(x, y)),
                tx.bin(&a, &b, |b, x, y| b.ins().smax(x, y)),
            )
        };
        let p = tx.pred_src(o.p);
        let pv = tx.mask_vec(p);
        let r = if o.mode == ImnmxMode::Xlo {
            // As semantics::imnmx: with ZF (equal high words) the plain min/max, else the side
            // SF chose (a for min when SF, for max when not SF).
            let zf = tx.flag(ZF);
            let sf = tx.flag(SF);
            let zv = tx.mask_vec(zf);
            let sv = tx.mask_vec(sf);
            let plain: Row = tx.select_rows(&pv, &mn, &mx);
            let take_b: Row = tx.bin(&sv, &pv, |b, x, y| b.ins().bxor(x, y));
            let side: Row = tx.select_rows(&take_b, &b, &a);
            tx.select_rows(&zv, &plain, &side)
        } else {
            tx.select_rows(&pv, &mn, &mx)
        };
        tx.set_reg(o.d, r, m);
        if o.cc {
            let eq = tx.cmp(IntCC::Equal, &a, &b);
            let lt_cc = if o.unsigned {
                IntCC::UnsignedLessThan
            } else {
                IntCC::SignedLessThan
            };
            let lt = tx.cmp(lt_cc, &a, &b);
            let (zf, sf) = (tx.lane_mask(&eq), tx.lane_mask(&lt));
            let zero = tx.iconst(0);
            tx.set_flag(ZF, m, zf);
            tx.set_flag(SF, m, sf);
            tx.set_flag(CF, m, zero);
            tx.set_flag(OF, m, zero);
        }
        true
    }
}

impl Lower for Icmp {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let o = self;
        let m = tx.guard_mask(inst.guard);
        let a = tx.reg(o.a);
        let b = tx.src(o.b);
        // Rc against zero, as `crate::semantics::icmp_zero`.
        let r = match (o.cmp, o.unsigned) {
            (Cmp::F, _) | (Cmp::Lt, true) => b,
            (Cmp::T, _) | (Cmp::Ge, true) => a,
            (cmp, u) => {
                let cc = match (cmp, u) {
                    (Cmp::Lt, _) => IntCC::SignedLessThan,
                    (Cmp::Le, false) => IntCC::SignedLessThanOrEqual,
                    (Cmp::Gt, false) => IntCC::SignedGreaterThan,
                    (Cmp::Ge, _) => IntCC::SignedGreaterThanOrEqual,
                    // Unsigned: <= 0 is == 0, > 0 is != 0.
                    (Cmp::Eq, _) | (Cmp::Le, true) => IntCC::Equal,
                    _ => IntCC::NotEqual,
                };
                let c = tx.src(o.c);
                let z = tx.splat(0);
                let t = tx.cmp(cc, &c, &z);
                tx.select_rows(&t, &a, &b)
            }
        };
        tx.set_reg(o.d, r, m);
        true
    }
}

impl Lower for Prmt {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.prmt(inst, self);
        true
    }
}

impl Tx<'_, '_, '_> {
    // ---- arithmetic helpers ------------------------------------------------------------------

    /// The number of set bits of each lane (a SWAR sum, as `u32::count_ones`).
    pub(in crate::jit) fn popcount(&mut self, x: &Row) -> Row {
        let k55 = self.splat(0x5555_5555);
        let k33 = self.splat(0x3333_3333);
        let k0f = self.splat(0x0f0f_0f0f);
        let k01 = self.splat(0x0101_0101);
        // Pairs: x - ((x >> 1) & 0x55..).
        let t = self.ushr_c(x, 1);
        let t = self.bin(&t, &k55, |b, x, y| b.ins().band(x, y));
        let v = self.bin(x, &t, |b, x, y| b.ins().isub(x, y));
        // Nibbles: (v & 0x33..) + ((v >> 2) & 0x33..).
        let lo = self.bin(&v, &k33, |b, x, y| b.ins().band(x, y));
        let t = self.ushr_c(&v, 2);
        let hi = self.bin(&t, &k33, |b, x, y| b.ins().band(x, y));
        let v = self.bin(&lo, &hi, |b, x, y| b.ins().iadd(x, y));
        // Bytes: (v + (v >> 4)) & 0x0f..; their sum lands in the top byte of v * 0x01010101.
        let t = self.ushr_c(&v, 4);
        let v = self.bin(&v, &t, |b, x, y| b.ins().iadd(x, y));
        let v = self.bin(&v, &k0f, |b, x, y| b.ins().band(x, y));
        let v = self.bin(&v, &k01, |b, x, y| b.ins().imul(x, y));
        self.ushr_c(&v, 24)
    }

    /// SHF by the constant amount `s` (as `crate::semantics::shf`): `a` the low word, `c` the high.
    pub(in crate::jit) fn shf_c(&mut self, o: &Shf, a: &Row, c: &Row, s: u32) -> Row {
        let bits = if o.ty == ShfType::B32 { 32 } else { 64 };
        let n = if o.w { s & (bits - 1) } else { s.min(bits) };
        let arith = o.ty == ShfType::S64;
        // Bits of a word above the 64-bit value: the sign of Rc for .S64 right shifts, else 0.
        let fill = |t: &mut Self| {
            if arith {
                t.sshr_c(c, 31)
            } else {
                t.splat(0)
            }
        };
        let or = |t: &mut Self, x: &Row, y: &Row| t.bin(x, y, |b, x, y| b.ins().bor(x, y));
        let high_right = |t: &mut Self, v: &Row, n: u32| {
            if arith {
                t.sshr_c(v, n)
            } else {
                t.ushr_c(v, n)
            }
        };
        if !o.right {
            // The high word of {c, a} << n.
            return match n {
                0 => *c,
                1..=31 => {
                    let x = self.shl_c(c, n);
                    let y = self.ushr_c(a, 32 - n);
                    or(self, &x, &y)
                }
                _ => self.shl_c(a, n - 32),
            };
        }
        if o.hi {
            // The high word of {c, a} >> n.
            return match n {
                0..=31 => high_right(self, c, n),
                _ => fill(self),
            };
        }
        // The low word of {c, a} >> n.
        match n {
            0 => *a,
            1..=31 => {
                let x = self.ushr_c(a, n);
                let y = self.shl_c(c, 32 - n);
                or(self, &x, &y)
            }
            32..=63 => high_right(self, c, n - 32),
            _ => fill(self),
        }
    }

    /// a + b, with its carry and signed-overflow lane masks (all-ones lanes) when asked for
    /// (`want_c`, `want_o`; a dead flag costs nothing).
    pub(in crate::jit) fn add_co(
        &mut self,
        a: &Row,
        b: &Row,
        want_c: bool,
        want_o: bool,
    ) -> (Row, Option<Row>, Option<Row>) {
        let s = self.bin(a, b, |b, x, y| b.ins().iadd(x, y));
        let c = want_c.then(|| self.cmp(IntCC::UnsignedLessThan, &s, a));
        let o = want_o.then(|| {
            let x = self.bin(a, &s, |b, x, y| b.ins().bxor(x, y));
            let y = self.bin(b, &s, |b, x, y| b.ins().bxor(x, y));
            self.bin(&x, &y, |b, x, y| b.ins().band(x, y))
        });
        (s, c, o)
    }

    /// a + b + plus (plus small and non-negative per lane), carry = c1|c2, overflow = o1^o2,
    /// each only when asked for (as [`Tx::add_co`]).
    pub(in crate::jit) fn add3(
        &mut self,
        a: &Row,
        b: &Row,
        plus: Option<Row>,
        want_c: bool,
        want_o: bool,
    ) -> (Row, Option<Row>, Option<Row>) {
        let (s1, c1, o1) = self.add_co(a, b, want_c, want_o);
        match plus {
            None => (s1, c1, o1),
            Some(p) => {
                let (s2, c2, o2) = self.add_co(&s1, &p, want_c, want_o);
                let c = c1
                    .zip(c2)
                    .map(|(c1, c2)| self.bin(&c1, &c2, |b, x, y| b.ins().bor(x, y)));
                let o = o1
                    .zip(o2)
                    .map(|(o1, o2)| self.bin(&o1, &o2, |b, x, y| b.ins().bxor(x, y)));
                (s2, c, o)
            }
        }
    }

    /// The +1s of negated operands, carry in (`.X`) and `.PO`, as in the interpreter's
    /// `plus_row`: `None` when it is 0 in every lane.
    pub(in crate::jit) fn plus(&mut self, negs: u32, x: bool, po: bool) -> Option<Row> {
        let base = crate::semantics::add_ones(negs, x, po);
        if x {
            let cf = self.flag(CF);
            let mv = self.mask_vec(cf);
            let one = self.splat(1);
            let bits = self.bin(&mv, &one, |b, x, y| b.ins().band(x, y));
            if base == 0 {
                Some(bits)
            } else {
                let bv = self.splat(base);
                Some(self.bin(&bits, &bv, |b, x, y| b.ins().iadd(x, y)))
            }
        } else if base == 0 {
            None
        } else {
            Some(self.splat(base))
        }
    }

    /// A result `r` to `d` for the lanes of `m`, and with `.CC` ZF and SF from it, CF and OF
    /// cleared: the flags of BFE, BFI, ISET, FSET, DSET and IMADSP.
    pub(in crate::jit) fn set_reg_cc(&mut self, m: Value, d: Reg, cc: bool, r: &Row) {
        self.set_reg(d, *r, m);
        if cc {
            let z = self.splat(0);
            self.write_cc(m, r, &z, None);
        }
    }

    /// Writes the live CC flags: ZF and SF from `res`, CF from `cf`, OF from `of` (0 if `None`).
    pub(in crate::jit) fn write_cc(&mut self, mask: Value, res: &Row, cf: &Row, of: Option<&Row>) {
        self.write_zf_sf(mask, res);
        if self.after.has_flag(CF) {
            let cf = self.bool_mask(cf);
            self.set_flag(CF, mask, cf);
        }
        if self.after.has_flag(OF) {
            let of = match of {
                Some(o) => self.lane_mask(o),
                None => self.iconst(0),
            };
            self.set_flag(OF, mask, of);
        }
    }

    /// Writes ZF (`res` is 0) and SF (its bit 31), those that are live, for the lanes of `mask`.
    pub(in crate::jit) fn write_zf_sf(&mut self, mask: Value, res: &Row) {
        if self.after.has_flag(ZF) {
            let z = self.splat(0);
            let zr = self.cmp(IntCC::Equal, res, &z);
            let zf = self.bool_mask(&zr);
            self.set_flag(ZF, mask, zf);
        }
        if self.after.has_flag(SF) {
            let sf = self.lane_mask(res);
            self.set_flag(SF, mask, sf);
        }
    }

    /// ISETP's outputs from the comparison mask `r`: Pd = r bop Pp, Pq = !r bop Pp.
    pub(in crate::jit) fn isetp_out(&mut self, o: &Isetp, m: Value, r: Value) {
        let c = self.pred_src(o.c);
        let p = self.bop(o.bop, r, c);
        let nr = self.b.ins().bnot(r);
        let q = self.bop(o.bop, nr, c);
        self.set_pred(o.p, m, p);
        self.set_pred(o.q, m, q);
    }

    pub(in crate::jit) fn bop(&mut self, op: BoolOp, a: Value, b: Value) -> Value {
        match op {
            BoolOp::And => self.b.ins().band(a, b),
            BoolOp::Or => self.b.ins().bor(a, b),
            BoolOp::Xor => self.b.ins().bxor(a, b),
        }
    }

    pub(in crate::jit) fn finish_add(
        &mut self,
        m: Value,
        d: Reg,
        cc: bool,
        a: &Row,
        b: &Row,
        plus: Option<Row>,
    ) {
        if cc {
            let (cf, of) = (self.after.has_flag(CF), self.after.has_flag(OF));
            let (s, c, o) = self.add3(a, b, plus, cf, of);
            self.set_reg(d, s, m);
            // `write_cc` reads CF's and OF's rows only when they are live, which is when
            // they were made.
            self.write_cc(m, &s, &c.unwrap_or(s), o.as_ref());
        } else {
            let mut s = self.bin(a, b, |b, x, y| b.ins().iadd(x, y));
            match plus {
                Some(p) => s = self.bin(&s, &p, |b, x, y| b.ins().iadd(x, y)),
                None => {
                    self.add_steps(a, b, s);
                    self.note_recipe(s, super::Recipe::Add(*a, *b));
                }
            }
            self.set_reg(d, s, m);
        }
    }

    /// The predicate output and the flags of a logic, shift or I2I op, as the interpreter's
    /// `logic_out`: the zero test `semantics::logic_zero` (the result is 0, and with `.X` ZF
    /// is set) for `.Z`/`.NZ` and ZF; with `.CC` SF from bit 31, CF = OF = 0.
    pub(in crate::jit) fn logic_out(
        &mut self,
        m: Value,
        r: &Row,
        f: LogicCc,
        p: Option<Pred>,
        pout: PredOut,
    ) {
        if !f.cc && p.is_none() {
            return;
        }
        let z = self.splat(0);
        let zr = self.cmp(IntCC::Equal, r, &z);
        let mut zero = self.lane_mask(&zr);
        if f.x {
            let zf = self.flag(ZF);
            zero = self.b.ins().band(zero, zf);
        }
        if let Some(p) = p {
            let v = match pout {
                PredOut::None | PredOut::F => self.iconst(0),
                PredOut::T => self.iconst(u32::MAX),
                PredOut::Z => zero,
                PredOut::Nz => self.b.ins().bnot(zero),
            };
            self.set_pred(p, m, v);
        }
        if f.cc {
            let sf = self.lane_mask(r);
            let clear = self.iconst(0);
            self.set_flag(ZF, m, zero);
            self.set_flag(SF, m, sf);
            self.set_flag(CF, m, clear);
            self.set_flag(OF, m, clear);
        }
    }

    /// `LOP3.LUT`: bit `i` of `lut` is the result for input bits `a`, `b`, `c` = bits 2, 1, 0
    /// of `i` (as `semantics::lut3`). A table that ignores an input is a two-input function,
    /// one or two ops ([`Tx::lut2`]); one that reads all three is `a ? f1(b, c) : f0(b, c)`, a
    /// `bitselect` of two such (xor3 and its complement directly).
    pub(in crate::jit) fn lut3(&mut self, lut: u8, a: &Row, b: &Row, c: &Row) -> Row {
        // The 4-entry table of the two inputs left when one is fixed: `pick(k)` is the index
        // into `lut` for entry `k` (bit 1 of `k` the first input, bit 0 the second).
        let sub = |pick: fn(u8) -> u8| (0..4).fold(0u8, |t, k| t | (lut >> pick(k) & 1) << k);
        let dep_a = lut >> 4 != lut & 0x0f;
        let dep_b = (lut >> 2) & 0x33 != lut & 0x33;
        let dep_c = (lut >> 1) & 0x55 != lut & 0x55;
        match (dep_a, dep_b, dep_c) {
            (false, _, _) => self.lut2(lut & 0x0f, b, c),
            (true, false, _) => self.lut2(sub(|k| (k >> 1) << 2 | (k & 1)), a, c),
            (true, true, false) => self.lut2(sub(|k| (k >> 1) << 2 | (k & 1) << 1), a, b),
            (true, true, true) if lut == 0x96 || lut == 0x69 => {
                let t = self.bin(a, b, |b, x, y| b.ins().bxor(x, y));
                if lut == 0x96 {
                    self.bin(&t, c, |b, x, y| b.ins().bxor(x, y))
                } else {
                    self.bin(&t, c, |b, x, y| b.ins().bxor_not(x, y))
                }
            }
            (true, true, true) => {
                let f1 = self.lut2(lut >> 4, b, c);
                let f0 = self.lut2(lut & 0x0f, b, c);
                self.select_rows(a, &f1, &f0)
            }
        }
    }

    /// A two-input bit function: bit `k` of `t` (0-15) is the result for `x`, `y` = bits 1, 0
    /// of `k`. One op, or two for NAND and NOR.
    fn lut2(&mut self, t: u8, x: &Row, y: &Row) -> Row {
        // `!x & y` and `!x | y` are the `x & !y` and `x | !y` of the swapped pair.
        let (x, y, t) = match t & 0xf {
            0x2 => (y, x, 0x4),
            0xb => (y, x, 0xd),
            t => (x, y, t),
        };
        match t {
            0x0 => self.splat(0),
            0xf => self.splat(u32::MAX),
            0xc => *x,
            0xa => *y,
            0x3 => self.not_if(*x, true),
            0x5 => self.not_if(*y, true),
            0x8 => self.bin(x, y, |b, x, y| b.ins().band(x, y)),
            0xe => self.bin(x, y, |b, x, y| b.ins().bor(x, y)),
            0x6 => self.bin(x, y, |b, x, y| b.ins().bxor(x, y)),
            0x9 => self.bin(x, y, |b, x, y| b.ins().bxor_not(x, y)),
            0x4 => self.bin(x, y, |b, x, y| b.ins().band_not(x, y)),
            0xd => self.bin(x, y, |b, x, y| b.ins().bor_not(x, y)),
            0x7 => {
                let r = self.bin(x, y, |b, x, y| b.ins().band(x, y));
                self.not_if(r, true)
            }
            _ => {
                // 0x1: NOR.
                let r = self.bin(x, y, |b, x, y| b.ins().bor(x, y));
                self.not_if(r, true)
            }
        }
    }

    pub(in crate::jit) fn half(&mut self, v: Row, h: Half) -> Row {
        match h {
            Half::None => v,
            Half::H0 => {
                let mk = self.splat(0xffff);
                self.bin(&v, &mk, |b, x, y| b.ins().band(x, y))
            }
            Half::H1 => self.ushr_c(&v, 16),
        }
    }

    pub(in crate::jit) fn iadd3(&mut self, g: Guard, o: &Iadd3) -> bool {
        let m = self.guard_mask(g);
        let [na, nb, nc] = crate::semantics::iadd3_ones(o);
        let a = self.reg(o.a.src);
        let a = self.half(a, o.a.half);
        let a = self.not_if(a, o.a.neg);
        let b = self.src(o.b.src);
        let b = self.half(b, o.b.half);
        let b = self.not_if(b, o.b.neg);
        let c = self.reg(o.c.src);
        let c = self.half(c, o.c.half);
        let c = self.not_if(c, o.c.neg);
        let nab = if na + nb > 0 {
            Some(self.splat(na + nb))
        } else {
            None
        };
        // Stage 1: p = a + b + na + nb (OF = its carry out; bit 32 = c1 ^ c2).
        let (s1, c1) = {
            let s = self.bin(&a, &b, |b, x, y| b.ins().iadd(x, y));
            let c = self.cmp(IntCC::UnsignedLessThan, &s, &a);
            (s, c)
        };
        let (p, carry, bit32) = match nab {
            None => (s1, c1, c1),
            Some(n) => {
                let s2 = self.bin(&s1, &n, |b, x, y| b.ins().iadd(x, y));
                let c2 = self.cmp(IntCC::UnsignedLessThan, &s2, &s1);
                let carry = self.bin(&c1, &c2, |b, x, y| b.ins().bor(x, y));
                let bit = self.bin(&c1, &c2, |b, x, y| b.ins().bxor(x, y));
                (s2, carry, bit)
            }
        };
        let partial = match o.shift {
            Iadd3Shift::None => p,
            Iadd3Shift::Rs => {
                let lo = self.ushr_c(&p, 16);
                let one = self.splat(1 << 16);
                let hb = self.bin(&bit32, &one, |b, x, y| b.ins().band(x, y));
                self.bin(&lo, &hb, |b, x, y| b.ins().bor(x, y))
            }
            Iadd3Shift::Ls => self.shl_c(&p, 16),
        };
        let mut plus2 = if nc > 0 { Some(self.splat(nc)) } else { None };
        if o.x {
            // The carry in is CF + OF (the whole carry of an IADD3 `.CC`: 0, 1 or 2).
            for flag in [CF, OF] {
                let fm = self.flag(flag);
                let mv = self.mask_vec(fm);
                let one = self.splat(1);
                let bits = self.bin(&mv, &one, |b, x, y| b.ins().band(x, y));
                plus2 = Some(match plus2 {
                    None => bits,
                    Some(x) => self.bin(&x, &bits, |b, x, y| b.ins().iadd(x, y)),
                });
            }
        }
        let want_c = o.cc && self.after.has_flag(CF);
        let (f, cf, _) = self.add3(&partial, &c, plus2, want_c, false);
        self.set_reg(o.d, f, m);
        if o.cc {
            if let Some(cf) = cf {
                let cfm = self.bool_mask(&cf);
                self.set_flag(CF, m, cfm);
            }
            self.write_zf_sf(m, &f);
            if self.after.has_flag(OF) {
                let ofm = self.lane_mask(&carry);
                self.set_flag(OF, m, ofm);
            }
        }
        true
    }

    /// `a * k` (wrapping) for a constant `k`: 0 or a shift for a power of two, else a vector
    /// multiply (which on current cores costs about what two shifts and an add do, so only a
    /// single shift is a sure gain).
    pub(in crate::jit) fn mul_const(&mut self, a: &Row, k: u32) -> Row {
        if k == 0 {
            self.splat(0)
        } else if k.is_power_of_two() {
            self.shl_c(a, k.trailing_zeros())
        } else {
            let kv = self.splat(k);
            self.bin(a, &kv, |b, x, y| b.ins().imul(x, y))
        }
    }

    pub(in crate::jit) fn xmad(&mut self, g: Guard, o: &Xmad) {
        let m = self.guard_mask(g);
        let sel = |t: &mut Self, v: Row, h1: bool, signed: bool| -> Row {
            match (h1, signed) {
                (true, false) => t.ushr_c(&v, 16),
                (true, true) => t.sshr_c(&v, 16),
                (false, false) => {
                    let mk = t.splat(0xffff);
                    t.bin(&v, &mk, |b, x, y| b.ins().band(x, y))
                }
                (false, true) => {
                    let s = t.shl_c(&v, 16);
                    t.sshr_c(&s, 16)
                }
            }
        };
        let ra = self.reg(o.a);
        let rb = self.src(o.b);
        let rc = self.src(o.c);
        let a = sel(self, ra, o.a_h1, o.a_signed);
        // An immediate multiplier's half is known here: a product by 0 or a power of two needs
        // no multiply.
        let known = match o.b {
            Src::Imm(k) | Src::Imm32(k) => Some(crate::semantics::xmad_half(k, o.b_h1, o.b_signed)),
            _ => None,
        };
        let b = sel(self, rb, o.b_h1, o.b_signed);
        let mut p = match known {
            Some(k) => self.mul_const(&a, k),
            None => self.bin(&a, &b, |b, x, y| b.ins().imul(x, y)),
        };
        if o.psl {
            p = self.shl_c(&p, 16);
        }
        let addend = match o.mode {
            XmadMode::None => rc,
            XmadMode::Clo => {
                let mk = self.splat(0xffff);
                self.bin(&rc, &mk, |b, x, y| b.ins().band(x, y))
            }
            XmadMode::Chi => self.ushr_c(&rc, 16),
            XmadMode::Cbcc => {
                let s = self.shl_c(&rb, 16);
                self.bin(&rc, &s, |b, x, y| b.ins().iadd(x, y))
            }
            XmadMode::Csfu => {
                // As semantics::xmad_csfu: 0x10000 for each negative signed half whose
                // partner's other half is nonzero.
                let zero = self.splat(0);
                let unit = self.splat(0x10000);
                let other = |t: &mut Self, v: &Row, h1: bool| -> Row {
                    let o = if h1 {
                        let mk = t.splat(0xffff);
                        t.bin(v, &mk, |b, x, y| b.ins().band(x, y))
                    } else {
                        t.ushr_c(v, 16)
                    };
                    t.cmp(IntCC::NotEqual, &o, &zero)
                };
                let mut sub = self.splat(0);
                for (half, signed, partner, p_h1) in
                    [(&a, o.a_signed, &rb, o.b_h1), (&b, o.b_signed, &ra, o.a_h1)]
                {
                    if signed {
                        let neg = self.cmp(IntCC::SignedLessThan, half, &zero);
                        let oth = other(self, partner, p_h1);
                        let both = self.bin(&neg, &oth, |b, x, y| b.ins().band(x, y));
                        let amt = self.bin(&both, &unit, |b, x, y| b.ins().band(x, y));
                        sub = self.bin(&sub, &amt, |b, x, y| b.ins().iadd(x, y));
                    }
                }
                self.bin(&rc, &sub, |b, x, y| b.ins().isub(x, y))
            }
        };
        let r = self.bin(&p, &addend, |b, x, y| b.ins().iadd(x, y));
        let res = if o.mrg {
            let mk = self.splat(0xffff);
            let lo = self.bin(&r, &mk, |b, x, y| b.ins().band(x, y));
            let hi = self.shl_c(&rb, 16);
            self.bin(&lo, &hi, |b, x, y| b.ins().bor(x, y))
        } else {
            r
        };
        self.set_reg(o.d, res, m);
        if o.cc {
            let c = self.cmp(IntCC::UnsignedLessThan, &r, &p);
            self.write_cc(m, &res, &c, None);
        }
    }
}

/// VMNMX and VABSDIFF: per lane through the lane routine (`semantics::vmnmx`, `vabsdiff`); ptxas
/// writes one for a clamp or a `sad`, not in inner loops of many.
fn lower_video(tx: &mut Tx<'_, '_, '_>, inst: &Inst, v: &Video) -> bool {
    let m = tx.guard_mask(inst.guard);
    let r = tx.lane_routine(inst, &[Src::Reg(v.a), v.b, Src::Reg(v.c)], m);
    tx.set_reg(v.d, r, m);
    true
}

impl Lower for Vmnmx {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        lower_video(tx, inst, &self.v)
    }
}

impl Lower for Vabsdiff {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        lower_video(tx, inst, &self.v)
    }
}

/// VABSDIFF4: per lane through the lane routine (`semantics::vabsdiff4`), like VABSDIFF.
impl Lower for Vabsdiff4 {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        let m = tx.guard_mask(inst.guard);
        let srcs = [self.a, self.b, self.c].map(Src::Reg);
        let r = tx.lane_routine(inst, &srcs, m);
        tx.set_reg(self.d, r, m);
        true
    }
}
