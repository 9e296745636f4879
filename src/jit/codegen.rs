//! IR block → Cranelift function, for a whole warp.
//!
//! Lanes inside each op: a register row (32 lanes) is 8 `i32x4` SSA values. Rows, predicates,
//! CC flags and the LEA.LO word are loaded from the warp state on first use, kept as SSA values
//! while the block runs (a block is straight-line code), and stored back at the end only if
//! written and live out of the block. A write under an execution mask is a `bitselect` with the
//! mask expanded to lanes.
//!
//! Every op of the table has a `Lower` impl (a missing one does not compile): ALU ops in
//! `codegen/alu.rs`, LEA in `codegen/lea.rs`, memory and barrier ops in `codegen/mem.rs` (their accesses in
//! `jit/memory.rs`), DXBC's view ops in `codegen/view.rs` and `codegen/resource.rs` (their
//! routines in `jit/view.rs`), per-lane scalar code in `jit/scalar.rs`. An instance an impl declines (and
//! any instruction with a misaligned constant operand, found from the op's operand roles) calls
//! [`warpjit_jit_exec_inst`](super::abi::warpjit_jit_exec_inst), which runs the interpreter's own
//! code for that instruction; such executions are counted as delegated in `--stats`.

use super::abi::JitCx;
use super::helper::{Declared, Helper};
use crate::ir::*;
use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, ConstantData, Endianness, ExtFuncData, ExternalName, FuncRef, InstBuilder,
    MemFlagsData, Type, UserExternalName, Value,
};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;
use std::mem::offset_of;
use warpjit_runtime::WarpState;

/// The JIT's decision for one op struct, one impl per op of the table (a missing impl is a
/// compile error in [`Tx::lower_op`], expanded from [`for_each_op!`](crate::for_each_op)).
///
/// An impl lowers the op inline for the lanes that pass `inst.guard` and returns `true`, or
/// returns `false` for an instance it leaves to the interpreter's code (run through
/// [`warpjit_jit_exec_inst`](super::abi::warpjit_jit_exec_inst) and counted as delegated in
/// `--stats`). Every op of the table is lowered: only instances an impl declines are delegated.
///
/// What the JIT knows of an op before lowering it (its compile weight, whether it may run in a
/// strip loop) is its line of the lowering table, [`table`].
pub(super) trait Lower {
    /// Lowers `inst` (whose op is `self`); `false` delegates it.
    fn lower(&self, tx: &mut Tx<'_, '_, '_>, inst: &Inst) -> bool;
}

macro_rules! lower_dispatch {
    ($($v:ident($s:ident),)*) => {
        impl Tx<'_, '_, '_> {
            /// The op's [`Lower`] impl.
            fn lower_op(&mut self, inst: &Inst) -> bool {
                match &inst.op {
                    $(Op::$v(o) => Lower::lower(o, self, inst),)*
                }
            }
        }
    };
}
crate::for_each_op!(lower_dispatch);

// Declared after the macros above, which they use.
mod alu;
mod barrier;
mod convert;
mod float;
mod func;
mod int;
mod lea;
pub(in crate::jit) use lea::addr_pair_of;
mod mem;
mod resource;
mod sample;
mod table;
mod view;
mod warp;

use table::op_strip;
pub(super) use table::op_weight;

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
    /// The runtime helpers as the module declares them, indexed by [`Helper`] (a function
    /// imports one on first use).
    pub helpers: &'p [Declared],
    /// Pointer type.
    pub ptr: Type,
    /// Whether more instructions of the block follow this piece: the piece then advances the
    /// warp's clock by its instruction count (the dispatcher sets it at each block start).
    pub more: bool,
    /// Live-out state of the block (what must be stored at the end).
    pub live_out: &'p dyn LiveOut,
    /// Whether memory instructions get whole-warp code inline (tier 2, and tier 1's regions):
    /// a full warp's coalesced 32-, 64- and 128-bit global accesses their vector path, indexed
    /// LDC its gather. That code costs 50 to 250 Cranelift instructions per access, which tier
    /// 1, compiling for latency, does not spend on straight-line blocks: it calls the lane
    /// routine ([`crate::jit::lanes`]) or, for indexed LDC, the LDC routine
    /// ([`warpjit_jit_ldc`](crate::jit::abi::warpjit_jit_ldc)). A region, a loop, runs many
    /// iterations a call until tier 2's code is ready: tier 1 lowers it as tier 2 does.
    pub whole_warp: bool,
}

/// How many recipes deep [`Tx::remat`] computes a row again.
const REMAT_DEPTH: u32 = 4;

/// Most reconvergence-stack entries a region's code keeps pushed (a deeper nest is left to the
/// dispatcher): [`crate::jit::region`] plans no region deeper.
pub const MAX_PENDING: usize = 8;

/// A block of a region function ([`crate::jit::region`]), as [`Tx::end_member`] needs it.
#[derive(Clone, Copy, Debug)]
pub struct Member<'r> {
    /// The block.
    pub id: BlockId,
    /// Its code's first CLIF block.
    pub at: cranelift_codegen::ir::Block,
    /// The warp instructions one run of it issues (its instructions and a written terminator):
    /// what entering it takes from the budgets' room and adds to the warp's clock.
    pub total: u32,
    /// The reconvergence-stack entries pushed inside the region that it starts with
    /// ([`crate::jit::region::Member::pending`]).
    pub pending: &'r [(Region, BlockId)],
    /// The region blocks its terminator may send the warp to
    /// ([`crate::jit::region::Member::next`]): the only edges into region code it makes.
    pub next: &'r [BlockId],
    /// Its code is entered from one place only, the end of one other region block (never the
    /// function's entry): it starts with that block's cached values, which dominate it, and
    /// that block stores nothing on the way in.
    pub chained: bool,
    /// The registers its code receives as block parameters (eight vectors each, in this
    /// order) from every way in, unless `chained`, each with whether the region writes it
    /// (then the warp state may not hold its value, and a way out stores it if live): the
    /// function's entry loads them, and each region block going there passes its values
    /// (cached, else loaded) instead of storing them (at both tiers: tier 1 lowers a region
    /// as tier 2 does, with its single-pass register allocator).
    pub carried: &'r [Carried],
}

/// A register a region block receives as block parameters ([`Member::carried`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carried {
    /// The register.
    pub reg: u8,
    /// Whether the region writes it (then the warp state may not hold its value, and a way
    /// out stores it if live).
    pub written: bool,
    /// Whether it is one parameter, not eight: in a `full` function (every lane active) where
    /// [`crate::analysis::uniformity()`] finds the register uniform at the block's entry, all 32
    /// lanes hold one value, so every way in passes its first vector and the block splats it.
    /// A loop's uniform counter then costs one vector operation per instruction, not eight,
    /// and seven fewer registers of the host.
    pub uniform: bool,
}

/// What a [`Tx`] holds cached at a point of the code: saved at the end of a region block and
/// given back to each block chained to it ([`Member::chained`]).
#[derive(Clone)]
pub struct Cached {
    regs: HashMap<u8, (Row, bool)>,
    deferred: HashMap<u8, Deferred>,
    preds: [Option<(Value, bool)>; 7],
    cc: [Option<(Value, bool)>; 4],
    lea: Option<(Row, bool)>,
    lane_bits: Option<Row>,
    mask_vecs: HashMap<Value, Row>,
}

/// A 64-bit address `{hi, lo} = b + (index << s)` that a pair `LEA lo.CC, a, b_lo, s;
/// LEA.HI.X hi, a, b_hi, c, s` writes (the index is `{c, a}`, or `a` zero-extended when `c` is
/// `RZ`), kept as its operands' rows rather than computed: a coalesced access through it tests
/// the index instead of the address ([`Tx::addr_pair`]), and the two words are computed only
/// where something reads them ([`Tx::reg`]) or the warp state must hold them (a slow path, the
/// end of the block). Only made when the pair's flags and LEA.LO word are dead after it.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct AddrPair {
    pub a: Row,
    pub c: Option<Row>,
    pub b_lo: Row,
    pub b_hi: Row,
    pub s: u32,
}

/// What is known of a row of a full warp at run time: when `flag` (an `i8`) is true, lane `l`
/// holds lane 0's value plus `step * l` (32-bit, wrapping; `step` an `i32`). Made for a
/// region's loop-invariant registers once at the function's entry (one test of their eight
/// vectors, [`Tx::enter`]) and carried through the adds, constant left shifts and low-bit masks
/// of rows that have one ([`Tx::add_steps`], [`Tx::shl_c`], [`Tx::mask_steps`]), so that a
/// whole-warp access through such a row tests two scalars instead of its eight vectors
/// (`Tx::steps_from` in `memory.rs`): a loop over `a[tid + i]` then tests its index once a
/// call, not once an iteration. A fact is about an SSA value, true wherever the value is.
#[derive(Clone, Copy)]
pub(super) struct Steps {
    pub flag: Value,
    pub step: Value,
}

/// How a row of tier 2's code was computed from other rows ([`Tx::remat`]): an add without
/// carry in, an AND with a constant, a left shift by a constant.
#[derive(Clone, Copy)]
pub(super) enum Recipe {
    Add(Row, Row),
    And(Row, u32),
    Shl(Row, u32),
}

/// A register whose row is not computed yet: one word of an [`AddrPair`].
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Deferred {
    Lo(AddrPair),
    Hi(AddrPair),
}

/// The state `inst` reads or writes (registers, predicates including its guard, flags, the
/// LEA.LO word), and the part of it that it writes: from its operand roles.
pub(super) fn touched_by(inst: &Inst) -> (crate::analysis::LiveSet, crate::analysis::LiveSet) {
    use crate::analysis::LiveSet;
    let (mut touched, mut written) = (LiveSet::EMPTY, LiveSet::EMPTY);
    inst.op.for_each_reg(&mut |u| {
        touched.insert_regs(u.reg, u.count);
        if u.def {
            written.insert_regs(u.reg, u.count);
        }
    });
    let fx = inst.effects();
    touched.preds |= fx.pred_reads | fx.pred_writes;
    touched.cc |= fx.cc_reads | fx.cc_writes;
    touched.lea_lo |= fx.lea_lo_read | fx.lea_lo_write;
    written.preds |= fx.pred_writes;
    written.cc |= fx.cc_writes;
    written.lea_lo |= fx.lea_lo_write;
    (touched, written)
}

/// Whether an instruction has a misaligned constant operand (which the interpreter faults on).
fn bad_const(inst: &Inst) -> bool {
    struct BadConst(bool);
    impl Visitor for BadConst {
        fn constant(&mut self, c: ConstRef) {
            self.0 |= !c.offset.is_multiple_of(4);
        }
    }
    let mut bad = BadConst(false);
    inst.op.operands(&mut bad);
    bad.0
}

/// Whether a row is one value in all eight vectors (a splat and what lane-wise ops make of
/// splats): such rows are computed once.
pub(super) fn uniform(r: &Row) -> bool {
    r.iter().all(|v| *v == r[0])
}

/// The chunk of four lanes a strip loop ([`Tx::strip_run`]) is running.
#[derive(Clone, Copy)]
pub(super) struct Strip {
    /// The warp state's address plus 16 times the chunk's index: a row's vector for the
    /// chunk lies at the row's offset from it.
    at: Value,
    /// Four times the chunk's index: the chunk's first lane, and the shift of its bits in a
    /// lane mask.
    shift: Value,
    /// The chunk's four bits of a lane mask.
    chunk: Value,
    /// Each lane's bit of a lane mask, as a vector (what [`Tx::mask_vec`] tests).
    bits: Value,
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
    /// Registers written but not computed yet (never also in `regs`); always dirty.
    pub(super) deferred: HashMap<u8, Deferred>,
    pub(super) preds: [Option<(Value, bool)>; 7],
    pub(super) cc: [Option<(Value, bool)>; 4],
    pub(super) lea: Option<(Row, bool)>,
    pub(super) lane_bits: Option<Row>,
    pub(super) mask_vecs: HashMap<Value, Row>,
    pub(super) fault_block: cranelift_codegen::ir::Block,
    /// The region block being translated (its index in the region; 0 in a one-block function),
    /// for [`Tx::comments`].
    member: usize,
    /// Set once every path of the function has ended (a region's last block did).
    ended: bool,
    /// Instructions lowered by a call to the interpreter's code.
    pub delegated: u32,
    /// Of those, the instructions whose op's `Lower` impl declined them (returned `false`;
    /// the others are constant operands that would fault, and BPT).
    pub declined: u32,
    /// The hint of the next memory instruction that uses one (`abi::HINTS`): its index among
    /// the program's ([`Tx::first_hint`]).
    mem_ops: usize,
    /// Instructions of the piece translated so far: the clock of the next one is the warp's
    /// `clock` plus this.
    pub(super) index: u32,
    /// What is live after the instruction being translated: dead flags, predicates and the
    /// LEA.LO word are not computed.
    pub(super) after: crate::analysis::LiveSet,
    /// What holds one value in every active lane both before and after the instruction being
    /// translated ([`crate::analysis::uniformity`]; after too, because an instruction may read
    /// back from the warp state a register it wrote there through a routine): in the full-warp
    /// variant such a register is loaded as one word (lane 0's) and splatted, and lane-wise ops
    /// on it are then emitted once.
    uniform: crate::analysis::uniformity::UniformSet,
    /// Per guest instruction translated, the first CLIF instruction it produced, the region
    /// block it is in (0 in a one-block function) and its position in the piece or block (a
    /// dump writes the guest text above that CLIF instruction; the text is made only for
    /// dumps).
    pub comments: Vec<(cranelift_codegen::ir::Inst, usize, usize)>,
    /// The helpers imported so far, indexed by [`Helper`].
    imported: [Option<FuncRef>; Helper::ALL.len()],
    /// In a strip loop: the chunk of lanes it runs. A row is then one vector (repeated eight
    /// times, so that lane-wise code is emitted once), a lane mask's meaningful bits are the
    /// chunk's, and `active` is the chunk's active lanes.
    pub(super) strip: Option<Strip>,
    /// The [`Steps`] facts known of rows (in a `full` function only).
    steps: HashMap<Row, Steps>,
    /// The facts of the region's loop-invariant carried registers, made at the function's
    /// entry ([`Tx::enter`]) and given to the rows that carry them into each region block.
    invariant: HashMap<u8, Steps>,
    /// How rows were computed (tier 2 only), for [`Tx::remat`].
    recipes: HashMap<Row, Recipe>,
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
            deferred: HashMap::new(),
            preds: [None; 7],
            cc: [None; 4],
            lea: None,
            lane_bits: None,
            mask_vecs: HashMap::new(),
            fault_block,
            member: 0,
            ended: false,
            delegated: 0,
            declined: 0,
            mem_ops: 0,
            index: 0,
            after: crate::analysis::LiveSet::FULL,
            uniform: crate::analysis::uniformity::UniformSet::EMPTY,
            comments: Vec::new(),
            imported: [None; Helper::ALL.len()],
            strip: None,
            steps: HashMap::new(),
            invariant: HashMap::new(),
            recipes: HashMap::new(),
        }
    }

    /// A runtime helper to call, imported into the function on first use.
    pub(in crate::jit) fn helper(&mut self, h: Helper) -> FuncRef {
        if let Some(f) = self.imported[h as usize] {
            return f;
        }
        let d = &self.env.helpers[h as usize];
        let signature = self.b.import_signature(d.sig.clone());
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName {
                namespace: 0,
                index: d.index,
            });
        let f = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            // Declared with `Linkage::Import`: not colocated (what `declare_func_in_func` sets).
            colocated: false,
            patchable: false,
        });
        self.imported[h as usize] = Some(f);
        f
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

    /// A bitcast between 16-byte vector types (lanes little-endian).
    pub(in crate::jit) fn recast(&mut self, ty: Type, x: Value) -> Value {
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        self.b.ins().bitcast(ty, le, x)
    }

    /// A two-input shuffle of 32-bit lanes on `i8x16` values (what `shuffle` takes): lane `i`
    /// of the result is word `idx[i]` of `x` (0-3) or of `y` (4-7).
    pub(in crate::jit) fn shuffle_words(&mut self, x: Value, y: Value, idx: [u8; 4]) -> Value {
        let bytes: Vec<u8> = idx
            .iter()
            .flat_map(|w| (0..4).map(move |b| 4 * w + b))
            .collect();
        let imm = self.b.func.dfg.immediates.push(bytes.into());
        self.b.ins().shuffle(x, y, imm)
    }

    // ---- state access ----------------------------------------------------------------------

    pub(super) fn reg(&mut self, r: Reg) -> Row {
        if r.is_rz() {
            return self.splat(0);
        }
        if let Some((row, _)) = self.regs.get(&r.0) {
            return *row;
        }
        if let Some(d) = self.deferred.remove(&r.0) {
            let row = self.deferred_row(d, false);
            self.regs.insert(r.0, (row, true));
            return row;
        }
        let base = offset_of!(WarpState, regs) as i32 + r.0 as i32 * 128;
        let row = if self.strip.is_some() {
            self.state_row(base)
        } else if self.full && self.uniform.has_reg(r) {
            // Every lane is active and holds the same value: lane 0's word.
            let s = self.b.ins().load(types::I32, flags(), self.w, base);
            self.splat_val(s)
        } else {
            std::array::from_fn(|k| self.b.ins().load(V, flags(), self.w, base + 16 * k as i32))
        };
        self.regs.insert(r.0, (row, false));
        row
    }

    /// A row of per-lane state at byte offset `base` of the warp state (eight vectors; in a
    /// strip loop, the chunk's vector).
    pub(super) fn state_row(&mut self, base: i32) -> Row {
        match self.strip {
            Some(s) => [self.b.ins().load(V, flags(), s.at, base); 8],
            None => {
                std::array::from_fn(|k| self.b.ins().load(V, flags(), self.w, base + 16 * k as i32))
            }
        }
    }

    /// Stores a row of per-lane state at byte offset `base` of the warp state.
    fn store_state_row(&mut self, base: i32, row: &Row) {
        match self.strip {
            Some(s) => {
                self.b.ins().store(flags(), row[0], s.at, base);
            }
            None => {
                for (k, v) in row.iter().enumerate() {
                    self.b
                        .ins()
                        .store(flags(), *v, self.w, base + 16 * k as i32);
                }
            }
        }
    }

    /// Whether a write under `mask` covers every lane: a full warp, and the mask is the active
    /// one (no guard). Such a write needs no blend and no read of the old value. In a strip
    /// loop, every lane of the chunk.
    pub(super) fn covers_all(&self, mask: Value) -> bool {
        self.full && mask == self.active
    }

    /// Whether a lane mask written under `mask` replaces the cached one whole: outside a strip
    /// loop, [`Tx::covers_all`]. In one, a cached lane mask holds the chunk's active lanes'
    /// bits only (every use of a mask there selects lanes under the active mask, and the mask
    /// ops are bitwise), so a write under the whole active mask replaces it, and the end of
    /// the chunk merges those bits into the warp state ([`Tx::store_dirty`]).
    fn covers_all_bits(&self, mask: Value) -> bool {
        match self.strip {
            Some(_) => mask == self.active,
            None => self.covers_all(mask),
        }
    }

    /// Stores lane mask `v` at byte offset `off` of the warp state: whole, or in a strip loop
    /// its bits of the chunk's active lanes (the others as they are there).
    fn store_mask(&mut self, v: Value, off: i32) {
        let v = match self.strip {
            Some(_) => {
                let old = self.b.ins().load(types::I32, flags(), self.w, off);
                let keep = self.b.ins().band_not(old, self.active);
                let new = self.b.ins().band(v, self.active);
                self.b.ins().bor(new, keep)
            }
            None => v,
        };
        self.b.ins().store(flags(), v, self.w, off);
    }

    pub(super) fn set_reg(&mut self, r: Reg, v: Row, mask: Value) {
        if r.is_rz() || !self.after.has_reg(r) {
            return;
        }
        if self.covers_all(mask) {
            self.deferred.remove(&r.0);
            // Every lane is written: the old row is not read.
            self.regs.insert(r.0, (v, true));
            return;
        }
        let old = self.reg(r);
        let new = self.blend(mask, &v, &old);
        self.regs.insert(r.0, (new, true));
    }

    /// Caches `row` as register `r`'s (dirty or not), replacing a deferred one.
    pub(super) fn put_row(&mut self, r: u8, row: Row, dirty: bool) {
        self.deferred.remove(&r);
        self.regs.insert(r, (row, dirty));
    }

    /// The row of a deferred register, computed here (not cached: see [`Tx::dirty_rows`]).
    /// With `remat`, on a slow path, the pair's index is computed again from how it was
    /// computed ([`Tx::remat`]) rather than kept from where it was made.
    fn deferred_row(&mut self, d: Deferred, remat: bool) -> Row {
        let (Deferred::Lo(mut p) | Deferred::Hi(mut p)) = d;
        if remat {
            p.a = self.remat(&p.a, REMAT_DEPTH);
            p.c = p.c.map(|c| self.remat(&c, REMAT_DEPTH));
        }
        let shifted = self.shl_c(&p.a, p.s);
        let lo = self.bin(&shifted, &p.b_lo, |b, x, y| b.ins().iadd(x, y));
        if let Deferred::Lo(_) = d {
            return lo;
        }
        // The high word: b_hi + ((c << s) | (a >> (32 - s))) + the low add's carry (a
        // lane's carry mask is all ones: subtract it).
        let carry = self.cmp(IntCC::UnsignedLessThan, &lo, &p.b_lo);
        let top = match (p.c, p.s) {
            (None, 0) => None,
            (None, s) => Some(self.ushr_c(&p.a, 32 - s)),
            (Some(c), 0) => Some(c),
            (Some(c), s) => {
                let h = self.shl_c(&c, s);
                let l = self.ushr_c(&p.a, 32 - s);
                Some(self.bin(&h, &l, |b, x, y| b.ins().bor(x, y)))
            }
        };
        let hi = match top {
            Some(t) => self.bin(&p.b_hi, &t, |b, x, y| b.ins().iadd(x, y)),
            None => p.b_hi,
        };
        self.bin(&hi, &carry, |b, x, y| b.ins().isub(x, y))
    }

    /// The dirty registers `keep` selects, with their rows, in register order: the cached ones
    /// and the deferred ones (computed here, and left deferred: the caller may be on a path
    /// that joins others where they are not computed; with `remat`, from their index's
    /// recipe, [`Tx::deferred_row`]).
    fn dirty_rows(&mut self, keep: &dyn Fn(&Self, u8) -> bool, remat: bool) -> Vec<(u8, Row)> {
        let mut regs: Vec<_> = self
            .regs
            .iter()
            .filter(|(r, (_, d))| *d && keep(self, **r))
            .map(|(r, (row, _))| (*r, *row))
            .collect();
        let mut deferred: Vec<_> = self
            .deferred
            .iter()
            .filter(|(r, _)| keep(self, **r))
            .map(|(r, d)| (*r, *d))
            .collect();
        deferred.sort_by_key(|(r, _)| *r);
        for (r, d) in deferred {
            let row = self.deferred_row(d, remat);
            regs.push((r, row));
        }
        regs.sort_by_key(|(r, _)| *r);
        regs
    }

    /// The [`AddrPair`] registers `lo` and `lo + 1` hold, deferred, if they do.
    pub(super) fn addr_pair(&self, lo: Reg) -> Option<AddrPair> {
        let hi = lo.offset(1);
        match (self.deferred.get(&lo.0), self.deferred.get(&hi.0)) {
            (Some(Deferred::Lo(p)), Some(Deferred::Hi(q))) if p == q && !lo.is_rz() => Some(*p),
            _ => None,
        }
    }

    pub(super) fn blend(&mut self, mask: Value, v: &Row, old: &Row) -> Row {
        if self.covers_all(mask) {
            return *v;
        }
        let mv = self.mask_vec(mask);
        self.select_rows(&mv, v, old)
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
        let mask = self.in_chunk(mask);
        if self.covers_all_bits(mask) {
            self.preds[p.0 as usize] = Some((v, true));
            return;
        }
        let old = self.pred(p);
        let new = self.merge(mask, v, old);
        self.preds[p.0 as usize] = Some((new, true));
    }

    /// In a strip loop, `mask`'s bits of the chunk's lanes (a lane mask write there must leave
    /// the other chunks' bits); else `mask`.
    fn in_chunk(&mut self, mask: Value) -> Value {
        match self.strip {
            Some(s) if mask != self.active => self.b.ins().band(mask, s.chunk),
            _ => mask,
        }
    }

    /// (v & mask) | (old & !mask) on scalars.
    pub(super) fn merge(&mut self, mask: Value, v: Value, old: Value) -> Value {
        if self.covers_all_bits(mask) {
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
        let mask = self.in_chunk(mask);
        if self.covers_all_bits(mask) {
            self.cc[f] = Some((v, true));
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
        let row = self.state_row(offset_of!(WarpState, lea_lo) as i32);
        self.lea = Some((row, false));
        row
    }

    /// Stores register `r`'s row to the warp state.
    fn store_reg_row(&mut self, r: u8, row: &Row) {
        self.store_state_row(offset_of!(WarpState, regs) as i32 + r as i32 * 128, row);
    }

    /// Stores LEA's low word row to the warp state.
    fn store_lea_row(&mut self, row: &Row) {
        self.store_state_row(offset_of!(WarpState, lea_lo) as i32, row);
    }

    /// Stores every written value (all of them when `all`, else those live out).
    pub(super) fn flush(&mut self, all: bool) {
        self.flush_except(all, &[]);
    }

    /// [`Tx::flush`], but not the registers `kept` (an edge passes them on as parameters).
    fn flush_except(&mut self, all: bool, kept: &[Carried]) {
        let live = self.env.live_out;
        let regs = self.dirty_rows(
            &|_, r| !kept.iter().any(|k| k.reg == r) && (all || live.reg(Reg(r))),
            false,
        );
        for (r, row) in regs {
            self.store_reg_row(r, &row);
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
                self.store_lea_row(&row);
            }
        }
    }

    /// Stores the dirty cached state that `inst` reads or writes (the interpreter's code reads
    /// registers, predicates and flags from memory, and merges writes with the old values).
    pub(super) fn flush_for(&mut self, inst: &Inst) {
        let (touched, _) = touched_by(inst);
        // Dirty still: the slow path that calls this joins a fast one that stored nothing.
        self.store_dirty(&touched, false);
    }

    /// Before a call to the lane routine for `inst`: stores the dirty cached registers that are
    /// still needed (those `inst` touches, which the routine or the slow path reads from
    /// memory, and those live after it; a dead one is dropped unstored, as the block's end
    /// would drop it) and LEA's low word if live, then forgets every cached vector (registers,
    /// LEA's low word, lane masks). Predicates and flags stay cached: they are scalars, and
    /// the slow path stores the ones it reads. No vector then lives across the call, which
    /// clobbers every vector register: the register allocator would otherwise spill each one
    /// around it.
    pub(super) fn settle(&mut self, inst: &Inst) {
        let mut touched = crate::analysis::LiveSet::EMPTY;
        inst.op.for_each_reg(&mut |u| {
            for k in 0..u.count {
                touched.insert_reg(u.reg.offset(k));
            }
        });
        let regs = self.dirty_rows(
            &|t, r| touched.has_reg(Reg(r)) || t.after.has_reg(Reg(r)),
            true,
        );
        for (r, row) in regs {
            self.store_reg_row(r, &row);
        }
        if let Some((row, true)) = self.lea {
            if self.after.lea_lo {
                self.store_lea_row(&row);
            }
        }
        self.regs.clear();
        self.deferred.clear();
        self.lea = None;
        self.lane_bits = None;
        self.mask_vecs.clear();
    }

    /// Forgets every cached value (after a helper changed the warp state in memory).
    pub(super) fn invalidate(&mut self) {
        self.regs.clear();
        self.deferred.clear();
        self.preds = [None; 7];
        self.cc = [None; 4];
        self.lea = None;
    }

    // ---- masks -------------------------------------------------------------------------------

    pub(super) fn mask_vec(&mut self, m: Value) -> Row {
        if let Some(r) = self.mask_vecs.get(&m) {
            return *r;
        }
        if let Some(s) = self.strip {
            let v = self.b.ins().splat(V, m);
            let x = self.b.ins().band(v, s.bits);
            let r = [self.b.ins().icmp(IntCC::Equal, x, s.bits); 8];
            self.mask_vecs.insert(m, r);
            return r;
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
    /// The sign bits of a row's 32 lanes as a lane mask. The row narrows with signed saturation
    /// (which keeps every lane's sign) to two vectors of 16 bytes, whose sign bits are two
    /// 16-bit masks: 11 instructions, against 29 for a mask per vector of four.
    pub(super) fn lane_mask(&mut self, v: &Row) -> Value {
        if let Some(s) = self.strip {
            // The chunk's four sign bits, in the chunk's place.
            let b = self.b.ins().vhigh_bits(types::I32, v[0]);
            return self.b.ins().ishl(b, s.shift);
        }
        if uniform(v) {
            // One value in every lane: its sign bit, spread to all 32 bits.
            let x = self.b.ins().extractlane(v[0], 0);
            return self.b.ins().sshr_imm_u(x, 31);
        }
        let n16: [Value; 4] = std::array::from_fn(|k| self.b.ins().snarrow(v[2 * k], v[2 * k + 1]));
        let n8: [Value; 2] =
            std::array::from_fn(|k| self.b.ins().snarrow(n16[2 * k], n16[2 * k + 1]));
        let lo = self.b.ins().vhigh_bits(types::I32, n8[0]);
        let hi = self.b.ins().vhigh_bits(types::I32, n8[1]);
        let hi = self.b.ins().ishl_imm_u(hi, 16);
        self.b.ins().bor(lo, hi)
    }

    /// [`Tx::lane_mask`] of a row whose lanes are all ones or zero (a comparison's, a carry's),
    /// remembered as that mask's lane row: a later [`Tx::mask_vec`] of it (a `.X` reading the
    /// carry) is the row itself.
    pub(super) fn bool_mask(&mut self, v: &Row) -> Value {
        let m = self.lane_mask(v);
        self.mask_vecs.insert(m, *v);
        m
    }

    pub(super) fn cmp(&mut self, cc: IntCC, a: &Row, b: &Row) -> Row {
        if uniform(a) && uniform(b) {
            return [self.b.ins().icmp(cc, a[0], b[0]); 8];
        }
        std::array::from_fn(|k| self.b.ins().icmp(cc, a[k], b[k]))
    }

    /// `f` on each vector of `a` and `b`. `f` must be lane-wise and pure (every caller's is):
    /// on rows that are one value repeated (an immediate, a constant, RZ, a result of such
    /// rows) it is emitted once.
    pub(super) fn bin(
        &mut self,
        a: &Row,
        b: &Row,
        f: fn(&mut FunctionBuilder<'b>, Value, Value) -> Value,
    ) -> Row {
        if uniform(a) && uniform(b) {
            return [f(self.b, a[0], b[0]); 8];
        }
        std::array::from_fn(|k| f(self.b, a[k], b[k]))
    }

    /// `f` on each vector of the rows `ins`, lane-wise and pure as [`Tx::bin`]'s (once when
    /// every row is uniform).
    pub(super) fn each<const N: usize>(
        &mut self,
        ins: [&Row; N],
        mut f: impl FnMut(&mut Self, [Value; N]) -> Value,
    ) -> Row {
        if ins.iter().all(|r| uniform(r)) {
            return [f(self, ins.map(|r| r[0])); 8];
        }
        std::array::from_fn(|k| f(self, ins.map(|r| r[k])))
    }

    /// `bitselect(c, a, b)` on each vector (once on uniform rows, as [`Tx::bin`]).
    pub(super) fn select_rows(&mut self, c: &Row, a: &Row, b: &Row) -> Row {
        if uniform(c) && uniform(a) && uniform(b) {
            return [self.b.ins().bitselect(c[0], a[0], b[0]); 8];
        }
        std::array::from_fn(|k| self.b.ins().bitselect(c[k], a[k], b[k]))
    }

    /// `f` on each vector of `a` (once on a uniform row, as [`Tx::bin`]).
    pub(super) fn un(
        &mut self,
        a: &Row,
        f: impl Fn(&mut FunctionBuilder<'b>, Value) -> Value,
    ) -> Row {
        if uniform(a) {
            return [f(self.b, a[0]); 8];
        }
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
        if self.full && self.strip.is_none() {
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
        let nb = self.nbanks();
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
            Src::Imm(v) | Src::Imm32(v) => self.splat(v),
            Src::Const(c) => {
                let v = self.const_scalar(c);
                self.splat_val(v)
            }
        }
    }

    /// `a << s`; a row with a [`Steps`] fact gives its shift one (`step << s`).
    pub(super) fn shl_c(&mut self, a: &Row, s: u32) -> Row {
        let r = self.logical_shift(a, s, true);
        if (1..32).contains(&s) {
            self.note_recipe(r, Recipe::Shl(*a, s));
            if let Some(f) = self.steps_of(a) {
                let step = self.b.ins().ishl_imm_u(f.step, s as i64);
                self.note_steps(r, f.flag, step);
            }
        }
        r
    }

    /// The [`Steps`] fact of `row`, if one is known: a uniform row's (step 0, always true), or
    /// one noted. None outside `full` functions and in strip loops, whose rows are not a warp's.
    pub(super) fn steps_of(&mut self, row: &Row) -> Option<Steps> {
        if !self.full || self.strip.is_some() {
            return None;
        }
        if uniform(row) {
            let flag = self.b.ins().iconst(types::I8, 1);
            let step = self.b.ins().iconst(types::I32, 0);
            return Some(Steps { flag, step });
        }
        self.steps.get(row).copied()
    }

    /// Notes how `row` was computed (where whole-warp paths are compiled, [`Env::whole_warp`]).
    pub(super) fn note_recipe(&mut self, row: Row, r: Recipe) {
        if self.env.whole_warp && self.strip.is_none() && !uniform(&row) {
            self.recipes.insert(row, r);
        }
    }

    /// `row` computed again here from its [`Recipe`] (and its sources', `depth` deep), or
    /// `row` itself. A slow path that needs a row the fast path does not (a deferred address
    /// pair's index) computes it there: the fast path's code for it is then unused, and
    /// Cranelift emits none (the index of a loop's coalesced load, eight vector adds and
    /// masks and their spills an iteration). The sources dominate `row`, which dominates
    /// here, so they are available.
    pub(super) fn remat(&mut self, row: &Row, depth: u32) -> Row {
        if depth == 0 || uniform(row) {
            return *row;
        }
        match self.recipes.get(row).copied() {
            None => *row,
            Some(Recipe::Add(a, b)) => {
                let a = self.remat(&a, depth - 1);
                let b = self.remat(&b, depth - 1);
                self.bin(&a, &b, |b, x, y| b.ins().iadd(x, y))
            }
            Some(Recipe::And(a, m)) => {
                let a = self.remat(&a, depth - 1);
                let mv = self.splat(m);
                self.bin(&a, &mv, |b, x, y| b.ins().band(x, y))
            }
            Some(Recipe::Shl(a, s)) => {
                let a = self.remat(&a, depth - 1);
                self.logical_shift(&a, s, true)
            }
        }
    }

    /// Notes the fact `flag => row[l] = row[0] + step * l` of `row` (a full function's).
    fn note_steps(&mut self, row: Row, flag: Value, step: Value) {
        if self.full && self.strip.is_none() && !uniform(&row) {
            self.steps.insert(row, Steps { flag, step });
        }
    }

    /// A fact for `row` from its values: its step is lane 1's value minus lane 0's, and the
    /// flag whether every lane `l` holds lane 0's plus `step * l` (eight vector compares).
    fn entry_steps(&mut self, row: &Row) -> Steps {
        let l0 = self.b.ins().extractlane(row[0], 0);
        let l1 = self.b.ins().extractlane(row[0], 1);
        let step = self.b.ins().isub(l1, l0);
        let first = self.splat_val(l0)[0];
        let stepv = self.splat_val(step)[0];
        let flag = self.row_matches(row, &mut |t, k| {
            let k = k as u32;
            let iota = t.vconst(std::array::from_fn(|j| 4 * k + j as u32));
            let steps = t.b.ins().imul(stepv, iota);
            t.b.ins().iadd(first, steps)
        });
        Steps { flag, step }
    }

    /// Whether (an `i8`) every vector `k` of `row` equals `want(k)` in all four lanes.
    pub(super) fn row_matches(
        &mut self,
        row: &Row,
        want: &mut dyn FnMut(&mut Self, usize) -> Value,
    ) -> Value {
        let mut all = None;
        for (k, v) in row.iter().enumerate() {
            let w = want(self, k);
            let eq = self.b.ins().icmp(IntCC::Equal, *v, w);
            all = Some(all.map_or(eq, |x| self.b.ins().band(x, eq)));
        }
        self.b.ins().vall_true(all.expect("eight vectors"))
    }

    /// Notes the fact of `r = a + b` (no carry in) from `a`'s and `b`'s: the flags together,
    /// the steps added.
    pub(super) fn add_steps(&mut self, a: &Row, b: &Row, r: Row) {
        if let (Some(fa), Some(fb)) = (self.steps_of(a), self.steps_of(b)) {
            let flag = self.b.ins().band(fa.flag, fb.flag);
            let step = self.b.ins().iadd(fa.step, fb.step);
            self.note_steps(r, flag, step);
        }
    }

    /// Notes the fact of `r = a & mask` for a `mask` of the low `k` bits (`2^k - 1`): `a`'s,
    /// while lane 0's masked value plus `31 * step` stays within the mask (then no lane's add
    /// carries out of the low bits, and the lanes step alike after the mask).
    pub(super) fn mask_steps(&mut self, a: &Row, mask: u32, r: Row) {
        if mask == 0 || mask.wrapping_add(1) & mask != 0 {
            return;
        }
        if let Some(fa) = self.steps_of(a) {
            let l0 = self.b.ins().extractlane(a[0], 0);
            let low = self.b.ins().band_imm_u(l0, mask as i64);
            let low = self.b.ins().uextend(types::I64, low);
            let step = self.b.ins().uextend(types::I64, fa.step);
            let span = self.b.ins().imul_imm_u(step, 31);
            let last = self.b.ins().iadd(low, span);
            let fits = self
                .b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, last, mask as i64);
            let flag = self.b.ins().band(fa.flag, fits);
            self.note_steps(r, flag, fa.step);
        }
    }

    pub(super) fn ushr_c(&mut self, a: &Row, s: u32) -> Row {
        self.logical_shift(a, s, false)
    }

    /// A logical shift by a constant: 0 leaves `a`, 32 or more gives 0.
    fn logical_shift(&mut self, a: &Row, s: u32, left: bool) -> Row {
        match s {
            0 => *a,
            32.. => self.splat(0),
            _ => {
                // One constant amount for the eight vectors.
                let k = self.iconst(s);
                if left {
                    self.un(a, |b, x| b.ins().ishl(x, k))
                } else {
                    self.un(a, |b, x| b.ins().ushr(x, k))
                }
            }
        }
    }

    pub(super) fn sshr_c(&mut self, a: &Row, s: u32) -> Row {
        let s = s.min(31);
        if s == 0 {
            *a
        } else {
            let k = self.iconst(s);
            self.un(a, |b, x| b.ins().sshr(x, k))
        }
    }

    // ---- instructions ------------------------------------------------------------------------

    /// Translates one instruction, given what is live after it and what is uniform both before
    /// and after it.
    pub fn inst(
        &mut self,
        inst: &Inst,
        live_after: &crate::analysis::LiveSet,
        uniform: &crate::analysis::uniformity::UniformSet,
    ) {
        self.after = *live_after;
        self.uniform = *uniform;
        let first = self.b.func.dfg.num_insts();
        if !self.lower(inst) {
            self.delegate(inst);
        }
        self.index += 1;
        // Note the first CLIF instruction it produced (for the guest text above it in a dump).
        if let Some(i) = self.first_inst_since(first) {
            self.comments
                .push((i, self.member, self.index as usize - 1));
        }
    }

    /// The first CLIF instruction made since there were `n` (instructions are numbered in the
    /// order they are made, whichever block they went to).
    fn first_inst_since(&self, n: usize) -> Option<cranelift_codegen::ir::Inst> {
        (self.b.func.dfg.num_insts() > n).then(|| cranelift_codegen::ir::Inst::new(n))
    }

    /// Runs an instruction with the interpreter's code: flush everything, call, reload lazily.
    pub(super) fn delegate(&mut self, inst: &Inst) {
        self.delegated += 1;
        let mask = self.guard_mask(inst.guard);
        self.flush(true);
        self.call_exec(Helper::ExecInst, inst, mask);
        self.invalidate();
        self.mask_vecs.clear();
    }

    /// Calls `h`, a routine running `inst` for the lanes of `mask` on the warp state
    /// ([`Shape::Exec`](super::helper::Shape::Exec)), and leaves by the fault exit if it faults.
    pub(super) fn call_exec(&mut self, h: Helper, inst: &Inst, mask: Value) {
        let ip = self
            .b
            .ins()
            .iconst(self.env.ptr, inst as *const Inst as i64);
        let f = self.helper(h);
        let call = self.b.ins().call(f, &[self.w, self.jcx, ip, mask]);
        let r = self.b.inst_results(call)[0];
        let ok = self.b.create_block();
        self.b.ins().brif(r, self.fault_block, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Starts the code of a region function: the entry jumps to the first block's code.
    pub fn enter(&mut self, first: &Member<'_>) {
        // A register the region never writes holds its entry value throughout: its fact,
        // tested here once, holds for the rows every way into a block passes for it.
        if self.full && self.strip.is_none() {
            for c in first.carried.iter().filter(|c| !c.written && !c.uniform) {
                let row = self.reg(Reg(c.reg));
                let steps = self.entry_steps(&row);
                self.invariant.insert(c.reg, steps);
            }
        }
        let args = self.edge_args(first);
        self.b.ins().jump(first.at, &args);
    }

    /// The block arguments of a way into `to`: its carried registers' rows, cached or loaded
    /// (a load is not cached: the edge's code does not dominate the other ways on).
    fn edge_args(&mut self, to: &Member<'_>) -> Vec<cranelift_codegen::ir::BlockArg> {
        let mut args = Vec::with_capacity(8 * to.carried.len());
        for c in to.carried {
            let base = offset_of!(WarpState, regs) as i32 + c.reg as i32 * 128;
            let deferred = self.deferred.get(&c.reg).copied();
            let row = match self.regs.get(&c.reg) {
                Some((row, _)) => *row,
                None if deferred.is_some() => self.deferred_row(deferred.expect("deferred"), false),
                // A uniform register's first vector holds the value of every lane.
                None if c.uniform => [self.b.ins().load(V, flags(), self.w, base); 8],
                None => self.state_row(base),
            };
            let n = if c.uniform { 1 } else { 8 };
            args.extend(
                row[..n]
                    .iter()
                    .map(|v| cranelift_codegen::ir::BlockArg::Value(*v)),
            );
        }
        args
    }

    /// Starts translating region block `member` (its index in the region) at `at`, with the
    /// clock index at 0 and `live_out` what its end stores; with `carried` (a chained block,
    /// [`Member::chained`]) the values its one predecessor's code had cached, else only the
    /// registers `params` ([`Member::carried`]) from `at`'s parameters (values made in another
    /// block's code need not dominate this one).
    pub fn begin_member(
        &mut self,
        member: usize,
        at: cranelift_codegen::ir::Block,
        live_out: &'p dyn LiveOut,
        carried: Option<Cached>,
        params: &[Carried],
    ) {
        self.b.switch_to_block(at);
        match carried {
            Some(c) => self.restore(c),
            None => {
                self.invalidate();
                self.lane_bits = None;
                self.mask_vecs.clear();
                // The carried registers, as the ways in passed them (dirty if the region
                // writes them: a way in may have written one without storing it).
                let vals = self.b.block_params(at).to_vec();
                let mut next = 0;
                for c in params {
                    let row: Row = match c.uniform {
                        true => [vals[next]; 8],
                        false => std::array::from_fn(|j| vals[next + j]),
                    };
                    next += if c.uniform { 1 } else { 8 };
                    if let Some(&f) = self.invariant.get(&c.reg).filter(|_| !c.written) {
                        self.steps.insert(row, f);
                    }
                    self.put_row(c.reg, row, c.written);
                }
            }
        }
        self.index = 0;
        self.member = member;
        self.env.live_out = live_out;
    }

    /// Makes `c` what is cached (values that dominate the code from here).
    pub(super) fn restore(&mut self, c: Cached) {
        self.regs = c.regs;
        self.deferred = c.deferred;
        self.preds = c.preds;
        self.cc = c.cc;
        self.lea = c.lea;
        self.lane_bits = c.lane_bits;
        self.mask_vecs = c.mask_vecs;
    }

    /// What is cached now (at the end of a region block, for the blocks chained to it).
    pub fn cached(&self) -> Cached {
        Cached {
            regs: self.regs.clone(),
            deferred: self.deferred.clone(),
            preds: self.preds,
            cc: self.cc,
            lea: self.lea,
            lane_bits: self.lane_bits,
            mask_vecs: self.mask_vecs.clone(),
        }
    }

    /// Ends region block `me`, whose terminator is `term`: carries out the terminator when the
    /// whole active mask goes to one block of the region (`members`; [`Member::next`] says
    /// where it may go) and the budgets' room holds that block: takes its count from the room,
    /// counts the run (`JitCx::runs`, `JitCx::issued`), advances the warp's clock past `me` as
    /// the dispatcher would, and goes on there (storing what is live out of `me` first, unless
    /// the block is chained to `me` and keeps the cached values). Otherwise (divergence, a
    /// block outside the region, a wait at an entry pushed before the region, no room, a push
    /// the stack has no room for) stores what is live out of `me` and returns to the dispatcher
    /// with `me` as the last block run.
    pub fn end_member(&mut self, me: &Member<'_>, term: &Terminator, members: &[Member<'_>]) {
        // Only the ways the plan found possible go into the region (a path it rules out, such
        // as a `PT` wait's "no lane waits", leaves instead): a chained block's one way in is
        // then the only edge into its code.
        let find = |b: BlockId| {
            members
                .iter()
                .find(|m| m.id == b && me.next.contains(&b))
                .copied()
        };
        let leave = self.b.create_block();
        // Into block `target` (if in the region) or out.
        let to = |tx: &mut Self, target: BlockId, extra: Option<Value>| match find(target) {
            Some(to) => tx.go(me, &to, extra, leave),
            None => {
                tx.b.ins().jump(leave, &[]);
            }
        };
        match *term {
            Terminator::Jump { target, .. } => to(self, target, None),
            Terminator::Branch {
                cond,
                taken,
                fallthrough,
                ..
            } if cond.cc.is_none() => {
                let (all, none) = self.all_or_none(cond.guard.0);
                let (to_taken, to_fall) = self.either(all, none, leave);
                self.b.switch_to_block(to_taken);
                to(self, taken, None);
                self.b.switch_to_block(to_fall);
                to(self, fallthrough, None);
            }
            Terminator::Push {
                region,
                target,
                next,
                ..
            } if me.pending.len() < MAX_PENDING => {
                // The entry is kept in the code's knowledge: it must fit on the real stack
                // when the function returns (the dispatcher's push faults when it would not).
                let depth_at = offset_of!(JitCx, depth) as i32;
                let depth = self.b.ins().load(types::I32, flags(), self.jcx, depth_at);
                let most = (crate::exec::warp::MAX_STACK - me.pending.len() - 1) as i64;
                let fits = self
                    .b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, depth, most);
                to(self, region.resumes_at(target, next).0, Some(fits));
            }
            Terminator::Wait {
                region, cond, next, ..
            } if cond.cc.is_none() => {
                let (all, none) = self.all_or_none(cond.guard.0);
                let (to_next, to_resume) = self.either(none, all, leave);
                self.b.switch_to_block(to_next);
                to(self, next, None);
                self.b.switch_to_block(to_resume);
                match me.pending.iter().rposition(|e| e.0 == region) {
                    // Every lane waits at an entry pushed inside the region: it (and the
                    // entries above it) pops, and the lanes resume where it says.
                    Some(i) => to(self, me.pending[i].1, None),
                    None => {
                        self.b.ins().jump(leave, &[]);
                    }
                }
            }
            // The dispatcher carries out the rest: a CC test, a push past the entries the
            // region keeps, a BRX (its lanes may split), an exit, a barrier.
            Terminator::Branch { .. }
            | Terminator::Push { .. }
            | Terminator::Wait { .. }
            | Terminator::Brx { .. }
            | Terminator::Exit { .. }
            | Terminator::Barrier { .. } => {
                self.b.ins().jump(leave, &[]);
            }
        }
        self.b.switch_to_block(leave);
        self.flush(false);
        let id = self.iconst(me.id);
        let at = offset_of!(JitCx, last) as i32;
        self.b.ins().store(flags(), id, self.jcx, at);
        let z = self.iconst(0);
        self.b.ins().return_(&[z]);
        self.ended = true;
    }

    /// Ends the current CLIF block: to a new block when `first` holds, else to another when
    /// `second` holds, else to `leave`. Returns the two new blocks.
    fn either(
        &mut self,
        first: Value,
        second: Value,
        leave: cranelift_codegen::ir::Block,
    ) -> (cranelift_codegen::ir::Block, cranelift_codegen::ir::Block) {
        let (a, not_a, b) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().brif(first, a, &[], not_a, &[]);
        self.b.switch_to_block(not_a);
        self.b.ins().brif(second, b, &[], leave, &[]);
        (a, b)
    }

    /// Whether predicate `p` holds for every active lane, and for none.
    fn all_or_none(&mut self, p: PredSrc) -> (Value, Value) {
        let v = self.pred_src(p);
        let t = self.b.ins().band(self.active, v);
        let all = self.b.ins().icmp(IntCC::Equal, t, self.active);
        let none = self.b.ins().icmp_imm_u(IntCC::Equal, t, 0);
        (all, none)
    }

    /// From the end of region block `from` into region block `to`, if the room holds it and
    /// `extra` (if any) is true (else to `leave`).
    fn go(
        &mut self,
        from: &Member<'_>,
        to: &Member<'_>,
        extra: Option<Value>,
        leave: cranelift_codegen::ir::Block,
    ) {
        let room_at = offset_of!(JitCx, room) as i32;
        let room = self.b.ins().load(types::I64, flags(), self.jcx, room_at);
        let fits =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, room, to.total as i64);
        let fits = match extra {
            Some(x) => self.b.ins().band(fits, x),
            None => fits,
        };
        let next = self.b.create_block();
        self.b.ins().brif(fits, next, &[], leave, &[]);
        self.b.switch_to_block(next);
        let room = self.b.ins().iadd_imm_u(room, -(to.total as i64));
        self.b.ins().store(flags(), room, self.jcx, room_at);
        for (at, by) in [
            (offset_of!(JitCx, runs), 1),
            (offset_of!(JitCx, issued), to.total as i64),
        ] {
            let n = self.b.ins().load(types::I64, flags(), self.jcx, at as i32);
            let n = self.b.ins().iadd_imm_u(n, by);
            self.b.ins().store(flags(), n, self.jcx, at as i32);
        }
        let clock_at = offset_of!(WarpState, clock) as i32;
        let c = self.b.ins().load(types::I64, flags(), self.w, clock_at);
        let c = self.b.ins().iadd_imm_u(c, from.total as i64);
        self.b.ins().store(flags(), c, self.w, clock_at);
        if to.chained {
            self.b.ins().jump(to.at, &[]);
            return;
        }
        // `to` starts with its carried registers as parameters and nothing else cached: the
        // other values live out of `from` go to the warp state.
        let args = self.edge_args(to);
        self.flush_except(false, to.carried);
        self.b.ins().jump(to.at, &args);
    }

    /// Inline lowering; false when the instruction must be delegated.
    fn lower(&mut self, inst: &Inst) -> bool {
        // Constant operands that would fault are delegated (the interpreter raises the fault).
        if bad_const(inst) {
            return false;
        }
        let lowered = self.lower_op(inst);
        self.declined += !lowered as u32;
        lowered
    }

    /// Numbers the next instructions that use a segment hint from `k` (the program-wide index
    /// of the first of them: `ProgCode::hint_at`).
    pub fn first_hint(&mut self, k: usize) {
        self.mem_ops = k;
    }

    /// Whether `inst` may run in a strip loop ([`Tx::strip_run`]): its op's line of the
    /// lowering table says so, and it can neither fault nor be delegated.
    pub fn strippable(inst: &Inst) -> bool {
        op_strip(&inst.op) && !bad_const(inst) && !inst.effects().can_fault
    }

    /// Translates `run` (instructions each [`Tx::strippable`], with what is live after and
    /// uniform around each, as [`Tx::inst`] takes them) as one loop over the warp's eight
    /// chunks of four lanes: the code of each instruction is emitted once, for one vector,
    /// instead of once per vector. Lane-wise instructions give every lane the same result run
    /// chunk by chunk as run instruction by instruction.
    ///
    /// Registers, predicates, flags and the LEA.LO word the run reads or writes go through
    /// the warp state: dirty cached ones are stored first, each chunk loads what it reads and
    /// stores what it wrote that is live after the run, and afterwards the cache forgets what
    /// the run wrote. A predicate or flag is a lane mask: each chunk merges its four bits into
    /// the stored word.
    pub fn strip_run(
        &mut self,
        run: &[(
            &Inst,
            crate::analysis::LiveSet,
            crate::analysis::uniformity::UniformSet,
        )],
    ) {
        use crate::analysis::LiveSet;
        let (mut touched, mut written) = (LiveSet::EMPTY, LiveSet::EMPTY);
        for (inst, _, _) in run {
            let (t, w) = touched_by(inst);
            touched.union_with(&t);
            written.union_with(&w);
        }
        let live_after = run.last().map_or(LiveSet::EMPTY, |r| r.1);
        // Make the warp state current for what the run touches.
        self.store_dirty(&touched, true);
        let outer = self.cached();
        let active = self.active;
        // The loop: chunk index i in 0..8.
        let head = self.b.create_block();
        let i = self.b.append_block_param(head, types::I32);
        let exit = self.b.create_block();
        let zero = self.iconst(0);
        self.b.ins().jump(head, &[zero.into()]);
        self.b.switch_to_block(head);
        let off = self.b.ins().ishl_imm_u(i, 4);
        let off = self.b.ins().uextend(self.env.ptr, off);
        let at = self.b.ins().iadd(self.w, off);
        let shift = self.b.ins().ishl_imm_u(i, 2);
        let nibble = self.iconst(0xf);
        let chunk = self.b.ins().ishl(nibble, shift);
        let one_each = self.vconst([1, 2, 4, 8]);
        let bits = self.b.ins().ishl(one_each, shift);
        self.strip = Some(Strip {
            at,
            shift,
            chunk,
            bits,
        });
        self.active = if self.full {
            chunk
        } else {
            self.b.ins().band(active, chunk)
        };
        self.regs.clear();
        self.deferred.clear();
        self.preds = [None; 7];
        self.cc = [None; 4];
        self.lea = None;
        self.lane_bits = None;
        self.mask_vecs.clear();
        for (inst, after, uniform) in run {
            self.inst(inst, after, uniform);
        }
        // Each chunk stores what it wrote that is live after the run.
        self.store_dirty(&live_after, true);
        let next = self.b.ins().iadd_imm_u(i, 1);
        let more = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, next, 8);
        self.b.ins().brif(more, head, &[next.into()], exit, &[]);
        self.b.switch_to_block(exit);
        self.strip = None;
        self.active = active;
        self.restore(outer);
        // Forget what the run wrote: the warp state holds it now.
        self.regs.retain(|r, _| !written.has_reg(Reg(*r)));
        self.deferred.retain(|r, _| !written.has_reg(Reg(*r)));
        for p in 0..7 {
            if written.has_pred(Pred(p as u8)) {
                self.preds[p] = None;
            }
        }
        for f in 0..4 {
            if written.has_flag(f) {
                self.cc[f] = None;
            }
        }
        if written.lea_lo {
            self.lea = None;
        }
    }

    /// Stores the dirty cached values in `set` (registers, predicates, flags, LEA.LO); with
    /// `clean`, they stay cached as clean (only where no other path joins this one with them
    /// still dirty).
    fn store_dirty(&mut self, set: &crate::analysis::LiveSet, clean: bool) {
        let regs = self.dirty_rows(&|_, r| set.has_reg(Reg(r)), false);
        for (r, row) in regs {
            self.store_reg_row(r, &row);
            if clean {
                self.put_row(r, row, false);
            }
        }
        for p in 0..7 {
            if let Some((v, true)) = self.preds[p] {
                if set.has_pred(Pred(p as u8)) {
                    self.store_mask(v, offset_of!(WarpState, preds) as i32 + 4 * p as i32);
                    if clean {
                        self.preds[p] = Some((v, false));
                    }
                }
            }
        }
        for f in 0..4 {
            if let Some((v, true)) = self.cc[f] {
                if set.has_flag(f) {
                    self.store_mask(v, offset_of!(WarpState, cc) as i32 + 4 * f as i32);
                    if clean {
                        self.cc[f] = Some((v, false));
                    }
                }
            }
        }
        if let Some((row, true)) = self.lea {
            if set.lea_lo {
                self.store_lea_row(&row);
                if clean {
                    self.lea = Some((row, false));
                }
            }
        }
    }

    /// Ends the function: store live-out state, return 0; the fault exit returns 1. Returns
    /// the instructions an op's `Lower` impl declined ([`Tx::declined`]).
    pub fn finish(mut self) -> u32 {
        if !self.ended {
            self.flush(false);
            if self.env.more && self.index > 0 {
                let at = offset_of!(WarpState, clock) as i32;
                let c = self.b.ins().load(types::I64, flags(), self.w, at);
                let c = self.b.ins().iadd_imm_u(c, self.index as i64);
                self.b.ins().store(flags(), c, self.w, at);
            }
            let z = self.iconst(0);
            self.b.ins().return_(&[z]);
        }
        self.b.switch_to_block(self.fault_block);
        let one = self.b.ins().iconst(types::I32, 1);
        self.b.ins().return_(&[one]);
        self.b.seal_all_blocks();
        self.declined
    }
}
