//! Conversion and binary64 statements (docs/semantics.md §29): I2F, F2I, F2F, I2I, DADD, DMUL,
//! DFMA, DMNMX, DSETP and DSET in every width, sign and rounding, with sign modifiers and
//! register, constant and immediate sources; before about half of them the source registers are
//! set to edge values (NaNs, infinities, subnormals, signed zeros, halves, the integer range
//! limits) so that the engines are compared where the rules matter.

use super::Gen;
use crate::ir::*;

/// binary32 values (and integer patterns) at the edges of the conversion rules.
const EDGE32: [u32; 24] = [
    0x0000_0000,
    0x8000_0000,
    0x3f00_0000,
    0xbf00_0000,
    0x4020_0000,
    0xc020_0000,
    0x0000_0001,
    0x8000_0001,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffbf_ffff,
    0x7f80_0001,
    0x4f00_0000,
    0xcf00_0000,
    0x4f80_0000,
    0x5f00_0000,
    0x5f80_0000,
    0x477f_f000,
    0x7fff_ffff,
    0x4eff_ffff,
    0x0080_0000,
    0x3f7f_ffff,
    0xffff_ffff,
];

/// High words of binary64 values at the edges (NaN, infinity, subnormal, 2^31, 2^32, 2^63,
/// 2^64, halves, the largest finite).
const EDGE64_HI: [u32; 20] = [
    0x0000_0000,
    0x8000_0000,
    0x3fe0_0000,
    0xbfe0_0000,
    0x4004_0000,
    0x41e0_0000,
    0x41df_ffff,
    0xc1e0_0000,
    0x41f0_0000,
    0x43e0_0000,
    0xc3e0_0000,
    0x43f0_0000,
    0x43ef_ffff,
    0x7ff0_0000,
    0xfff0_0000,
    0x7ff8_0000,
    0x7fef_ffff,
    0x000f_ffff,
    0x3ff0_0000,
    0xfff4_0000,
];

const EDGE64_LO: [u32; 5] = [0, 1, 0x8000_0000, 0xffff_ffff, 0xffff_f800];

const ROUNDS: [FpRound; 4] = [FpRound::Rn, FpRound::Rm, FpRound::Rp, FpRound::Rz];
const IROUNDS: [IntRound; 4] = [
    IntRound::Round,
    IntRound::Floor,
    IntRound::Ceil,
    IntRound::Trunc,
];
const FLOATS: [FloatType; 3] = [FloatType::F16, FloatType::F32, FloatType::F64];

impl Gen<'_, '_> {
    fn int_type(&mut self, wide: bool) -> IntType {
        let bits = if wide {
            self.pick(&[8, 16, 32, 64])
        } else {
            self.pick(&[8, 16, 32])
        };
        IntType {
            bits,
            signed: self.chance(50),
        }
    }

    /// A register among `R0..R15`, a pair when `regs` is 2, set to edge values first about
    /// half of the time (`float64`: a binary64; else a binary32 or integer pattern).
    fn edge_reg(&mut self, regs: u8, float64: bool) -> Reg {
        let r = Reg(self.below(16 / regs as u32) as u8 * regs);
        if self.chance(50) {
            if regs == 2 || float64 {
                let lo = self.pick(&EDGE64_LO);
                let hi = self.pick(&EDGE64_HI);
                self.op0(Mov {
                    d: r,
                    b: Src::Imm32(lo),
                });
                self.op0(Mov {
                    d: r.offset(1),
                    b: Src::Imm32(hi),
                });
            } else {
                let v = self.pick(&EDGE32);
                self.op0(Mov {
                    d: r,
                    b: Src::Imm32(v),
                });
            }
        }
        r
    }

    /// A source of `regs` registers: an edge-valued register (pair), a constant (8-byte aligned
    /// for a pair) or, unless `imm` is `None`, an immediate (`Some(true)`: the top 20 bits of a
    /// float; `Some(false)`: a signed 20-bit integer).
    fn cv_src(&mut self, regs: u8, float64: bool, imm: Option<bool>) -> Src {
        let w_imm = if imm.is_some() { 15 } else { 0 };
        match self.weighted(&[70, 15, w_imm]) {
            0 => Src::Reg(self.edge_reg(regs, float64)),
            1 => {
                let c = self.cref();
                let offset = if regs == 2 { c.offset & !7 } else { c.offset };
                Src::Const(ConstRef { offset, ..c })
            }
            _ => {
                let v = if imm == Some(true) {
                    if self.chance(50) {
                        self.pick(&EDGE64_HI) & 0xffff_f000
                    } else {
                        self.bits32() & 0xffff_f000
                    }
                } else {
                    let v = self.bits32();
                    ((v << 12) as i32 >> 12) as u32
                };
                Src::Imm(v)
            }
        }
    }

    fn fp_mods(&mut self, b: Src) -> FMod {
        if matches!(b, Src::Imm(_)) {
            return FMod::default();
        }
        FMod {
            neg: self.chance(25),
            abs: self.chance(20),
        }
    }

    /// A destination of `regs` registers among `R0..R15`, rarely `RZ`.
    fn cv_dst(&mut self, regs: u8) -> Reg {
        self.load_dst(regs)
    }

    /// A byte or half select for a source of `bits` bits (`.B1`-`.B3` of an 8-bit source,
    /// `.H1` of a 16-bit one), sometimes; never on an immediate.
    fn sel(&mut self, bits: u8, b: Src) -> u8 {
        if matches!(b, Src::Imm(_)) || !self.chance(40) {
            return 0;
        }
        match bits {
            8 => self.below(4) as u8,
            16 => 2,
            _ => 0,
        }
    }

    /// One conversion or binary64 instruction, under a random guard.
    pub(super) fn convert(&mut self) {
        let op: Op = match self.below(10) {
            0 => {
                let src = self.int_type(true);
                let dst = self.pick(&FLOATS);
                let b = self.cv_src(src.regs(), false, Some(false));
                let m = self.fp_mods(b);
                I2f {
                    d: self.cv_dst(dst.regs()),
                    sel: self.sel(src.bits, b),
                    dst,
                    src,
                    rnd: self.pick(&ROUNDS),
                    neg: m.neg,
                    abs: m.abs,
                    b,
                }
                .into()
            }
            1 => {
                let src = self.pick(&FLOATS);
                let dst = self.int_type(true);
                let imm = (src != FloatType::F16).then_some(true);
                let b = self.cv_src(src.regs(), src == FloatType::F64, imm);
                let m = self.fp_mods(b);
                F2i {
                    d: self.cv_dst(dst.regs()),
                    sel: self.sel(if src == FloatType::F16 { 16 } else { 32 }, b),
                    ftz: self.chance(30),
                    dst,
                    src,
                    rnd: self.pick(&IROUNDS),
                    neg: m.neg,
                    abs: m.abs,
                    b,
                }
                .into()
            }
            2 => {
                let src = self.pick(&FLOATS);
                let (dst, rnd) = if self.chance(25) {
                    (src, F2fRound::Int(self.pick(&IROUNDS)))
                } else {
                    (self.pick(&FLOATS), F2fRound::Fp(self.pick(&ROUNDS)))
                };
                let imm = (src != FloatType::F16).then_some(true);
                let b = self.cv_src(src.regs(), src == FloatType::F64, imm);
                let m = self.fp_mods(b);
                F2f {
                    d: self.cv_dst(dst.regs()),
                    sel: self.sel(if src == FloatType::F16 { 16 } else { 32 }, b),
                    ftz: self.chance(30),
                    sat: self.chance(20),
                    dst,
                    src,
                    rnd,
                    neg: m.neg,
                    abs: m.abs,
                    b,
                }
                .into()
            }
            3 => {
                let b = self.cv_src(1, false, Some(false));
                let m = self.fp_mods(b);
                let src = self.int_type(false);
                I2i {
                    d: self.cv_dst(1),
                    sel: self.sel(src.bits, b),
                    cc: self.chance(30),
                    sat: self.chance(50),
                    dst: self.int_type(false),
                    src,
                    neg: m.neg,
                    abs: m.abs,
                    b,
                }
                .into()
            }
            4 => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                Dadd {
                    d: self.cv_dst(2),
                    rnd: self.pick(&ROUNDS),
                    ma: self.fp_mods(Src::Reg(a)),
                    a,
                    mb: self.fp_mods(b),
                    b,
                }
                .into()
            }
            5 => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                Dmul {
                    d: self.cv_dst(2),
                    rnd: self.pick(&ROUNDS),
                    neg: !matches!(b, Src::Imm(_)) && self.chance(30),
                    a,
                    b,
                }
                .into()
            }
            6 => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                let c = if matches!(b, Src::Reg(_)) {
                    self.cv_src(2, true, None)
                } else {
                    Src::Reg(self.edge_reg(2, true))
                };
                Dfma {
                    d: self.cv_dst(2),
                    rnd: self.pick(&ROUNDS),
                    neg_ab: !matches!(b, Src::Imm(_)) && self.chance(30),
                    a,
                    b,
                    neg_c: self.chance(30),
                    c,
                }
                .into()
            }
            7 => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                Dmnmx {
                    d: self.cv_dst(2),
                    ma: self.fp_mods(Src::Reg(a)),
                    a,
                    mb: self.fp_mods(b),
                    b,
                    p: self.psrc(),
                }
                .into()
            }
            8 => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                Dsetp {
                    cmp: self.pick(&FCmp::ALL),
                    bop: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                    p: self.pdst(),
                    q: self.pdst(),
                    ma: self.fp_mods(Src::Reg(a)),
                    a,
                    mb: self.fp_mods(b),
                    b,
                    c: self.psrc(),
                }
                .into()
            }
            _ => {
                let a = self.edge_reg(2, true);
                let b = self.cv_src(2, true, Some(true));
                Dset {
                    d: self.dst(),
                    cc: self.chance(20),
                    cmp: self.pick(&FCmp::ALL),
                    bf: self.chance(50),
                    bop: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                    ma: self.fp_mods(Src::Reg(a)),
                    a,
                    mb: self.fp_mods(b),
                    b,
                    c: self.psrc(),
                }
                .into()
            }
        };
        let g = self.guard();
        self.op(g, op);
    }
}
