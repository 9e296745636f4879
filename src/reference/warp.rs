//! Atomics (`ATOM`, `RED`, `ATOMS`: docs/semantics.md §22b) and warp operations (`SHFL`,
//! `VOTE`: §22c).
//!
//! An atomic's lanes take effect one at a time in ascending lane order, each reading the value
//! the previous lane left. [`atom_lanes`] is the one definition, over the lanes' operand rows in
//! an [`AtomLanes`]: the interpreter fills one from the warp state, the JIT's routine gets one
//! from compiled code.

use super::lanes::*;
use super::memory::{align_down, shared_range};
use super::ops::*;
use crate::exec::{CtaEnv, FindingKind, MemSpace};
use crate::ir::*;
use crate::semantics::warp::{atom_apply, shfl_source, vote};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use warpjit_runtime::memory::Access;
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

/// The operand rows of an atomic (the JIT's routine receives one on the stack): the address
/// register (and the next one with `.E`), the operand `b` and the CAS swap value `c` (two rows
/// each: low and high word of 64-bit types), and on return the old values.
#[repr(C, align(16))]
#[derive(Clone, Debug, Default)]
pub struct AtomLanes {
    /// Address register rows: Ra, and Ra+1 with `.E`.
    pub addr: [Row; 2],
    /// Operand rows.
    pub b: [Row; 2],
    /// CAS swap rows.
    pub c: [Row; 2],
    /// The old values (output).
    pub out: [Row; 2],
}

/// Where one lane's atomic goes (checked for every lane before any lane updates).
#[derive(Clone, Copy)]
enum Target {
    Nowhere,
    Host(*mut u8),
    Shared(usize),
}

/// Lane `l`'s effective address, before alignment (docs/semantics.md §16).
fn lane_address(a: &AtomAccess, x: &AtomLanes, l: usize) -> u64 {
    let off = a.addr.offset;
    match (a.addr.base, a.space) {
        (None, _) => off as u32 as u64,
        (Some(_), AtomSpace::Global(true)) => {
            ((x.addr[1][l] as u64) << 32 | x.addr[0][l] as u64).wrapping_add(off as i64 as u64)
        }
        (Some(_), _) => x.addr[0][l].wrapping_add(off as u32) as u64,
    }
}

/// Runs an atomic for the lanes of `mask`: every lane's access is checked first (bounds and
/// faults as LDG/STG for global memory, LDS/STS for shared; the lowest faulting lane reports and
/// nothing changes), then the lanes update in ascending order, each getting in `x.out` the value
/// before its own update. A non-resident tile reads 0 and drops the update.
pub fn atom_lanes(
    a: &AtomAccess,
    env: &mut CtaEnv<'_>,
    mask: u32,
    x: &mut AtomLanes,
) -> Result<(), Fault> {
    let bytes = a.ty.bytes();
    let mut to = [Target::Nowhere; LANES];
    let mut ea = [0u64; LANES];
    for l in lanes(mask) {
        match a.space {
            AtomSpace::Global(_) => {
                let raw = lane_address(a, x, l);
                ea[l] = align_down(env, raw, bytes, l, MemSpace::Global, "global", true, true);
                to[l] = match env.mem.locate(ea[l], bytes, &mut env.hint) {
                    Access::Host(p) => Target::Host(p),
                    Access::Sparse => Target::Nowhere,
                    Access::Unmapped => {
                        let kind = FaultKind::IllegalAddress {
                            addr: ea[l],
                            size: bytes,
                        };
                        return Err(Fault::new(kind, l as u32));
                    }
                };
            }
            AtomSpace::Shared => {
                let raw = lane_address(a, x, l);
                ea[l] = align_down(env, raw, bytes, l, MemSpace::Shared, "shared", true, true);
                to[l] = Target::Shared(shared_range(env, ea[l], bytes, l)?);
            }
        }
    }
    let (op, ty) = (a.op, a.ty);
    x.out = [[0; LANES]; 2];
    // The value each lane's update left (for the observer only).
    let observed = env.observe_mem;
    let mut new = [0u64; LANES];
    for l in lanes(mask) {
        let b = (x.b[1][l] as u64) << 32 | x.b[0][l] as u64;
        let c = (x.c[1][l] as u64) << 32 | x.c[0][l] as u64;
        let f = |old: u64| atom_apply(op, ty, old, b, c);
        let old = match to[l] {
            Target::Nowhere => 0,
            // SAFETY: `locate` checked that the (aligned) bytes are mapped; host and guest
            // addresses agree modulo 16, so the host address is aligned to the access size.
            // Atomic host operations keep CTAs on other host threads from losing updates.
            Target::Host(p) if bytes == 4 => {
                let cell = unsafe { AtomicU32::from_ptr(p.cast()) };
                let g = |v: u32| Some(u32::to_le(f(u32::from_le(v) as u64) as u32));
                u32::from_le(cell.fetch_update(SeqCst, SeqCst, g).unwrap_or_default()) as u64
            }
            Target::Host(p) => {
                // SAFETY: as above, 8-byte aligned.
                let cell = unsafe { AtomicU64::from_ptr(p.cast()) };
                let g = |v: u64| Some(u64::to_le(f(u64::from_le(v))));
                u64::from_le(cell.fetch_update(SeqCst, SeqCst, g).unwrap_or_default())
            }
            Target::Shared(at) => {
                let cell = &mut env.shared[at..at + bytes as usize];
                let mut raw = [0u8; 8];
                raw[..bytes as usize].copy_from_slice(cell);
                let old = u64::from_le_bytes(raw);
                let left = f(old).to_le_bytes();
                cell.copy_from_slice(&left[..bytes as usize]);
                old
            }
        };
        x.out[0][l] = old as u32;
        x.out[1][l] = (old >> 32) as u32;
        if observed && !matches!(to[l], Target::Nowhere) {
            new[l] = f(old);
        }
    }
    if observed {
        let space = match a.space {
            AtomSpace::Global(_) => MemSpace::Global,
            AtomSpace::Shared => MemSpace::Shared,
        };
        for l in lanes(mask) {
            let data = [new[l] as u32, (new[l] >> 32) as u32, 0, 0];
            env.access(l, space, ea[l], bytes, true, true, data);
        }
    }
    Ok(())
}

/// Reads an atomic's operand rows from the warp state.
fn gather(w: &WarpState, a: &AtomAccess, b: Reg) -> AtomLanes {
    let mut x = AtomLanes::default();
    if let Some(r) = a.addr.base {
        x.addr[0] = reg(w, r);
        if a.space == AtomSpace::Global(true) {
            x.addr[1] = reg(w, r.offset(1));
        }
    }
    let n = a.ty.regs();
    for k in 0..n {
        x.b[k as usize] = reg(w, b.offset(k));
        if a.op == AtomOp::Cas {
            x.c[k as usize] = reg(w, cas_swap(b, a.ty).offset(k));
        }
    }
    x
}

/// Runs an atomic and writes the old values to `d` (not for `RED`).
fn atomic(
    w: &mut WarpState,
    mask: u32,
    env: &mut CtaEnv<'_>,
    a: &AtomAccess,
    b: Reg,
    d: Option<Reg>,
) -> OpResult {
    let mut x = gather(w, a, b);
    atom_lanes(a, env, mask, &mut x)?;
    if let Some(d) = d {
        for k in 0..a.ty.regs() {
            put(w, d.0.saturating_add(k), &x.out[k as usize], mask);
        }
    }
    Ok(())
}

impl Exec for Atomg {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        atomic(w, mask, env, &self.access(), self.b, Some(self.d))
    }
}

impl Exec for Red {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        atomic(w, mask, env, &self.access(), self.b, None)
    }
}

impl Exec for Atoms {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        atomic(w, mask, env, &self.access(), self.b, Some(self.d))
    }
}

/// A SHFL or lane operand's row.
fn reg_imm(w: &WarpState, x: RegImm) -> Row {
    match x {
        RegImm::Reg(r) => reg(w, r),
        RegImm::Imm(v) => splat(v),
    }
}

/// SHFL over whole rows: the value and in-range mask for the lanes of `mask`, from the source
/// row `a` (every lane's register, active or not) and the operand rows.
pub fn shfl_rows(mode: ShflMode, a: &Row, b: &Row, c: &Row, mask: u32) -> (Row, u32) {
    let mut out = [0; LANES];
    let mut ok = 0u32;
    for l in lanes(mask) {
        let (j, p) = shfl_source(mode, l as u32, b[l], c[l]);
        out[l] = a[j as usize];
        ok |= (p as u32) << l;
    }
    (out, ok)
}

impl Exec for Shfl {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let (a, b, c) = (reg(w, self.a), reg_imm(w, self.b), reg_imm(w, self.c));
        if env.check {
            // A source lane in range that does not execute the SHFL (inactive, exited or its
            // guard false): PTX leaves the value undefined (docs/semantics.md §22c).
            for l in lanes(mask) {
                let (j, ok) = shfl_source(self.mode, l as u32, b[l], c[l]);
                if ok && !lane_on(mask, j as usize) {
                    env.finding_of(
                        l,
                        FindingKind::ShflInactive { src: j },
                        format!("SHFL reads lane {j}, which does not execute it (its register's last value)"),
                    );
                }
            }
        }
        let (out, ok) = shfl_rows(self.mode, &a, &b, &c, mask);
        put(w, self.d.0, &out, mask);
        w.set_pred(self.p.0, mask, ok);
        Ok(())
    }
}

impl Exec for Cs2r {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let v = if self.hi { w.clock >> 32 } else { w.clock };
        put(w, self.d.0, &splat(v as u32), mask);
        Ok(())
    }
}

impl Exec for Vote {
    fn exec(&self, w: &mut WarpState, mask: u32, _: &mut CtaEnv<'_>) -> OpResult {
        let ballot = pred_mask(w, self.a) & mask;
        put(w, self.d.0, &splat(ballot), mask);
        let v = if vote(self.mode, mask, ballot) {
            mask
        } else {
            0
        };
        w.set_pred(self.p.0, mask, v);
        Ok(())
    }
}
