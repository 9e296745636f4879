//! warpjit: run GPU shader programs (Maxwell SASS, DXBC) on the CPU.
#![warn(missing_docs)]

pub mod analysis;
pub mod bench;
pub mod exec;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod runner;
pub mod sass;
pub mod trace;
