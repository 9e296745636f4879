//! The reference interpreter: the specification in code, and the baseline the JIT must beat.
//!
//! Ops outside, lanes inside: each instruction is dispatched once per warp and runs a 32-lane
//! loop over the register-major file ([`ops`]). Control flow happens only at block terminators,
//! following Maxwell's reconvergence stack ([`warp`]). CTAs run on a rayon pool; the warps of a
//! CTA run one after another until each exits or waits at a barrier ([`cta`]).

#![allow(clippy::needless_range_loop)] // lane loops index several rows at once

pub mod cta;
pub mod lanes;
pub mod ops;
pub mod warp;

use crate::exec::{Engine, Launch, Machine, RunOptions, Stats};
use warpjit_runtime::Fault;

/// The reference interpreter engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interpreter;

impl Engine for Interpreter {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        cta::run_grid(machine, launch, opts, &|| Box::new(warp::Interp))
    }
}
