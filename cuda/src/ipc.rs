//! CUDA IPC between processes on one host: what an IPC handle holds and how a process maps
//! memory another process exported.
//!
//! A device allocation lives in the driver's reserved range, its device address also its host
//! address ([`crate::memory`]). When a process first exports an allocation
//! (`cuIpcGetMemHandle`), the driver re-backs its pages by a memory file (`memfd_create`)
//! mapped `MAP_SHARED` at the same address with the same contents ([`crate::memory::share`]),
//! and keeps the file open; plain allocations stay private anonymous memory (exporting costs a
//! copy of the allocation, once). The 64-byte handle ([`MemHandle`]) names the exporting
//! process, the file's descriptor there and the file itself (device and inode, to tell a
//! reused descriptor from it). A process that opens the handle (`cuIpcOpenMemHandle`) opens
//! `/proc/PID/fd/N` (allowed for a process of the same user), checks that it is that file, maps
//! it `MAP_SHARED` at a new address of its own reserved range and maps that into its guest
//! memory: both processes then read and write the same pages, from the host and from kernels.
//!
//! An event handle ([`EventHandle`]) needs nothing shared: every operation completes when it is
//! issued, so an event is always complete in every process.

/// The first 8 bytes of a memory handle.
pub const MEM_MAGIC: [u8; 8] = *b"warpjitM";
/// The first 8 bytes of an event handle.
pub const EVENT_MAGIC: [u8; 8] = *b"warpjitE";
/// The layout version of both handles.
pub const VERSION: u32 = 1;

/// A `CUipcMemHandle`'s contents, little-endian: magic (8 bytes), version (4), the exporting
/// process's id (4), the file's descriptor there (4), 4 zero bytes, the allocation's size as
/// asked for (8), the file's length (8, whole pages), its device (8) and inode (8) numbers, and
/// a check word (8: FNV-1a of the first 56 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemHandle {
    /// The exporting process.
    pub pid: u32,
    /// The memory file's descriptor in that process.
    pub fd: i32,
    /// The allocation's size (`cuMemAlloc`'s bytes).
    pub size: u64,
    /// The file's length: the allocation's pages.
    pub len: u64,
    /// The file's device number (`st_dev`).
    pub dev: u64,
    /// The file's inode number (`st_ino`).
    pub ino: u64,
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `b` with the handle kind's magic, the version and the check word written in.
fn seal(mut b: [u8; 64], magic: [u8; 8]) -> [u8; 64] {
    b[..8].copy_from_slice(&magic);
    b[8..12].copy_from_slice(&VERSION.to_le_bytes());
    let check = fnv(&b[..56]);
    b[56..].copy_from_slice(&check.to_le_bytes());
    b
}

fn unsealed(b: &[u8; 64], magic: [u8; 8]) -> Option<()> {
    (b[..8] == magic && b[8..12] == VERSION.to_le_bytes() && b[56..] == fnv(&b[..56]).to_le_bytes())
        .then_some(())
}

fn u64_at(b: &[u8; 64], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn u32_at(b: &[u8; 64], at: usize) -> u32 {
    let mut w = [0; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

impl MemHandle {
    /// The 64 bytes of the handle.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[12..16].copy_from_slice(&self.pid.to_le_bytes());
        b[16..20].copy_from_slice(&self.fd.to_le_bytes());
        b[24..32].copy_from_slice(&self.size.to_le_bytes());
        b[32..40].copy_from_slice(&self.len.to_le_bytes());
        b[40..48].copy_from_slice(&self.dev.to_le_bytes());
        b[48..56].copy_from_slice(&self.ino.to_le_bytes());
        seal(b, MEM_MAGIC)
    }

    /// The handle in `b`, if it is one this driver made (magic, version and check word) and its
    /// numbers are consistent (a descriptor, a size whose whole pages are the length).
    pub fn from_bytes(b: &[u8; 64]) -> Option<MemHandle> {
        unsealed(b, MEM_MAGIC)?;
        let h = MemHandle {
            pid: u32_at(b, 12),
            fd: u32_at(b, 16) as i32,
            size: u64_at(b, 24),
            len: u64_at(b, 32),
            dev: u64_at(b, 40),
            ino: u64_at(b, 48),
        };
        let sane = h.pid > 0
            && h.fd >= 0
            && h.size > 0
            && h.size <= crate::memory::VA_SIZE
            && Some(h.len) == h.size.checked_next_multiple_of(crate::memory::PAGE);
        sane.then_some(h)
    }

    /// Opens the exported memory file: `/proc/PID/fd/N`, checked to be a memory file of this
    /// driver's (`memfd:warpjit-ipc`) with the handle's device and inode numbers and at least
    /// its length. `None` when the process or the descriptor is gone, or is not that file.
    pub fn open(&self) -> Option<std::fs::File> {
        use std::os::unix::fs::MetadataExt;
        let path = format!("/proc/{}/fd/{}", self.pid, self.fd);
        let target = std::fs::read_link(&path).ok()?;
        if !target.to_string_lossy().starts_with("/memfd:warpjit-ipc") {
            return None;
        }
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .ok()?;
        let m = f.metadata().ok()?;
        (m.dev() == self.dev && m.ino() == self.ino && m.len() >= self.len).then_some(f)
    }
}

/// A `CUipcEventHandle`'s contents: magic (8 bytes), version (4), the exporting process's id
/// (4), the event's serial there (8), zeros, and the check word (8) as in [`MemHandle`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventHandle {
    /// The exporting process.
    pub pid: u32,
    /// The event's serial in that process.
    pub event: u64,
}

impl EventHandle {
    /// The 64 bytes of the handle.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[12..16].copy_from_slice(&self.pid.to_le_bytes());
        b[16..24].copy_from_slice(&self.event.to_le_bytes());
        seal(b, EVENT_MAGIC)
    }

    /// The handle in `b`, if it is one this driver made.
    pub fn from_bytes(b: &[u8; 64]) -> Option<EventHandle> {
        unsealed(b, EVENT_MAGIC)?;
        let h = EventHandle {
            pid: u32_at(b, 12),
            event: u64_at(b, 16),
        };
        (h.pid > 0).then_some(h)
    }
}

/// An allocation this process exported: the memory file its pages are now (kept open so that
/// other processes can open it) and its handle.
#[derive(Debug)]
pub struct Export {
    /// The memory file.
    pub file: std::os::fd::OwnedFd,
    /// The handle `cuIpcGetMemHandle` gives for it (the same every time).
    pub handle: MemHandle,
}

/// Memory of another process's that this process opened: which handle, how many opens
/// (`cuIpcOpenMemHandle` of an opened handle returns the same address and counts), and the
/// length mapped.
#[derive(Debug, Clone, Copy)]
pub struct Import {
    /// The handle opened.
    pub handle: MemHandle,
    /// Opens not yet closed.
    pub opens: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_damage_is_refused() {
        let h = MemHandle {
            pid: 1234,
            fd: 7,
            size: 80,
            len: 4096,
            dev: 5,
            ino: 99,
        };
        let b = h.to_bytes();
        assert_eq!(MemHandle::from_bytes(&b), Some(h));
        for i in 0..64 {
            let mut d = b;
            d[i] ^= 0x10;
            assert_eq!(MemHandle::from_bytes(&d), None, "byte {i} changed");
        }
        assert_eq!(MemHandle::from_bytes(&[0; 64]), None);
        let bad = MemHandle { size: 5000, ..h };
        assert_eq!(
            MemHandle::from_bytes(&bad.to_bytes()),
            None,
            "size past len"
        );
        let e = EventHandle { pid: 9, event: 3 };
        assert_eq!(EventHandle::from_bytes(&e.to_bytes()), Some(e));
        assert_eq!(EventHandle::from_bytes(&b), None, "a memory handle");
        assert_eq!(
            MemHandle::from_bytes(&e.to_bytes()),
            None,
            "an event handle"
        );
    }
}
