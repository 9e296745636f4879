//! Edge statements: global accesses of mixed sizes at segment ends and starts, loops walking
//! toward and off them, at address 0 and at the top of the 64-bit space.

use super::Gen;
use crate::ir::*;
use crate::testgen::layout::*;

/// How a group of edge accesses computes its address: `c[0x0][param] + rel (+/-) (cnt << sh)`,
/// plus a per-lane term, with `offset` in the instruction.
#[derive(Clone, Copy)]
struct Walk {
    param: u16,
    wide: bool,
    sh: u8,
    down: bool,
    rel: i32,
    offset: i32,
    lane: Option<(Reg, u8)>,
}

/// An address the edge statements aim at: a segment's end or start, as an offset from a base
/// in `c[0x0]`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Target {
    /// `c[0x0]` offset of the 64-bit base.
    param: u16,
    /// The address, relative to the base.
    at: i32,
    /// Only 64-bit (`.E`) addresses reach it.
    wide: bool,
}

impl Gen<'_, '_> {
    /// A segment end or start for the edge statements. Weighted toward segments whose size is
    /// not a multiple of 16, address 0 (below it a 64-bit address wraps to the top of the space)
    /// and the top of the space (2^64 - 12, the end of [`TOP`], and 2^64 itself, past which an
    /// address wraps to 0).
    fn edge_target(&mut self) -> Target {
        let t = |param, at: u64, wide| Target {
            param,
            at: at as i32,
            wide,
        };
        let ts = [
            t(P_SEG1, SEG1_SIZE, false),
            t(P_SEG1, SEG1_SIZE + SEG2_SIZE, false),
            t(P_ODD, self.odd_size, false),
            t(P_ODD, 0, false),
            t(P_ZERO, ZERO_SIZE, false),
            t(P_ZERO, 0, false),
            t(P_TOP, TOP_SIZE, true),
            t(P_TOP, 0x1000, true),
            t(P_HIGH, HIGH_SIZE, true),
        ];
        ts[self.weighted(&[12, 8, 20, 4, 10, 14, 14, 10, 4])]
    }

    /// Accesses of mixed sizes around a segment end or start ([`Gen::edge_target`]): a loop
    /// walking toward and off it, or one group of accesses (sometimes more than 16 in one
    /// block, so that the JIT's per-position hint slots wrap around).
    pub(super) fn edge(&mut self, depth: u32) {
        let t = self.edge_target();
        if self.loop_depth < 2 && self.chance(70) {
            self.walk(t, depth);
        } else {
            let n = if self.chance(15) {
                self.range(17, 20)
            } else {
                self.range(1, 4)
            };
            let w = self.geometry(t, None);
            self.edge_part(w, None, n, None);
        }
    }

    /// A counted loop (2 to 12 iterations) whose body is 1 to 4 groups of accesses near `t`
    /// (sometimes near another target), mostly moving together with the iteration. Groups
    /// after the first often start a block of their own (skipped in some iterations or for
    /// some lanes), and their first access has another size than the previous group's: the
    /// first access of each block uses the same JIT hint slot.
    fn walk(&mut self, t: Target, depth: u32) {
        let cnt = Reg(20 + 2 * self.loop_depth);
        self.loop_depth += 1;
        let n = self.range(2, 12);
        let l_top = self.new_label();
        self.emit(format!("MOV {cnt}, RZ"));
        self.place(&l_top);
        let parts = self.range(1, 4);
        let shared = self.geometry(t, Some(n));
        let mut prev = None;
        for k in 0..parts {
            let skip = k > 0 && self.chance(75);
            let l_skip = self.new_label();
            if skip {
                let p = Pred(self.below(7) as u8);
                if self.chance(70) {
                    let m = self.below(n);
                    let cmp = self.pick(&["LT", "GE", "EQ", "NE"]);
                    self.emit(format!("ISETP.{cmp}.AND {p}, PT, {cnt}, {m:#x}, PT"));
                } else {
                    self.cond(p);
                }
                let l = self.target(&l_skip);
                self.emit(format!("@{p} BRA {l}"));
            }
            let w = match self.weighted(&[70, 15, 15]) {
                0 => shared,
                1 => self.geometry(t, Some(n)),
                _ => {
                    let t = self.edge_target();
                    self.geometry(t, Some(n))
                }
            };
            let accesses = if self.chance(8) {
                self.range(17, 20)
            } else {
                self.range(1, 3)
            };
            prev = Some(self.edge_part(w, Some(cnt), accesses, prev));
            if skip {
                self.place(&l_skip);
            }
            if self.chance(15) {
                self.stmts(1, depth + 1);
            }
        }
        let p = Pred(self.below(7) as u8);
        self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
        self.emit(format!("ISETP.LT.AND {p}, PT, {cnt}, {n:#x}, PT"));
        let l = self.target(&l_top);
        self.emit(format!("@{p} BRA {l}"));
        self.loop_depth -= 1;
    }

    /// How a group of accesses addresses `t`: with a loop of `n` iterations the address moves
    /// by `1 << k` bytes per iteration, up or down, and crosses `t` in some iteration (or
    /// none); the lanes' addresses are the same, consecutive words (the JIT's whole-warp path),
    /// or spread by another stride.
    fn geometry(&mut self, t: Target, n: Option<u32>) -> Walk {
        let wide = t.wide || self.chance(60);
        let (sh, down, cross) = match n {
            // Down toward segment starts (below 0 wraps to the top of the space), mostly up
            // toward ends.
            Some(n) => (
                self.pick(&[0u8, 1, 2, 2, 3, 3, 4, 4]),
                self.chance(if t.at == 0 { 75 } else { 15 }),
                self.below(n + 1) as i32,
            ),
            None => (0, false, 0),
        };
        let step = 1i32 << sh;
        let d = self.below(33) as i32 - 24;
        let rel = t.at + d + if down { cross * step } else { -cross * step };
        let mut o: i32 = match self.weighted(&[60, 25, 15]) {
            0 => 0,
            1 => self.below(65) as i32 - 32,
            _ => self.below(0x8_0000) as i32 - 0x4_0000,
        };
        if !(-0x8_0000..0x8_0000).contains(&(rel - o)) {
            o = 0;
        }
        // The lane id scaled by 8 or 16 makes the 64- and 128-bit whole-warp shape (the first
        // access then mostly has that size).
        let lane = match self.weighted(&[44, 16, 10, 6, 8, 8, 8]) {
            0 => None,
            1 => Some((Reg(27), 2)),
            2 => Some((Reg(27), self.below(5) as u8)),
            3 => Some((Reg(27), 0)),
            4 => Some((Reg(25), 2)),
            5 => Some((Reg(27), 3)),
            _ => Some((Reg(27), 4)),
        };
        Walk {
            param: t.param,
            wide,
            sh,
            down,
            rel: rel - o,
            offset: o,
            lane,
        }
    }

    /// Sets `R16` (and `R17`) to the address `w` gives for iteration `cnt` (0 without a loop)
    /// and makes `accesses` LDG/STG/LD/ST of random sizes at small offsets from it; the first
    /// is mostly larger than `prev`. Returns the first access's size.
    fn edge_part(
        &mut self,
        w: Walk,
        cnt: Option<Reg>,
        accesses: u32,
        prev: Option<MemSize>,
    ) -> MemSize {
        let r19 = Reg(19);
        match cnt {
            Some(c) => self.op0(Iscadd {
                d: r19,
                cc: false,
                po: false,
                neg_a: w.down,
                a: c,
                neg_b: false,
                b: Src::Imm(w.rel as u32),
                shift: w.sh,
            }),
            None => self.emit(format!("MOV32I R19, {:#x}", w.rel as u32)),
        }
        if let Some((r, s)) = w.lane {
            self.emit(format!("ISCADD R19, {r}, R19, {s:#x}"));
        }
        let p = w.param;
        if w.wide {
            self.emit("SHR R18, R19, 0x1f");
            self.emit(format!("IADD R16.CC, R19, c[0x0][{p:#x}]"));
            self.emit(format!("IADD.X R17, R18, c[0x0][{:#x}]", p + 4));
        } else {
            self.emit(format!("IADD R16, R19, c[0x0][{p:#x}]"));
        }
        let mut first = MemSize::B32;
        for j in 0..accesses {
            let mut size = self.mem_size(true);
            if let (0, Some(prev)) = (j, prev) {
                // Mostly larger than the previous group's first access: a larger access
                // checked against a smaller one's bound is what goes wrong.
                if size == prev || self.chance(60) {
                    let other = self.mem_size(true);
                    if other.bytes() > size.bytes() || size == prev {
                        size = other;
                    }
                }
            }
            if let (0, Some((_, sh @ 3..=4))) = (j, w.lane) {
                if self.chance(70) {
                    size = if sh == 3 { MemSize::B64 } else { MemSize::B128 };
                }
            }
            if j == 0 {
                first = size;
            }
            let offset = if j == 0 {
                w.offset
            } else {
                w.offset + self.below(25) as i32 - 16
            };
            let addr = Addr {
                base: Some(Reg(16)),
                offset,
            };
            let g = if self.chance(85) {
                Guard::ALWAYS
            } else {
                self.guard()
            };
            let e = w.wide;
            let op: Op = match self.weighted(&[40, 35, 15, 10]) {
                0 => Ldg {
                    d: self.load_dst(size.regs()),
                    e,
                    cop: CacheOp::Default,
                    size,
                    ps: None,
                    addr,
                }
                .into(),
                1 => Stg {
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    v: self.src_wide(size.regs()),
                }
                .into(),
                2 => Ld {
                    d: self.load_dst(size.regs()),
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    steer: PredSrc::TRUE,
                }
                .into(),
                _ => St {
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    v: self.src_wide(size.regs()),
                    steer: PredSrc::TRUE,
                }
                .into(),
            };
            self.op(g, op);
        }
        first
    }
}
