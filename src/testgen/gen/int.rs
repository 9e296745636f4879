//! ISET, PSET, CSETP, R2P, IMUL, IMUL32I, IMAD and the new forms of IMNMX, XMAD and PRMT (the CC tests of branches and exits are drawn in
//! `control.rs` from [`CC_TESTS`]).

use super::{Gen, Rule};
use crate::ir::*;

/// Every CC test a branch, exit or CSETP may name, as written after `CC.`.
pub(super) const CC_TESTS: [&str; 24] = [
    "CC.F", "CC.LT", "CC.EQ", "CC.LE", "CC.GT", "CC.NE", "CC.GE", "CC.NUM", "CC.NAN", "CC.LTU",
    "CC.EQU", "CC.LEU", "CC.GTU", "CC.NEU", "CC.GEU", "CC.T", "CC.OFF", "CC.LO", "CC.SFF", "CC.LS",
    "CC.HI", "CC.SFT", "CC.HS", "CC.OFT",
];

impl Gen<'_, '_> {
    /// A random VMNMX or VABSDIFF (any parts and signs, a register or 16-bit immediate `Sb`,
    /// `.SAT`, and any secondary step), or VABSDIFF4 (any signs, `.SAT` or `.ACC`).
    fn video(&mut self, d: Reg) -> Op {
        if self.chance(30) {
            let (sat, acc) = match self.below(3) {
                0 => (true, false),
                1 => (false, true),
                _ => (false, false),
            };
            return Vabsdiff4 {
                d,
                d_signed: self.chance(50),
                sat,
                acc,
                a: self.sreg(),
                a_signed: self.chance(50),
                b: self.sreg(),
                b_signed: self.chance(50),
                c: self.sreg(),
            }
            .into();
        }
        let part = |g: &mut Self| match g.below(3) {
            0 => VideoPart::Byte(g.below(4) as u8),
            1 => VideoPart::Half(g.below(2) as u8),
            _ => VideoPart::Word,
        };
        let a_part = part(self);
        let (b, b_part) = if self.chance(25) {
            (Src::Imm(self.below(0x1_0000)), VideoPart::Half(0))
        } else {
            (Src::Reg(self.sreg()), part(self))
        };
        let v = Video {
            d,
            d_signed: self.chance(50),
            sat: self.chance(30),
            second: self.pick(&VideoSecond::ALL),
            a: self.sreg(),
            a_part,
            a_signed: self.chance(50),
            b,
            b_part,
            b_signed: self.chance(50),
            c: self.sreg(),
        };
        if self.chance(50) {
            Vmnmx {
                max: self.chance(50),
                v,
            }
            .into()
        } else {
            Vabsdiff { v }.into()
        }
    }

    /// One random ISET, PSET, CSETP, R2P, 64-bit-mode IMNMX, XMAD.CSFU, PRMT in a PTX mode,
    /// IMUL, IMUL32I, IMAD, IMADSP (`imadsp.rs`), a wide zero test (`logic.rs`), VMNMX,
    /// VABSDIFF or VABSDIFF4.
    pub(super) fn int_op(&mut self, d: Reg) -> Op {
        let bops = [BoolOp::And, BoolOp::Or, BoolOp::Xor];
        match self.below(12) {
            11 => self.video(d),
            10 if self.chance(50) => self.wide_zero_test(d),
            10 => self.imadsp(d),
            7 => Imul {
                d,
                cc: self.chance(20),
                hi: self.chance(50),
                a_signed: self.chance(50),
                b_signed: self.chance(50),
                a: self.sreg(),
                b: self.src(Rule::S20),
            }
            .into(),
            // ISCADD32I.
            6 if self.chance(50) => Iscadd {
                d,
                cc: self.chance(20),
                po: false,
                neg_a: false,
                a: self.sreg(),
                neg_b: false,
                b: Src::Imm32(self.imm32()),
                shift: self.below(32) as u8,
            }
            .into(),
            // IMUL32I.
            8 => Imul {
                d,
                cc: self.chance(20),
                hi: self.chance(50),
                a_signed: self.chance(50),
                b_signed: self.chance(50),
                a: self.sreg(),
                b: Src::Imm32(self.imm32()),
            }
            .into(),
            9 => {
                let b = self.src(Rule::S20);
                let c = if matches!(b, Src::Reg(_)) {
                    self.src_rc()
                } else {
                    Src::Reg(self.sreg())
                };
                Imad {
                    d,
                    cc: self.chance(20),
                    x: self.chance(25),
                    hi: self.chance(50),
                    a_signed: self.chance(50),
                    b_signed: self.chance(50),
                    a: self.sreg(),
                    b,
                    c,
                }
                .into()
            }
            6 => Prmt {
                d,
                mode: PrmtMode::ALL[self.range(1, 6) as usize],
                a: self.sreg(),
                b: self.src(Rule::S20),
                c: self.src_rc(),
            }
            .into(),
            5 => match self.xmad(d) {
                Op::Xmad(mut x) => {
                    x.mode = XmadMode::Csfu;
                    x.into()
                }
                op => op,
            },
            4 => Imnmx {
                d,
                cc: self.chance(60),
                mode: self.pick(&[ImnmxMode::Plain, ImnmxMode::Xlo, ImnmxMode::Xhi]),
                unsigned: self.chance(50),
                a: self.sreg(),
                b: self.src(Rule::S20),
                p: self.psrc(),
            }
            .into(),
            0 => Iset {
                d,
                cc: self.chance(30),
                bf: self.chance(40),
                cmp: Cmp::ALL[self.below(8) as usize],
                unsigned: self.chance(50),
                x: self.chance(25),
                bop: self.pick(&bops),
                a: self.sreg(),
                b: self.src(Rule::S20),
                c: self.psrc(),
            }
            .into(),
            1 => Pset {
                d,
                cc: self.chance(30),
                bf: self.chance(40),
                bop1: self.pick(&bops),
                bop2: self.pick(&bops),
                a: self.psrc(),
                b: self.psrc(),
                c: self.psrc(),
            }
            .into(),
            2 => Csetp {
                test: CcTest::ALL[self.below(24) as usize],
                bop: self.pick(&bops),
                p: self.pdst(),
                q: self.pdst(),
                c: self.psrc(),
            }
            .into(),
            _ => R2p {
                byte: self.below(4) as u8,
                dst: if self.chance(50) {
                    P2rSrc::Pr
                } else {
                    P2rSrc::Cc
                },
                a: self.sreg(),
                mask: self.src(Rule::S20),
            }
            .into(),
        }
    }
}
