//! The lane-by-lane path of inline memory instructions, out of line: one routine that every
//! compiled LDG, STG, LD, ST, LDS, STS, LDL and STL calls when its accesses are not one
//! whole-warp vector access.
//!
//! Compiled code first makes the warp state in memory current (`Tx::settle` in `codegen`:
//! dirty cached registers stored, the cache forgotten), then calls [`warpjit_jit_lanes`] with a
//! [`LaneAccess`] word naming the access and its registers. The routine reads the address
//! registers (and a store's values) from the warp state and checks every executing lane first:
//! if any lane lies outside the instruction's segment hint (global) or outside shared or its
//! local memory, it touches nothing and returns 1, and compiled code takes the slow path (the
//! interpreter's code, which faults or handles sparse tiles and other segments exactly).
//! Otherwise it performs the accesses, a load writing the executing lanes of its destination
//! registers in the warp state, a store writing memory in ascending lane order (where two lanes
//! write the same bytes, the higher lane's value stays), and returns 0. The bounds are the same
//! as the inline checks they replace: the hint's bound for this access size (a hint carries one
//! per size), or `off <= len - bytes`.
//!
//! Emitting these 32 lanes inline cost about 300 Cranelift instructions per memory
//! instruction; the call costs about 10. Passing register rows through a buffer instead (their
//! stores, the results' loads and the blend into the destination) cost 40 to 100 more.

use super::abi::{JitCx, HINTS};
use crate::ir::{MemSize, Reg};
use crate::semantics::effective_of;
use warpjit_runtime::WarpState;

/// What [`warpjit_jit_lanes`] does, packed in one `u32` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// Access size (and a load's extension).
    pub size: MemSize,
    /// The address has a base register (`addr`).
    pub base: bool,
    /// 64-bit (`.E`) global address.
    pub e: bool,
    /// A store (of `data` and the registers after it) rather than a load (into them).
    pub store: bool,
    /// The memory space.
    pub space: LaneSpace,
    /// The address register (`Ra`; with `.E` also the one after it), when `base`.
    pub addr: Reg,
    /// A store's first value register or a load's first destination.
    pub data: Reg,
}

/// The memory a [`LaneAccess`] addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneSpace {
    /// Global memory through segment hint `slot`.
    Global,
    /// The CTA's shared memory, by byte offset.
    Shared,
    /// Each lane's local memory, by byte offset.
    Local,
}

const SIZES: [MemSize; 8] = [
    MemSize::U8,
    MemSize::S8,
    MemSize::U16,
    MemSize::S16,
    MemSize::B32,
    MemSize::B64,
    MemSize::B128,
    MemSize::U128,
];

impl LaneAccess {
    /// The packed word compiled code passes.
    pub fn pack(self) -> u32 {
        let size = SIZES
            .iter()
            .position(|s| *s == self.size)
            .expect("every size") as u32;
        let space = match self.space {
            LaneSpace::Global => 0,
            LaneSpace::Shared => 1,
            LaneSpace::Local => 2,
        };
        size | (self.base as u32) << 3
            | (self.e as u32) << 4
            | (self.store as u32) << 5
            | space << 6
            | (self.addr.0 as u32) << 8
            | (self.data.0 as u32) << 16
    }

    /// The access a packed word describes.
    pub fn unpack(w: u32) -> LaneAccess {
        LaneAccess {
            size: SIZES[(w & 7) as usize],
            base: w & 1 << 3 != 0,
            e: w & 1 << 4 != 0,
            store: w & 1 << 5 != 0,
            space: match w >> 6 & 3 {
                0 => LaneSpace::Global,
                1 => LaneSpace::Shared,
                _ => LaneSpace::Local,
            },
            addr: Reg((w >> 8) as u8),
            data: Reg((w >> 16) as u8),
        }
    }
}

/// Runs one memory instruction's accesses for the lanes in `exec` (see the module docs):
/// returns 1, having touched nothing, if any executing lane misses; else 0.
///
/// # Safety
/// `jcx` must be the live context of the running block and `w` its warp's state: the hints
/// point at mapped segments, `shared` / `local` at the CTA's shared and local memory of the
/// sizes it states.
pub unsafe extern "C" fn warpjit_jit_lanes(
    jcx: *mut JitCx,
    w: *mut WarpState,
    exec: u32,
    slot: u32,
    offset: i32,
    access: u32,
) -> u32 {
    // SAFETY: compiled code passes its own live context and warp state.
    let (jcx, w) = unsafe { (&mut *jcx, &mut *w) };
    let acc = LaneAccess::unpack(access);
    let mut ptrs = [std::ptr::null_mut::<u8>(); 32];
    let hit = match acc.space {
        LaneSpace::Global => global_ptrs(jcx, w, &acc, exec, slot, offset, &mut ptrs),
        LaneSpace::Shared | LaneSpace::Local => window_ptrs(jcx, w, &acc, exec, offset, &mut ptrs),
    };
    if !hit {
        return 1;
    }
    // SAFETY: every pointer of an executing lane was checked to lie, with the access's bytes,
    // inside a mapped segment, shared memory or the lane's local memory.
    unsafe {
        match (acc.store, acc.size) {
            (false, MemSize::B32) => load_words::<1>(w, &ptrs, exec, acc.data),
            (false, MemSize::B64) => load_words::<2>(w, &ptrs, exec, acc.data),
            (false, MemSize::B128 | MemSize::U128) => load_words::<4>(w, &ptrs, exec, acc.data),
            (false, size) => load_part(w, &ptrs, exec, acc.data, size),
            (true, MemSize::B32) => store_words::<1>(w, &ptrs, exec, acc.data),
            (true, MemSize::B64) => store_words::<2>(w, &ptrs, exec, acc.data),
            (true, MemSize::B128 | MemSize::U128) => store_words::<4>(w, &ptrs, exec, acc.data),
            (true, size) => store_part(w, &ptrs, exec, acc.data, size),
        }
    }
    0
}

/// Every register RZ reads: a row of zeros.
static ZERO_ROW: [u32; 32] = [0; 32];

/// A register's row as the interpreter reads it (RZ reads 0).
fn row(w: &WarpState, r: Reg) -> &[u32; 32] {
    if r.is_rz() {
        &ZERO_ROW
    } else {
        &w.regs[r.index()]
    }
}

/// The lanes of `exec`, in ascending order.
fn lanes(exec: u32) -> impl Iterator<Item = usize> {
    let mut m = exec;
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            l
        })
    })
}

/// Sets `ptrs[l]` for each lane `l` of `exec` from `at(l)` (whether the lane hits, and its
/// pointer), or returns false when a lane misses. A whole warp goes without a branch per lane.
#[inline(always)]
fn fill_ptrs(exec: u32, ptrs: &mut [*mut u8; 32], at: impl Fn(usize) -> (bool, *mut u8)) -> bool {
    if exec == u32::MAX {
        let mut hit = true;
        for (l, p) in ptrs.iter_mut().enumerate() {
            let (ok, q) = at(l);
            hit &= ok;
            *p = q;
        }
        return hit;
    }
    for l in lanes(exec) {
        let (ok, q) = at(l);
        if !ok {
            return false;
        }
        ptrs[l] = q;
    }
    true
}

/// Sets the host pointer of each lane of `exec` for a global access through hint `slot`, or
/// returns false (some pointer unset) when a lane misses the hint.
fn global_ptrs(
    jcx: &JitCx,
    w: &WarpState,
    acc: &LaneAccess,
    exec: u32,
    slot: u32,
    offset: i32,
    ptrs: &mut [*mut u8; 32],
) -> bool {
    let bytes = acc.size.bytes();
    let (lo, hi) = (row(w, acc.addr), row(w, acc.addr.offset(1)));
    let h = jcx.hints[slot as usize % HINTS];
    let len = h.lens[bytes.trailing_zeros() as usize];
    let align = !(bytes as u64 - 1);
    // A misaligned lane misses too: the slow path (the interpreter's code) aligns it down and
    // counts it (`Stats::misaligned`).
    let at = |a: u64| {
        let rel = (a & align).wrapping_sub(h.lo);
        (
            rel < len && a & !align == 0,
            h.host.wrapping_add(rel) as *mut u8,
        )
    };
    // One loop per address form, so that none tests the form per lane.
    match (acc.base, acc.e) {
        (true, true) => fill_ptrs(exec, ptrs, |l| {
            at(effective_of(Some((lo[l], hi[l])), offset, true))
        }),
        (true, false) => fill_ptrs(exec, ptrs, |l| {
            at(effective_of(Some((lo[l], 0)), offset, false))
        }),
        (false, e) => fill_ptrs(exec, ptrs, |_| at(effective_of(None, offset, e))),
    }
}

/// Sets the host pointer of each lane of `exec` for a shared or local access, or returns false
/// when a lane's offset lies outside the window.
fn window_ptrs(
    jcx: &JitCx,
    w: &WarpState,
    acc: &LaneAccess,
    exec: u32,
    offset: i32,
    ptrs: &mut [*mut u8; 32],
) -> bool {
    let bytes = acc.size.bytes();
    let local = acc.space == LaneSpace::Local;
    let (base, len) = if local {
        (jcx.local, jcx.local_len)
    } else {
        (jcx.shared, jcx.shared_len)
    };
    // Offsets are 32-bit: `Ra + imm` wraps, then aligns down (docs/semantics.md §15).
    let len32 = len as u32;
    if len32 < bytes {
        return exec == 0;
    }
    let lo = row(w, acc.addr);
    let stride = if local { len } else { 0 };
    fill_ptrs(exec, ptrs, |l| {
        let o = if acc.base {
            lo[l].wrapping_add(offset as u32)
        } else {
            offset as u32
        };
        // A misaligned lane misses (the slow path aligns it down and counts it).
        let aligned = o & (bytes - 1) == 0;
        let o = o & !(bytes - 1);
        let lane = l as u64 * stride;
        (
            aligned && o <= len32 - bytes,
            base.wrapping_add((lane + o as u64) as usize),
        )
    })
}

/// Loads `N` words per lane of `exec` into `data` and the registers after it (RZ not written),
/// in lane order, after every address was read.
///
/// # Safety
/// Each lane's pointer must be valid for `4 * N` bytes.
unsafe fn load_words<const N: usize>(
    w: &mut WarpState,
    ptrs: &[*mut u8; 32],
    exec: u32,
    data: Reg,
) {
    let regs: [Reg; N] = std::array::from_fn(|k| data.offset(k as u8));
    if exec == u32::MAX && regs.iter().all(|r| !r.is_rz()) {
        // The whole warp: a straight run of independent reads, so that as many are in flight
        // as the core allows (a gather's reads miss the caches). One loop per lane that also
        // computed and checked the address let fewer fit in the core's window: `gather` took
        // 1.04x as long.
        for (k, r) in regs.iter().enumerate() {
            let row = &mut w.regs[r.index()];
            for (l, v) in row.iter_mut().enumerate() {
                // SAFETY: as the caller promises.
                *v = unsafe { (ptrs[l].add(4 * k) as *const u32).read_unaligned() };
            }
        }
        return;
    }
    for l in lanes(exec) {
        for (k, r) in regs.iter().enumerate() {
            // SAFETY: as the caller promises.
            let v = unsafe { (ptrs[l].add(4 * k) as *const u32).read_unaligned() };
            if !r.is_rz() {
                w.regs[r.index()][l] = v;
            }
        }
    }
}

/// Stores `N` words per lane of `exec` from `data` and the registers after it, in lane order.
///
/// # Safety
/// Each lane's pointer must be valid for `4 * N` bytes.
unsafe fn store_words<const N: usize>(w: &WarpState, ptrs: &[*mut u8; 32], exec: u32, data: Reg) {
    let rows: [&[u32; 32]; N] = std::array::from_fn(|k| row(w, data.offset(k as u8)));
    for l in lanes(exec) {
        for (k, v) in rows.iter().enumerate() {
            // SAFETY: as the caller promises.
            unsafe { (ptrs[l].add(4 * k) as *mut u32).write_unaligned(v[l]) };
        }
    }
}

/// A byte or 16-bit load (zero- or sign-extended) per lane of `exec` into `data`.
///
/// # Safety
/// Each lane's pointer must be valid for the access's bytes.
unsafe fn load_part(w: &mut WarpState, ptrs: &[*mut u8; 32], exec: u32, data: Reg, size: MemSize) {
    for l in lanes(exec) {
        let p = ptrs[l];
        // SAFETY: as the caller promises.
        let v = unsafe {
            match size {
                MemSize::U8 => p.read() as u32,
                MemSize::S8 => p.read() as i8 as u32,
                MemSize::U16 => (p as *const u16).read_unaligned() as u32,
                _ => (p as *const u16).read_unaligned() as i16 as u32,
            }
        };
        if !data.is_rz() {
            w.regs[data.index()][l] = v;
        }
    }
}

/// A byte or 16-bit store per lane of `exec` of `data`'s low bits.
///
/// # Safety
/// Each lane's pointer must be valid for the access's bytes.
unsafe fn store_part(w: &WarpState, ptrs: &[*mut u8; 32], exec: u32, data: Reg, size: MemSize) {
    let v = row(w, data);
    for l in lanes(exec) {
        // SAFETY: as the caller promises.
        unsafe {
            match size {
                MemSize::U8 | MemSize::S8 => ptrs[l].write(v[l] as u8),
                _ => (ptrs[l] as *mut u16).write_unaligned(v[l] as u16),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_words_unpack_to_what_was_packed() {
        for size in SIZES {
            for bits in 0..8u32 {
                for space in [LaneSpace::Global, LaneSpace::Shared, LaneSpace::Local] {
                    let a = LaneAccess {
                        size,
                        base: bits & 1 != 0,
                        e: bits & 2 != 0,
                        store: bits & 4 != 0,
                        space,
                        addr: Reg((bits * 31) as u8),
                        data: Reg(255 - bits as u8),
                    };
                    assert_eq!(LaneAccess::unpack(a.pack()), a);
                }
            }
        }
    }
}
