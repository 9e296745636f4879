//! The barrier reduction's read-back: `B2R.RESULT` (the barrier itself, `BAR.SYNC`/`BAR.RED`,
//! ends a block as a [`Terminator::Barrier`](crate::ir::Terminator::Barrier)).

use crate::ir::operand::*;
use crate::ir::roles::{Operands, Roles};

/// `B2R.RESULT Rd[, Pd]`: Rd = the result of the last `BAR.RED` the warp was released from
/// (the count for `.POPC`, 0 or 1 for `.AND`/`.OR`; 0 before any), Pd = that result is not 0
/// (docs/semantics.md §30). The same in every lane of the warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct B2r {
    /// Destination (`RZ` when not wanted).
    pub d: Reg,
    /// Predicate destination (`PT` when not wanted).
    pub p: Pred,
}

impl Operands for B2r {
    fn operands(&self, o: &mut Roles<'_>) {
        let B2r { d, p } = *self;
        o.def(d);
        o.pred_def(p);
    }
}
