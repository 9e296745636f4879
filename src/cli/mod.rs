//! The command line's own modules: what only the `warpjit` binary needs (the `cli` feature's
//! dependencies: clap, plotters, indicatif, serde_json), kept out of the library.

pub mod bench;
pub mod cuda;
pub mod gentrace;
pub mod kernels;
pub mod measure;
pub mod plot;
