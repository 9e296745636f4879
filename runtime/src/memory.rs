//! Global memory: a 64-bit byte address space in which only the trace's segments exist.
//!
//! Each segment is an anonymous `memmap2` map (or a copy-on-write map of a data file), placed so
//! that host and guest addresses agree modulo 4096: a naturally aligned guest access is then a
//! naturally aligned host access, which lets every access go through `Atomic*` types with
//! `Relaxed` ordering. That keeps CTAs that run on several host threads and race on one address a
//! guest-level race, never host undefined behaviour.
//!
//! Sparse tiles (docs/semantics.md §13) are a per-segment bitmap of non-resident 64 KiB tiles.

use memmap2::{MmapMut, MmapOptions};
use std::fs::File;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Sparse-tile granularity.
pub const TILE_SIZE: u64 = 0x1_0000;

/// A problem building global memory. Every variant is a trace (user) error.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MemError {
    /// Two segments overlap.
    #[error("segment [{base:#x}, +{size:#x}) overlaps segment [{other:#x}, +{other_size:#x})")]
    Overlap {
        /// New segment's base.
        base: u64,
        /// New segment's size.
        size: u64,
        /// Existing segment's base.
        other: u64,
        /// Existing segment's size.
        other_size: u64,
    },
    /// A segment runs past the end of the 64-bit address space (it may end exactly at 2^64) or
    /// has size 0.
    #[error("segment [{base:#x}, +{size:#x}) is empty or wraps the 64-bit address space")]
    BadRange {
        /// Base.
        base: u64,
        /// Size.
        size: u64,
    },
    /// Initial data longer than the segment.
    #[error("initial data ({len} bytes) is larger than the segment ({size} bytes)")]
    DataTooLong {
        /// Data length.
        len: u64,
        /// Segment size.
        size: u64,
    },
    /// A sparse region is not 64 KiB aligned or not inside mapped memory.
    #[error("sparse region [{addr:#x}, +{size:#x}) {why}")]
    BadSparse {
        /// Region base.
        addr: u64,
        /// Region size.
        size: u64,
        /// Why it is rejected.
        why: &'static str,
    },
    /// A range read for an expectation is not mapped.
    #[error("range [{addr:#x}, +{len:#x}) is not inside mapped global memory")]
    Unmapped {
        /// Start.
        addr: u64,
        /// Length.
        len: u64,
    },
    /// The host could not map memory or the data file.
    #[error("cannot map memory: {0}")]
    Io(String),
}

/// One mapped segment.
pub struct Segment {
    base: u64,
    size: u64,
    _map: MmapMut,
    /// Host address of guest byte `base`.
    host: *mut u8,
    /// Bit per tile from `base / TILE_SIZE`: set = non-resident. Empty = no sparse tiles.
    sparse: Vec<u64>,
}

// SAFETY: the map is owned by the segment and every access goes through atomics.
unsafe impl Send for Segment {}
// SAFETY: as above; shared access only performs atomic loads and stores.
unsafe impl Sync for Segment {}

impl Segment {
    /// Guest base address.
    pub fn base(&self) -> u64 {
        self.base
    }
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }
    /// The address of the last byte (inclusive, so that a segment may end exactly at 2^64).
    pub fn last(&self) -> u64 {
        self.base + (self.size - 1)
    }
    /// Host pointer of guest byte `base` (for JIT code).
    pub fn host_base(&self) -> *mut u8 {
        self.host
    }
    /// Whether any tile of this segment is sparse.
    pub fn has_sparse(&self) -> bool {
        !self.sparse.is_empty()
    }
    /// Whether every byte of `[addr, addr + len)` lies in this segment. No arithmetic here can
    /// wrap: `addr - base` is taken only when `addr >= base`, and compared with `size - len` only
    /// when `len <= size`.
    #[inline]
    pub fn holds(&self, addr: u64, len: u64) -> bool {
        addr >= self.base && len <= self.size && addr - self.base <= self.size - len
    }
    /// Whether the tile holding `addr` (inside this segment) is non-resident.
    #[inline]
    pub fn tile_is_sparse(&self, addr: u64) -> bool {
        if self.sparse.is_empty() {
            return false;
        }
        let t = (addr / TILE_SIZE - self.base / TILE_SIZE) as usize;
        self.sparse
            .get(t / 64)
            .is_some_and(|w| w >> (t % 64) & 1 != 0)
    }
}

/// Where an access lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Mapped and resident: the host address of the first byte.
    Host(*mut u8),
    /// Mapped but in a non-resident tile: reads give 0, writes are dropped.
    Sparse,
    /// Outside every segment (or straddling a segment's end): a fault.
    Unmapped,
}

/// Initial contents of a segment.
pub enum Init<'a> {
    /// Zero-filled.
    Zero,
    /// These bytes at the start, zeros after.
    Bytes(&'a [u8]),
    /// A file's bytes at the start (memory-mapped copy-on-write when possible), zeros after.
    File(&'a File),
}

/// The global address space.
#[derive(Default)]
pub struct GlobalMemory {
    /// Sorted by base, non-overlapping.
    segs: Vec<Segment>,
}

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> Self {
        Self::default()
    }

    /// The segments, sorted by base.
    pub fn segments(&self) -> &[Segment] {
        &self.segs
    }

    /// Maps a segment `[base, base + size)` with the given initial contents.
    pub fn map(&mut self, base: u64, size: u64, init: Init<'_>) -> Result<(), MemError> {
        let Some(last) = size.checked_sub(1).and_then(|m| base.checked_add(m)) else {
            return Err(MemError::BadRange { base, size });
        };
        if let Some(o) = self
            .segs
            .iter()
            .find(|s| base <= s.last() && s.base <= last)
        {
            return Err(MemError::Overlap {
                base,
                size,
                other: o.base,
                other_size: o.size,
            });
        }
        let io = |e: std::io::Error| MemError::Io(e.to_string());
        let skew = (base % 4096) as usize;
        let len = usize::try_from(size).map_err(|_| MemError::BadRange { base, size })?;
        let map = match init {
            Init::File(f) => {
                let flen = f.metadata().map_err(io)?.len();
                if flen > size {
                    return Err(MemError::DataTooLong { len: flen, size });
                }
                if skew == 0 && flen == size {
                    // SAFETY: a private (copy-on-write) map: writes never reach the file. Another
                    // process truncating the file could still fault the host; traces own their files.
                    unsafe { MmapOptions::new().len(len).map_copy(f) }.map_err(io)?
                } else {
                    let mut m = MmapOptions::new().len(len + skew).map_anon().map_err(io)?;
                    let mut r = std::io::BufReader::new(f);
                    std::io::Read::read_exact(&mut r, &mut m[skew..skew + flen as usize])
                        .map_err(io)?;
                    m
                }
            }
            Init::Bytes(b) => {
                if b.len() as u64 > size {
                    return Err(MemError::DataTooLong {
                        len: b.len() as u64,
                        size,
                    });
                }
                let mut m = MmapOptions::new().len(len + skew).map_anon().map_err(io)?;
                m[skew..skew + b.len()].copy_from_slice(b);
                m
            }
            Init::Zero => MmapOptions::new().len(len + skew).map_anon().map_err(io)?,
        };
        let mut map = map;
        // SAFETY: skew < map length (len >= 1).
        let host = unsafe { map.as_mut_ptr().add(skew) };
        let seg = Segment {
            base,
            size,
            _map: map,
            host,
            sparse: Vec::new(),
        };
        let at = self.segs.partition_point(|s| s.base < base);
        self.segs.insert(at, seg);
        Ok(())
    }

    /// Marks `[addr, addr + size)` non-resident; it must be 64 KiB aligned and lie in mapped
    /// segments (a tile may be only partly covered by a segment).
    pub fn mark_sparse(&mut self, addr: u64, size: u64) -> Result<(), MemError> {
        let bad = |why| MemError::BadSparse { addr, size, why };
        if !addr.is_multiple_of(TILE_SIZE) || !size.is_multiple_of(TILE_SIZE) || size == 0 {
            return Err(bad(
                "must be 64 KiB aligned with a non-zero size a multiple of 64 KiB",
            ));
        }
        // Tile numbers, inclusive: no arithmetic here reaches 2^64.
        let first_tile = addr / TILE_SIZE;
        let last_tile = (size / TILE_SIZE - 1)
            .checked_add(first_tile)
            .filter(|t| *t <= u64::MAX / TILE_SIZE)
            .ok_or(bad("wraps the address space"))?;
        for tile in first_tile..=last_tile {
            let mut hit = false;
            for s in self
                .segs
                .iter_mut()
                .filter(|s| s.base / TILE_SIZE <= tile && tile <= s.last() / TILE_SIZE)
            {
                let first = s.base / TILE_SIZE;
                let ntiles = (s.last() / TILE_SIZE - first + 1) as usize;
                if s.sparse.is_empty() {
                    s.sparse = vec![0; ntiles.div_ceil(64)];
                }
                let t = (tile - first) as usize;
                s.sparse[t / 64] |= 1 << (t % 64);
                hit = true;
            }
            if !hit {
                return Err(bad("is not inside mapped global memory"));
            }
        }
        Ok(())
    }

    /// Finds the segment holding every byte of `[addr, addr + len)`, starting the search at
    /// `*hint` (updated). Exact for every `addr` and `len`: a range that wraps past 2^64, or runs
    /// past a segment's end, is in no segment.
    #[inline]
    pub fn find(&self, addr: u64, len: u64, hint: &mut usize) -> Option<&Segment> {
        if let Some(s) = self.segs.get(*hint) {
            if s.holds(addr, len) {
                return Some(s);
            }
        }
        let i = self
            .segs
            .partition_point(|s| s.base <= addr)
            .checked_sub(1)?;
        let s = &self.segs[i];
        if s.holds(addr, len) {
            *hint = i;
            Some(s)
        } else {
            None
        }
    }

    /// Where a `len`-byte access at `addr` lands. The access must fit in one segment.
    #[inline]
    pub fn locate(&self, addr: u64, len: u32, hint: &mut usize) -> Access {
        match self.find(addr, len as u64, hint) {
            None => Access::Unmapped,
            Some(s) if s.tile_is_sparse(addr) => Access::Sparse,
            // SAFETY: addr is inside the segment, so the offset is inside its map.
            Some(s) => Access::Host(unsafe { s.host.add((addr - s.base) as usize) }),
        }
    }

    /// Whether the tile holding `addr` is mapped and non-resident.
    pub fn is_sparse(&self, addr: u64) -> bool {
        let mut h = 0;
        self.find(addr, 1, &mut h)
            .is_some_and(|s| s.tile_is_sparse(addr))
    }

    /// Reads `len` bytes as loads would (non-resident tiles read 0); the range may span adjacent
    /// segments but every byte must be mapped.
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, MemError> {
        let mut out = Vec::with_capacity(len as usize);
        let mut hint = 0;
        for i in 0..len {
            let a = addr
                .checked_add(i)
                .ok_or(MemError::Unmapped { addr, len })?;
            match self.locate(a, 1, &mut hint) {
                // SAFETY: locate returned a host address of a mapped byte.
                Access::Host(p) => out.push(unsafe { load_u8(p) }),
                Access::Sparse => out.push(0),
                Access::Unmapped => return Err(MemError::Unmapped { addr, len }),
            }
        }
        Ok(out)
    }
}

/// Loads a byte.
///
/// # Safety
/// `p` must point into a live mapping.
#[inline]
pub unsafe fn load_u8(p: *mut u8) -> u8 {
    AtomicU8::from_ptr(p).load(Relaxed)
}
/// Loads a little-endian `u16`.
///
/// # Safety
/// `p` must point into a live mapping and be 2-aligned.
#[inline]
pub unsafe fn load_u16(p: *mut u8) -> u16 {
    u16::from_le(AtomicU16::from_ptr(p.cast()).load(Relaxed))
}
/// Loads a little-endian `u32`.
///
/// # Safety
/// `p` must point into a live mapping and be 4-aligned.
#[inline]
pub unsafe fn load_u32(p: *mut u8) -> u32 {
    u32::from_le(AtomicU32::from_ptr(p.cast()).load(Relaxed))
}
/// Loads a little-endian `u64`.
///
/// # Safety
/// `p` must point into a live mapping and be 8-aligned.
#[inline]
pub unsafe fn load_u64(p: *mut u8) -> u64 {
    u64::from_le(AtomicU64::from_ptr(p.cast()).load(Relaxed))
}
/// Stores a byte.
///
/// # Safety
/// `p` must point into a live mapping.
#[inline]
pub unsafe fn store_u8(p: *mut u8, v: u8) {
    AtomicU8::from_ptr(p).store(v, Relaxed)
}
/// Stores a little-endian `u16`.
///
/// # Safety
/// `p` must point into a live mapping and be 2-aligned.
#[inline]
pub unsafe fn store_u16(p: *mut u8, v: u16) {
    AtomicU16::from_ptr(p.cast()).store(v.to_le(), Relaxed)
}
/// Stores a little-endian `u32`.
///
/// # Safety
/// `p` must point into a live mapping and be 4-aligned.
#[inline]
pub unsafe fn store_u32(p: *mut u8, v: u32) {
    AtomicU32::from_ptr(p.cast()).store(v.to_le(), Relaxed)
}
/// Stores a little-endian `u64`.
///
/// # Safety
/// `p` must point into a live mapping and be 8-aligned.
#[inline]
pub unsafe fn store_u64(p: *mut u8, v: u64) {
    AtomicU64::from_ptr(p.cast()).store(v.to_le(), Relaxed)
}

/// Loads `words` 32-bit words (1, 2 or 4) or a sub-word value (`bytes` < 4, extended per `signed`).
///
/// # Safety
/// `p` must point into a live mapping, aligned to `bytes`, with `bytes` bytes available.
#[inline]
pub unsafe fn load_sized(p: *mut u8, bytes: u32, signed: bool, out: &mut [u32; 4]) {
    match bytes {
        1 => {
            out[0] = if signed {
                load_u8(p) as i8 as i32 as u32
            } else {
                load_u8(p) as u32
            }
        }
        2 => {
            out[0] = if signed {
                load_u16(p) as i16 as i32 as u32
            } else {
                load_u16(p) as u32
            }
        }
        4 => out[0] = load_u32(p),
        8 => {
            let v = load_u64(p);
            out[0] = v as u32;
            out[1] = (v >> 32) as u32;
        }
        _ => {
            let lo = load_u64(p);
            let hi = load_u64(p.add(8));
            *out = [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32];
        }
    }
}

/// Stores `bytes` bytes (1, 2, 4, 8 or 16) from `v` (little-endian word order).
///
/// # Safety
/// `p` must point into a live mapping, aligned to `bytes`, with `bytes` bytes available.
#[inline]
pub unsafe fn store_sized(p: *mut u8, bytes: u32, v: &[u32; 4]) {
    match bytes {
        1 => store_u8(p, v[0] as u8),
        2 => store_u16(p, v[0] as u16),
        4 => store_u32(p, v[0]),
        8 => store_u64(p, v[0] as u64 | (v[1] as u64) << 32),
        _ => {
            store_u64(p, v[0] as u64 | (v[1] as u64) << 32);
            store_u64(p.add(8), v[2] as u64 | (v[3] as u64) << 32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_read_write_and_alignment_skew() {
        let mut m = GlobalMemory::new();
        m.map(0x1_0004, 16, Init::Bytes(&[1, 2, 3, 4, 5, 6, 7, 8]))
            .unwrap();
        let mut h = 0;
        let Access::Host(p) = m.locate(0x1_0008, 4, &mut h) else {
            panic!("unmapped")
        };
        assert_eq!(p as usize % 4, 0, "host alignment follows guest alignment");
        assert_eq!(unsafe { load_u32(p) }, 0x0807_0605);
        assert_eq!(
            m.locate(0x1_0010, 8, &mut h),
            Access::Unmapped,
            "straddles the end"
        );
        assert_eq!(m.locate(0x1_0000, 4, &mut h), Access::Unmapped);
        assert_eq!(m.read_bytes(0x1_0004, 3).unwrap(), vec![1, 2, 3]);
    }

    /// The model: an access lands in a segment when every one of its bytes does, computed in
    /// 128 bits so that nothing can wrap.
    fn model_holds(segs: &[(u64, u64)], addr: u64, len: u64) -> Option<u64> {
        let (a, e) = (addr as u128, addr as u128 + len as u128);
        segs.iter()
            .find(|(b, s)| *b as u128 <= a && e <= *b as u128 + *s as u128)
            .map(|(b, _)| *b)
    }

    #[test]
    fn every_size_at_both_ends_of_segments_at_zero_and_at_the_top() {
        // Sizes that are not multiples of 16 leave a short tail at each end; one segment ends
        // exactly at 2^64.
        let segs = [
            (0u64, 0x1009u64),
            (0x2_0000, 0x1008),
            (0x3_0000, 0x3),
            (0xffff_ffff_ffff_e000, 0xff1),
            (0xffff_ffff_ffff_f000, 0x1000),
        ];
        let mut m = GlobalMemory::new();
        for (b, s) in segs {
            m.map(b, s, Init::Zero).unwrap();
        }
        let mut probes = Vec::new();
        for (b, s) in segs {
            for edge in [b, b.wrapping_add(s)] {
                for d in 0..40u64 {
                    probes.push(edge.wrapping_add(d));
                    probes.push(edge.wrapping_sub(d));
                }
            }
        }
        for addr in probes {
            for len in [1u64, 2, 4, 8, 16] {
                let want = model_holds(&segs, addr, len);
                let mut hint = 0;
                let got = m.find(addr, len, &mut hint).map(|s| s.base());
                assert_eq!(got, want, "find({addr:#x}, {len})");
                // Through every hint, too: a stale hint must not accept what it does not hold.
                for h in 0..segs.len() {
                    let mut hint = h;
                    assert_eq!(m.find(addr, len, &mut hint).map(|s| s.base()), want);
                }
                let host = m.locate(addr, len as u32, &mut hint);
                match (want, host) {
                    (None, Access::Unmapped) => {}
                    (Some(b), Access::Host(p)) => {
                        let seg = m.segments().iter().find(|s| s.base() == b).unwrap();
                        let off = p as usize - seg.host_base() as usize;
                        assert_eq!(off as u64, addr - b);
                        assert!(off as u64 + len <= seg.size());
                    }
                    other => panic!("locate({addr:#x}, {len}) = {other:?}"),
                }
            }
        }
    }

    #[test]
    fn segment_ranges_up_to_the_top_of_the_address_space() {
        let mut m = GlobalMemory::new();
        m.map(u64::MAX, 1, Init::Bytes(&[0xab])).unwrap();
        assert_eq!(m.read_bytes(u64::MAX, 1).unwrap(), vec![0xab]);
        assert!(m.read_bytes(u64::MAX, 2).is_err());
        assert!(matches!(
            m.map(u64::MAX - 1, 2, Init::Zero),
            Err(MemError::Overlap { .. })
        ));
        assert!(matches!(
            m.map(u64::MAX, 2, Init::Zero),
            Err(MemError::BadRange { .. })
        ));
        m.map(0xffff_ffff_fffe_0000, 0x1_0000, Init::Zero).unwrap();
        m.mark_sparse(0xffff_ffff_ffff_0000, 0x1_0000).unwrap();
        assert!(m.is_sparse(u64::MAX));
        assert!(!m.is_sparse(0xffff_ffff_fffe_0000));
        assert!(m.mark_sparse(0xffff_ffff_ffff_0000, 0x2_0000).is_err());
    }

    #[test]
    fn overlap_and_sparse_rules() {
        let mut m = GlobalMemory::new();
        m.map(0x20000, 0x30000, Init::Zero).unwrap();
        assert!(matches!(
            m.map(0x2ffff, 2, Init::Zero),
            Err(MemError::Overlap { .. })
        ));
        assert!(m.mark_sparse(0x30000, 0x8000).is_err());
        assert!(m.mark_sparse(0x90000, 0x10000).is_err());
        m.mark_sparse(0x30000, 0x10000).unwrap();
        let mut h = 0;
        assert_eq!(m.locate(0x30010, 4, &mut h), Access::Sparse);
        assert!(matches!(m.locate(0x2fffc, 4, &mut h), Access::Host(_)));
        assert!(matches!(m.locate(0x40000, 4, &mut h), Access::Host(_)));
        assert!(m.is_sparse(0x3ffff));
        assert_eq!(m.read_bytes(0x3fffe, 4).unwrap(), vec![0, 0, 0, 0]);
    }
}
