//! IMADSP with random parts (Rc's part takes Ra's sign, as the encoding does).

use super::{Gen, Rule};
use crate::ir::*;

impl Gen<'_, '_> {
    /// One random IMADSP.
    pub(super) fn imadsp(&mut self, d: Reg) -> Op {
        let pa = SpPart::ALL[self.below(8) as usize];
        let sign = pa.signed() as usize;
        let k = self.below(12) as usize;
        let pb = SpPart::ALL[2 + k % 4];
        let pc = SpPart::ALL[2 * (k % 3) + sign];
        let b = self.src(Rule::S20);
        // Rc is a constant only beside a register Sb (the encodings have no other form).
        let c = if matches!(b, Src::Reg(_)) {
            self.src_rc()
        } else {
            Src::Reg(self.sreg())
        };
        Imadsp {
            d,
            cc: self.chance(20),
            pa,
            pb,
            pc,
            a: self.sreg(),
            b,
            c,
        }
        .into()
    }
}
