//! The reference op semantics: the `Exec` trait, its dispatcher (expanded from the op table
//! by `for_each_op!`), and what the ops share (source operands, constant reads, CC flags, multi-
//! register writes). The ops themselves are in [`super::alu`] (integer, logic, predicate and
//! address arithmetic) and [`super::memory`] (loads and stores of every space). Together they are
//! the specification in code (docs/semantics.md §12–§23).

use super::lanes::*;
use crate::exec::CtaEnv;
use crate::ir::*;
use warpjit_runtime::warp::{CF, OF, SF, ZF};
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

/// Result of one op: a fault carries its kind and lowest faulting lane (the caller adds the pc).
pub type OpResult = Result<(), Fault>;

/// Per-op semantics. `mask` is the set of lanes that execute (active and guard true; non-zero).
pub trait Exec {
    /// Executes the op for the lanes in `mask`.
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult;
}

macro_rules! dispatch {
    ($($v:ident($s:ident),)*) => {
        /// Executes one op (the table's dispatcher).
        #[inline(always)]
        pub(super) fn exec_op(op: &Op, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
            match op {
                $(Op::$v(o) => o.exec(w, mask, env),)*
            }
        }
    };
}
crate::for_each_op!(dispatch);

pub(super) fn first_lane(mask: u32) -> u32 {
    mask.trailing_zeros()
}

/// Reads a constant as `LDC` in IA mode with `Ra = RZ` (docs/semantics.md §14, §17), one lane's view.
pub(super) fn read_const(
    env: &CtaEnv<'_>,
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
    if !(0..0x1_0000).contains(&addr) || bank >= 32 || bank >= env.nbanks {
        return Ok([0; 4]);
    }
    Ok(env.consts.read(bank, addr as u32, size, signed))
}

/// The row of a source operand (constants and immediates are uniform).
#[inline(always)]
pub(super) fn src(w: &WarpState, s: Src, mask: u32, env: &mut CtaEnv<'_>) -> Result<Row, Fault> {
    Ok(match s {
        Src::Reg(r) => w.regs[r.index()],
        Src::Imm(v) | Src::Imm32(v) => splat(v),
        Src::Const(c) => splat(const_operand(c, mask, env)?),
    })
}

fn const_operand(c: ConstRef, mask: u32, env: &mut CtaEnv<'_>) -> Result<u32, Fault> {
    let lane = first_lane(mask);
    if env.check && c.bank as u32 >= env.nbanks && (c.bank as u32) < 18 {
        env.finding(
            lane as usize,
            format!(
                "constant bank {} is not available in this launch's mode (reads 0)",
                c.bank
            ),
        );
    }
    read_const(env, c.bank as u32, c.offset as i64, 4, false)
        .map(|v| v[0])
        .map_err(|kind| Fault::new(kind, lane))
}

#[inline(always)]
pub(super) fn reg(w: &WarpState, r: Reg) -> Row {
    w.regs[r.index()]
}

/// Writes the four CC flags for `mask` from per-lane 32-bit results and carry/overflow masks.
#[inline(always)]
pub(super) fn set_cc(w: &mut WarpState, mask: u32, res: &Row, cf: u32, of: u32) {
    let zf = mask_of(|l| res[l] == 0);
    let sf = mask_of(|l| res[l] >> 31 != 0);
    w.set_flag(CF, mask, cf);
    w.set_flag(ZF, mask, zf);
    w.set_flag(SF, mask, sf);
    w.set_flag(OF, mask, of);
}

#[inline(always)]
pub(super) fn pred_mask(w: &WarpState, p: PredSrc) -> u32 {
    w.pred(p.pred.0) ^ if p.neg { u32::MAX } else { 0 }
}

/// Writes `n` consecutive registers from per-lane words (pairs and quads).
#[inline(always)]
pub(super) fn put_words(w: &mut WarpState, d: Reg, n: u8, words: &[[u32; 4]; LANES], mask: u32) {
    for k in 0..n {
        let row: Row = std::array::from_fn(|l| words[l][k as usize]);
        put(w, d.0.saturating_add(k), &row, mask);
    }
}

#[inline(always)]
pub(super) fn get_words(w: &WarpState, v: Reg, n: u8, l: usize) -> [u32; 4] {
    let mut out = [0; 4];
    for k in 0..n as usize {
        out[k] = w.regs[v.offset(k as u8).index()][l];
    }
    out
}

impl Exec for Membar {
    /// Accesses already take effect in program order; a fence beyond the CTA executed by some
    /// lane is a host memory fence, which orders them against CTAs on other host threads
    /// (docs/semantics.md §22f).
    fn exec(&self, _: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        if mask != 0 && self.host_fence() {
            std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }
}

impl Exec for Nop {
    fn exec(&self, _: &mut WarpState, _: u32, _: &mut CtaEnv<'_>) -> OpResult {
        Ok(())
    }
}

impl Exec for Bpt {
    /// A host call (docs/semantics.md §22g) runs the driver's function; any other code traps.
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        match mask {
            0 => Ok(()),
            m if crate::exec::hostcall::is_host_call(self.code) => {
                crate::exec::hostcall::run(self.code, w, m, env)
            }
            m => Err(Fault::new(
                warpjit_runtime::FaultKind::Trap { code: self.code },
                m.trailing_zeros(),
            )),
        }
    }
}

impl Exec for Depbar {
    fn exec(&self, _: &mut WarpState, _: u32, _: &mut CtaEnv<'_>) -> OpResult {
        Ok(())
    }
}
