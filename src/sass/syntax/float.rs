//! The syntax of the binary32 float ops (FADD … FCHK, docs/semantics.md §28).
//!
//! Float sources take `-x`, `|x|` and `-|x|` where the encoding has the bits. Float immediates
//! print as the shortest decimal that reads back to the same binary32 (`1.0`, `-0.5`,
//! `1e-30`), infinities and NaNs as their bit pattern (`0x7f800000`); see `Args::fsrc`.

use super::*;
use crate::sass::validate::{FImm, ABS};

/// A float operand with its modifier: `-|R0|`, `c[0x0][0x140]`, `1.5`.
struct F(Src, FMod);

impl fmt::Display for F {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, md) = (self.0, self.1);
        f.write_str(m(md.neg, "-"))?;
        f.write_str(m(md.abs, "|"))?;
        match s {
            Src::Imm(bits) | Src::Imm32(bits) => fimm(f, bits)?,
            s => write!(f, "{s}")?,
        }
        f.write_str(m(md.abs, "|"))
    }
}

/// A binary32 immediate: finite values as the shortest round-trip decimal, others as bits.
fn fimm(f: &mut fmt::Formatter<'_>, bits: u32) -> fmt::Result {
    let v = f32::from_bits(bits);
    if v.is_finite() {
        write!(f, "{v:?}")
    } else {
        write!(f, "{bits:#010x}")
    }
}

const RNDS: &[(&str, FRnd)] = &[
    ("RN", FRnd::Rn),
    ("RM", FRnd::Rm),
    ("RP", FRnd::Rp),
    ("RZ", FRnd::Rz),
];

impl Suffix for FRnd {
    /// Empty for `.RN`, the default.
    fn suffix(self) -> &'static str {
        match self {
            FRnd::Rn => "",
            FRnd::Rm => ".RM",
            FRnd::Rp => ".RP",
            FRnd::Rz => ".RZ",
        }
    }
}

impl Name for FCmp {
    fn name(self) -> &'static str {
        match self {
            FCmp::F => "F",
            FCmp::Lt => "LT",
            FCmp::Eq => "EQ",
            FCmp::Le => "LE",
            FCmp::Gt => "GT",
            FCmp::Ne => "NE",
            FCmp::Ge => "GE",
            FCmp::Num => "NUM",
            FCmp::Nan => "NAN",
            FCmp::Ltu => "LTU",
            FCmp::Equ => "EQU",
            FCmp::Leu => "LEU",
            FCmp::Gtu => "GTU",
            FCmp::Neu => "NEU",
            FCmp::Geu => "GEU",
            FCmp::T => "T",
        }
    }
}

impl Name for MufuFn {
    fn name(self) -> &'static str {
        match self {
            MufuFn::Cos => "COS",
            MufuFn::Sin => "SIN",
            MufuFn::Ex2 => "EX2",
            MufuFn::Lg2 => "LG2",
            MufuFn::Rcp => "RCP",
            MufuFn::Rsq => "RSQ",
            MufuFn::Rcp64h => "RCP64H",
            MufuFn::Rsq64h => "RSQ64H",
            MufuFn::Sqrt => "SQRT",
        }
    }
}

fn fmod(fl: crate::sass::validate::Flags) -> FMod {
    FMod {
        neg: fl.neg,
        abs: fl.abs,
    }
}

/// `.FTZ`, the rounding mode and `.SAT` (when `sat`), in any order.
fn arith_mods(a: &mut Args<'_>, sat: bool) -> R<(bool, FRnd, bool)> {
    let ftz = a.flag("FTZ")?;
    let rnd = a.choice(RNDS)?.unwrap_or_default();
    let sat = sat && a.flag("SAT")?;
    Ok((ftz, rnd, sat))
}

fn cmp_mod(a: &mut Args<'_>) -> R<FCmp> {
    a.require(&FCmp::ALL.map(|c| (c.name(), c)))
}

/// A register source with float modifiers (`allow`: NEG and/or ABS).
fn freg(a: &mut Args<'_>, allow: u8) -> R<(Reg, FMod)> {
    let (r, fl) = a.reg_x(allow)?;
    Ok((r, fmod(fl)))
}

/// A source of the Sb slot with float modifiers.
fn fsb(a: &mut Args<'_>, imm: FImm, allow: u8) -> R<(Src, FMod)> {
    let (s, fl) = a.fsrc(imm, allow)?;
    Ok((s, fmod(fl)))
}

impl SassSyntax for Fadd {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (ftz, rnd, sat) = arith_mods(a, true)?;
        let d = a.reg()?;
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Fadd {
            d,
            ftz,
            sat,
            rnd,
            a: ra,
            am,
            b,
            bm,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FADD{}{}{} {}, {}, {}",
            m(self.ftz, ".FTZ"),
            self.rnd.suffix(),
            m(self.sat, ".SAT"),
            self.d,
            F(Src::Reg(self.a), self.am),
            F(self.b, self.bm)
        )
    }
}

/// FADD32I: round to nearest, no `.SAT`, no modifier on the immediate.
impl SassImm32Form for Fadd {
    fn parse_imm32(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let d = a.reg()?;
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, _) = fsb(a, FImm::F32, 0)?;
        let Some(imm) = b.imm() else {
            return a.err(a.raw().mn_loc, "FADD32I takes an immediate second source");
        };
        Ok(Fadd {
            d,
            ftz,
            sat: false,
            rnd: FRnd::Rn,
            a: ra,
            am,
            b: Src::Imm32(imm),
            bm: FMod::NONE,
        })
    }
    fn is_imm32(&self) -> bool {
        matches!(self.b, Src::Imm32(_))
            && !self.sat
            && self.rnd == FRnd::Rn
            && self.bm == FMod::NONE
    }
    fn print_imm32(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FADD32I{} {}, {}, {}",
            m(self.ftz, ".FTZ"),
            self.d,
            F(Src::Reg(self.a), self.am),
            F(self.b, FMod::NONE)
        )
    }
}

/// FMUL's scale modifiers and their powers of two.
const FMUL_SCALES: &[(&str, i8)] = &[
    ("D2", -1),
    ("D4", -2),
    ("D8", -3),
    ("M2", 1),
    ("M4", 2),
    ("M8", 3),
];

impl SassSyntax for Fmul {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let scale = a.choice(FMUL_SCALES)?.unwrap_or(0);
        let (ftz, rnd, sat) = arith_mods(a, true)?;
        let d = a.reg()?;
        let ra = a.reg()?;
        let (b, bm) = fsb(a, FImm::F20, NEG)?;
        Ok(Fmul {
            d,
            ftz,
            scale,
            sat,
            rnd,
            a: ra,
            b,
            neg_b: bm.neg,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FMUL{}{}{}{} {}, {}, {}",
            m(self.ftz, ".FTZ"),
            FMUL_SCALES
                .iter()
                .find(|(_, k)| *k == self.scale)
                .map_or(String::new(), |(n, _)| format!(".{n}")),
            self.rnd.suffix(),
            m(self.sat, ".SAT"),
            self.d,
            self.a,
            F(self.b, FMod::neg(self.neg_b))
        )
    }
}

/// FMUL32I: round to nearest, no scale, no `-` on the immediate.
impl SassImm32Form for Fmul {
    fn parse_imm32(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let sat = a.flag("SAT")?;
        let d = a.reg()?;
        let ra = a.reg()?;
        let (b, _) = fsb(a, FImm::F32, 0)?;
        let Some(imm) = b.imm() else {
            return a.err(a.raw().mn_loc, "FMUL32I takes an immediate second source");
        };
        Ok(Fmul {
            d,
            ftz,
            scale: 0,
            sat,
            rnd: FRnd::Rn,
            a: ra,
            b: Src::Imm32(imm),
            neg_b: false,
        })
    }
    fn is_imm32(&self) -> bool {
        matches!(self.b, Src::Imm32(_)) && self.scale == 0 && self.rnd == FRnd::Rn && !self.neg_b
    }
    fn print_imm32(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FMUL32I{}{} {}, {}, {}",
            m(self.ftz, ".FTZ"),
            m(self.sat, ".SAT"),
            self.d,
            self.a,
            F(self.b, FMod::NONE)
        )
    }
}

impl SassSyntax for Ffma {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (ftz, rnd, sat) = arith_mods(a, true)?;
        let d = a.reg()?;
        let ra = a.reg()?;
        let (b, bm) = fsb(a, FImm::F20, NEG)?;
        let loc = a.peek().map(|o| o.atom_loc);
        let (c, cm) = fsb(a, FImm::None, NEG)?;
        if let (Src::Const(_), false, Some(l)) = (c, matches!(b, Src::Reg(_)), loc) {
            return a.err(l, "FFMA takes a constant Sc only with a register Sb");
        }
        Ok(Ffma {
            d,
            ftz,
            sat,
            rnd,
            a: ra,
            b,
            neg_b: bm.neg,
            c,
            neg_c: cm.neg,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FFMA{}{}{} {}, {}, {}, {}",
            m(self.ftz, ".FTZ"),
            self.rnd.suffix(),
            m(self.sat, ".SAT"),
            self.d,
            self.a,
            F(self.b, FMod::neg(self.neg_b)),
            F(self.c, FMod::neg(self.neg_c))
        )
    }
}

/// FFMA32I: round to nearest, the destination as the addend, the product's negation written on
/// Ra (`-Ra`: `neg_b`, which negates the same product).
impl SassImm32Form for Ffma {
    fn parse_imm32(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let sat = a.flag("SAT")?;
        let d = a.reg()?;
        let (ra, am) = freg(a, NEG)?;
        let (b, _) = fsb(a, FImm::F32, 0)?;
        let Some(imm) = b.imm() else {
            return a.err(a.raw().mn_loc, "FFMA32I takes an immediate second source");
        };
        let loc = a.peek().map(|o| o.atom_loc);
        let (c, cm) = freg(a, NEG)?;
        if let (true, Some(l)) = (c != d, loc) {
            return a.err(
                l,
                "FFMA32I adds its destination: the third source must be Rd",
            );
        }
        Ok(Ffma {
            d,
            ftz,
            sat,
            rnd: FRnd::Rn,
            a: ra,
            b: Src::Imm32(imm),
            neg_b: am.neg,
            c: Src::Reg(d),
            neg_c: cm.neg,
        })
    }
    fn is_imm32(&self) -> bool {
        matches!(self.b, Src::Imm32(_)) && self.rnd == FRnd::Rn && self.c == Src::Reg(self.d)
    }
    fn print_imm32(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FFMA32I{}{} {}, {}, {}, {}",
            m(self.ftz, ".FTZ"),
            m(self.sat, ".SAT"),
            self.d,
            F(Src::Reg(self.a), FMod::neg(self.neg_b)),
            F(self.b, FMod::NONE),
            F(Src::Reg(self.d), FMod::neg(self.neg_c))
        )
    }
}

impl SassSyntax for Fmnmx {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let d = a.reg()?;
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Fmnmx {
            d,
            ftz,
            a: ra,
            am,
            b,
            bm,
            p: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FMNMX{} {}, {}, {}, {}",
            m(self.ftz, ".FTZ"),
            self.d,
            F(Src::Reg(self.a), self.am),
            F(self.b, self.bm),
            self.p
        )
    }
}

impl SassSyntax for Fsetp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cmp = cmp_mod(a)?;
        let ftz = a.flag("FTZ")?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let (p, q) = (a.pred_dst()?, a.pred_dst()?);
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Fsetp {
            cmp,
            ftz,
            bop,
            p,
            q,
            a: ra,
            am,
            b,
            bm,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FSETP.{}{}.{} {}, {}, {}, {}, {}",
            self.cmp.name(),
            m(self.ftz, ".FTZ"),
            self.bop.name(),
            self.p,
            self.q,
            F(Src::Reg(self.a), self.am),
            F(self.b, self.bm),
            self.c
        )
    }
}

impl SassSyntax for Fset {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let bf = a.flag("BF")?;
        let cmp = cmp_mod(a)?;
        let ftz = a.flag("FTZ")?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Fset {
            d,
            cc: cc.is_some(),
            bf,
            cmp,
            ftz,
            bop,
            a: ra,
            am,
            b,
            bm,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FSET{}.{}{}.{} {}{}, {}, {}, {}",
            m(self.bf, ".BF"),
            self.cmp.name(),
            m(self.ftz, ".FTZ"),
            self.bop.name(),
            self.d,
            m(self.cc, ".CC"),
            F(Src::Reg(self.a), self.am),
            F(self.b, self.bm),
            self.c
        )
    }
}

impl SassSyntax for Fcmp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cmp = cmp_mod(a)?;
        let ftz = a.flag("FTZ")?;
        let (d, ra) = (a.reg()?, a.reg()?);
        let (b, _) = fsb(a, FImm::F20, 0)?;
        let loc = a.peek().map(|o| o.atom_loc);
        let (c, _) = fsb(a, FImm::None, 0)?;
        if let (Src::Const(_), false, Some(l)) = (c, matches!(b, Src::Reg(_)), loc) {
            return a.err(l, "FCMP takes a constant Sc only with a register Sb");
        }
        Ok(Fcmp {
            d,
            cmp,
            ftz,
            a: ra,
            b,
            c,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FCMP.{}{} {}, {}, {}, {}",
            self.cmp.name(),
            m(self.ftz, ".FTZ"),
            self.d,
            self.a,
            F(self.b, FMod::NONE),
            self.c
        )
    }
}

impl SassSyntax for Mufu {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let func = a.require(&MufuFn::ALL.map(|(f, _)| (f.name(), f)))?;
        let sat = a.flag("SAT")?;
        let d = a.reg()?;
        let (ra, am) = freg(a, NEG | ABS)?;
        Ok(Mufu {
            d,
            func,
            sat,
            a: ra,
            am,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MUFU.{}{} {}, {}",
            self.func.name(),
            m(self.sat, ".SAT"),
            self.d,
            F(Src::Reg(self.a), self.am)
        )
    }
}

impl SassSyntax for Rro {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let ex2 = a.require(&[("SINCOS", false), ("EX2", true)])?;
        let d = a.reg()?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Rro { d, ex2, b, bm })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RRO.{} {}, {}",
            if self.ex2 { "EX2" } else { "SINCOS" },
            self.d,
            F(self.b, self.bm)
        )
    }
}

impl SassSyntax for Fchk {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        a.require(&[("DIVIDE", ())])?;
        let p = a.pred_dst()?;
        let (ra, am) = freg(a, NEG | ABS)?;
        let (b, bm) = fsb(a, FImm::F20, NEG | ABS)?;
        Ok(Fchk {
            p,
            a: ra,
            am,
            b,
            bm,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FCHK.DIVIDE {}, {}, {}",
            self.p,
            F(Src::Reg(self.a), self.am),
            F(self.b, self.bm)
        )
    }
}
