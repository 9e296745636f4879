//! Where the driver's memory lives.
//!
//! Device, page-locked and managed allocations come from one range of the host's address space
//! that the driver reserves at start (`PROT_NONE`, no memory committed): an allocation makes its
//! pages readable and writable and is mapped into the guest at the same address
//! ([`warpjit::GlobalMemory::map_host`]). So a device pointer is also a host pointer to the same
//! bytes: unified addressing, page-locked memory whose device pointer is its host pointer, and
//! managed memory valid on host and device. The range is reserved at a fixed address when it is
//! free ([`VA_BASE`]), so addresses are the same from run to run (recordings replay at them),
//! 256-aligned (allocations are whole pages) and never 0. Host memory registered with
//! `cuMemHostRegister` is mapped into the guest where it is.
//!
//! The generic shared and local windows are reserved below 4 GiB the same way, so that no host
//! memory a kernel may reach lies inside them.

use std::collections::BTreeMap;

/// Where the driver tries to reserve its address range (32 TiB: far from where Linux places
/// programs, heaps and libraries).
pub const VA_BASE: u64 = 0x2000_0000_0000;
/// The size of the reserved range (1 TiB of address space; what may be allocated is limited by
/// the reported device memory, [`crate::device::DEFAULT_MEMORY`]).
pub const VA_SIZE: u64 = 1 << 40;
/// Allocation granularity (a host page).
pub const PAGE: u64 = 4096;

/// The reserved range and the free parts of it.
pub struct Va {
    base: u64,
    size: u64,
    /// Free ranges: start -> length, disjoint and coalesced.
    free: BTreeMap<u64, u64>,
}

/// Reserves `size` bytes of address space, at `at` if that range is free, else where the
/// kernel puts it. `None` if the host refuses.
pub fn reserve(at: u64, size: u64) -> Option<u64> {
    // SAFETY: a fresh private mapping with no access; MAP_FIXED_NOREPLACE never replaces an
    // existing mapping.
    unsafe {
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
        let p = libc::mmap(
            at as *mut libc::c_void,
            size as usize,
            libc::PROT_NONE,
            flags | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        );
        if p != libc::MAP_FAILED && p as u64 == at {
            return Some(at);
        }
        if p != libc::MAP_FAILED {
            libc::munmap(p, size as usize);
        }
        let p = libc::mmap(
            std::ptr::null_mut(),
            size as usize,
            libc::PROT_NONE,
            flags,
            -1,
            0,
        );
        (p != libc::MAP_FAILED).then_some(p as u64)
    }
}

/// Reserves a 16 MiB-aligned window of `size` bytes below 4 GiB (for the generic shared and
/// local windows), trying 16 MiB-aligned addresses from 1 GiB up.
pub fn reserve_low_window(size: u64) -> Option<u64> {
    let mut at = 0x4000_0000u64;
    while at + size <= 1 << 32 {
        // SAFETY: as in `reserve`; MAP_FIXED_NOREPLACE fails rather than replace a mapping.
        let p = unsafe {
            libc::mmap(
                at as *mut libc::c_void,
                size as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE
                    | libc::MAP_ANONYMOUS
                    | libc::MAP_NORESERVE
                    | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED && p as u64 == at {
            return Some(at);
        }
        if p != libc::MAP_FAILED {
            // SAFETY: unmaps the mapping just made elsewhere (an old kernel ignoring NOREPLACE).
            unsafe { libc::munmap(p, size as usize) };
        }
        at += 0x100_0000;
    }
    None
}

impl Va {
    /// The range `[base, base + size)`, all free.
    pub fn new(base: u64, size: u64) -> Va {
        let mut free = BTreeMap::new();
        free.insert(base, size);
        Va { base, size, free }
    }

    /// Whether `addr` lies in the reserved range.
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base && addr - self.base < self.size
    }

    /// Takes `bytes` (rounded up to pages) at the lowest free address, made readable and
    /// writable (zeros). `None` if no free range is large enough or the host refuses.
    pub fn alloc(&mut self, bytes: u64) -> Option<u64> {
        let len = bytes.max(1).checked_next_multiple_of(PAGE)?;
        let (&start, &avail) = self.free.iter().find(|(_, &l)| l >= len)?;
        // SAFETY: [start, start + len) lies in the reserved range, which only this allocator
        // hands out; it is free, so nothing else uses it.
        let ok = unsafe {
            libc::mprotect(
                start as *mut libc::c_void,
                len as usize,
                libc::PROT_READ | libc::PROT_WRITE,
            ) == 0
        };
        if !ok {
            return None;
        }
        self.free.remove(&start);
        if avail > len {
            self.free.insert(start + len, avail - len);
        }
        Some(start)
    }

    /// Gives back an allocation of `bytes` at `start` (as [`Va::alloc`] made it): its pages are
    /// released (they read 0 when allocated again) and made inaccessible.
    pub fn free(&mut self, start: u64, bytes: u64) {
        let len = bytes.max(1).next_multiple_of(PAGE);
        // SAFETY: the range was allocated by `alloc` and is no longer mapped into the guest or
        // handed to the program.
        unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                len as usize,
                libc::MADV_DONTNEED,
            );
            libc::mprotect(start as *mut libc::c_void, len as usize, libc::PROT_NONE);
        }
        let mut s = start;
        let mut l = len;
        if let Some((&ps, &pl)) = self.free.range(..start).next_back() {
            if ps + pl == start {
                self.free.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.free.get(&(start + len)) {
            self.free.remove(&(start + len));
            l += nl;
        }
        self.free.insert(s, l);
    }
}

/// Re-backs the `len` bytes at `start` (page-aligned, readable and writable pages of the
/// reserved range, as [`Va::alloc`] made them) by a new memory file (`memfd_create`), mapped
/// `MAP_SHARED` at the same address with the same contents, so that another process can map
/// the same pages (CUDA IPC, [`crate::ipc`]). The caller holds the machine's write lock, so
/// that nothing reads or writes the range meanwhile. The file, or the host's error.
///
/// # Safety
/// `[start, start + len)` must be such a range, owned by the caller.
pub unsafe fn share(start: u64, len: u64) -> std::io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let fd = libc::memfd_create(c"warpjit-ipc".as_ptr(), libc::MFD_CLOEXEC);
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let fd = OwnedFd::from_raw_fd(fd);
    if libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // The current contents into the file, then the file over them.
    let mut done = 0u64;
    while done < len {
        let n = libc::pwrite(
            fd.as_raw_fd(),
            (start + done) as *const libc::c_void,
            (len - done) as usize,
            done as libc::off_t,
        );
        if n <= 0 {
            let e = std::io::Error::last_os_error();
            if n < 0 && e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        done += n as u64;
    }
    map_file(start, len, &fd)?;
    Ok(fd)
}

/// Maps the first `len` bytes of the memory file `fd` at `start` (`MAP_SHARED | MAP_FIXED`,
/// readable and writable), replacing the pages there.
///
/// # Safety
/// `[start, start + len)` must be a page-aligned range of the reserved range owned by the
/// caller.
pub unsafe fn map_file(start: u64, len: u64, fd: &std::os::fd::OwnedFd) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let p = libc::mmap(
        start as *mut libc::c_void,
        len as usize,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_SHARED | libc::MAP_FIXED,
        fd.as_raw_fd(),
        0,
    );
    if p == libc::MAP_FAILED || p as u64 != start {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Puts the reservation back over `len` bytes at `start` that [`share`] or [`map_file`] mapped
/// to a file: private, inaccessible and uncommitted, as [`reserve`] made them (so that
/// [`Va::free`] and a later [`Va::alloc`] find the range as they left it: zeros when allocated
/// again).
///
/// # Safety
/// As for [`map_file`]; nothing may use the range any more.
pub unsafe fn unshare(start: u64, len: u64) {
    libc::mmap(
        start as *mut libc::c_void,
        len as usize,
        libc::PROT_NONE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
        -1,
        0,
    );
}

/// What kind of memory an allocation is (`cuPointerGetAttribute`'s memory type and flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `cuMemAlloc`, `cuMemAllocPitch`, a module's data.
    Device,
    /// `cuMemAllocHost`, `cuMemHostAlloc` (page-locked host memory; the flags given).
    Host(u32),
    /// `cuMemAllocManaged` (the attach flags given).
    Managed(u32),
    /// `cuMemHostRegister` (host memory of the program's; the flags given).
    Registered(u32),
    /// `cuIpcOpenMemHandle`: device memory of another process's, mapped here until
    /// `cuIpcCloseMemHandle` ([`crate::ipc`]).
    Imported,
}

/// One allocation.
#[derive(Clone, Copy, Debug)]
pub struct Alloc {
    /// The bytes asked for.
    pub size: u64,
    /// The bytes mapped into the guest (the size rounded up to 256).
    pub mapped: u64,
    /// Its kind.
    pub kind: Kind,
    /// The context it belongs to.
    pub ctx: u64,
    /// Its id (`CU_POINTER_ATTRIBUTE_BUFFER_ID`).
    pub id: u64,
}
