//! Float statements: one random binary32 float instruction (FADD … FCHK, every modifier and
//! rounding mode), often after a MOV32I that puts a float edge value (NaN payloads, infinities,
//! subnormals, signed zeros, 1 ± ulp, the overflow and underflow boundaries) in a source.

use super::Gen;
use crate::ir::*;

/// Binary32 edge values.
const FEDGE: [u32; 30] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // largest subnormal, negative
    0x007f_ffff,
    0x0080_0000, // smallest normal
    0x8080_0000,
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f80_0001, // 1 + ulp
    0x3f7f_ffff, // 1 - ulp/2
    0x7f7f_ffff, // largest finite
    0xff7f_ffff,
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // quiet NaN
    0xffc0_0001, // negative NaN with a payload
    0x7f80_0001, // signalling NaN
    0x7fff_ffff, // canonical NaN
    0x3380_0000, // 2^-24: half an ulp of 1
    0x4b80_0000, // 2^24
    0x3f00_0000, // 0.5
    0x4049_0fdb, // pi
    0xc2c8_0000, // -100
    0x42fe_0000, // 127
    0xc315_0000, // -149
    0x7f00_0000, // 2^127
    0x0100_0000, // 2^-125
    0x0d80_0000, // 2^-100
    0x3fc0_0000, // 1.5
];

impl Gen<'_, '_> {
    fn fedge(&mut self) -> u32 {
        if self.chance(70) {
            self.pick(&FEDGE)
        } else {
            self.bits32()
        }
    }

    fn fmod(&mut self) -> FMod {
        FMod {
            neg: self.chance(25),
            abs: self.chance(20),
        }
    }

    fn frnd(&mut self) -> FRnd {
        FRnd::ALL[self.weighted(&[55, 15, 15, 15])]
    }

    fn fcmp_cond(&mut self) -> FCmp {
        FCmp::ALL[self.below(16) as usize]
    }

    fn bop(&mut self) -> BoolOp {
        [BoolOp::And, BoolOp::Or, BoolOp::Xor][self.below(3) as usize]
    }

    /// An Sb: a register, a constant or a 20-bit float immediate (the top 20 bits of a binary32).
    fn fsrc(&mut self) -> Src {
        match self.weighted(&[60, 15, 25]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.fedge() & 0xffff_f000),
        }
    }

    /// An Sb and its modifier (none on an immediate).
    fn fsrc_m(&mut self) -> (Src, FMod) {
        let b = self.fsrc();
        let m = if matches!(b, Src::Imm(_)) {
            FMod::NONE
        } else {
            self.fmod()
        };
        (b, m)
    }

    /// One random float instruction; often a MOV32I of an edge value into one of its sources
    /// first (emitted here).
    pub(super) fn float(&mut self) -> Op {
        if self.chance(60) {
            let r = Reg(self.below(20) as u8);
            let imm = self.fedge();
            self.op0(Mov {
                d: r,
                b: Src::Imm32(imm),
            });
        }
        let d = self.dst();
        let ftz = self.chance(30);
        let sat = self.chance(15);
        match self.below(13) {
            0 => {
                let (b, bm) = self.fsrc_m();
                Fadd {
                    d,
                    ftz,
                    sat,
                    rnd: self.frnd(),
                    a: self.sreg(),
                    am: self.fmod(),
                    b,
                    bm,
                }
                .into()
            }
            // FADD32I.
            1 => Fadd {
                d,
                ftz,
                sat: false,
                rnd: FRnd::Rn,
                a: self.sreg(),
                am: self.fmod(),
                b: Src::Imm32(self.fedge()),
                bm: FMod::NONE,
            }
            .into(),
            2 => {
                let b = self.fsrc();
                Fmul {
                    d,
                    ftz,
                    scale: if self.chance(20) {
                        self.pick(&[-3, -2, -1, 1, 2, 3])
                    } else {
                        0
                    },
                    sat,
                    rnd: self.frnd(),
                    a: self.sreg(),
                    neg_b: !matches!(b, Src::Imm(_)) && self.chance(30),
                    b,
                }
                .into()
            }
            // FMUL32I.
            3 => Fmul {
                d,
                ftz,
                scale: 0,
                sat,
                rnd: FRnd::Rn,
                a: self.sreg(),
                b: Src::Imm32(self.fedge()),
                neg_b: false,
            }
            .into(),
            4 => {
                // Sb and Sc both registers, or one of them a constant, or Sb an immediate.
                let (b, c) = match self.below(4) {
                    0 | 1 => (Src::Reg(self.sreg()), Src::Reg(self.sreg())),
                    2 => (Src::Reg(self.sreg()), Src::Const(self.cref())),
                    _ => (self.fsrc(), Src::Reg(self.sreg())),
                };
                Ffma {
                    d,
                    ftz,
                    sat,
                    rnd: self.frnd(),
                    a: self.sreg(),
                    neg_b: !matches!(b, Src::Imm(_)) && self.chance(30),
                    b,
                    c,
                    neg_c: self.chance(30),
                }
                .into()
            }
            // FFMA32I: the destination is the addend, `-Ra` negates the product.
            5 => Ffma {
                d,
                ftz,
                sat,
                rnd: FRnd::Rn,
                a: self.sreg(),
                neg_b: self.chance(30),
                b: Src::Imm32(self.fedge()),
                c: Src::Reg(d),
                neg_c: self.chance(30),
            }
            .into(),
            6 => {
                let (b, bm) = self.fsrc_m();
                Fmnmx {
                    d,
                    ftz,
                    a: self.sreg(),
                    am: self.fmod(),
                    b,
                    bm,
                    p: self.psrc(),
                }
                .into()
            }
            7 => {
                let (b, bm) = self.fsrc_m();
                Fset {
                    d,
                    cc: self.chance(20),
                    bf: self.chance(50),
                    cmp: self.fcmp_cond(),
                    ftz,
                    bop: self.bop(),
                    a: self.sreg(),
                    am: self.fmod(),
                    b,
                    bm,
                    c: self.psrc(),
                }
                .into()
            }
            8 => {
                let (b, bm) = self.fsrc_m();
                Fsetp {
                    cmp: self.fcmp_cond(),
                    ftz,
                    bop: self.bop(),
                    p: self.pdst(),
                    q: self.pdst(),
                    a: self.sreg(),
                    am: self.fmod(),
                    b,
                    bm,
                    c: self.psrc(),
                }
                .into()
            }
            9 => {
                let (b, c) = if self.chance(25) {
                    (Src::Reg(self.sreg()), Src::Const(self.cref()))
                } else {
                    (self.fsrc(), Src::Reg(self.sreg()))
                };
                Fcmp {
                    d,
                    cmp: self.fcmp_cond(),
                    ftz,
                    a: self.sreg(),
                    b,
                    c,
                }
                .into()
            }
            10 => Mufu {
                d,
                func: MufuFn::ALL[self.below(9) as usize].0,
                sat,
                a: self.sreg(),
                am: self.fmod(),
            }
            .into(),
            11 => {
                let (b, bm) = self.fsrc_m();
                Rro {
                    d,
                    ex2: self.chance(50),
                    b,
                    bm,
                }
                .into()
            }
            _ => {
                let (b, bm) = self.fsrc_m();
                Fchk {
                    p: self.pdst(),
                    a: self.sreg(),
                    am: self.fmod(),
                    b,
                    bm,
                }
                .into()
            }
        }
    }
}
