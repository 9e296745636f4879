//! `cuGetProcAddress`: a driver function by name and CUDA version, as NVIDIA's Python bindings
//! resolve every function. The table of (name, version, symbol) triples is generated from the
//! bindings (`procaddr_table.rs`); a symbol is found among this library's own exports, so
//! a function warpjit does not implement is `CUDA_ERROR_NOT_FOUND`, never a crash.

use crate::procaddr_table::PROC_TABLE;
use std::ffi::{c_void, CString};
use std::sync::OnceLock;

/// `CU_GET_PROC_ADDRESS_SUCCESS`, `..._SYMBOL_NOT_FOUND`, `..._VERSION_NOT_SUFFICIENT`.
pub const SUCCESS: i32 = 0;
/// The symbol is not one the driver exports.
pub const SYMBOL_NOT_FOUND: i32 = 1;
/// The symbol exists only in a newer version than the one asked for.
pub const VERSION_NOT_SUFFICIENT: i32 = 2;

/// This library's handle (found from the address of one of its functions).
fn own_handle() -> usize {
    static H: OnceLock<usize> = OnceLock::new();
    *H.get_or_init(|| {
        // SAFETY: dladdr and dlopen with RTLD_NOLOAD only look at loaded objects; the path is
        // the one the loader reports for this library.
        unsafe {
            let mut info: libc::Dl_info = std::mem::zeroed();
            let here = own_handle as *const c_void;
            if libc::dladdr(here, &mut info) == 0 || info.dli_fname.is_null() {
                return 0;
            }
            libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) as usize
        }
    })
}

/// This library's export named `symbol`, if it has one.
pub fn own_symbol(symbol: &str) -> Option<*mut c_void> {
    let h = own_handle();
    let name = CString::new(symbol).ok()?;
    if h == 0 {
        return None;
    }
    // SAFETY: `h` is this library's handle and `name` a NUL-terminated string.
    let p = unsafe { libc::dlsym(h as *mut c_void, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// The function for `name` at CUDA version `version` (e.g. 12090) and the query status.
pub fn lookup(name: &str, version: i32) -> (Option<*mut c_void>, i32) {
    let forms: Vec<&(&str, u32, &str)> = PROC_TABLE.iter().filter(|e| e.0 == name).collect();
    if forms.is_empty() {
        // Not a function the bindings know: the export of that exact name, if any.
        return match own_symbol(name) {
            Some(p) => (Some(p), SUCCESS),
            None => (None, SYMBOL_NOT_FOUND),
        };
    }
    let best = forms
        .iter()
        .filter(|e| i64::from(e.1) <= i64::from(version))
        .max_by_key(|e| e.1);
    match best {
        None => (None, VERSION_NOT_SUFFICIENT),
        Some(e) => match own_symbol(e.2) {
            Some(p) => (Some(p), SUCCESS),
            None => (None, SYMBOL_NOT_FOUND),
        },
    }
}
