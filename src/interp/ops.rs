//! The meaning of every op: one `Exec` implementation per op of the table, expanded into the
//! dispatcher by `for_each_op!`. This file is the specification in code (docs/semantics.md §12–§23).

use super::lanes::*;
use crate::ir::*;
use warpjit_runtime::helpers::window_detect;
use warpjit_runtime::memory::{load_sized, load_u32, store_sized, store_u32, Access};
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{ConstBanks, FaultKind, GlobalMemory, WarpState, LANES, SHARED_WINDOW_SIZE};

/// A fault raised by one lane of an op (the engine adds launch, CTA, warp and pc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneFault {
    /// What went wrong.
    pub kind: FaultKind,
    /// The lowest faulting lane.
    pub lane: u32,
}

/// Everything an op may touch besides the warp's registers.
pub struct Cx<'a> {
    /// Global memory.
    pub mem: &'a GlobalMemory,
    /// Constant banks (launch constants filled in).
    pub consts: &'a ConstBanks,
    /// Banks available in the launch's mode.
    pub nbanks: u32,
    /// The CTA's shared memory.
    pub shared: &'a mut [u8],
    /// Base of the shared window.
    pub shared_window: u64,
    /// Segment-lookup hint.
    pub hint: usize,
    /// `--check`: collect diagnostics.
    pub check: bool,
    /// Diagnostics raised by the current instruction: (lane, message).
    pub diags: Vec<(u32, String)>,
}

impl Cx<'_> {
    fn diag(&mut self, lane: usize, msg: String) {
        if self.check {
            self.diags.push((lane as u32, msg));
        }
    }
}

/// Result of one op.
pub type OpResult = Result<(), LaneFault>;

/// Per-op semantics. `mask` is the set of lanes that execute (active and guard true; non-zero).
pub trait Exec {
    /// Executes the op for the lanes in `mask`.
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult;
}

macro_rules! dispatch {
    ($($v:ident($s:ident),)*) => {
        /// Executes one op (the table's dispatcher).
        #[inline]
        pub fn exec_op(op: &Op, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
            match op {
                $(Op::$v(o) => o.exec(w, mask, cx),)*
            }
        }
    };
}
crate::for_each_op!(dispatch);

fn first_lane(mask: u32) -> u32 {
    mask.trailing_zeros()
}

/// Reads a constant as `LDC` in IA mode with `Ra = RZ` (docs/semantics.md §14, §17), one lane's view.
fn read_const(
    cx: &Cx<'_>,
    bank: u32,
    addr: i64,
    size: u32,
    signed: bool,
) -> Result<[u32; 4], FaultKind> {
    if addr as u64 & (size as u64 - 1) != 0 {
        return Err(FaultKind::MisalignedConstant {
            bank,
            addr: addr as u32,
            size,
        });
    }
    if !(0..0x1_0000).contains(&addr) || bank >= 32 || bank >= cx.nbanks {
        return Ok([0; 4]);
    }
    Ok(cx.consts.read(bank, addr as u32, size, signed))
}

/// The row of a source operand (constants and immediates are uniform).
#[inline(always)]
fn src(w: &WarpState, s: Src, mask: u32, cx: &mut Cx<'_>) -> Result<Row, LaneFault> {
    Ok(match s {
        Src::Reg(r) => w.regs[r.index()],
        Src::Imm(v) => splat(v),
        Src::Const(c) => splat(const_operand(c, mask, cx)?),
    })
}

fn const_operand(c: ConstRef, mask: u32, cx: &mut Cx<'_>) -> Result<u32, LaneFault> {
    let lane = first_lane(mask);
    if cx.check && c.bank as u32 >= cx.nbanks && (c.bank as u32) < 18 {
        cx.diag(
            lane as usize,
            format!(
                "constant bank {} is not available in this launch's mode (reads 0)",
                c.bank
            ),
        );
    }
    read_const(cx, c.bank as u32, c.offset as i64, 4, false)
        .map(|v| v[0])
        .map_err(|kind| LaneFault { kind, lane })
}

#[inline(always)]
fn reg(w: &WarpState, r: Reg) -> Row {
    w.regs[r.index()]
}

/// Writes the four CC flags for `mask` from per-lane 32-bit results and carry/overflow masks.
#[inline(always)]
fn set_cc(w: &mut WarpState, mask: u32, res: &Row, cf: u32, of: u32) {
    let zf = mask_of(|l| res[l] == 0);
    let sf = mask_of(|l| res[l] >> 31 != 0);
    w.set_flag(CF, mask, cf);
    w.set_flag(ZF, mask, zf);
    w.set_flag(SF, mask, sf);
    w.set_flag(OF, mask, of);
}

/// The shared integer add of IADD, IADD32I and ISCADD (docs/semantics.md §21): `a + b + plus` where
/// `plus` collects the +1 of negated operands, the carry in and `.PO`; with `cc`, also the CC.
#[inline(always)]
fn add(w: &mut WarpState, d: Reg, mask: u32, cc: bool, a: &Row, b: &Row, plus: &Row) {
    if cc {
        let (sum, cf, of) = add_row(a, b, plus);
        put(w, d.0, &sum, mask);
        set_cc(w, mask, &sum, cf, of);
    } else {
        let sum = map3(a, b, plus, |a, b, p| a.wrapping_add(b).wrapping_add(p));
        put(w, d.0, &sum, mask);
    }
}

/// `a + b + plus` with carry and signed-overflow lane masks. Returns (sum, cf, of).
#[inline(always)]
fn add_row(a: &Row, b: &Row, plus: &Row) -> (Row, u32, u32) {
    let mut sum = [0u32; LANES];
    let mut cf = 0u32;
    let mut of = 0u32;
    for l in 0..LANES {
        let wide = a[l] as u64 + b[l] as u64 + plus[l] as u64;
        let signed = a[l] as i32 as i64 + b[l] as i32 as i64 + plus[l] as i64;
        sum[l] = wide as u32;
        cf |= ((wide >> 32 != 0) as u32) << l;
        of |= ((signed != signed as i32 as i64) as u32) << l;
    }
    (sum, cf, of)
}

/// The constant part of an add's extra term: one per negated operand (`-b` is `~b + 1`), minus
/// the one that the carry in replaces with `.X`, plus one for `.PO` (docs/semantics.md §21).
pub fn add_ones(negs: u32, x: bool, po: bool) -> u32 {
    negs - (x && negs > 0) as u32 + po as u32
}

/// The +1s and carry of an add with negated operands (`neg` counts them), `.X` and `.PO`:
/// with `.X` the carry in replaces the +1 of one negated operand.
#[inline(always)]
fn plus_row(w: &WarpState, negs: u32, x: bool, po: bool) -> Row {
    let base = add_ones(negs, x, po);
    if x {
        let cf = w.cc[CF];
        let mut p = [0; LANES];
        for (l, v) in p.iter_mut().enumerate() {
            *v = base + (cf >> l & 1);
        }
        p
    } else {
        splat(base)
    }
}

fn not_if(v: Row, neg: bool) -> Row {
    if neg {
        map(&v, |x| !x)
    } else {
        v
    }
}

impl Exec for Mov {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let v = src(w, self.b, mask, cx)?;
        put(w, self.d.0, &v, mask);
        Ok(())
    }
}

impl Exec for Mov32i {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut Cx<'_>) -> OpResult {
        put(w, self.d.0, &splat(self.imm), mask);
        Ok(())
    }
}

impl Exec for S2r {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut Cx<'_>) -> OpResult {
        let v = match self.sr {
            SpecialReg::TidX => w.tid[0],
            SpecialReg::TidY => w.tid[1],
            SpecialReg::TidZ => w.tid[2],
            SpecialReg::CtaidX => splat(w.ctaid[0]),
            SpecialReg::CtaidY => splat(w.ctaid[1]),
            SpecialReg::CtaidZ => splat(w.ctaid[2]),
            SpecialReg::LaneId => std::array::from_fn(|l| l as u32),
        };
        put(w, self.d.0, &v, mask);
        Ok(())
    }
}

impl Exec for Iadd {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let a = not_if(reg(w, self.a), self.neg_a);
        let b = not_if(src(w, self.b, mask, cx)?, self.neg_b);
        let plus = plus_row(w, self.neg_a as u32 + self.neg_b as u32, self.x, self.po);
        add(w, self.d, mask, self.cc, &a, &b, &plus);
        Ok(())
    }
}

impl Exec for Iadd32i {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut Cx<'_>) -> OpResult {
        let a = not_if(reg(w, self.a), self.neg_a);
        let plus = plus_row(w, self.neg_a as u32, self.x, self.po);
        add(w, self.d, mask, self.cc, &a, &splat(self.imm), &plus);
        Ok(())
    }
}

impl Exec for Iscadd {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let s = self.shift as u32;
        let a = not_if(map(&reg(w, self.a), |v| v << s), self.neg_a);
        let b = not_if(src(w, self.b, mask, cx)?, self.neg_b);
        let plus = plus_row(w, self.neg_a as u32 + self.neg_b as u32, false, self.po);
        add(w, self.d, mask, self.cc, &a, &b, &plus);
        Ok(())
    }
}

fn half(v: u32, h: Half) -> u32 {
    match h {
        Half::None => v,
        Half::H0 => v & 0xffff,
        Half::H1 => v >> 16,
    }
}

/// The +1 of each negated IADD3 operand (A, B, C), added in the add that holds the operand;
/// with `.X` the carry in replaces the +1 of the last negated operand (C, then B, then A).
pub fn iadd3_ones(o: &Iadd3) -> [u32; 3] {
    let mut n = [o.a.neg as u32, o.b.neg as u32, o.c.neg as u32];
    if o.x {
        if let Some(k) = (0..3).rev().find(|&k| n[k] == 1) {
            n[k] = 0;
        }
    }
    n
}

impl Exec for Iadd3 {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let ra = reg(w, self.a.src);
        let rb = src(w, self.b.src, mask, cx)?;
        let rc = reg(w, self.c.src);
        let [na, nb, nc] = iadd3_ones(self).map(|n| n as u64);
        let cfin = if self.x { w.cc[CF] } else { 0 };
        let mut res = [0u32; LANES];
        let (mut cf, mut of) = (0u32, 0u32);
        for l in 0..LANES {
            let op = |v: u32, h: Half, neg: bool| {
                let v = half(v, h);
                if neg {
                    !v
                } else {
                    v
                }
            };
            let a = op(ra[l], self.a.half, self.a.neg) as u64;
            let b = op(rb[l], self.b.half, self.b.neg) as u64;
            let c = op(rc[l], self.c.half, self.c.neg) as u64;
            let p = a + b + na + nb;
            of |= ((p >> 32 != 0) as u32) << l;
            let partial = match self.shift {
                Iadd3Shift::None => p as u32 as u64,
                Iadd3Shift::Rs => (p & 0x1_ffff_ffff) >> 16,
                Iadd3Shift::Ls => ((p as u32) << 16) as u64,
            };
            let f = partial + c + nc + (cfin >> l & 1) as u64;
            cf |= ((f >> 32 != 0) as u32) << l;
            res[l] = f as u32;
        }
        put(w, self.d.0, &res, mask);
        if self.cc {
            set_cc(w, mask, &res, cf, of);
        }
        Ok(())
    }
}

impl Exec for Xmad {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let ra = reg(w, self.a);
        let rb = src(w, self.b, mask, cx)?;
        let rc = src(w, self.c, mask, cx)?;
        let sel = |v: u32, h1: bool, signed: bool| {
            let h = if h1 { v >> 16 } else { v & 0xffff };
            if signed {
                h as u16 as i16 as i32 as u32
            } else {
                h
            }
        };
        let mut res = [0u32; LANES];
        let mut cf = 0u32;
        for l in 0..LANES {
            let mut p = sel(ra[l], self.a_h1, self.a_signed).wrapping_mul(sel(
                rb[l],
                self.b_h1,
                self.b_signed,
            ));
            if self.psl {
                p <<= 16;
            }
            let addend = match self.mode {
                XmadMode::None => rc[l],
                XmadMode::Clo => rc[l] & 0xffff,
                XmadMode::Chi => rc[l] >> 16,
                XmadMode::Cbcc => rc[l].wrapping_add(rb[l] << 16),
            };
            let r = p as u64 + addend as u64;
            cf |= ((r >> 32 != 0) as u32) << l;
            res[l] = if self.mrg {
                (r as u32 & 0xffff) | (rb[l] << 16)
            } else {
                r as u32
            };
        }
        put(w, self.d.0, &res, mask);
        if self.cc {
            set_cc(w, mask, &res, cf, 0);
        }
        Ok(())
    }
}

impl Exec for Shl {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let wrap = self.w;
        let r = map2(&reg(w, self.a), &b, |a, s| {
            let s = if wrap { s & 31 } else { s };
            if s >= 32 {
                0
            } else {
                a << s
            }
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Shr {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let (wrap, brev, unsigned) = (self.w, self.brev, self.unsigned);
        let r = map2(&reg(w, self.a), &b, |a, s| {
            let a = if brev { a.reverse_bits() } else { a };
            let s = if wrap { s & 31 } else { s.min(32) };
            if unsigned {
                if s >= 32 {
                    0
                } else {
                    a >> s
                }
            } else {
                ((a as i32) >> s.min(31)) as u32
            }
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

fn lop(func: LopFn, a: u32, b: u32) -> u32 {
    match func {
        LopFn::And => a & b,
        LopFn::Or => a | b,
        LopFn::Xor => a ^ b,
        LopFn::PassB => b,
    }
}

fn pred_out(w: &mut WarpState, p: Option<Pred>, pout: PredOut, res: &Row, mask: u32) {
    if let Some(p) = p {
        let v = match pout {
            PredOut::None | PredOut::F => 0,
            PredOut::T => u32::MAX,
            PredOut::Z => mask_of(|l| res[l] == 0),
            PredOut::Nz => mask_of(|l| res[l] != 0),
        };
        w.set_pred(p.0, mask, v);
    }
}

impl Exec for Lop {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let a = not_if(reg(w, self.a), self.not_a);
        let b = not_if(src(w, self.b, mask, cx)?, self.not_b);
        let f = self.func;
        let r = map2(&a, &b, |a, b| lop(f, a, b));
        put(w, self.d.0, &r, mask);
        pred_out(w, self.p, self.pout, &r, mask);
        Ok(())
    }
}

impl Exec for Lop32i {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut Cx<'_>) -> OpResult {
        let a = not_if(reg(w, self.a), self.not_a);
        let b = if self.not_b { !self.imm } else { self.imm };
        let f = self.func;
        let r = map(&a, |a| lop(f, a, b));
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

/// LOP3's truth table as a bitwise function.
pub fn lut3(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let pa = if i & 4 != 0 { a } else { !a };
            let pb = if i & 2 != 0 { b } else { !b };
            let pc = if i & 1 != 0 { c } else { !c };
            r |= pa & pb & pc;
        }
    }
    r
}

impl Exec for Lop3 {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let lut = self.lut;
        let r = map3(&reg(w, self.a), &b, &reg(w, self.c), |a, b, c| {
            lut3(lut, a, b, c)
        });
        put(w, self.d.0, &r, mask);
        pred_out(w, self.p, self.pout, &r, mask);
        Ok(())
    }
}

/// BFE on one value (docs/semantics.md §22).
pub fn bfe(a: u32, ctl: u32, signed: bool, brev: bool) -> u32 {
    let a = if brev { a.reverse_bits() } else { a };
    let pos = ctl & 0xff;
    let len = (ctl >> 8) & 0xff;
    if len == 0 {
        return 0;
    }
    if signed {
        let v = (a as i32 as i64) >> pos.min(63);
        if len >= 32 {
            v as u32
        } else {
            ((v << (64 - len)) >> (64 - len)) as u32
        }
    } else {
        let v = if pos >= 32 { 0 } else { a >> pos };
        if len >= 32 {
            v
        } else {
            v & ((1u32 << len) - 1)
        }
    }
}

/// BFI on one value.
pub fn bfi(a: u32, ctl: u32, c: u32) -> u32 {
    let pos = ctl & 0xff;
    let len = (ctl >> 8) & 0xff;
    if pos >= 32 || len == 0 {
        return c;
    }
    let len = len.min(32 - pos);
    let m = (((1u64 << len) - 1) << pos) as u32;
    (c & !m) | ((a << pos) & m)
}

impl Exec for Bfe {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let (signed, brev) = (self.signed, self.brev);
        let r = map2(&reg(w, self.a), &b, |a, b| bfe(a, b, signed, brev));
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}

impl Exec for Bfi {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let c = src(w, self.c, mask, cx)?;
        let r = map3(&reg(w, self.a), &b, &c, bfi);
        put(w, self.d.0, &r, mask);
        if self.cc {
            set_cc(w, mask, &r, 0, 0);
        }
        Ok(())
    }
}

#[inline(always)]
fn pred_mask(w: &WarpState, p: PredSrc) -> u32 {
    w.pred(p.pred.0) ^ if p.neg { u32::MAX } else { 0 }
}

impl Exec for Sel {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let p = pred_mask(w, self.p);
        let a = reg(w, self.a);
        let r: Row = std::array::from_fn(|l| if lane_on(p, l) { a[l] } else { b[l] });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

/// One lane of ISETP's comparison.
fn icmp(cmp: Cmp, unsigned: bool, x: bool, a: u32, b: u32, cf: bool, zf: bool) -> bool {
    let (a, b) = if unsigned {
        (a as i64, b as i64)
    } else {
        (a as i32 as i64, b as i32 as i64)
    };
    if x {
        let d = a - b - (1 - cf as i64);
        match cmp {
            Cmp::F => false,
            Cmp::T => true,
            Cmp::Eq => d == 0 && zf,
            Cmp::Ne => !(d == 0 && zf),
            Cmp::Lt => d < 0,
            Cmp::Ge => d >= 0,
            Cmp::Gt => d > 0 || (d == 0 && !zf),
            Cmp::Le => d < 0 || (d == 0 && zf),
        }
    } else {
        match cmp {
            Cmp::F => false,
            Cmp::T => true,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Ge => a >= b,
            Cmp::Gt => a > b,
            Cmp::Le => a <= b,
        }
    }
}

fn bop_mask(op: BoolOp, a: u32, b: u32) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

impl Exec for Isetp {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let a = reg(w, self.a);
        let (cf, zf) = (w.cc[CF], w.cc[ZF]);
        let r = mask_of(|l| {
            icmp(
                self.cmp,
                self.unsigned,
                self.x,
                a[l],
                b[l],
                lane_on(cf, l),
                lane_on(zf, l),
            )
        });
        let c = pred_mask(w, self.c);
        w.set_pred(self.p.0, mask, bop_mask(self.bop, r, c));
        w.set_pred(self.q.0, mask, bop_mask(self.bop, !r, c));
        Ok(())
    }
}

impl Exec for Psetp {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut Cx<'_>) -> OpResult {
        let (a, b, c) = (
            pred_mask(w, self.a),
            pred_mask(w, self.b),
            pred_mask(w, self.c),
        );
        let p = bop_mask(self.bop2, bop_mask(self.bop1, a, b), c);
        let q = bop_mask(self.bop2, bop_mask(self.bop1, !a, b), c);
        w.set_pred(self.p.0, mask, p);
        w.set_pred(self.q.0, mask, q);
        Ok(())
    }
}

impl Exec for P2r {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let m = src(w, self.mask, mask, cx)?;
        let sh = 8 * self.byte as u32;
        let bits: Row = match self.src {
            P2rSrc::Pr => std::array::from_fn(|l| (0..7).map(|p| (w.preds[p] >> l & 1) << p).sum()),
            P2rSrc::Cc => std::array::from_fn(|l| {
                (w.cc[ZF] >> l & 1)
                    | (w.cc[SF] >> l & 1) << 1
                    | (w.cc[CF] >> l & 1) << 2
                    | (w.cc[OF] >> l & 1) << 3
            }),
        };
        let r = map3(&reg(w, self.a), &bits, &m, |a, bits, m| {
            let (bits, m) = ((bits & 0xff) << sh, (m & 0xff) << sh);
            (a & !m) | (bits & m)
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Imnmx {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let a = reg(w, self.a);
        let p = pred_mask(w, self.p);
        let u = self.unsigned;
        let r: Row = std::array::from_fn(|l| {
            let (x, y) = (a[l], b[l]);
            let lt = if u { x < y } else { (x as i32) < (y as i32) };
            let (min, max) = if lt { (x, y) } else { (y, x) };
            if lane_on(p, l) {
                min
            } else {
                max
            }
        });
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

/// PRMT's default mode on one value.
pub fn prmt(a: u32, sel: u32, c: u32) -> u32 {
    let src = (c as u64) << 32 | a as u64;
    let mut r = 0u32;
    for i in 0..4 {
        let n = sel >> (4 * i) & 0xf;
        let byte = (src >> (8 * (n & 7))) as u8;
        let out = if n & 8 != 0 {
            ((byte as i8) >> 7) as u8
        } else {
            byte
        };
        r |= (out as u32) << (8 * i);
    }
    r
}

impl Exec for Prmt {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let b = src(w, self.b, mask, cx)?;
        let c = src(w, self.c, mask, cx)?;
        let r = map3(&reg(w, self.a), &b, &c, prmt);
        put(w, self.d.0, &r, mask);
        Ok(())
    }
}

impl Exec for Lea {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let a = reg(w, self.a);
        let b = src(w, self.b, mask, cx)?;
        let s = self.shift as u32;
        // The scaled offset: low32(±{Rc, Ra} << s) for LO, low32(±{Rc, Ra} >> (32 - s)) for HI.
        let v: Row = match (self.hi, self.neg_a) {
            (false, false) => map(&a, |x| x << s),
            (false, true) => map(&a, |x| x.wrapping_neg() << s),
            (true, neg) => {
                let c = reg(w, self.c);
                map2(&a, &c, |lo, hi| {
                    let off = (hi as u64) << 32 | lo as u64;
                    let off = if neg { off.wrapping_neg() } else { off };
                    (off >> (32 - s)) as u32
                })
            }
        };
        // Rd = Sb + v (+ CF): 32-bit adds, the carry out as two unsigned compares.
        let cin: Row = if self.x {
            std::array::from_fn(|l| w.cc[CF] >> l & 1)
        } else {
            [0; LANES]
        };
        let r1 = map2(&b, &v, |b, v| b.wrapping_add(v));
        let res = map2(&r1, &cin, |r, c| r.wrapping_add(c));
        if self.cc || self.p.is_some() {
            // Plg = CC.OF = NOT window_detect(EA); EA = zext(Rd) (LO) or {Rd, lea_lo} (HI).
            let win = cx.shared_window;
            let outside = if win
                .checked_add(SHARED_WINDOW_SIZE)
                .is_some_and(|e| e <= 1 << 32)
            {
                // The window ends at or below 4 GiB (traces guarantee it): test in 32 bits.
                let w32 = win as u32;
                let size = SHARED_WINDOW_SIZE as u32;
                if self.hi {
                    let lo = &w.lea_lo;
                    mask_of(|l| res[l] != 0 || lo[l].wrapping_sub(w32) >= size)
                } else {
                    mask_of(|l| res[l].wrapping_sub(w32) >= size)
                }
            } else if self.hi {
                mask_of(|l| !window_detect(win, (res[l] as u64) << 32 | w.lea_lo[l] as u64))
            } else {
                mask_of(|l| !window_detect(win, res[l] as u64))
            };
            if self.cc {
                let cf = mask_of(|l| r1[l] < b[l] || res[l] < r1[l]);
                set_cc(w, mask, &res, cf, outside);
            }
            if let Some(p) = self.p {
                w.set_pred(p.0, mask, outside);
            }
        }
        if !self.hi {
            let lo = w.lea_lo;
            w.lea_lo = std::array::from_fn(|l| if lane_on(mask, l) { res[l] } else { lo[l] });
        }
        put(w, self.d.0, &res, mask);
        Ok(())
    }
}

/// Writes `n` consecutive registers from per-lane words (pairs and quads).
#[inline(always)]
fn put_words(w: &mut WarpState, d: Reg, n: u8, words: &[[u32; 4]; LANES], mask: u32) {
    for k in 0..n {
        let row: Row = std::array::from_fn(|l| words[l][k as usize]);
        put(w, d.0.saturating_add(k), &row, mask);
    }
}

#[inline(always)]
fn get_words(w: &WarpState, v: Reg, n: u8, l: usize) -> [u32; 4] {
    let mut out = [0; 4];
    for k in 0..n as usize {
        out[k] = w.regs[v.offset(k as u8).index()][l];
    }
    out
}

impl Exec for Ldc {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let size = self.size.bytes();
        let imm5 = self.bank as u32;
        // Bank and (signed) address per lane (docs/semantics.md §17); with RZ the immediate is the
        // unsigned 16-bit address and every mode agrees.
        let (bank, addr): (Row, [i64; LANES]) = if self.a.is_rz() {
            (splat(imm5), [self.imm as i64; LANES])
        } else {
            let ra = reg(w, self.a);
            let imm = self.imm;
            match self.mode {
                LdcMode::Ia => (
                    splat(imm5),
                    std::array::from_fn(|l| ra[l].wrapping_add(imm as u32) as i64),
                ),
                LdcMode::Il => {
                    let t = map(&ra, |x| x.wrapping_add(imm as u32));
                    (
                        map(&t, |t| imm5 + (t >> 16)),
                        std::array::from_fn(|l| (t[l] & 0xffff) as i64),
                    )
                }
                LdcMode::Is | LdcMode::Isl => (
                    map(&ra, |x| imm5 + (x >> 16)),
                    std::array::from_fn(|l| imm as i64 + (ra[l] & 0xffff) as i64),
                ),
            }
        };
        let isl = self.mode == LdcMode::Isl;
        let nbanks = cx.nbanks.min(32);
        let readable = move |bank: u32, addr: i64| {
            (0..0x1_0000 - size as i64 + 1).contains(&addr) && bank < nbanks && !(isl && bank > 13)
        };
        // Misaligned addresses fault (checked before the range); the lowest lane reports.
        let misaligned = mask_of(|l| addr[l] as u64 & (size as u64 - 1) != 0) & mask;
        if misaligned != 0 {
            let l = misaligned.trailing_zeros() as usize;
            let kind = FaultKind::MisalignedConstant {
                bank: bank[l],
                addr: addr[l] as u32,
                size,
            };
            return Err(LaneFault {
                kind,
                lane: l as u32,
            });
        }
        if cx.check {
            for l in lanes(mask) {
                if !(isl && bank[l] > 13) && (cx.nbanks..18).contains(&bank[l]) {
                    let b = bank[l];
                    cx.diag(l, format!("LDC from constant bank {b}, not available in this launch's mode (reads 0)"));
                }
            }
        }
        if size == 4 {
            let row: Row = std::array::from_fn(|l| {
                if lane_on(mask, l) && readable(bank[l], addr[l]) {
                    cx.consts.word(bank[l], addr[l] as u32)
                } else {
                    0
                }
            });
            put(w, self.d.0, &row, mask);
        } else {
            let mut words = [[0u32; 4]; LANES];
            for l in lanes(mask) {
                if readable(bank[l], addr[l]) {
                    words[l] = cx
                        .consts
                        .read(bank[l], addr[l] as u32, size, self.size.signed());
                }
            }
            put_words(w, self.d, self.size.regs(), &words, mask);
        }
        Ok(())
    }
}

/// The effective global/generic address of one lane: 32-bit zero-extended, or the 64-bit pair
/// with `.E`; absolute when the address has no base register.
#[inline(always)]
pub fn effective(w: &WarpState, addr: Addr, e: bool, l: usize) -> u64 {
    match addr.base {
        None => addr.offset as u32 as u64,
        Some(r) if e => {
            let lo = w.regs[r.index()][l] as u64;
            let hi = w.regs[r.offset(1).index()][l] as u64;
            (hi << 32 | lo).wrapping_add(addr.offset as i64 as u64)
        }
        Some(r) => w.regs[r.index()][l].wrapping_add(addr.offset as u32) as u64,
    }
}

/// Aligns an address down to the access size (a diagnostic in checking mode when it had to).
#[inline(always)]
fn align_down(cx: &mut Cx<'_>, ea: u64, size: u32, l: usize, what: &str) -> u64 {
    let a = ea & !(size as u64 - 1);
    if a != ea && cx.check {
        cx.diag(
            l,
            format!("misaligned {size}-byte {what} access at {ea:#x} aligned down to {a:#x}"),
        );
    }
    a
}

/// Loads from global memory: `Ok(None)` for a non-resident tile (data 0).
#[inline(always)]
fn global_load(
    cx: &mut Cx<'_>,
    ea: u64,
    size: MemSize,
    l: usize,
) -> Result<Option<[u32; 4]>, LaneFault> {
    let bytes = size.bytes();
    match cx.mem.locate(ea, bytes, &mut cx.hint) {
        Access::Host(p) => {
            let mut v = [0; 4];
            // SAFETY: `locate` checked that `bytes` bytes at the (aligned) address are mapped.
            unsafe { load_sized(p, bytes, size.signed(), &mut v) };
            Ok(Some(v))
        }
        Access::Sparse => Ok(None),
        Access::Unmapped => Err(LaneFault {
            kind: FaultKind::IllegalAddress {
                addr: ea,
                size: bytes,
            },
            lane: l as u32,
        }),
    }
}

/// The shared-memory byte range of an access at `offset` (64-bit, may be negative).
#[inline(always)]
fn shared_range(cx: &Cx<'_>, offset: u64, bytes: u32, l: usize) -> Result<usize, LaneFault> {
    let len = cx.shared.len() as u64;
    if offset < len && offset + bytes as u64 <= len {
        Ok(offset as usize)
    } else {
        Err(LaneFault {
            kind: FaultKind::SharedOutOfRange {
                offset,
                size: bytes,
                shared_bytes: len as u32,
            },
            lane: l as u32,
        })
    }
}

fn shared_load(cx: &Cx<'_>, at: usize, size: MemSize) -> [u32; 4] {
    let b = &cx.shared[at..at + size.bytes() as usize];
    let mut v = [0u32; 4];
    match size.bytes() {
        1 => {
            v[0] = if size.signed() {
                b[0] as i8 as i32 as u32
            } else {
                b[0] as u32
            }
        }
        2 => {
            let h = u16::from_le_bytes([b[0], b[1]]);
            v[0] = if size.signed() {
                h as i16 as i32 as u32
            } else {
                h as u32
            };
        }
        _ => {
            for (w, c) in v.iter_mut().zip(b.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
    }
    v
}

fn shared_store(cx: &mut Cx<'_>, at: usize, bytes: u32, v: &[u32; 4]) {
    let mut raw = [0u8; 16];
    for (k, word) in v.iter().enumerate() {
        raw[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    cx.shared[at..at + bytes as usize].copy_from_slice(&raw[..bytes as usize]);
}

/// Aligned effective addresses of all 32 lanes (a branch-free loop).
#[inline(always)]
fn lane_addrs(w: &WarpState, addr: Addr, e: bool, bytes: u32) -> [u64; LANES] {
    let al = !(bytes as u64 - 1);
    match addr.base {
        None => [(addr.offset as u32 as u64) & al; LANES],
        Some(r) if e => {
            let (lo, hi) = (&w.regs[r.index()], &w.regs[r.offset(1).index()]);
            let off = addr.offset as i64 as u64;
            std::array::from_fn(|l| ((hi[l] as u64) << 32 | lo[l] as u64).wrapping_add(off) & al)
        }
        Some(r) => {
            let lo = &w.regs[r.index()];
            std::array::from_fn(|l| lo[l].wrapping_add(addr.offset as u32) as u64 & al)
        }
    }
}

/// The fast path of a global access: when every executing lane's access lies in one segment
/// without sparse tiles, its (base, host base). Checking mode always takes the per-lane path,
/// which reports misaligned addresses.
#[inline(always)]
fn one_segment(
    cx: &mut Cx<'_>,
    ea: &[u64; LANES],
    mask: u32,
    bytes: u32,
) -> Option<(u64, *mut u8)> {
    if cx.check {
        return None;
    }
    let seg = cx.mem.find(
        ea[mask.trailing_zeros() as usize],
        bytes as u64,
        &mut cx.hint,
    )?;
    if seg.has_sparse() {
        return None;
    }
    let (base, lim) = (seg.base(), seg.size() - bytes as u64);
    let mut outside = 0u32;
    for l in 0..LANES {
        outside |= ((ea[l].wrapping_sub(base) > lim) as u32) << l;
    }
    (outside & mask == 0).then(|| (base, seg.host_base()))
}

impl Exec for Ldg {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let ea = lane_addrs(w, self.addr, self.e, bytes);
        if let Some((base, host)) = one_segment(cx, &ea, mask, bytes) {
            if self.size == MemSize::B32 {
                let mut row = [0u32; LANES];
                for l in lanes(mask) {
                    // SAFETY: `one_segment` checked this lane's access lies inside the segment.
                    row[l] = unsafe { load_u32(host.add((ea[l] - base) as usize)) };
                }
                put(w, self.d.0, &row, mask);
            } else {
                let mut words = [[0u32; 4]; LANES];
                for l in lanes(mask) {
                    // SAFETY: as above.
                    unsafe {
                        load_sized(
                            host.add((ea[l] - base) as usize),
                            bytes,
                            self.size.signed(),
                            &mut words[l],
                        )
                    };
                }
                put_words(w, self.d, self.size.regs(), &words, mask);
            }
            if let Some(p) = self.ps {
                w.set_pred(p.0, mask, 0);
            }
            return Ok(());
        }
        let mut words = [[0u32; 4]; LANES];
        let mut sparse = 0u32;
        for l in lanes(mask) {
            let ea = align_down(cx, effective(w, self.addr, self.e, l), bytes, l, "global");
            match global_load(cx, ea, self.size, l)? {
                Some(v) => words[l] = v,
                None => sparse |= 1 << l,
            }
        }
        put_words(w, self.d, self.size.regs(), &words, mask);
        if let Some(p) = self.ps {
            w.set_pred(p.0, mask, sparse);
        }
        Ok(())
    }
}

/// Where one lane's store goes (checked for every lane before any lane stores).
#[derive(Clone, Copy)]
enum StoreTo {
    Nowhere,
    Host(*mut u8),
    Shared(usize),
}

fn locate_store(cx: &mut Cx<'_>, ea: u64, bytes: u32, l: usize) -> Result<StoreTo, LaneFault> {
    match cx.mem.locate(ea, bytes, &mut cx.hint) {
        Access::Host(p) => Ok(StoreTo::Host(p)),
        Access::Sparse => Ok(StoreTo::Nowhere),
        Access::Unmapped => Err(LaneFault {
            kind: FaultKind::IllegalAddress {
                addr: ea,
                size: bytes,
            },
            lane: l as u32,
        }),
    }
}

/// Performs checked stores in lane order (a later lane wins when two lanes store to one address).
fn commit_stores(
    w: &WarpState,
    cx: &mut Cx<'_>,
    to: &[StoreTo; LANES],
    v: Reg,
    size: MemSize,
    mask: u32,
) {
    let bytes = size.bytes();
    for l in lanes(mask) {
        let data = get_words(w, v, size.regs(), l);
        match to[l] {
            StoreTo::Nowhere => {}
            // SAFETY: `locate` checked that `bytes` bytes at the (aligned) address are mapped.
            StoreTo::Host(p) => unsafe { store_sized(p, bytes, &data) },
            StoreTo::Shared(at) => shared_store(cx, at, bytes, &data),
        }
    }
}

impl Exec for Stg {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let ea = lane_addrs(w, self.addr, self.e, bytes);
        if let Some((base, host)) = one_segment(cx, &ea, mask, bytes) {
            if self.size == MemSize::B32 {
                let v = &w.regs[self.v.index()];
                for l in lanes(mask) {
                    // SAFETY: `one_segment` checked this lane's access lies inside the segment.
                    unsafe { store_u32(host.add((ea[l] - base) as usize), v[l]) };
                }
            } else {
                for l in lanes(mask) {
                    let data = get_words(w, self.v, self.size.regs(), l);
                    // SAFETY: as above.
                    unsafe { store_sized(host.add((ea[l] - base) as usize), bytes, &data) };
                }
            }
            return Ok(());
        }
        let mut to = [StoreTo::Nowhere; LANES];
        for l in lanes(mask) {
            let ea = align_down(cx, effective(w, self.addr, self.e, l), bytes, l, "global");
            to[l] = locate_store(cx, ea, bytes, l)?;
        }
        commit_stores(w, cx, &to, self.v, self.size, mask);
        Ok(())
    }
}

impl Exec for Ld {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let global = pred_mask(w, self.steer);
        let mut words = [[0u32; 4]; LANES];
        for l in lanes(mask) {
            let ea = align_down(cx, effective(w, self.addr, self.e, l), bytes, l, "generic");
            if lane_on(global, l) {
                words[l] = global_load(cx, ea, self.size, l)?.unwrap_or([0; 4]);
            } else {
                let at = shared_range(cx, ea.wrapping_sub(cx.shared_window), bytes, l)?;
                words[l] = shared_load(cx, at, self.size);
            }
        }
        put_words(w, self.d, self.size.regs(), &words, mask);
        Ok(())
    }
}

impl Exec for St {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let global = pred_mask(w, self.steer);
        let mut to = [StoreTo::Nowhere; LANES];
        for l in lanes(mask) {
            let ea = align_down(cx, effective(w, self.addr, self.e, l), bytes, l, "generic");
            to[l] = if lane_on(global, l) {
                locate_store(cx, ea, bytes, l)?
            } else {
                StoreTo::Shared(shared_range(
                    cx,
                    ea.wrapping_sub(cx.shared_window),
                    bytes,
                    l,
                )?)
            };
        }
        commit_stores(w, cx, &to, self.v, self.size, mask);
        Ok(())
    }
}

impl Exec for Lds {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut words = [[0u32; 4]; LANES];
        for l in lanes(mask) {
            let off = align_down(cx, effective(w, self.addr, false, l), bytes, l, "shared");
            let at = shared_range(cx, off, bytes, l)?;
            words[l] = shared_load(cx, at, self.size);
        }
        put_words(w, self.d, self.size.regs(), &words, mask);
        Ok(())
    }
}

impl Exec for Sts {
    fn exec(&self, w: &mut WarpState, mask: u32, cx: &mut Cx<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut to = [StoreTo::Nowhere; LANES];
        for l in lanes(mask) {
            let off = align_down(cx, effective(w, self.addr, false, l), bytes, l, "shared");
            to[l] = StoreTo::Shared(shared_range(cx, off, bytes, l)?);
        }
        commit_stores(w, cx, &to, self.v, self.size, mask);
        Ok(())
    }
}

impl Exec for Membar {
    fn exec(&self, _: &mut WarpState, _: u32, _: &mut Cx<'_>) -> OpResult {
        Ok(())
    }
}

impl Exec for Nop {
    fn exec(&self, _: &mut WarpState, _: u32, _: &mut Cx<'_>) -> OpResult {
        Ok(())
    }
}

impl Exec for Depbar {
    fn exec(&self, _: &mut WarpState, _: u32, _: &mut Cx<'_>) -> OpResult {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_sign_of_value() {
        assert_eq!(bfe(0x8000_0000, 0x11f, true, false), u32::MAX);
        assert_eq!(bfe(0x7fff_ffff, 0x11f, true, false), 0);
        assert_eq!(bfe(0xabcd_1234, 0x0808, false, false), 0x12);
        assert_eq!(
            bfe(0xabcd_1234, 0x0800 | 28, false, false),
            0xa,
            "bits past 31 read 0"
        );
        assert_eq!(
            bfe(0xabcd_1234, 0x0800 | 28, true, false),
            0xffff_fffa,
            "bits past 31 read bit 31"
        );
        assert_eq!(bfe(0x1234, 0x0000, false, false), 0, "length 0");
    }

    #[test]
    fn bfi_clamps_length() {
        assert_eq!(bfi(0xff, 0x0804, 0), 0xff0);
        assert_eq!(
            bfi(0xffff_ffff, 0x201e, 0),
            0xc000_0000,
            "length clamps below bit 32"
        );
        assert_eq!(bfi(0xff, 0x0820, 7), 7, "position 32 leaves Rc");
    }

    #[test]
    fn prmt_and_lut() {
        assert_eq!(prmt(0x4433_2211, 0x3210, 0x8877_6655), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x7654, 0x8877_6655), 0x8877_6655);
        assert_eq!(prmt(0x0000_0080, 0x8888, 0), 0xffff_ffff, "sign replicate");
        assert_eq!(lut3(0xc0, 0xf0, 0xcc, 0xaa), 0xf0 & 0xcc);
        assert_eq!(lut3(0x96, 0xf0, 0xcc, 0xaa), 0xf0 ^ 0xcc ^ 0xaa);
    }
}
