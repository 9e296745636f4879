//! A whole listing: its statements read into instructions and labels, which the IR builder
//! ([`crate::ir::build`]) makes into a program (pcs from `/*addr*/` comments when the listing has
//! them, else Maxwell's layout; blocks; branch targets resolved; docs/semantics.md §2).

use std::collections::HashMap;

use super::control::{parse_control, Control};
use super::lexer::lex;
use super::parser::{statements, RawInst, Stmt};
use super::spelling::parse_op;
use super::validate::Args;
use super::words::Name;
use super::{AsmError, AsmOptions, ParsedInst};
use crate::diag::Note;
use crate::ir::build::{assemble, BuildError, Item, Label, FIRST_PC};
use crate::ir::{Inst, Program, SpecialReg, SrcLoc};

/// Parses one instruction statement (pc 0, set by the caller); returns it and where its branch
/// target is written.
fn inst(raw: &RawInst, opts: &AsmOptions) -> Result<(ParsedInst, Option<SrcLoc>), AsmError> {
    let mut a = Args::new(raw, opts.registers);
    if let Some(op) = parse_op(&mut a) {
        let inst = Inst {
            guard: raw.guard,
            op: op.map_err(suggest_special_register)?,
            pc: 0,
            loc: raw.loc,
        };
        return Ok((ParsedInst::Op(inst), None));
    }
    if let Some(c) = parse_control(&mut a) {
        let (kind, tloc) = c?;
        return Ok((
            ParsedInst::Control(Control {
                guard: raw.guard,
                kind,
                pc: 0,
                loc: raw.loc,
            }),
            tloc,
        ));
    }
    Err(super::unknown_mnemonic(&raw.mnemonic, raw.mn_loc))
}

/// Adds "did you mean" to an unknown special register (the error of `S2R`'s syntax).
fn suggest_special_register(e: AsmError) -> AsmError {
    let name = e
        .message
        .strip_prefix("unknown special register `")
        .and_then(|r| r.split('`').next());
    match name {
        Some(n) => {
            let n = n.to_string();
            e.maybe_note(crate::diag::did_you_mean(
                &n,
                SpecialReg::ALL.iter().map(|s| s.name()),
            ))
        }
        None => e,
    }
}

/// Parses text holding exactly one instruction.
pub fn single(text: &str, opts: &AsmOptions) -> Result<ParsedInst, AsmError> {
    let stmts = statements(&lex(text)?)?;
    match stmts.as_slice() {
        [Stmt::Inst(raw, addr)] => {
            let (mut p, _) = inst(raw, opts)?;
            p.set_pc(addr.unwrap_or(FIRST_PC));
            Ok(p)
        }
        [] => Err(AsmError::at(
            SrcLoc { line: 1, col: 1 },
            "expected an instruction",
        )),
        [Stmt::Label((_, l)), ..] => {
            Err(AsmError::at(*l, "expected an instruction, found a label"))
        }
        [_, Stmt::Label((_, l)), ..] => Err(AsmError::at(*l, "expected exactly one instruction")),
        [_, Stmt::Inst(raw, _), ..] => {
            Err(AsmError::at(raw.loc, "expected exactly one instruction"))
        }
    }
}

/// Assembles a listing into a [`Program`].
pub fn build(text: &str, opts: &AsmOptions) -> Result<Program, AsmError> {
    let mut items: Vec<Item> = Vec::new();
    let mut labels: Vec<Label> = Vec::new();
    // Each label's line, to find a duplicate without a search per label.
    let mut lines: HashMap<String, u32> = HashMap::new();
    // The tokens go as soon as the statements are made (a `for` over `statements(&lex(..))`
    // would keep them to the end of the loop), and each statement as it becomes an item.
    let stmts = statements(&lex(text)?)?;
    for s in stmts {
        match s {
            Stmt::Label((name, loc)) => {
                if let Some(&first) = lines.get(&name) {
                    return Err(AsmError::at(loc, format!("duplicate label `{name}`"))
                        .note(Note::at_line("first defined", first)));
                }
                lines.insert(name.clone(), loc.line);
                labels.push((name, loc, items.len()));
            }
            Stmt::Inst(raw, addr) => {
                let (p, tloc) = inst(&raw, opts)?;
                items.push(Item { p, addr, tloc });
            }
        }
    }
    assemble(items, labels, opts.registers).map_err(AsmError::from)
}

impl From<BuildError> for AsmError {
    fn from(e: BuildError) -> AsmError {
        let other = e.other_line.map(|l| Note::at_line("the other is", l));
        AsmError::at(e.loc, e.message).maybe_note(other)
    }
}
