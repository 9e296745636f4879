//! warpjit as the CUDA driver: a `libcuda.so.1` that exports the driver API of `cuda.h` (CUDA
//! 12, with its versioned names: `cuMemAlloc_v2`, `cuCtxCreate_v2`, ...) and runs every kernel
//! on the CPU with warpjit's engines, through the library surface `warpjit::device`.
//!
//! Programs that use the driver API (Numba's `@cuda.jit`, NVIDIA's `cuda-python`, C programs
//! against `cuda.h`) run unmodified when this library is found first as `libcuda.so.1`:
//! `warpjit cuda -- COMMAND` sets that up. The README's "CUDA programs" section describes the
//! device, what is implemented and the environment variables:
//!
//! - `WARPJIT_CUDA_LOG=1`: every call, its arguments and its result on stderr;
//! - `WARPJIT_CUDA_ENGINE=jit|interp`, `WARPJIT_CUDA_THREADS=N`: how kernels run;
//! - `WARPJIT_CUDA_MEMORY=BYTES`: the device memory `cuMemGetInfo` reports (default 4 GiB);
//! - `WARPJIT_CUDA_RECORD=DIR`: write every launch as a warpjit trace;
//! - `WARPJIT_CUDA_LAUNCH_BUDGET=N`: warp instructions one launch may issue (default 2^36);
//! - `WARPJIT_CUDA_CHECK=TOOLS`: run every launch under the sanitizer (`memcheck,racecheck,...` or
//!   `all`, as `warpjit run --check=` takes them), its reports on stderr after each launch, and
//!   each launch's count of errors and warnings appended to the file `WARPJIT_CUDA_CHECK_OUT`
//!   names (`warpjit cuda --check` sets both);
//! - `WARPJIT_PTXAS=PATH`: NVIDIA's ptxas, for PTX modules;
//! - `WARPJIT_CUDA_DUMP=DIR`: write every module loaded, as the cubin that runs.
//!
//! Every exported function catches panics (a panic never crosses the C boundary) and checks
//! its handles: a bad handle is an error code, never a crash.

#![warn(missing_docs)]

pub mod abi;
pub mod api;
pub mod device;
pub mod entry;
pub mod error;
pub mod image;
pub mod ipc;
pub mod link;
pub mod memory;
pub mod printf;
pub mod procaddr;
mod procaddr_table;
pub mod record;
pub mod state;
