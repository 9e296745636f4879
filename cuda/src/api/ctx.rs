//! Contexts: the primary context, created ones, and each host thread's stack of current
//! contexts.

use crate::abi::{consts as c, CUdevice, Handle};
use crate::api::device::check_device;
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::state::{self, handle, serial, Ctx, HandleKind};
use std::collections::HashMap;

fn new_ctx(flags: u32, primary: bool) -> Ctx {
    Ctx {
        flags,
        primary,
        error: None,
        limits: HashMap::new(),
        cache_config: 0,
    }
}

/// The context handle `h`'s serial, checked to be a live context.
pub fn ctx_of(inner: &state::Inner, h: Handle) -> Res<u64> {
    let s = serial(h, HandleKind::Context).ok_or(error::INVALID_CONTEXT)?;
    if inner.ctxs.contains_key(&s) {
        Ok(s)
    } else {
        Err(error::CONTEXT_IS_DESTROYED)
    }
}

/// Waits for the current context's work (all of it is done: launches run to completion when
/// issued) and returns its sticky error, if a launch faulted.
pub fn synchronize() -> Res {
    let inner = state::inner()?;
    state::current_ctx(&inner).map(|_| ())
}

const LIMITS: [(i64, usize); 7] = [
    (c::CU_LIMIT_STACK_SIZE, 1024),
    (c::CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 20),
    (c::CU_LIMIT_MALLOC_HEAP_SIZE, 8 << 20),
    (c::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 2),
    (c::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 2048),
    (c::CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 32),
    (c::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0),
];

cuda_api! {
    /// `cuDevicePrimaryCtxRetain`: the primary context, made on first retain.
    fn cuDevicePrimaryCtxRetain(pctx: *mut Handle, dev: CUdevice) {
        check_device(dev)?;
        let mut inner = state::inner()?;
        let s = match inner.primary {
            Some(s) if inner.ctxs.contains_key(&s) => s,
            _ => {
                let s = inner.serial();
                let flags = inner.primary_flags;
                inner.ctxs.insert(s, new_ctx(flags, true));
                inner.primary = Some(s);
                inner.primary_retains = 0;
                s
            }
        };
        inner.primary_retains += 1;
        out(pctx, handle(HandleKind::Context, s))
    }

    /// `cuDevicePrimaryCtxRelease_v2`: the last release destroys the primary context.
    fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) {
        check_device(dev)?;
        let d = state::driver()?;
        let mut inner = state::inner()?;
        let Some(s) = inner.primary.filter(|s| inner.ctxs.contains_key(s)) else {
            return Err(error::INVALID_CONTEXT);
        };
        inner.primary_retains = inner.primary_retains.saturating_sub(1);
        if inner.primary_retains == 0 {
            state::destroy_ctx(d, &mut inner, s);
            inner.primary = None;
        }
        Ok(())
    }

    /// `cuDevicePrimaryCtxSetFlags_v2`.
    fn cuDevicePrimaryCtxSetFlags_v2(dev: CUdevice, flags: u32) {
        check_device(dev)?;
        let mut inner = state::inner()?;
        inner.primary_flags = flags;
        if let Some(s) = inner.primary {
            if let Some(ctx) = inner.ctxs.get_mut(&s) {
                ctx.flags = flags;
            }
        }
        Ok(())
    }

    /// `cuDevicePrimaryCtxGetState`.
    fn cuDevicePrimaryCtxGetState(dev: CUdevice, flags: *mut u32, active: *mut i32) {
        check_device(dev)?;
        let inner = state::inner()?;
        let live = inner.primary.is_some_and(|s| inner.ctxs.contains_key(&s));
        out(flags, inner.primary_flags)?;
        out(active, i32::from(live))
    }

    /// `cuDevicePrimaryCtxReset_v2`: destroys the primary context's resources.
    fn cuDevicePrimaryCtxReset_v2(dev: CUdevice) {
        check_device(dev)?;
        let d = state::driver()?;
        let mut inner = state::inner()?;
        if let Some(s) = inner.primary.take() {
            state::destroy_ctx(d, &mut inner, s);
        }
        inner.primary_retains = 0;
        Ok(())
    }

    /// `cuCtxCreate_v2`: a new context, made current.
    fn cuCtxCreate_v2(pctx: *mut Handle, flags: u32, dev: CUdevice) {
        check_device(dev)?;
        if pctx.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let mut inner = state::inner()?;
        let s = inner.serial();
        inner.ctxs.insert(s, new_ctx(flags, false));
        state::with_stack(|st| st.push(s));
        out(pctx, handle(HandleKind::Context, s))
    }

    /// `cuCtxDestroy_v2`.
    fn cuCtxDestroy_v2(ctx: Handle) {
        let d = state::driver()?;
        let mut inner = state::inner()?;
        let s = ctx_of(&inner, ctx)?;
        if inner.ctxs.get(&s).is_some_and(|c| c.primary) {
            return Err(error::INVALID_CONTEXT);
        }
        state::destroy_ctx(d, &mut inner, s);
        Ok(())
    }

    /// `cuCtxPushCurrent_v2`.
    fn cuCtxPushCurrent_v2(ctx: Handle) {
        let inner = state::inner()?;
        let s = ctx_of(&inner, ctx)?;
        state::with_stack(|st| st.push(s));
        Ok(())
    }

    /// `cuCtxPopCurrent_v2`.
    fn cuCtxPopCurrent_v2(pctx: *mut Handle) {
        state::driver()?;
        let s = state::with_stack(|st| st.pop()).ok_or(error::INVALID_CONTEXT)?;
        if !pctx.is_null() {
            *pctx = handle(HandleKind::Context, s);
        }
        Ok(())
    }

    /// `cuCtxSetCurrent`: replaces the top of the stack (null pops it).
    fn cuCtxSetCurrent(ctx: Handle) {
        let inner = state::inner()?;
        if ctx.is_null() {
            state::with_stack(|st| st.pop());
            return Ok(());
        }
        let s = ctx_of(&inner, ctx)?;
        state::with_stack(|st| {
            st.pop();
            st.push(s);
        });
        Ok(())
    }

    /// `cuCtxGetCurrent`: null if none.
    fn cuCtxGetCurrent(pctx: *mut Handle) {
        state::driver()?;
        let h = state::current().map_or(std::ptr::null_mut(), |s| handle(HandleKind::Context, s));
        out(pctx, h)
    }

    /// `cuCtxGetDevice`.
    fn cuCtxGetDevice(dev: *mut CUdevice) {
        let inner = state::inner()?;
        let c = state::current().ok_or(error::INVALID_CONTEXT)?;
        if !inner.ctxs.contains_key(&c) {
            return Err(error::CONTEXT_IS_DESTROYED);
        }
        out(dev, 0)
    }

    /// `cuCtxGetFlags`.
    fn cuCtxGetFlags(flags: *mut u32) {
        let inner = state::inner()?;
        let c = state::current().ok_or(error::INVALID_CONTEXT)?;
        out(flags, inner.ctxs.get(&c).ok_or(error::CONTEXT_IS_DESTROYED)?.flags)
    }

    /// `cuCtxSetFlags`.
    fn cuCtxSetFlags(flags: u32) {
        let mut inner = state::inner()?;
        let c = state::current().ok_or(error::INVALID_CONTEXT)?;
        inner.ctxs.get_mut(&c).ok_or(error::CONTEXT_IS_DESTROYED)?.flags = flags;
        Ok(())
    }

    /// `cuCtxGetId`.
    fn cuCtxGetId(ctx: Handle, id: *mut u64) {
        let inner = state::inner()?;
        let s = if ctx.is_null() {
            state::current().ok_or(error::INVALID_CONTEXT)?
        } else {
            ctx_of(&inner, ctx)?
        };
        out(id, s)
    }

    /// `cuCtxSynchronize`: every launch has completed; the sticky error, if any.
    fn cuCtxSynchronize() {
        synchronize()
    }

    /// `cuCtxSetLimit`: recorded (the stack size is per kernel in warpjit, at least CUDA's
    /// default); `CU_LIMIT_PRINTF_FIFO_SIZE` sizes the buffer of device `printf` output.
    fn cuCtxSetLimit(limit: i32, value: usize) {
        let mut inner = state::inner()?;
        let c = state::current_ctx(&inner)?;
        if !LIMITS.iter().any(|(l, _)| *l == i64::from(limit)) {
            return Err(error::UNSUPPORTED_LIMIT);
        }
        if i64::from(limit) == c::CU_LIMIT_PRINTF_FIFO_SIZE {
            let d = state::driver()?;
            d.machine.read().unwrap_or_else(|p| p.into_inner()).host_output.set_limit(value);
        }
        inner.ctxs.get_mut(&c).ok_or(error::INVALID_CONTEXT)?.limits.insert(i64::from(limit), value);
        Ok(())
    }

    /// `cuCtxGetLimit`.
    fn cuCtxGetLimit(value: *mut usize, limit: i32) {
        let inner = state::inner()?;
        let c = state::current_ctx(&inner)?;
        let default = LIMITS.iter().find(|(l, _)| *l == i64::from(limit)).ok_or(error::UNSUPPORTED_LIMIT)?.1;
        let v = inner.ctxs.get(&c).and_then(|x| x.limits.get(&i64::from(limit)).copied()).unwrap_or(default);
        out(value, v)
    }

    /// `cuCtxGetCacheConfig`.
    fn cuCtxGetCacheConfig(config: *mut i32) {
        let inner = state::inner()?;
        let c = state::current_ctx(&inner)?;
        out(config, inner.ctxs.get(&c).map_or(0, |x| x.cache_config))
    }

    /// `cuCtxSetCacheConfig`: accepted (a preference with no effect on results).
    fn cuCtxSetCacheConfig(config: i32) {
        let mut inner = state::inner()?;
        let c = state::current_ctx(&inner)?;
        if !(0..=3).contains(&config) {
            return Err(error::INVALID_VALUE);
        }
        if let Some(x) = inner.ctxs.get_mut(&c) {
            x.cache_config = config;
        }
        Ok(())
    }

    /// `cuCtxGetSharedMemConfig`: 4-byte banks.
    fn cuCtxGetSharedMemConfig(config: *mut i32) {
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
        out(config, 1)
    }

    /// `cuCtxSetSharedMemConfig`: accepted.
    fn cuCtxSetSharedMemConfig(config: i32) {
        let _ = config;
        let inner = state::inner()?;
        state::current_ctx(&inner).map(|_| ())
    }

    /// `cuCtxGetApiVersion`: 3020 (the CUDA 3.2 context API).
    fn cuCtxGetApiVersion(ctx: Handle, version: *mut u32) {
        let inner = state::inner()?;
        if !ctx.is_null() {
            ctx_of(&inner, ctx)?;
        }
        out(version, 3020)
    }

    /// `cuCtxGetStreamPriorityRange`: 0 (least) to -1 (greatest), as on sm_52.
    fn cuCtxGetStreamPriorityRange(least: *mut i32, greatest: *mut i32) {
        state::driver()?;
        if !least.is_null() {
            *least = 0;
        }
        if !greatest.is_null() {
            *greatest = -1;
        }
        Ok(())
    }

    /// `cuCtxResetPersistingL2Cache`: nothing to reset.
    fn cuCtxResetPersistingL2Cache() {
        state::driver().map(|_| ())
    }

    /// `cuProfilerStart`: no profiler collects anything (NVIDIA's tools do not see warpjit);
    /// accepted, as with the real driver when no profiler is attached.
    fn cuProfilerStart() {
        state::inner().and_then(|inner| state::current_ctx(&inner).map(|_| ()))
    }

    /// `cuProfilerStop`: as `cuProfilerStart`.
    fn cuProfilerStop() {
        state::inner().and_then(|inner| state::current_ctx(&inner).map(|_| ()))
    }

    /// `cuCtxEnablePeerAccess`: there is no peer.
    fn cuCtxEnablePeerAccess(peer: Handle, flags: u32) {
        let _ = (peer, flags);
        state::driver()?;
        Err(error::PEER_ACCESS_UNSUPPORTED)
    }
}
