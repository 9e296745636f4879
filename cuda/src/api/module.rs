//! Modules (`cuModuleLoad*`), their functions and globals, the JIT linker (`cuLink*`) and the
//! CUDA 12 library API (`cuLibrary*`, `cuKernel*`).

use crate::abi::{consts as c, CUdeviceptr, Handle};
use crate::entry::{cuda_api, out};
use crate::error::{self, Res};
use crate::memory::Kind;
use crate::state::{self, handle, serial, Function, HandleKind, Inner, LoadedModule};
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Arc;
use warpjit::exec::Observer;

/// Loads a cubin, fatbin or PTX image into the current context: its data image is allocated
/// as device memory. `log` receives the JIT's messages.
pub fn load_image(bytes: &[u8], log: &mut String) -> Res<u64> {
    let d = state::driver()?;
    {
        let inner = state::inner()?;
        state::current_ctx(&inner)?;
    }
    let cubin = crate::image::cubin_of(bytes, log)?;
    if let Some(dir) = std::env::var_os("WARPJIT_CUDA_DUMP") {
        // Every module loaded, as the cubin that runs (for `warpjit disasm`).
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::path::Path::new(&dir).join(format!("module-{}-{n}.cubin", std::process::id()));
        let _ = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &cubin));
    }
    let module = warpjit::device::Module::from_cubin(&cubin).map_err(|e| {
        log.push_str(&e.to_string());
        if crate::entry::log_enabled() {
            crate::entry::log_line(&format!("the module does not load: {e}"));
        }
        if e.to_string().contains("only Maxwell") {
            error::NO_BINARY_FOR_GPU
        } else {
            error::INVALID_IMAGE
        }
    })?;
    let mut inner = state::inner()?;
    let ctx = state::current_ctx(&inner)?;
    let data_bytes = module.data_bytes();
    let data_base = if data_bytes > 0 {
        let base = state::alloc(d, &mut inner, ctx, data_bytes, Kind::Device)?;
        let image = module.data_image(base);
        // SAFETY: the allocation is `data_bytes` long, readable and writable.
        unsafe { std::ptr::copy_nonoverlapping(image.as_ptr(), base as *mut u8, image.len()) };
        if let Some(s) = &d.check {
            // The data image (zeros past its initialised part) is defined.
            s.host_write(base, data_bytes);
        }
        base
    } else {
        0
    };
    let s = inner.serial();
    inner.modules.insert(
        s,
        LoadedModule {
            ctx,
            module: Arc::new(module),
            cubin: Arc::new(cubin),
            data_base,
            functions: HashMap::new(),
        },
    );
    Ok(s)
}

/// The function `name` of module `m` (decoded on first use).
pub fn get_function(inner: &mut Inner, m: u64, name: &str) -> Res<u64> {
    let lm = inner.modules.get(&m).ok_or(error::INVALID_HANDLE)?;
    if let Some(&f) = lm.functions.get(name) {
        return Ok(f);
    }
    let kernel = lm.module.kernel(name, lm.data_base).map_err(|e| match e {
        warpjit::device::ModuleError::NoKernel(_) => error::NOT_FOUND,
        e => {
            crate::entry::log_line(&format!("kernel `{name}` cannot run: {e}"));
            error::INVALID_IMAGE
        }
    })?;
    let s = inner.serial();
    inner.functions.insert(
        s,
        Function {
            module: m,
            kernel: Arc::new(kernel),
            max_dynamic_shared: crate::device::SHARED_PER_BLOCK,
            carveout: -1,
            cache_config: 0,
        },
    );
    if let Some(lm) = inner.modules.get_mut(&m) {
        lm.functions.insert(name.to_string(), s);
    }
    Ok(s)
}

/// Unloads module `m`: its functions go, its data image is freed.
pub fn unload(m: u64) -> Res {
    let d = state::driver()?;
    let mut inner = state::inner()?;
    let lm = inner.modules.remove(&m).ok_or(error::INVALID_HANDLE)?;
    inner.functions.retain(|_, f| f.module != m);
    if lm.data_base != 0 {
        let _ = state::free_alloc(d, &mut inner, lm.data_base);
    }
    Ok(())
}

fn module_of(h: Handle) -> Res<u64> {
    serial(h, HandleKind::Module).ok_or(error::INVALID_HANDLE)
}

unsafe fn name_of<'a>(p: *const c_char) -> Res<std::borrow::Cow<'a, str>> {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    Ok(CStr::from_ptr(p).to_string_lossy())
}

/// A global of module `m`: its device address and size.
fn global(m: u64, name: &str) -> Res<(u64, usize)> {
    let inner = state::inner()?;
    let lm = inner.modules.get(&m).ok_or(error::INVALID_HANDLE)?;
    let sym = lm.module.symbol(name).ok_or(error::NOT_FOUND)?;
    Ok((lm.data_base + sym.offset, sym.size as usize))
}

/// The JIT options' log buffers (`CU_JIT_INFO_LOG_BUFFER`, `CU_JIT_ERROR_LOG_BUFFER` and
/// their sizes), to fill after a compile.
unsafe fn jit_logs(n: u32, options: *const i32, values: *const *mut c_void) -> [(usize, usize); 2] {
    let mut logs = [(0usize, 0usize); 2];
    if options.is_null() || values.is_null() {
        return logs;
    }
    for i in 0..n as usize {
        let v = *values.add(i) as usize;
        match i64::from(*options.add(i)) {
            c::CU_JIT_INFO_LOG_BUFFER => logs[0].0 = v,
            c::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES => logs[0].1 = v,
            c::CU_JIT_ERROR_LOG_BUFFER => logs[1].0 = v,
            c::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => logs[1].1 = v,
            _ => {}
        }
    }
    logs
}

/// Writes `text` into a log buffer given as (address, size), NUL-terminated.
unsafe fn fill_log((buf, size): (usize, usize), text: &str) {
    if buf == 0 || size == 0 {
        return;
    }
    let n = text.len().min(size - 1);
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, n);
    *(buf as *mut u8).add(n) = 0;
}

unsafe fn load_data_ex(
    m: *mut Handle,
    image: *const c_void,
    n: u32,
    options: *const i32,
    values: *const *mut c_void,
) -> Res {
    if m.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let len = crate::image::image_len(image.cast())?;
    let bytes = std::slice::from_raw_parts(image.cast::<u8>(), len);
    let logs = jit_logs(n, options, values);
    let mut log = String::new();
    let r = load_image(bytes, &mut log);
    fill_log(if r.is_ok() { logs[0] } else { logs[1] }, &log);
    out(m, handle(HandleKind::Module, r?))
}

fn link_of(h: Handle) -> Res<u64> {
    serial(h, HandleKind::Link).ok_or(error::INVALID_HANDLE)
}

fn library_module(h: Handle) -> Res<u64> {
    let s = serial(h, HandleKind::Library).ok_or(error::INVALID_HANDLE)?;
    let inner = state::inner()?;
    inner
        .libraries
        .get(&s)
        .map(|l| l.module)
        .ok_or(error::INVALID_HANDLE)
}

/// The function attribute `attrib` of function (or kernel) handle `f`.
pub fn function_attribute(f: Handle, attrib: i32) -> Res<i32> {
    let inner = state::inner()?;
    let s = serial(f, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
    let func = inner.functions.get(&s).ok_or(error::INVALID_HANDLE)?;
    let k = &func.kernel;
    Ok(match i64::from(attrib) {
        c::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => k.max_threads_per_block() as i32,
        c::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => k.shared_bytes() as i32,
        c::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => k.const_bytes() as i32,
        c::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => k.local_bytes() as i32,
        c::CU_FUNC_ATTRIBUTE_NUM_REGS => k.registers() as i32,
        c::CU_FUNC_ATTRIBUTE_PTX_VERSION => 52,
        c::CU_FUNC_ATTRIBUTE_BINARY_VERSION => 52,
        c::CU_FUNC_ATTRIBUTE_CACHE_MODE_CA => 0,
        c::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => func.max_dynamic_shared,
        c::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => func.carveout,
        c::CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET => 0,
        c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
        | c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
        | c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => 0,
        c::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => 0,
        c::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => 0,
        _ => return Err(error::INVALID_VALUE),
    })
}

/// Sets a function attribute (the two settable ones; others are refused).
pub fn set_function_attribute(f: Handle, attrib: i32, value: i32) -> Res {
    let mut inner = state::inner()?;
    let s = serial(f, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
    let func = inner.functions.get_mut(&s).ok_or(error::INVALID_HANDLE)?;
    match i64::from(attrib) {
        c::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            let room = crate::device::SHARED_PER_BLOCK - func.kernel.shared_bytes() as i32;
            if value < 0 || value > room {
                return Err(error::INVALID_VALUE);
            }
            func.max_dynamic_shared = value;
        }
        c::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
            if !(-1..=100).contains(&value) {
                return Err(error::INVALID_VALUE);
            }
            func.carveout = value;
        }
        c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
        | c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
        | c::CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH
        | c::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
        | c::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
            return Err(error::NOT_SUPPORTED)
        }
        _ => return Err(error::INVALID_VALUE),
    }
    Ok(())
}

cuda_api! {
    /// `cuModuleLoadData`: a cubin, fatbin or PTX image.
    fn cuModuleLoadData(module: *mut Handle, image: *const c_void) {
        load_data_ex(module, image, 0, std::ptr::null(), std::ptr::null())
    }

    /// `cuModuleLoadDataEx`: with JIT options (the log buffers are filled; the others are
    /// accepted).
    fn cuModuleLoadDataEx(module: *mut Handle, image: *const c_void, n: u32, options: *mut i32, values: *mut *mut c_void) {
        load_data_ex(module, image, n, options, values)
    }

    /// `cuModuleLoadFatBinary`.
    fn cuModuleLoadFatBinary(module: *mut Handle, fat: *const c_void) {
        load_data_ex(module, fat, 0, std::ptr::null(), std::ptr::null())
    }

    /// `cuModuleLoad`: from a file.
    fn cuModuleLoad(module: *mut Handle, fname: *const c_char) {
        let path = name_of(fname)?;
        let bytes = std::fs::read(&*path).map_err(|_| error::FILE_NOT_FOUND)?;
        let mut log = String::new();
        let m = load_image(&bytes, &mut log)?;
        out(module, handle(HandleKind::Module, m))
    }

    /// `cuModuleUnload`.
    fn cuModuleUnload(module: Handle) {
        unload(module_of(module)?)
    }

    /// `cuModuleGetFunction`.
    fn cuModuleGetFunction(f: *mut Handle, module: Handle, name: *const c_char) {
        let m = module_of(module)?;
        let name = name_of(name)?;
        let mut inner = state::inner()?;
        let s = get_function(&mut inner, m, &name)?;
        out(f, handle(HandleKind::Function, s))
    }

    /// `cuModuleGetFunctionCount`.
    fn cuModuleGetFunctionCount(count: *mut u32, module: Handle) {
        let m = module_of(module)?;
        let inner = state::inner()?;
        let lm = inner.modules.get(&m).ok_or(error::INVALID_HANDLE)?;
        out(count, lm.module.kernel_names().count() as u32)
    }

    /// `cuModuleGetGlobal_v2`: a `__device__` or `__constant__` variable's address and size.
    fn cuModuleGetGlobal_v2(dptr: *mut CUdeviceptr, bytes: *mut usize, module: Handle, name: *const c_char) {
        let (a, n) = global(module_of(module)?, &name_of(name)?)?;
        if !dptr.is_null() {
            *dptr = a;
        }
        if !bytes.is_null() {
            *bytes = n;
        }
        Ok(())
    }

    /// `cuModuleGetLoadingMode`: eager.
    fn cuModuleGetLoadingMode(mode: *mut i32) {
        state::driver()?;
        out(mode, 2)
    }

    /// `cuLinkCreate_v2`.
    fn cuLinkCreate_v2(n: u32, options: *mut i32, values: *mut *mut c_void, state_out: *mut Handle) {
        let mut inner = state::inner()?;
        state::current_ctx(&inner)?;
        if state_out.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let logs = jit_logs(n, options, values);
        let s = inner.serial();
        inner.links.insert(s, state::Link { logs, ..Default::default() });
        out(state_out, handle(HandleKind::Link, s))
    }

    /// `cuLinkAddData_v2`: a cubin, fatbin or PTX input.
    fn cuLinkAddData_v2(link: Handle, kind: i32, data: *mut c_void, size: usize, name: *const c_char, n: u32, options: *mut i32, values: *mut *mut c_void) {
        let _ = (n, options, values);
        let s = link_of(link)?;
        if data.is_null() || size == 0 {
            return Err(error::INVALID_VALUE);
        }
        let bytes = std::slice::from_raw_parts(data.cast::<u8>(), size).to_vec();
        let name = if name.is_null() { String::new() } else { CStr::from_ptr(name).to_string_lossy().into_owned() };
        let mut inner = state::inner()?;
        let l = inner.links.get_mut(&s).ok_or(error::INVALID_HANDLE)?;
        l.inputs.push((i64::from(kind), bytes, name));
        Ok(())
    }

    /// `cuLinkAddFile_v2`.
    fn cuLinkAddFile_v2(link: Handle, kind: i32, path: *const c_char, n: u32, options: *mut i32, values: *mut *mut c_void) {
        let _ = (n, options, values);
        let s = link_of(link)?;
        let p = name_of(path)?.into_owned();
        let bytes = std::fs::read(&p).map_err(|_| error::FILE_NOT_FOUND)?;
        let mut inner = state::inner()?;
        let l = inner.links.get_mut(&s).ok_or(error::INVALID_HANDLE)?;
        l.inputs.push((i64::from(kind), bytes, p));
        Ok(())
    }

    /// `cuLinkComplete`: one input (PTX is compiled, a cubin or fatbin taken as it is), or
    /// several, linked by NVIDIA's nvJitLink ([`crate::link`]).
    fn cuLinkComplete(link: Handle, cubin: *mut *mut c_void, size: *mut usize) {
        let s = link_of(link)?;
        let (inputs, logs) = {
            let mut inner = state::inner()?;
            let l = inner.links.get_mut(&s).ok_or(error::INVALID_HANDLE)?;
            (std::mem::take(&mut l.inputs), l.logs)
        };
        let mut log = String::new();
        let made = match inputs.as_slice() {
            [(_, bytes, _)] => crate::image::cubin_of(bytes, &mut log),
            [] => Err(error::INVALID_VALUE),
            several => crate::link::link(several, &mut log),
        };
        fill_log(if made.is_ok() { logs[0] } else { logs[1] }, &log);
        let made = made?;
        let mut inner = state::inner()?;
        let l = inner.links.get_mut(&s).ok_or(error::INVALID_HANDLE)?;
        let out_bytes = l.output.insert(made);
        if !cubin.is_null() {
            *cubin = out_bytes.as_mut_ptr().cast();
        }
        if !size.is_null() {
            *size = out_bytes.len();
        }
        Ok(())
    }

    /// `cuLinkDestroy`.
    fn cuLinkDestroy(link: Handle) {
        let s = link_of(link)?;
        let mut inner = state::inner()?;
        inner.links.remove(&s).map(|_| ()).ok_or(error::INVALID_HANDLE)
    }

    /// `cuLibraryLoadData`: a module in the current context.
    fn cuLibraryLoadData(lib: *mut Handle, code: *const c_void, jit_options: *mut i32, jit_values: *mut *mut c_void, n_jit: u32, lib_options: *mut i32, lib_values: *mut *mut c_void, n_lib: u32) {
        let _ = (lib_options, lib_values, n_lib);
        if lib.is_null() {
            return Err(error::INVALID_VALUE);
        }
        let mut m: Handle = std::ptr::null_mut();
        load_data_ex(&mut m, code, n_jit, jit_options, jit_values)?;
        let ms = module_of(m)?;
        let mut inner = state::inner()?;
        let s = inner.serial();
        inner.libraries.insert(s, state::Library { module: ms });
        out(lib, handle(HandleKind::Library, s))
    }

    /// `cuLibraryLoadFromFile`.
    fn cuLibraryLoadFromFile(lib: *mut Handle, fname: *const c_char, jit_options: *mut i32, jit_values: *mut *mut c_void, n_jit: u32, lib_options: *mut i32, lib_values: *mut *mut c_void, n_lib: u32) {
        let _ = (lib_options, lib_values, n_lib);
        let bytes = std::fs::read(&*name_of(fname)?).map_err(|_| error::FILE_NOT_FOUND)?;
        let logs = jit_logs(n_jit, jit_options, jit_values);
        let mut log = String::new();
        let r = load_image(&bytes, &mut log);
        fill_log(if r.is_ok() { logs[0] } else { logs[1] }, &log);
        let ms = r?;
        let mut inner = state::inner()?;
        let s = inner.serial();
        inner.libraries.insert(s, state::Library { module: ms });
        out(lib, handle(HandleKind::Library, s))
    }

    /// `cuLibraryUnload`.
    fn cuLibraryUnload(lib: Handle) {
        let m = library_module(lib)?;
        let s = serial(lib, HandleKind::Library).ok_or(error::INVALID_HANDLE)?;
        state::inner()?.libraries.remove(&s);
        unload(m)
    }

    /// `cuLibraryGetKernel`: a kernel handle (it launches as a function).
    fn cuLibraryGetKernel(kernel: *mut Handle, lib: Handle, name: *const c_char) {
        let m = library_module(lib)?;
        let name = name_of(name)?;
        let mut inner = state::inner()?;
        let s = get_function(&mut inner, m, &name)?;
        out(kernel, handle(HandleKind::Function, s))
    }

    /// `cuLibraryGetKernelCount`.
    fn cuLibraryGetKernelCount(count: *mut u32, lib: Handle) {
        let m = library_module(lib)?;
        let inner = state::inner()?;
        let lm = inner.modules.get(&m).ok_or(error::INVALID_HANDLE)?;
        out(count, lm.module.kernel_names().count() as u32)
    }

    /// `cuLibraryEnumerateKernels`.
    fn cuLibraryEnumerateKernels(kernels: *mut Handle, n: u32, lib: Handle) {
        let m = library_module(lib)?;
        let mut inner = state::inner()?;
        let names: Vec<String> = inner.modules.get(&m).ok_or(error::INVALID_HANDLE)?.module.kernel_names().map(str::to_string).collect();
        if kernels.is_null() || (n as usize) < names.len() {
            return Err(error::INVALID_VALUE);
        }
        for (i, name) in names.iter().enumerate() {
            let s = get_function(&mut inner, m, name)?;
            *kernels.add(i) = handle(HandleKind::Function, s);
        }
        Ok(())
    }

    /// `cuLibraryGetModule`.
    fn cuLibraryGetModule(module: *mut Handle, lib: Handle) {
        out(module, handle(HandleKind::Module, library_module(lib)?))
    }

    /// `cuLibraryGetGlobal`.
    fn cuLibraryGetGlobal(dptr: *mut CUdeviceptr, bytes: *mut usize, lib: Handle, name: *const c_char) {
        let (a, n) = global(library_module(lib)?, &name_of(name)?)?;
        if !dptr.is_null() {
            *dptr = a;
        }
        if !bytes.is_null() {
            *bytes = n;
        }
        Ok(())
    }

    /// `cuLibraryGetManaged`: no `__managed__` variables.
    fn cuLibraryGetManaged(dptr: *mut CUdeviceptr, bytes: *mut usize, lib: Handle, name: *const c_char) {
        let _ = (dptr, bytes, name);
        library_module(lib)?;
        Err(error::NOT_FOUND)
    }

    /// `cuKernelGetFunction`: the same handle.
    fn cuKernelGetFunction(f: *mut Handle, kernel: Handle) {
        let s = serial(kernel, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
        if !state::inner()?.functions.contains_key(&s) {
            return Err(error::INVALID_HANDLE);
        }
        out(f, kernel)
    }

    /// `cuKernelGetLibrary`.
    fn cuKernelGetLibrary(lib: *mut Handle, kernel: Handle) {
        let s = serial(kernel, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
        let inner = state::inner()?;
        let m = inner.functions.get(&s).ok_or(error::INVALID_HANDLE)?.module;
        let l = inner.libraries.iter().find(|(_, l)| l.module == m).map(|(k, _)| *k).ok_or(error::NOT_FOUND)?;
        out(lib, handle(HandleKind::Library, l))
    }

    /// `cuKernelGetAttribute`.
    fn cuKernelGetAttribute(value: *mut i32, attrib: i32, kernel: Handle, dev: i32) {
        crate::api::device::check_device(dev)?;
        out(value, function_attribute(kernel, attrib)?)
    }

    /// `cuKernelSetAttribute`.
    fn cuKernelSetAttribute(attrib: i32, value: i32, kernel: Handle, dev: i32) {
        crate::api::device::check_device(dev)?;
        set_function_attribute(kernel, attrib, value)
    }

    /// `cuKernelSetCacheConfig`: accepted.
    fn cuKernelSetCacheConfig(kernel: Handle, config: i32, dev: i32) {
        crate::api::device::check_device(dev)?;
        function_attribute(kernel, c::CU_FUNC_ATTRIBUTE_NUM_REGS as i32)?;
        if (0..=3).contains(&config) { Ok(()) } else { Err(error::INVALID_VALUE) }
    }

    /// `cuKernelGetName`.
    fn cuKernelGetName(name: *mut *const c_char, kernel: Handle) {
        crate::api::launch::function_name(name, kernel)
    }

    /// `cuKernelGetParamInfo`: a parameter's offset and size.
    fn cuKernelGetParamInfo(kernel: Handle, index: usize, offset: *mut usize, size: *mut usize) {
        let s = serial(kernel, HandleKind::Function).ok_or(error::INVALID_HANDLE)?;
        let inner = state::inner()?;
        let f = inner.functions.get(&s).ok_or(error::INVALID_HANDLE)?;
        let p = f.kernel.params().params.get(index).ok_or(error::INVALID_VALUE)?;
        if !offset.is_null() {
            *offset = p.offset as usize;
        }
        if !size.is_null() {
            *size = p.size as usize;
        }
        Ok(())
    }
}
