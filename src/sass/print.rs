//! SASS text out: the canonical text of an op ([`print_op`]), an instruction ([`print_inst`]) and
//! a whole program ([`print_program`]), each op through its [`SassSyntax`](super::syntax::SassSyntax)
//! print as the spelling table ([`super::spelling`]) dispatches it. An op without a SASS spelling
//! is an [`Unspelled`] error. [`Sass`] is the same as a `Display` adapter.

use std::fmt::{self, Write};

use super::control::{push_mnemonic, wait_mnemonic};
use super::spelling;
use crate::ir::{BlockId, Cond, Inst, Op, Program, Terminator};

/// An op that has no SASS spelling (it came from another front-end).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("op `{0}` has no SASS spelling")]
pub struct Unspelled(pub &'static str);

/// `Display` for the SASS text of an [`Op`] or an [`Inst`] (guard included; no `;`).
/// Formatting fails with [`fmt::Error`] for an op without a SASS spelling (so `to_string`
/// panics): use [`print_op`] or [`print_inst`] to get an [`Unspelled`] error instead.
pub struct Sass<'a, T>(pub &'a T);

impl fmt::Display for Sass<'_, Op> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        spelling::print_op(self.0, f).unwrap_or(Err(fmt::Error))
    }
}

impl fmt::Display for Sass<'_, Inst> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.0.guard, Sass(&self.0.op))
    }
}

/// The canonical SASS text of an op (nvdisasm style, no guard, no `;`); it parses back to the
/// same op.
pub fn print_op(op: &Op) -> Result<String, Unspelled> {
    if spelling::mnemonic(op).is_none() {
        return Err(Unspelled(op.name()));
    }
    Ok(Sass(op).to_string())
}

/// The canonical SASS text of an instruction: guard and op.
pub fn print_inst(i: &Inst) -> Result<String, Unspelled> {
    Ok(format!("{}{}", i.guard, print_op(&i.op)?))
}

/// How a branch names block `id`: its first label, else its pc as an absolute address.
fn target(p: &Program, id: BlockId) -> String {
    match p.blocks.get(id as usize) {
        Some(b) => match b.labels.first() {
            Some(l) => format!("`({l})"),
            None => format!("{:#x}", b.pc),
        },
        None => format!("`(.L_missing_block_{id})"),
    }
}

/// ` CC.EQ`-style suffix of SYNC/EXIT.
fn cc_suffix(c: Cond) -> String {
    c.cc.map(|cc| format!(" {cc}")).unwrap_or_default()
}

/// One line of a printed program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A label definition (`name:`).
    Label(String),
    /// An instruction's text (guard and op, no `;`) and its pc; `None` for a `BRA` the
    /// parser would not have made (an implicit jump to a block other than the next one).
    Inst(Option<u32>, String),
}

/// The lines of [`print_program`]: labels and instructions in program order, each instruction
/// with its pc. Implicit fall-throughs and the implicit final exit are not lines.
pub fn program_lines(p: &Program) -> Result<Vec<Line>, Unspelled> {
    let mut out = Vec::new();
    for (bi, b) in p.blocks.iter().enumerate() {
        out.extend(b.labels.iter().cloned().map(Line::Label));
        for i in &b.insts {
            out.push(Line::Inst(Some(i.pc), print_inst(i)?));
        }
        let (pc, text) = match b.term {
            Terminator::Jump {
                target: t,
                pc: None,
            } if t as usize == bi + 1 => continue,
            Terminator::Jump { target: t, pc } => (pc, format!("BRA {}", target(p, t))),
            Terminator::Branch {
                cond, taken, pc, ..
            } => {
                let cc = cond.cc.map(|c| format!("{c}, ")).unwrap_or_default();
                (
                    Some(pc),
                    format!("{}BRA {cc}{}", cond.guard, target(p, taken)),
                )
            }
            Terminator::Brx {
                cond,
                reg,
                offset,
                table,
                pc,
                ..
            } => {
                // The targets as the note names them: each block's first label, else its pc.
                let names = p
                    .jump_tables
                    .get(table as usize)
                    .map(|t| t.targets.as_slice())
                    .unwrap_or(&[])
                    .iter()
                    .map(|&(tpc, b)| {
                        match p.blocks.get(b as usize).and_then(|b| b.labels.first()) {
                            Some(l) => l.clone(),
                            None => format!("{tpc:#x}"),
                        }
                    });
                let text = super::control::brx_text(cond.cc, reg, offset, names);
                (Some(pc), format!("{}{text}", cond.guard))
            }
            Terminator::Push {
                region,
                target: t,
                pc,
                ..
            } => (
                Some(pc),
                format!("{} {}", push_mnemonic(region), target(p, t)),
            ),
            Terminator::Wait {
                region, cond, pc, ..
            } => (
                Some(pc),
                format!("{}{}{}", cond.guard, wait_mnemonic(region), cc_suffix(cond)),
            ),
            Terminator::Exit { pc: None, .. } => continue,
            Terminator::Exit { cond, pc, .. } => {
                (pc, format!("{}EXIT{}", cond.guard, cc_suffix(cond)))
            }
            Terminator::Barrier {
                id,
                cond,
                red,
                count,
                arrive,
                pc,
                ..
            } => {
                let text = super::control::bar_text(id, red, count, arrive);
                (Some(pc), format!("{}{text}", cond.guard))
            }
        };
        out.push(Line::Inst(pc, text));
    }
    Ok(out)
}

/// Prints a program as SASS text that [`parse_program`](super::parse_program) parses back to an
/// equal program (source locations aside): labels on their own lines, every instruction with its
/// `/*pc*/` address comment, branch targets as labels or absolute addresses. Implicit
/// fall-throughs and the implicit final exit print nothing.
///
/// Programs the parser cannot produce (an implicit jump to a block other than the next one)
/// print as a `BRA` without an address comment. A program holding an op without a SASS spelling
/// is an [`Unspelled`] error.
pub fn print_program(p: &Program) -> Result<String, Unspelled> {
    let mut s = String::new();
    for line in program_lines(p)? {
        let _ = match line {
            Line::Label(l) => writeln!(s, "{l}:"),
            Line::Inst(Some(pc), text) => writeln!(s, "        /*{pc:04x}*/ {text};"),
            Line::Inst(None, text) => writeln!(s, "        {text};"),
        };
    }
    Ok(s)
}
