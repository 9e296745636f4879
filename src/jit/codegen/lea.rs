//! Inline lowering of LEA: the 64-bit scaled add and the shared-window test of LEA.HI.

use super::super::abi::JitCx;
use super::{flags, AddrPair, Deferred, Lower, Tx};
use crate::analysis::uniformity::UniformSet;
use crate::analysis::LiveSet;
use crate::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder};
use std::mem::offset_of;
use warpjit_runtime::warp::{CF, OF};
use warpjit_runtime::SHARED_WINDOW_SIZE;

impl Lower for Lea {
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool {
        tx.lea(inst.guard, self);
        true
    }
}

/// Whether `lo; hi` is the pair `LEA d.CC, a, b, s; LEA.HI.X d', a, b', c, s` that writes one
/// 64-bit address `b' : b + ({c, a} << s)` (see [`AddrPair`]), both unguarded, with no flag,
/// predicate or LEA.LO word of theirs read after them (`after`), `lo` not writing what `hi`
/// reads, and no constant operand that would fault (those go to the interpreter, which raises
/// the fault).
pub(in crate::jit) fn addr_pair_of(lo: &Inst, hi: &Inst, after: &LiveSet) -> Option<(Lea, Lea)> {
    let (Op::Lea(l), Op::Lea(h)) = (&lo.op, &hi.op) else {
        return None;
    };
    if super::bad_const(lo) || super::bad_const(hi) {
        return None;
    }
    let reads_lo = |r: Reg| r == l.d;
    let ok = lo.guard.is_always()
        && hi.guard.is_always()
        && !l.hi
        && l.cc
        && !l.x
        && !l.neg_a
        && l.p.is_none()
        && h.hi
        && h.x
        && !h.cc
        && !h.neg_a
        && h.p.is_none()
        && h.a == l.a
        && h.shift == l.shift
        && !l.d.is_rz()
        && l.d != h.d
        && !reads_lo(h.a)
        && !reads_lo(h.c)
        && !matches!(h.b, Src::Reg(r) if reads_lo(r))
        && (0..4).all(|f| !after.has_flag(f))
        && !after.lea_lo;
    ok.then_some((*l, *h))
}

impl Tx<'_, '_, '_> {
    /// Translates a pair [`addr_pair_of`] found (with what is live after the pair and what is
    /// uniform around its first instruction) as two deferred registers: nothing is computed
    /// until something reads them. False (nothing done) outside a full-warp function, where
    /// the writes would need blends: translate the two one by one then.
    pub fn defer_addr_pair(
        &mut self,
        (lo, hi): (Lea, Lea),
        after: &LiveSet,
        uniform: &UniformSet,
    ) -> bool {
        if !self.full || self.strip.is_some() {
            return false;
        }
        self.after = *after;
        self.uniform = *uniform;
        let p = AddrPair {
            a: self.reg(lo.a),
            c: (!hi.c.is_rz()).then(|| self.reg(hi.c)),
            b_lo: self.src(lo.b),
            b_hi: self.src(hi.b),
            s: lo.shift as u32,
        };
        for (d, v) in [(lo.d, Deferred::Lo(p)), (hi.d, Deferred::Hi(p))] {
            self.regs.remove(&d.0);
            self.deferred.remove(&d.0);
            if !d.is_rz() && after.has_reg(d) {
                self.deferred.insert(d.0, v);
            }
        }
        // The pair's flags and LEA.LO word are dead: what the cache holds of them need not
        // be stored.
        for f in 0..4 {
            self.cc[f] = None;
        }
        self.lea = None;
        self.index += 2;
        true
    }

    fn lea(&mut self, g: Guard, o: &Lea) {
        let m = self.guard_mask(g);
        let s = o.shift as u32;
        let a = self.reg(o.a);
        let v = if !o.hi {
            let a = if o.neg_a {
                let z = self.splat(0);
                self.bin(&z, &a, |b, x, y| b.ins().isub(x, y))
            } else {
                a
            };
            self.shl_c(&a, s)
        } else {
            let c = self.reg(o.c);
            let (lo, hi) = if o.neg_a {
                // -{c, a} = {~c + (a == 0), -a}
                let z = self.splat(0);
                let lo = self.bin(&z, &a, |b, x, y| b.ins().isub(x, y));
                let az = self.cmp(IntCC::Equal, &a, &z);
                let one = self.splat(1);
                let inc = self.bin(&az, &one, |b, x, y| b.ins().band(x, y));
                let nc = self.not_if(c, true);
                let hi = self.bin(&nc, &inc, |b, x, y| b.ins().iadd(x, y));
                (lo, hi)
            } else {
                (a, c)
            };
            if s == 0 {
                hi
            } else {
                let h = self.shl_c(&hi, s);
                let l = self.ushr_c(&lo, 32 - s);
                self.bin(&h, &l, |b, x, y| b.ins().bor(x, y))
            }
        };
        let b = self.src(o.b);
        let plus = if o.x { self.plus(1, true, false) } else { None };
        let want_cf = o.cc && self.after.has_flag(CF);
        let (res, cf, _) = self.add3(&b, &v, plus, want_cf, false);
        // Plg = CC.OF = NOT window_detect(EA), computed only when live. EA: LO: zext(Rd);
        // HI: {Rd, lea_lo}. EA - window is taken in 64 bits, as two 32-bit words with a borrow,
        // so the window may lie anywhere. This mirrors `crate::semantics::lea_outside_window`
        // (the one definition; `jit::tests::semantics_mirrors` compares the two).
        let want_of = o.cc && self.after.has_flag(OF);
        let want_p = o.p.is_some_and(|p| self.after.has_pred(p));
        let outside = if want_of || want_p {
            let wbase = self.b.ins().load(
                types::I64,
                flags(),
                self.jcx,
                offset_of!(JitCx, shared_window) as i32,
            );
            let w_lo = self.b.ins().ireduce(types::I32, wbase);
            let w_hi = self.b.ins().ushr_imm_u(wbase, 32);
            let w_hi = self.b.ins().ireduce(types::I32, w_hi);
            let w_lo = self.splat_val(w_lo);
            let w_hi = self.splat_val(w_hi);
            let size = self.splat(SHARED_WINDOW_SIZE as u32);
            let (lo_word, hi_word) = if o.hi {
                (self.lea_lo(), res)
            } else {
                (res, self.splat(0))
            };
            let rel = self.bin(&lo_word, &w_lo, |b, x, y| b.ins().isub(x, y));
            let inside_lo = self.cmp(IntCC::UnsignedLessThan, &rel, &size);
            // High word of EA - window: hi - w_hi - borrow, where the borrow mask is all ones.
            let borrow = self.cmp(IntCC::UnsignedLessThan, &lo_word, &w_lo);
            let rel_hi = self.bin(&hi_word, &w_hi, |b, x, y| b.ins().isub(x, y));
            let rel_hi = self.bin(&rel_hi, &borrow, |b, x, y| b.ins().iadd(x, y));
            let z = self.splat(0);
            let hz = self.cmp(IntCC::Equal, &rel_hi, &z);
            let inside = self.bin(&inside_lo, &hz, |b, x, y| b.ins().band(x, y));
            let inside_m = self.lane_mask(&inside);
            Some(self.b.ins().bnot(inside_m))
        } else {
            None
        };
        if !o.hi && self.after.lea_lo {
            let new = if self.covers_all(m) {
                res
            } else {
                let old = self.lea_lo();
                self.blend(m, &res, &old)
            };
            self.lea = Some((new, true));
        }
        self.set_reg(o.d, res, m);
        if o.cc {
            self.write_zf_sf(m, &res);
            if let Some(cf) = cf {
                let cfm = self.bool_mask(&cf);
                self.set_flag(CF, m, cfm);
            }
            if let (true, Some(out)) = (want_of, outside) {
                self.set_flag(OF, m, out);
            }
        }
        if let (Some(p), true, Some(out)) = (o.p, want_p, outside) {
            self.set_pred(p, m, out);
        }
    }
}
