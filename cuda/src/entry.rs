//! What every exported function does around its body: catch a panic (it must never cross the
//! C boundary: it becomes `CUDA_ERROR_UNKNOWN`), and with `WARPJIT_CUDA_LOG=1` log the call,
//! its arguments and its result to stderr.

use crate::abi::CUresult;
use crate::error::{self, Res};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

/// Whether `WARPJIT_CUDA_LOG` asks for a log (set and not `0`).
pub fn log_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var_os("WARPJIT_CUDA_LOG").is_some_and(|v| v != "0" && !v.is_empty())
    })
}

/// Writes one line to stderr (ignoring a closed stderr).
pub fn log_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warpjit-cuda: {line}");
}

/// Runs `body` as the driver function `name`: the result's `CUresult`, a panic caught.
pub fn enter(name: &str, args: impl FnOnce() -> String, body: impl FnOnce() -> Res) -> CUresult {
    let log = log_enabled();
    let shown = if log { Some(args()) } else { None };
    let code = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => error::SUCCESS,
        Ok(Err(e)) => e,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            log_line(&format!("internal error in {name} (a warpjit bug): {what}"));
            error::UNKNOWN
        }
    };
    if let Some(args) = shown {
        let result = crate::abi::error_name(code).unwrap_or("?");
        log_line(&format!("{name}({args}) = {result}"));
    }
    code
}

/// Defines exported driver functions: `#[no_mangle] extern "C"`, each body a [`Res`] run
/// through [`enter`].
macro_rules! cuda_api {
    ($(
        $(#[$m:meta])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block
    )*) => {$(
        $(#[$m])*
        ///
        /// (C ABI; see the module docs. Every pointer argument may be null or invalid: the
        /// function checks what it can and returns an error code, never crashes on a null.)
        #[no_mangle]
        #[allow(clippy::missing_safety_doc)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $crate::abi::CUresult {
            $crate::entry::enter(
                stringify!($name),
                || {
                    let parts: Vec<String> = vec![$(format!("{}={:?}", stringify!($arg), $arg)),*];
                    parts.join(", ")
                },
                #[allow(unused_unsafe)]
                || -> $crate::error::Res { unsafe { $body } },
            )
        }
    )*};
}
pub(crate) use cuda_api;

/// Writes `v` through the out-pointer `p` (`CUDA_ERROR_INVALID_VALUE` if it is null).
///
/// # Safety
/// `p` must be null or valid for a write of `T`.
pub unsafe fn out<T>(p: *mut T, v: T) -> Res {
    if p.is_null() {
        return Err(error::INVALID_VALUE);
    }
    p.write_unaligned(v);
    Ok(())
}
