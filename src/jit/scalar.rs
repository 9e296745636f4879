//! Per-lane work SIMD has no instruction for: `Tx::lane_routine`, the call the ops with a
//! per-lane control use (SHL/SHR/SHF by a register, BFE/BFI by a register control, `.BREV`,
//! PRMT by a register selector), PRMT and P2R, `per_lane` (32 scalar copies, for a few
//! instructions a lane), and the wide comparison `ISETP.X` as vector code.

use super::codegen::{Row, Tx};
use super::view::FuncArea;
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use std::mem::offset_of;
use warpjit_runtime::warp::{CF, ZF};

impl<'a, 'b, 'p> Tx<'a, 'b, 'p> {
    /// Applies `f` to lane `l` of each input row, building a row (32 copies of `f`'s code: for
    /// a few instructions a lane only; longer per-lane work goes through [`Tx::lane_routine`]).
    pub(super) fn per_lane(
        &mut self,
        ins: &[Row],
        f: impl Fn(&mut FunctionBuilder<'b>, &[Value]) -> Value,
    ) -> Row {
        // On rows that are one vector repeated (in a strip loop, every row), one vector's lanes.
        if ins.iter().all(super::codegen::uniform) {
            let mut out = self.splat(0)[0];
            for l in 0..4 {
                let xs: Vec<Value> = ins
                    .iter()
                    .map(|r| self.b.ins().extractlane(r[0], l as u8))
                    .collect();
                let v = f(self.b, &xs);
                out = self.b.ins().insertlane(out, v, l as u8);
            }
            return [out; 8];
        }
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

    /// The op of `inst` on every lane through the lane routine
    /// ([`warpjit_jit_lane_op`](super::view::warpjit_jit_lane_op), the per-lane
    /// definitions of `semantics`), its sources' rows from `srcs`; returns the result row.
    pub(super) fn lane_routine(&mut self, inst: &Inst, srcs: &[Src], m: Value) -> Row {
        let rows: Vec<Row> = srcs.iter().map(|s| self.src(*s)).collect();
        let f = self.helper(Helper::LaneOp);
        self.routine_row(f, &inst.op as *const Op as *const u8, &rows, m)
    }

    /// PRMT: with an immediate selector a byte shuffle of {Rc, Ra}; otherwise the lane routine
    /// (`semantics::prmt`).
    pub(super) fn prmt(&mut self, inst: &Inst, o: &Prmt) {
        let m = self.guard_mask(inst.guard);
        let r = if let Some(sel) = o.b.imm() {
            let a = self.reg(o.a);
            let c = self.src(o.c);
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
            self.lane_routine(inst, &[Src::Reg(o.a), o.b, o.c], m)
        };
        self.set_reg(o.d, r, m);
    }

    /// P2R: the lane routine gathers the predicate (or CC) masks' bits into each lane's byte
    /// and merges them into Ra under the mask (`semantics::{p2r_bits, p2r_merge}`): the masks go
    /// in as words of `a` (the CC masks at their flag indices), Ra as `b`, the mask as `c`.
    pub(super) fn p2r(&mut self, inst: &Inst, o: &P2r) {
        let m = self.guard_mask(inst.guard);
        let area = self.func_area();
        let masks: Vec<Value> = match o.src {
            P2rSrc::Pr => (0..7).map(|p| self.pred(Pred(p))).collect(),
            P2rSrc::Cc => (0..4).map(|f| self.flag(f)).collect(),
        };
        for (i, v) in masks.into_iter().enumerate() {
            self.b.ins().store(
                MemFlagsData::trusted(),
                v,
                area,
                (offset_of!(FuncArea, a) + 4 * i) as i32,
            );
        }
        let a = self.reg(o.a);
        let mk = self.src(o.mask);
        self.store_row(area, offset_of!(FuncArea, b), &a);
        self.store_row(area, offset_of!(FuncArea, c), &mk);
        let f = self.helper(Helper::LaneOp);
        let r = self.call_routine(f, &inst.op as *const Op as *const u8, area, m);
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
