//! warpjit: run GPU shader programs (Maxwell SASS, DXBC) on the CPU.
//!
//! A kernel trace (TOML: memories, launches, expectations) is loaded by [`tracefile`], its programs
//! parsed by [`sass`] into the [`ir`], and run by an [`exec::Engine`]: the reference
//! [`interp::Interpreter`] or the Cranelift [`jit::Jit`], which agree bit for bit.
//!
//! ```
//! use warpjit::exec::RunOptions;
//! use warpjit::jit::Jit;
//! use warpjit::runner::run_trace;
//!
//! let jit = Jit::new().expect("Cranelift supports this host");
//! let report = run_trace("examples/gather.toml".as_ref(), &jit, &RunOptions::default()).unwrap();
//! assert!(report.passed(), "{}", report.failure_text(20));
//! assert!(report.total.lane_insts > 0);
//! ```
#![warn(missing_docs)]

pub mod analysis;
pub mod bench;
pub mod cubin;
pub mod device;
pub mod diag;
pub mod dxbc;
pub mod exec;
pub mod frontend;
pub mod gentrace;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod maxwell;
pub mod params;
pub mod plot;
pub mod reference;
pub mod runner;
pub mod sanitizer;
pub mod sass;
pub mod semantics;
#[cfg(feature = "testgen")]
pub mod testgen;
pub mod tracefile;

/// The runtime crate (`warpjit-runtime`): machine state, faults and warp state, re-exported so
/// that one dependency on `warpjit` suffices.
pub use warpjit_runtime as runtime;
pub use warpjit_runtime::{
    BankMode, ConstBanks, Fault, FaultKind, FaultReads, GlobalMemory, MemError, WarpState,
};
