//! The syntax of the atomics (ATOM, RED, ATOMS) and warp ops (SHFL, VOTE).

use super::*;
use crate::sass::parser::RawOperand;

const ATOM_OPS: &[(&str, AtomOp)] = &[
    ("ADD", AtomOp::Add),
    ("MIN", AtomOp::Min),
    ("MAX", AtomOp::Max),
    ("INC", AtomOp::Inc),
    ("DEC", AtomOp::Dec),
    ("AND", AtomOp::And),
    ("OR", AtomOp::Or),
    ("XOR", AtomOp::Xor),
    ("EXCH", AtomOp::Exch),
    ("CAS", AtomOp::Cas),
];

const ATOM_TYPES: &[(&str, AtomType)] = &[
    ("U32", AtomType::U32),
    ("S32", AtomType::S32),
    ("U64", AtomType::U64),
    ("64", AtomType::U64),
    ("S64", AtomType::S64),
    ("F32", AtomType::F32),
];

impl Name for AtomOp {
    fn name(self) -> &'static str {
        ATOM_OPS
            .iter()
            .find(|(_, o)| *o == self)
            .map_or("", |(n, _)| n)
    }
}

/// The type's modifiers as printed (U32, the default, prints nothing; a 64-bit CAS is `.64`).
fn type_suffix(op: AtomOp, ty: AtomType) -> &'static str {
    match ty {
        AtomType::U32 => "",
        AtomType::S32 => ".S32",
        AtomType::U64 if op == AtomOp::Cas => ".64",
        AtomType::U64 => ".U64",
        AtomType::S64 => ".S64",
        AtomType::F32 => ".F32.FTZ.RN",
    }
}

/// The operation and type modifiers, checked together; `ops` are the operations allowed.
fn op_type(a: &mut Args<'_>, ops: &[(&'static str, AtomOp)]) -> R<(AtomOp, AtomType)> {
    let op = a.require(ops)?;
    let ty = a.choice(ATOM_TYPES)?.unwrap_or_default();
    let ftz = a.flag_loc("FTZ")?;
    let rn = a.flag_loc("RN")?;
    let mn = a.raw().mn_loc;
    if ty == AtomType::F32 {
        if ftz.is_none() || rn.is_none() {
            return a.err(mn, "`.F32` atomics are written `.F32.FTZ.RN`");
        }
    } else if let Some(l) = ftz.or(rn) {
        return a.err(l, "`.FTZ` and `.RN` go only with `.F32`");
    }
    if !ty.valid_with(op) {
        return a.err(
            mn,
            format!(
                "`.{}` is not defined on `{}` (`.F32` only adds; `.INC` and `.DEC` are `.U32` only; `.CAS` is 32- or 64-bit)",
                op.name(),
                match type_suffix(op, ty) {
                    "" => ".U32",
                    s => s,
                }
            ),
        );
    }
    Ok((op, ty))
}

/// The CAS swap register: written after the compare register, it must be the next one (pair).
fn cas_operand(a: &mut Args<'_>, op: AtomOp, ty: AtomType, b: Reg) -> R<()> {
    if op != AtomOp::Cas {
        return Ok(());
    }
    let loc = a.peek().map(|o: &RawOperand| o.loc);
    let c = a.wide_reg(ty.regs())?;
    let want = cas_swap(b, ty);
    if c != want {
        let loc = loc.unwrap_or(a.raw().end);
        return a.err(
            loc,
            format!(
                "the CAS swap operand must be {want}, the register after the compare operand {b}"
            ),
        );
    }
    Ok(())
}

fn print_cas(f: &mut fmt::Formatter<'_>, op: AtomOp, ty: AtomType, b: Reg) -> fmt::Result {
    if op == AtomOp::Cas {
        write!(f, ", {}", cas_swap(b, ty))?;
    }
    Ok(())
}

impl SassSyntax for Atomg {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let (op, ty) = op_type(a, ATOM_OPS)?;
        let d = a.wide_reg(ty.regs())?;
        let addr = a.addr(AddrRule {
            bits: 20,
            e,
            abs_reg_ok: false,
        })?;
        let b = a.wide_reg(ty.regs())?;
        cas_operand(a, op, ty, b)?;
        Ok(Atomg {
            d,
            e,
            op,
            ty,
            addr,
            b,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ATOM{}.{}{} {}, {}, {}",
            m(self.e, ".E"),
            self.op.name(),
            type_suffix(self.op, self.ty),
            self.d,
            self.addr,
            self.b
        )?;
        print_cas(f, self.op, self.ty, self.b)
    }
}

impl SassSyntax for Red {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let e = a.flag("E")?;
        let (op, ty) = op_type(a, &ATOM_OPS[..8])?;
        let addr = a.addr(AddrRule {
            bits: 20,
            e,
            abs_reg_ok: false,
        })?;
        let b = a.wide_reg(ty.regs())?;
        Ok(Red { e, op, ty, addr, b })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RED{}.{}{} {}, {}",
            m(self.e, ".E"),
            self.op.name(),
            type_suffix(self.op, self.ty),
            self.addr,
            self.b
        )
    }
}

impl SassSyntax for Atoms {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let (op, ty) = op_type(a, ATOM_OPS)?;
        if ty == AtomType::F32 {
            return a.err(a.raw().mn_loc, "ATOMS has no `.F32` form");
        }
        let d = a.wide_reg(ty.regs())?;
        let loc = a.peek().map(|o: &RawOperand| o.atom_loc);
        let addr = a.addr(AddrRule {
            bits: 24,
            e: false,
            abs_reg_ok: false,
        })?;
        if addr.offset % 4 != 0 {
            let loc = loc.unwrap_or(a.raw().end);
            return a.err(loc, "the ATOMS offset must be a multiple of 4");
        }
        let b = a.wide_reg(ty.regs())?;
        cas_operand(a, op, ty, b)?;
        Ok(Atoms { d, op, ty, addr, b })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ATOMS.{}{} {}, {}, {}",
            self.op.name(),
            type_suffix(self.op, self.ty),
            self.d,
            self.addr,
            self.b
        )?;
        print_cas(f, self.op, self.ty, self.b)
    }
}

const SHFL_MODES: &[(&str, ShflMode)] = &[
    ("IDX", ShflMode::Idx),
    ("UP", ShflMode::Up),
    ("DOWN", ShflMode::Down),
    ("BFLY", ShflMode::Bfly),
];

impl Name for ShflMode {
    fn name(self) -> &'static str {
        SHFL_MODES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("", |(n, _)| n)
    }
}

/// A register, or an immediate in [0, max].
fn reg_imm(a: &mut Args<'_>, max: i64, what: &str) -> R<RegImm> {
    if a.peek_reg() {
        Ok(RegImm::Reg(a.reg()?))
    } else {
        Ok(RegImm::Imm(a.imm(0, max, what)? as u32))
    }
}

impl fmt::Display for RegImm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegImm::Reg(r) => write!(f, "{r}"),
            RegImm::Imm(v) => write!(f, "{v:#x}"),
        }
    }
}

impl SassSyntax for Shfl {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let mode = a.require(SHFL_MODES)?;
        let p = a.pred_dst()?;
        let d = a.reg()?;
        let ra = a.reg()?;
        let b = reg_imm(a, 0x1f, "a lane operand")?;
        let c = reg_imm(a, 0x1fff, "a clamp and segment mask operand")?;
        Ok(Shfl {
            mode,
            p,
            d,
            a: ra,
            b,
            c,
        })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SHFL.{} {}, {}, {}, {}, {}",
            self.mode.name(),
            self.p,
            self.d,
            self.a,
            self.b,
            self.c
        )
    }
}

impl SassSyntax for Cs2r {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let d = a.reg()?;
        let (name, loc) = a.name("a special register")?;
        match name.as_str() {
            "SR_CLOCKLO" => Ok(Cs2r { d, hi: false }),
            "SR_CLOCKHI" => Ok(Cs2r { d, hi: true }),
            _ => a.err(
                loc,
                format!("CS2R reads only SR_CLOCKLO and SR_CLOCKHI, not `{name}`"),
            ),
        }
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sr = if self.hi { "SR_CLOCKHI" } else { "SR_CLOCKLO" };
        write!(f, "CS2R {}, {sr}", self.d)
    }
}

const VOTE_MODES: &[(&str, VoteMode)] = &[
    ("ALL", VoteMode::All),
    ("ANY", VoteMode::Any),
    ("EQ", VoteMode::Eq),
];

impl Name for VoteMode {
    fn name(self) -> &'static str {
        VOTE_MODES
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("", |(n, _)| n)
    }
}

impl SassSyntax for Vote {
    fn parse(a: &mut Args<'_>) -> R<Self> {
        let mode = a.require(VOTE_MODES)?;
        let d = a.reg()?;
        let p = a.pred_dst()?;
        let pa = a.pred()?;
        Ok(Vote { mode, d, p, a: pa })
    }
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "VOTE.{} {}, {}, {}",
            self.mode.name(),
            self.d,
            self.p,
            self.a
        )
    }
}
