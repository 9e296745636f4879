//! warpjit: run GPU shader programs (Maxwell SASS, DXBC) on the CPU.
#![warn(missing_docs)]

pub mod analysis;
pub mod ir;
pub mod sass;
pub mod exec;
pub mod interp;
pub mod runner;
pub mod trace;
