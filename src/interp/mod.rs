//! The reference interpreter: the engine that runs every block with the reference definitions of
//! [`crate::reference`], and the baseline the JIT must beat.
//!
//! The op semantics are not here: they are [`crate::reference`] (warp level) and
//! [`crate::semantics`] (per lane), below both engines. Control flow, warp and CTA scheduling,
//! barriers and budgets are not here either: they are the engine-neutral dispatcher in
//! [`crate::exec`], which both engines run under. The interpreter's [`BodyRunner`], [`Interp`],
//! is the reference definitions' own runner ([`crate::reference::Reference`]), which runs a
//! block's instructions one after the other.
//!
//! **The boundary.** No other module of the library imports this one (`tests/layers.rs` checks
//! it): the command line, the test harness (`testgen`) and the tests name [`Interpreter`] (and
//! [`Interp`]) to choose the engine. What the JIT shares with the interpreter is
//! [`crate::reference`], below both.

use crate::exec::{grid::run_grid, BodyRunner, Engine, Launch, Machine, RunOptions, Stats};
use warpjit_runtime::Fault;

/// The reference interpreter engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Interpreter;

impl Engine for Interpreter {
    fn name(&self) -> &'static str {
        "interp"
    }

    fn run(&self, machine: &Machine, launch: &Launch, opts: &RunOptions) -> Result<Stats, Fault> {
        run_grid(machine, launch, opts, &|| Box::new(Interp))
    }

    fn body_runner<'a>(
        &'a self,
        _: &'a Machine,
        _: &'a Launch,
        _: bool,
    ) -> Box<dyn BodyRunner + 'a> {
        Box::new(Interp)
    }
}

/// The interpreter's body runner: every instruction of a block, in order, for the lanes that
/// execute it (the reference definitions' own runner).
pub use crate::reference::Reference as Interp;
