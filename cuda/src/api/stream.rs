//! Streams and events. Every operation completes when it is issued, so a stream is always idle:
//! queries report completion, waits return at once, callbacks run when they are added, and an
//! event's time is when it was recorded.

use crate::abi::{consts as c, CUhostFn, CUstreamCallback, Handle};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::state::{self, handle, serial, Event, HandleKind, Stream};

fn event_of(h: Handle) -> Res<u64> {
    serial(h, HandleKind::Event).ok_or(error::INVALID_HANDLE)
}

fn stream_check(stream: Handle) -> Res<u64> {
    let inner = state::inner()?;
    state::stream_ctx(&inner, stream)
}

fn create_stream(p: *mut Handle, flags: u32, priority: i32) -> Res {
    let mut inner = state::inner()?;
    let ctx = state::current_ctx(&inner)?;
    if p.is_null() || flags > 1 {
        return Err(error::INVALID_VALUE);
    }
    let s = inner.serial();
    inner.streams.insert(
        s,
        Stream {
            ctx,
            flags,
            priority: priority.clamp(-1, 0),
        },
    );
    // SAFETY: checked non-null; the caller's out-parameter.
    unsafe { out(p, handle(HandleKind::Stream, s)) }
}

cuda_api! {
    /// `cuStreamCreate`.
    fn cuStreamCreate(p: *mut Handle, flags: u32) { create_stream(p, flags, 0) }
    /// `cuStreamCreateWithPriority`.
    fn cuStreamCreateWithPriority(p: *mut Handle, flags: u32, priority: i32) { create_stream(p, flags, priority) }

    /// `cuStreamDestroy_v2`.
    fn cuStreamDestroy_v2(stream: Handle) {
        let s = serial(stream, HandleKind::Stream).ok_or(error::INVALID_HANDLE)?;
        state::inner()?.streams.remove(&s).map(|_| ()).ok_or(error::INVALID_HANDLE)
    }

    /// `cuStreamQuery`: done.
    fn cuStreamQuery(stream: Handle) { stream_check(stream).map(|_| ()) }
    /// `cuStreamSynchronize`: done; the sticky error if a launch faulted.
    fn cuStreamSynchronize(stream: Handle) { stream_check(stream).map(|_| ()) }
    /// `cuStreamWaitEvent`: the event's work is done.
    fn cuStreamWaitEvent(stream: Handle, event: Handle, flags: u32) {
        let _ = flags;
        stream_check(stream)?;
        let e = event_of(event)?;
        if state::inner()?.events.contains_key(&e) { Ok(()) } else { Err(error::INVALID_HANDLE) }
    }

    /// `cuStreamGetFlags`.
    fn cuStreamGetFlags(stream: Handle, flags: *mut u32) {
        stream_check(stream)?;
        let inner = state::inner()?;
        let f = serial(stream, HandleKind::Stream).and_then(|s| inner.streams.get(&s)).map_or(0, |s| s.flags);
        out(flags, f)
    }

    /// `cuStreamGetPriority`.
    fn cuStreamGetPriority(stream: Handle, priority: *mut i32) {
        stream_check(stream)?;
        let inner = state::inner()?;
        let p = serial(stream, HandleKind::Stream).and_then(|s| inner.streams.get(&s)).map_or(0, |s| s.priority);
        out(priority, p)
    }

    /// `cuStreamGetCtx`.
    fn cuStreamGetCtx(stream: Handle, pctx: *mut Handle) {
        let c = stream_check(stream)?;
        out(pctx, handle(HandleKind::Context, c))
    }

    /// `cuStreamGetId`.
    fn cuStreamGetId(stream: Handle, id: *mut u64) {
        stream_check(stream)?;
        out(id, stream as u64)
    }

    /// `cuStreamAddCallback`: called now, with the stream's status.
    fn cuStreamAddCallback(stream: Handle, callback: CUstreamCallback, data: *mut std::ffi::c_void, flags: u32) {
        if flags != 0 {
            return Err(error::INVALID_VALUE);
        }
        let cb = callback.ok_or(error::INVALID_VALUE)?;
        let status = match stream_check(stream) {
            Ok(_) => 0,
            Err(e) if e == error::INVALID_HANDLE => return Err(e),
            Err(e) => e,
        };
        cb(stream, status, data);
        Ok(())
    }

    /// `cuLaunchHostFunc`: called now.
    fn cuLaunchHostFunc(stream: Handle, f: CUhostFn, data: *mut std::ffi::c_void) {
        let f = f.ok_or(error::INVALID_VALUE)?;
        stream_check(stream)?;
        f(data);
        Ok(())
    }

    /// `cuEventCreate`.
    fn cuEventCreate(p: *mut Handle, flags: u32) {
        let mut inner = state::inner()?;
        let ctx = state::current_ctx(&inner)?;
        if p.is_null() || flags & !0xf != 0 {
            return Err(error::INVALID_VALUE);
        }
        let s = inner.serial();
        inner.events.insert(s, Event { ctx, flags, recorded: None });
        out(p, handle(HandleKind::Event, s))
    }

    /// `cuEventDestroy_v2`.
    fn cuEventDestroy_v2(event: Handle) {
        let e = event_of(event)?;
        state::inner()?.events.remove(&e).map(|_| ()).ok_or(error::INVALID_HANDLE)
    }

    /// `cuEventRecord`: now (every earlier operation has completed).
    fn cuEventRecord(event: Handle, stream: Handle) {
        stream_check(stream)?;
        let e = event_of(event)?;
        let mut inner = state::inner()?;
        let ev = inner.events.get_mut(&e).ok_or(error::INVALID_HANDLE)?;
        ev.recorded = Some(std::time::Instant::now());
        Ok(())
    }

    /// `cuEventRecordWithFlags`.
    fn cuEventRecordWithFlags(event: Handle, stream: Handle, flags: u32) {
        let _ = flags;
        stream_check(stream)?;
        let e = event_of(event)?;
        let mut inner = state::inner()?;
        let ev = inner.events.get_mut(&e).ok_or(error::INVALID_HANDLE)?;
        ev.recorded = Some(std::time::Instant::now());
        Ok(())
    }

    /// `cuEventQuery`: complete.
    fn cuEventQuery(event: Handle) {
        let e = event_of(event)?;
        let inner = state::inner()?;
        let ev = inner.events.get(&e).ok_or(error::INVALID_HANDLE)?;
        match inner.ctxs.get(&ev.ctx).and_then(|c| c.error) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// `cuEventSynchronize`: complete.
    fn cuEventSynchronize(event: Handle) {
        let e = event_of(event)?;
        let inner = state::inner()?;
        let ev = inner.events.get(&e).ok_or(error::INVALID_HANDLE)?;
        match inner.ctxs.get(&ev.ctx).and_then(|c| c.error) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// `cuEventElapsedTime`: milliseconds between two recordings.
    fn cuEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) {
        let (a, b) = (event_of(start)?, event_of(end)?);
        let inner = state::inner()?;
        let (ea, eb) = (inner.events.get(&a).ok_or(error::INVALID_HANDLE)?, inner.events.get(&b).ok_or(error::INVALID_HANDLE)?);
        let timing = |e: &Event| e.flags & c::CU_EVENT_DISABLE_TIMING as u32 == 0;
        if !timing(ea) || !timing(eb) {
            return Err(error::INVALID_HANDLE);
        }
        match (ea.recorded, eb.recorded) {
            (Some(x), Some(y)) => {
                let d = if y >= x { y.duration_since(x).as_secs_f64() } else { -(x.duration_since(y).as_secs_f64()) };
                out(ms, (d * 1000.0) as f32)
            }
            _ => Err(error::INVALID_HANDLE),
        }
    }

    /// `cuEventElapsedTime_v2`.
    fn cuEventElapsedTime_v2(ms: *mut f32, start: Handle, end: Handle) {
        let r = cuEventElapsedTime(ms, start, end);
        if r == 0 { Ok(()) } else { Err(r) }
    }
}
