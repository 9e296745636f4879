//! SASS text out: `Display` for [`Op`] (the canonical text of an op, dispatched through
//! [`for_each_op!`](crate::for_each_op) to each op's [`SassSyntax::print`]) and [`print_program`].

use std::fmt::{self, Write};

use super::syntax::SassSyntax;
use crate::ir::{BlockId, Cond, Op, Program, Terminator};

macro_rules! display_op {
    ($($v:ident($s:ident) $name:literal,)*) => {
        impl fmt::Display for Op {
            /// The canonical SASS text of the op (nvdisasm style, no guard, no `;`); it parses
            /// back to the same op.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Op::$v(x) => SassSyntax::print(x, f),)*
                }
            }
        }
    };
}
crate::for_each_op!(display_op);

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

/// Prints a program as SASS text that [`parse_program`](super::parse_program) parses back to an
/// equal program (source locations aside): labels on their own lines, every instruction with its
/// `/*pc*/` address comment, branch targets as labels or absolute addresses. Implicit
/// fall-throughs and the implicit final exit print nothing.
///
/// Programs the parser cannot produce (an implicit jump to a block other than the next one)
/// print as a `BRA` without an address comment.
pub fn print_program(p: &Program) -> String {
    let mut s = String::new();
    for (bi, b) in p.blocks.iter().enumerate() {
        for l in &b.labels {
            let _ = writeln!(s, "{l}:");
        }
        for i in &b.insts {
            let _ = writeln!(s, "        /*{:04x}*/ {i};", i.pc);
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
            Terminator::Ssy { reconverge, pc, .. } => {
                (Some(pc), format!("SSY {}", target(p, reconverge)))
            }
            Terminator::Sync { cond, pc, .. } => {
                (Some(pc), format!("{}SYNC{}", cond.guard, cc_suffix(cond)))
            }
            Terminator::Exit { pc: None, .. } => continue,
            Terminator::Exit { cond, pc, .. } => {
                (pc, format!("{}EXIT{}", cond.guard, cc_suffix(cond)))
            }
            Terminator::Barrier { id, cond, pc, .. } => {
                (Some(pc), format!("{}BAR.SYNC {id:#x}", cond.guard))
            }
        };
        match pc {
            Some(pc) => {
                let _ = writeln!(s, "        /*{pc:04x}*/ {text};");
            }
            None => {
                let _ = writeln!(s, "        {text};");
            }
        }
    }
    s
}
