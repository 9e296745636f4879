//! Which registers each op reads and writes, derived from its operand roles
//! ([`super::roles`]); the basis of the effects, liveness and uniformity analyses in
//! `crate::analysis`.

use super::roles::{Dir, Visitor};
use super::*;

/// One register operand of an op: `count` consecutive registers from `reg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegUse {
    /// First register.
    pub reg: Reg,
    /// How many consecutive registers (1, 2 or 4).
    pub count: u8,
    /// Written (true) or read (false).
    pub def: bool,
}

impl Op {
    /// Calls `f` for every register operand (reads and writes; `RZ` included), in the order the
    /// op's [`Operands`] impl declares them.
    pub fn for_each_reg(&self, f: &mut dyn FnMut(RegUse)) {
        struct Regs<'a>(&'a mut dyn FnMut(RegUse));
        impl Visitor for Regs<'_> {
            fn reg(&mut self, reg: Reg, count: u8, dir: Dir) {
                (self.0)(RegUse {
                    reg,
                    count,
                    def: dir == Dir::Def,
                });
            }
        }
        self.operands(&mut Regs(f));
    }
}
