//! The syntax of the memory and barrier ops (LDC, LDG, STG, LD, ST, LDS, STS, LDL, STL, MEMBAR,
//! NOP, DEPBAR).

use super::*;

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
                            crate::sass::validate::hex(v)
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
                            crate::sass::validate::hex(v)
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

/// Shared (and local) memory offsets: ImmS24 with a base register, ImmU24 without.
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

impl SassSyntax for Ldl {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cop = a.choice(LDL_COPS)?.unwrap_or_default();
        let size = mem_size(a, false)?;
        Ok(Ldl {
            cop,
            size,
            d: a.wide_reg(size.regs())?,
            addr: a.addr(SHARED)?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (c, s) = (self.cop.suffix(), self.size.suffix());
        write!(f, "LDL{c}{s} {}, {}", self.d, self.addr)
    }
}

impl SassSyntax for Stl {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let cop = a.choice(STL_COPS)?.unwrap_or_default();
        let size = mem_size(a, false)?;
        Ok(Stl {
            cop,
            size,
            addr: a.addr(SHARED)?,
            v: a.wide_reg(size.regs())?,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (c, s) = (self.cop.suffix(), self.size.suffix());
        write!(f, "STL{c}{s} {}, {}", self.addr, self.v)
    }
}

/// `MEMBAR.{CTA|GL|SYS|VC}[.IVALLD|.IVALLT|.IVALLTD]`, as nvdisasm prints it (`MEMBAR.GL.IVALLD`
/// for what ptxas writes for `membar.gl`).
impl SassSyntax for Membar {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let scopes = MembarScope::ALL.map(|s| (s.name(), s));
        let invals = [MembarInval::D, MembarInval::T, MembarInval::Td].map(|i| (i.name(), i));
        Ok(Membar {
            scope: a.require(&scopes)?,
            inval: a.choice(&invals)?.unwrap_or(MembarInval::None),
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MEMBAR.{}", self.scope.name())?;
        match self.inval {
            MembarInval::None => Ok(()),
            i => write!(f, ".{}", i.name()),
        }
    }
}

impl SassSyntax for Bpt {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        a.require(&[("TRAP", ())])?;
        let code = a.imm(0, 0xf_ffff, "the trap code")? as u32;
        Ok(Bpt { code })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BPT.TRAP {:#x}", self.code)
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
        let le = a.flag("LE")?;
        let raw = a.raw();
        let bad = |why: &str| {
            AsmError::at(
                raw.mn_loc,
                format!(
                    "{why} in `DEPBAR {}` (expected `SBn, count`, `{{a, b, ...}}` or both; \
                     scoreboards 0 to 5, count 0 to 0x3f)",
                    raw.text
                ),
            )
        };
        let (threshold, waits) = depbar_operands(&raw.text).map_err(bad)?;
        Ok(Depbar {
            le,
            threshold,
            waits,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DEPBAR{}", m(self.le, ".LE"))?;
        let mut sep = " ";
        if let Some((sb, count)) = self.threshold {
            write!(f, " SB{sb}, {count:#x}")?;
            sep = ", ";
        }
        if self.waits != 0 {
            let list: Vec<String> = (0..6u8)
                .rev()
                .filter(|i| self.waits >> i & 1 != 0)
                .map(|i| i.to_string())
                .collect();
            write!(f, "{sep}{{{}}}", list.join(", "))?;
        }
        Ok(())
    }
}

/// DEPBAR's operands: the `SBn, count` threshold and the mask of scoreboards listed in braces.
type DepbarOperands = (Option<(u8, u8)>, u8);

/// [`DepbarOperands`] from DEPBAR's normalised operand text (`SB0, 0x0, {1, 0}`), or what is
/// wrong with it.
fn depbar_operands(text: &str) -> Result<DepbarOperands, &'static str> {
    let number = |t: &str| -> Option<u32> {
        let t = t.trim();
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(h) => u32::from_str_radix(h, 16).ok(),
            None => t.parse().ok(),
        }
    };
    let mut rest = text.trim();
    let mut threshold = None;
    if let Some(r) = rest.strip_prefix("SB") {
        let (sb, r) = r.split_once(',').ok_or("no count after the scoreboard")?;
        let sb = number(sb).filter(|n| *n < 6).ok_or("a bad scoreboard")?;
        let (count, r) = match r.find(',') {
            Some(i) => (&r[..i], &r[i + 1..]),
            None => (r, ""),
        };
        let count = number(count).filter(|n| *n < 0x40).ok_or("a bad count")?;
        threshold = Some((sb as u8, count as u8));
        rest = r.trim();
    }
    let mut waits = 0u8;
    if !rest.is_empty() {
        let list = rest
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .ok_or("unexpected text")?;
        for item in list.split(',') {
            let i = number(item)
                .filter(|n| *n < 6)
                .ok_or("a bad scoreboard in braces")?;
            if waits >> i & 1 != 0 {
                return Err("a scoreboard listed twice");
            }
            waits |= 1 << i;
        }
    }
    Ok((threshold, waits))
}
