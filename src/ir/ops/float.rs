//! The binary32 float ops of Maxwell (docs/semantics.md §28): FADD, FMUL, FFMA and their
//! 32-bit-immediate forms, FMNMX, FSET, FSETP, FCMP, MUFU, RRO and FCHK.
//!
//! Every operand is a raw 32-bit register value; the rules (source modifiers, `.FTZ`, rounding,
//! NaN canonicalisation, `.SAT`) are defined once in `crate::semantics::float`.

use super::alu::BoolOp;
use crate::ir::roles::{Operands, Roles};
use crate::ir::{Pred, PredSrc, Reg, Src};

/// A float source modifier: `|x|` (absolute value) and then `-` (negation): `-|R0|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FMod {
    /// `-x`: the sign bit flipped (after `abs`).
    pub neg: bool,
    /// `|x|`: the sign bit cleared.
    pub abs: bool,
}

impl FMod {
    /// No modifier.
    pub const NONE: FMod = FMod {
        neg: false,
        abs: false,
    };

    /// Only `-x` (when `neg`).
    pub fn neg(neg: bool) -> FMod {
        FMod { neg, abs: false }
    }

    /// The modified bits of `x`.
    #[inline]
    pub fn apply(self, x: u32) -> u32 {
        let x = if self.abs { x & 0x7fff_ffff } else { x };
        if self.neg {
            x ^ 0x8000_0000
        } else {
            x
        }
    }
}

/// The rounding mode of a float op: `.RN` (default, not printed), `.RM`, `.RP`, `.RZ`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FRnd {
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

impl FRnd {
    /// The modes in encoding order (0 = RN, 1 = RM, 2 = RP, 3 = RZ).
    pub const ALL: [FRnd; 4] = [FRnd::Rn, FRnd::Rm, FRnd::Rp, FRnd::Rz];
}

/// The comparison of FSETP, FSET and FCMP, in encoding order (4 bits). The ordered tests
/// (`.LT` .. `.GE`, `.NUM`) are false when an operand is NaN, the unordered ones (`.NAN`,
/// `.LTU` .. `.GEU`) true.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmp {
    /// `.F`: false.
    F,
    /// `.LT`
    Lt,
    /// `.EQ`
    Eq,
    /// `.LE`
    Le,
    /// `.GT`
    Gt,
    /// `.NE`: ordered and not equal.
    Ne,
    /// `.GE`
    Ge,
    /// `.NUM`: neither operand is NaN.
    Num,
    /// `.NAN`: an operand is NaN.
    Nan,
    /// `.LTU`: less than, or unordered.
    Ltu,
    /// `.EQU`
    Equ,
    /// `.LEU`
    Leu,
    /// `.GTU`
    Gtu,
    /// `.NEU`: not equal, or unordered.
    Neu,
    /// `.GEU`
    Geu,
    /// `.T`: true.
    T,
}

impl FCmp {
    /// Every comparison, in encoding order.
    pub const ALL: [FCmp; 16] = [
        FCmp::F,
        FCmp::Lt,
        FCmp::Eq,
        FCmp::Le,
        FCmp::Gt,
        FCmp::Ne,
        FCmp::Ge,
        FCmp::Num,
        FCmp::Nan,
        FCmp::Ltu,
        FCmp::Equ,
        FCmp::Leu,
        FCmp::Gtu,
        FCmp::Neu,
        FCmp::Geu,
        FCmp::T,
    ];
}

/// `FADD[.FTZ][.RM|.RP|.RZ][.SAT] Rd, [-][|]Ra[|], [-][|]Sb[|]`: Ra + Sb.
///
/// With `Sb` a [`Src::Imm32`] (any binary32), its SASS form is `FADD32I[.FTZ] Rd, [-][|]Ra[|],
/// imm32`: to nearest, no `.SAT`, no modifier on the immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fadd {
    /// Destination.
    pub d: Reg,
    /// `.FTZ`: subnormal inputs and result flushed to zero.
    pub ftz: bool,
    /// `.SAT`: the result clamped to [0, 1].
    pub sat: bool,
    /// Rounding mode.
    pub rnd: FRnd,
    /// First source.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
    /// Second source: register, constant or 20-bit float immediate (the top 20 bits).
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
}

impl Operands for Fadd {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fadd {
            d,
            ftz: _,
            sat: _,
            rnd: _,
            a,
            am: _,
            b,
            bm: _,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
    }
}

/// `FMUL[.FTZ][.D2|.D4|.D8|.M2|.M4|.M8][.RM|.RP|.RZ][.SAT] Rd, Ra, [-]Sb`: Ra × Sb, scaled
/// by 2^scale before its one rounding.
///
/// With `Sb` a [`Src::Imm32`] (any binary32), its SASS form is `FMUL32I[.FTZ][.SAT] Rd, Ra,
/// imm32`: to nearest, no scale, no `-`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmul {
    /// Destination.
    pub d: Reg,
    /// `.FTZ`.
    pub ftz: bool,
    /// The product's scale as a power of two: -1, -2, -3 for `.D2 .D4 .D8`, 1, 2, 3 for
    /// `.M2 .M4 .M8`, 0 for none.
    pub scale: i8,
    /// `.SAT`.
    pub sat: bool,
    /// Rounding mode.
    pub rnd: FRnd,
    /// First source.
    pub a: Reg,
    /// Second source: register, constant or 20-bit float immediate.
    pub b: Src,
    /// `-Sb` (the product negated).
    pub neg_b: bool,
}

impl Operands for Fmul {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fmul {
            d,
            ftz: _,
            scale: _,
            sat: _,
            rnd: _,
            a,
            b,
            neg_b: _,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
    }
}

/// `FFMA[.FTZ][.RM|.RP|.RZ][.SAT] Rd, Ra, [-]Sb, [-]Sc`: Ra × Sb + Sc with one rounding.
///
/// Sb and Sc: both registers, or one of them a constant (or Sb a 20-bit float immediate).
///
/// With `Sb` a [`Src::Imm32`] (any binary32), its SASS form is `FFMA32I[.FTZ][.SAT] Rd, [-]Ra,
/// imm32, [-]Rd`: to nearest, `Sc` the destination register, and the product's negation
/// (`neg_b`) written on Ra, which negates the same product (bit for bit: a sign flip commutes
/// with `.FTZ`'s flush and every NaN result is the canonical one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ffma {
    /// Destination.
    pub d: Reg,
    /// `.FTZ`.
    pub ftz: bool,
    /// `.SAT`.
    pub sat: bool,
    /// Rounding mode.
    pub rnd: FRnd,
    /// First factor.
    pub a: Reg,
    /// Second factor.
    pub b: Src,
    /// `-Sb` (the product negated).
    pub neg_b: bool,
    /// Addend.
    pub c: Src,
    /// `-Sc`.
    pub neg_c: bool,
}

impl Operands for Ffma {
    fn operands(&self, o: &mut Roles<'_>) {
        let Ffma {
            d,
            ftz: _,
            sat: _,
            rnd: _,
            a,
            b,
            neg_b: _,
            c,
            neg_c: _,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
    }
}

/// `FMNMX[.FTZ] Rd, [-][|]Ra[|], [-][|]Sb[|], Pp`: the minimum of Ra and Sb when Pp holds, else
/// the maximum (IEEE minNum/maxNum: a NaN operand gives the other; -0 < +0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fmnmx {
    /// Destination.
    pub d: Reg,
    /// `.FTZ`.
    pub ftz: bool,
    /// First source.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
    /// Second source.
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
    /// True: minimum; false: maximum.
    pub p: PredSrc,
}

impl Operands for Fmnmx {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fmnmx {
            d,
            ftz: _,
            a,
            am: _,
            b,
            bm: _,
            p,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.pred_read(p);
    }
}

/// `FSETP.cmp[.FTZ].bop Pd, Pq, [-][|]Ra[|], [-][|]Sb[|], Pp`: Pd = (Ra cmp Sb) bop Pp,
/// Pq = !(Ra cmp Sb) bop Pp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fsetp {
    /// Comparison.
    pub cmp: FCmp,
    /// `.FTZ`: subnormal operands compare as zeros.
    pub ftz: bool,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// Destination of the test.
    pub p: Pred,
    /// Destination of the inverted test.
    pub q: Pred,
    /// First source.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
    /// Second source.
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Fsetp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fsetp {
            cmp: _,
            ftz: _,
            bop: _,
            p,
            q,
            a,
            am: _,
            b,
            bm: _,
            c,
        } = *self;
        o.pred_def(p);
        o.pred_def(q);
        o.read(a);
        o.src(b);
        o.pred_read(c);
    }
}

/// `FSET[.BF].cmp[.FTZ].bop Rd, [-][|]Ra[|], [-][|]Sb[|], Pp`: Rd = ((Ra cmp Sb) bop Pp) ?
/// (1.0 with `.BF`, else 0xffffffff) : 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fset {
    /// Destination.
    pub d: Reg,
    /// `.CC`: ZF and SF from the value written, CF and OF cleared (as ISET, docs/semantics.md
    /// §21).
    pub cc: bool,
    /// `.BF`: the true value is 1.0 instead of all ones.
    pub bf: bool,
    /// Comparison.
    pub cmp: FCmp,
    /// `.FTZ`.
    pub ftz: bool,
    /// Combiner with Pp.
    pub bop: BoolOp,
    /// First source.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
    /// Second source.
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
    /// Combined predicate.
    pub c: PredSrc,
}

impl Operands for Fset {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fset {
            d,
            cc,
            bf: _,
            cmp: _,
            ftz: _,
            bop: _,
            a,
            am: _,
            b,
            bm: _,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.pred_read(c);
        o.cc_write(cc);
    }
}

/// `FCMP.cmp[.FTZ] Rd, Ra, Sb, Sc`: Rd = (Sc cmp 0.0) ? Ra : Sb (Sc a register, or a constant
/// with a register Sb).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fcmp {
    /// Destination.
    pub d: Reg,
    /// Comparison of Sc with +0.0.
    pub cmp: FCmp,
    /// `.FTZ`: a subnormal Sc compares as zero.
    pub ftz: bool,
    /// Chosen when the comparison holds.
    pub a: Reg,
    /// Chosen otherwise.
    pub b: Src,
    /// Compared with zero.
    pub c: Src,
}

impl Operands for Fcmp {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fcmp {
            d,
            cmp: _,
            ftz: _,
            a,
            b,
            c,
        } = *self;
        o.def(d);
        o.read(a);
        o.src(b);
        o.src(c);
    }
}

/// The function of MUFU, in encoding order (`.SQRT` is 8; 6 and 7 are the 64-bit halves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MufuFn {
    /// `.COS`: cosine of an angle in radians (as RRO.SINCOS leaves it).
    Cos,
    /// `.SIN`: sine.
    Sin,
    /// `.EX2`: 2^x (x as RRO.EX2 leaves it).
    Ex2,
    /// `.LG2`: log2(x).
    Lg2,
    /// `.RCP`: 1/x.
    Rcp,
    /// `.RSQ`: 1/sqrt(x).
    Rsq,
    /// `.RCP64H`: the high word of 1/x for the binary64 x whose high word is the source.
    Rcp64h,
    /// `.RSQ64H`: the high word of 1/sqrt(x), likewise.
    Rsq64h,
    /// `.SQRT`: sqrt(x) (sm_52 and later).
    Sqrt,
}

impl MufuFn {
    /// Every function with its encoding.
    pub const ALL: [(MufuFn, u8); 9] = [
        (MufuFn::Cos, 0),
        (MufuFn::Sin, 1),
        (MufuFn::Ex2, 2),
        (MufuFn::Lg2, 3),
        (MufuFn::Rcp, 4),
        (MufuFn::Rsq, 5),
        (MufuFn::Rcp64h, 6),
        (MufuFn::Rsq64h, 7),
        (MufuFn::Sqrt, 8),
    ];
}

/// `MUFU.fn[.SAT] Rd, [-][|]Ra[|]`: a transcendental function (docs/semantics.md §28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mufu {
    /// Destination.
    pub d: Reg,
    /// Function.
    pub func: MufuFn,
    /// `.SAT`.
    pub sat: bool,
    /// Source.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
}

impl Operands for Mufu {
    fn operands(&self, o: &mut Roles<'_>) {
        let Mufu {
            d,
            func: _,
            sat: _,
            a,
            am: _,
        } = *self;
        o.def(d);
        o.read(a);
    }
}

/// `RRO.SINCOS|.EX2 Rd, [-][|]Sb[|]`: the range-reduction step before MUFU.SIN/COS/EX2 (in
/// warpjit the operand itself, flushed; docs/semantics.md §28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rro {
    /// Destination.
    pub d: Reg,
    /// `.EX2` (else `.SINCOS`).
    pub ex2: bool,
    /// Source: register, constant or 20-bit float immediate.
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
}

impl Operands for Rro {
    fn operands(&self, o: &mut Roles<'_>) {
        let Rro {
            d,
            ex2: _,
            b,
            bm: _,
        } = *self;
        o.def(d);
        o.src(b);
    }
}

/// `FCHK.DIVIDE Pd, [-][|]Ra[|], [-][|]Sb[|]`: Pd = whether the fast division of Ra by Sb
/// (MUFU.RCP and FFMA refinement) could be wrong (docs/semantics.md §28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fchk {
    /// Destination predicate.
    pub p: Pred,
    /// Dividend.
    pub a: Reg,
    /// Its modifier.
    pub am: FMod,
    /// Divisor: register, constant or 20-bit float immediate.
    pub b: Src,
    /// Its modifier.
    pub bm: FMod,
}

impl Operands for Fchk {
    fn operands(&self, o: &mut Roles<'_>) {
        let Fchk {
            p,
            a,
            am: _,
            b,
            bm: _,
        } = *self;
        o.pred_def(p);
        o.read(a);
        o.src(b);
    }
}
