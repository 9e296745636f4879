//! Memory: device allocations, page-locked and managed memory, registered host memory, copies
//! and sets (synchronous and on streams: every operation completes when it is issued), and
//! pointer attributes.

use crate::abi::{consts as c, CUdeviceptr, Handle, CUDA_MEMCPY2D, CUDA_MEMCPY3D};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::memory::Kind;
use crate::state::{self, Driver};
use std::ffi::c_void;
use warpjit::exec::Observer;

/// Whether every byte of `[addr, addr + len)` is mapped guest memory (device, page-locked,
/// managed or registered).
fn mapped(d: &Driver, addr: u64, len: u64) -> bool {
    let m = d.machine.read().unwrap_or_else(|p| p.into_inner());
    addr != 0 && m.global.covers(addr, len)
}

/// Checks a device range for a copy or a set: it lies in one allocation (as asked for, not
/// rounded up).
fn device_range(d: &Driver, addr: u64, len: u64) -> Res {
    if len == 0 {
        return Ok(());
    }
    let inner = d.inner.lock().unwrap_or_else(|p| p.into_inner());
    match inner.alloc_at(addr) {
        Some((base, a)) if addr - base <= a.size && len <= a.size - (addr - base) => Ok(()),
        _ => Err(error::INVALID_VALUE),
    }
}

/// Checks a host pointer for a copy.
fn host_ptr(p: *const c_void, len: usize) -> Res {
    if p.is_null() && len > 0 {
        Err(error::INVALID_VALUE)
    } else {
        Ok(())
    }
}

/// A pointer of unified addressing: a mapped guest range, or host memory of the program's.
/// Inside the driver's reserved range only allocations are valid.
fn unified(d: &Driver, addr: u64, len: u64) -> Res {
    if len == 0 || mapped(d, addr, len) {
        return Ok(());
    }
    let inner = d.inner.lock().unwrap_or_else(|p| p.into_inner());
    let reserved = inner.va.as_ref().is_some_and(|v| v.contains(addr));
    if addr == 0 || reserved {
        Err(error::INVALID_VALUE)
    } else {
        Ok(())
    }
}

/// Copies `len` bytes; both ranges were checked (device memory is host memory at the same
/// address). The machine stays read-locked so that nothing is unmapped meanwhile.
unsafe fn copy(d: &Driver, dst: u64, src: u64, len: usize) {
    if len == 0 {
        return;
    }
    let _m = d.machine.read().unwrap_or_else(|p| p.into_inner());
    std::ptr::copy(src as *const u8, dst as *mut u8, len);
    if let Some(s) = &d.check {
        s.host_write(dst, len as u64);
    }
}

/// The current context (or the stream's), checked.
fn ctx_for(stream: Handle) -> Res<u64> {
    let inner = state::inner()?;
    state::stream_ctx(&inner, stream)
}

unsafe fn htod(dst: CUdeviceptr, src: *const c_void, len: usize, stream: Handle) -> Res {
    let d = state::driver()?;
    ctx_for(stream)?;
    device_range(d, dst, len as u64)?;
    host_ptr(src, len)?;
    copy(d, dst, src as u64, len);
    Ok(())
}

unsafe fn dtoh(dst: *mut c_void, src: CUdeviceptr, len: usize, stream: Handle) -> Res {
    let d = state::driver()?;
    ctx_for(stream)?;
    device_range(d, src, len as u64)?;
    host_ptr(dst, len)?;
    copy(d, dst as u64, src, len);
    Ok(())
}

unsafe fn dtod(dst: CUdeviceptr, src: CUdeviceptr, len: usize, stream: Handle) -> Res {
    let d = state::driver()?;
    ctx_for(stream)?;
    device_range(d, dst, len as u64)?;
    device_range(d, src, len as u64)?;
    copy(d, dst, src, len);
    Ok(())
}

unsafe fn any_copy(dst: CUdeviceptr, src: CUdeviceptr, len: usize, stream: Handle) -> Res {
    let d = state::driver()?;
    ctx_for(stream)?;
    unified(d, dst, len as u64)?;
    unified(d, src, len as u64)?;
    copy(d, dst, src, len);
    Ok(())
}

/// Sets `n` elements of `size` bytes (1, 2 or 4) to `value`, in `height` rows `pitch` apart.
unsafe fn set(
    dst: CUdeviceptr,
    pitch: usize,
    value: u32,
    size: usize,
    n: usize,
    height: usize,
    stream: Handle,
) -> Res {
    let d = state::driver()?;
    ctx_for(stream)?;
    let row = n.checked_mul(size).ok_or(error::INVALID_VALUE)?;
    if height == 0 || row == 0 {
        return Ok(());
    }
    if size > 1 && !dst.is_multiple_of(size as u64) {
        return Err(error::INVALID_VALUE);
    }
    let span = pitch
        .checked_mul(height - 1)
        .and_then(|s| s.checked_add(row))
        .ok_or(error::INVALID_VALUE)?;
    device_range(d, dst, span as u64)?;
    if let Some(s) = &d.check {
        s.host_write(dst, span as u64);
    }
    let _m = d.machine.read().unwrap_or_else(|p| p.into_inner());
    for r in 0..height {
        let p = (dst as usize + r * pitch) as *mut u8;
        match size {
            1 => std::ptr::write_bytes(p, value as u8, n),
            2 => std::slice::from_raw_parts_mut(p.cast::<u16>(), n).fill(value as u16),
            _ => std::slice::from_raw_parts_mut(p.cast::<u32>(), n).fill(value),
        }
    }
    Ok(())
}

/// A 2D (or one slice of a 3D) copy: `height` rows of `width` bytes.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_2d(
    src_type: u32,
    src: u64,
    src_pitch: usize,
    dst_type: u32,
    dst: u64,
    dst_pitch: usize,
    width: usize,
    height: usize,
) -> Res {
    let d = state::driver()?;
    ctx_for(std::ptr::null_mut())?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    if height > 1 && (src_pitch < width || dst_pitch < width) {
        return Err(error::INVALID_VALUE);
    }
    let span = |pitch: usize| {
        pitch
            .checked_mul(height - 1)
            .and_then(|s| s.checked_add(width))
    };
    let (ss, ds) = (
        span(src_pitch).ok_or(error::INVALID_VALUE)?,
        span(dst_pitch).ok_or(error::INVALID_VALUE)?,
    );
    for (t, a, s) in [(src_type, src, ss), (dst_type, dst, ds)] {
        match i64::from(t) {
            c::CU_MEMORYTYPE_DEVICE => device_range(d, a, s as u64)?,
            c::CU_MEMORYTYPE_HOST => host_ptr(a as *const c_void, s)?,
            c::CU_MEMORYTYPE_UNIFIED => unified(d, a, s as u64)?,
            c::CU_MEMORYTYPE_ARRAY => return Err(error::NOT_SUPPORTED),
            _ => return Err(error::INVALID_VALUE),
        }
    }
    for r in 0..height {
        copy(
            d,
            dst + (r * dst_pitch) as u64,
            src + (r * src_pitch) as u64,
            width,
        );
    }
    Ok(())
}

unsafe fn memcpy_2d(p: *const CUDA_MEMCPY2D) -> Res {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let p = p.read_unaligned();
    let addr = |t: u32, host: u64, dev: u64| {
        if i64::from(t) == c::CU_MEMORYTYPE_HOST {
            host
        } else {
            dev
        }
    };
    let src = addr(p.srcMemoryType, p.srcHost as u64, p.srcDevice)
        + (p.srcY * p.srcPitch + p.srcXInBytes) as u64;
    let dst = addr(p.dstMemoryType, p.dstHost as u64, p.dstDevice)
        + (p.dstY * p.dstPitch + p.dstXInBytes) as u64;
    copy_2d(
        p.srcMemoryType,
        src,
        p.srcPitch,
        p.dstMemoryType,
        dst,
        p.dstPitch,
        p.WidthInBytes,
        p.Height,
    )
}

unsafe fn memcpy_3d(p: *const CUDA_MEMCPY3D) -> Res {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let p = p.read_unaligned();
    let addr = |t: u32, host: u64, dev: u64| {
        if i64::from(t) == c::CU_MEMORYTYPE_HOST {
            host
        } else {
            dev
        }
    };
    let src_h = p.srcHeight.max(1);
    let dst_h = p.dstHeight.max(1);
    for z in 0..p.Depth {
        let src = addr(p.srcMemoryType, p.srcHost as u64, p.srcDevice)
            + (((p.srcZ + z) * src_h + p.srcY) * p.srcPitch + p.srcXInBytes) as u64;
        let dst = addr(p.dstMemoryType, p.dstHost as u64, p.dstDevice)
            + (((p.dstZ + z) * dst_h + p.dstY) * p.dstPitch + p.dstXInBytes) as u64;
        copy_2d(
            p.srcMemoryType,
            src,
            p.srcPitch,
            p.dstMemoryType,
            dst,
            p.dstPitch,
            p.WidthInBytes,
            p.Height,
        )?;
    }
    Ok(())
}

fn alloc(bytes: usize, kind: Kind) -> Res<u64> {
    let d = state::driver()?;
    let mut inner = state::inner()?;
    let ctx = state::current_ctx(&inner)?;
    state::alloc(d, &mut inner, ctx, bytes as u64, kind)
}

fn free(ptr: u64, host: bool) -> Res {
    let d = state::driver()?;
    let mut inner = state::inner()?;
    state::current_ctx(&inner)?;
    match inner.allocs.get(&ptr) {
        Some(a)
            if matches!(a.kind, Kind::Host(_)) == host
                && !matches!(a.kind, Kind::Registered(_) | Kind::Imported) => {}
        _ => return Err(error::INVALID_VALUE),
    }
    state::free_alloc(d, &mut inner, ptr)
}

/// One pointer attribute of `ptr` into `data` (the attribute's C type).
unsafe fn pointer_attribute(attr: i64, ptr: u64, data: *mut c_void) -> Res {
    let d = state::driver()?;
    let inner = state::inner()?;
    let found = inner.alloc_at(ptr);
    let (base, a) = match found {
        Some(x) => x,
        None => {
            // Unregistered host memory: only the memory type (0) and "not managed" answer.
            return match attr {
                c::CU_POINTER_ATTRIBUTE_IS_MANAGED => out(data.cast::<u32>(), 0),
                c::CU_POINTER_ATTRIBUTE_MEMORY_TYPE => Err(error::INVALID_VALUE),
                _ => Err(error::INVALID_VALUE),
            };
        }
    };
    let _ = d;
    match attr {
        c::CU_POINTER_ATTRIBUTE_CONTEXT => out(
            data.cast::<Handle>(),
            state::handle(state::HandleKind::Context, a.ctx),
        ),
        c::CU_POINTER_ATTRIBUTE_MEMORY_TYPE => {
            let t = match a.kind {
                Kind::Device | Kind::Managed(_) | Kind::Imported => c::CU_MEMORYTYPE_DEVICE,
                Kind::Host(_) | Kind::Registered(_) => c::CU_MEMORYTYPE_HOST,
            };
            out(data.cast::<u32>(), t as u32)
        }
        c::CU_POINTER_ATTRIBUTE_DEVICE_POINTER => out(data.cast::<u64>(), ptr),
        c::CU_POINTER_ATTRIBUTE_HOST_POINTER => match a.kind {
            Kind::Device | Kind::Imported => Err(error::INVALID_VALUE),
            _ => out(data.cast::<u64>(), ptr),
        },
        c::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => out(data.cast::<u32>(), 1),
        c::CU_POINTER_ATTRIBUTE_BUFFER_ID => out(data.cast::<u64>(), a.id),
        c::CU_POINTER_ATTRIBUTE_IS_MANAGED => out(
            data.cast::<u32>(),
            u32::from(matches!(a.kind, Kind::Managed(_))),
        ),
        c::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => out(data.cast::<i32>(), 0),
        c::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR => out(data.cast::<u64>(), base),
        c::CU_POINTER_ATTRIBUTE_RANGE_SIZE => out(data.cast::<usize>(), a.size as usize),
        c::CU_POINTER_ATTRIBUTE_MAPPED => out(data.cast::<u32>(), 1),
        c::CU_POINTER_ATTRIBUTE_ACCESS_FLAGS => out(data.cast::<u32>(), 0),
        c::CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE => {
            out(data.cast::<u32>(), u32::from(a.kind == Kind::Device))
        }
        c::CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES => out(data.cast::<u64>(), 0),
        c::CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE => out(data.cast::<u32>(), 0),
        c::CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE => out(data.cast::<Handle>(), std::ptr::null_mut()),
        c::CU_POINTER_ATTRIBUTE_P2P_TOKENS => Err(error::NOT_SUPPORTED),
        _ => Err(error::INVALID_VALUE),
    }
}

cuda_api! {
    /// `cuMemGetInfo_v2`: the configured total and what device allocations leave free.
    fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) {
        let d = state::driver()?;
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
        out(free, d.memory.saturating_sub(inner.used) as usize)?;
        out(total, d.memory as usize)
    }

    /// `cuMemAlloc_v2`: device memory at a stable, page-aligned, non-zero address.
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) {
        if dptr.is_null() {
            return Err(error::INVALID_VALUE);
        }
        out(dptr, alloc(bytesize, Kind::Device)?)
    }

    /// `cuMemAllocPitch_v2`: rows padded to 512 bytes.
    fn cuMemAllocPitch_v2(dptr: *mut CUdeviceptr, pitch: *mut usize, width: usize, height: usize, element: u32) {
        if dptr.is_null() || pitch.is_null() || !matches!(element, 4 | 8 | 16) {
            return Err(error::INVALID_VALUE);
        }
        let p = width.checked_next_multiple_of(512).ok_or(error::INVALID_VALUE)?;
        let bytes = p.checked_mul(height).ok_or(error::OUT_OF_MEMORY)?;
        out(dptr, alloc(bytes, Kind::Device)?)?;
        out(pitch, p)
    }

    /// `cuMemFree_v2`.
    fn cuMemFree_v2(dptr: CUdeviceptr) {
        if dptr == 0 {
            return Ok(());
        }
        free(dptr, false)
    }

    /// `cuMemGetAddressRange_v2`: the allocation holding `dptr`.
    fn cuMemGetAddressRange_v2(base: *mut CUdeviceptr, size: *mut usize, dptr: CUdeviceptr) {
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
        let (b, a) = inner.alloc_at(dptr).ok_or(error::NOT_FOUND)?;
        if !base.is_null() {
            *base = b;
        }
        if !size.is_null() {
            *size = a.size as usize;
        }
        Ok(())
    }

    /// `cuMemAllocHost_v2`: page-locked host memory; its device pointer is itself.
    fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) {
        if pp.is_null() {
            return Err(error::INVALID_VALUE);
        }
        out(pp, alloc(bytesize, Kind::Host(0))? as *mut c_void)
    }

    /// `cuMemHostAlloc`.
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: u32) {
        if pp.is_null() || flags & !0x7 != 0 {
            return Err(error::INVALID_VALUE);
        }
        out(pp, alloc(bytesize, Kind::Host(flags))? as *mut c_void)
    }

    /// `cuMemFreeHost`.
    fn cuMemFreeHost(p: *mut c_void) {
        free(p as u64, true)
    }

    /// `cuMemHostGetDevicePointer_v2`: the same address.
    fn cuMemHostGetDevicePointer_v2(dptr: *mut CUdeviceptr, p: *mut c_void, flags: u32) {
        if flags != 0 {
            return Err(error::INVALID_VALUE);
        }
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
        match inner.alloc_at(p as u64) {
            Some((_, a)) if !matches!(a.kind, Kind::Device | Kind::Imported) => out(dptr, p as u64),
            _ => Err(error::INVALID_VALUE),
        }
    }

    /// `cuMemHostGetFlags`.
    fn cuMemHostGetFlags(flags: *mut u32, p: *mut c_void) {
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
        match inner.alloc_at(p as u64) {
            Some((_, a)) => match a.kind {
                Kind::Host(f) | Kind::Registered(f) => out(flags, f),
                _ => Err(error::INVALID_VALUE),
            },
            None => Err(error::INVALID_VALUE),
        }
    }

    /// `cuMemAllocManaged`: one address valid on host and device.
    fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytesize: usize, flags: u32) {
        if dptr.is_null() || !(flags == 1 || flags == 2) {
            return Err(error::INVALID_VALUE);
        }
        out(dptr, alloc(bytesize, Kind::Managed(flags))?)
    }

    /// `cuMemHostRegister_v2`: the program's host memory, mapped into the guest where it is.
    fn cuMemHostRegister_v2(p: *mut c_void, bytesize: usize, flags: u32) {
        let d = state::driver()?;
        let mut inner = state::inner()?;
        let ctx = state::current_ctx(&inner)?;
        if p.is_null() || bytesize == 0 || flags & !0xf != 0 {
            return Err(error::INVALID_VALUE);
        }
        let base = p as u64;
        if base.checked_add(bytesize as u64).is_none() || inner.va.as_ref().is_some_and(|v| v.contains(base)) {
            return Err(error::INVALID_VALUE);
        }
        let mut m = d.machine.write().unwrap_or_else(|p| p.into_inner());
        if m.global.covers(base, 1) || m.global.covers(base + bytesize as u64 - 1, 1) {
            return Err(error::HOST_MEMORY_ALREADY_REGISTERED);
        }
        // SAFETY: the program keeps the memory until it unregisters it (the CUDA contract).
        m.global.map_host(base, p.cast(), bytesize as u64).map_err(|e| match e {
            warpjit::MemError::Overlap { .. } => error::HOST_MEMORY_ALREADY_REGISTERED,
            _ => error::INVALID_VALUE,
        })?;
        drop(m);
        let id = inner.serial();
        inner.allocs.insert(base, crate::memory::Alloc {
            size: bytesize as u64,
            mapped: bytesize as u64,
            kind: Kind::Registered(flags),
            ctx,
            id,
        });
        Ok(())
    }

    /// `cuMemHostUnregister`.
    fn cuMemHostUnregister(p: *mut c_void) {
        let d = state::driver()?;
        let mut inner = state::inner()?;
        state::current_ctx(&inner)?;
        match inner.allocs.get(&(p as u64)) {
            Some(a) if matches!(a.kind, Kind::Registered(_)) => state::free_alloc(d, &mut inner, p as u64),
            _ => Err(error::HOST_MEMORY_NOT_REGISTERED),
        }
    }

    /// `cuMemcpy`: unified addressing (either side device or host).
    fn cuMemcpy(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) { any_copy(dst, src, bytes, std::ptr::null_mut()) }
    /// `cuMemcpyAsync`.
    fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) { any_copy(dst, src, bytes, stream) }
    /// `cuMemcpyHtoD_v2`.
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) { htod(dst, src, bytes, std::ptr::null_mut()) }
    /// `cuMemcpyHtoDAsync_v2`.
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: Handle) { htod(dst, src, bytes, stream) }
    /// `cuMemcpyDtoH_v2`.
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) { dtoh(dst, src, bytes, std::ptr::null_mut()) }
    /// `cuMemcpyDtoHAsync_v2`.
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: Handle) { dtoh(dst, src, bytes, stream) }
    /// `cuMemcpyDtoD_v2`.
    fn cuMemcpyDtoD_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) { dtod(dst, src, bytes, std::ptr::null_mut()) }
    /// `cuMemcpyDtoDAsync_v2`.
    fn cuMemcpyDtoDAsync_v2(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: Handle) { dtod(dst, src, bytes, stream) }
    /// `cuMemcpyPeer`: one device, so a copy within it.
    fn cuMemcpyPeer(dst: CUdeviceptr, dctx: Handle, src: CUdeviceptr, sctx: Handle, bytes: usize) {
        let _ = (dctx, sctx);
        dtod(dst, src, bytes, std::ptr::null_mut())
    }
    /// `cuMemcpyPeerAsync`.
    fn cuMemcpyPeerAsync(dst: CUdeviceptr, dctx: Handle, src: CUdeviceptr, sctx: Handle, bytes: usize, stream: Handle) {
        let _ = (dctx, sctx);
        dtod(dst, src, bytes, stream)
    }
    /// `cuMemcpy2D_v2`.
    fn cuMemcpy2D_v2(p: *const CUDA_MEMCPY2D) { memcpy_2d(p) }
    /// `cuMemcpy2DUnaligned_v2`.
    fn cuMemcpy2DUnaligned_v2(p: *const CUDA_MEMCPY2D) { memcpy_2d(p) }
    /// `cuMemcpy2DAsync_v2`.
    fn cuMemcpy2DAsync_v2(p: *const CUDA_MEMCPY2D, stream: Handle) { ctx_for(stream)?; memcpy_2d(p) }
    /// `cuMemcpy3D_v2`.
    fn cuMemcpy3D_v2(p: *const CUDA_MEMCPY3D) { memcpy_3d(p) }
    /// `cuMemcpy3DAsync_v2`.
    fn cuMemcpy3DAsync_v2(p: *const CUDA_MEMCPY3D, stream: Handle) { ctx_for(stream)?; memcpy_3d(p) }

    /// `cuMemsetD8_v2`.
    fn cuMemsetD8_v2(dst: CUdeviceptr, v: u8, n: usize) { set(dst, 0, u32::from(v), 1, n, 1, std::ptr::null_mut()) }
    /// `cuMemsetD16_v2`.
    fn cuMemsetD16_v2(dst: CUdeviceptr, v: u16, n: usize) { set(dst, 0, u32::from(v), 2, n, 1, std::ptr::null_mut()) }
    /// `cuMemsetD32_v2`.
    fn cuMemsetD32_v2(dst: CUdeviceptr, v: u32, n: usize) { set(dst, 0, v, 4, n, 1, std::ptr::null_mut()) }
    /// `cuMemsetD8Async`.
    fn cuMemsetD8Async(dst: CUdeviceptr, v: u8, n: usize, stream: Handle) { set(dst, 0, u32::from(v), 1, n, 1, stream) }
    /// `cuMemsetD16Async`.
    fn cuMemsetD16Async(dst: CUdeviceptr, v: u16, n: usize, stream: Handle) { set(dst, 0, u32::from(v), 2, n, 1, stream) }
    /// `cuMemsetD32Async`.
    fn cuMemsetD32Async(dst: CUdeviceptr, v: u32, n: usize, stream: Handle) { set(dst, 0, v, 4, n, 1, stream) }
    /// `cuMemsetD2D8_v2`.
    fn cuMemsetD2D8_v2(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize) { set(dst, pitch, u32::from(v), 1, w, h, std::ptr::null_mut()) }
    /// `cuMemsetD2D16_v2`.
    fn cuMemsetD2D16_v2(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize) { set(dst, pitch, u32::from(v), 2, w, h, std::ptr::null_mut()) }
    /// `cuMemsetD2D32_v2`.
    fn cuMemsetD2D32_v2(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize) { set(dst, pitch, v, 4, w, h, std::ptr::null_mut()) }
    /// `cuMemsetD2D8Async`.
    fn cuMemsetD2D8Async(dst: CUdeviceptr, pitch: usize, v: u8, w: usize, h: usize, stream: Handle) { set(dst, pitch, u32::from(v), 1, w, h, stream) }
    /// `cuMemsetD2D16Async`.
    fn cuMemsetD2D16Async(dst: CUdeviceptr, pitch: usize, v: u16, w: usize, h: usize, stream: Handle) { set(dst, pitch, u32::from(v), 2, w, h, stream) }
    /// `cuMemsetD2D32Async`.
    fn cuMemsetD2D32Async(dst: CUdeviceptr, pitch: usize, v: u32, w: usize, h: usize, stream: Handle) { set(dst, pitch, v, 4, w, h, stream) }

    /// `cuPointerGetAttribute`.
    fn cuPointerGetAttribute(data: *mut c_void, attribute: i32, ptr: CUdeviceptr) {
        if data.is_null() {
            return Err(error::INVALID_VALUE);
        }
        pointer_attribute(i64::from(attribute), ptr, data)
    }

    /// `cuPointerGetAttributes`: each attribute asked for (an attribute with no value for
    /// this pointer is left as is, as CUDA does).
    fn cuPointerGetAttributes(n: u32, attributes: *const i32, data: *mut *mut c_void, ptr: CUdeviceptr) {
        if attributes.is_null() || data.is_null() {
            return Err(error::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let a = *attributes.add(i);
            let p = *data.add(i);
            if !p.is_null() {
                let r = pointer_attribute(i64::from(a), ptr, p);
                if i64::from(a) == c::CU_POINTER_ATTRIBUTE_MEMORY_TYPE && r.is_err() {
                    // Unregistered host memory: memory type 0.
                    *p.cast::<u32>() = 0;
                }
            }
        }
        Ok(())
    }

    /// `cuPointerSetAttribute`: only `CU_POINTER_ATTRIBUTE_SYNC_MEMOPS` (always on).
    fn cuPointerSetAttribute(value: *const c_void, attribute: i32, ptr: CUdeviceptr) {
        let _ = value;
        let inner = state::inner()?;
        inner.alloc_at(ptr).ok_or(error::INVALID_VALUE)?;
        if i64::from(attribute) == c::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS { Ok(()) } else { Err(error::INVALID_VALUE) }
    }

    /// `cuMemPrefetchAsync`: nothing to move (managed memory is one memory).
    fn cuMemPrefetchAsync(ptr: CUdeviceptr, count: usize, dst: i32, stream: Handle) {
        let _ = (ptr, count, dst);
        ctx_for(stream).map(|_| ())
    }

    /// `cuMemAdvise`: accepted.
    fn cuMemAdvise(ptr: CUdeviceptr, count: usize, advice: i32, dev: i32) {
        let _ = (ptr, count, advice, dev);
        ctx_for(std::ptr::null_mut()).map(|_| ())
    }
}
