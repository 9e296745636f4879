//! Control instructions: BRA, BRX, SSY, SYNC, PBK, BRK, PCNT, CONT, CAL, RET, EXIT, BAR.SYNC.
//! They end blocks (see
//! [`Terminator`](crate::ir::Terminator)); here they are parsed and printed as written, with
//! symbolic or absolute targets that the private `program` resolves.

use std::fmt;

use super::parser::RawKind;
use super::validate::Args;
use super::AsmError;
pub use crate::ir::build::{Control, ControlKind, Target};
use crate::ir::{BarRed, BarRedOp, CcTest, Reg, Region, SrcLoc};

/// `BAR.RED`'s reductions by modifier.
const BAR_RED_OPS: &[(&str, BarRedOp)] = &[
    ("POPC", BarRedOp::Popc),
    ("AND", BarRedOp::And),
    ("OR", BarRedOp::Or),
];

/// The text of a barrier instruction (no guard): `BAR.SYNC 0x1`, `BAR.SYNC 0x1, 0x40`,
/// `BAR.ARV 0x1, 0x40`, `BAR.RED.POPC 0x0, P0`.
pub fn bar_text(id: u8, red: Option<BarRed>, count: u32, arrive: bool) -> String {
    let n = if count != 0 {
        format!(", {count:#x}")
    } else {
        String::new()
    };
    match red {
        None if arrive => format!("BAR.ARV {id:#x}{n}"),
        None => format!("BAR.SYNC {id:#x}{n}"),
        Some(r) => format!("BAR.RED.{} {id:#x}{n}, {}", bar_red_name(r.op), r.pred),
    }
}

/// The modifier of a `BAR.RED` reduction.
pub fn bar_red_name(op: BarRedOp) -> &'static str {
    BAR_RED_OPS
        .iter()
        .find(|(_, o)| *o == op)
        .map_or("POPC", |(n, _)| n)
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Label(l) => write!(f, "`({l})"),
            Target::Addr(a) => write!(f, "{a:#x}"),
        }
    }
}

/// The text of a BRX without its guard: `BRX R4 -0xd0 (*"BRANCH_TARGETS .L_x_1,.L_x_2"*)`, as
/// nvdisasm prints it (the offset after the register without a comma), with each target as
/// `target` names it.
pub fn brx_text<T: fmt::Display>(
    cc: Option<CcTest>,
    reg: Reg,
    offset: i32,
    targets: impl IntoIterator<Item = T>,
) -> String {
    let names: Vec<String> = targets.into_iter().map(|t| t.to_string()).collect();
    let off = if offset < 0 {
        format!("-{:#x}", offset.unsigned_abs())
    } else {
        format!("{offset:#x}")
    };
    format!(
        "BRX {}{reg} {off} (*\"BRANCH_TARGETS {}\"*)",
        cc_text(cc, ", "),
        names.join(",")
    )
}

/// A target as a BRX's note names it: a label bare (`.L_x_1`), an address in hex.
pub struct NoteTarget<'a>(pub &'a Target);

impl fmt::Display for NoteTarget<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Target::Label(l) => f.write_str(l),
            Target::Addr(a) => write!(f, "{a:#x}"),
        }
    }
}

/// The SASS mnemonic that pushes an entry of `region`: `SSY`, `PBK`, `PCNT`, `CAL`.
pub fn push_mnemonic(region: Region) -> &'static str {
    match region {
        Region::Sync => "SSY",
        Region::Break => "PBK",
        Region::Continue => "PCNT",
        Region::Call => "CAL",
    }
}

/// The SASS mnemonic that waits at an entry of `region`: `SYNC`, `BRK`, `CONT`, `RET`.
pub fn wait_mnemonic(region: Region) -> &'static str {
    match region {
        Region::Sync => "SYNC",
        Region::Break => "BRK",
        Region::Continue => "CONT",
        Region::Call => "RET",
    }
}

/// ` CC.EQ` / ` CC.NE` / nothing, with a separator after it when `sep`.
fn cc_text(cc: Option<CcTest>, sep: &str) -> String {
    cc.map(|c| format!("{c}{sep}")).unwrap_or_default()
}

impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.guard)?;
        match &self.kind {
            ControlKind::Bra { cc, target } => write!(f, "BRA {}{target}", cc_text(*cc, ", ")),
            ControlKind::Brx {
                cc,
                reg,
                offset,
                targets,
            } => f.write_str(&brx_text(
                *cc,
                *reg,
                *offset,
                targets.iter().map(NoteTarget),
            )),
            ControlKind::Push { region, target } => {
                write!(f, "{} {target}", push_mnemonic(*region))
            }
            ControlKind::Wait { region, cc } => write!(
                f,
                "{}{}",
                wait_mnemonic(*region),
                cc.map(|c| format!(" {c}")).unwrap_or_default()
            ),
            ControlKind::Exit { cc } => {
                write!(f, "EXIT{}", cc.map(|c| format!(" {c}")).unwrap_or_default())
            }
            ControlKind::Bar {
                id,
                red,
                count,
                arrive,
            } => f.write_str(&bar_text(*id, *red, *count, *arrive)),
        }
    }
}

/// An optional leading `CC.EQ` / `CC.NE` operand.
fn cc_test(a: &mut Args<'_>) -> Result<Option<CcTest>, AsmError> {
    if !matches!(a.peek().map(|o| &o.kind), Some(RawKind::Name(n)) if n == "CC") {
        return Ok(None);
    }
    let (name, loc) = a.name("a condition")?;
    match CcTest::ALL.iter().find(|t| t.to_string() == name) {
        Some(&t) => Ok(Some(t)),
        None => a.err(
            loc,
            format!("unsupported condition `{name}` (CC.EQ, CC.NE, CC.LTU, ... CC.OFT)"),
        ),
    }
}

/// A branch target and where it is written.
fn target(a: &mut Args<'_>) -> Result<(Target, SrcLoc), AsmError> {
    let o = a.next("a branch target")?;
    let joined = |s: &str| {
        let mut s = s.to_string();
        for (x, _) in &o.sfx {
            s.push('.');
            s.push_str(x);
        }
        s
    };
    let plain = o.neg.is_none() && o.not.is_none() && o.bang.is_none();
    let t = match &o.kind {
        RawKind::Label(s) | RawKind::Name(s) if plain => Target::Label(joined(s)),
        RawKind::Imm(v) if plain && o.sfx.is_empty() && (0..=0xffff_ffff).contains(v) => {
            Target::Addr(*v as u32)
        }
        RawKind::Imm(v) if plain && o.sfx.is_empty() => {
            return a.err(
                o.atom_loc,
                format!("branch address {} out of range", super::validate::hex(*v)),
            )
        }
        _ => return a.err(o.loc, "expected a branch target (a label or an address)"),
    };
    Ok((t, o.loc))
}

/// A BRX's targets from its note (`BRANCH_TARGETS .L_x_1,.L_x_2` or addresses): at least one.
fn brx_targets(a: &Args<'_>) -> Result<Vec<Target>, AsmError> {
    let raw = a.raw();
    let example =
        "write them as nvdisasm prints them: `BRX R4 -0xd0 (*\"BRANCH_TARGETS .L_x_1,.L_x_2\"*)`";
    let Some((note, loc)) = &raw.note else {
        return Err(
            AsmError::at(raw.mn_loc, "BRX needs the targets it may go to")
                .note(crate::diag::Note::info(example)),
        );
    };
    let loc = *loc;
    if note.trim() == "INDIRECT_CALL" {
        return a.err(
            loc,
            "an indirect call (a BRX after PRET, through a function pointer) is not supported",
        );
    }
    let Some(list) = note.trim().strip_prefix("BRANCH_TARGETS") else {
        return Err(AsmError::at(loc, format!("unknown BRX note `{note}`"))
            .note(crate::diag::Note::info(example)));
    };
    let mut out = Vec::new();
    for t in list.split(',').map(str::trim) {
        let bad = || {
            AsmError::at(
                loc,
                format!("malformed branch target `{t}` in the BRX note"),
            )
        };
        let first = t.chars().next().ok_or_else(bad)?;
        if first.is_ascii_digit() {
            let v = super::lexer::number(t, loc)?;
            let a = u32::try_from(v).map_err(|_| bad())?;
            out.push(Target::Addr(a));
        } else if t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
        {
            out.push(Target::Label(t.to_string()));
        } else {
            return Err(bad());
        }
    }
    Ok(out)
}

/// The mnemonics [`parse_control`] knows.
pub const MNEMONICS: &[&str] = &[
    "BRA", "BRX", "SSY", "SYNC", "PBK", "BRK", "PCNT", "CONT", "CAL", "RET", "EXIT", "BAR",
];

/// Parses a control instruction by mnemonic; `None` if the mnemonic is not one. Returns the
/// instruction and, for branches, where the target is written.
pub fn parse_control(a: &mut Args<'_>) -> Option<Result<(ControlKind, Option<SrcLoc>), AsmError>> {
    let raw = a.raw();
    let r = (|| {
        let mut tloc = None;
        let m = raw.mnemonic.as_str();
        let push = Region::ALL.into_iter().find(|&r| push_mnemonic(r) == m);
        let wait = Region::ALL.into_iter().find(|&r| wait_mnemonic(r) == m);
        let kind = match m {
            "BRA" => {
                a.flag("U")?;
                let cc = cc_test(a)?;
                let (target, l) = target(a)?;
                tloc = Some(l);
                ControlKind::Bra { cc, target }
            }
            "BRX" => {
                let cc = cc_test(a)?;
                let reg = a.reg()?;
                let offset = a.imm(-0x80_0000, 0x7f_ffff, "offset")? as i32;
                let targets = brx_targets(a)?;
                tloc = raw.note.as_ref().map(|n| n.1);
                ControlKind::Brx {
                    cc,
                    reg,
                    offset,
                    targets,
                }
            }
            _ if push.is_some() => {
                if let Some(l) = raw.guard_loc {
                    return a.err(l, format!("{m} cannot be guarded"));
                }
                let (target, l) = target(a)?;
                tloc = Some(l);
                ControlKind::Push {
                    region: push.unwrap_or(Region::Sync),
                    target,
                }
            }
            _ if wait.is_some() => ControlKind::Wait {
                region: wait.unwrap_or(Region::Sync),
                cc: cc_test(a)?,
            },
            "EXIT" => ControlKind::Exit { cc: cc_test(a)? },
            "BAR" => {
                let count = |a: &mut Args<'_>| a.imm(0, 0xfff, "thread count").map(|v| v as u32);
                if a.flag("RED")? {
                    let op = a.require(BAR_RED_OPS)?;
                    let id = a.imm(0, 15, "barrier id")? as u8;
                    let n = if a.peek_pred() { 0 } else { count(a)? };
                    let pred = a.pred()?;
                    ControlKind::Bar {
                        id,
                        red: Some(BarRed { op, pred }),
                        count: n,
                        arrive: false,
                    }
                } else {
                    let arrive = a.require(&[("SYNC", false), ("ARV", true)])?;
                    let id = if a.peek().is_some() || arrive {
                        a.imm(0, 15, "barrier id")? as u8
                    } else {
                        0
                    };
                    let n = if a.peek().is_some() || arrive {
                        count(a)?
                    } else {
                        0
                    };
                    if arrive && n == 0 {
                        return a.err(raw.mn_loc, "BAR.ARV needs a thread count other than 0");
                    }
                    ControlKind::Bar {
                        id,
                        red: None,
                        count: n,
                        arrive,
                    }
                }
            }
            _ => return Ok(None),
        };
        a.done()?;
        Ok(Some((kind, tloc)))
    })();
    r.transpose()
}
