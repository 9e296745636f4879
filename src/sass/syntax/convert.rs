//! The syntax of the conversions (I2F, F2I, F2F, I2I) and the binary64 instructions (DADD,
//! DMUL, DFMA, DMNMX, DSETP, DSET).
//!
//! Types are written destination first (`I2F.F64.S32`, `F2F.F32.F64`); a missing one is `.F32`
//! for a float and `.S32` for an integer, and both are always printed. Rounding `.RN` and
//! `.ROUND` are the defaults and are not printed. A float source takes `-x` and `|x|`. A
//! float immediate is written as the 32-bit word whose top 20 bits the encoding holds (the
//! binary32 pattern, or the high word of a binary64: `0x3ff00000` is 1.0); its low 12 bits
//! must be 0. A 64-bit register operand is an even register (a pair); a 64-bit constant's
//! offset is a multiple of 8.

use super::*;
use crate::sass::validate::{Flags, ABS, BYTE};

const FLOATS: &[(&str, FloatType)] = &[
    ("F16", FloatType::F16),
    ("F32", FloatType::F32),
    ("F64", FloatType::F64),
];

const fn it(bits: u8, signed: bool) -> IntType {
    IntType { bits, signed }
}

const INTS: &[(&str, IntType)] = &[
    ("U8", it(8, false)),
    ("U16", it(16, false)),
    ("U32", it(32, false)),
    ("U64", it(64, false)),
    ("S8", it(8, true)),
    ("S16", it(16, true)),
    ("S32", it(32, true)),
    ("S64", it(64, true)),
];

const FP_ROUNDS: &[(&str, FpRound)] = &[
    ("RN", FpRound::Rn),
    ("RM", FpRound::Rm),
    ("RP", FpRound::Rp),
    ("RZ", FpRound::Rz),
];

const INT_ROUNDS: &[(&str, IntRound)] = &[
    ("ROUND", IntRound::Round),
    ("FLOOR", IntRound::Floor),
    ("CEIL", IntRound::Ceil),
    ("TRUNC", IntRound::Trunc),
];

const F2F_ROUNDS: &[(&str, F2fRound)] = &[
    ("RN", F2fRound::Fp(FpRound::Rn)),
    ("RM", F2fRound::Fp(FpRound::Rm)),
    ("RP", F2fRound::Fp(FpRound::Rp)),
    ("RZ", F2fRound::Fp(FpRound::Rz)),
    ("ROUND", F2fRound::Int(IntRound::Round)),
    ("FLOOR", F2fRound::Int(IntRound::Floor)),
    ("CEIL", F2fRound::Int(IntRound::Ceil)),
    ("TRUNC", F2fRound::Int(IntRound::Trunc)),
];

fn name_of<T: Copy + PartialEq>(table: &[(&'static str, T)], v: T) -> &'static str {
    table
        .iter()
        .find(|(_, x)| *x == v)
        .map(|(n, _)| *n)
        .unwrap_or("?")
}

fn fname(t: FloatType) -> &'static str {
    name_of(FLOATS, t)
}

fn iname(t: IntType) -> &'static str {
    name_of(INTS, t)
}

/// The printed rounding of a float result (empty for `.RN`).
fn fp_rnd(r: FpRound) -> &'static str {
    match r {
        FpRound::Rn => "",
        FpRound::Rm => ".RM",
        FpRound::Rp => ".RP",
        FpRound::Rz => ".RZ",
    }
}

/// The printed rounding to an integer (empty for `.ROUND`).
fn int_rnd(r: IntRound) -> &'static str {
    match r {
        IntRound::Round => "",
        IntRound::Floor => ".FLOOR",
        IntRound::Ceil => ".CEIL",
        IntRound::Trunc => ".TRUNC",
    }
}

fn dcmp_name(c: FCmp) -> &'static str {
    c.name()
}

/// What an immediate in a source slot is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ImmKind {
    /// No immediate.
    None,
    /// A signed 20-bit integer.
    Int,
    /// The top 20 bits of a float (a 32-bit word whose low 12 bits are 0).
    Float,
}

/// A source of `regs` registers with the prefixes in `allow`, checked: a pair is an even
/// register, a constant pair 8-byte aligned, a float immediate has its low 12 bits clear.
fn wide_src(a: &mut Args<'_>, regs: u8, imm: ImmKind, allow: u8) -> R<(Src, Flags)> {
    let loc = a.peek().map(|o| o.atom_loc).unwrap_or(a.raw().end);
    let rule = match imm {
        ImmKind::None => ImmRule::None,
        ImmKind::Int => ImmRule::S20,
        ImmKind::Float => ImmRule::Any32,
    };
    let (s, f) = a.src(rule, allow)?;
    match s {
        Src::Reg(r) if regs == 2 => a.check_wide(r, 2, loc)?,
        Src::Const(c) if regs == 2 && c.offset % 8 != 0 => {
            return a.err(
                loc,
                "a 64-bit constant operand needs an offset that is a multiple of 8",
            )
        }
        Src::Imm(v) if imm == ImmKind::Float && v & 0xfff != 0 => {
            return a.err(
                loc,
                format!(
                    "a float immediate holds the top 20 bits of the value: {v:#x} has low bits set (write the 32-bit word, e.g. 0x3ff00000 for the binary64 1.0)"
                ),
            )
        }
        _ => {}
    }
    Ok((s, f))
}

/// A conversion's source of a `bits`-bit type with its `-`/`|x|` flags and its byte offset:
/// `.B1`-`.B3` on an 8-bit source, `.H1` on a 16-bit one (integer or binary16).
fn conv_src(a: &mut Args<'_>, regs: u8, imm: ImmKind, bits: u8) -> R<(Src, Flags, u8)> {
    let loc = a.peek().map(|o| o.atom_loc).unwrap_or(a.raw().end);
    let (b, f) = wide_src(a, regs, imm, NEG | ABS | HALF | BYTE)?;
    let sel = match (f.half, f.byte) {
        (Half::None, 0) => 0,
        (Half::None, n) if bits == 8 => n,
        (Half::H0, _) if bits == 16 => 0,
        (Half::H1, _) if bits == 16 => 2,
        (Half::None, _) => return a.err(loc, "a byte select `.B1`-`.B3` needs an 8-bit source"),
        _ => return a.err(loc, "a half select `.H0`/`.H1` needs a 16-bit source"),
    };
    Ok((b, f, sel))
}

/// A conversion's source printed with its byte offset (`R4.B1`, `R4.H1`).
struct Sel(Src, u8, u8);
impl fmt::Display for Sel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Sel(b, sel, bits) = *self;
        write!(f, "{b}")?;
        match (sel, bits) {
            (0, _) => Ok(()),
            (2, 16) => f.write_str(".H1"),
            (n, _) => write!(f, ".B{n}"),
        }
    }
}

/// A register pair operand with the prefixes in `allow`.
fn pair_x(a: &mut Args<'_>, allow: u8) -> R<(Reg, Flags)> {
    let loc = a.peek().map(|o| o.atom_loc).unwrap_or(a.raw().end);
    let (r, f) = a.reg_x(allow)?;
    a.check_wide(r, 2, loc)?;
    Ok((r, f))
}

/// A float type's width in bits.
fn fbits(t: FloatType) -> u8 {
    match t {
        FloatType::F16 => 16,
        FloatType::F32 => 32,
        FloatType::F64 => 64,
    }
}

fn mods(f: Flags) -> FMod {
    FMod {
        neg: f.neg,
        abs: f.abs,
    }
}

/// A source printed with its float modifiers.
struct M<T>(bool, bool, T);
impl<T: fmt::Display> fmt::Display for M<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let M(neg, abs, x) = self;
        if *neg {
            f.write_str("-")?;
        }
        if *abs {
            write!(f, "|{x}|")
        } else {
            write!(f, "{x}")
        }
    }
}

fn mm<T>(m: FMod, x: T) -> M<T> {
    M(m.neg, m.abs, x)
}

/// The float type modifiers in order (destination, source), defaults `.F32`.
fn two_floats(a: &mut Args<'_>) -> R<(FloatType, FloatType)> {
    let found = a.take_all(FLOATS);
    match found.as_slice() {
        [] => Ok((FloatType::F32, FloatType::F32)),
        [(d, _, _)] => Ok((*d, FloatType::F32)),
        [(d, _, _), (s, _, _)] => Ok((*d, *s)),
        [_, _, (_, _, l), ..] => a.err(*l, "F2F takes two float types (destination, source)"),
    }
}

/// The integer type modifiers in order (destination, source), defaults `.S32`.
fn two_ints(a: &mut Args<'_>) -> R<(IntType, IntType)> {
    let found = a.take_all(INTS);
    match found.as_slice() {
        [] => Ok((IntType::S32, IntType::S32)),
        [(d, _, _)] => Ok((*d, IntType::S32)),
        [(d, _, _), (s, _, _)] => Ok((*d, *s)),
        [_, _, (_, _, l), ..] => a.err(*l, "I2I takes two integer types (destination, source)"),
    }
}

impl SassSyntax for I2f {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let dst = a.choice(FLOATS)?.unwrap_or(FloatType::F32);
        let src = a.choice(INTS)?.unwrap_or(IntType::S32);
        let rnd = a.choice(FP_ROUNDS)?.unwrap_or_default();
        let d = a.wide_reg(dst.regs())?;
        let (b, f, sel) = conv_src(a, src.regs(), ImmKind::Int, src.bits)?;
        Ok(I2f {
            d,
            sel,
            dst,
            src,
            rnd,
            neg: f.neg,
            abs: f.abs,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "I2F.{}.{}{} {}, {}",
            fname(self.dst),
            iname(self.src),
            fp_rnd(self.rnd),
            self.d,
            M(self.neg, self.abs, Sel(self.b, self.sel, self.src.bits))
        )
    }
}

impl SassSyntax for F2i {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let dst = a.choice(INTS)?.unwrap_or(IntType::S32);
        let src = a.choice(FLOATS)?.unwrap_or(FloatType::F32);
        let rnd = a.choice(INT_ROUNDS)?.unwrap_or_default();
        let d = a.wide_reg(dst.regs())?;
        let imm = if src == FloatType::F16 {
            ImmKind::None
        } else {
            ImmKind::Float
        };
        let (b, f, sel) = conv_src(a, src.regs(), imm, fbits(src))?;
        Ok(F2i {
            d,
            sel,
            ftz,
            dst,
            src,
            rnd,
            neg: f.neg,
            abs: f.abs,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "F2I{}.{}.{}{} {}, {}",
            m(self.ftz, ".FTZ"),
            iname(self.dst),
            fname(self.src),
            int_rnd(self.rnd),
            self.d,
            M(self.neg, self.abs, Sel(self.b, self.sel, fbits(self.src)))
        )
    }
}

impl SassSyntax for F2f {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let ftz = a.flag("FTZ")?;
        let (dst, src) = two_floats(a)?;
        let rnd_loc = a.raw().mn_loc;
        let rnd = a.choice(F2F_ROUNDS)?.unwrap_or(F2fRound::Fp(FpRound::Rn));
        if matches!(rnd, F2fRound::Int(_)) && dst != src {
            return a.err(
                rnd_loc,
                "F2F rounds to an integral value only within one format (F2F.F32.F32, F2F.F64.F64)",
            );
        }
        let sat = a.flag("SAT")?;
        let d = a.wide_reg(dst.regs())?;
        let imm = if src == FloatType::F16 {
            ImmKind::None
        } else {
            ImmKind::Float
        };
        let (b, f, sel) = conv_src(a, src.regs(), imm, fbits(src))?;
        Ok(F2f {
            d,
            sel,
            ftz,
            sat,
            dst,
            src,
            rnd,
            neg: f.neg,
            abs: f.abs,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = match self.rnd {
            F2fRound::Fp(r) => fp_rnd(r),
            F2fRound::Int(r) => match r {
                IntRound::Round => ".ROUND",
                r => int_rnd(r),
            },
        };
        write!(
            f,
            "F2F{}.{}.{}{}{} {}, {}",
            m(self.ftz, ".FTZ"),
            fname(self.dst),
            fname(self.src),
            r,
            m(self.sat, ".SAT"),
            self.d,
            M(self.neg, self.abs, Sel(self.b, self.sel, fbits(self.src)))
        )
    }
}

impl SassSyntax for I2i {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (dst, src) = two_ints(a)?;
        for (t, what) in [(dst, "destination"), (src, "source")] {
            if t.bits == 64 {
                return a.err(
                    a.raw().mn_loc,
                    format!(
                        "I2I converts 8-, 16- and 32-bit integers: a 64-bit {what} is not valid"
                    ),
                );
            }
        }
        let sat = a.flag("SAT")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        let (b, f, sel) = conv_src(a, 1, ImmKind::Int, src.bits)?;
        Ok(I2i {
            d,
            cc: cc.is_some(),
            sel,
            sat,
            dst,
            src,
            neg: f.neg,
            abs: f.abs,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "I2I.{}.{}{} {}{}, {}",
            iname(self.dst),
            iname(self.src),
            m(self.sat, ".SAT"),
            self.d,
            m(self.cc, ".CC"),
            M(self.neg, self.abs, Sel(self.b, self.sel, self.src.bits))
        )
    }
}

impl SassSyntax for Dadd {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let rnd = a.choice(FP_ROUNDS)?.unwrap_or_default();
        let d = a.wide_reg(2)?;
        let (ra, fa) = pair_x(a, NEG | ABS)?;
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG | ABS)?;
        Ok(Dadd {
            d,
            rnd,
            ma: mods(fa),
            a: ra,
            mb: mods(fb),
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DADD{} {}, {}, {}",
            fp_rnd(self.rnd),
            self.d,
            mm(self.ma, self.a),
            mm(self.mb, self.b)
        )
    }
}

/// Refuses `-` on an immediate (the text folds it into the number).
fn no_neg_imm(a: &Args<'_>, b: Src, neg: bool, loc: SrcLoc) -> R<()> {
    if neg && matches!(b, Src::Imm(_)) {
        return a.err(
            loc,
            "a negated immediate has no spelling here: write the negated value",
        );
    }
    Ok(())
}

impl SassSyntax for Dmul {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let rnd = a.choice(FP_ROUNDS)?.unwrap_or_default();
        let d = a.wide_reg(2)?;
        let (ra, _) = pair_x(a, 0)?;
        let loc = a.peek().map(|o| o.loc).unwrap_or(a.raw().end);
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG)?;
        no_neg_imm(a, b, fb.neg, loc)?;
        Ok(Dmul {
            d,
            rnd,
            neg: fb.neg,
            a: ra,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DMUL{} {}, {}, {}{}",
            fp_rnd(self.rnd),
            self.d,
            self.a,
            m(self.neg, "-"),
            self.b
        )
    }
}

impl SassSyntax for Dfma {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let rnd = a.choice(FP_ROUNDS)?.unwrap_or_default();
        let d = a.wide_reg(2)?;
        let (ra, _) = pair_x(a, 0)?;
        let loc = a.peek().map(|o| o.loc).unwrap_or(a.raw().end);
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG)?;
        no_neg_imm(a, b, fb.neg, loc)?;
        let cloc = a.peek().map(|o| o.loc).unwrap_or(a.raw().end);
        let (c, fc) = wide_src(a, 2, ImmKind::None, NEG)?;
        if matches!(c, Src::Const(_)) && !matches!(b, Src::Reg(_)) {
            return a.err(cloc, "DFMA takes a constant Sc only with a register Sb");
        }
        Ok(Dfma {
            d,
            rnd,
            neg_ab: fb.neg,
            a: ra,
            b,
            neg_c: fc.neg,
            c,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DFMA{} {}, {}, {}{}, {}{}",
            fp_rnd(self.rnd),
            self.d,
            self.a,
            m(self.neg_ab, "-"),
            self.b,
            m(self.neg_c, "-"),
            self.c
        )
    }
}

impl SassSyntax for Dmnmx {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let d = a.wide_reg(2)?;
        let (ra, fa) = pair_x(a, NEG | ABS)?;
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG | ABS)?;
        Ok(Dmnmx {
            d,
            ma: mods(fa),
            a: ra,
            mb: mods(fb),
            b,
            p: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DMNMX {}, {}, {}, {}",
            self.d,
            mm(self.ma, self.a),
            mm(self.mb, self.b),
            self.p
        )
    }
}

fn dcmp_choice(a: &mut Args<'_>) -> R<FCmp> {
    a.require(&FCmp::ALL.map(|c| (c.name(), c)))
}

impl SassSyntax for Dsetp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cmp = dcmp_choice(a)?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let p = a.pred_dst()?;
        let q = a.pred_dst()?;
        let (ra, fa) = pair_x(a, NEG | ABS)?;
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG | ABS)?;
        Ok(Dsetp {
            cmp,
            bop,
            p,
            q,
            ma: mods(fa),
            a: ra,
            mb: mods(fb),
            b,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DSETP.{}.{} {}, {}, {}, {}, {}",
            dcmp_name(self.cmp),
            self.bop.name(),
            self.p,
            self.q,
            mm(self.ma, self.a),
            mm(self.mb, self.b),
            self.c
        )
    }
}

impl SassSyntax for Dset {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cmp = dcmp_choice(a)?;
        let bf = a.flag("BF")?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = pair_x(a, NEG | ABS)?;
        let (b, fb) = wide_src(a, 2, ImmKind::Float, NEG | ABS)?;
        Ok(Dset {
            d,
            cc: cc.is_some(),
            cmp,
            bf,
            bop,
            ma: mods(fa),
            a: ra,
            mb: mods(fb),
            b,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DSET.{}{}.{} {}{}, {}, {}, {}",
            dcmp_name(self.cmp),
            m(self.bf, ".BF"),
            self.bop.name(),
            self.d,
            m(self.cc, ".CC"),
            mm(self.ma, self.a),
            mm(self.mb, self.b),
            self.c
        )
    }
}
