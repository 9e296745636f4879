//! Global memory: a 64-bit byte address space in which only the trace's segments exist.
//!
//! Every segment is placed so that its host and guest addresses agree modulo 16: a naturally
//! aligned guest access (at most 16 bytes) is then a naturally aligned host access, which lets
//! every access go through `Atomic*` types with `Relaxed` ordering. That keeps CTAs that run on
//! several host threads and race on one address a guest-level race, never host undefined
//! behaviour. Where a segment lives:
//!
//! - **Small segments** (at most [`ARENA_SEGMENT_MAX`] bytes, zero-filled or with inline data)
//!   are packed into shared anonymous arenas of 64 MiB, 16-byte aligned, so that a trace with
//!   10^5 segments needs about as many host mappings as it has 64 MiB of data (Linux limits a
//!   process to `vm.max_map_count`, 65530 by default, mappings). Untouched arena pages cost no
//!   memory.
//! - **Larger segments** get their own anonymous `memmap2` map, placed so that host and guest
//!   addresses agree modulo 4096.
//! - **Segments initialised from a file** are always memory-mapped copy-on-write, whatever their
//!   size: an anonymous map of the whole segment, with the file mapped `MAP_PRIVATE | MAP_FIXED`
//!   over its first pages (the rest of the file's last page reads 0, and the pages past it are the
//!   anonymous zero-filled tail; no page past the file's end is ever file-backed, so no access can
//!   raise `SIGBUS`). The file's first byte is then at a page boundary, so such a segment's base
//!   must be a multiple of 16 ([`MemError::FileUnaligned`] otherwise); the file is never read
//!   into memory.
//!
//! - **Segments backed by host memory** ([`GlobalMemory::map_host`]) use memory their caller
//!   owns and keeps alive while the segment is mapped: a CUDA driver's page-locked and managed
//!   allocations, whose device address is their host address.
//!
//! A zero-filled or file-initialised segment's pages are populated when it is mapped (Linux's
//! `MADV_POPULATE_READ` for a file's pages, which maps the page cache's without copying it, and
//! `MADV_POPULATE_WRITE` for zero-filled ones), up to [`POPULATE_MAX`] bytes per address space, so that a launch
//! does not take a page fault on each page it first touches (on a 2-core VM, 2 ms of the peers'
//! 16 ms gather launch: 1,024 faults writing its 4 MiB output, more reading its input): a host
//! API's buffer upload does the same, before the work is timed. Past the bound, or on a kernel
//! without `MADV_POPULATE_WRITE` (before 5.14), pages are made on first touch as before.
//!
//! Segments are kept sorted by base: mapping is `O(log n)` to check overlaps, plus the insertion
//! (`O(1)` when segments are mapped in increasing address order, as the trace loader does).
//! [`GlobalMemory::unmap`] removes a segment between launches (its address then faults like any
//! other unmapped one); the bytes of an arena segment are not reused.
//!
//! Sparse tiles (docs/semantics.md §13) are a per-segment bitmap of non-resident 64 KiB tiles.

use memmap2::{MmapMut, MmapOptions};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Sparse-tile granularity.
pub const TILE_SIZE: u64 = 0x1_0000;

/// Largest zero-filled or inline-data segment packed into a shared arena (1 MiB); larger ones, and
/// every segment initialised from a file, get their own mapping.
pub const ARENA_SEGMENT_MAX: u64 = 1 << 20;

/// Bytes of one shared arena (address space only: untouched pages cost no memory).
const ARENA_SIZE: usize = 64 << 20;

/// Host and guest addresses of a segment in an arena or initialised from a file agree modulo this.
const HOST_ALIGN: u64 = 16;

/// A problem building global memory. Every variant is a trace (user) error.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
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
    /// A segment initialised from a file starts at an address that is not a multiple of 16: its
    /// file cannot be mapped with host and guest addresses agreeing modulo 16.
    #[error(
        "segment [{base:#x}, +{size:#x}) is initialised from a file, so its address must be a \
         multiple of 16 (the file is memory-mapped at a page boundary)"
    )]
    FileUnaligned {
        /// Base.
        base: u64,
        /// Size.
        size: u64,
    },
    /// The host could not map memory or the data file.
    #[error("cannot map memory: {0}")]
    Io(String),
    /// No segment starts at this address ([`GlobalMemory::unmap`]).
    #[error("no segment starts at {base:#x}")]
    NoSegment {
        /// The address given.
        base: u64,
    },
    /// A segment backed by host memory whose host address does not agree with its guest address
    /// modulo 16 ([`GlobalMemory::map_host`]).
    #[error(
        "segment [{base:#x}, +{size:#x}) would be backed by host memory at {host:#x}: host and \
         guest addresses must agree modulo 16"
    )]
    HostSkew {
        /// Base.
        base: u64,
        /// Size.
        size: u64,
        /// The host address given.
        host: u64,
    },
}

/// One mapped segment.
pub struct Segment {
    base: u64,
    size: u64,
    /// The segment's own map; `None` for a segment in an arena of its [`GlobalMemory`] or
    /// backed by host memory ([`GlobalMemory::map_host`]).
    _map: Option<MmapMut>,
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
    /// A file's bytes at the start (always memory-mapped copy-on-write), zeros after. The file
    /// must be a regular file, and must not shrink while the segment lives (a page of a mapped
    /// file past its end raises `SIGBUS`).
    File(&'a File),
}

/// The global address space.
#[derive(Default)]
pub struct GlobalMemory {
    /// Sorted by base, non-overlapping.
    segs: Vec<Segment>,
    /// Shared arenas holding small segments; the last one is being filled.
    arenas: Vec<MmapMut>,
    /// Bytes of the last arena in use.
    arena_used: usize,
    /// Bytes populated when mapped so far (at most [`POPULATE_MAX`]).
    populated: u64,
}

/// Most bytes of zero-filled and file-initialised segments one address space populates when they
/// are mapped (see the module docs): a trace's declared buffers commit host memory up to this when
/// loaded, used or not; beyond it, only the pages a launch touches.
pub const POPULATE_MAX: u64 = 256 << 20;

impl GlobalMemory {
    /// An empty address space.
    pub fn new() -> Self {
        Self::default()
    }

    /// The segments, sorted by base.
    pub fn segments(&self) -> &[Segment] {
        &self.segs
    }

    /// Maps a segment `[base, base + size)` with the given initial contents (see the module docs
    /// for where it is placed).
    pub fn map(&mut self, base: u64, size: u64, init: Init<'_>) -> Result<(), MemError> {
        let at = self.free_slot(base, size)?;
        let io = |e: std::io::Error| MemError::Io(e.to_string());
        let len = usize::try_from(size).map_err(|_| MemError::BadRange { base, size })?;
        let data_len = match init {
            Init::Zero => 0,
            Init::Bytes(b) => b.len() as u64,
            Init::File(f) => f.metadata().map_err(io)?.len(),
        };
        if data_len > size {
            return Err(MemError::DataTooLong {
                len: data_len,
                size,
            });
        }
        let (map, host) = match init {
            Init::File(f) => {
                if !base.is_multiple_of(HOST_ALIGN) {
                    return Err(MemError::FileUnaligned { base, size });
                }
                let mut m = map_file(f, data_len as usize, len)?;
                let host = m.as_mut_ptr();
                (Some(m), host)
            }
            _ if size <= ARENA_SEGMENT_MAX => (None, self.arena_alloc(base, len)?),
            _ => {
                let skew = (base % 4096) as usize;
                let mut m = MmapOptions::new().len(len + skew).map_anon().map_err(io)?;
                // SAFETY: skew < the map's length (len >= 1).
                let host = unsafe { m.as_mut_ptr().add(skew) };
                (Some(m), host)
            }
        };
        match init {
            Init::Bytes(b) => {
                // SAFETY: `host` starts `len >= b.len()` fresh bytes no other segment uses, and
                // no one else can reach them yet.
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), host, b.len()) };
            }
            Init::Zero | Init::File(_) if self.populated + size <= POPULATE_MAX => {
                self.populated += size;
                // A file's pages are mapped for reading (a kernel reads its inputs; a write
                // still copies its page then), the zero-filled rest for writing.
                let file = (data_len as usize).next_multiple_of(PAGE).min(len);
                advise_pages(host, file, libc::MADV_POPULATE_READ);
                let rest = host.wrapping_add(file);
                advise_pages(rest, len - file, libc::MADV_POPULATE_WRITE);
            }
            Init::Zero | Init::File(_) => {}
        }
        let seg = Segment {
            base,
            size,
            _map: map,
            host,
            sparse: Vec::new(),
        };
        self.segs.insert(at, seg);
        Ok(())
    }

    /// Maps a segment `[base, base + size)` backed by `size` bytes of host memory at `host`,
    /// which the caller owns: launches read and write those bytes themselves (a CUDA driver's
    /// page-locked and managed memory, where `host` is `base`). Host and guest addresses must
    /// agree modulo 16 ([`MemError::HostSkew`]), so that naturally aligned guest accesses are
    /// naturally aligned host accesses.
    ///
    /// # Safety
    /// `host` must point to `size` bytes that stay allocated, readable and writable until the
    /// segment is unmapped ([`GlobalMemory::unmap`]) or the `GlobalMemory` dropped; while a
    /// launch runs, the host may touch them only as a racing guest thread would.
    pub unsafe fn map_host(&mut self, base: u64, host: *mut u8, size: u64) -> Result<(), MemError> {
        if (host as u64) % HOST_ALIGN != base % HOST_ALIGN {
            return Err(MemError::HostSkew {
                base,
                size,
                host: host as u64,
            });
        }
        let at = self.free_slot(base, size)?;
        self.segs.insert(
            at,
            Segment {
                base,
                size,
                _map: None,
                host,
                sparse: Vec::new(),
            },
        );
        Ok(())
    }

    /// Removes the segment that starts at `base` (mapped by [`GlobalMemory::map`] or
    /// [`GlobalMemory::map_host`]); its addresses fault from then on. A segment's own map is
    /// released; the bytes of a small segment in a shared arena are left unused (zeroed
    /// with `madvise` where they cover whole pages); host memory is left to its owner.
    pub fn unmap(&mut self, base: u64) -> Result<(), MemError> {
        let i = self
            .segs
            .binary_search_by_key(&base, |s| s.base)
            .map_err(|_| MemError::NoSegment { base })?;
        let seg = self.segs.remove(i);
        if seg._map.is_none() && self.in_arena(seg.host) {
            advise_pages(seg.host, seg.size as usize, libc::MADV_DONTNEED);
        }
        Ok(())
    }

    /// Whether `host` lies in one of this memory's arenas.
    fn in_arena(&self, host: *mut u8) -> bool {
        self.arenas.iter().any(|a| {
            let start = a.as_ptr() as usize;
            (start..start + a.len()).contains(&(host as usize))
        })
    }

    /// Where a new segment `[base, base + size)` goes in the sorted list, or why it cannot.
    fn free_slot(&self, base: u64, size: u64) -> Result<usize, MemError> {
        let Some(last) = size.checked_sub(1).and_then(|m| base.checked_add(m)) else {
            return Err(MemError::BadRange { base, size });
        };
        let at = self.segs.partition_point(|s| s.base < base);
        let prev = at.checked_sub(1).map(|i| &self.segs[i]);
        if let Some(o) = prev
            .filter(|s| s.last() >= base)
            .or_else(|| self.segs.get(at).filter(|s| s.base <= last))
        {
            return Err(MemError::Overlap {
                base,
                size,
                other: o.base,
                other_size: o.size,
            });
        }
        Ok(at)
    }

    /// `len` (at most [`ARENA_SEGMENT_MAX`]) fresh zero bytes in an arena, at a host address equal
    /// to `base` modulo 16.
    fn arena_alloc(&mut self, base: u64, len: usize) -> Result<*mut u8, MemError> {
        let want = (base % HOST_ALIGN) as usize;
        let align = HOST_ALIGN as usize;
        loop {
            if let Some(a) = self.arenas.last_mut() {
                let used = self.arena_used;
                let start = used + (want + align - used % align) % align;
                if start + len <= a.len() {
                    self.arena_used = start + len;
                    // SAFETY: start + len <= the arena's length. The arena is page aligned, so
                    // the address is `want` modulo 16.
                    return Ok(unsafe { a.as_mut_ptr().add(start) });
                }
            }
            let arena = MmapOptions::new()
                .len(ARENA_SIZE)
                .map_anon()
                .map_err(|e| MemError::Io(e.to_string()))?;
            self.arenas.push(arena);
            self.arena_used = 0;
        }
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
            let (lo, hi) = (tile * TILE_SIZE, tile * TILE_SIZE + (TILE_SIZE - 1));
            let mut hit = false;
            // The segments meeting this tile: sorted and disjoint, so they are the ones just
            // before the first segment starting past the tile.
            let upto = self.segs.partition_point(|s| s.base <= hi);
            let from = self.segs[..upto].partition_point(|s| s.last() < lo);
            for s in &mut self.segs[from..upto] {
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
    /// segments but every byte must be mapped. See [`GlobalMemory::read_into`].
    pub fn read_bytes(&self, addr: u64, len: u64) -> Result<Vec<u8>, MemError> {
        // Checked before allocating: a huge unmapped `len` must not allocate.
        if !self.covers(addr, len) {
            return Err(MemError::Unmapped { addr, len });
        }
        let mut out = vec![0; len as usize];
        self.read_into(addr, &mut out)?;
        Ok(out)
    }

    /// Whether every byte of `[addr, addr + len)` lies in a mapped segment (`true` when `len` is
    /// 0). Takes `O(log n)` per segment the range spans.
    pub fn covers(&self, addr: u64, len: u64) -> bool {
        // Inclusive last bytes throughout: a range may end exactly at 2^64.
        let Some(last) = len.checked_sub(1).map(|m| addr.checked_add(m)) else {
            return true;
        };
        let Some(last) = last else {
            return false;
        };
        let mut at = addr;
        let Some(mut i) = self.segs.partition_point(|s| s.base <= at).checked_sub(1) else {
            return false;
        };
        while let Some(s) = self.segs.get(i).filter(|s| s.base <= at && at <= s.last()) {
            if s.last() >= last {
                return true;
            }
            at = s.last() + 1;
            i += 1;
        }
        false
    }

    /// Copies `out.len()` bytes from `addr` into `out` as loads would (non-resident tiles read 0),
    /// a segment (or a tile) at a time; the range may span adjacent segments but every byte must be
    /// mapped (else [`MemError::Unmapped`], `out` partly written). Reads with relaxed atomic loads,
    /// so it is sound even while engines run.
    pub fn read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), MemError> {
        let len = out.len() as u64;
        let unmapped = MemError::Unmapped { addr, len };
        if len == 0 {
            return Ok(());
        }
        // Inclusive last bytes throughout: a range may end exactly at 2^64.
        let last = addr.checked_add(len - 1).ok_or(unmapped.clone())?;
        let mut at = addr;
        let mut i = self
            .segs
            .partition_point(|s| s.base <= at)
            .checked_sub(1)
            .ok_or(unmapped.clone())?;
        loop {
            let s = self
                .segs
                .get(i)
                .filter(|s| s.base <= at && at <= s.last())
                .ok_or(unmapped.clone())?;
            let stop = s.last().min(last);
            loop {
                let upto = if s.has_sparse() {
                    (at / TILE_SIZE * TILE_SIZE + (TILE_SIZE - 1)).min(stop)
                } else {
                    stop
                };
                let dst = &mut out[(at - addr) as usize..=(upto - addr) as usize];
                if s.tile_is_sparse(at) {
                    dst.fill(0);
                } else {
                    // SAFETY: [at, upto] lies in the segment, so the bytes are in its map.
                    unsafe { copy_out(s.host.add((at - s.base) as usize), dst) };
                }
                if upto == stop {
                    break;
                }
                at = upto + 1;
            }
            if stop == last {
                return Ok(());
            }
            at = stop + 1;
            i += 1;
        }
    }

    /// Overwrites `bytes.len()` bytes from `addr` in the segments' memory (a non-resident tile's
    /// backing too: loads there still read 0). The range may span adjacent segments, but every
    /// byte must be mapped (else [`MemError::Unmapped`] and nothing is written). Takes `&mut
    /// self`, so no launch runs meanwhile: this is how a host resets a machine between runs
    /// without mapping it anew.
    pub fn write_bytes(&mut self, addr: u64, bytes: &[u8]) -> Result<(), MemError> {
        let len = bytes.len() as u64;
        if !self.covers(addr, len) {
            return Err(MemError::Unmapped { addr, len });
        }
        let mut done = 0usize;
        while done < bytes.len() {
            let at = addr + done as u64;
            // `covers` held, so a segment holds `at`.
            let i = self.segs.partition_point(|s| s.base <= at) - 1;
            let s = &self.segs[i];
            let n = ((s.last() - at) as usize)
                .saturating_add(1)
                .min(bytes.len() - done);
            // SAFETY: [at, at + n) lies in the segment's map; `&mut self` excludes every other
            // access to it.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes[done..].as_ptr(),
                    s.host.add((at - s.base) as usize),
                    n,
                )
            };
            done += n;
        }
        Ok(())
    }
}

/// The host page size the page rounding of [`advise_pages`] assumes.
const PAGE: usize = 4096;

/// `madvise(advice)` on the whole pages of `[host, host + len)` (a range holding none is left
/// alone): `MADV_DONTNEED` gives an arena segment's pages back to the kernel (they read 0 again
/// and cost no memory), `MADV_POPULATE_READ` and `MADV_POPULATE_WRITE` make a segment's pages
/// present now, as a first read or write of each would, their contents unchanged (a kernel
/// before Linux 5.14 refuses: they are made on first touch).
fn advise_pages(host: *mut u8, len: usize, advice: libc::c_int) {
    let start = (host as usize).next_multiple_of(PAGE);
    let end = (host as usize + len) / PAGE * PAGE;
    if end > start {
        // SAFETY: callers pass a range of a private mapping this memory owns: a segment just
        // mapped, whose bytes populating does not change, or an arena segment just removed,
        // which nothing else uses (MADV_DONTNEED on private anonymous memory only makes its
        // pages read 0 again).
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, advice) };
    }
}

/// Maps a segment of `len` bytes whose first `file_len` (at most `len`) come from `f`: an
/// anonymous map, with the file mapped privately over its first pages.
fn map_file(f: &File, file_len: usize, len: usize) -> Result<MmapMut, MemError> {
    let mut m = MmapOptions::new()
        .len(len)
        .map_anon()
        .map_err(|e| MemError::Io(e.to_string()))?;
    if file_len > 0 {
        // SAFETY: MAP_FIXED replaces pages of our own fresh anonymous map (`file_len <= len`, and
        // the kernel rounds up to the page holding the file's last byte, which the map covers),
        // which nothing references yet; `m` unmaps the whole range when dropped. The mapping is
        // private (copy-on-write): writes never reach the file. Another process truncating the file
        // could still fault the host; traces own their files.
        let p = unsafe {
            libc::mmap(
                m.as_mut_ptr().cast(),
                file_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                f.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(MemError::Io(std::io::Error::last_os_error().to_string()));
        }
    }
    Ok(m)
}

/// Copies `dst.len()` bytes from `src` with relaxed atomic loads (8 bytes at a time where aligned).
///
/// # Safety
/// `src` must point to `dst.len()` bytes of a live mapping.
unsafe fn copy_out(src: *mut u8, dst: &mut [u8]) {
    let n = dst.len();
    let head = (src.align_offset(8)).min(n);
    for (i, d) in dst[..head].iter_mut().enumerate() {
        *d = load_u8(src.add(i));
    }
    let words = (n - head) / 8;
    let out = dst.as_mut_ptr().add(head);
    for w in 0..words {
        // SAFETY: `head + 8 * w + 8 <= n`, inside `dst`; `src + head` is 8-aligned.
        std::ptr::write_unaligned(
            out.add(8 * w).cast::<u64>(),
            load_u64(src.add(head + 8 * w)).to_le(),
        );
    }
    let i = head + 8 * words;
    for (k, d) in dst[i..].iter_mut().enumerate() {
        *d = load_u8(src.add(i + k));
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

    #[test]
    fn write_bytes_spans_adjacent_segments_reaches_the_top_and_refuses_gaps() {
        let mut m = GlobalMemory::new();
        m.map(0x1000, 0x10, Init::Bytes(&[0xaa; 16])).unwrap();
        m.map(0x1010, 0x20_0000, Init::Zero).unwrap(); // its own map, not the arena
        m.map(0xffff_ffff_ffff_fff0, 0x10, Init::Zero).unwrap();
        m.write_bytes(0x100c, &[1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(
            m.read_bytes(0x100a, 10).unwrap(),
            [0xaa, 0xaa, 1, 2, 3, 4, 5, 6, 0, 0]
        );
        m.write_bytes(0xffff_ffff_ffff_fffe, &[7, 8]).unwrap();
        assert_eq!(m.read_bytes(0xffff_ffff_ffff_fffd, 3).unwrap(), [0, 7, 8]);
        // One byte past the second segment is unmapped: an error, and nothing written.
        let end = 0x1010 + 0x20_0000;
        assert_eq!(
            m.write_bytes(end - 2, &[9, 9, 9]),
            Err(MemError::Unmapped {
                addr: end - 2,
                len: 3
            })
        );
        assert_eq!(m.read_bytes(end - 2, 2).unwrap(), [0, 0]);
        assert!(m.write_bytes(0xffff_ffff_ffff_ffff, &[1, 2]).is_err());
        // An empty range needs no mapping.
        m.write_bytes(0x5000, &[]).unwrap();
    }

    /// A segment backed by host memory reads and writes those bytes; unmapping it (or any
    /// segment) makes its addresses fault and frees them for a new segment.
    #[test]
    fn host_backed_segments_and_unmap() {
        let mut m = GlobalMemory::new();
        let mut owned = vec![0u64; 8]; // 64 bytes, 8-aligned
        let host = owned.as_mut_ptr().cast::<u8>();
        let base = 0x7000_0000 + (host as u64 % 16);
        // SAFETY: `owned` outlives the segment (unmapped below).
        unsafe { m.map_host(base, host, 64) }.unwrap();
        m.write_bytes(base + 8, &[1, 2, 3, 4]).unwrap();
        let mut h = 0;
        let Access::Host(p) = m.locate(base + 8, 4, &mut h) else {
            panic!("unmapped")
        };
        assert_eq!(p, host.wrapping_add(8), "the host's own bytes");
        assert_eq!(owned[1], 0x0403_0201);
        // Skewed host and guest addresses are refused; so is an overlap.
        assert!(matches!(
            unsafe { m.map_host(base + 1, host, 8) },
            Err(MemError::HostSkew { .. })
        ));
        assert!(matches!(
            m.map(base + 32, 8, Init::Zero),
            Err(MemError::Overlap { .. })
        ));
        m.map(0x1000, 0x100, Init::Bytes(&[5; 0x100])).unwrap();
        m.map(0x10_0000, 0x20_0000, Init::Zero).unwrap(); // its own map
        for b in [base, 0x1000, 0x10_0000] {
            m.unmap(b).unwrap();
            assert_eq!(m.locate(b, 1, &mut h), Access::Unmapped);
            assert_eq!(m.unmap(b), Err(MemError::NoSegment { base: b }));
        }
        assert!(m.segments().is_empty());
        // The addresses can be mapped again, fresh.
        m.map(0x1000, 0x100, Init::Zero).unwrap();
        assert_eq!(m.read_bytes(0x10ff, 1).unwrap(), [0]);
        assert_eq!(owned[1], 0x0403_0201, "unmapping leaves host memory alone");
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

    #[test]
    fn overlap_is_found_on_either_side() {
        let mut m = GlobalMemory::new();
        m.map(0x1000, 0x100, Init::Zero).unwrap();
        m.map(0x3000, 0x100, Init::Zero).unwrap();
        for (base, size) in [
            (0x10ff, 1),
            (0xfff, 2),
            (0x2f00, 0x101),
            (0x1000, 1),
            (0, 0x4000),
        ] {
            assert!(
                matches!(m.map(base, size, Init::Zero), Err(MemError::Overlap { .. })),
                "{base:#x}+{size:#x}"
            );
        }
        m.map(0x1100, 0x1f00, Init::Zero).unwrap();
        assert!(m.covers(0x1000, 0x2100));
        assert!(!m.covers(0x1000, 0x2101));
        assert!(!m.covers(0xfff, 2));
    }

    #[test]
    fn a_hundred_thousand_small_segments_share_arenas() {
        let mut m = GlobalMemory::new();
        let n = 100_000u64;
        for i in 0..n {
            // Mixed skews, some with data.
            let base = 0x1_0000 + i * 0x40 + i % 16;
            let init = if i % 3 == 0 {
                Init::Bytes(&[1, 2, 3])
            } else {
                Init::Zero
            };
            m.map(base, 0x20, init).unwrap();
        }
        assert!(m.arenas.len() <= 2, "{} arenas", m.arenas.len());
        let mut h = 0;
        for i in [0, 1, 17, n - 1] {
            let base = 0x1_0000 + i * 0x40 + i % 16;
            let Access::Host(p) = m.locate(base, 1, &mut h) else {
                panic!("unmapped")
            };
            assert_eq!(p as u64 % 16, base % 16, "host and guest agree modulo 16");
            let want: &[u8] = if i % 3 == 0 { &[1, 2, 3, 0] } else { &[0; 4] };
            assert_eq!(m.read_bytes(base, 4).unwrap(), want);
        }
    }

    fn scratch_file(name: &str, bytes: &[u8]) -> File {
        let p = std::env::temp_dir().join(format!("warpjit-mem-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        let f = File::open(&p).unwrap();
        let _ = std::fs::remove_file(&p);
        f
    }

    /// How many of the whole pages in `[host, host + len)` are resident (`mincore`).
    fn resident(host: *mut u8, len: usize) -> usize {
        let start = (host as usize).next_multiple_of(4096);
        let end = (host as usize + len) / 4096 * 4096;
        let mut v = vec![0u8; (end - start) / 4096];
        // SAFETY: the range lies in a live mapping of the memory under test; `v` has a byte
        // per page.
        let r = unsafe { libc::mincore(start as *mut libc::c_void, end - start, v.as_mut_ptr()) };
        assert_eq!(r, 0, "mincore");
        v.iter().filter(|b| *b & 1 != 0).count()
    }

    /// Zero-filled segments (in an arena, and with their own map) and a file's segment are
    /// resident as soon as they are mapped, their contents unchanged; past `POPULATE_MAX` bytes
    /// a segment is not (its pages are made on first touch).
    #[test]
    fn segments_are_populated_when_mapped_up_to_the_bound() {
        // A kernel without MADV_POPULATE_WRITE (before Linux 5.14) populates nothing.
        let mut probe = MmapOptions::new().len(4096).map_anon().unwrap();
        // SAFETY: a fresh anonymous page of ours.
        let r =
            unsafe { libc::madvise(probe.as_mut_ptr().cast(), 4096, libc::MADV_POPULATE_WRITE) };
        if r != 0 {
            eprintln!("skipped: this kernel has no MADV_POPULATE_WRITE");
            return;
        }
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 + 1).collect();
        let f = scratch_file("populate", &data);
        let mut m = GlobalMemory::new();
        m.map(0x1_0000, 64 << 10, Init::Zero).unwrap();
        m.map(0x100_0000, 2 << 20, Init::Zero).unwrap();
        m.map(0x200_0000, 5000 + 8192, Init::File(&f)).unwrap();
        for (seg, pages) in m.segments().iter().zip([16, 512, 3]) {
            let n = resident(seg.host_base(), seg.size() as usize);
            assert_eq!(n, pages, "segment at {:#x}", seg.base());
        }
        assert_eq!(&m.read_bytes(0x200_0000, 5000).unwrap()[..], &data[..]);
        assert!(m
            .read_bytes(0x100_0000, 2 << 20)
            .unwrap()
            .iter()
            .all(|&b| b == 0));
        // 2 MiB + 76 KiB populated so far: 255 MiB more would pass the bound.
        m.map(0x1_0000_0000, 255 << 20, Init::Zero).unwrap();
        let big = &m.segments()[3];
        assert_eq!(resident(big.host_base(), big.size() as usize), 0);
    }

    #[test]
    fn files_are_mapped_at_any_size_with_a_zero_tail() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8 + 1).collect();
        let f = scratch_file("tail", &data);
        let mut m = GlobalMemory::new();
        // A page-unaligned base, and a segment two pages longer than the file.
        m.map(0x1_0010, 5000 + 8192, Init::File(&f)).unwrap();
        let s = &m.segments()[0];
        assert!(s._map.is_some(), "a file segment has its own mapping");
        assert_eq!(s.host_base() as u64 % 4096, 0, "the file starts a page");
        let got = m.read_bytes(0x1_0010, 5000 + 8192).unwrap();
        assert_eq!(&got[..5000], &data[..]);
        assert!(got[5000..].iter().all(|&b| b == 0));
        // Writes are private and land past the file's end too.
        let mut h = 0;
        for off in [0, 4999, 5000, 5000 + 8191] {
            let Access::Host(p) = m.locate(0x1_0010 + off, 1, &mut h) else {
                panic!("unmapped")
            };
            unsafe { store_u8(p, 0xee) };
            assert_eq!(m.read_bytes(0x1_0010 + off, 1).unwrap(), vec![0xee]);
        }
        assert!(matches!(
            m.map(0x2_0004, 5000, Init::File(&f)),
            Err(MemError::FileUnaligned { .. })
        ));
        assert!(matches!(
            m.map(0x3_0000, 4999, Init::File(&f)),
            Err(MemError::DataTooLong { .. })
        ));
        let empty = scratch_file("empty", &[]);
        m.map(0x4_0000, 16, Init::File(&empty)).unwrap();
        assert_eq!(m.read_bytes(0x4_0000, 16).unwrap(), vec![0; 16]);
    }

    #[test]
    fn read_into_spans_segments_and_sparse_tiles() {
        let mut m = GlobalMemory::new();
        m.map(0x1_fffd, 3, Init::Bytes(&[7, 8, 9])).unwrap();
        m.map(0x2_0000, 0x2_0000, Init::Bytes(&[1; 0x2_0000]))
            .unwrap();
        m.mark_sparse(0x2_0000, 0x1_0000).unwrap();
        let mut out = vec![0xaa; 0x1_0006];
        m.read_into(0x1_fffd, &mut out).unwrap();
        assert_eq!(&out[..3], &[7, 8, 9]);
        assert!(out[3..0x1_0003].iter().all(|&b| b == 0), "sparse tile");
        assert_eq!(&out[0x1_0003..], &[1, 1, 1]);
        let mut out = [0; 4];
        assert!(m.read_into(0x1_fffc, &mut out).is_err());
        assert!(m.read_into(0x3_fffe, &mut out).is_err());
        assert!(m.read_into(u64::MAX - 1, &mut out).is_err());
    }
}
