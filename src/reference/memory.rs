//! Loads and stores: `LDC` (docs/semantics.md §17), `LDG`/`STG` (§18), generic `LD`/`ST` (§20),
//! `LDS`/`STS` (§15) and `LDL`/`STL` (§15a), with the alignment rules of §16. Every lane's access is checked before
//! any lane writes (a faulting instruction has no effect) and the lowest faulting lane reports.
//! With an observer attached, each lane's access of an instruction that completes is reported.

use super::lanes::*;
use super::ops::*;
use crate::exec::{CtaEnv, FindingKind, MemSpace};
use crate::ir::*;
use crate::semantics::{effective, ldc_address, ldc_readable};
use warpjit_runtime::memory::{load_sized, load_u32, store_sized, store_u32, Access};
use warpjit_runtime::{Fault, FaultKind, WarpState, LANES};

impl Exec for Ldc {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let size = self.size.bytes();
        let imm5 = self.bank as u32;
        // Bank and (signed) address per lane (docs/semantics.md §17); with RZ the immediate is the
        // unsigned 16-bit address and every mode agrees.
        let (bank, addr): (Row, [i64; LANES]) = if self.a.is_rz() {
            (splat(imm5), [self.imm as i64; LANES])
        } else {
            let ra = reg(w, self.a);
            let (mode, imm) = (self.mode, self.imm);
            let at: [(u32, i64); LANES] =
                std::array::from_fn(|l| ldc_address(mode, imm5, imm, ra[l]));
            (
                std::array::from_fn(|l| at[l].0),
                std::array::from_fn(|l| at[l].1),
            )
        };
        let isl = self.mode == LdcMode::Isl;
        let nbanks = env.nbanks;
        let readable = move |bank: u32, addr: i64| ldc_readable(bank, addr, size, nbanks, isl);
        // Misaligned addresses fault (checked before the range); the lowest lane reports.
        let misaligned = mask_of(|l| addr[l] as u64 & (size as u64 - 1) != 0) & mask;
        if misaligned != 0 {
            let l = misaligned.trailing_zeros() as usize;
            let kind = FaultKind::MisalignedConstant {
                bank: bank[l],
                addr: addr[l] as u32,
                size,
            };
            return Err(Fault::new(kind, l as u32));
        }
        if env.check {
            for l in lanes(mask) {
                if !(isl && bank[l] > 13) && (env.nbanks..18).contains(&bank[l]) {
                    let b = bank[l];
                    env.finding(l, format!("LDC from constant bank {b}, not available in this launch's mode (reads 0)"));
                }
            }
        }
        if size == 4 {
            let row: Row = std::array::from_fn(|l| {
                if lane_on(mask, l) && readable(bank[l], addr[l]) {
                    env.consts.word(bank[l], addr[l] as u32)
                } else {
                    0
                }
            });
            put(w, self.d.0, &row, mask);
        } else {
            let mut words = [[0u32; 4]; LANES];
            for l in lanes(mask) {
                if readable(bank[l], addr[l]) {
                    words[l] = env
                        .consts
                        .read(bank[l], addr[l] as u32, size, self.size.signed());
                }
            }
            put_words(w, self.d, self.size.regs(), &words, mask);
        }
        if env.observe_mem {
            for l in lanes(mask) {
                let space = MemSpace::Const { bank: bank[l] };
                let data = get_words(w, self.d, self.size.regs(), l);
                env.access(l, space, addr[l] as u64, size, false, false, data);
            }
        }
        Ok(())
    }
}

/// Aligns an address down to the access size, counting the lane in
/// [`CtaEnv::misaligned`] when it had to (and a finding in checking mode: `space` is where the
/// access goes, `what` how the message names it, `store`/`atomic` its direction).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn align_down(
    env: &mut CtaEnv<'_>,
    ea: u64,
    size: u32,
    l: usize,
    space: MemSpace,
    what: &str,
    store: bool,
    atomic: bool,
) -> u64 {
    let a = ea & !(size as u64 - 1);
    if a != ea {
        env.misaligned += 1;
        if env.check {
            misaligned_finding(env, ea, size, l, space, what, store, atomic);
        }
    }
    a
}

/// The finding of an address `ea` aligned down to `size` (only in checking mode).
#[allow(clippy::too_many_arguments)]
#[cold]
fn misaligned_finding(
    env: &mut CtaEnv<'_>,
    ea: u64,
    size: u32,
    l: usize,
    space: MemSpace,
    what: &str,
    store: bool,
    atomic: bool,
) {
    let a = ea & !(size as u64 - 1);
    // Shared and local accesses report their offset (a generic one: its offset in the window).
    let addr = match space {
        MemSpace::Shared if what == "generic" => ea.wrapping_sub(env.shared_window),
        MemSpace::Local if what == "generic" => ea.wrapping_sub(env.local_window),
        _ => ea,
    };
    let kind = FindingKind::Misaligned {
        space,
        size,
        addr,
        store,
        atomic,
    };
    env.finding_of(
        l,
        kind,
        format!("misaligned {size}-byte {what} access at {ea:#x} aligned down to {a:#x}"),
    );
}

/// Loads from global memory: `Ok(None)` for a non-resident tile (data 0).
#[inline(always)]
fn global_load(
    env: &mut CtaEnv<'_>,
    ea: u64,
    size: MemSize,
    l: usize,
) -> Result<Option<[u32; 4]>, Fault> {
    let bytes = size.bytes();
    match env.mem.locate(ea, bytes, &mut env.hint) {
        Access::Host(p) => {
            let mut v = [0; 4];
            // SAFETY: `locate` checked that `bytes` bytes at the (aligned) address are mapped.
            unsafe { load_sized(p, bytes, size.signed(), &mut v) };
            Ok(Some(v))
        }
        Access::Sparse => Ok(None),
        Access::Unmapped => Err(Fault::new(
            FaultKind::IllegalAddress {
                addr: ea,
                size: bytes,
            },
            l as u32,
        )),
    }
}

/// The shared-memory byte range of an access at `offset` (64-bit, may be negative).
#[inline(always)]
pub(super) fn shared_range(
    env: &CtaEnv<'_>,
    offset: u64,
    bytes: u32,
    l: usize,
) -> Result<usize, Fault> {
    let len = env.shared.len() as u64;
    if offset < len && offset + bytes as u64 <= len {
        Ok(offset as usize)
    } else {
        Err(Fault::new(
            FaultKind::SharedOutOfRange {
                offset,
                size: bytes,
                shared_bytes: len as u32,
            },
            l as u32,
        ))
    }
}

fn shared_load(env: &CtaEnv<'_>, at: usize, size: MemSize) -> [u32; 4] {
    bytes_load(&env.shared[at..at + size.bytes() as usize], size)
}

/// The value of a `size` load from the bytes `b` (little-endian, `size.bytes()` of them).
fn bytes_load(b: &[u8], size: MemSize) -> [u32; 4] {
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

fn bytes_store(to: &mut [u8], bytes: u32, v: &[u32; 4]) {
    let mut raw = [0u8; 16];
    for (k, word) in v.iter().enumerate() {
        raw[4 * k..4 * k + 4].copy_from_slice(&word.to_le_bytes());
    }
    to[..bytes as usize].copy_from_slice(&raw[..bytes as usize]);
}

fn local_load(env: &CtaEnv<'_>, at: usize, size: MemSize) -> [u32; 4] {
    bytes_load(&env.local[at..at + size.bytes() as usize], size)
}

/// Aligned effective addresses of all 32 lanes (a branch-free loop), and the lanes whose
/// address had to be aligned down (a bit each).
#[inline(always)]
fn lane_addrs(w: &WarpState, addr: Addr, e: bool, bytes: u32) -> ([u64; LANES], u32) {
    let low = bytes as u64 - 1;
    let raw: [u64; LANES] = match addr.base {
        None => [addr.offset as u32 as u64; LANES],
        Some(r) if e => {
            let (lo, hi) = (&w.regs[r.index()], &w.regs[r.offset(1).index()]);
            let off = addr.offset as i64 as u64;
            std::array::from_fn(|l| ((hi[l] as u64) << 32 | lo[l] as u64).wrapping_add(off))
        }
        Some(r) => {
            let lo = &w.regs[r.index()];
            std::array::from_fn(|l| lo[l].wrapping_add(addr.offset as u32) as u64)
        }
    };
    let mut misaligned = 0u32;
    for (l, a) in raw.iter().enumerate() {
        misaligned |= ((a & low != 0) as u32) << l;
    }
    (raw.map(|a| a & !low), misaligned)
}

/// The fast path of a global access: when every executing lane's access lies in one segment
/// without sparse tiles, its (base, host base). With an observer that wants each lane's access,
/// or in checking mode when some lane's address is `misaligned`, the per-lane path runs, which
/// reports them.
#[inline(always)]
fn one_segment(
    env: &mut CtaEnv<'_>,
    ea: &[u64; LANES],
    mask: u32,
    bytes: u32,
    misaligned: u32,
) -> Option<(u64, *mut u8)> {
    if env.observer.is_some() && (env.observe_mem || env.check && misaligned & mask != 0) {
        return None;
    }
    let seg = env.mem.find(
        ea[mask.trailing_zeros() as usize],
        bytes as u64,
        &mut env.hint,
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
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let (ea, misaligned) = lane_addrs(w, self.addr, self.e, bytes);
        if let Some((base, host)) = one_segment(env, &ea, mask, bytes, misaligned) {
            // (The per-lane path counts in `align_down`.)
            env.misaligned += u64::from((misaligned & mask).count_ones());
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
            let raw = effective(w, self.addr, self.e, l);
            let ea = align_down(env, raw, bytes, l, MemSpace::Global, "global", false, false);
            match global_load(env, ea, self.size, l)? {
                Some(v) => words[l] = v,
                None => sparse |= 1 << l,
            }
        }
        let ea = |l| effective(w, self.addr, self.e, l);
        report(env, mask, 0, 0, bytes, false, ea, |l| words[l]);
        put_words(w, self.d, self.size.regs(), &words, mask);
        if let Some(p) = self.ps {
            w.set_pred(p.0, mask, sparse);
        }
        Ok(())
    }
}

/// Reports each executing lane's access to the observer, if any, once the instruction has
/// completed: the effective address `ea(l)` aligned down to `bytes`; for the lanes in `shared`
/// a shared-memory access at that address minus `base` (0 for LDS/STS, the window for generic
/// LD/ST), for the others a global access.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn report(
    env: &CtaEnv<'_>,
    mask: u32,
    shared: u32,
    base: u64,
    bytes: u32,
    store: bool,
    ea: impl Fn(usize) -> u64,
    data: impl Fn(usize) -> [u32; 4],
) {
    report_spaces(env, mask, shared, base, 0, bytes, store, ea, data);
}

/// [`report`] with local lanes too: for the lanes in `local` (not in `shared`), a local-memory
/// access at the address minus the local window (LDL/STL pass their offset plus the window).
/// `data(l)` is what lane `l` read or wrote.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn report_spaces(
    env: &CtaEnv<'_>,
    mask: u32,
    shared: u32,
    base: u64,
    local: u32,
    bytes: u32,
    store: bool,
    ea: impl Fn(usize) -> u64,
    data: impl Fn(usize) -> [u32; 4],
) {
    if !env.observe_mem {
        return;
    }
    for l in lanes(mask) {
        let a = ea(l) & !(bytes as u64 - 1);
        let (space, at) = if lane_on(shared, l) {
            (MemSpace::Shared, a.wrapping_sub(base))
        } else if lane_on(local, l) {
            (MemSpace::Local, a.wrapping_sub(env.local_window))
        } else {
            (MemSpace::Global, a)
        };
        env.access(l, space, at, bytes, store, false, data(l));
    }
}

/// Where one lane's store goes (checked for every lane before any lane stores).
#[derive(Clone, Copy)]
enum StoreTo {
    Nowhere,
    Host(*mut u8),
    Shared(usize),
    Local(usize),
}

fn locate_store(env: &mut CtaEnv<'_>, ea: u64, bytes: u32, l: usize) -> Result<StoreTo, Fault> {
    match env.mem.locate(ea, bytes, &mut env.hint) {
        Access::Host(p) => Ok(StoreTo::Host(p)),
        Access::Sparse => Ok(StoreTo::Nowhere),
        Access::Unmapped => Err(Fault::new(
            FaultKind::IllegalAddress {
                addr: ea,
                size: bytes,
            },
            l as u32,
        )),
    }
}

/// Performs checked stores in lane order (a later lane wins when two lanes store to one address).
fn commit_stores(
    w: &WarpState,
    env: &mut CtaEnv<'_>,
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
            StoreTo::Shared(at) => bytes_store(&mut env.shared[at..], bytes, &data),
            StoreTo::Local(at) => bytes_store(&mut env.local[at..], bytes, &data),
        }
    }
}

impl Exec for Stg {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let (ea, misaligned) = lane_addrs(w, self.addr, self.e, bytes);
        if let Some((base, host)) = one_segment(env, &ea, mask, bytes, misaligned) {
            // (The per-lane path counts in `align_down`.)
            env.misaligned += u64::from((misaligned & mask).count_ones());
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
            let raw = effective(w, self.addr, self.e, l);
            let ea = align_down(env, raw, bytes, l, MemSpace::Global, "global", true, false);
            to[l] = locate_store(env, ea, bytes, l)?;
        }
        commit_stores(w, env, &to, self.v, self.size, mask);
        let ea = |l| effective(w, self.addr, self.e, l);
        let data = |l| get_words(w, self.v, self.size.regs(), l);
        report(env, mask, 0, 0, bytes, true, ea, data);
        Ok(())
    }
}

impl Exec for Ld {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let global = pred_mask(w, self.steer);
        let mut words = [[0u32; 4]; LANES];
        let mut local = 0u32;
        for l in lanes(mask) {
            let raw = effective(w, self.addr, self.e, l);
            let ea = raw & !(bytes as u64 - 1);
            let space = generic_space(env, global, ea, l);
            align_down(env, raw, bytes, l, space, "generic", false, false);
            match space {
                MemSpace::Local => {
                    local |= 1 << l;
                    let at = env.local_range(ea.wrapping_sub(env.local_window), bytes, l)?;
                    words[l] = local_load(env, at, self.size);
                }
                MemSpace::Global => {
                    words[l] = global_load(env, ea, self.size, l)?.unwrap_or([0; 4]);
                }
                _ => {
                    let at = shared_range(env, ea.wrapping_sub(env.shared_window), bytes, l)?;
                    words[l] = shared_load(env, at, self.size);
                }
            }
        }
        let shared = !global;
        let ea = |l| effective(w, self.addr, self.e, l);
        let window = env.shared_window;
        report_spaces(env, mask, shared, window, local, bytes, false, ea, |l| {
            words[l]
        });
        put_words(w, self.d, self.size.regs(), &words, mask);
        Ok(())
    }
}

/// Where lane `l`'s generic access at the aligned address `ea` goes: shared memory unless the
/// steering predicate (`global`) holds, then local memory in the local window, else global.
#[inline(always)]
fn generic_space(env: &CtaEnv<'_>, global: u32, ea: u64, l: usize) -> MemSpace {
    if !lane_on(global, l) {
        MemSpace::Shared
    } else if env.in_local_window(ea) {
        MemSpace::Local
    } else {
        MemSpace::Global
    }
}

impl Exec for St {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let global = pred_mask(w, self.steer);
        let mut to = [StoreTo::Nowhere; LANES];
        let mut local = 0u32;
        for l in lanes(mask) {
            let raw = effective(w, self.addr, self.e, l);
            let ea = raw & !(bytes as u64 - 1);
            let space = generic_space(env, global, ea, l);
            align_down(env, raw, bytes, l, space, "generic", true, false);
            to[l] = match space {
                MemSpace::Local => {
                    local |= 1 << l;
                    StoreTo::Local(env.local_range(ea.wrapping_sub(env.local_window), bytes, l)?)
                }
                MemSpace::Global => locate_store(env, ea, bytes, l)?,
                _ => StoreTo::Shared(shared_range(
                    env,
                    ea.wrapping_sub(env.shared_window),
                    bytes,
                    l,
                )?),
            };
        }
        commit_stores(w, env, &to, self.v, self.size, mask);
        let shared = !global;
        let ea = |l| effective(w, self.addr, self.e, l);
        let data = |l| get_words(w, self.v, self.size.regs(), l);
        let window = env.shared_window;
        report_spaces(env, mask, shared, window, local, bytes, true, ea, data);
        Ok(())
    }
}

impl Exec for Lds {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut words = [[0u32; 4]; LANES];
        for l in lanes(mask) {
            let raw = effective(w, self.addr, false, l);
            let off = align_down(env, raw, bytes, l, MemSpace::Shared, "shared", false, false);
            let at = shared_range(env, off, bytes, l)?;
            words[l] = shared_load(env, at, self.size);
        }
        let ea = |l| effective(w, self.addr, false, l);
        report(env, mask, u32::MAX, 0, bytes, false, ea, |l| words[l]);
        put_words(w, self.d, self.size.regs(), &words, mask);
        Ok(())
    }
}

impl Exec for Sts {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut to = [StoreTo::Nowhere; LANES];
        for l in lanes(mask) {
            let raw = effective(w, self.addr, false, l);
            let off = align_down(env, raw, bytes, l, MemSpace::Shared, "shared", true, false);
            to[l] = StoreTo::Shared(shared_range(env, off, bytes, l)?);
        }
        commit_stores(w, env, &to, self.v, self.size, mask);
        let ea = |l| effective(w, self.addr, false, l);
        let data = |l| get_words(w, self.v, self.size.regs(), l);
        report(env, mask, u32::MAX, 0, bytes, true, ea, data);
        Ok(())
    }
}

impl Exec for Ldl {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut words = [[0u32; 4]; LANES];
        for l in lanes(mask) {
            let raw = effective(w, self.addr, false, l);
            let off = align_down(env, raw, bytes, l, MemSpace::Local, "local", false, false);
            let at = env.local_range(off, bytes, l)?;
            words[l] = local_load(env, at, self.size);
        }
        let ea = |l| effective(w, self.addr, false, l).wrapping_add(env.local_window);
        report_spaces(env, mask, 0, 0, u32::MAX, bytes, false, ea, |l| words[l]);
        put_words(w, self.d, self.size.regs(), &words, mask);
        Ok(())
    }
}

impl Exec for Stl {
    fn exec(&self, w: &mut WarpState, mask: u32, env: &mut CtaEnv<'_>) -> OpResult {
        let bytes = self.size.bytes();
        let mut to = [StoreTo::Nowhere; LANES];
        for l in lanes(mask) {
            let raw = effective(w, self.addr, false, l);
            let off = align_down(env, raw, bytes, l, MemSpace::Local, "local", true, false);
            to[l] = StoreTo::Local(env.local_range(off, bytes, l)?);
        }
        commit_stores(w, env, &to, self.v, self.size, mask);
        let ea = |l| effective(w, self.addr, false, l).wrapping_add(env.local_window);
        let data = |l| get_words(w, self.v, self.size.regs(), l);
        report_spaces(env, mask, 0, 0, u32::MAX, bytes, true, ea, data);
        Ok(())
    }
}
