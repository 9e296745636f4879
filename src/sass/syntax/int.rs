//! The syntax of ISET, PSET, CSETP, R2P, IMUL (and its form IMUL32I) and IMAD.

use super::*;

/// Two boolean operators (`PSET.AND.OR`).
fn two_bops(a: &mut Args<'_>, what: &str) -> R<(BoolOp, BoolOp)> {
    let bops = a.take_all(BOPS);
    match bops.as_slice() {
        [(b1, _, _), (b2, _, _)] => Ok((*b1, *b2)),
        [_, _, (_, _, l), ..] => a.err(*l, format!("{what} takes exactly two boolean operators")),
        _ => a.err(
            a.raw().mn_loc,
            format!("{what} needs two boolean operators (e.g. {what}.AND.OR)"),
        ),
    }
}

impl SassSyntax for Iset {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let bf = a.flag("BF")?;
        let cmp = a.require(&Cmp::ALL.map(|c| (c.name(), c)))?;
        let unsigned = a.choice(UNSIGNED)?.unwrap_or(false);
        let x = a.flag("X")?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Iset {
            d,
            cc: cc.is_some(),
            bf,
            cmp,
            unsigned,
            x,
            bop,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ISET{}.{}{}{}.{} {}{}, {}, {}, {}",
            m(self.bf, ".BF"),
            self.cmp.name(),
            m(self.unsigned, ".U32"),
            m(self.x, ".X"),
            self.bop.name(),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Pset {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let bf = a.flag("BF")?;
        let (bop1, bop2) = two_bops(a, "PSET")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Pset {
            d,
            cc: cc.is_some(),
            bf,
            bop1,
            bop2,
            a: a.pred()?,
            b: a.pred()?,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PSET{}.{}.{} {}{}, {}, {}, {}",
            m(self.bf, ".BF"),
            self.bop1.name(),
            self.bop2.name(),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Csetp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let test = a.require(&CcTest::ALL.map(|t| (t.name(), t)))?;
        let bop = a.choice(BOPS)?.unwrap_or(BoolOp::And);
        let p = a.pred_dst()?;
        let q = a.pred_dst()?;
        let (name, loc) = a.name("`CC`")?;
        if name != "CC" {
            return a.err(loc, format!("expected `CC`, found `{name}`"));
        }
        Ok(Csetp {
            test,
            bop,
            p,
            q,
            c: a.pred()?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "CSETP.{}.{} {}, {}, CC, {}",
            self.test.name(),
            self.bop.name(),
            self.p,
            self.q,
            self.c
        )
    }
}

impl SassSyntax for R2p {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let byte = a
            .choice(&[("B0", 0), ("B1", 1), ("B2", 2), ("B3", 3)])?
            .unwrap_or(0);
        let (name, loc) = a.name("`PR` or `CC`")?;
        let dst = match name.as_str() {
            "PR" => P2rSrc::Pr,
            "CC" => P2rSrc::Cc,
            _ => return a.err(loc, format!("expected `PR` or `CC`, found `{name}`")),
        };
        Ok(R2p {
            byte,
            dst,
            a: a.reg()?,
            mask: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let byte = match self.byte {
            1 => ".B1",
            2 => ".B2",
            3 => ".B3",
            _ => "",
        };
        let dst = if self.dst == P2rSrc::Pr { "PR" } else { "CC" };
        write!(f, "R2P{byte} {dst}, {}, {}", self.a, self.mask)
    }
}

/// IMUL's and IMAD's sign modifiers: none (both unsigned), or Ra's then Sb's.
fn mul_signs(a: &mut Args<'_>, what: &str) -> R<(bool, bool)> {
    let signs = a.take_all(UNSIGNED);
    if let Some(&(_, _, l)) = signs.get(2) {
        return a.err(
            l,
            format!("{what} takes at most two sign modifiers (Ra's, then Sb's)"),
        );
    }
    let signed = |i: usize| signs.get(i).is_some_and(|s| !s.0);
    Ok((signed(0), signed(1)))
}

/// `.U32.S32` and the like: both signs, always printed.
fn signs_text(a_signed: bool, b_signed: bool) -> String {
    let s = |x: bool| if x { ".S32" } else { ".U32" };
    format!("{}{}", s(a_signed), s(b_signed))
}

impl SassSyntax for Imul {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (a_signed, b_signed) = mul_signs(a, "IMUL")?;
        let hi = a.flag("HI")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Imul {
            d,
            cc: cc.is_some(),
            hi,
            a_signed,
            b_signed,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IMUL{}{} {}{}, {}, {}",
            signs_text(self.a_signed, self.b_signed),
            m(self.hi, ".HI"),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b
        )
    }
}

impl SassImm32Form for Imul {
    fn parse_imm32(a: &mut Args<'_>) -> R<Self> {
        let (a_signed, b_signed) = mul_signs(a, "IMUL32I")?;
        let hi = a.flag("HI")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Imul {
            d,
            cc: cc.is_some(),
            hi,
            a_signed,
            b_signed,
            a: a.reg()?,
            b: Src::Imm32(a.imm_x(ImmRule::Any32, 0)?.0),
        })
    }
    fn is_imm32(&self) -> bool {
        matches!(self.b, Src::Imm32(_))
    }
    fn print_imm32(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IMUL32I{}{} {}{}, {}, {:#x}",
            signs_text(self.a_signed, self.b_signed),
            m(self.hi, ".HI"),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            imm32(self.b)
        )
    }
}

impl SassSyntax for Imad {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (a_signed, b_signed) = mul_signs(a, "IMAD")?;
        let hi = a.flag("HI")?;
        let x = a.flag("X")?;
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Imad {
            d,
            cc: cc.is_some(),
            x,
            hi,
            a_signed,
            b_signed,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            c: a.src(ImmRule::None, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IMAD{}{}{} {}{}, {}, {}, {}",
            signs_text(self.a_signed, self.b_signed),
            m(self.hi, ".HI"),
            m(self.x, ".X"),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Imadsp {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let table: Vec<(&'static str, SpPart)> =
            SpPart::ALL.iter().map(|&p| (p.name(), p)).collect();
        let parts = a.take_all(&table);
        let [(pa, _, _), (pb, _, lb), (pc, _, lc)] = parts[..] else {
            return a.err(
                a.raw().mn_loc,
                "IMADSP needs three part modifiers (Ra's, Sb's, Rc's), e.g. `IMADSP.S24.S24.S32`",
            );
        };
        if !matches!(
            pb,
            SpPart::U24 | SpPart::S24 | SpPart::U16H0 | SpPart::S16H0
        ) {
            return a.err(lb, "IMADSP's Sb part is one of .U24 .S24 .U16H0 .S16H0");
        }
        if matches!(pc, SpPart::U16H1 | SpPart::S16H1) {
            return a.err(
                lc,
                "IMADSP's Rc part is one of .U32 .S32 .U24 .S24 .U16H0 .S16H0",
            );
        }
        if pc.signed() != pa.signed() {
            return a.err(
                lc,
                "IMADSP's Rc part takes Ra's sign (the encoding has one sign bit for both)",
            );
        }
        let ccm = cc_mod(a)?;
        let (d, cc) = a.dst_cc(ccm)?;
        Ok(Imadsp {
            d,
            cc: cc.is_some(),
            pa,
            pb,
            pc,
            a: a.reg()?,
            b: a.src(ImmRule::S20, 0)?.0,
            c: a.src(ImmRule::None, 0)?.0,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "IMADSP.{}.{}.{} {}{}, {}, {}, {}",
            self.pa.name(),
            self.pb.name(),
            self.pc.name(),
            self.d,
            m(self.cc, ".CC"),
            self.a,
            self.b,
            self.c
        )
    }
}
