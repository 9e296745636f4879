//! Conversions (I2F, F2I, F2F, I2I) and the binary64 instructions (DADD, DMUL, DFMA, DMNMX,
//! DSETP, DSET), each with its operand roles (docs/semantics.md §29).
//!
//! A 64-bit operand (an `.F64` float, an `.S64`/`.U64` integer) is a register pair {R+1, R}
//! (R even, the low word in R), a constant pair `c[b][o]`, `c[b][o+4]` (o a multiple of 8), or
//! an immediate: for a binary64 the 32-bit [`Src::Imm`] is the high word (the encoding's 20 bits
//! are its top bits) and the low word is 0; for a 64-bit integer it is sign-extended.

use super::alu::BoolOp;
use super::float::{FCmp, FMod};
use crate::ir::operand::*;
use crate::ir::roles::*;

/// A float format of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatType {
    /// binary16, the low 16 bits of a register.
    F16,
    /// binary32.
    F32,
    /// binary64, a register pair.
    F64,
}

impl FloatType {
    /// Registers the value takes (2 for `.F64`).
    pub fn regs(self) -> u8 {
        if self == FloatType::F64 {
            2
        } else {
            1
        }
    }
}

/// An integer format of a conversion: 8, 16, 32 or 64 bits, signed or unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntType {
    /// Width in bits: 8, 16, 32 or 64.
    pub bits: u8,
    /// Signed (`.S*`) or unsigned (`.U*`).
    pub signed: bool,
}

impl IntType {
    /// `.S32`.
    pub const S32: IntType = IntType {
        bits: 32,
        signed: true,
    };
    /// `.U32`.
    pub const U32: IntType = IntType {
        bits: 32,
        signed: false,
    };
    /// Registers the value takes (2 for 64 bits).
    pub fn regs(self) -> u8 {
        if self.bits == 64 {
            2
        } else {
            1
        }
    }
    /// The smallest value of the type.
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    /// The largest value of the type.
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
}

/// An IEEE rounding mode of a float result: `.RN` (the default), `.RM`, `.RP`, `.RZ`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FpRound {
    /// To nearest, ties to even.
    #[default]
    Rn,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
    /// Toward zero.
    Rz,
}

/// The rounding of a value to an integer: `.ROUND` (nearest even, the default), `.FLOOR`,
/// `.CEIL`, `.TRUNC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IntRound {
    /// To the nearest integer, ties to even.
    #[default]
    Round,
    /// Toward minus infinity.
    Floor,
    /// Toward plus infinity.
    Ceil,
    /// Toward zero.
    Trunc,
}

/// F2F's rounding: of the value to the destination format, or to an integral value in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F2fRound {
    /// Round to the destination format (`.RN .RM .RP .RZ`).
    Fp(FpRound),
    /// Round to an integral value of the destination format (`.ROUND .FLOOR .CEIL .TRUNC`).
    Int(IntRound),
}

/// `I2F.dst.src[.rnd] Rd, [-][|]Sb[|]`: an integer converted to a float, rounded by `rnd`.
///
/// An 8- or 16-bit source is the low bits of the register, sign- or zero-extended; `-` and `|x|`
/// apply to the integer (exactly, in 65 bits) before the conversion. An `.F16` result is written
/// zero-extended, an `.F64` one to a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct I2f {
    /// Destination (a pair for `.F64`).
    pub d: Reg,
    /// Result format.
    pub dst: FloatType,
    /// Where the source starts in its register, in bytes: 0, or 1-3 (`.B1`-`.B3`) for an 8-bit
    /// source, 2 (`.H1`) for a 16-bit one; the source is the register shifted right by that.
    pub sel: u8,
    /// Source format.
    pub src: IntType,
    /// Rounding.
    pub rnd: FpRound,
    /// `-Sb`.
    pub neg: bool,
    /// `|Sb|`.
    pub abs: bool,
    /// Source (a pair for 64 bits; an immediate is a signed 20-bit value).
    pub b: Src,
}

impl Operands for I2f {
    fn operands(&self, o: &mut Roles<'_>) {
        let I2f {
            sel: _,
            d,
            dst,
            src,
            rnd: _,
            neg: _,
            abs: _,
            b,
        } = *self;
        o.def_n(d, dst.regs());
        wide_src(o, b, src.regs());
    }
}

/// `F2I[.FTZ].dst.src[.rnd] Rd, [-][|]Sb[|]`: a float rounded to an integer (`rnd`), saturated
/// to the destination's range; NaN gives 0 (0x8000000000000000 for a 64-bit result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F2i {
    /// Destination (a pair for 64 bits; narrower results are sign- or zero-extended).
    pub d: Reg,
    /// `.FTZ`: a subnormal source counts as zero.
    pub ftz: bool,
    /// Result format.
    pub dst: IntType,
    /// Where the source starts in its register, in bytes: 0, or 1-3 (`.B1`-`.B3`) for an 8-bit
    /// source, 2 (`.H1`) for a 16-bit one; the source is the register shifted right by that.
    pub sel: u8,
    /// Source format.
    pub src: FloatType,
    /// Rounding to an integer.
    pub rnd: IntRound,
    /// `-Sb`.
    pub neg: bool,
    /// `|Sb|`.
    pub abs: bool,
    /// Source (a pair for `.F64`; an immediate holds the top bits of the float).
    pub b: Src,
}

impl Operands for F2i {
    fn operands(&self, o: &mut Roles<'_>) {
        let F2i {
            sel: _,
            d,
            ftz: _,
            dst,
            src,
            rnd: _,
            neg: _,
            abs: _,
            b,
        } = *self;
        o.def_n(d, dst.regs());
        wide_src(o, b, src.regs());
    }
}

/// `F2F[.FTZ].dst.src[.rnd][.SAT] Rd, [-][|]Sb[|]`: a float converted to another format (or the
/// same), rounded by `rnd`, or rounded to an integral value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F2f {
    /// Destination (a pair for `.F64`).
    pub d: Reg,
    /// `.FTZ`: binary32 subnormal sources and results are zeros of their sign.
    pub ftz: bool,
    /// `.SAT`: the result clamped to [0, 1] (NaN gives +0).
    pub sat: bool,
    /// Result format.
    pub dst: FloatType,
    /// Where the source starts in its register, in bytes: 0, or 1-3 (`.B1`-`.B3`) for an 8-bit
    /// source, 2 (`.H1`) for a 16-bit one; the source is the register shifted right by that.
    pub sel: u8,
    /// Source format.
    pub src: FloatType,
    /// Rounding.
    pub rnd: F2fRound,
    /// `-Sb`.
    pub neg: bool,
    /// `|Sb|`.
    pub abs: bool,
    /// Source (a pair for `.F64`; an immediate holds the top bits of the float).
    pub b: Src,
}

impl Operands for F2f {
    fn operands(&self, o: &mut Roles<'_>) {
        let F2f {
            sel: _,
            d,
            ftz: _,
            sat: _,
            dst,
            src,
            rnd: _,
            neg: _,
            abs: _,
            b,
        } = *self;
        o.def_n(d, dst.regs());
        wide_src(o, b, src.regs());
    }
}

/// `I2I.dst.src[.SAT] Rd[.CC], [-][|]Sb[|]`: an 8-, 16- or 32-bit integer converted to
/// another; with `.SAT` clamped to the destination's range, else truncated; the result is sign-
/// or zero-extended to 32 bits. `.CC` writes ZF and SF from the result, CF = OF = 0 (as the
/// logic ops' [`LogicCc`](super::LogicCc) without `.X`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct I2i {
    /// Destination.
    pub d: Reg,
    /// `.CC`.
    pub cc: bool,
    /// `.SAT`.
    pub sat: bool,
    /// Result format (8, 16 or 32 bits).
    pub dst: IntType,
    /// Where the source starts in its register, in bytes: 0, or 1-3 (`.B1`-`.B3`) for an 8-bit
    /// source, 2 (`.H1`) for a 16-bit one; the source is the register shifted right by that.
    pub sel: u8,
    /// Source format (8, 16 or 32 bits).
    pub src: IntType,
    /// `-Sb`.
    pub neg: bool,
    /// `|Sb|`.
    pub abs: bool,
    /// Source (an immediate is a signed 20-bit value).
    pub b: Src,
}

impl Operands for I2i {
    fn operands(&self, o: &mut Roles<'_>) {
        let I2i {
            sel: _,
            d,
            cc,
            sat: _,
            dst: _,
            src: _,
            neg: _,
            abs: _,
            b,
        } = *self;
        o.def(d);
        o.src(b);
        o.cc_write(cc);
    }
}

/// A source of `regs` registers: a pair reads both registers, a constant both words.
pub fn wide_src(o: &mut Roles<'_>, b: Src, regs: u8) {
    match (b, regs) {
        (Src::Reg(r), 2) => o.read_n(r, 2),
        (Src::Const(c), 2) => {
            o.src(b);
            o.src(Src::Const(ConstRef {
                bank: c.bank,
                offset: c.offset.wrapping_add(4),
            }));
        }
        _ => o.src(b),
    }
}

/// `DADD[.rnd] Rd, [-][|]Ra[|], [-][|]Sb[|]`: binary64 addition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dadd {
    /// Destination pair.
    pub d: Reg,
    /// Rounding.
    pub rnd: FpRound,
    /// Modifiers of Ra.
    pub ma: FMod,
    /// First source pair.
    pub a: Reg,
    /// Modifiers of Sb.
    pub mb: FMod,
    /// Second source (pair, constant pair, or the high word of a binary64 immediate).
    pub b: Src,
}

impl Operands for Dadd {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dadd {
            d,
            rnd: _,
            ma: _,
            a,
            mb: _,
            b,
        } = *self;
        o.def_n(d, 2);
        o.read_n(a, 2);
        wide_src(o, b, 2);
    }
}

/// `DMUL[.rnd] Rd, Ra, [-]Sb`: binary64 multiplication (`-` negates the product).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dmul {
    /// Destination pair.
    pub d: Reg,
    /// Rounding.
    pub rnd: FpRound,
    /// Negate the product.
    pub neg: bool,
    /// First source pair.
    pub a: Reg,
    /// Second source.
    pub b: Src,
}

impl Operands for Dmul {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dmul {
            d,
            rnd: _,
            neg: _,
            a,
            b,
        } = *self;
        o.def_n(d, 2);
        o.read_n(a, 2);
        wide_src(o, b, 2);
    }
}

/// `DFMA[.rnd] Rd, Ra, [-]Sb, [-]Sc`: binary64 fused multiply-add, one rounding (`-` on Sb
/// negates the product). At most one of Sb and Sc is not a register pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dfma {
    /// Destination pair.
    pub d: Reg,
    /// Rounding.
    pub rnd: FpRound,
    /// Negate the product.
    pub neg_ab: bool,
    /// First factor pair.
    pub a: Reg,
    /// Second factor.
    pub b: Src,
    /// Negate the addend.
    pub neg_c: bool,
    /// Addend.
    pub c: Src,
}

impl Operands for Dfma {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dfma {
            d,
            rnd: _,
            neg_ab: _,
            a,
            b,
            neg_c: _,
            c,
        } = *self;
        o.def_n(d, 2);
        o.read_n(a, 2);
        wide_src(o, b, 2);
        wide_src(o, c, 2);
    }
}

/// `DMNMX Rd, [-][|]Ra[|], [-][|]Sb[|], Pp`: the binary64 minimum when Pp holds, else the
/// maximum (a NaN operand loses to a number; -0 is below +0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dmnmx {
    /// Destination pair.
    pub d: Reg,
    /// Modifiers of Ra.
    pub ma: FMod,
    /// First source pair.
    pub a: Reg,
    /// Modifiers of Sb.
    pub mb: FMod,
    /// Second source.
    pub b: Src,
    /// Minimum when true.
    pub p: PredSrc,
}

impl Operands for Dmnmx {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dmnmx {
            d,
            ma: _,
            a,
            mb: _,
            b,
            p,
        } = *self;
        o.def_n(d, 2);
        o.read_n(a, 2);
        wide_src(o, b, 2);
        o.pred_read(p);
    }
}

/// `DSETP.cmp.bop Pd, Pq, [-][|]Ra[|], [-][|]Sb[|], Pp`: Pd = (Ra cmp Sb) bop Pp and
/// Pq = !(Ra cmp Sb) bop Pp, in binary64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dsetp {
    /// Comparison.
    pub cmp: FCmp,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// Destination of the comparison.
    pub p: Pred,
    /// Destination of its negation.
    pub q: Pred,
    /// Modifiers of Ra.
    pub ma: FMod,
    /// First source pair.
    pub a: Reg,
    /// Modifiers of Sb.
    pub mb: FMod,
    /// Second source.
    pub b: Src,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Dsetp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dsetp {
            cmp: _,
            bop: _,
            p,
            q,
            ma: _,
            a,
            mb: _,
            b,
            c,
        } = *self;
        o.pred_def(p);
        o.pred_def(q);
        o.read_n(a, 2);
        wide_src(o, b, 2);
        o.pred_read(c);
    }
}

/// `DSET.cmp[.BF].bop Rd, [-][|]Ra[|], [-][|]Sb[|], Pp`: Rd = ((Ra cmp Sb) bop Pp) as all ones
/// (or 1.0f with `.BF`) or 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dset {
    /// Destination (one register).
    pub d: Reg,
    /// `.CC`: ZF and SF from the value written, CF and OF cleared (as ISET, docs/semantics.md
    /// §21).
    pub cc: bool,
    /// Comparison.
    pub cmp: FCmp,
    /// `.BF`: true is binary32 1.0 (0x3f800000) instead of 0xffffffff.
    pub bf: bool,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// Modifiers of Ra.
    pub ma: FMod,
    /// First source pair.
    pub a: Reg,
    /// Modifiers of Sb.
    pub mb: FMod,
    /// Second source.
    pub b: Src,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Dset {
    fn operands(&self, o: &mut Roles<'_>) {
        let Dset {
            d,
            cc,
            cmp: _,
            bf: _,
            bop: _,
            ma: _,
            a,
            mb: _,
            b,
            c,
        } = *self;
        o.def(d);
        o.read_n(a, 2);
        wide_src(o, b, 2);
        o.pred_read(c);
        o.cc_write(cc);
    }
}
