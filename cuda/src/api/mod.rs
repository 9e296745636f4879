//! The exported functions of the driver API, by area. Each is `#[no_mangle] extern "C"`, named
//! as `cuda.h`'s CUDA 12 ABI names it (`cuMemAlloc_v2`, ...), with a panic-catching, logging
//! wrapper ([`crate::entry`]).

pub mod ctx;
pub mod device;
pub mod init;
pub mod ipc;
pub mod launch;
pub mod mem;
pub mod module;
pub mod stream;
