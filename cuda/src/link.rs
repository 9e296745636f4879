//! The JIT linker's several-input case (`cuLinkComplete` with two or more inputs): NVIDIA's
//! nvJitLink (`libnvJitLink.so.12`, from the `nvidia-nvjitlink-cu12` wheel or the CUDA toolkit)
//! links the inputs into one sm_52 cubin, as the real driver's linker would; warpjit has no
//! linker of its own. The library is loaded at run time, when first needed: `WARPJIT_NVJITLINK`
//! (its path), else the loader's search path, else the wheel of a Python this process runs
//! (see [`crate::image::python_sites`]). Without it, `CUDA_ERROR_JIT_COMPILER_NOT_FOUND`.

use crate::abi::consts::{
    CU_JIT_INPUT_CUBIN, CU_JIT_INPUT_FATBINARY, CU_JIT_INPUT_LIBRARY, CU_JIT_INPUT_NVVM,
    CU_JIT_INPUT_OBJECT, CU_JIT_INPUT_PTX,
};
use crate::error::{self, Res};
use std::ffi::{c_char, c_void, CString};
use std::sync::OnceLock;

/// `nvJitLinkHandle`.
type Handle = *mut c_void;

type CreateFn = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> i32;
type DestroyFn = unsafe extern "C" fn(*mut Handle) -> i32;
type AddDataFn = unsafe extern "C" fn(Handle, i32, *const c_void, usize, *const c_char) -> i32;
type CompleteFn = unsafe extern "C" fn(Handle) -> i32;
type SizeFn = unsafe extern "C" fn(Handle, *mut usize) -> i32;
type CubinFn = unsafe extern "C" fn(Handle, *mut c_void) -> i32;
type LogFn = unsafe extern "C" fn(Handle, *mut c_char) -> i32;

/// The entry points used, by their CUDA 12.0 names (every 12.x library exports them).
struct Api {
    create: CreateFn,
    destroy: DestroyFn,
    add_data: AddDataFn,
    complete: CompleteFn,
    cubin_size: SizeFn,
    cubin: CubinFn,
    log_size: SizeFn,
    log: LogFn,
}

// The function pointers are plain code addresses of a library that is never unloaded.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

/// nvJitLink's `NVJITLINK_ERROR_PTX_COMPILE`.
const PTX_COMPILE: i32 = 4;

/// The library's entry points, loaded once (None when it cannot be found or lacks one).
fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(|| {
        let mut candidates: Vec<std::ffi::OsString> = Vec::new();
        if let Some(p) = std::env::var_os("WARPJIT_NVJITLINK") {
            candidates.push(p);
        }
        candidates.push("libnvJitLink.so.12".into());
        for site in crate::image::python_sites() {
            let p = site.join("nvidia/nvjitlink/lib/libnvJitLink.so.12");
            if p.is_file() {
                candidates.push(p.into_os_string());
            }
        }
        candidates.into_iter().find_map(|c| load(&c))
    })
    .as_ref()
}

/// Opens `path` and finds the entry points in it.
fn load(path: &std::ffi::OsStr) -> Option<Api> {
    use std::os::unix::ffi::OsStrExt;
    let c = CString::new(path.as_bytes()).ok()?;
    // SAFETY: dlopen of a path or soname; the handle is kept for the process's life.
    let lib = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return None;
    }
    let sym = |name: &str| -> Option<*mut c_void> {
        let n = CString::new(name).ok()?;
        // SAFETY: a symbol lookup in the library opened above.
        let p = unsafe { libc::dlsym(lib, n.as_ptr()) };
        (!p.is_null()).then_some(p)
    };
    // SAFETY: each symbol has the signature nvJitLink.h gives its CUDA 12.0 name.
    unsafe {
        use std::mem::transmute as t;
        Some(Api {
            create: t::<*mut c_void, CreateFn>(sym("__nvJitLinkCreate_12_0")?),
            destroy: t::<*mut c_void, DestroyFn>(sym("__nvJitLinkDestroy_12_0")?),
            add_data: t::<*mut c_void, AddDataFn>(sym("__nvJitLinkAddData_12_0")?),
            complete: t::<*mut c_void, CompleteFn>(sym("__nvJitLinkComplete_12_0")?),
            cubin_size: t::<*mut c_void, SizeFn>(sym("__nvJitLinkGetLinkedCubinSize_12_0")?),
            cubin: t::<*mut c_void, CubinFn>(sym("__nvJitLinkGetLinkedCubin_12_0")?),
            log_size: t::<*mut c_void, SizeFn>(sym("__nvJitLinkGetErrorLogSize_12_0")?),
            log: t::<*mut c_void, LogFn>(sym("__nvJitLinkGetErrorLog_12_0")?),
        })
    }
}

/// nvJitLink's input type for a `CUjitInputType`.
fn input_type(kind: i64) -> Res<i32> {
    Ok(match kind {
        CU_JIT_INPUT_CUBIN => 1,
        CU_JIT_INPUT_PTX => 2,
        CU_JIT_INPUT_NVVM => 3,
        CU_JIT_INPUT_FATBINARY => 4,
        CU_JIT_INPUT_OBJECT => 5,
        CU_JIT_INPUT_LIBRARY => 6,
        _ => return Err(error::INVALID_VALUE),
    })
}

/// Links `inputs` (`CUjitInputType`, bytes, name) into one sm_52 cubin, nvJitLink's error log
/// into `log`: `CUDA_ERROR_JIT_COMPILER_NOT_FOUND` without nvJitLink, `CUDA_ERROR_INVALID_PTX`
/// when a PTX input does not compile, `CUDA_ERROR_INVALID_IMAGE` when the inputs do not link.
pub fn link(inputs: &[(i64, Vec<u8>, String)], log: &mut String) -> Res<Vec<u8>> {
    let Some(api) = api() else {
        log.push_str(
            "warpjit: linking several inputs needs NVIDIA's nvJitLink (libnvJitLink.so.12: set \
             WARPJIT_NVJITLINK, or install nvidia-nvjitlink-cu12)",
        );
        return Err(error::JIT_COMPILER_NOT_FOUND);
    };
    let arch = c"-arch=sm_52";
    let opts = [arch.as_ptr()];
    let mut h: Handle = std::ptr::null_mut();
    // SAFETY: nvJitLink's documented calls on a handle this function owns; every buffer
    // passed outlives the call, and the handle is destroyed on every path.
    unsafe {
        if (api.create)(&mut h, 1, opts.as_ptr()) != 0 || h.is_null() {
            return Err(error::JIT_COMPILER_NOT_FOUND);
        }
        let result = (|| {
            for (i, (kind, bytes, name)) in inputs.iter().enumerate() {
                let ty = input_type(*kind)?;
                let name = CString::new(if name.is_empty() {
                    format!("input{i}")
                } else {
                    name.replace('\0', "")
                })
                .map_err(|_| error::INVALID_VALUE)?;
                let r = (api.add_data)(h, ty, bytes.as_ptr().cast(), bytes.len(), name.as_ptr());
                if r != 0 {
                    return Err(fail(api, h, r, log));
                }
            }
            let r = (api.complete)(h);
            if r != 0 {
                return Err(fail(api, h, r, log));
            }
            let mut n = 0usize;
            if (api.cubin_size)(h, &mut n) != 0 || n == 0 {
                return Err(error::INVALID_IMAGE);
            }
            let mut out = vec![0u8; n];
            if (api.cubin)(h, out.as_mut_ptr().cast()) != 0 {
                return Err(error::INVALID_IMAGE);
            }
            Ok(out)
        })();
        (api.destroy)(&mut h);
        result
    }
}

/// Appends nvJitLink's error log to `log` and maps its result code `r`.
///
/// # Safety
/// `h` must be a live nvJitLink handle of `api`.
unsafe fn fail(api: &Api, h: Handle, r: i32, log: &mut String) -> crate::abi::CUresult {
    let mut n = 0usize;
    if (api.log_size)(h, &mut n) == 0 && n > 0 {
        let mut text = vec![0u8; n];
        if (api.log)(h, text.as_mut_ptr().cast()) == 0 {
            let end = text.iter().position(|&b| b == 0).unwrap_or(text.len());
            log.push_str(&String::from_utf8_lossy(&text[..end]));
        }
    }
    if crate::entry::log_enabled() {
        crate::entry::log_line(&format!("nvJitLink refused the link ({r}):\n{log}"));
    }
    if r == PTX_COMPILE {
        error::INVALID_PTX
    } else {
        error::INVALID_IMAGE
    }
}
