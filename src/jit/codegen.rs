//! IR block → Cranelift function, for a whole warp.
//!
//! Lanes inside each op: a register row (32 lanes) is 8 `i32x4` SSA values. Rows, predicates,
//! CC flags and the LEA.LO word are loaded from the warp state on first use, kept as SSA values
//! while the block runs (a block is straight-line code), and stored back at the end only if
//! written and live out of the block. A write under an execution mask is a `bitselect` with the
//! mask expanded to lanes. Instructions without an inline lowering call
//! [`warpjit_jit_exec_inst`](super::abi::warpjit_jit_exec_inst), which runs the interpreter's own
//! code for that instruction; such instructions are counted.

use super::abi::JitCx;
use crate::ir::*;
use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, ConstantData, FuncRef, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;
use std::mem::offset_of;
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{WarpState, SHARED_WINDOW_SIZE};

/// A register row: 32 lanes as 8 vectors of 4.
pub type Row = [Value; 8];

const V: Type = types::I32X4;

fn flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// What is live out of a block: only these written values are stored at its end.
pub trait LiveOut {
    /// Register `r` is live.
    fn reg(&self, r: Reg) -> bool;
    /// Predicate `p` is live.
    fn pred(&self, p: Pred) -> bool;
    /// CC flag `f` (`CF`, `ZF`, `SF`, `OF`) is live.
    fn flag(&self, f: usize) -> bool;
    /// The LEA.LO word is live.
    fn lea_lo(&self) -> bool;
}

impl LiveOut for crate::analysis::LiveSet {
    fn reg(&self, r: Reg) -> bool {
        self.has_reg(r)
    }
    fn pred(&self, p: Pred) -> bool {
        self.has_pred(p)
    }
    fn flag(&self, f: usize) -> bool {
        self.has_flag(f)
    }
    fn lea_lo(&self) -> bool {
        self.lea_lo
    }
}

/// What a translated block needs from the host.
pub struct Env<'p> {
    /// The exec-inst helper, imported into the function.
    pub exec_inst: FuncRef,
    /// The memory slow-path helper, imported into the function.
    pub mem_slow: FuncRef,
    /// Pointer type.
    pub ptr: Type,
    /// Live-out state of the block (what must be stored at the end).
    pub live_out: &'p dyn LiveOut,
}

/// Translation state of one block.
pub struct Tx<'a, 'b, 'p> {
    pub(super) b: &'a mut FunctionBuilder<'b>,
    pub(super) env: Env<'p>,
    pub(super) w: Value,
    pub(super) jcx: Value,
    pub(super) active: Value,
    /// Compiled for a full warp: `active` is all ones and unguarded writes need no blend.
    pub(super) full: bool,
    pub(super) regs: HashMap<u8, (Row, bool)>,
    pub(super) preds: [Option<(Value, bool)>; 7],
    pub(super) cc: [Option<(Value, bool)>; 4],
    pub(super) lea: Option<(Row, bool)>,
    pub(super) lane_bits: Option<Row>,
    pub(super) mask_vecs: HashMap<Value, Row>,
    pub(super) fault_block: cranelift_codegen::ir::Block,
    /// Instructions lowered by a call to the interpreter's code.
    pub delegated: u32,
    /// Inline memory instructions so far (each gets its own segment hint).
    mem_ops: usize,
    /// What is live after the instruction being translated: dead flags, predicates and the
    /// LEA.LO word are not computed.
    pub(super) after: crate::analysis::LiveSet,
    /// Comments (guest instruction text) to attach per CLIF instruction index, for dumps.
    pub comments: Vec<(cranelift_codegen::ir::Inst, String)>,
}

impl<'a, 'b, 'p> Tx<'a, 'b, 'p> {
    /// Starts a block function: entry block with (w, jcx) params, a cold fault exit. With
    /// `full`, the function may only be called when all 32 lanes are active.
    pub fn new(b: &'a mut FunctionBuilder<'b>, env: Env<'p>, full: bool) -> Self {
        let ptr = env.ptr;
        b.func.signature.params.push(AbiParam::new(ptr));
        b.func.signature.params.push(AbiParam::new(ptr));
        b.func.signature.returns.push(AbiParam::new(types::I32));
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        let fault_block = b.create_block();
        b.set_cold_block(fault_block);
        b.switch_to_block(entry);
        let w = b.block_params(entry)[0];
        let jcx = b.block_params(entry)[1];
        let active = b
            .ins()
            .load(types::I32, flags(), w, offset_of!(WarpState, active) as i32);
        Tx {
            b,
            env,
            w,
            jcx,
            active,
            full,
            regs: HashMap::new(),
            preds: [None; 7],
            cc: [None; 4],
            lea: None,
            lane_bits: None,
            mask_vecs: HashMap::new(),
            fault_block,
            delegated: 0,
            mem_ops: 0,
            after: crate::analysis::LiveSet::FULL,
            comments: Vec::new(),
        }
    }

    pub(super) fn iconst(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i32 as i64)
    }

    pub(super) fn splat(&mut self, v: u32) -> Row {
        let s = self.iconst(v);
        let x = self.b.ins().splat(V, s);
        [x; 8]
    }

    pub(super) fn splat_val(&mut self, s: Value) -> Row {
        let x = self.b.ins().splat(V, s);
        [x; 8]
    }

    pub(super) fn vconst(&mut self, lanes: [u32; 4]) -> Value {
        let bytes: Vec<u8> = lanes.iter().flat_map(|v| v.to_le_bytes()).collect();
        let c = self.b.func.dfg.constants.insert(ConstantData::from(bytes));
        self.b.ins().vconst(V, c)
    }

    // ---- state access ----------------------------------------------------------------------

    pub(super) fn reg(&mut self, r: Reg) -> Row {
        if r.is_rz() {
            return self.splat(0);
        }
        if let Some((row, _)) = self.regs.get(&r.0) {
            return *row;
        }
        let base = offset_of!(WarpState, regs) as i32 + r.0 as i32 * 128;
        let row =
            std::array::from_fn(|k| self.b.ins().load(V, flags(), self.w, base + 16 * k as i32));
        self.regs.insert(r.0, (row, false));
        row
    }

    pub(super) fn set_reg(&mut self, r: Reg, v: Row, mask: Value) {
        if r.is_rz() || !self.after.has_reg(r) {
            return;
        }
        let old = self.reg(r);
        let new = self.blend(mask, &v, &old);
        self.regs.insert(r.0, (new, true));
    }

    pub(super) fn blend(&mut self, mask: Value, v: &Row, old: &Row) -> Row {
        if self.full && mask == self.active {
            return *v;
        }
        let mv = self.mask_vec(mask);
        std::array::from_fn(|k| self.b.ins().bitselect(mv[k], v[k], old[k]))
    }

    pub(super) fn pred(&mut self, p: Pred) -> Value {
        if p.is_pt() {
            return self.iconst(u32::MAX);
        }
        if let Some((v, _)) = self.preds[p.0 as usize] {
            return v;
        }
        let off = offset_of!(WarpState, preds) as i32 + 4 * p.0 as i32;
        let v = self.b.ins().load(types::I32, flags(), self.w, off);
        self.preds[p.0 as usize] = Some((v, false));
        v
    }

    pub(super) fn pred_src(&mut self, p: PredSrc) -> Value {
        let v = self.pred(p.pred);
        if p.neg {
            self.b.ins().bnot(v)
        } else {
            v
        }
    }

    pub(super) fn set_pred(&mut self, p: Pred, mask: Value, v: Value) {
        if p.is_pt() || !self.after.has_pred(p) {
            return;
        }
        let old = self.pred(p);
        let new = self.merge(mask, v, old);
        self.preds[p.0 as usize] = Some((new, true));
    }

    /// (v & mask) | (old & !mask) on scalars.
    pub(super) fn merge(&mut self, mask: Value, v: Value, old: Value) -> Value {
        if self.full && mask == self.active {
            return v;
        }
        let a = self.b.ins().band(v, mask);
        let o = self.b.ins().band_not(old, mask);
        self.b.ins().bor(a, o)
    }

    pub(super) fn flag(&mut self, f: usize) -> Value {
        if let Some((v, _)) = self.cc[f] {
            return v;
        }
        let off = offset_of!(WarpState, cc) as i32 + 4 * f as i32;
        let v = self.b.ins().load(types::I32, flags(), self.w, off);
        self.cc[f] = Some((v, false));
        v
    }

    pub(super) fn set_flag(&mut self, f: usize, mask: Value, v: Value) {
        if !self.after.has_flag(f) {
            return;
        }
        let old = self.flag(f);
        let new = self.merge(mask, v, old);
        self.cc[f] = Some((new, true));
    }

    pub(super) fn lea_lo(&mut self) -> Row {
        if let Some((row, _)) = self.lea {
            return row;
        }
        let base = offset_of!(WarpState, lea_lo) as i32;
        let row =
            std::array::from_fn(|k| self.b.ins().load(V, flags(), self.w, base + 16 * k as i32));
        self.lea = Some((row, false));
        row
    }

    /// Stores every written value (all of them when `all`, else those live out).
    pub(super) fn flush(&mut self, all: bool) {
        let live = self.env.live_out;
        let mut regs: Vec<_> = self
            .regs
            .iter()
            .filter(|(_, (_, d))| *d)
            .map(|(r, (row, _))| (*r, *row))
            .collect();
        regs.sort_by_key(|(r, _)| *r);
        for (r, row) in regs {
            if all || live.reg(Reg(r)) {
                let base = offset_of!(WarpState, regs) as i32 + r as i32 * 128;
                for (k, v) in row.iter().enumerate() {
                    self.b
                        .ins()
                        .store(flags(), *v, self.w, base + 16 * k as i32);
                }
            }
        }
        for p in 0..7 {
            if let Some((v, true)) = self.preds[p] {
                if all || live.pred(Pred(p as u8)) {
                    self.b.ins().store(
                        flags(),
                        v,
                        self.w,
                        offset_of!(WarpState, preds) as i32 + 4 * p as i32,
                    );
                }
            }
        }
        for f in 0..4 {
            if let Some((v, true)) = self.cc[f] {
                if all || live.flag(f) {
                    self.b.ins().store(
                        flags(),
                        v,
                        self.w,
                        offset_of!(WarpState, cc) as i32 + 4 * f as i32,
                    );
                }
            }
        }
        if let Some((row, true)) = self.lea {
            if all || live.lea_lo() {
                let base = offset_of!(WarpState, lea_lo) as i32;
                for (k, v) in row.iter().enumerate() {
                    self.b
                        .ins()
                        .store(flags(), *v, self.w, base + 16 * k as i32);
                }
            }
        }
    }

    /// Stores the dirty cached state that `inst` reads or writes (the interpreter's code reads
    /// registers, predicates and flags from memory, and merges writes with the old values).
    pub(super) fn flush_for(&mut self, inst: &Inst) {
        let mut regs = Vec::new();
        inst.op.for_each_reg(&mut |u| regs.push(u));
        let fx = inst.op.effects();
        let base = offset_of!(WarpState, regs) as i32;
        for u in regs {
            for k in 0..u.count {
                let r = u.reg.offset(k);
                if let Some((row, true)) = self.regs.get(&r.0).copied() {
                    for (j, v) in row.iter().enumerate() {
                        self.b.ins().store(
                            flags(),
                            *v,
                            self.w,
                            base + r.0 as i32 * 128 + 16 * j as i32,
                        );
                    }
                }
            }
        }
        for p in 0..7 {
            if (fx.pred_reads | fx.pred_writes) >> p & 1 != 0 {
                if let Some((v, true)) = self.preds[p] {
                    self.b.ins().store(
                        flags(),
                        v,
                        self.w,
                        offset_of!(WarpState, preds) as i32 + 4 * p as i32,
                    );
                }
            }
        }
        for f in 0..4 {
            if (fx.cc_reads | fx.cc_writes) >> f & 1 != 0 {
                if let Some((v, true)) = self.cc[f] {
                    self.b.ins().store(
                        flags(),
                        v,
                        self.w,
                        offset_of!(WarpState, cc) as i32 + 4 * f as i32,
                    );
                }
            }
        }
        if fx.lea_lo_read || fx.lea_lo_write {
            if let Some((row, true)) = self.lea {
                let base = offset_of!(WarpState, lea_lo) as i32;
                for (k, v) in row.iter().enumerate() {
                    self.b
                        .ins()
                        .store(flags(), *v, self.w, base + 16 * k as i32);
                }
            }
        }
    }

    /// Forgets every cached value (after a helper changed the warp state in memory).
    pub(super) fn invalidate(&mut self) {
        self.regs.clear();
        self.preds = [None; 7];
        self.cc = [None; 4];
        self.lea = None;
    }

    // ---- masks -------------------------------------------------------------------------------

    pub(super) fn mask_vec(&mut self, m: Value) -> Row {
        if let Some(r) = self.mask_vecs.get(&m) {
            return *r;
        }
        let bits = match self.lane_bits {
            Some(b) => b,
            None => {
                let b: Row = std::array::from_fn(|k| {
                    let k = k as u32;
                    self.vconst([
                        1 << (4 * k),
                        1 << (4 * k + 1),
                        1 << (4 * k + 2),
                        1 << (4 * k + 3),
                    ])
                });
                self.lane_bits = Some(b);
                b
            }
        };
        let s = self.b.ins().splat(V, m);
        let r: Row = std::array::from_fn(|k| {
            let x = self.b.ins().band(s, bits[k]);
            self.b.ins().icmp(IntCC::Equal, x, bits[k])
        });
        self.mask_vecs.insert(m, r);
        r
    }

    /// Packs per-lane booleans (all-ones / zero lanes, or any value by its sign bit) into a mask.
    pub(super) fn lane_mask(&mut self, v: &Row) -> Value {
        let mut acc = None;
        for (k, x) in v.iter().enumerate() {
            let bits = self.b.ins().vhigh_bits(types::I32, *x);
            let sh = if k == 0 {
                bits
            } else {
                self.b.ins().ishl_imm_u(bits, 4 * k as i64)
            };
            acc = Some(match acc {
                None => sh,
                Some(a) => self.b.ins().bor(a, sh),
            });
        }
        acc.unwrap_or_else(|| self.iconst(0))
    }

    pub(super) fn cmp(&mut self, cc: IntCC, a: &Row, b: &Row) -> Row {
        std::array::from_fn(|k| self.b.ins().icmp(cc, a[k], b[k]))
    }

    pub(super) fn bin(
        &mut self,
        a: &Row,
        b: &Row,
        f: fn(&mut FunctionBuilder<'b>, Value, Value) -> Value,
    ) -> Row {
        std::array::from_fn(|k| f(self.b, a[k], b[k]))
    }

    pub(super) fn un(
        &mut self,
        a: &Row,
        f: impl Fn(&mut FunctionBuilder<'b>, Value) -> Value,
    ) -> Row {
        std::array::from_fn(|k| f(self.b, a[k]))
    }

    pub(super) fn not_if(&mut self, a: Row, neg: bool) -> Row {
        if neg {
            self.un(&a, |b, x| b.ins().bnot(x))
        } else {
            a
        }
    }

    pub(super) fn guard_mask(&mut self, g: Guard) -> Value {
        if g.is_always() {
            return self.active;
        }
        let p = self.pred_src(g.0);
        if self.full {
            p
        } else {
            self.b.ins().band(self.active, p)
        }
    }

    // ---- operands ----------------------------------------------------------------------------

    /// A constant operand as a scalar (0 when the bank is not available in the launch's mode).
    /// The offset is known aligned (misaligned ones are delegated, so the interpreter faults).
    pub(super) fn const_scalar(&mut self, c: ConstRef) -> Value {
        let base = self.b.ins().load(
            self.env.ptr,
            flags(),
            self.jcx,
            offset_of!(JitCx, consts) as i32,
        );
        let off = c.bank as i32 * 0x1_0000 + c.offset as i32;
        let v = self
            .b
            .ins()
            .load(types::I32, MemFlagsData::new().with_notrap(), base, off);
        let nb = self.b.ins().load(
            types::I32,
            flags(),
            self.jcx,
            offset_of!(JitCx, nbanks) as i32,
        );
        let ok = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, nb, c.bank as i64);
        let zero = self.iconst(0);
        self.b.ins().select(ok, v, zero)
    }

    pub(super) fn src(&mut self, s: Src) -> Row {
        match s {
            Src::Reg(r) => self.reg(r),
            Src::Imm(v) => self.splat(v),
            Src::Const(c) => {
                let v = self.const_scalar(c);
                self.splat_val(v)
            }
        }
    }

    // ---- arithmetic helpers ------------------------------------------------------------------

    /// a + b with carry and signed-overflow lane masks (all-ones lanes).
    fn add_co(&mut self, a: &Row, b: &Row) -> (Row, Row, Row) {
        let s = self.bin(a, b, |b, x, y| b.ins().iadd(x, y));
        let c = self.cmp(IntCC::UnsignedLessThan, &s, a);
        let o: Row = std::array::from_fn(|k| {
            let x = self.b.ins().bxor(a[k], s[k]);
            let y = self.b.ins().bxor(b[k], s[k]);
            self.b.ins().band(x, y)
        });
        (s, c, o)
    }

    /// a + b + plus (plus small and non-negative per lane), carry = c1|c2, overflow = o1^o2.
    fn add3(&mut self, a: &Row, b: &Row, plus: Option<Row>) -> (Row, Row, Row) {
        let (s1, c1, o1) = self.add_co(a, b);
        match plus {
            None => (s1, c1, o1),
            Some(p) => {
                let (s2, c2, o2) = self.add_co(&s1, &p);
                let c = self.bin(&c1, &c2, |b, x, y| b.ins().bor(x, y));
                let o = self.bin(&o1, &o2, |b, x, y| b.ins().bxor(x, y));
                (s2, c, o)
            }
        }
    }

    /// The +1s of negated operands, carry in (`.X`) and `.PO`, as in the interpreter's
    /// `plus_row`: `None` when it is 0 in every lane.
    fn plus(&mut self, negs: u32, x: bool, po: bool) -> Option<Row> {
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

    /// Writes the live CC flags: ZF and SF from `res`, CF from `cf`, OF from `of` (0 if `None`).
    fn write_cc(&mut self, mask: Value, res: &Row, cf: &Row, of: Option<&Row>) {
        if self.after.has_flag(ZF) {
            let z = self.splat(0);
            let zr = self.cmp(IntCC::Equal, res, &z);
            let zf = self.lane_mask(&zr);
            self.set_flag(ZF, mask, zf);
        }
        if self.after.has_flag(SF) {
            let sf = self.lane_mask(res);
            self.set_flag(SF, mask, sf);
        }
        if self.after.has_flag(CF) {
            let cf = self.lane_mask(cf);
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

    pub(super) fn shl_c(&mut self, a: &Row, s: u32) -> Row {
        self.logical_shift(a, s, true)
    }

    pub(super) fn ushr_c(&mut self, a: &Row, s: u32) -> Row {
        self.logical_shift(a, s, false)
    }

    /// A logical shift by a constant: 0 leaves `a`, 32 or more gives 0.
    fn logical_shift(&mut self, a: &Row, s: u32, left: bool) -> Row {
        match s {
            0 => *a,
            32.. => self.splat(0),
            _ if left => self.un(a, |b, x| b.ins().ishl_imm_u(x, s as i64)),
            _ => self.un(a, |b, x| b.ins().ushr_imm_u(x, s as i64)),
        }
    }

    pub(super) fn sshr_c(&mut self, a: &Row, s: u32) -> Row {
        let s = s.min(31);
        if s == 0 {
            *a
        } else {
            self.un(a, |b, x| b.ins().sshr_imm_u(x, s as i64))
        }
    }

    // ---- instructions ------------------------------------------------------------------------

    /// Translates one instruction.
    pub fn inst(&mut self, inst: &Inst, live_after: &crate::analysis::LiveSet) {
        self.after = *live_after;
        let first = self.b.func.dfg.num_insts();
        if !self.lower(inst) {
            self.delegate(inst);
        }
        // Attach the guest text to the first CLIF instruction it produced.
        if let Some(i) = self.first_inst_since(first) {
            self.comments
                .push((i, format!("{:#06x}: {}", inst.pc, inst)));
        }
    }

    fn first_inst_since(&self, n: usize) -> Option<cranelift_codegen::ir::Inst> {
        let cur = self.b.current_block()?;
        self.b.func.layout.block_insts(cur).find(|i| i.index() >= n)
    }

    /// Runs an instruction with the interpreter's code: flush everything, call, reload lazily.
    pub(super) fn delegate(&mut self, inst: &Inst) {
        self.delegated += 1;
        let mask = self.guard_mask(inst.guard);
        self.flush(true);
        let ip = self
            .b
            .ins()
            .iconst(self.env.ptr, inst as *const Inst as i64);
        let call = self
            .b
            .ins()
            .call(self.env.exec_inst, &[self.w, self.jcx, ip, mask]);
        let r = self.b.inst_results(call)[0];
        self.invalidate();
        self.mask_vecs.clear();
        let ok = self.b.create_block();
        self.b.ins().brif(r, self.fault_block, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Inline lowering; false when the instruction must be delegated.
    fn lower(&mut self, inst: &Inst) -> bool {
        // Constant operands that would fault are delegated (the interpreter raises the fault).
        let mut bad_const = false;
        let mut check = |s: Src| {
            if let Src::Const(c) = s {
                bad_const |= c.offset % 4 != 0;
            }
        };
        match &inst.op {
            Op::Mov(o) => check(o.b),
            Op::Iadd(o) => check(o.b),
            Op::Iadd3(o) => check(o.b.src),
            Op::Iscadd(o) => check(o.b),
            Op::Xmad(o) => {
                check(o.b);
                check(o.c)
            }
            Op::Shl(o) => check(o.b),
            Op::Shr(o) => check(o.b),
            Op::Lop(o) => check(o.b),
            Op::Lop3(o) => check(o.b),
            Op::Sel(o) => check(o.b),
            Op::Isetp(o) => check(o.b),
            Op::Imnmx(o) => check(o.b),
            Op::Lea(o) => check(o.b),
            Op::Bfe(o) => check(o.b),
            Op::Bfi(o) => {
                check(o.b);
                check(o.c)
            }
            Op::Prmt(o) => {
                check(o.b);
                check(o.c)
            }
            Op::P2r(o) => check(o.mask),
            _ => {}
        }
        if bad_const {
            return false;
        }
        let g = inst.guard;
        match &inst.op {
            Op::Mov(o) => {
                let m = self.guard_mask(g);
                let v = self.src(o.b);
                self.set_reg(o.d, v, m);
            }
            Op::Mov32i(o) => {
                let m = self.guard_mask(g);
                let v = self.splat(o.imm);
                self.set_reg(o.d, v, m);
            }
            Op::S2r(o) => {
                let m = self.guard_mask(g);
                let v = match o.sr {
                    SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ => {
                        let i = match o.sr {
                            SpecialReg::TidX => 0,
                            SpecialReg::TidY => 1,
                            _ => 2,
                        };
                        let base = offset_of!(WarpState, tid) as i32 + i * 128;
                        std::array::from_fn(|k| {
                            self.b.ins().load(V, flags(), self.w, base + 16 * k as i32)
                        })
                    }
                    SpecialReg::CtaidX | SpecialReg::CtaidY | SpecialReg::CtaidZ => {
                        let i = match o.sr {
                            SpecialReg::CtaidX => 0,
                            SpecialReg::CtaidY => 1,
                            _ => 2,
                        };
                        let s = self.b.ins().load(
                            types::I32,
                            flags(),
                            self.w,
                            offset_of!(WarpState, ctaid) as i32 + 4 * i,
                        );
                        self.splat_val(s)
                    }
                    SpecialReg::LaneId => std::array::from_fn(|k| {
                        let k = 4 * k as u32;
                        self.vconst([k, k + 1, k + 2, k + 3])
                    }),
                };
                self.set_reg(o.d, v, m);
            }
            Op::Iadd(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let a = self.not_if(a, o.neg_a);
                let b = self.src(o.b);
                let b = self.not_if(b, o.neg_b);
                let plus = self.plus(o.neg_a as u32 + o.neg_b as u32, o.x, o.po);
                self.finish_add(m, o.d, o.cc, &a, &b, plus);
            }
            Op::Iadd32i(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let a = self.not_if(a, o.neg_a);
                let b = self.splat(o.imm);
                let plus = self.plus(o.neg_a as u32, o.x, o.po);
                self.finish_add(m, o.d, o.cc, &a, &b, plus);
            }
            Op::Iscadd(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let a = self.shl_c(&a, o.shift as u32);
                let a = self.not_if(a, o.neg_a);
                let b = self.src(o.b);
                let b = self.not_if(b, o.neg_b);
                let plus = self.plus(o.neg_a as u32 + o.neg_b as u32, false, o.po);
                self.finish_add(m, o.d, o.cc, &a, &b, plus);
            }
            Op::Iadd3(o) => return self.iadd3(g, o),
            Op::Xmad(o) => self.xmad(g, o),
            Op::Shl(o) if !matches!(o.b, Src::Imm(_)) => self.shift_lanes(g, inst),
            Op::Shr(o) if o.brev || !matches!(o.b, Src::Imm(_)) => self.shift_lanes(g, inst),
            Op::Bfe(o) if o.brev || !matches!(o.b, Src::Imm(_)) => self.bitfield_lanes(g, inst),
            Op::Bfi(o) if !matches!(o.b, Src::Imm(_)) => self.bitfield_lanes(g, inst),
            Op::Prmt(o) => self.prmt(g, o),
            Op::P2r(o) => self.p2r(g, o),
            Op::Ld(o) => {
                let (h, slot) = (self.env.mem_slow, self.mem_ops);
                self.mem_ops += 1;
                self.ld(inst, o, slot, h);
            }
            Op::St(o) => {
                let (h, slot) = (self.env.mem_slow, self.mem_ops);
                self.mem_ops += 1;
                self.st(inst, o, slot, h);
            }
            Op::Lds(o) => {
                let h = self.env.mem_slow;
                self.lds(inst, o, h);
            }
            Op::Sts(o) => {
                let h = self.env.mem_slow;
                self.sts(inst, o, h);
            }
            Op::Shl(o) => {
                let Src::Imm(s) = o.b else { return false };
                let m = self.guard_mask(g);
                let s = if o.w { s & 31 } else { s };
                let a = self.reg(o.a);
                let r = self.shl_c(&a, s);
                self.set_reg(o.d, r, m);
            }
            Op::Shr(o) => {
                let Src::Imm(s) = o.b else { return false };
                if o.brev {
                    return false;
                }
                let m = self.guard_mask(g);
                let s = if o.w { s & 31 } else { s };
                let a = self.reg(o.a);
                let r = if o.unsigned {
                    self.ushr_c(&a, s)
                } else {
                    self.sshr_c(&a, s)
                };
                self.set_reg(o.d, r, m);
            }
            Op::Lop(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let a = self.not_if(a, o.not_a);
                let b = self.src(o.b);
                let b = self.not_if(b, o.not_b);
                let r = match o.func {
                    LopFn::And => self.bin(&a, &b, |b, x, y| b.ins().band(x, y)),
                    LopFn::Or => self.bin(&a, &b, |b, x, y| b.ins().bor(x, y)),
                    LopFn::Xor => self.bin(&a, &b, |b, x, y| b.ins().bxor(x, y)),
                    LopFn::PassB => b,
                };
                self.set_reg(o.d, r, m);
                self.pred_out(o.p, o.pout, &r, m);
            }
            Op::Lop32i(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let a = self.not_if(a, o.not_a);
                let b = self.splat(if o.not_b { !o.imm } else { o.imm });
                let r = match o.func {
                    LopFn::And => self.bin(&a, &b, |b, x, y| b.ins().band(x, y)),
                    LopFn::Or => self.bin(&a, &b, |b, x, y| b.ins().bor(x, y)),
                    LopFn::Xor => self.bin(&a, &b, |b, x, y| b.ins().bxor(x, y)),
                    LopFn::PassB => b,
                };
                self.set_reg(o.d, r, m);
            }
            Op::Lop3(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let b = self.src(o.b);
                let c = self.reg(o.c);
                let r = self.lut3(o.lut, &a, &b, &c);
                self.set_reg(o.d, r, m);
                self.pred_out(o.p, o.pout, &r, m);
            }
            Op::Bfe(o) => {
                let Src::Imm(ctl) = o.b else { return false };
                if o.brev {
                    return false;
                }
                let (pos, len) = (ctl & 0xff, (ctl >> 8) & 0xff);
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let r = if len == 0 {
                    self.splat(0)
                } else if o.signed {
                    // Bits past 31 read as bit 31: shift right arithmetically by min(pos, 31),
                    // then sign-extend from bit len-1 when len < 32.
                    let v = self.sshr_c(&a, pos.min(31));
                    let hi = (pos + len).min(32) - pos.min(31);
                    if len >= 32 || pos >= 31 || hi >= 32 {
                        v
                    } else {
                        let l = len.min(32 - pos);
                        let t = self.shl_c(&v, 32 - l);
                        self.sshr_c(&t, 32 - l)
                    }
                } else {
                    let v = self.ushr_c(&a, pos);
                    if len >= 32 {
                        v
                    } else {
                        let mk = self.splat((1u32 << len) - 1);
                        self.bin(&v, &mk, |b, x, y| b.ins().band(x, y))
                    }
                };
                self.set_reg(o.d, r, m);
                if o.cc {
                    let z = self.splat(0);
                    self.write_cc(m, &r, &z, None);
                }
            }
            Op::Bfi(o) => {
                let Src::Imm(ctl) = o.b else { return false };
                let (pos, len) = (ctl & 0xff, (ctl >> 8) & 0xff);
                let m = self.guard_mask(g);
                let c = self.src(o.c);
                let r = if pos >= 32 || len == 0 {
                    c
                } else {
                    let len = len.min(32 - pos);
                    let mk = (((1u64 << len) - 1) << pos) as u32;
                    let a = self.reg(o.a);
                    let a = self.shl_c(&a, pos);
                    let mv = self.splat(mk);
                    std::array::from_fn(|k| self.b.ins().bitselect(mv[k], a[k], c[k]))
                };
                self.set_reg(o.d, r, m);
                if o.cc {
                    let z = self.splat(0);
                    self.write_cc(m, &r, &z, None);
                }
            }
            Op::Sel(o) => {
                let m = self.guard_mask(g);
                let p = self.pred_src(o.p);
                let pv = self.mask_vec(p);
                let a = self.reg(o.a);
                let b = self.src(o.b);
                let r = std::array::from_fn(|k| self.b.ins().bitselect(pv[k], a[k], b[k]));
                self.set_reg(o.d, r, m);
            }
            Op::Isetp(o) if o.x => self.isetp_x(g, o),
            Op::Isetp(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let b = self.src(o.b);
                let r = match o.cmp {
                    Cmp::F => self.iconst(0),
                    Cmp::T => self.iconst(u32::MAX),
                    c => {
                        let cc = match (c, o.unsigned) {
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
                        let v = self.cmp(cc, &a, &b);
                        self.lane_mask(&v)
                    }
                };
                self.isetp_out(o, m, r);
            }
            Op::Psetp(o) => {
                let m = self.guard_mask(g);
                let a = self.pred_src(o.a);
                let b = self.pred_src(o.b);
                let c = self.pred_src(o.c);
                let ab = self.bop(o.bop1, a, b);
                let p = self.bop(o.bop2, ab, c);
                let na = self.b.ins().bnot(a);
                let nab = self.bop(o.bop1, na, b);
                let q = self.bop(o.bop2, nab, c);
                self.set_pred(o.p, m, p);
                self.set_pred(o.q, m, q);
            }
            Op::Imnmx(o) => {
                let m = self.guard_mask(g);
                let a = self.reg(o.a);
                let b = self.src(o.b);
                let (mn, mx) = if o.unsigned {
                    (
                        self.bin(&a, &b, |b, x, y| b.ins().umin(x, y)),
                        self.bin(&a, &b, |b, x, y| b.ins().umax(x, y)),
                    )
                } else {
                    (
                        self.bin(&a, &b, |b, x, y| b.ins().smin(x, y)),
                        self.bin(&a, &b, |b, x, y| b.ins().smax(x, y)),
                    )
                };
                let p = self.pred_src(o.p);
                let pv = self.mask_vec(p);
                let r = std::array::from_fn(|k| self.b.ins().bitselect(pv[k], mn[k], mx[k]));
                self.set_reg(o.d, r, m);
            }
            Op::Lea(o) => self.lea(g, o),
            Op::Ldc(o) if o.a.is_rz() && o.size.bytes() == 4 && o.imm % 4 == 0 => {
                let m = self.guard_mask(g);
                let v = if o.mode == LdcMode::Isl && o.bank > 13 {
                    self.iconst(0)
                } else {
                    self.const_scalar(ConstRef {
                        bank: o.bank,
                        offset: o.imm as u16,
                    })
                };
                let r = self.splat_val(v);
                self.set_reg(o.d, r, m);
            }
            Op::Ldc(o) if !o.a.is_rz() => {
                let h = self.env.mem_slow;
                self.ldc_indexed(inst, o, h);
            }
            Op::Ldg(o) => {
                let (h, slot) = (self.env.mem_slow, self.mem_ops);
                self.mem_ops += 1;
                self.ldg(inst, o, slot, h);
            }
            Op::Stg(o) => {
                let (h, slot) = (self.env.mem_slow, self.mem_ops);
                self.mem_ops += 1;
                self.stg(inst, o, slot, h);
            }
            Op::Membar(_) | Op::Nop(_) | Op::Depbar(_) => {}
            _ => return false,
        }
        true
    }

    /// ISETP's outputs from the comparison mask `r`: Pd = r bop Pp, Pq = !r bop Pp.
    pub(super) fn isetp_out(&mut self, o: &Isetp, m: Value, r: Value) {
        let c = self.pred_src(o.c);
        let p = self.bop(o.bop, r, c);
        let nr = self.b.ins().bnot(r);
        let q = self.bop(o.bop, nr, c);
        self.set_pred(o.p, m, p);
        self.set_pred(o.q, m, q);
    }

    pub(super) fn bop(&mut self, op: BoolOp, a: Value, b: Value) -> Value {
        match op {
            BoolOp::And => self.b.ins().band(a, b),
            BoolOp::Or => self.b.ins().bor(a, b),
            BoolOp::Xor => self.b.ins().bxor(a, b),
        }
    }

    fn finish_add(&mut self, m: Value, d: Reg, cc: bool, a: &Row, b: &Row, plus: Option<Row>) {
        if cc {
            let (s, c, o) = self.add3(a, b, plus);
            self.set_reg(d, s, m);
            self.write_cc(m, &s, &c, Some(&o));
        } else {
            let mut s = self.bin(a, b, |b, x, y| b.ins().iadd(x, y));
            if let Some(p) = plus {
                s = self.bin(&s, &p, |b, x, y| b.ins().iadd(x, y));
            }
            self.set_reg(d, s, m);
        }
    }

    fn pred_out(&mut self, p: Option<Pred>, pout: PredOut, r: &Row, m: Value) {
        let Some(p) = p else { return };
        let v = match pout {
            PredOut::None | PredOut::F => self.iconst(0),
            PredOut::T => self.iconst(u32::MAX),
            PredOut::Z | PredOut::Nz => {
                let z = self.splat(0);
                let c = self.cmp(
                    if pout == PredOut::Z {
                        IntCC::Equal
                    } else {
                        IntCC::NotEqual
                    },
                    r,
                    &z,
                );
                self.lane_mask(&c)
            }
        };
        self.set_pred(p, m, v);
    }

    fn lut3(&mut self, lut: u8, a: &Row, b: &Row, c: &Row) -> Row {
        match lut {
            0x00 => return self.splat(0),
            0xff => return self.splat(u32::MAX),
            0xf0 => return *a,
            0xcc => return *b,
            0xaa => return *c,
            _ => {}
        }
        let mut acc: Option<Row> = None;
        for i in 0..8 {
            if lut >> i & 1 == 0 {
                continue;
            }
            let pa = if i & 4 != 0 {
                *a
            } else {
                self.not_if(*a, true)
            };
            let pb = if i & 2 != 0 {
                *b
            } else {
                self.not_if(*b, true)
            };
            let pc = if i & 1 != 0 {
                *c
            } else {
                self.not_if(*c, true)
            };
            let t = self.bin(&pa, &pb, |b, x, y| b.ins().band(x, y));
            let t = self.bin(&t, &pc, |b, x, y| b.ins().band(x, y));
            acc = Some(match acc {
                None => t,
                Some(x) => self.bin(&x, &t, |b, x, y| b.ins().bor(x, y)),
            });
        }
        acc.unwrap_or_else(|| self.splat(0))
    }

    fn half(&mut self, v: Row, h: Half) -> Row {
        match h {
            Half::None => v,
            Half::H0 => {
                let mk = self.splat(0xffff);
                self.bin(&v, &mk, |b, x, y| b.ins().band(x, y))
            }
            Half::H1 => self.ushr_c(&v, 16),
        }
    }

    fn iadd3(&mut self, g: Guard, o: &Iadd3) -> bool {
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
            let cf = self.flag(CF);
            let mv = self.mask_vec(cf);
            let one = self.splat(1);
            let bits = self.bin(&mv, &one, |b, x, y| b.ins().band(x, y));
            plus2 = Some(match plus2 {
                None => bits,
                Some(x) => self.bin(&x, &bits, |b, x, y| b.ins().iadd(x, y)),
            });
        }
        let (f, cf, _) = self.add3(&partial, &c, plus2);
        self.set_reg(o.d, f, m);
        if o.cc {
            let z = self.splat(0);
            let zr = self.cmp(IntCC::Equal, &f, &z);
            let zf = self.lane_mask(&zr);
            let sf = self.lane_mask(&f);
            let cfm = self.lane_mask(&cf);
            let ofm = self.lane_mask(&carry);
            self.set_flag(CF, m, cfm);
            self.set_flag(ZF, m, zf);
            self.set_flag(SF, m, sf);
            self.set_flag(OF, m, ofm);
        }
        true
    }

    fn xmad(&mut self, g: Guard, o: &Xmad) {
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
        let b = sel(self, rb, o.b_h1, o.b_signed);
        let mut p = self.bin(&a, &b, |b, x, y| b.ins().imul(x, y));
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
        let (res, cf, _) = self.add3(&b, &v, plus);
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
            let old = self.lea_lo();
            let new = self.blend(m, &res, &old);
            self.lea = Some((new, true));
        }
        self.set_reg(o.d, res, m);
        if o.cc {
            if self.after.has_flag(ZF) {
                let z = self.splat(0);
                let zr = self.cmp(IntCC::Equal, &res, &z);
                let zf = self.lane_mask(&zr);
                self.set_flag(ZF, m, zf);
            }
            if self.after.has_flag(SF) {
                let sf = self.lane_mask(&res);
                self.set_flag(SF, m, sf);
            }
            if self.after.has_flag(CF) {
                let cfm = self.lane_mask(&cf);
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

    /// Ends the function: store live-out state, return 0; the fault exit returns 1.
    pub fn finish(mut self) -> u32 {
        self.flush(false);
        let z = self.iconst(0);
        self.b.ins().return_(&[z]);
        self.b.switch_to_block(self.fault_block);
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().return_(&[one]);
        self.b.seal_all_blocks();
        self.delegated
    }
}
