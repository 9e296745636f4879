//! The inline fast paths of `LdBuf` and `LdTex`: the binding found at run time in the view
//! table (`jit::views`), then one compiled loop over the 32 lanes that computes each lane's
//! byte address with exact 64-bit arithmetic, checks it against the binding exactly as the
//! interpreter does, and loads the words (an out-of-range lane reads the zero words of
//! `JitCx::zero`). A texel's words are then converted in vector code. Where the table sends
//! compiled code to the routine (unbound slot, a format the fast path does not convert, a run
//! under `--check`), a cold block calls the shared routine with the same stack area instead.
//!
//! Both paths leave component `c`'s row in the area's `vals[c]`, so the join has no block
//! parameters and the lowering reads the rows back after it. The loop is a real CLIF loop,
//! not 32 unrolled copies: a few dozen CLIF instructions per op whatever the lane count.

use super::super::super::abi::JitCx;
use super::super::super::view::{TexArea, ViewArea};
use super::super::super::views::{ViewDesc, ViewTable};
use super::super::{Row, Tx, V};
use crate::ir::View;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, Endianness, FuncRef, InstBuilder, MemFlagsData, Value,
};
use std::mem::offset_of;

/// Stack areas and the table: always valid and aligned.
fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Resource storage: valid (the address was checked or is `JitCx::zero`), not known aligned.
fn guest() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// The fast path of a split: emits its code (ending in the block where it is done).
pub(in crate::jit::codegen) type FastPath<'f> = dyn FnMut(&mut Tx<'_, '_, '_>) + 'f;

impl Tx<'_, '_, '_> {
    /// The run's view table (`JitCx::views`).
    fn view_table(&mut self) -> Value {
        self.b.ins().load(
            self.env.ptr,
            trusted(),
            self.jcx,
            offset_of!(JitCx, views) as i32,
        )
    }

    /// Loads a 32-bit field of a [`ViewDesc`] at `desc`, zero-extended to 64 bits with `wide`.
    fn desc_u32(&mut self, desc: Value, at: usize, wide: bool) -> Value {
        let f = trusted();
        if wide {
            self.b.ins().uload32(f, desc, at as i32)
        } else {
            self.b.ins().load(types::I32, f, desc, at as i32)
        }
    }

    /// The binding a buffer load of `view` reads, at run time: (take the fast path, the
    /// storage's host address, its length in bytes). `t#`/`u#` from the view table (a
    /// [`ViewDesc::BUFFER`] entry); `g#` from the CTA's shared memory, the fast path unless
    /// the run is under `--check` (a word is read where it lies inside both the declared size
    /// and shared memory, as the interpreter reads it). `None`: other views always take the
    /// routine.
    pub(in crate::jit::codegen) fn buffer_binding(
        &mut self,
        view: View,
    ) -> Option<(Value, Value, Value)> {
        let f = trusted();
        match view {
            View::Srv(s) | View::Uav(s) => {
                let t = self.view_table();
                let at = ViewTable::offset_of(s, matches!(view, View::Uav(_)));
                let desc = self.b.ins().iadd_imm_s(t, at as i64);
                let kind = self.desc_u32(desc, offset_of!(ViewDesc, kind), false);
                let ok = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::Equal, kind, ViewDesc::BUFFER as i64);
                let base =
                    self.b
                        .ins()
                        .load(types::I64, f, desc, offset_of!(ViewDesc, base) as i32);
                let len = self
                    .b
                    .ins()
                    .load(types::I64, f, desc, offset_of!(ViewDesc, len) as i32);
                Some((ok, base, len))
            }
            View::Tgsm { base, size } => {
                let t = self.view_table();
                let check = self.desc_u32(t, offset_of!(ViewTable, check), false);
                let ok = self.b.ins().icmp_imm_s(IntCC::Equal, check, 0);
                let jcx = self.jcx;
                let shared =
                    self.b
                        .ins()
                        .load(types::I64, f, jcx, offset_of!(JitCx, shared) as i32);
                let shared_len =
                    self.b
                        .ins()
                        .load(types::I64, f, jcx, offset_of!(JitCx, shared_len) as i32);
                let host = self.b.ins().iadd_imm_s(shared, base as i64);
                // Bytes of shared memory from `base` on (none when it starts past the end).
                let inside = self.b.ins().icmp_imm_s(
                    IntCC::UnsignedGreaterThanOrEqual,
                    shared_len,
                    base as i64,
                );
                let room = self.b.ins().iadd_imm_s(shared_len, -(base as i64));
                let none = self.b.ins().iconst(types::I64, 0);
                let room = self.b.ins().select(inside, room, none);
                let size = self.b.ins().iconst(types::I64, size as i64);
                let len = self.b.ins().umin(room, size);
                Some((ok, host, len))
            }
            _ => None,
        }
    }

    /// The table entry a texture load of `view` reads: (take the fast path, the entry's
    /// address). The fast path needs a [`ViewDesc::TEX_WORDS`] or [`ViewDesc::TEX_UNORM8`]
    /// entry.
    pub(in crate::jit::codegen) fn texture_binding(
        &mut self,
        view: View,
    ) -> Option<(Value, Value)> {
        let (s, uav) = match view {
            View::Srv(s) => (s, false),
            View::Uav(s) => (s, true),
            _ => return None,
        };
        let t = self.view_table();
        let desc = self
            .b
            .ins()
            .iadd_imm_s(t, ViewTable::offset_of(s, uav) as i64);
        let kind = self.desc_u32(desc, offset_of!(ViewDesc, kind), false);
        let ok = self.b.ins().icmp_imm_s(
            IntCC::UnsignedGreaterThanOrEqual,
            kind,
            ViewDesc::TEX_WORDS as i64,
        );
        Some((ok, desc))
    }

    /// Calls view routine `f` on the op at `op` for the lanes of `m` with the area at `area`.
    pub(in crate::jit::codegen) fn view_call(
        &mut self,
        f: FuncRef,
        op: *const u8,
        m: Value,
        area: Value,
    ) {
        let op = self.b.ins().iconst(self.env.ptr, op as i64);
        self.b.ins().call(f, &[self.jcx, op, m, area]);
    }

    /// `if ok { fast } else { routine f }`, the routine's block cold (it first stores each
    /// `(at, row)` of `slow_rows` into the area: operands only the routine reads); both paths
    /// continue in one join block with no parameters (they leave their results in the area).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::codegen) fn split_view(
        &mut self,
        ok: Value,
        f: FuncRef,
        op: *const u8,
        m: Value,
        area: Value,
        slow_rows: &[(usize, Row)],
        fast: &mut FastPath<'_>,
    ) {
        let fast_b = self.b.create_block();
        let slow_b = self.b.create_block();
        let join = self.b.create_block();
        self.b.set_cold_block(slow_b);
        self.b.ins().brif(ok, fast_b, &[], slow_b, &[]);
        // Lane-mask vectors first built inside one path do not dominate the join.
        let saved = (self.lane_bits, self.mask_vecs.clone());
        self.b.switch_to_block(fast_b);
        fast(self);
        self.b.ins().jump(join, &[]);
        (self.lane_bits, self.mask_vecs) = saved.clone();
        self.b.switch_to_block(slow_b);
        for (at, row) in slow_rows {
            self.store_row(area, *at, row);
        }
        self.view_call(f, op, m, area);
        self.b.ins().jump(join, &[]);
        (self.lane_bits, self.mask_vecs) = saved;
        self.b.switch_to_block(join);
    }

    /// Emits `for l in 0..32 { body(byte offset 4 * l of the lane's word in a row) }` and
    /// continues after it.
    fn lane_loop(&mut self, body: &mut dyn FnMut(&mut Self, Value)) {
        self.counted_loop(4, body)
    }

    /// Emits `for at in (0..128).step_by(step) { body(at) }` (`at` an `i64`) and continues after
    /// it; `body` may end in another block than it started in.
    fn counted_loop(&mut self, step: i64, body: &mut dyn FnMut(&mut Self, Value)) {
        let head = self.b.create_block();
        let exit = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let l = self.b.block_params(head)[0];
        body(self, l);
        let next = self.b.ins().iadd_imm_s(l, step);
        let more = self.b.ins().icmp_imm_s(IntCC::UnsignedLessThan, next, 128);
        self.b
            .ins()
            .brif(more, head, &[BlockArg::Value(next)], exit, &[]);
        self.b.switch_to_block(exit);
    }

    /// The fast path of a buffer load from the storage at `base` of `len` bytes: per lane and
    /// per `(c, k)` of `comps`, the word at `(stride * index + offset + 4k) & !3` when its four
    /// bytes lie inside the storage, else 0, into the area's `vals[c]` ([`ViewArea`]). The
    /// offset is `imm` for every lane when given (its row is then not read from the area).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::codegen) fn buffer_loop(
        &mut self,
        area: Value,
        base: Value,
        len: Value,
        stride: u32,
        imm: Option<u32>,
        comps: &[(usize, u32)],
    ) {
        let zero = self
            .b
            .ins()
            .iadd_imm_s(self.jcx, offset_of!(JitCx, zero) as i64);
        self.lane_loop(&mut |tx, l| {
            let f = trusted();
            let p = tx.b.ins().iadd(area, l);
            let index = tx.b.ins().uload32(f, p, offset_of!(ViewArea, index) as i32);
            // At most (2^32 - 1)^2 + 2^32 + 16: no 64-bit wrap.
            let scaled = tx.b.ins().imul_imm_u(index, stride as i64);
            let (a0, fold) = match imm {
                Some(v) => (scaled, v as i64),
                None => {
                    let at = offset_of!(ViewArea, offset) as i32;
                    let offset = tx.b.ins().uload32(f, p, at);
                    (tx.b.ins().iadd(scaled, offset), 0)
                }
            };
            for &(c, k) in comps {
                let a = tx.b.ins().iadd_imm_s(a0, fold + 4 * k as i64);
                let a = tx.b.ins().band_imm_s(a, !3);
                let end = tx.b.ins().iadd_imm_s(a, 4);
                let inside = tx.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, len);
                let host = tx.b.ins().iadd(base, a);
                let ptr = tx.b.ins().select(inside, host, zero);
                let v = tx.b.ins().load(types::I32, guest(), ptr, 0);
                let at = offset_of!(ViewArea, vals) + 128 * c;
                tx.b.ins().store(f, v, p, at as i32);
            }
        });
    }

    /// The fast path of a texture load through the table entry at `desc` (offsets `off` added
    /// to column and row, wrapping): per lane, the texel at (x, y, slice, sample) of mip level
    /// 0 when every coordinate is in range (the slice and the sample only count for an array
    /// and a multisampled texture), else the zero texel; its first words into the area's
    /// `vals` rows, then per `(c, k)` of `comps` channel `k` converted into `vals[c]`
    /// ([`TexArea`]).
    pub(in crate::jit::codegen) fn texel_loop(
        &mut self,
        area: Value,
        desc: Value,
        off: [i8; 2],
        comps: &[(usize, u32)],
    ) {
        let f = trusted();
        let u32f = |tx: &mut Self, at: usize| tx.desc_u32(desc, at, false);
        let width = u32f(self, offset_of!(ViewDesc, width));
        let height = u32f(self, offset_of!(ViewDesc, height));
        let array = u32f(self, offset_of!(ViewDesc, array));
        let samples = u32f(self, offset_of!(ViewDesc, samples));
        let slice_mask = u32f(self, offset_of!(ViewDesc, slice_mask));
        let sample_mask = u32f(self, offset_of!(ViewDesc, sample_mask));
        let words = u32f(self, offset_of!(ViewDesc, words));
        let texel = self.desc_u32(desc, offset_of!(ViewDesc, texel), true);
        let column = self.desc_u32(desc, offset_of!(ViewDesc, column), true);
        let ld64 = |tx: &mut Self, at: usize| tx.b.ins().load(types::I64, f, desc, at as i32);
        let row_pitch = ld64(self, offset_of!(ViewDesc, row));
        let slice_pitch = ld64(self, offset_of!(ViewDesc, slice));
        let base = ld64(self, offset_of!(ViewDesc, base));
        let zero = self
            .b
            .ins()
            .iadd_imm_s(self.jcx, offset_of!(JitCx, zero) as i64);
        // Words 0..n of the texel are fetched, those below `words` (word 0 always: every
        // texel has one); the conversion reads no word at or past `words`.
        let n = comps.iter().map(|&(_, k)| k + 1).max().unwrap_or(1);
        let more_words = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, words, 1);
        let has: Vec<Value> = (0..n)
            .map(|j| {
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedGreaterThan, words, j as i64)
            })
            .collect();
        let coords = offset_of!(TexArea, coords);
        let vals = offset_of!(TexArea, vals);
        self.lane_loop(&mut |tx, l| {
            let p = tx.b.ins().iadd(area, l);
            let mut coord = |k: usize| tx.b.ins().load(types::I32, f, p, (coords + 128 * k) as i32);
            let (x, y, s, q, mip) = (coord(0), coord(1), coord(2), coord(3), coord(4));
            let x = tx.b.ins().iadd_imm_s(x, off[0] as i64);
            let y = tx.b.ins().iadd_imm_s(y, off[1] as i64);
            let s = tx.b.ins().band(s, slice_mask);
            let q = tx.b.ins().band(q, sample_mask);
            let lt = IntCC::UnsignedLessThan;
            let mut inside = tx.b.ins().icmp_imm_s(IntCC::Equal, mip, 0);
            for (v, bound) in [(x, width), (y, height), (s, array), (q, samples)] {
                let c = tx.b.ins().icmp(lt, v, bound);
                inside = tx.b.ins().band(inside, c);
            }
            let mut addr = base;
            for (v, pitch) in [(s, slice_pitch), (y, row_pitch), (x, column), (q, texel)] {
                let v = tx.b.ins().uextend(types::I64, v);
                let t = tx.b.ins().imul(v, pitch);
                addr = tx.b.ins().iadd(addr, t);
            }
            let fetch = |tx: &mut Self, j: u32| {
                let ok = if j == 0 {
                    inside
                } else {
                    tx.b.ins().band(inside, has[j as usize])
                };
                let host = tx.b.ins().iadd_imm_s(addr, 4 * j as i64);
                let ptr = tx.b.ins().select(ok, host, zero);
                let v = tx.b.ins().load(types::I32, guest(), ptr, 0);
                tx.b.ins().store(f, v, p, (vals + 128 * j as usize) as i32);
            };
            fetch(tx, 0);
            if n > 1 {
                let extra = tx.b.create_block();
                let latch = tx.b.create_block();
                tx.b.ins().brif(more_words, extra, &[], latch, &[]);
                tx.b.switch_to_block(extra);
                for j in 1..n {
                    fetch(tx, j);
                }
                tx.b.ins().jump(latch, &[]);
                tx.b.switch_to_block(latch);
            }
        });
        // The conversion, by the entry's kind, 16 bytes (four lanes) of every row at a time.
        let kind = self.desc_u32(desc, offset_of!(ViewDesc, kind), false);
        let unorm8 = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, kind, ViewDesc::TEX_UNORM8 as i64);
        let words_b = self.b.create_block();
        let unorm_b = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(unorm8, unorm_b, &[], words_b, &[]);
        let fill = |tx: &mut Self, k: u32| {
            tx.desc_u32(desc, offset_of!(ViewDesc, fill) + 4 * k as usize, false)
        };

        // Words in channel order: channel k is word k, or the format's default (`fill[k]`)
        // where it lacks the channel (word k not fetched). All the rows' 16 bytes are read
        // before any is written.
        self.b.switch_to_block(words_b);
        let per_comp: Vec<(usize, u32, Value, Value)> = comps
            .iter()
            .map(|&(c, k)| {
                let fill = fill(self, k);
                let fill = self.b.ins().splat(V, fill);
                (c, k, has[k as usize], fill)
            })
            .collect();
        self.counted_loop(16, &mut |tx, at| {
            let p = tx.b.ins().iadd(area, at);
            let got: Vec<Value> = per_comp
                .iter()
                .map(|&(_, k, has, fill)| {
                    let w = tx.b.ins().load(V, f, p, (vals + 128 * k as usize) as i32);
                    tx.b.ins().select(has, w, fill)
                })
                .collect();
            for (&(c, ..), v) in per_comp.iter().zip(got) {
                tx.b.ins().store(f, v, p, (vals + 128 * c) as i32);
            }
        });
        self.b.ins().jump(done, &[]);

        // Four 8-bit UNORM codes in word 0: channel k's code at bit `fill[k]`, as the f32
        // nearest to code / 255 (`unorm_to_f32`: an exact integer conversion, then one
        // correctly rounded division, as there).
        self.b.switch_to_block(unorm_b);
        let le = MemFlagsData::new().with_endianness(Endianness::Little);
        let d = self.b.ins().f32const(255.0);
        let d = self.b.ins().splat(types::F32X4, d);
        let ff = self.b.ins().iconst(types::I32, 0xff);
        let ff = self.b.ins().splat(V, ff);
        let shifts: Vec<(usize, Value)> = comps.iter().map(|&(c, k)| (c, fill(self, k))).collect();
        self.counted_loop(16, &mut |tx, at| {
            let p = tx.b.ins().iadd(area, at);
            let w = tx.b.ins().load(V, f, p, vals as i32);
            for &(c, shift) in &shifts {
                let code = tx.b.ins().ushr(w, shift);
                let code = tx.b.ins().band(code, ff);
                let x = tx.b.ins().fcvt_from_sint(types::F32X4, code);
                let q = tx.b.ins().fdiv(x, d);
                let v = tx.b.ins().bitcast(V, le, q);
                tx.b.ins().store(f, v, p, (vals + 128 * c) as i32);
            }
        });
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }
}
