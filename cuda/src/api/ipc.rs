//! CUDA IPC (`cuIpcGetMemHandle`, `cuIpcOpenMemHandle`, `cuIpcCloseMemHandle`,
//! `cuIpcGetEventHandle`, `cuIpcOpenEventHandle`): device memory shared with other processes of
//! the same user on this host, as [`crate::ipc`] describes.

use crate::abi::{consts as c, CUdeviceptr, CUipcEventHandle, CUipcMemHandle, Handle};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::ipc::{EventHandle, Export, Import, MemHandle};
use crate::memory::{Alloc, Kind};
use crate::state::{self, handle, serial, Event, HandleKind};
use std::os::unix::fs::MetadataExt;
use warpjit::exec::Observer;

/// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, the one flag of `cuIpcOpenMemHandle` (one device:
/// nothing to enable).
const CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: u32 = 1;

/// The handle of the device allocation at `dptr` (its base), exporting it on first use.
fn get_mem_handle(dptr: CUdeviceptr) -> Res<MemHandle> {
    let d = state::driver()?;
    let mut inner = state::inner()?;
    state::current_ctx(&inner)?;
    if let Some(e) = inner.exported.get(&dptr) {
        return Ok(e.handle);
    }
    let a = match inner.allocs.get(&dptr) {
        Some(a) if a.kind == Kind::Device => *a,
        _ => return Err(error::INVALID_VALUE),
    };
    let len = a
        .size
        .checked_next_multiple_of(crate::memory::PAGE)
        .ok_or(error::INVALID_VALUE)?;
    // No kernel or copy touches memory while the machine is write-locked.
    let m = d.machine.write().unwrap_or_else(|p| p.into_inner());
    // SAFETY: the allocation's pages, as `Va::alloc` made them (its size rounded up to 256 and
    // then to whole pages), held by the driver.
    let file = unsafe { crate::memory::share(dptr, len) }.map_err(|e| {
        crate::entry::log_line(&format!("cuIpcGetMemHandle: cannot share memory: {e}"));
        error::MAP_FAILED
    });
    drop(m);
    let file = file?;
    let meta = std::fs::File::from(file.try_clone().map_err(|_| error::MAP_FAILED)?)
        .metadata()
        .map_err(|_| error::MAP_FAILED)?;
    use std::os::fd::AsRawFd;
    let handle = MemHandle {
        pid: std::process::id(),
        fd: file.as_raw_fd(),
        size: a.size,
        len,
        dev: meta.dev(),
        ino: meta.ino(),
    };
    inner.exported.insert(dptr, Export { file, handle });
    Ok(handle)
}

/// Maps the memory of handle `h` (another process's) into this process's guest memory, or
/// counts one more open of it: its device address.
fn open_mem_handle(h: MemHandle) -> Res<CUdeviceptr> {
    let d = state::driver()?;
    let mut inner = state::inner()?;
    let ctx = state::current_ctx(&inner)?;
    if h.pid == std::process::id() {
        // CUDA: a process cannot open its own handles.
        return Err(error::INVALID_CONTEXT);
    }
    let same = |i: &Import| {
        let o = i.handle;
        (o.pid, o.fd, o.dev, o.ino) == (h.pid, h.fd, h.dev, h.ino)
    };
    if let Some((&base, i)) = inner.imported.iter_mut().find(|(_, i)| same(i)) {
        i.opens = i.opens.checked_add(1).ok_or(error::INVALID_VALUE)?;
        return Ok(base);
    }
    let file = h.open().ok_or(error::INVALID_HANDLE)?;
    let file = std::os::fd::OwnedFd::from(file);
    let mapped = h.size.next_multiple_of(256);
    let va = inner.va.as_mut().ok_or(error::NOT_INITIALIZED)?;
    let base = va.alloc(h.len).ok_or(error::OUT_OF_MEMORY)?;
    let mut m = d.machine.write().unwrap_or_else(|p| p.into_inner());
    // SAFETY: `base` is a fresh allocation of `h.len` bytes of the reserved range; the file's
    // pages replace its pages. The guest mapping covers `mapped <= h.len` bytes of them, which
    // stay mapped until `free_alloc` unmaps the segment and puts the reservation back.
    let r = unsafe {
        crate::memory::map_file(base, h.len, &file)
            .map_err(|_| error::MAP_FAILED)
            .and_then(|()| {
                m.global
                    .map_host(base, base as *mut u8, mapped)
                    .map_err(|_| error::MAP_FAILED)
            })
    };
    drop(m);
    if let Err(e) = r {
        // SAFETY: the range is the allocation just made, mapped nowhere else.
        unsafe { crate::memory::unshare(base, h.len) };
        if let Some(va) = inner.va.as_mut() {
            va.free(base, h.len);
        }
        return Err(e);
    }
    let id = inner.serial();
    inner.allocs.insert(
        base,
        Alloc {
            size: h.size,
            mapped,
            kind: Kind::Imported,
            ctx,
            id,
        },
    );
    inner.imported.insert(
        base,
        Import {
            handle: h,
            opens: 1,
        },
    );
    if let Some(s) = &d.check {
        // What the other process wrote is defined.
        s.alloc(base, h.size, true);
    }
    Ok(base)
}

cuda_api! {
    /// `cuIpcGetMemHandle`: a handle for the device allocation whose base is `dptr` (the same
    /// handle every time; a new one for a new allocation at the same address).
    fn cuIpcGetMemHandle(p: *mut CUipcMemHandle, dptr: CUdeviceptr) {
        if p.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let h = get_mem_handle(dptr)?;
        out(p, CUipcMemHandle { reserved: h.to_bytes() })
    }

    /// `cuIpcOpenMemHandle_v2`: maps another process's exported allocation (its contents
    /// shared, not copied) at a new device address. The exporting process itself gets
    /// `CUDA_ERROR_INVALID_CONTEXT`, as from CUDA; a handle that is not one, or whose process or
    /// memory is gone, `CUDA_ERROR_INVALID_HANDLE`.
    fn cuIpcOpenMemHandle_v2(pdptr: *mut CUdeviceptr, h: CUipcMemHandle, flags: u32) {
        if pdptr.is_null() || flags & !CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS != 0 {
            return Err(error::INVALID_VALUE);
        }
        let h = MemHandle::from_bytes(&h.reserved).ok_or(error::INVALID_HANDLE)?;
        out(pdptr, open_mem_handle(h)?)
    }

    /// `cuIpcOpenMemHandle` (CUDA 4.0's name): as `cuIpcOpenMemHandle_v2`.
    fn cuIpcOpenMemHandle(pdptr: *mut CUdeviceptr, h: CUipcMemHandle, flags: u32) {
        match cuIpcOpenMemHandle_v2(pdptr, h, flags) {
            0 => Ok(()),
            e => Err(e),
        }
    }

    /// `cuIpcCloseMemHandle`: one open of `dptr` fewer; the last unmaps it (the exporting
    /// process and other importers keep the memory).
    fn cuIpcCloseMemHandle(dptr: CUdeviceptr) {
        let d = state::driver()?;
        let mut inner = state::inner()?;
        state::current_ctx(&inner)?;
        let i = inner.imported.get_mut(&dptr).ok_or(error::INVALID_VALUE)?;
        i.opens -= 1;
        if i.opens == 0 {
            state::free_alloc(d, &mut inner, dptr)?;
        }
        Ok(())
    }

    /// `cuIpcGetEventHandle`: for an event made with `CU_EVENT_INTERPROCESS` and
    /// `CU_EVENT_DISABLE_TIMING`.
    fn cuIpcGetEventHandle(p: *mut CUipcEventHandle, event: Handle) {
        let e = serial(event, HandleKind::Event).ok_or(error::INVALID_HANDLE)?;
        let inner = state::inner()?;
        let ev = inner.events.get(&e).ok_or(error::INVALID_HANDLE)?;
        let need = (c::CU_EVENT_INTERPROCESS | c::CU_EVENT_DISABLE_TIMING) as u32;
        if ev.flags & need != need {
            return Err(error::INVALID_VALUE);
        }
        let h = EventHandle { pid: std::process::id(), event: e };
        out(p, CUipcEventHandle { reserved: h.to_bytes() })
    }

    /// `cuIpcOpenEventHandle`: an event of this process's that behaves as the other process's
    /// (with `CU_EVENT_DISABLE_TIMING`). Every operation completes when it is issued, so the
    /// event is complete whenever it is queried or waited for, as the exported one is.
    fn cuIpcOpenEventHandle(p: *mut Handle, h: CUipcEventHandle) {
        if p.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let h = EventHandle::from_bytes(&h.reserved).ok_or(error::INVALID_HANDLE)?;
        if h.pid == std::process::id() {
            return Err(error::INVALID_CONTEXT);
        }
        let mut inner = state::inner()?;
        let ctx = state::current_ctx(&inner)?;
        let s = inner.serial();
        let flags = (c::CU_EVENT_INTERPROCESS | c::CU_EVENT_DISABLE_TIMING) as u32;
        inner.events.insert(s, Event { ctx, flags, recorded: None });
        out(p, handle(HandleKind::Event, s))
    }
}
