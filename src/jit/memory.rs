//! Inline lowering of LDG, STG, LD, ST, LDS, STS, LDL, STL and indexed LDC.
//!
//! A full warp's coalesced 32-bit global access is eight vector loads or stores after one range
//! test against the instruction's segment hint. Every other access settles the cached state
//! (`Tx::settle`) and calls the lane routine ([`super::lanes`]), which reads its registers
//! from the warp state, checks all executing lanes and then accesses them in lane order
//! (results into the warp state), or reports a miss and touches nothing. On a miss (or when
//! the whole-warp test fails and the routine misses) the warp takes a cold slow path: the
//! instruction runs with the interpreter's code, which handles sparse tiles, other segments
//! and faults exactly, and refreshes the hint. Indexed LDC loads its lanes inline: 32-bit loads
//! whose lanes are all in range and read consecutive words (eight vector loads) or one word (one
//! load) take a shortcut, every other load a compiled loop over the lanes.

use super::abi::{JitCx, SegHint};
use super::codegen::{uniform, AddrPair, Row, Tx};
use super::lanes::{LaneAccess, LaneSpace};
use crate::ir::*;
use crate::jit::helper::Helper;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, FuncRef, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
};
use std::mem::offset_of;
use warpjit_runtime::WarpState;

fn guest() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The fast path of a split access: emits code, returns the rows (and predicate) it produced,
/// and a late miss flag (nonzero: take the slow path after all), computed by the lane routine.
type FastPath<'f, T> = dyn FnMut(&mut T) -> (Vec<Row>, Option<Value>, Option<Value>) + 'f;

impl Tx<'_, '_, '_> {
    /// Loads hint `slot`: its base, the bound for `bytes`-byte accesses and its host base.
    fn load_hint(&mut self, slot: usize, bytes: u32) -> (Value, Value, Value) {
        let off = SegHint::offset_in_cx(slot);
        let (lo, host, len) = SegHint::field_offsets(bytes);
        let f = MemFlagsData::trusted();
        let lo = self.b.ins().load(types::I64, f, self.jcx, off + lo);
        let len = self.b.ins().load(types::I64, f, self.jcx, off + len);
        let host = self.b.ins().load(types::I64, f, self.jcx, off + host);
        (lo, len, host)
    }

    /// The lanes of `mask` that a generic access's `steer` predicate sends to shared memory
    /// (they take the slow path), or `None` for a global access.
    fn steered_off(&mut self, mask: Value, steer: Option<PredSrc>) -> Option<Value> {
        let st = steer.filter(|p| *p != PredSrc::TRUE)?;
        let g = self.pred_src(st);
        Some(self.b.ins().band_not(mask, g))
    }

    /// Calls the lane routine (`jit::lanes`) for `acc` with offset `offset`, for the lanes of
    /// `exec`; the warp state in memory must be current ([`Tx::settle`]): the routine reads
    /// its registers there and a load writes its destinations there. Returns the routine's
    /// miss flag (nonzero: nothing was accessed, take the slow path).
    fn call_lanes(&mut self, acc: LaneAccess, offset: i32, exec: Value, slot: usize) -> Value {
        let slot = self.iconst(slot as u32);
        let offset = self.iconst(offset as u32);
        let acc = self.iconst(acc.pack());
        let f = self.helper(Helper::Lanes);
        let call = self
            .b
            .ins()
            .call(f, &[self.jcx, self.w, exec, slot, offset, acc]);
        self.b.inst_results(call)[0]
    }

    /// Loads `size` for each lane `l` at `consts + off[l]` (`consts`: the banks' host address,
    /// [`Tx::consts_base`]) where `ok[l]` is nonzero, else from the zeroed sink, into
    /// `size.regs()` rows. One compiled loop over the 32 lanes, with the
    /// lanes' offsets and tests in a stack slot: about 30 Cranelift instructions, where the
    /// same loads unrolled were about 230 (seven per lane) for the same work at run time.
    fn gather_consts(&mut self, consts: Value, ok: &Row, off: &Row, size: MemSize) -> Vec<Row> {
        let n = size.regs() as usize;
        // Slot layout: ok[32], off[32], out[32 * n], as u32.
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            (256 + 128 * n) as u32,
            4,
        ));
        let area = self.b.ins().stack_addr(self.env.ptr, slot, 0);
        for (k, (o, f)) in ok.iter().zip(off).enumerate() {
            let f_ = MemFlagsData::trusted();
            self.b.ins().store(f_, *o, area, 16 * k as i32);
            self.b.ins().store(f_, *f, area, 128 + 16 * k as i32);
        }
        let sink = self
            .b
            .ins()
            .iadd_imm_s(self.jcx, offset_of!(JitCx, zero) as i64);
        let body = self.b.create_block();
        let done = self.b.create_block();
        self.b.append_block_param(body, self.env.ptr);
        let zero = self.b.ins().iconst(self.env.ptr, 0);
        self.b.ins().jump(body, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(body);
        // `at` is the lane's byte offset in a row: 4 * l.
        let at = self.b.block_params(body)[0];
        let lane = self.b.ins().iadd(area, at);
        let t = MemFlagsData::trusted();
        let okl = self.b.ins().load(types::I32, t, lane, 0);
        let offl = self.b.ins().load(types::I32, t, lane, 128);
        let offl = self.b.ins().uextend(self.env.ptr, offl);
        let p = self.b.ins().iadd(consts, offl);
        let p = self.b.ins().select(okl, p, sink);
        for k in 0..n {
            let v = match size {
                MemSize::U8 => self.b.ins().uload8(types::I32, guest(), p, 0),
                MemSize::S8 => self.b.ins().sload8(types::I32, guest(), p, 0),
                MemSize::U16 => self.b.ins().uload16(types::I32, guest(), p, 0),
                MemSize::S16 => self.b.ins().sload16(types::I32, guest(), p, 0),
                _ => self.b.ins().load(types::I32, guest(), p, 4 * k as i32),
            };
            self.b.ins().store(t, v, lane, (256 + 128 * k) as i32);
        }
        let next = self.b.ins().iadd_imm_s(at, 4);
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, next, 128);
        self.b
            .ins()
            .brif(more, body, &[BlockArg::Value(next)], done, &[]);
        self.b.switch_to_block(done);
        (0..n)
            .map(|k| {
                std::array::from_fn(|j| {
                    self.b
                        .ins()
                        .load(types::I32X4, t, area, (256 + 128 * k + 16 * j) as i32)
                })
            })
            .collect()
    }

    /// The number of constant banks the launch's mode has (`JitCx::nbanks`).
    pub(super) fn nbanks(&mut self) -> Value {
        self.b.ins().load(
            types::I32,
            MemFlagsData::trusted(),
            self.jcx,
            offset_of!(JitCx, nbanks) as i32,
        )
    }

    /// The 32 consecutive guest words at host address `p` as a row (eight vector loads, as
    /// guest memory: [`Tx::load_row`] reads a routine's area).
    fn guest_row(&mut self, p: Value) -> Row {
        std::array::from_fn(|k| self.b.ins().load(types::I32X4, guest(), p, 16 * k as i32))
    }

    /// Jumps to `to`, passing `row`'s eight vectors.
    fn jump_row(&mut self, to: cranelift_codegen::ir::Block, row: &Row) {
        let args: Vec<BlockArg> = row.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(to, &args);
    }

    /// An indexed LDC through the LDC routine, on the warp state made current for it
    /// ([`Tx::settle`]): its destinations are read from there afterwards.
    fn ldc_routine(&mut self, inst: &Inst, mask: Value) {
        self.settle(inst);
        self.call_exec(Helper::Ldc, inst, mask);
    }

    /// The host address of the launch's constant banks (bank `b` at `b << 16` from it).
    fn consts_base(&mut self) -> Value {
        self.b.ins().load(
            self.env.ptr,
            MemFlagsData::trusted(),
            self.jcx,
            offset_of!(JitCx, consts) as i32,
        )
    }

    /// Whether every lane `l` of `row` holds `first + step * l` (32-bit, wrapping; with `step`
    /// 0, `first` in every lane), as an `i8`; `first` is lane 0's value. A row with a known
    /// [`Steps`](super::codegen::Steps) fact is tested by its flag and step (two scalar
    /// operations); any other by comparing its eight vectors.
    fn steps_from(&mut self, row: &Row, first: Value, step: u32) -> Value {
        if let Some(f) = self.steps_of(row) {
            let same = self.b.ins().icmp_imm_s(IntCC::Equal, f.step, step as i64);
            return self.b.ins().band(f.flag, same);
        }
        let firstv = self.splat_val(first)[0];
        self.row_matches(row, &mut |t, k| match step {
            0 => firstv,
            _ => {
                let k = k as u32;
                let steps = t.vconst(std::array::from_fn(|j| step * (4 * k + j as u32)));
                t.b.ins().iadd(firstv, steps)
            }
        })
    }

    /// [`Tx::gather_consts`], with two shortcuts for 32-bit loads when every lane is in range:
    /// with `consecutive`, lanes reading consecutive words (`off[l] = off[0] + 4 * l`, a table
    /// indexed by the thread) load them as eight vectors; lanes reading one word (a uniform
    /// index) load it once. Anything else takes the compiled loop.
    fn consts_rows(&mut self, ok: &Row, off: &Row, size: MemSize, consecutive: bool) -> Vec<Row> {
        let consts = self.consts_base();
        if size != MemSize::B32 {
            return self.gather_consts(consts, ok, off, size);
        }
        let off0 = self.b.ins().extractlane(off[0], 0);
        let all_ok = ok[1..].iter().fold(ok[0], |a, v| self.b.ins().band(a, *v));
        let all_ok = self.b.ins().vall_true(all_ok);
        let next = match consecutive {
            true => Some(self.steps_from(off, off0, 4)),
            false => None,
        };
        let same = self.steps_from(off, off0, 0);
        let same = self.b.ins().band(same, all_ok);
        let (same_b, loop_b, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in 0..8 {
            self.b.append_block_param(join, types::I32X4);
        }
        let p0 = self.b.ins().uextend(self.env.ptr, off0);
        let p0 = self.b.ins().iadd(consts, p0);
        if let Some(next) = next {
            let next = self.b.ins().band(next, all_ok);
            let (next_b, test_b) = (self.b.create_block(), self.b.create_block());
            self.b.ins().brif(next, next_b, &[], test_b, &[]);
            self.b.switch_to_block(next_b);
            let row = self.guest_row(p0);
            self.jump_row(join, &row);
            self.b.switch_to_block(test_b);
        }
        self.b.ins().brif(same, same_b, &[], loop_b, &[]);

        self.b.switch_to_block(same_b);
        let v = self.b.ins().load(types::I32, guest(), p0, 0);
        let v = self.b.ins().splat(types::I32X4, v);
        self.b.ins().jump(join, &[BlockArg::Value(v); 8]);

        self.b.switch_to_block(loop_b);
        let rows = self.gather_consts(consts, ok, off, size);
        self.jump_row(join, &rows[0]);

        self.b.switch_to_block(join);
        let row: Row = std::array::from_fn(|k| self.b.block_params(join)[k]);
        vec![row]
    }

    /// Emits `if missed & mask != 0 { slow } else { fast }` around `fast` and the slow call
    /// (without `missed`, straight into `fast`; a late miss `fast` returns also leads to the
    /// slow path); `dests` are the register rows (and `pred` the predicate) the instruction
    /// writes, which are joined from both paths.
    #[allow(clippy::too_many_arguments)]
    fn split_slow(
        &mut self,
        inst: &Inst,
        mask: Value,
        missed: Option<Value>,
        slot: usize,
        helper: FuncRef,
        dests: &[Reg],
        pred: Option<Pred>,
        fast: &mut FastPath<'_, Self>,
    ) {
        let fast_b = self.b.create_block();
        let slow_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.set_cold_block(slow_b);
        for _ in dests {
            for _ in 0..8 {
                self.b.append_block_param(join, types::I32X4);
            }
        }
        if pred.is_some() {
            self.b.append_block_param(join, types::I32);
        }
        match missed {
            Some(missed) => {
                let any = self.b.ins().band(missed, mask);
                self.b.ins().brif(any, slow_b, &[], fast_b, &[]);
            }
            None => {
                self.b.ins().jump(fast_b, &[]);
            }
        }
        // Lane-mask vectors first built inside the two paths do not dominate the join: forget
        // them there (a later instruction would otherwise reuse them and fail verification).
        let saved_masks = (self.lane_bits, self.mask_vecs.clone());

        // Fast path.
        self.b.switch_to_block(fast_b);
        let (rows, pv, late) = fast(self);
        if let Some(late) = late {
            let ok_b = self.b.create_block();
            self.b.ins().brif(late, slow_b, &[], ok_b, &[]);
            self.b.switch_to_block(ok_b);
        }
        let mut args: Vec<BlockArg> = Vec::new();
        // Every lane written (a full warp, unguarded): the old values are not read.
        let all = self.covers_all(mask);
        for (d, row) in dests.iter().zip(&rows) {
            let new = if all {
                *row
            } else {
                let old = self.reg(*d);
                self.blend(mask, row, &old)
            };
            args.extend(new.iter().map(|v| BlockArg::Value(*v)));
        }
        if let (Some(p), Some(v)) = (pred, pv) {
            let new = if all {
                v
            } else {
                let old = self.pred(p);
                self.merge(mask, v, old)
            };
            args.push(BlockArg::Value(new));
        }
        self.b.ins().jump(join, &args);

        // Slow path: make the warp state in memory current (the interpreter reads registers and
        // predicates from it), call, then reload what the instruction wrote.
        (self.lane_bits, self.mask_vecs) = saved_masks.clone();
        self.b.switch_to_block(slow_b);
        self.flush_for(inst);
        let ip = self
            .b
            .ins()
            .iconst(self.env.ptr, inst as *const Inst as i64);
        let slot_v = self.iconst(slot as u32);
        let call = self
            .b
            .ins()
            .call(helper, &[self.w, self.jcx, ip, mask, slot_v]);
        let r = self.b.inst_results(call)[0];
        let cont = self.b.create_block();
        self.b.set_cold_block(cont);
        self.b.ins().brif(r, self.fault_block, &[], cont, &[]);
        self.b.switch_to_block(cont);
        let mut args: Vec<BlockArg> = Vec::new();
        for d in dests {
            let base = offset_of!(WarpState, regs) as i32 + d.0 as i32 * 128;
            for k in 0..8 {
                let v =
                    self.b
                        .ins()
                        .load(types::I32X4, MemFlagsData::trusted(), self.w, base + 16 * k);
                args.push(BlockArg::Value(v));
            }
        }
        if let Some(p) = pred {
            let off = offset_of!(WarpState, preds) as i32 + 4 * p.0 as i32;
            let v = self
                .b
                .ins()
                .load(types::I32, MemFlagsData::trusted(), self.w, off);
            args.push(BlockArg::Value(v));
        }
        self.b.ins().jump(join, &args);

        self.b.switch_to_block(join);
        (self.lane_bits, self.mask_vecs) = saved_masks;
        let params = self.b.block_params(join).to_vec();
        for (i, d) in dests.iter().enumerate() {
            let row: Row = std::array::from_fn(|k| params[8 * i + k]);
            self.put_row(d.0, row, true);
        }
        if let Some(p) = pred {
            self.preds[p.0 as usize] = Some((params[8 * dests.len()], true));
        }
    }

    /// A global load (LDG, or LD with `steer`): lanes steered to shared memory take the slow path.
    #[allow(clippy::too_many_arguments)]
    fn global_load(
        &mut self,
        inst: &Inst,
        addr: Addr,
        e: bool,
        size: MemSize,
        d: Reg,
        ps: Option<Pred>,
        steer: Option<PredSrc>,
        slot: usize,
        helper: FuncRef,
    ) {
        let mask = self.guard_mask(inst.guard);
        let simple = steer.is_none_or(|p| p == PredSrc::TRUE) && ps.is_none_or(|p| p.is_pt());
        let whole =
            self.env.whole_warp && matches!(size, MemSize::B32 | MemSize::B64 | MemSize::B128);
        match addr.base {
            Some(base)
                if simple
                    && whole
                    && self.full
                    && mask == self.active
                    && (0..size.regs()).all(|k| !d.offset(k).is_rz()) =>
            {
                self.coalesced(base, addr.offset, e, slot, size, Some(d), None, &mut |t| {
                    t.global_load_lanes(inst, addr, e, size, d, ps, steer, slot, helper)
                });
            }
            _ => self.global_load_lanes(inst, addr, e, size, d, ps, steer, slot, helper),
        }
    }

    /// [`Tx::global_load`] lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn global_load_lanes(
        &mut self,
        inst: &Inst,
        addr: Addr,
        e: bool,
        size: MemSize,
        d: Reg,
        ps: Option<Pred>,
        steer: Option<PredSrc>,
        slot: usize,
        helper: FuncRef,
    ) {
        let mask = self.guard_mask(inst.guard);
        let missed = self.steered_off(mask, steer);
        let has_ps = ps.filter(|p| !p.is_pt());
        let acc = LaneAccess {
            size,
            base: addr.base.is_some(),
            e,
            store: false,
            space: LaneSpace::Global,
            addr: addr.base.unwrap_or(Reg::RZ),
            data: d,
        };
        // Both paths leave the destinations in the warp state.
        self.settle(inst);
        self.split_slow(inst, mask, missed, slot, helper, &[], has_ps, &mut |t| {
            let late = t.call_lanes(acc, addr.offset, mask, slot);
            let ps = has_ps.map(|_| t.iconst(0));
            (Vec::new(), ps, Some(late))
        });
    }

    /// A global store (STG, or ST with `steer`).
    #[allow(clippy::too_many_arguments)]
    fn global_store(
        &mut self,
        inst: &Inst,
        addr: Addr,
        e: bool,
        size: MemSize,
        v: Reg,
        steer: Option<PredSrc>,
        slot: usize,
        helper: FuncRef,
    ) {
        let mask = self.guard_mask(inst.guard);
        let simple = steer.is_none_or(|p| p == PredSrc::TRUE);
        let whole =
            self.env.whole_warp && matches!(size, MemSize::B32 | MemSize::B64 | MemSize::B128);
        match addr.base {
            Some(base) if simple && whole && self.covers_all(mask) => {
                let rows: Vec<Row> = (0..size.regs()).map(|k| self.reg(v.offset(k))).collect();
                self.coalesced(
                    base,
                    addr.offset,
                    e,
                    slot,
                    size,
                    None,
                    Some(rows),
                    &mut |t| t.global_store_lanes(inst, addr, e, size, v, steer, slot, helper),
                );
            }
            _ => self.global_store_lanes(inst, addr, e, size, v, steer, slot, helper),
        }
    }

    /// [`Tx::global_store`] lane by lane.
    #[allow(clippy::too_many_arguments)]
    fn global_store_lanes(
        &mut self,
        inst: &Inst,
        addr: Addr,
        e: bool,
        size: MemSize,
        v: Reg,
        steer: Option<PredSrc>,
        slot: usize,
        helper: FuncRef,
    ) {
        let mask = self.guard_mask(inst.guard);
        let missed = self.steered_off(mask, steer);
        let acc = LaneAccess {
            size,
            base: addr.base.is_some(),
            e,
            store: true,
            space: LaneSpace::Global,
            addr: addr.base.unwrap_or(Reg::RZ),
            data: v,
        };
        self.settle(inst);
        self.split_slow(inst, mask, missed, slot, helper, &[], None, &mut |t| {
            let late = t.call_lanes(acc, addr.offset, mask, slot);
            (Vec::new(), None, Some(late))
        });
    }

    /// The whole-warp path of a full warp's 32-, 64- or 128-bit access (`size`, of `b` bytes):
    /// when lane `l` addresses `a0 + b * l` inside the instruction's hinted segment, `b / 2`
    /// vector loads (into `dest` and the registers after it) or stores (of `store`'s rows), the
    /// words moved between lane order and register rows by shuffles; otherwise `lanes` emits the
    /// per-lane code. Both paths join after it.
    #[allow(clippy::too_many_arguments)]
    fn coalesced(
        &mut self,
        base: Reg,
        offset: i32,
        e: bool,
        slot: usize,
        size: MemSize,
        dest: Option<Reg>,
        store: Option<Vec<Row>>,
        lanes: &mut dyn FnMut(&mut Self),
    ) {
        let bytes = size.bytes();
        let words = size.regs() as usize;
        // From lane 0's address to lane 31's.
        let span = 31 * bytes as i64;
        let pair = self.addr_pair(base).filter(|_| e);
        let (all, a0, nowrap) = match pair.and_then(|p| self.pair_steps(&p, bytes, offset)) {
            Some(t) => t,
            None => self.address_steps(base, offset, e, bytes),
        };
        // A misaligned lane 0 (then every lane is) takes the lane path, whose routine sends it
        // to the slow path, which aligns it down and counts it (`Stats::misaligned`).
        let low = self.b.ins().band_imm_s(a0, bytes as i64 - 1);
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        let a0 = self.b.ins().band_imm_s(a0, !(bytes as i64 - 1));
        let mut ok = self.b.ins().band(all, nowrap);
        ok = self.b.ins().band(ok, aligned);
        if !e {
            // With 32-bit addresses the offset add may wrap too.
            let last = self.b.ins().iadd_imm_s(a0, span);
            let fits = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, last, 0xffff_ffff);
            ok = self.b.ins().band(ok, fits);
        }
        // Range: the b-byte accesses at a0 .. a0 + 31 * b inside the hint.
        let (hlo, len, host) = self.load_hint(slot, bytes);
        let rel0 = self.b.ins().isub(a0, hlo);
        let rel31 = self.b.ins().iadd_imm_s(rel0, span);
        let in0 = self.b.ins().icmp(IntCC::UnsignedLessThan, rel0, len);
        let in31 = self.b.ins().icmp(IntCC::UnsignedLessThan, rel31, len);
        let inr = self.b.ins().band(in0, in31);
        let ok = self.b.ins().band(ok, inr);

        let saved = self.cached();
        let vec_b = self.b.create_block();
        let lane_b = self.b.create_block();
        let join = self.b.create_block();
        if dest.is_some() {
            for _ in 0..8 * words {
                self.b.append_block_param(join, types::I32X4);
            }
        }
        self.b.ins().brif(ok, vec_b, &[], lane_b, &[]);

        self.b.switch_to_block(vec_b);
        let p0 = self.b.ins().iadd(host, rel0);
        let mut args: Vec<BlockArg> = Vec::new();
        match &store {
            Some(rows) => {
                let mem = self.lanes_from_rows(rows);
                for (k, v) in mem.iter().enumerate() {
                    self.b.ins().store(guest(), *v, p0, 16 * k as i32);
                }
            }
            None => {
                let mem: Vec<Value> = (0..8 * words)
                    .map(|k| self.b.ins().load(types::I32X4, guest(), p0, 16 * k as i32))
                    .collect();
                let rows = self.rows_from_lanes(&mem, words);
                args.extend(rows.iter().flatten().map(|v| BlockArg::Value(*v)));
            }
        }
        self.b.ins().jump(join, &args);

        self.b.switch_to_block(lane_b);
        lanes(self);
        let mut args: Vec<BlockArg> = Vec::new();
        if let Some(d) = dest {
            for k in 0..words {
                let row = self.reg(d.offset(k as u8));
                args.extend(row.iter().map(|v| BlockArg::Value(*v)));
            }
        }
        self.b.ins().jump(join, &args);

        self.b.switch_to_block(join);
        // Values first made inside either path do not dominate the join: restore the cache as it
        // was before the branch, then the loaded registers come from the join.
        self.restore(saved);
        if let Some(d) = dest {
            let params = self.b.block_params(join).to_vec();
            for k in 0..words {
                let row: Row = std::array::from_fn(|j| params[8 * k + j]);
                self.put_row(d.offset(k as u8).0, row, true);
            }
        }
    }

    /// Lane 0's address (plus `offset`, in 64 bits) of a whole-warp access of `bytes` per lane
    /// through register `base` (a pair with `e`); whether (an `i8`) lane `l`'s address is that
    /// plus `bytes * l` as far as the low words show; and whether the
    /// low words do not wrap across the warp.
    fn address_steps(
        &mut self,
        base: Reg,
        offset: i32,
        e: bool,
        bytes: u32,
    ) -> (Value, Value, Value) {
        let span = 31 * bytes as i64;
        // Lane l's low word is lane 0's plus b * l without a carry, and (with .E) every high
        // word is lane 0's: then a_l = a0 + b * l exactly, aligned down alike.
        let lo = self.reg(base);
        let lo0 = self.b.ins().extractlane(lo[0], 0);
        let mut all = self.steps_from(&lo, lo0, bytes);
        let mut a0 = self.b.ins().uextend(types::I64, lo0);
        if e {
            let hi = self.reg(base.offset(1));
            let hi0 = self.b.ins().extractlane(hi[0], 0);
            let same_hi = self.steps_from(&hi, hi0, 0);
            all = self.b.ins().band(all, same_hi);
            let h = self.b.ins().uextend(types::I64, hi0);
            let h = self.b.ins().ishl_imm_u(h, 32);
            a0 = self.b.ins().bor(a0, h);
            a0 = self.b.ins().iadd_imm_s(a0, offset as i64);
        } else {
            // 32-bit addresses: lo + offset must not wrap across the warp either.
            let lo_off = self.b.ins().iadd_imm_s(lo0, offset as i64);
            let lo_off = self.b.ins().uextend(types::I64, lo_off);
            a0 = lo_off;
        }
        let nowrap =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, lo0, 0xffff_ffff - span);
        (all, a0, nowrap)
    }

    /// [`Tx::address_steps`] for an address held as an [`AddrPair`], `b + (index << s)`, from
    /// its index: when the base is one value in every lane and lane `l`'s index is lane 0's
    /// plus `k * l` without wrapping, where `k << s` is `bytes`, lane `l`'s address is lane
    /// 0's plus `bytes * l`. None when the pair cannot step by `bytes` (the caller then tests
    /// the address words, computing them).
    fn pair_steps(
        &mut self,
        p: &AddrPair,
        bytes: u32,
        offset: i32,
    ) -> Option<(Value, Value, Value)> {
        if !(uniform(&p.b_lo) && uniform(&p.b_hi)) || p.s > 4 || !bytes.is_multiple_of(1 << p.s) {
            return None;
        }
        let k = bytes >> p.s;
        let a0 = self.b.ins().extractlane(p.a[0], 0);
        let mut all = self.steps_from(&p.a, a0, k);
        let mut index = self.b.ins().uextend(types::I64, a0);
        if let Some(c) = p.c {
            let c0 = self.b.ins().extractlane(c[0], 0);
            if !uniform(&c) {
                let same = self.steps_from(&c, c0, 0);
                all = self.b.ins().band(all, same);
            }
            let c0 = self.b.ins().uextend(types::I64, c0);
            let c0 = self.b.ins().ishl_imm_u(c0, 32);
            index = self.b.ins().bor(index, c0);
        }
        let b_lo = self.b.ins().extractlane(p.b_lo[0], 0);
        let b_hi = self.b.ins().extractlane(p.b_hi[0], 0);
        let b_lo = self.b.ins().uextend(types::I64, b_lo);
        let b_hi = self.b.ins().uextend(types::I64, b_hi);
        let b_hi = self.b.ins().ishl_imm_u(b_hi, 32);
        let base = self.b.ins().bor(b_lo, b_hi);
        let scaled = self.b.ins().ishl_imm_u(index, p.s as i64);
        let addr = self.b.ins().iadd(base, scaled);
        let addr = self.b.ins().iadd_imm_s(addr, offset as i64);
        let nowrap = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThanOrEqual,
            a0,
            0xffff_ffff - 31 * k as i64,
        );
        Some((all, addr, nowrap))
    }

    /// `i32x4` rows as `i8x16` (what `shuffle` takes), or back.
    fn recast_all(&mut self, vs: &[Value], ty: types::Type) -> Vec<Value> {
        vs.iter().map(|v| self.recast(ty, *v)).collect()
    }

    /// The 16-byte vectors of memory in lane order (`8 * words` of them: lane `l`'s words
    /// consecutive) as register rows (`words` rows, row `k` holding every lane's word `k`).
    fn rows_from_lanes(&mut self, mem: &[Value], words: usize) -> Vec<Row> {
        if words == 1 {
            return vec![std::array::from_fn(|j| mem[j])];
        }
        let mem = self.recast_all(mem, types::I8X16);
        let mut rows = vec![Vec::with_capacity(8); words];
        for j in 0..8 {
            // Lanes 4j .. 4j + 3 are in mem[words * j ..][..words].
            let m = &mem[words * j..words * (j + 1)];
            let out = if words == 2 {
                vec![
                    self.shuffle_words(m[0], m[1], [0, 2, 4, 6]),
                    self.shuffle_words(m[0], m[1], [1, 3, 5, 7]),
                ]
            } else {
                self.transpose4([m[0], m[1], m[2], m[3]]).to_vec()
            };
            for (k, v) in out.into_iter().enumerate() {
                rows[k].push(v);
            }
        }
        rows.iter()
            .map(|r| {
                let r = self.recast_all(r, types::I32X4);
                std::array::from_fn(|j| r[j])
            })
            .collect()
    }

    /// Register rows (each lane's word `k` in row `k`) as the 16-byte vectors of memory in lane
    /// order: the inverse of [`Tx::rows_from_lanes`].
    fn lanes_from_rows(&mut self, rows: &[Row]) -> Vec<Value> {
        if rows.len() == 1 {
            return rows[0].to_vec();
        }
        let rows: Vec<Vec<Value>> = rows
            .iter()
            .map(|r| self.recast_all(r, types::I8X16))
            .collect();
        let mut mem = Vec::with_capacity(8 * rows.len());
        for j in 0..8 {
            if rows.len() == 2 {
                let (a, b) = (rows[0][j], rows[1][j]);
                mem.push(self.shuffle_words(a, b, [0, 4, 1, 5]));
                mem.push(self.shuffle_words(a, b, [2, 6, 3, 7]));
            } else {
                mem.extend(self.transpose4([rows[0][j], rows[1][j], rows[2][j], rows[3][j]]));
            }
        }
        self.recast_all(&mem, types::I32X4)
    }

    /// The 4 x 4 transpose of four vectors of four words, as `i8x16` (its own inverse).
    fn transpose4(&mut self, v: [Value; 4]) -> [Value; 4] {
        let t0 = self.shuffle_words(v[0], v[1], [0, 4, 1, 5]);
        let t1 = self.shuffle_words(v[2], v[3], [0, 4, 1, 5]);
        let t2 = self.shuffle_words(v[0], v[1], [2, 6, 3, 7]);
        let t3 = self.shuffle_words(v[2], v[3], [2, 6, 3, 7]);
        [
            self.shuffle_words(t0, t1, [0, 1, 4, 5]),
            self.shuffle_words(t0, t1, [2, 3, 6, 7]),
            self.shuffle_words(t2, t3, [0, 1, 4, 5]),
            self.shuffle_words(t2, t3, [2, 3, 6, 7]),
        ]
    }

    /// `LDG` inline.
    pub(super) fn ldg(&mut self, inst: &Inst, o: &Ldg, slot: usize, helper: FuncRef) {
        self.global_load(inst, o.addr, o.e, o.size, o.d, o.ps, None, slot, helper);
    }

    /// `STG` inline.
    pub(super) fn stg(&mut self, inst: &Inst, o: &Stg, slot: usize, helper: FuncRef) {
        self.global_store(inst, o.addr, o.e, o.size, o.v, None, slot, helper);
    }

    /// Generic `LD` inline when every executing lane is steered global.
    pub(super) fn ld(&mut self, inst: &Inst, o: &Ld, slot: usize, helper: FuncRef) {
        self.global_load(
            inst,
            o.addr,
            o.e,
            o.size,
            o.d,
            None,
            Some(o.steer),
            slot,
            helper,
        );
    }

    /// Generic `ST` inline when every executing lane is steered global.
    pub(super) fn st(&mut self, inst: &Inst, o: &St, slot: usize, helper: FuncRef) {
        self.global_store(inst, o.addr, o.e, o.size, o.v, Some(o.steer), slot, helper);
    }

    /// `LDL` inline; lanes out of range take the slow path (a fault).
    pub(super) fn ldl(&mut self, inst: &Inst, o: &Ldl, helper: FuncRef) {
        self.offset_access(inst, o.addr, o.size, o.d, helper, true, false);
    }

    /// `STL` inline; lanes out of range take the slow path (a fault).
    pub(super) fn stl(&mut self, inst: &Inst, o: &Stl, helper: FuncRef) {
        self.offset_access(inst, o.addr, o.size, o.v, helper, true, true);
    }

    /// `LDS` inline; lanes out of range take the slow path (a fault).
    pub(super) fn lds(&mut self, inst: &Inst, o: &Lds, helper: FuncRef) {
        self.offset_access(inst, o.addr, o.size, o.d, helper, false, false);
    }

    /// `STS` inline; lanes out of range take the slow path (a fault).
    pub(super) fn sts(&mut self, inst: &Inst, o: &Sts, helper: FuncRef) {
        self.offset_access(inst, o.addr, o.size, o.v, helper, false, true);
    }

    /// A load into `data` and the registers after it (or, with `store`, a store of them) at a
    /// byte offset into shared memory, or (`local`) each lane's local memory; lanes out of
    /// range take the slow path. Both paths leave a load's destinations in the warp state.
    #[allow(clippy::too_many_arguments)]
    fn offset_access(
        &mut self,
        inst: &Inst,
        addr: Addr,
        size: MemSize,
        data: Reg,
        helper: FuncRef,
        local: bool,
        store: bool,
    ) {
        let mask = self.guard_mask(inst.guard);
        let acc = LaneAccess {
            size,
            base: addr.base.is_some(),
            e: false,
            store,
            space: if local {
                LaneSpace::Local
            } else {
                LaneSpace::Shared
            },
            addr: addr.base.unwrap_or(Reg::RZ),
            data,
        };
        self.settle(inst);
        self.split_slow(inst, mask, None, 0, helper, &[], None, &mut |t| {
            let late = t.call_lanes(acc, addr.offset, mask, 0);
            (Vec::new(), None, Some(late))
        });
    }

    /// Indexed `LDC` inline (docs/semantics.md §17): misaligned lanes take the slow path (a fault).
    pub(super) fn ldc_indexed(&mut self, inst: &Inst, o: &Ldc, helper: FuncRef) {
        let mask = self.guard_mask(inst.guard);
        if self.covers_all(mask)
            && self.strip.is_none()
            && o.size == MemSize::B32
            && matches!(o.mode, LdcMode::Ia | LdcMode::Il)
            && !o.d.is_rz()
        {
            self.ldc_consecutive(inst, o, helper, mask);
        } else {
            self.ldc_any(inst, o, helper, mask);
        }
    }

    /// An indexed LDC lane by lane: with whole-warp paths inline ([`Tx::ldc_lanes`]); at tier
    /// 1 in straight-line blocks, which it compiles for latency, through the LDC routine
    /// ([`Tx::ldc_routine`]).
    fn ldc_any(&mut self, inst: &Inst, o: &Ldc, helper: FuncRef, mask: Value) {
        if self.env.whole_warp {
            self.ldc_lanes(inst, o, helper, mask);
        } else {
            self.ldc_routine(inst, mask);
        }
    }

    /// An indexed 32-bit LDC (IA or IL) of a full warp, first tested as a whole: when lane
    /// `l`'s address `Ra + imm` is lane 0's plus `4 l` without wrapping, lane 0's is aligned
    /// (then every lane's is) and lane 31's read is in range (then every lane's is: with IL
    /// the bank only grows from lane to lane), the 32 words lie one after another in the
    /// banks' memory from bank `imm5`'s start plus lane 0's address (IL's bank carry is that
    /// sum's): eight vector loads (at both tiers: the test costs little to compile). Otherwise
    /// with whole-warp paths [`Tx::ldc_scattered`], else [`Tx::ldc_any`] (the LDC routine).
    fn ldc_consecutive(&mut self, inst: &Inst, o: &Ldc, helper: FuncRef, mask: Value) {
        let a = self.reg(o.a);
        let imm = self.splat(o.imm as u32);
        let t = self.bin(&a, &imm, |b, x, y| b.ins().iadd(x, y));
        let t0 = self.b.ins().extractlane(t[0], 0);
        let mut ok = self.steps_from(&t, t0, 4);
        let low = self.b.ins().band_imm_s(t0, 3);
        let aligned = self.b.ins().icmp_imm_s(IntCC::Equal, low, 0);
        ok = self.b.ins().band(ok, aligned);
        let nowrap = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, t0, 0xffff_ffff - 124);
        ok = self.b.ins().band(ok, nowrap);
        let nb = self.nbanks();
        let last = self.b.ins().iadd_imm_s(t0, 124);
        let in_range = match o.mode {
            LdcMode::Ia => {
                let fits = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, last, 0xfffc);
                let bank = self.iconst(o.bank as u32);
                let has = self.b.ins().icmp(IntCC::UnsignedLessThan, bank, nb);
                self.b.ins().band(fits, has)
            }
            _ => {
                let hi = self.b.ins().ushr_imm_u(last, 16);
                let bank = self.b.ins().iadd_imm_u(hi, o.bank as i64);
                self.b.ins().icmp(IntCC::UnsignedLessThan, bank, nb)
            }
        };
        ok = self.b.ins().band(ok, in_range);
        let consts = self.consts_base();
        let flat = self.b.ins().uextend(self.env.ptr, t0);
        let flat = self.b.ins().iadd_imm_u(flat, (o.bank as i64) << 16);
        let p0 = self.b.ins().iadd(consts, flat);

        let saved = self.cached();
        let (vec_b, lane_b, join) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        for _ in 0..8 {
            self.b.append_block_param(join, types::I32X4);
        }
        self.b.ins().brif(ok, vec_b, &[], lane_b, &[]);
        self.b.switch_to_block(vec_b);
        let row = self.guest_row(p0);
        self.jump_row(join, &row);
        self.b.switch_to_block(lane_b);
        if self.env.whole_warp {
            self.ldc_scattered(inst, o, mask, &t, join);
        } else {
            self.ldc_any(inst, o, helper, mask);
            let row = self.reg(o.d);
            self.jump_row(join, &row);
        }
        self.b.switch_to_block(join);
        // Values first made inside either path do not dominate the join (as in `coalesced`).
        self.restore(saved);
        let row: Row = std::array::from_fn(|k| self.b.block_params(join)[k]);
        self.put_row(o.d.0, row, true);
    }

    /// The rest of [`Tx::ldc_consecutive`] (`t` each lane's `Ra + imm`), ending in a jump to
    /// `join` with the destination's row. A misaligned lane (`t & 3`, the address's low bits
    /// in both modes) runs the instruction by the interpreter's code, which faults, in a cold
    /// block; otherwise each lane's flat offset `(imm5 << 16) + t` (IL's bank carry is the
    /// flat offset's) and whether its read is in range (`crate::semantics::ldc_readable`: IA
    /// `t <= 0xfffc` in a bank the launch has, IL bank `imm5 + (t >> 16)` one it has) go to
    /// [`Tx::consts_rows`] without its consecutive test (which failed): one load for lanes
    /// reading one word, else the compiled lane loop. About 100 Cranelift instructions where
    /// the general lane code ([`Tx::ldc_lanes`]) is about 250, for the same loop at run time.
    fn ldc_scattered(
        &mut self,
        inst: &Inst,
        o: &Ldc,
        mask: Value,
        t: &Row,
        join: cranelift_codegen::ir::Block,
    ) {
        let low = t[1..].iter().fold(t[0], |a, v| self.b.ins().bor(a, *v));
        let three = self.splat(3);
        let low = self.b.ins().band(low, three[0]);
        let misaligned = self.b.ins().vany_true(low);
        let (exec_b, aligned_b) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(exec_b);
        self.b.ins().brif(misaligned, exec_b, &[], aligned_b, &[]);
        self.b.switch_to_block(exec_b);
        let saved = self.cached();
        self.ldc_routine(inst, mask);
        let row = self.reg(o.d);
        self.jump_row(join, &row);
        self.restore(saved);

        self.b.switch_to_block(aligned_b);
        let nb = self.nbanks();
        let nbv = self.splat_val(nb);
        let imm5 = self.splat(o.bank as u32);
        let ok = match o.mode {
            LdcMode::Ia => {
                let lim = self.splat(0xfffc);
                let fits = self.cmp(IntCC::UnsignedLessThanOrEqual, t, &lim);
                let has = self.cmp(IntCC::UnsignedLessThan, &imm5, &nbv);
                self.bin(&fits, &has, |b, x, y| b.ins().band(x, y))
            }
            _ => {
                let hi = self.ushr_c(t, 16);
                let bank = self.bin(&imm5, &hi, |b, x, y| b.ins().iadd(x, y));
                self.cmp(IntCC::UnsignedLessThan, &bank, &nbv)
            }
        };
        let base = self.splat((o.bank as u32) << 16);
        let off = self.bin(t, &base, |b, x, y| b.ins().iadd(x, y));
        let rows = self.consts_rows(&ok, &off, MemSize::B32, false);
        self.jump_row(join, &rows[0]);
    }

    /// An indexed LDC lane by lane: each lane's bank and address, misaligned lanes to the slow
    /// path (which faults), out-of-range lanes reading 0.
    fn ldc_lanes(&mut self, inst: &Inst, o: &Ldc, helper: FuncRef, mask: Value) {
        let size = o.size.bytes();
        let a = self.reg(o.a);
        let imm = self.splat(o.imm as u32);
        let imm5 = self.splat(o.bank as u32);
        // Bank and address per lane, and below which reads are in range: mirrors
        // `crate::semantics::{ldc_address, ldc_readable}` (the one definition;
        // `jit::tests::semantics_mirrors` compares the two on edge values).
        let (bank, addr) = match o.mode {
            LdcMode::Ia => {
                let t = self.bin(&a, &imm, |b, x, y| b.ins().iadd(x, y));
                (imm5, t)
            }
            LdcMode::Il => {
                let t = self.bin(&a, &imm, |b, x, y| b.ins().iadd(x, y));
                let hi = self.ushr_c(&t, 16);
                let bank = self.bin(&imm5, &hi, |b, x, y| b.ins().iadd(x, y));
                let mk = self.splat(0xffff);
                (bank, self.bin(&t, &mk, |b, x, y| b.ins().band(x, y)))
            }
            LdcMode::Is | LdcMode::Isl => {
                let hi = self.ushr_c(&a, 16);
                let bank = self.bin(&imm5, &hi, |b, x, y| b.ins().iadd(x, y));
                let mk = self.splat(0xffff);
                let lo = self.bin(&a, &mk, |b, x, y| b.ins().band(x, y));
                (bank, self.bin(&lo, &imm, |b, x, y| b.ins().iadd(x, y)))
            }
        };
        // Misaligned lanes (fault) go to the slow path.
        let am = self.splat(size - 1);
        let mis = self.bin(&addr, &am, |b, x, y| b.ins().band(x, y));
        let z = self.splat(0);
        let misv = self.cmp(IntCC::NotEqual, &mis, &z);
        let missed = self.lane_mask(&misv);
        // In range: addr in [0, 0x10000 - size] (unsigned: negative IS addresses are huge),
        // bank < nbanks (which is <= 32), and for ISL bank <= 13.
        let lim = self.splat(0x1_0000 - size);
        let in_addr = self.cmp(IntCC::UnsignedLessThanOrEqual, &addr, &lim);
        let nb = self.nbanks();
        let nbv = self.splat_val(nb);
        let mut ok = self.cmp(IntCC::UnsignedLessThan, &bank, &nbv);
        ok = self.bin(&ok, &in_addr, |b, x, y| b.ins().band(x, y));
        if o.mode == LdcMode::Isl {
            let thirteen = self.splat(13);
            let le = self.cmp(IntCC::UnsignedLessThanOrEqual, &bank, &thirteen);
            ok = self.bin(&ok, &le, |b, x, y| b.ins().band(x, y));
        }
        let sixteen = self.bin(&bank, &bank, |b, x, _| b.ins().ishl_imm_u(x, 16));
        let off = self.bin(&sixteen, &addr, |b, x, y| b.ins().iadd(x, y));
        let dests: Vec<Reg> = (0..o.size.regs())
            .map(|k| o.d.offset(k))
            .filter(|r| !r.is_rz())
            .collect();
        let msize = o.size;
        self.split_slow(
            inst,
            mask,
            Some(missed),
            0,
            helper,
            &dests,
            None,
            &mut |t| {
                let rows = t.consts_rows(&ok, &off, msize, true);
                // Out-of-range lanes read the zeroed sink: 0, as the interpreter.
                (rows, None, None)
            },
        );
    }
}
