//! Initialisation, versions, error strings and `cuGetProcAddress`.

use crate::abi::CUresult;
use crate::entry::{cuda_api, out};
use crate::error;
use std::ffi::{c_char, c_void, CStr};

cuda_api! {
    /// `cuInit`: makes the driver (flags must be 0).
    fn cuInit(flags: u32) {
        if flags != 0 {
            return Err(error::INVALID_VALUE);
        }
        crate::state::init()
    }

    /// `cuDriverGetVersion`: CUDA 12.9 (12090); works before `cuInit`.
    fn cuDriverGetVersion(version: *mut i32) {
        out(version, crate::device::DRIVER_VERSION)
    }

    /// `cuGetErrorName`.
    fn cuGetErrorName(code: CUresult, name: *mut *const c_char) {
        match crate::abi::consts::ERROR_NAMES.iter().find(|(c, _)| *c == i64::from(code)) {
            Some((_, n)) => out(name, n.as_ptr().cast()),
            None => {
                let _ = out(name, std::ptr::null());
                Err(error::INVALID_VALUE)
            }
        }
    }

    /// `cuGetErrorString`.
    fn cuGetErrorString(code: CUresult, text: *mut *const c_char) {
        match error::description(code) {
            Some(d) => out(text, leak_c(d)),
            None => {
                let _ = out(text, std::ptr::null());
                Err(error::INVALID_VALUE)
            }
        }
    }

    /// `cuGetProcAddress` (CUDA 11.3's form: no status out-parameter).
    fn cuGetProcAddress(symbol: *const c_char, pfn: *mut *mut c_void, version: i32, flags: u64) {
        proc_address(symbol, pfn, version, flags, std::ptr::null_mut())
    }

    /// `cuGetProcAddress_v2`: the function for a name at a CUDA version, with a status.
    fn cuGetProcAddress_v2(
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        version: i32,
        flags: u64,
        status: *mut i32,
    ) {
        proc_address(symbol, pfn, version, flags, status)
    }

    /// `cuGetExportTable`: warpjit has no private export tables.
    fn cuGetExportTable(table: *mut *const c_void, id: *const c_void) {
        let _ = id;
        let _ = out(table, std::ptr::null());
        Err(error::NOT_FOUND)
    }
}

unsafe fn proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: i32,
    _flags: u64,
    status: *mut i32,
) -> error::Res {
    if symbol.is_null() || pfn.is_null() {
        return Err(error::INVALID_VALUE);
    }
    let name = CStr::from_ptr(symbol).to_string_lossy();
    let (f, st) = crate::procaddr::lookup(&name, version);
    if !status.is_null() {
        *status = st;
    }
    *pfn = f.unwrap_or(std::ptr::null_mut());
    if f.is_none() && crate::entry::log_enabled() {
        crate::entry::log_line(&format!(
            "cuGetProcAddress: `{name}` (version {version}) is not implemented"
        ));
    }
    f.map(|_| ()).ok_or(error::NOT_FOUND)
}

/// A `'static` NUL-terminated copy of `s` (the error strings, made once each).
fn leak_c(s: &'static str) -> *const c_char {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static MADE: Mutex<Option<HashMap<&'static str, usize>>> = Mutex::new(None);
    let mut m = MADE.lock().unwrap_or_else(|p| p.into_inner());
    let map = m.get_or_insert_with(HashMap::new);
    *map.entry(s).or_insert_with(|| {
        let c = std::ffi::CString::new(s).unwrap_or_default();
        Box::leak(c.into_boxed_c_str()).as_ptr() as usize
    }) as *const c_char
}
