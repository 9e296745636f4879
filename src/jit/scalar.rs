//! Lowerings that need per-lane scalar code (per-lane shift amounts and bit-field controls, which
//! SIMD has no instruction for) or bit gathering: SHL/SHR with a register amount or `.BREV`,
//! SHF with a register amount, BFE/BFI with a register control or `.BREV`, PRMT, P2R, and the
//! wide comparison `ISETP.X`.

use super::codegen::{Row, Tx};
use crate::ir::*;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use warpjit_runtime::warp::{CF, OF, SF, ZF};

/// The ops [`Tx::shift_lanes`] lowers.
pub(super) enum LaneShift<'o> {
    /// SHL.
    Shl(&'o Shl),
    /// SHR.
    Shr(&'o Shr),
}

/// The ops [`Tx::bitfield_lanes`] lowers.
pub(super) enum LaneBitfield<'o> {
    /// BFE.
    Bfe(&'o Bfe),
    /// BFI.
    Bfi(&'o Bfi),
}

impl<'a, 'b, 'p> Tx<'a, 'b, 'p> {
    /// Applies `f` to lane `l` of each input row, building a row.
    pub(super) fn per_lane(
        &mut self,
        ins: &[Row],
        f: impl Fn(&mut FunctionBuilder<'b>, &[Value]) -> Value,
    ) -> Row {
        let mut out = self.splat(0);
        for l in 0..32 {
            let xs: Vec<Value> = ins
                .iter()
                .map(|r| self.b.ins().extractlane(r[l / 4], (l % 4) as u8))
                .collect();
            let v = f(self.b, &xs);
            out[l / 4] = self.b.ins().insertlane(out[l / 4], v, (l % 4) as u8);
        }
        out
    }

    /// SHL/SHR with per-lane amounts (and SHR `.BREV`), as the interpreter's `Exec` impls
    /// for SHL and SHR (`src/interp/alu.rs`): the result row (the caller writes it).
    pub(super) fn shift_lanes(&mut self, op: LaneShift<'_>) -> Row {
        let (a, b, left, unsigned, wrap, brev) = match op {
            LaneShift::Shl(o) => (o.a, o.b, true, true, o.w, false),
            LaneShift::Shr(o) => (o.a, o.b, false, o.unsigned, o.w, o.brev),
        };
        let a = self.reg(a);
        let s = self.src(b);
        let r = self.per_lane(&[a, s], |b, x| {
            let v = if brev { b.ins().bitrev(x[0]) } else { x[0] };
            let amt = if wrap {
                b.ins().band_imm_s(x[1], 31)
            } else {
                x[1]
            };
            let zero = b.ins().iconst(types::I32, 0);
            if left || unsigned {
                let sh = if left {
                    b.ins().ishl(v, amt)
                } else {
                    b.ins().ushr(v, amt)
                };
                let big = b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, amt, 32);
                b.ins().select(big, zero, sh)
            } else {
                let k = b.ins().iconst(types::I32, 31);
                let amt = b.ins().umin(amt, k);
                b.ins().sshr(v, amt)
            }
        });
        r
    }

    /// SHF with per-lane amounts, as `crate::semantics::shf`: the 64-bit value {Rc, Ra} shifted in
    /// 64-bit scalar code, an amount of 64 (after the clamp) handled by a select.
    pub(super) fn shf_lanes(&mut self, g: Guard, o: &Shf) {
        let m = self.guard_mask(g);
        let a = self.reg(o.a);
        let s = self.src(o.b);
        let c = self.reg(o.c);
        let bits: i64 = if o.ty == ShfType::B32 { 32 } else { 64 };
        let (right, wrap, arith, hi) = (o.right, o.w, o.ty == ShfType::S64, o.hi);
        let r = self.per_lane(&[a, s, c], |b, x| {
            let n = if wrap {
                b.ins().band_imm_s(x[1], bits - 1)
            } else {
                let k = b.ins().iconst(types::I32, bits);
                b.ins().umin(x[1], k)
            };
            let n64 = b.ins().uextend(types::I64, n);
            let lo = b.ins().uextend(types::I64, x[0]);
            let hi64 = b.ins().uextend(types::I64, x[2]);
            let hi64 = b.ins().ishl_imm_u(hi64, 32);
            let v = b.ins().bor(hi64, lo);
            // Cranelift takes 64-bit shift amounts mod 64: n = 64 is the select below.
            let shifted = if !right {
                b.ins().ishl(v, n64)
            } else if arith {
                b.ins().sshr(v, n64)
            } else {
                b.ins().ushr(v, n64)
            };
            let out = if !right {
                b.ins().iconst(types::I64, 0)
            } else if arith {
                b.ins().sshr_imm_u(v, 63)
            } else {
                b.ins().iconst(types::I64, 0)
            };
            let all = b.ins().icmp_imm_u(IntCC::Equal, n64, 64);
            let r = b.ins().select(all, out, shifted);
            let r = if !right || hi {
                b.ins().ushr_imm_u(r, 32)
            } else {
                r
            };
            b.ins().ireduce(types::I32, r)
        });
        self.set_reg(o.d, r, m);
    }

    /// BFE/BFI with a per-lane control (and BFE `.BREV`), as `interp::alu::{bfe, bfi}`.
    pub(super) fn bitfield_lanes(&mut self, g: Guard, op: LaneBitfield<'_>) {
        let m = self.guard_mask(g);
        let (d, cc, r) = match op {
            LaneBitfield::Bfe(o) => {
                let a = self.reg(o.a);
                let c = self.src(o.b);
                let (signed, brev) = (o.signed, o.brev);
                let r = self.per_lane(&[a, c], |b, x| {
                    let a = if brev { b.ins().bitrev(x[0]) } else { x[0] };
                    let pos = b.ins().band_imm_s(x[1], 0xff);
                    let len = b.ins().ushr_imm_u(x[1], 8);
                    let len = b.ins().band_imm_s(len, 0xff);
                    let pos64 = b.ins().uextend(types::I64, pos);
                    let len64 = b.ins().uextend(types::I64, len);
                    let a64 = if signed {
                        b.ins().sextend(types::I64, a)
                    } else {
                        b.ins().uextend(types::I64, a)
                    };
                    // v = a64 >> min(pos, 63) (arithmetic when signed; zero past 63 bits otherwise).
                    let k63 = b.ins().iconst(types::I64, 63);
                    let p = b.ins().umin(pos64, k63);
                    let v = if signed {
                        b.ins().sshr(a64, p)
                    } else {
                        b.ins().ushr(a64, p)
                    };
                    // Keep the low len bits (len < 32), sign- or zero-extended.
                    let k64 = b.ins().iconst(types::I64, 64);
                    let sh = b.ins().isub(k64, len64);
                    let up = b.ins().ishl(v, sh);
                    let down = if signed {
                        b.ins().sshr(up, sh)
                    } else {
                        b.ins().ushr(up, sh)
                    };
                    let ge32 = b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, len, 32);
                    let r64 = b.ins().select(ge32, v, down);
                    let r = b.ins().ireduce(types::I32, r64);
                    let zero = b.ins().iconst(types::I32, 0);
                    let is0 = b.ins().icmp_imm_u(IntCC::Equal, len, 0);
                    b.ins().select(is0, zero, r)
                });
                (o.d, o.cc, r)
            }
            LaneBitfield::Bfi(o) => {
                let a = self.reg(o.a);
                let ctl = self.src(o.b);
                let c = self.src(o.c);
                let r = self.per_lane(&[a, ctl, c], |b, x| {
                    let pos = b.ins().band_imm_s(x[1], 0xff);
                    let len = b.ins().ushr_imm_u(x[1], 8);
                    let len = b.ins().band_imm_s(len, 0xff);
                    let k32 = b.ins().iconst(types::I32, 32);
                    let pc = b.ins().umin(pos, k32);
                    let room = b.ins().isub(k32, pc);
                    let len = b.ins().umin(len, room);
                    // mask = ((1 << len) - 1) << pos, computed in 64 bits.
                    let one = b.ins().iconst(types::I64, 1);
                    let len64 = b.ins().uextend(types::I64, len);
                    let pos64 = b.ins().uextend(types::I64, pos);
                    let ones = b.ins().ishl(one, len64);
                    let ones = b.ins().iadd_imm_s(ones, -1);
                    let mk = b.ins().ishl(ones, pos64);
                    let mk = b.ins().ireduce(types::I32, mk);
                    let ins = b.ins().ishl(x[0], pos);
                    let r = b.ins().bitselect(mk, ins, x[2]);
                    let out = b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, pos, 32);
                    let nolen = b.ins().icmp_imm_u(IntCC::Equal, len, 0);
                    let keep = b.ins().bor(out, nolen);
                    b.ins().select(keep, x[2], r)
                });
                (o.d, o.cc, r)
            }
        };
        self.set_reg(d, r, m);
        if cc {
            let z = self.splat(0);
            let zr = self.cmp(IntCC::Equal, &r, &z);
            let zf = self.lane_mask(&zr);
            let sf = self.lane_mask(&r);
            let zero = self.iconst(0);
            self.set_flag(CF, m, zero);
            self.set_flag(ZF, m, zf);
            self.set_flag(SF, m, sf);
            self.set_flag(OF, m, zero);
        }
    }

    /// PRMT: with an immediate selector a byte shuffle of {Rc, Ra}; otherwise per lane.
    pub(super) fn prmt(&mut self, g: Guard, o: &Prmt) {
        let m = self.guard_mask(g);
        let a = self.reg(o.a);
        let c = self.src(o.c);
        let r = if let Src::Imm(sel) = o.b {
            let sel = crate::semantics::prmt_selector(o.mode, sel);
            let le = MemFlagsData::new().with_endianness(Endianness::Little);
            let mut idx = [0u8; 16];
            let mut signs = [0u8; 16];
            for l in 0..4 {
                for i in 0..4 {
                    let n = (sel >> (4 * i)) & 0xf;
                    let j = (n & 7) as usize;
                    idx[4 * l + i] = if j < 4 {
                        (4 * l + j) as u8
                    } else {
                        (16 + 4 * l + j - 4) as u8
                    };
                    signs[4 * l + i] = if n & 8 != 0 { 0xff } else { 0 };
                }
            }
            let imm = self.b.func.dfg.immediates.push(idx.to_vec().into());
            let any_sign = signs.iter().any(|s| *s != 0);
            let sv = if any_sign {
                let sc = self.b.func.dfg.constants.insert(signs.to_vec().into());
                Some(self.b.ins().vconst(types::I8X16, sc))
            } else {
                None
            };
            std::array::from_fn(|k| {
                let x = self.b.ins().bitcast(types::I8X16, le, a[k]);
                let y = self.b.ins().bitcast(types::I8X16, le, c[k]);
                let s = self.b.ins().shuffle(x, y, imm);
                let s = match sv {
                    Some(sv) => {
                        let sign = self.b.ins().sshr_imm_u(s, 7);
                        self.b.ins().bitselect(sv, sign, s)
                    }
                    None => s,
                };
                self.b.ins().bitcast(types::I32X4, le, s)
            })
        } else {
            let sel = self.src(o.b);
            let sel = if o.mode == PrmtMode::Idx {
                sel
            } else {
                // As semantics::prmt_selector: one of four selectors, by sel[1:0].
                let three = self.splat(3);
                let s = self.bin(&sel, &three, |b, x, y| b.ins().band(x, y));
                let mut eff = self.splat(0);
                for k in 0..4 {
                    let kv = self.splat(k);
                    let on = self.cmp(IntCC::Equal, &s, &kv);
                    let tv = self.splat(crate::semantics::prmt_selector(o.mode, k));
                    let t = self.bin(&on, &tv, |b, x, y| b.ins().band(x, y));
                    eff = self.bin(&eff, &t, |b, x, y| b.ins().bor(x, y));
                }
                eff
            };
            self.per_lane(&[a, sel, c], |b, x| {
                let lo = b.ins().uextend(types::I64, x[0]);
                let hi = b.ins().uextend(types::I64, x[2]);
                let hi = b.ins().ishl_imm_u(hi, 32);
                let src = b.ins().bor(lo, hi);
                let mut acc = b.ins().iconst(types::I32, 0);
                for i in 0..4 {
                    let n = b.ins().ushr_imm_u(x[1], 4 * i);
                    let j = b.ins().band_imm_s(n, 7);
                    let j = b.ins().imul_imm_s(j, 8);
                    let j = b.ins().uextend(types::I64, j);
                    let byte = b.ins().ushr(src, j);
                    let byte = b.ins().ireduce(types::I8, byte);
                    let sign = b.ins().sshr_imm_u(byte, 7);
                    let neg = b.ins().band_imm_s(n, 8);
                    let v = b.ins().select(neg, sign, byte);
                    let v = b.ins().uextend(types::I32, v);
                    let v = b.ins().ishl_imm_u(v, 8 * i);
                    acc = b.ins().bor(acc, v);
                }
                acc
            })
        };
        self.set_reg(o.d, r, m);
    }

    /// P2R: gather predicate (or CC) bits into each lane, move to a byte, merge under the mask.
    pub(super) fn p2r(&mut self, g: Guard, o: &P2r) {
        let m = self.guard_mask(g);
        let srcs: Vec<(Value, u32)> = match o.src {
            P2rSrc::Pr => (0..7).map(|p| (self.pred(Pred(p)), p as u32)).collect(),
            P2rSrc::Cc => [(ZF, 0), (SF, 1), (CF, 2), (OF, 3)]
                .iter()
                .map(|&(f, bit)| (self.flag(f), bit))
                .collect(),
        };
        let sh = 8 * o.byte as u32;
        let mut bits = self.splat(0);
        for (mask, bit) in srcs {
            let mv = self.mask_vec(mask);
            let b1 = self.splat(1 << (bit + sh));
            let on = self.bin(&mv, &b1, |b, x, y| b.ins().band(x, y));
            bits = self.bin(&bits, &on, |b, x, y| b.ins().bor(x, y));
        }
        let mk = self.src(o.mask);
        let ff = self.splat(0xff);
        let mk = self.bin(&mk, &ff, |b, x, y| b.ins().band(x, y));
        let mk = self.shl_c(&mk, sh);
        let a = self.reg(o.a);
        let r = std::array::from_fn(|k| self.b.ins().bitselect(mk[k], bits[k], a[k]));
        self.set_reg(o.d, r, m);
    }

    /// `ISETP.X`: the high part of a wide comparison, d = Ra - Sb - (1 - CF) exactly (§7).
    pub(super) fn isetp_x(&mut self, cmp: Cmp, unsigned: bool, a: &Row, b: &Row) -> Value {
        let (a, b) = (*a, *b);
        let cf = self.flag(CF);
        let zf = self.flag(ZF);
        match cmp {
            Cmp::F => self.iconst(0),
            Cmp::T => self.iconst(u32::MAX),
            cmp => {
                let (lt_cc, le_cc, min) = if unsigned {
                    (
                        IntCC::UnsignedLessThan,
                        IntCC::UnsignedLessThanOrEqual,
                        0u32,
                    )
                } else {
                    (
                        IntCC::SignedLessThan,
                        IntCC::SignedLessThanOrEqual,
                        0x8000_0000,
                    )
                };
                // With a borrow in (CF clear): d < 0 iff a <= b; d == 0 iff a == b + 1 exactly.
                let lt0 = self.cmp(lt_cc, &a, &b);
                let le0 = self.cmp(le_cc, &a, &b);
                let lt = self.lane_mask(&lt0);
                let le = self.lane_mask(&le0);
                let eq0 = self.cmp(IntCC::Equal, &a, &b);
                let eq = self.lane_mask(&eq0);
                let one = self.splat(1);
                let b1 = self.bin(&b, &one, |bb, x, y| bb.ins().iadd(x, y));
                let eq1v = self.cmp(IntCC::Equal, &a, &b1);
                let minv = self.splat(min);
                let notmin = self.cmp(IntCC::NotEqual, &a, &minv);
                let eq1v = self.bin(&eq1v, &notmin, |bb, x, y| bb.ins().band(x, y));
                let eq1 = self.lane_mask(&eq1v);
                // Per lane: borrow = !CF.
                let neg = self.merge(cf, lt, le); // cf ? (a < b) : (a <= b)
                let zero = self.merge(cf, eq, eq1); // cf ? (a == b) : (a == b + 1)
                let nz = self.b.ins().bnot(zf);
                match cmp {
                    Cmp::Eq => self.b.ins().band(zero, zf),
                    Cmp::Ne => {
                        let e = self.b.ins().band(zero, zf);
                        self.b.ins().bnot(e)
                    }
                    Cmp::Lt => neg,
                    Cmp::Ge => self.b.ins().bnot(neg),
                    Cmp::Gt => {
                        let ez = self.b.ins().band(zero, nz);
                        let pos = self.b.ins().bor(neg, zero);
                        let pos = self.b.ins().bnot(pos);
                        self.b.ins().bor(pos, ez)
                    }
                    _ => {
                        let ez = self.b.ins().band(zero, zf);
                        self.b.ins().bor(neg, ez)
                    }
                }
            }
        }
    }
}
