//! The syntax of `B2R.RESULT Rd[, Pd]` (the barrier instructions themselves are control
//! instructions: `sass::control`).

use super::*;

impl SassSyntax for B2r {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        a.require(&[("RESULT", ())])?;
        let d = a.reg()?;
        let p = if a.peek().is_some() {
            a.pred_dst()?
        } else {
            Pred::PT
        };
        Ok(B2r { d, p })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "B2R.RESULT {}", self.d)?;
        if !self.p.is_pt() {
            write!(f, ", {}", self.p)?;
        }
        Ok(())
    }
}
