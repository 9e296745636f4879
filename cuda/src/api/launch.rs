//! Launches (`cuLaunchKernel`, `cuLaunchKernelEx`, cooperative launches), function attributes
//! and the occupancy calculator.
//!
//! A launch runs to completion when it is issued (so every later operation in any stream sees
//! its results, which is one of the orders CUDA allows). A guest fault prints warpjit's fault
//! report to stderr (as compute-sanitizer would) and leaves the context's sticky error, which
//! every later call in the context returns; the launch call itself returns success, as CUDA's
//! asynchronous launch does.

use crate::abi::{consts as c, CUlaunchConfig, CUoccupancyB2DSize, Handle, CUDA_LAUNCH_PARAMS};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::state::{self, serial, HandleKind};
use std::ffi::{c_char, c_void};
use std::sync::Arc;
use warpjit::device::{Kernel, LaunchConfig, LaunchError};
use warpjit::{Fault, FaultKind};

/// The kernel of function handle `f` and its module's serial.
fn kernel_of(f: Handle) -> Res<(Arc<Kernel>, u64, i32)> {
    let inner = state::inner()?;
    let s = serial(f, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
    let func = inner.functions.get(&s).ok_or(error::INVALID_HANDLE)?;
    Ok((func.kernel.clone(), func.module, func.max_dynamic_shared))
}

/// The parameter block from `kernelParams` (one pointer per parameter, to its value) or
/// `extra` (`CU_LAUNCH_PARAM_BUFFER_POINTER` / `_SIZE`).
unsafe fn param_block(
    k: &Kernel,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> Res<Vec<u8>> {
    let table = k.params();
    let mut block = vec![0u8; table.size as usize];
    if !params.is_null() {
        if table.params.is_empty() && table.size > 0 {
            // No parameter table: the values cannot be placed.
            return Err(error::INVALID_VALUE);
        }
        for (i, p) in table.params.iter().enumerate() {
            let v = *params.add(i);
            if v.is_null() {
                return Err(error::INVALID_VALUE);
            }
            let at = p.offset as usize;
            let n = (p.size as usize).min(block.len().saturating_sub(at));
            std::ptr::copy_nonoverlapping(v.cast::<u8>(), block.as_mut_ptr().add(at), n);
        }
        return Ok(block);
    }
    if !extra.is_null() {
        let (mut buf, mut size) = (std::ptr::null::<u8>(), None::<usize>);
        let mut i = 0;
        loop {
            let key = *extra.add(i) as usize;
            match key {
                crate::abi::CU_LAUNCH_PARAM_END => break,
                crate::abi::CU_LAUNCH_PARAM_BUFFER_POINTER => buf = *extra.add(i + 1) as *const u8,
                crate::abi::CU_LAUNCH_PARAM_BUFFER_SIZE => {
                    let p = *extra.add(i + 1) as *const usize;
                    if p.is_null() {
                        return Err(error::INVALID_VALUE);
                    }
                    size = Some(*p);
                }
                _ => return Err(error::INVALID_VALUE),
            }
            i += 2;
            if i > 64 {
                return Err(error::INVALID_VALUE);
            }
        }
        let size = size.ok_or(error::INVALID_VALUE)?;
        if buf.is_null() || size < block.len() {
            return Err(error::INVALID_VALUE);
        }
        std::ptr::copy_nonoverlapping(buf, block.as_mut_ptr(), block.len());
        return Ok(block);
    }
    if table.size == 0 {
        Ok(block)
    } else {
        Err(error::INVALID_VALUE)
    }
}

/// The sticky error a fault of this kind leaves, as CUDA reports the same failure.
pub fn fault_error(kind: &FaultKind) -> i32 {
    match kind {
        FaultKind::IllegalAddress { .. }
        | FaultKind::SharedOutOfRange { .. }
        | FaultKind::LocalOutOfRange { .. } => error::ILLEGAL_ADDRESS,
        FaultKind::MisalignedConstant { .. } => error::MISALIGNED_ADDRESS,
        FaultKind::BudgetExhausted { .. } => error::LAUNCH_TIMEOUT,
        FaultKind::StackOverflow { .. } => error::HARDWARE_STACK_ERROR,
        FaultKind::ReturnWithoutCall | FaultKind::BadBranchTarget { .. } => error::INVALID_PC,
        FaultKind::Trap {
            code: warpjit::exec::hostcall::ASSERTFAIL_CODE,
        } => error::ASSERT,
        FaultKind::BarrierDeadlock { .. } | FaultKind::Trap { .. } => error::LAUNCH_FAILED,
    }
}

/// The fault report on stderr: kernel, block and thread, pc, instruction and the registers it
/// read.
/// Writes what the sanitizer found in launch `launch` of `kernel` to stderr, in
/// `warpjit run --check`'s words (each instruction's text in place of a source line), and
/// appends its count of errors and warnings to `WARPJIT_CUDA_CHECK_OUT`.
fn check_report(
    d: &state::Driver,
    check: &warpjit::sanitizer::Sanitizer,
    kernel: &Kernel,
    launch: u64,
) {
    let mut found = check.take();
    if found.is_empty() {
        return;
    }
    let program = kernel.program();
    let source = |_: u32, pc: u32| {
        program
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter())
            .find(|i| i.pc == pc)
            .and_then(|i| warpjit::sass::print::print_inst(i).ok())
            .map(|t| format!("{}: pc {pc:#06x}: {}", kernel.name(), t.trim()))
    };
    let name = |_: u32| Some(kernel.name().to_string());
    let mut s = String::new();
    for r in found.reports.iter_mut() {
        r.launch = launch as u32;
        s.push_str(&r.render(&source, &name));
    }
    for u in &found.ub {
        s.push_str(&format!("{u}\n"));
    }
    let summary = found.summary();
    if !summary.is_empty() {
        s.push_str(&format!(
            "{summary} in kernel {} (launch {launch})\n",
            kernel.name()
        ));
    }
    eprint!("{s}");
    if let Some(path) = &d.check_out {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
        {
            let _ = writeln!(f, "{} {}", found.errors(), found.warnings());
        }
    }
}

fn report(kernel: &Kernel, cfg: &LaunchConfig, f: &Fault, launch: u64) {
    let b = cfg.block;
    let t = f.warp as u64 * 32 + f.lane as u64;
    let (tx, ty, tz) = (
        t % b[0] as u64,
        t / b[0] as u64 % b[1] as u64,
        t / (b[0] as u64 * b[1] as u64),
    );
    let inst = kernel
        .program()
        .blocks
        .iter()
        .flat_map(|bl| bl.insts.iter())
        .find(|i| i.pc == f.pc)
        .and_then(|i| warpjit::sass::print::print_inst(i).ok())
        .unwrap_or_default();
    let mut s = format!(
        "========= warpjit: kernel `{}` (launch {launch}) stopped: {}\n=========     at pc {:#06x} in block ({}, {}, {}), thread ({tx}, {ty}, {tz}) (warp {}, lane {})\n",
        kernel.name(),
        f.kind,
        f.pc,
        f.cta[0],
        f.cta[1],
        f.cta[2],
        f.warp,
        f.lane
    );
    if !inst.is_empty() {
        s.push_str(&format!("=========     instruction: {}\n", inst.trim()));
    }
    if !f.reads.is_empty() {
        s.push_str(&format!("=========     registers it read: {}\n", f.reads));
    }
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(s.as_bytes());
}

/// Runs a launch of `f` in `stream`'s context.
///
/// # Safety
/// `params` must be null or hold one valid pointer per kernel parameter, each to as many bytes
/// as the parameter's size; `extra` must be null or a `CU_LAUNCH_PARAM_END`-terminated list as
/// cuda.h describes it.
#[allow(clippy::too_many_arguments)]
pub unsafe fn launch(
    f: Handle,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    cooperative: bool,
) -> Res {
    let d = state::driver()?;
    let (ctx, launch_no) = {
        let mut inner = state::inner()?;
        let ctx = state::stream_ctx(&inner, stream)?;
        inner.launches += 1;
        (ctx, inner.launches)
    };
    let (kernel, module, max_dyn) = kernel_of(f)?;
    let block_params = param_block(&kernel, params, extra)?;
    let mut cfg = LaunchConfig {
        dynamic_shared_bytes: shared,
        // A warp may run as long as the whole launch may (a GPU has no per-warp bound).
        budget: d.launch_budget,
        ..LaunchConfig::new(grid, block)
    };
    let threads: u64 = block.iter().map(|&v| u64::from(v)).product();
    if threads > 1024 || block.contains(&0) || grid.contains(&0) {
        return Err(error::INVALID_VALUE);
    }
    if kernel.launch_bound().is_some_and(|b| threads > b) {
        // Beyond the kernel's launch bounds (`.maxntid`): CUDA calls it an invalid value.
        return Err(error::INVALID_VALUE);
    }
    if threads > u64::from(kernel.max_threads_per_block()) {
        return Err(error::LAUNCH_OUT_OF_RESOURCES);
    }
    if shared as i32 > max_dyn.max(0) && shared > 0 {
        return Err(error::INVALID_VALUE);
    }
    if cooperative {
        let per_sm = crate::device::blocks_per_sm(
            threads as u32,
            kernel.registers(),
            kernel.shared_bytes() + shared,
        );
        let ctas: u64 = grid.iter().map(|&g| u64::from(g)).product();
        if ctas > u64::from(per_sm) * crate::device::SMS as u64 {
            return Err(error::COOPERATIVE_LAUNCH_TOO_LARGE);
        }
        // The grid workspace `grid.sync()` counts arrivals in: device memory of the launch's
        // own, zeroed, freed when the launch completes.
        let mut inner = state::inner()?;
        let ws = state::alloc(
            d,
            &mut inner,
            ctx,
            warpjit::device::GRID_WORKSPACE_BYTES,
            crate::memory::Kind::Device,
        )?;
        drop(inner);
        let zero = [0u8; warpjit::device::GRID_WORKSPACE_BYTES as usize];
        let written = {
            let mut m = d.machine.write().unwrap_or_else(|p| p.into_inner());
            m.global.write_bytes(ws, &zero).is_ok()
        };
        if !written {
            let mut inner = state::inner()?;
            state::free_alloc(d, &mut inner, ws)?;
            return Err(error::OUT_OF_MEMORY);
        }
        if let Some(s) = &d.check {
            use warpjit::exec::observe::Observer as _;
            s.host_write(ws, warpjit::device::GRID_WORKSPACE_BYTES);
        }
        cfg.cooperative = Some(ws);
    }
    if crate::entry::log_enabled() {
        let hex: Vec<String> = block_params.iter().map(|b| format!("{b:02x}")).collect();
        crate::entry::log_line(&format!(
            "launch {launch_no}: `{}` grid {grid:?} block {block:?} shared {shared}, parameters ({} bytes, table {:?}): {}",
            kernel.name(),
            block_params.len(),
            kernel.params().params,
            hex.join("")
        ));
    }
    let opts = warpjit::exec::RunOptions {
        threads: d.threads,
        observer: d
            .check
            .clone()
            .map(|c| c as Arc<dyn warpjit::exec::Observer>),
        ..Default::default()
    };
    // Under the sanitizer, one launch at a time: what it finds is taken after each.
    static CHECKED: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = d
        .check
        .as_ref()
        .map(|_| CHECKED.lock().unwrap_or_else(|p| p.into_inner()));
    let machine = d.machine.read().unwrap_or_else(|p| p.into_inner());
    let before = d.record.as_ref().map(|_| crate::record::snapshot(&machine));
    let r = warpjit::device::launch(
        d.engine.engine(),
        &machine,
        &kernel,
        &cfg,
        &block_params,
        &opts,
    );
    if let (Some(dir), Some(before)) = (&d.record, before) {
        let (cubin, data_base) = {
            let inner = state::inner()?;
            let lm = inner.modules.get(&module).ok_or(error::INVALID_HANDLE)?;
            (lm.cubin.clone(), lm.data_base)
        };
        let bank3 = kernel
            .const3()
            .and_then(|(a, n)| machine.global.read_bytes(a, u64::from(n)).ok())
            .unwrap_or_default();
        let fault = match &r {
            Err(LaunchError::Fault(f)) => Some(format!("{f}")),
            _ => None,
        };
        if !matches!(r, Err(LaunchError::Invalid(_))) {
            crate::record::write(
                &crate::record::Launch {
                    dir,
                    number: launch_no,
                    module: (module, &cubin),
                    data_base,
                    kernel: &kernel,
                    config: &cfg,
                    params: &block_params,
                    bank3: &bank3,
                },
                &before,
                &machine,
                fault.as_deref(),
            );
        }
    }
    crate::printf::flush(&machine.host_output);
    drop(machine);
    if let Some(ws) = cfg.cooperative {
        let mut inner = state::inner()?;
        state::free_alloc(d, &mut inner, ws)?;
    }
    if let Some(check) = &d.check {
        check_report(d, check, &kernel, launch_no);
    }
    match r {
        Ok(_) => Ok(()),
        Err(LaunchError::Invalid(m)) => {
            if crate::entry::log_enabled() {
                crate::entry::log_line(&format!("launch refused: {m}"));
            }
            Err(error::INVALID_VALUE)
        }
        Err(LaunchError::Fault(fault)) => {
            // A failed assertion has printed its message (as CUDA does, with no other report).
            if fault_error(&fault.kind) != error::ASSERT {
                report(&kernel, &cfg, &fault, launch_no);
            }
            let mut inner = state::inner()?;
            if let Some(c) = inner.ctxs.get_mut(&ctx) {
                c.error = Some(fault_error(&fault.kind));
            }
            Ok(())
        }
    }
}

/// The name of function `f`, as a `'static` C string.
///
/// # Safety
/// `name` must be null or valid for a write of a pointer.
pub unsafe fn function_name(name: *mut *const c_char, f: Handle) -> Res {
    let (kernel, _, _) = kernel_of(f)?;
    use std::collections::HashMap;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);
    let mut m = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    let p = *m
        .get_or_insert_with(HashMap::new)
        .entry(kernel.name().to_string())
        .or_insert_with(|| {
            let c = std::ffi::CString::new(kernel.name()).unwrap_or_default();
            Box::leak(c.into_boxed_c_str()).as_ptr() as usize
        });
    out(name, p as *const c_char)
}

unsafe fn occupancy(f: Handle, block: i32, dynamic: usize) -> Res<i32> {
    let (k, _, _) = kernel_of(f)?;
    if block <= 0 {
        return Err(error::INVALID_VALUE);
    }
    if block as u32 > k.max_threads_per_block() {
        return Ok(0);
    }
    Ok(crate::device::blocks_per_sm(
        block as u32,
        k.registers(),
        k.shared_bytes() + dynamic as u32,
    ) as i32)
}

unsafe fn max_potential(
    grid: *mut i32,
    block: *mut i32,
    f: Handle,
    b2d: CUoccupancyB2DSize,
    dynamic: usize,
    limit: i32,
) -> Res {
    let (k, _, _) = kernel_of(f)?;
    let cap = if limit > 0 {
        (limit as u32).min(k.max_threads_per_block())
    } else {
        k.max_threads_per_block()
    };
    let (mut best, mut best_b) = (0u32, 32u32);
    let mut b = cap / 32 * 32;
    while b >= 32 {
        let shared = match b2d {
            Some(func) => func(b as i32),
            None => dynamic,
        };
        let n = crate::device::blocks_per_sm(b, k.registers(), k.shared_bytes() + shared as u32);
        if n * b > best {
            best = n * b;
            best_b = b;
        }
        b -= 32;
    }
    let per_sm = best / best_b;
    out(grid, (per_sm * crate::device::SMS as u32) as i32)?;
    out(block, best_b as i32)
}

cuda_api! {
    /// `cuLaunchKernel`.
    fn cuLaunchKernel(f: Handle, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shared: u32, stream: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) {
        launch(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, extra, false)
    }

    /// `cuLaunchKernelEx`: the attributes are accepted; `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`
    /// checks the grid fits the device at once.
    fn cuLaunchKernelEx(config: *const CUlaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void) {
        if config.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let cfg = config.read_unaligned();
        let mut coop = false;
        for i in 0..cfg.numAttrs as usize {
            if cfg.attrs.is_null() {
                return Err(error::INVALID_VALUE);
            }
            let a = cfg.attrs.add(i).read_unaligned();
            if i64::from(a.id) == c::CU_LAUNCH_ATTRIBUTE_COOPERATIVE {
                coop = a.value[..4] != [0, 0, 0, 0];
            }
        }
        launch(f, [cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ], [cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ], cfg.sharedMemBytes, cfg.hStream, params, extra, coop)
    }

    /// `cuLaunchCooperativeKernel`: every block must be resident at once.
    fn cuLaunchCooperativeKernel(f: Handle, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shared: u32, stream: Handle, params: *mut *mut c_void) {
        launch(f, [gx, gy, gz], [bx, by, bz], shared, stream, params, std::ptr::null_mut(), true)
    }

    /// `cuLaunchCooperativeKernelMultiDevice`: one device.
    fn cuLaunchCooperativeKernelMultiDevice(list: *mut CUDA_LAUNCH_PARAMS, n: u32, flags: u32) {
        let _ = flags;
        if list.is_null() || n != 1 {
            return Err(error::INVALID_VALUE);
        }
        let p = list.read_unaligned();
        launch(p.function, [p.gridDimX, p.gridDimY, p.gridDimZ], [p.blockDimX, p.blockDimY, p.blockDimZ], p.sharedMemBytes, p.hStream, p.kernelParams, std::ptr::null_mut(), true)
    }

    /// `cuFuncGetAttribute`.
    fn cuFuncGetAttribute(value: *mut i32, attrib: i32, f: Handle) {
        out(value, crate::api::module::function_attribute(f, attrib)?)
    }

    /// `cuFuncSetAttribute`.
    fn cuFuncSetAttribute(f: Handle, attrib: i32, value: i32) {
        crate::api::module::set_function_attribute(f, attrib, value)
    }

    /// `cuFuncSetCacheConfig`: accepted.
    fn cuFuncSetCacheConfig(f: Handle, config: i32) {
        kernel_of(f)?;
        if (0..=3).contains(&config) { Ok(()) } else { Err(error::INVALID_VALUE) }
    }

    /// `cuFuncSetSharedMemConfig`: accepted.
    fn cuFuncSetSharedMemConfig(f: Handle, config: i32) {
        let _ = config;
        kernel_of(f).map(|_| ())
    }

    /// `cuFuncGetModule`.
    fn cuFuncGetModule(module: *mut Handle, f: Handle) {
        let (_, m, _) = kernel_of(f)?;
        out(module, state::handle(HandleKind::Module, m))
    }

    /// `cuFuncGetName`.
    fn cuFuncGetName(name: *mut *const c_char, f: Handle) {
        function_name(name, f)
    }

    /// `cuFuncGetParamInfo`.
    fn cuFuncGetParamInfo(f: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        let (k, _, _) = kernel_of(f)?;
        let p = k.params().params.get(index).ok_or(error::INVALID_VALUE)?;
        if !offset.is_null() {
            *offset = p.offset as usize;
        }
        if !size.is_null() {
            *size = p.size as usize;
        }
        Ok(())
    }

    /// `cuFuncIsLoaded`: always.
    fn cuFuncIsLoaded(state_out: *mut i32, f: Handle) {
        kernel_of(f)?;
        out(state_out, 1)
    }

    /// `cuFuncLoad`: nothing to do.
    fn cuFuncLoad(f: Handle) {
        kernel_of(f).map(|_| ())
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    fn cuOccupancyMaxActiveBlocksPerMultiprocessor(n: *mut i32, f: Handle, block: i32, dynamic: usize) {
        out(n, occupancy(f, block, dynamic)?)
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
    fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n: *mut i32, f: Handle, block: i32, dynamic: usize, flags: u32) {
        let _ = flags;
        out(n, occupancy(f, block, dynamic)?)
    }

    /// `cuOccupancyMaxPotentialBlockSize`.
    fn cuOccupancyMaxPotentialBlockSize(grid: *mut i32, block: *mut i32, f: Handle, b2d: CUoccupancyB2DSize, dynamic: usize, limit: i32) {
        max_potential(grid, block, f, b2d, dynamic, limit)
    }

    /// `cuOccupancyMaxPotentialBlockSizeWithFlags`.
    fn cuOccupancyMaxPotentialBlockSizeWithFlags(grid: *mut i32, block: *mut i32, f: Handle, b2d: CUoccupancyB2DSize, dynamic: usize, limit: i32, flags: u32) {
        let _ = flags;
        max_potential(grid, block, f, b2d, dynamic, limit)
    }

    /// `cuOccupancyAvailableDynamicSMemPerBlock`.
    fn cuOccupancyAvailableDynamicSMemPerBlock(size: *mut usize, f: Handle, blocks: i32, block: i32) {
        let (k, _, _) = kernel_of(f)?;
        if blocks <= 0 || block <= 0 {
            return Err(error::INVALID_VALUE);
        }
        let per = (crate::device::SHARED_PER_SM as u32 / blocks as u32) / 256 * 256;
        let room = per.min(crate::device::SHARED_PER_BLOCK as u32).saturating_sub(k.shared_bytes());
        out(size, room as usize)
    }
}
