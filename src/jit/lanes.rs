//! The lane-by-lane path of inline memory instructions, out of line: one routine that every
//! compiled LDG, STG, LD, ST, LDS, STS, LDL and STL calls when its accesses are not one
//! whole-warp vector access.
//!
//! Compiled code writes the address registers' rows (and a store's values) into
//! [`JitCx::io`] and calls [`warpjit_jit_lanes`] with a [`LaneAccess`] word. The routine checks
//! every executing lane first: if any lane lies outside the instruction's segment hint (global)
//! or outside shared or its local memory, it touches nothing and returns 1, and compiled code
//! takes the slow path (the interpreter's code, which faults or handles sparse tiles and other
//! segments exactly). Otherwise it performs the accesses in ascending lane order (a load's
//! values land in `io.data`, register-major) and returns 0. The bounds are the same as the
//! inline checks they replace: the hint's bound for this access size (a hint carries one per
//! size), or `off <= len - bytes`.
//!
//! Emitting these 32 lanes inline cost about 300 Cranelift instructions per memory
//! instruction; the call costs about 20.

use super::abi::{JitCx, HINTS};
use crate::ir::MemSize;
use crate::semantics::effective_of;

/// Register rows and data exchanged between compiled code and [`warpjit_jit_lanes`]
/// (register-major: lane `l` of row `k` at `k * 32 + l`).
#[repr(C)]
#[derive(Clone, Debug)]
pub struct LaneIo {
    /// The address register's row (`Ra`).
    pub lo: [u32; 32],
    /// `Ra+1`'s row, for `.E` addresses.
    pub hi: [u32; 32],
    /// A store's value rows, or a load's result rows (up to four registers).
    pub data: [u32; 128],
}

impl Default for LaneIo {
    fn default() -> LaneIo {
        LaneIo {
            lo: [0; 32],
            hi: [0; 32],
            data: [0; 128],
        }
    }
}

/// What [`warpjit_jit_lanes`] does, packed in one `u32` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAccess {
    /// Access size (and a load's extension).
    pub size: MemSize,
    /// The address has a base register (`io.lo`, with `.E` also `io.hi`).
    pub base: bool,
    /// 64-bit (`.E`) global address.
    pub e: bool,
    /// A store (of `io.data`) rather than a load (into it).
    pub store: bool,
    /// The memory space.
    pub space: LaneSpace,
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
        }
    }
}

/// Runs one memory instruction's accesses for the lanes in `exec` (see the module docs):
/// returns 1, having touched nothing, if any executing lane misses; else 0.
///
/// # Safety
/// `jcx` must be the live context of the running block: its hints point at mapped segments,
/// `shared` / `local` at the CTA's shared and local memory of the sizes it states.
pub unsafe extern "C" fn warpjit_jit_lanes(
    jcx: *mut JitCx,
    exec: u32,
    slot: u32,
    offset: i32,
    access: u32,
) -> u32 {
    // SAFETY: compiled code passes its own live context.
    let jcx = unsafe { &mut *jcx };
    let acc = LaneAccess::unpack(access);
    let bytes = acc.size.bytes();
    let mut ptrs = [std::ptr::null_mut::<u8>(); 32];
    let io = &mut jcx.io;
    match acc.space {
        LaneSpace::Global => {
            let h = jcx.hints[slot as usize % HINTS];
            let len = h.lens[bytes.trailing_zeros() as usize];
            let align = !(bytes as u64 - 1);
            for (l, p) in ptrs.iter_mut().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let base = acc.base.then(|| (io.lo[l], io.hi[l]));
                let a = effective_of(base, offset, acc.e) & align;
                let rel = a.wrapping_sub(h.lo);
                if rel >= len {
                    return 1;
                }
                *p = h.host.wrapping_add(rel) as *mut u8;
            }
        }
        LaneSpace::Shared | LaneSpace::Local => {
            let local = acc.space == LaneSpace::Local;
            let (base, len) = if local {
                (jcx.local, jcx.local_len)
            } else {
                (jcx.shared, jcx.shared_len)
            };
            // Offsets are 32-bit: `Ra + imm` wraps, then aligns down (docs/semantics.md §15).
            let len32 = len as u32;
            if len32 < bytes {
                return if exec == 0 { 0 } else { 1 };
            }
            for (l, p) in ptrs.iter_mut().enumerate() {
                if exec >> l & 1 == 0 {
                    continue;
                }
                let o = if acc.base {
                    io.lo[l].wrapping_add(offset as u32)
                } else {
                    offset as u32
                } & !(bytes - 1);
                if o > len32 - bytes {
                    return 1;
                }
                let lane = if local { l as u64 * len } else { 0 };
                *p = base.wrapping_add((lane + o as u64) as usize);
            }
        }
    }
    let words = acc.size.regs() as usize;
    for (l, p) in ptrs.iter().enumerate() {
        if p.is_null() {
            if !acc.store {
                for k in 0..words {
                    io.data[32 * k + l] = 0;
                }
            }
            continue;
        }
        // SAFETY: every pointer was checked above to lie, with its `bytes` bytes, inside a
        // mapped segment, shared memory or the lane's local memory.
        unsafe {
            if acc.store {
                let v = io.data[l];
                match acc.size {
                    MemSize::U8 | MemSize::S8 => p.write(v as u8),
                    MemSize::U16 | MemSize::S16 => (*p as *mut u16).write_unaligned(v as u16),
                    _ => {
                        for k in 0..words {
                            (p.add(4 * k) as *mut u32).write_unaligned(io.data[32 * k + l]);
                        }
                    }
                }
            } else {
                match acc.size {
                    MemSize::U8 => io.data[l] = p.read() as u32,
                    MemSize::S8 => io.data[l] = p.read() as i8 as u32,
                    MemSize::U16 => io.data[l] = (*p as *const u16).read_unaligned() as u32,
                    MemSize::S16 => io.data[l] = (*p as *const u16).read_unaligned() as i16 as u32,
                    _ => {
                        for k in 0..words {
                            io.data[32 * k + l] = (p.add(4 * k) as *const u32).read_unaligned();
                        }
                    }
                }
            }
        }
    }
    0
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
                    };
                    assert_eq!(LaneAccess::unpack(a.pack()), a);
                }
            }
        }
    }
}
