//! The condition-code forms of the logic, shift and I2I ops (`.CC`, `.X`): random modifiers
//! and the wide zero test ptxas writes for 64-bit `setp.ne`/`setp.eq` of a bitwise result
//! (`LOP.AND RZ.CC, lo, lo'` then `LOP.AND.X.NZ P, RZ, hi, hi'`).

use super::{Gen, Rule};
use crate::ir::*;

impl Gen<'_, '_> {
    /// Random `.CC`/`.X` modifiers of a logic or shift op (one draw: `.CC` 30%, `.X` 20%).
    pub(super) fn logic_cc(&mut self) -> LogicCc {
        let k = self.below(10);
        LogicCc {
            cc: k < 3,
            x: (2..4).contains(&k),
        }
    }

    /// A wide zero test: emits the low word's op with `.CC` (LOP, LOP32I, LOP3, SHL, SHR or
    /// I2I) and returns the high word's op with `.X` and a `.Z`/`.NZ` predicate (LOP or LOP3),
    /// sometimes with `.CC` again (a third word could follow).
    pub(super) fn wide_zero_test(&mut self, d: Reg) -> Op {
        let cc = LogicCc { cc: true, x: false };
        let lo: Op = match self.below(6) {
            0 => Lop {
                func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor]),
                f: cc,
                pout: PredOut::None,
                p: None,
                d: Reg::RZ,
                not_a: self.chance(20),
                a: self.sreg(),
                not_b: self.chance(20),
                b: self.src(Rule::S20),
            }
            .into(),
            // LOP32I.
            1 => Lop {
                func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor]),
                f: cc,
                pout: PredOut::None,
                p: None,
                d: Reg::RZ,
                not_a: false,
                a: self.sreg(),
                not_b: self.chance(20),
                b: Src::Imm32(self.imm32()),
            }
            .into(),
            2 => Lop3 {
                f: cc,
                pout: PredOut::None,
                p: None,
                d: Reg::RZ,
                a: self.sreg(),
                b: self.src(Rule::Any32),
                c: self.sreg(),
                lut: self.below(256) as u8,
            }
            .into(),
            3 => Shl {
                d: Reg::RZ,
                f: cc,
                w: self.chance(30),
                a: self.sreg(),
                b: Src::Imm(self.below(34)),
            }
            .into(),
            4 => Shr {
                d: Reg::RZ,
                f: cc,
                unsigned: self.chance(50),
                w: false,
                brev: false,
                a: self.sreg(),
                b: Src::Imm(self.below(34)),
            }
            .into(),
            _ => I2i {
                d: Reg::RZ,
                cc: true,
                sel: 0,
                sat: false,
                dst: IntType {
                    bits: 32,
                    signed: true,
                },
                src: IntType {
                    bits: 32,
                    signed: true,
                },
                neg: false,
                abs: false,
                b: Src::Reg(self.sreg()),
            }
            .into(),
        };
        self.op0(lo);
        let f = LogicCc {
            cc: self.chance(30),
            x: true,
        };
        let pout = self.pick(&[PredOut::Z, PredOut::Nz]);
        let p = Some(self.pdst());
        if self.chance(50) {
            Lop {
                func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
                f,
                pout,
                p,
                d,
                not_a: false,
                a: self.sreg(),
                not_b: self.chance(20),
                b: self.src(Rule::S20),
            }
            .into()
        } else {
            Lop3 {
                f,
                pout,
                p,
                d,
                a: self.sreg(),
                b: Src::Reg(self.sreg()),
                c: self.sreg(),
                lut: self.below(256) as u8,
            }
            .into()
        }
    }
}
