//! The syntax of every op, each defined once: [`SassSyntax`] parses an op struct from a
//! [`RawInst`](super::parser::RawInst) (through [`Args`]) and prints it back as canonical
//! nvdisasm-style text. [`parse_op`] dispatches on the mnemonic by expanding
//! [`for_each_op!`](crate::for_each_op).
//!
//! Modifiers are accepted in any order (except where order is meaning: XMAD's two sign modifiers,
//! PSETP's two boolean operators); printing uses one canonical order and omits defaults.

use std::fmt;

use super::parser::RawKind;
use super::spelling::{Name, Suffix};
use super::validate::{AddrRule, Args, ImmRule, HALF, NEG, NOT};
use super::AsmError;
use crate::ir::*;

/// The text syntax of one op struct.
pub trait SassSyntax: Sized {
    /// Parses the op from its modifiers and operands (the mnemonic is already matched).
    fn parse(a: &mut Args<'_>) -> Result<Self, AsmError>;
    /// Prints the op as SASS text (no guard, no `;`).
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

pub use super::spelling::parse_op;

type R<T> = Result<T, AsmError>;

/// `s` when `on`, else nothing.
fn m(on: bool, s: &str) -> &str {
    if on {
        s
    } else {
        ""
    }
}

/// An immediate printed signed (`-0x7e`).
struct Si(u32);
impl fmt::Display for Si {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_imm(f, self.0)
    }
}

/// An optional leading predicate destination, printed with its comma.
struct OptPred(Option<Pred>);
impl fmt::Display for OptPred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(p) => write!(f, "{p}, "),
            None => Ok(()),
        }
    }
}

fn opt_pred_dst(a: &mut Args<'_>) -> R<Option<Pred>> {
    if a.peek_pred() {
        a.pred_dst().map(Some)
    } else {
        Ok(None)
    }
}

/// `.CC` on the opcode (the destination may carry it instead; see [`Args::dst_cc`]).
fn cc_mod(a: &mut Args<'_>) -> R<Option<SrcLoc>> {
    a.flag_loc("CC")
}

const SIZES: &[(&str, MemSize)] = &[
    ("U8", MemSize::U8),
    ("S8", MemSize::S8),
    ("U16", MemSize::U16),
    ("S16", MemSize::S16),
    ("32", MemSize::B32),
    ("64", MemSize::B64),
    ("128", MemSize::B128),
];
const LOAD_COPS: &[(&str, CacheOp)] = &[
    ("CA", CacheOp::Ca),
    ("CG", CacheOp::Cg),
    ("CS", CacheOp::Cs),
    ("LU", CacheOp::Lu),
    ("CV", CacheOp::Cv),
    ("CI", CacheOp::Ci),
];
const STORE_COPS: &[(&str, CacheOp)] = &[
    ("WB", CacheOp::Wb),
    ("CG", CacheOp::Cg),
    ("CS", CacheOp::Cs),
    ("WT", CacheOp::Wt),
];
const LOP_FNS: &[(&str, LopFn)] = &[
    ("AND", LopFn::And),
    ("OR", LopFn::Or),
    ("XOR", LopFn::Xor),
    ("PASS_B", LopFn::PassB),
];
const POUTS: &[(&str, PredOut)] = &[
    ("Z", PredOut::Z),
    ("NZ", PredOut::Nz),
    ("T", PredOut::T),
    ("F", PredOut::F),
];
const BOPS: &[(&str, BoolOp)] = &[
    ("AND", BoolOp::And),
    ("OR", BoolOp::Or),
    ("XOR", BoolOp::Xor),
];
/// `.U32` / `.S32`, as "is unsigned".
const UNSIGNED: &[(&str, bool)] = &[("U32", true), ("S32", false)];

/// A memory size; with `u128`, `.U.128` (adjacent) is [`MemSize::U128`].
fn mem_size(a: &mut Args<'_>, u128: bool) -> R<MemSize> {
    let pair = if u128 {
        a.take_adjacent("U", "128")
    } else {
        None
    };
    let mut found = a.take_all(SIZES);
    if let Some(loc) = pair {
        found.insert(0, (MemSize::U128, "U.128", loc));
    }
    Ok(Args::one_of(found)?.unwrap_or_default())
}

impl SassSyntax for Mov {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        Ok(Mov {
            d: a.reg()?,
            b: a.src(ImmRule::Any32, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MOV {}, {}", self.d, self.b)
    }
}

impl SassSyntax for Mov32i {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        Ok(Mov32i {
            d: a.reg()?,
            imm: a.imm_x(ImmRule::Any32, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MOV32I {}, {:#x}", self.d, self.imm)
    }
}

impl SassSyntax for S2r {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let d = a.reg()?;
        let (name, loc) = a.name("a special register")?;
        match SpecialReg::ALL.iter().find(|s| s.name() == name) {
            Some(&sr) => Ok(S2r { d, sr }),
            None => {
                let all: Vec<&str> = SpecialReg::ALL.iter().map(|s| s.name()).collect();
                a.err(
                    loc,
                    format!(
                        "unknown special register `{name}` (known: {})",
                        all.join(", ")
                    ),
                )
            }
        }
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S2R {}, {}", self.d, self.sr.name())
    }
}

impl SassSyntax for Iadd {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (po, x, ccm) = (a.flag("PO")?, a.flag("X")?, cc_mod(a)?);
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = a.reg_x(NEG)?;
        let (b, fb) = a.src(ImmRule::S20, NEG)?;
        Ok(Iadd {
            d,
            cc: cc.is_some(),
            x,
            po,
            neg_a: fa.neg,
            a: ra,
            neg_b: fb.neg,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IADD{}{} {}{}, {}{}, {}{}",
            m(self.po, ".PO"),
            m(self.x, ".X"),
            self.d,
            m(self.cc, ".CC"),
            m(self.neg_a, "-"),
            self.a,
            m(self.neg_b, "-"),
            self.b
        )
    }
}

impl SassSyntax for Iadd32i {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (po, x, ccm) = (a.flag("PO")?, a.flag("X")?, cc_mod(a)?);
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = a.reg_x(NEG)?;
        let imm = a.imm_x(ImmRule::Any32, 0)?.0;
        Ok(Iadd32i {
            d,
            cc: cc.is_some(),
            x,
            po,
            neg_a: fa.neg,
            a: ra,
            imm,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IADD32I{}{} {}{}, {}{}, {}",
            m(self.po, ".PO"),
            m(self.x, ".X"),
            self.d,
            m(self.cc, ".CC"),
            m(self.neg_a, "-"),
            self.a,
            Si(self.imm)
        )
    }
}

/// Prints an IADD3 operand: `-R1.H1`.
struct A3<'a, S>(&'a Iadd3Src<S>);
impl<S: fmt::Display> fmt::Display for A3<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", m(self.0.neg, "-"), self.0.src, self.0.half)
    }
}

impl SassSyntax for Iadd3 {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let shift = a.choice(&[("RS", Iadd3Shift::Rs), ("LS", Iadd3Shift::Ls)])?;
        let (x, ccm) = (a.flag("X")?, cc_mod(a)?);
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = a.reg_x(NEG | HALF)?;
        let (b, fb) = a.src(ImmRule::S20, NEG | HALF)?;
        let (c, fc) = a.reg_x(NEG | HALF)?;
        Ok(Iadd3 {
            d,
            cc: cc.is_some(),
            x,
            shift: shift.unwrap_or_default(),
            a: Iadd3Src {
                neg: fa.neg,
                src: ra,
                half: fa.half,
            },
            b: Iadd3Src {
                neg: fb.neg,
                src: b,
                half: fb.half,
            },
            c: Iadd3Src {
                neg: fc.neg,
                src: c,
                half: fc.half,
            },
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shift = self.shift.suffix();
        write!(
            f,
            "IADD3{shift}{} {}{}, {}, {}, {}",
            m(self.x, ".X"),
            self.d,
            m(self.cc, ".CC"),
            A3(&self.a),
            A3(&self.b),
            A3(&self.c)
        )
    }
}

impl SassSyntax for Iscadd {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (po, ccm) = (a.flag("PO")?, cc_mod(a)?);
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = a.reg_x(NEG)?;
        let (b, fb) = a.src(ImmRule::S20, NEG)?;
        let shift = a.imm(0, 31, "shift amount")? as u8;
        Ok(Iscadd {
            d,
            cc: cc.is_some(),
            po,
            neg_a: fa.neg,
            a: ra,
            neg_b: fb.neg,
            b,
            shift,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ISCADD{} {}{}, {}{}, {}{}, {:#x}",
            m(self.po, ".PO"),
            self.d,
            m(self.cc, ".CC"),
            m(self.neg_a, "-"),
            self.a,
            m(self.neg_b, "-"),
            self.b,
            self.shift
        )
    }
}

impl SassSyntax for Xmad {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let signs = a.take_all(&[("S16", true), ("U16", false)]);
        if let Some(&(_, _, l)) = signs.get(2) {
            return a.err(l, "XMAD takes at most two sign modifiers (Ra's, then Sb's)");
        }
        let signed = |i: usize| signs.get(i).is_some_and(|s| s.0);
        let (a_signed, b_signed) = (signed(0), signed(1));
        let (psl, mrg) = (a.flag("PSL")?, a.flag("MRG")?);
        let mode = a.choice(&[
            ("CLO", XmadMode::Clo),
            ("CHI", XmadMode::Chi),
            ("CBCC", XmadMode::Cbcc),
        ])?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        let (ra, fa) = a.reg_x(HALF)?;
        let (b, fb) = a.src(ImmRule::U16, HALF)?;
        let c = a.src(ImmRule::None, 0)?.0;
        Ok(Xmad {
            d,
            cc: cc.is_some(),
            a_signed,
            b_signed,
            psl,
            mrg,
            mode: mode.unwrap_or_default(),
            a: ra,
            a_h1: fa.half == Half::H1,
            b,
            b_h1: fb.half == Half::H1,
            c,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = |s: bool| if s { ".S16" } else { ".U16" };
        f.write_str("XMAD")?;
        if self.a_signed || self.b_signed {
            write!(f, "{}{}", sign(self.a_signed), sign(self.b_signed))?;
        }
        let mode = match self.mode {
            XmadMode::None => "",
            XmadMode::Clo => ".CLO",
            XmadMode::Chi => ".CHI",
            XmadMode::Cbcc => ".CBCC",
        };
        write!(
            f,
            "{}{}{mode} {}{}, {}{}, {}{}, {}",
            m(self.psl, ".PSL"),
            m(self.mrg, ".MRG"),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            m(self.a_h1, ".H1"),
            self.b,
            m(self.b_h1, ".H1"),
            self.c
        )
    }
}

impl SassSyntax for Shl {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let w = a.flag("W")?;
        Ok(Shl {
            w,
            d: a.reg()?,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SHL{} {}, {}, {}",
            m(self.w, ".W"),
            self.d,
            self.a,
            self.b
        )
    }
}

impl SassSyntax for Shr {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let unsigned = a.choice(UNSIGNED)?.unwrap_or(false);
        let (w, brev) = (a.flag("W")?, a.flag("BREV")?);
        Ok(Shr {
            unsigned,
            w,
            brev,
            d: a.reg()?,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SHR{}{}{} {}, {}, {}",
            m(self.unsigned, ".U32"),
            m(self.w, ".W"),
            m(self.brev, ".BREV"),
            self.d,
            self.a,
            self.b
        )
    }
}

impl SassSyntax for Lop {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let func = a.require(LOP_FNS)?;
        let pout = a.choice(POUTS)?.unwrap_or_default();
        let p = opt_pred_dst(a)?;
        let d = a.reg()?;
        let (ra, fa) = a.reg_x(NOT)?;
        let (b, fb) = a.src(ImmRule::S20, NOT)?;
        Ok(Lop {
            func,
            pout,
            p,
            d,
            not_a: fa.not,
            a: ra,
            not_b: fb.not,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LOP.{}{} {}{}, {}{}, {}{}",
            self.func.name(),
            self.pout.suffix(),
            OptPred(self.p),
            self.d,
            m(self.not_a, "~"),
            self.a,
            m(self.not_b, "~"),
            self.b
        )
    }
}

impl SassSyntax for Lop32i {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let func = a.require(LOP_FNS)?;
        let d = a.reg()?;
        let (ra, fa) = a.reg_x(NOT)?;
        let (imm, fb) = a.imm_x(ImmRule::Any32, NOT)?;
        Ok(Lop32i {
            func,
            d,
            not_a: fa.not,
            a: ra,
            not_b: fb.not,
            imm,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LOP32I.{} {}, {}{}, {}{:#x}",
            self.func.name(),
            self.d,
            m(self.not_a, "~"),
            self.a,
            m(self.not_b, "~"),
            self.imm
        )
    }
}

impl SassSyntax for Lop3 {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        a.require(&[("LUT", ())])?;
        let pout = a.choice(POUTS)?.unwrap_or_default();
        let p = opt_pred_dst(a)?;
        let (d, ra) = (a.reg()?, a.reg()?);
        let b = a.src(ImmRule::Any32, 0)?.0;
        let c = a.reg()?;
        let lut = a.imm(0, 0xff, "LUT")? as u8;
        Ok(Lop3 {
            pout,
            p,
            d,
            a: ra,
            b,
            c,
            lut,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LOP3.LUT{} {}{}, {}, {}, {}, {:#x}",
            self.pout.suffix(),
            OptPred(self.p),
            self.d,
            self.a,
            self.b,
            self.c,
            self.lut
        )
    }
}

impl SassSyntax for Bfe {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let signed = !a.choice(UNSIGNED)?.unwrap_or(true);
        let brev = a.flag("BREV")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Bfe {
            d,
            cc: cc.is_some(),
            signed,
            brev,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "BFE{}{} {}{}, {}, {}",
            m(self.signed, ".S32"),
            m(self.brev, ".BREV"),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b
        )
    }
}

impl SassSyntax for Bfi {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        let ra = a.reg()?;
        let b = a.src(ImmRule::S20, 0)?.0;
        Ok(Bfi {
            d,
            cc: cc.is_some(),
            a: ra,
            b,
            c: a.src(ImmRule::None, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "BFI {}{}, {}, {}, {}",
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Sel {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        Ok(Sel {
            d: a.reg()?,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            p: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SEL {}, {}, {}, {}", self.d, self.a, self.b, self.p)
    }
}

impl SassSyntax for Isetp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cmp = a.require(&Cmp::ALL.map(|c| (c.name(), c)))?;
        let unsigned = a.choice(UNSIGNED)?.unwrap_or(false);
        let x = a.flag("X")?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        Ok(Isetp {
            cmp,
            unsigned,
            x,
            bop,
            p: a.pred_dst()?,
            q: a.pred_dst()?,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ISETP.{}{}{}.{} {}, {}, {}, {}, {}",
            self.cmp.name(),
            m(self.unsigned, ".U32"),
            m(self.x, ".X"),
            self.bop.name(),
            self.p,
            self.q,
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Psetp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let bops = a.take_all(BOPS);
        let (bop1, bop2) = match bops.as_slice() {
            [(b1, _, _), (b2, _, _)] => (*b1, *b2),
            [_, _, (_, _, l), ..] => return a.err(*l, "PSETP takes exactly two boolean operators"),
            _ => {
                return a.err(
                    a.raw().mn_loc,
                    "PSETP needs two boolean operators (e.g. PSETP.AND.OR)",
                )
            }
        };
        Ok(Psetp {
            bop1,
            bop2,
            p: a.pred_dst()?,
            q: a.pred_dst()?,
            a: a.pred()?,
            b: a.pred()?,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PSETP.{}.{} {}, {}, {}, {}, {}",
            self.bop1.name(),
            self.bop2.name(),
            self.p,
            self.q,
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for P2r {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let byte = a
            .choice(&[("B0", 0), ("B1", 1), ("B2", 2), ("B3", 3)])?
            .unwrap_or(0);
        let d = a.reg()?;
        let (name, loc) = a.name("`PR` or `CC`")?;
        let src = match name.as_str() {
            "PR" => P2rSrc::Pr,
            "CC" => P2rSrc::Cc,
            _ => return a.err(loc, format!("expected `PR` or `CC`, found `{name}`")),
        };
        Ok(P2r {
            d,
            byte,
            src,
            a: a.reg()?,
            mask: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let byte = [".B0", ".B1", ".B2", ".B3"]
            .get(self.byte as usize)
            .copied()
            .unwrap_or("");
        let src = if self.src == P2rSrc::Pr { "PR" } else { "CC" };
        let byte = if self.byte == 0 { "" } else { byte };
        write!(f, "P2R{byte} {}, {src}, {}, {}", self.d, self.a, self.mask)
    }
}

impl SassSyntax for Imnmx {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let unsigned = a.choice(UNSIGNED)?.unwrap_or(false);
        Ok(Imnmx {
            unsigned,
            d: a.reg()?,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            p: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let u = m(self.unsigned, ".U32");
        write!(f, "IMNMX{u} {}, {}, {}, {}", self.d, self.a, self.b, self.p)
    }
}

impl SassSyntax for Prmt {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (d, ra) = (a.reg()?, a.reg()?);
        let b = a.src(ImmRule::S20, 0)?.0;
        Ok(Prmt {
            d,
            a: ra,
            b,
            c: a.src(ImmRule::None, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PRMT {}, {}, {}, {}", self.d, self.a, self.b, self.c)
    }
}

impl SassSyntax for Lea {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let hi = a.choice(&[("HI", true), ("LO", false)])?.unwrap_or(false);
        let (x, ccm) = (a.flag("X")?, cc_mod(a)?);
        let p = opt_pred_dst(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        if let (Some(_), Some(l)) = (p, cc) {
            return a.err(
                l,
                "LEA writes at most one of CC and Plg: drop `.CC` or the predicate",
            );
        }
        let (ra, fa) = a.reg_x(NEG)?;
        if let Some(o) = a.peek().filter(|o| hi && matches!(o.kind, RawKind::Imm(_))) {
            return a.err(
                o.atom_loc,
                "LEA.HI takes no immediate Sb (only LEA.LO does)",
            );
        }
        let b = a.src(if hi { ImmRule::None } else { ImmRule::S20 }, 0)?.0;
        let c = match a.peek() {
            Some(o) if a.peek_reg() && !hi => {
                return a.err(o.atom_loc, "Rc cannot be specified with LEA.LO");
            }
            Some(_) if a.peek_reg() => a.reg()?,
            _ => Reg::RZ,
        };
        let shift = if a.peek().is_some() {
            a.imm(0, 31, "scale")? as u8
        } else {
            0
        };
        Ok(Lea {
            hi,
            x,
            cc: cc.is_some(),
            p,
            d,
            neg_a: fa.neg,
            a: ra,
            b,
            c,
            shift,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LEA{}{} {}{}{}, {}{}, {}",
            m(self.hi, ".HI"),
            m(self.x, ".X"),
            OptPred(self.p),
            self.d,
            m(self.cc, ".CC"),
            m(self.neg_a, "-"),
            self.a,
            self.b
        )?;
        if self.hi {
            write!(f, ", {}", self.c)?;
        }
        write!(f, ", {:#x}", self.shift)
    }
}

impl SassSyntax for Ldc {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        if let Some(l) = a.flag_loc("INVALID")? {
            return a.err(l, "`.INVALID` is not a valid LDC size");
        }
        let size = a.choice(SIZES)?.unwrap_or_default();
        let modes = [
            ("IA", LdcMode::Ia),
            ("IL", LdcMode::Il),
            ("IS", LdcMode::Is),
            ("ISL", LdcMode::Isl),
        ];
        let mode = a.choice(&modes)?.unwrap_or_default();
        let d = a.wide_reg(size.regs())?;
        let o = a.next("a constant `c[bank][offset]`")?;
        let RawKind::Const { bank, base, off } = o.kind else {
            return a.err(o.atom_loc, "expected a constant `c[bank][offset]`");
        };
        a.flags(o, 0)?;
        let bank = a.bank(bank)?;
        let (v, vl) = off;
        let (ra, imm) = match base.filter(|b| b.0 != 255) {
            Some((r, rl)) => {
                let r = a.check_reg(r, rl)?;
                if !(-0x8000..=0x7fff).contains(&v) {
                    return a.err(
                        vl,
                        format!(
                            "LDC offset {} out of range for ImmS16 [-0x8000, 0x7fff] (with an index register)",
                            super::validate::hex(v)
                        ),
                    );
                }
                (r, v as i32)
            }
            None => {
                if !(-0x8000..=0xffff).contains(&v) {
                    return a.err(
                        vl,
                        format!(
                            "LDC address {} out of range [-0x8000, 0xffff] (without an index register it is an unsigned 16-bit address)",
                            super::validate::hex(v)
                        ),
                    );
                }
                (Reg::RZ, (v & 0xffff) as i32)
            }
        };
        Ok(Ldc {
            d,
            size,
            mode,
            bank,
            a: ra,
            imm,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LDC{}{} {}, c[{:#x}][",
            self.size.suffix(),
            self.mode.suffix(),
            self.d,
            self.bank
        )?;
        match self.imm {
            i if self.a.is_rz() => write!(f, "{:#x}", i as u32)?,
            0 => write!(f, "{}", self.a)?,
            i if i < 0 => write!(f, "{}-{:#x}", self.a, i.unsigned_abs())?,
            i => write!(f, "{}+{i:#x}", self.a)?,
        }
        f.write_str("]")
    }
}

impl SassSyntax for Ldg {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let cop = a.choice(LOAD_COPS)?.unwrap_or_default();
        let size = mem_size(a, true)?;
        let ps = opt_pred_dst(a)?;
        let d = a.wide_reg(size.regs())?;
        let bits = if ps.is_some() { 20 } else { 24 };
        let addr = a.addr(AddrRule {
            bits,
            e,
            abs_reg_ok: true,
        })?;
        Ok(Ldg {
            d,
            e,
            cop,
            size,
            ps,
            addr,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LDG{}{}{} {}{}, {}",
            m(self.e, ".E"),
            self.cop.suffix(),
            self.size.suffix(),
            OptPred(self.ps),
            self.d,
            self.addr
        )
    }
}

impl SassSyntax for Stg {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let cop = a.choice(STORE_COPS)?.unwrap_or_default();
        let size = mem_size(a, true)?;
        let addr = a.addr(AddrRule {
            bits: 24,
            e,
            abs_reg_ok: false,
        })?;
        Ok(Stg {
            e,
            cop,
            size,
            addr,
            v: a.wide_reg(size.regs())?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, c, s) = (m(self.e, ".E"), self.cop.suffix(), self.size.suffix());
        write!(f, "STG{e}{c}{s} {}, {}", self.addr, self.v)
    }
}

/// The optional steering predicate of LD/ST (the last operand; `PT` when omitted).
fn steer(a: &mut Args<'_>) -> R<PredSrc> {
    if a.peek().is_some() {
        a.pred()
    } else {
        Ok(PredSrc::TRUE)
    }
}

/// Prints `, Pg` unless it is `PT`.
struct Steer(PredSrc);
impl fmt::Display for Steer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == PredSrc::TRUE {
            Ok(())
        } else {
            write!(f, ", {}", self.0)
        }
    }
}

impl SassSyntax for Ld {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let cop = a.choice(LOAD_COPS)?.unwrap_or_default();
        let size = mem_size(a, true)?;
        let d = a.wide_reg(size.regs())?;
        let addr = a.addr(AddrRule {
            bits: 24,
            e,
            abs_reg_ok: true,
        })?;
        Ok(Ld {
            d,
            e,
            cop,
            size,
            addr,
            steer: steer(a)?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, c, s) = (m(self.e, ".E"), self.cop.suffix(), self.size.suffix());
        write!(
            f,
            "LD{e}{c}{s} {}, {}{}",
            self.d,
            self.addr,
            Steer(self.steer)
        )
    }
}

impl SassSyntax for St {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let cop = a.choice(STORE_COPS)?.unwrap_or_default();
        let size = mem_size(a, true)?;
        let addr = a.addr(AddrRule {
            bits: 24,
            e,
            abs_reg_ok: false,
        })?;
        let v = a.wide_reg(size.regs())?;
        Ok(St {
            e,
            cop,
            size,
            addr,
            v,
            steer: steer(a)?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (e, c, s) = (m(self.e, ".E"), self.cop.suffix(), self.size.suffix());
        write!(
            f,
            "ST{e}{c}{s} {}, {}{}",
            self.addr,
            self.v,
            Steer(self.steer)
        )
    }
}

/// Shared memory offsets: ImmS24 with a base register, ImmU24 without.
const SHARED: AddrRule = AddrRule {
    bits: 24,
    e: false,
    abs_reg_ok: false,
};

impl SassSyntax for Lds {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let u = a.flag("U")?;
        let size = mem_size(a, false)?;
        Ok(Lds {
            u,
            size,
            d: a.wide_reg(size.regs())?,
            addr: a.addr(SHARED)?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (u, s) = (m(self.u, ".U"), self.size.suffix());
        write!(f, "LDS{u}{s} {}, {}", self.d, self.addr)
    }
}

impl SassSyntax for Sts {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let size = mem_size(a, false)?;
        Ok(Sts {
            size,
            addr: a.addr(SHARED)?,
            v: a.wide_reg(size.regs())?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "STS{} {}, {}", self.size.suffix(), self.addr, self.v)
    }
}

impl SassSyntax for Membar {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let scopes = [
            ("CTA", MembarScope::Cta),
            ("GL", MembarScope::Gl),
            ("SYS", MembarScope::Sys),
        ];
        Ok(Membar {
            scope: a.require(&scopes)?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.scope {
            MembarScope::Cta => "CTA",
            MembarScope::Gl => "GL",
            MembarScope::Sys => "SYS",
        };
        write!(f, "MEMBAR.{s}")
    }
}

impl SassSyntax for Nop {
    fn parse(_: &mut Args<'_>) -> R<Self> {
        Ok(Nop)
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NOP")
    }
}

impl SassSyntax for Depbar {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        Ok(Depbar {
            le: a.flag("LE")?,
            text: a.raw().text.clone(),
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DEPBAR{}", m(self.le, ".LE"))?;
        if !self.text.is_empty() {
            write!(f, " {}", self.text)?;
        }
        Ok(())
    }
}
