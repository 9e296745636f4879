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
//!
//! A host program without a trace file (load a cubin module, lay out parameters, map memory,
//! launch, read results) uses [`device`]; the runtime's types are re-exported ([`Fault`],
//! [`WarpState`], [`ConstBanks`], [`runtime`]), so that one dependency suffices.
//!
//! The `warpjit` command line is built with the default `cli` feature (clap, plotters, indicatif,
//! serde_json); a dependent that uses only the library sets `default-features = false` and
//! compiles none of them.
#![warn(missing_docs)]

pub mod analysis;
pub mod cubin;
pub mod device;
pub mod diag;
pub mod dxbc;
pub mod exec;
pub mod frontend;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod maxwell;
pub mod params;
pub mod reference;
pub mod runner;
pub mod sanitizer;
pub mod sass;
pub mod semantics;
pub mod stage;
#[cfg(feature = "testgen")]
pub mod testgen;
pub mod tracefile;

/// The README's examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The runtime crate (`warpjit-runtime`): machine state, faults and warp state, re-exported so
/// that one dependency on `warpjit` suffices.
pub use warpjit_runtime as runtime;
pub use warpjit_runtime::{
    BankMode, ConstBanks, Fault, FaultKind, FaultReads, GlobalMemory, MemError, WarpState,
};
