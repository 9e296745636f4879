//! A whole listing: instruction pcs, labels, branch targets and basic blocks (docs/semantics.md §2).
//!
//! pcs come from `/*addr*/` comments when the listing has them (then every instruction must), else
//! from Maxwell's layout: a scheduling word before every three instructions, so instructions sit at
//! 0x08, 0x10, 0x18, 0x28, 0x30, 0x38, 0x48, ...
//!
//! Blocks start at the first instruction, at every label, at every branch target (a `BRX`'s
//! declared targets included) and after every control instruction. A block that does not end in a control instruction falls through
//! (`Jump { pc: None }`), or, at the end of the text, exits (`Exit { pc: None }`). When the last
//! instruction needs a following block (a conditional BRA, SSY, SYNC, BAR.SYNC) or labels follow
//! it, an empty final block holds that implicit exit.

use std::collections::{BTreeSet, HashMap};

use super::control::{parse_control, Control, ControlKind, Target};
use super::lexer::lex;
use super::parser::{statements, RawInst, Stmt};
use super::spelling::parse_op;
use super::validate::Args;
use super::words::Name;
use super::{AsmError, AsmOptions, ParsedInst};
use crate::diag::Note;
use crate::ir::{
    Block, BlockId, Cond, Inst, Isa, JumpTable, Program, SpecialReg, SrcLoc, Terminator,
};

/// The pc of the first instruction in Maxwell's layout.
pub const FIRST_PC: u32 = 0x8;

/// The next instruction slot after `pc` in Maxwell's layout (skipping the scheduling word at
/// every multiple of 0x20).
pub fn next_slot(pc: u32) -> u32 {
    let n = pc.wrapping_add(8);
    if n.is_multiple_of(0x20) {
        n.wrapping_add(8)
    } else {
        n
    }
}

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

fn set_pc(p: &mut ParsedInst, pc: u32) {
    match p {
        ParsedInst::Op(i) => i.pc = pc,
        ParsedInst::Control(c) => c.pc = pc,
    }
}

/// Parses text holding exactly one instruction.
pub fn single(text: &str, opts: &AsmOptions) -> Result<ParsedInst, AsmError> {
    let stmts = statements(&lex(text)?)?;
    match stmts.as_slice() {
        [Stmt::Inst(raw, addr)] => {
            let (mut p, _) = inst(raw, opts)?;
            set_pc(&mut p, addr.unwrap_or(FIRST_PC));
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

/// One instruction of a listing, as [`assemble`] takes it.
#[derive(Clone, Debug)]
pub struct Item {
    /// The instruction (its pc is set by [`assemble`]).
    pub p: ParsedInst,
    /// Its address, when the listing gives one (`/*0008*/`, or a binary's offset).
    pub addr: Option<u32>,
    /// Where its branch target (a BRX's note) is written, if it has one.
    pub tloc: Option<SrcLoc>,
}

/// A label: its name, where it is defined, and the index of the instruction it names (the
/// number of instructions for a label at the end).
pub type Label = (String, SrcLoc, usize);

/// Whether a control instruction lets some lanes continue to the next block.
fn needs_next(c: &Control) -> bool {
    let always = c.guard.is_always();
    match &c.kind {
        ControlKind::Bra { cc, .. } | ControlKind::Brx { cc, .. } => !(always && cc.is_none()),
        ControlKind::Exit { .. } => false,
        ControlKind::Push { .. } | ControlKind::Wait { .. } | ControlKind::Bar { .. } => true,
    }
}

/// Assembles a listing into a [`Program`].
pub fn build(text: &str, opts: &AsmOptions) -> Result<Program, AsmError> {
    let mut items: Vec<Item> = Vec::new();
    let mut labels: Vec<Label> = Vec::new();
    // Each label's line, to find a duplicate without a search per label.
    let mut lines: HashMap<String, u32> = HashMap::new();
    for s in statements(&lex(text)?)? {
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
    assemble(items, labels, opts)
}

/// Assembles instructions and labels (from a listing's text, or from a binary's decoder) into
/// a [`Program`]: pcs (from the items' addresses, all or none, else Maxwell's layout), branch
/// targets resolved to blocks, blocks split at labels, targets and control instructions.
pub fn assemble(
    mut items: Vec<Item>,
    labels: Vec<Label>,
    opts: &AsmOptions,
) -> Result<Program, AsmError> {
    let n = items.len();

    // pcs.
    let commented = items.iter().filter(|i| i.addr.is_some()).count();
    if commented > 0 {
        if let Some(i) = items.iter().find(|i| i.addr.is_none()) {
            return Err(AsmError::at(
                i.p.loc(),
                "instruction without an address comment `/*addr*/`, but others in this listing have one",
            ));
        }
    }
    let mut pc = FIRST_PC;
    for it in &mut items {
        let this = it.addr.unwrap_or(pc);
        set_pc(&mut it.p, this);
        pc = next_slot(this);
    }
    let tail_pc = pc;
    let mut at_pc: HashMap<u32, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if let Some(prev) = at_pc.insert(it.p.pc(), i) {
            let first = items.get(prev).map(|p| p.p.loc()).unwrap_or_default();
            return Err(AsmError::at(
                it.p.loc(),
                format!("two instructions at address {:#x}", it.p.pc()),
            )
            .note(Note::at_line("the other is", first.line)));
        }
    }

    // Targets, as instruction indices (n = the end of the text).
    let by_name: HashMap<&str, usize> = labels.iter().map(|l| (l.0.as_str(), l.2)).collect();
    // The labels at each instruction index, in the text's order (for the blocks' names).
    let mut at_item: HashMap<usize, Vec<String>> = HashMap::new();
    for l in &labels {
        at_item.entry(l.2).or_default().push(l.0.clone());
    }
    let mut targets: Vec<Vec<usize>> = Vec::with_capacity(n);
    for it in &items {
        let ts = match &it.p {
            ParsedInst::Control(c) => c.targets(),
            ParsedInst::Op(_) => &[],
        };
        let brx =
            matches!(&it.p, ParsedInst::Control(c) if matches!(c.kind, ControlKind::Brx { .. }));
        let loc = it.tloc.unwrap_or(it.p.loc());
        let mut these = Vec::with_capacity(ts.len());
        for t in ts {
            let i = match t {
                Target::Label(l) => match by_name.get(l.as_str()) {
                    Some(&x) => x,
                    None => return Err(AsmError::at(loc, format!("undefined label `{l}`"))),
                },
                Target::Addr(a) => match at_pc.get(a) {
                    Some(&i) => i,
                    None => {
                        return Err(AsmError::at(
                            loc,
                            format!("no instruction at address {a:#x}"),
                        ))
                    }
                },
            };
            // A BRX goes to an instruction's address: a label past the last one has none.
            if brx && i == n {
                return Err(AsmError::at(
                    loc,
                    format!(
                        "BRX target `{}` is not an instruction (it follows the last one)",
                        super::control::NoteTarget(t)
                    ),
                ));
            }
            these.push(i);
        }
        targets.push(these);
    }

    // Block starts.
    let mut starts: BTreeSet<usize> = BTreeSet::from([0]);
    starts.extend(labels.iter().map(|l| l.2));
    starts.extend(targets.iter().flatten().copied());
    for (i, it) in items.iter().enumerate() {
        if let ParsedInst::Control(c) = &it.p {
            if i + 1 < n || needs_next(c) {
                starts.insert(i + 1);
            }
        }
    }
    let starts: Vec<usize> = starts.into_iter().collect();
    let block_of = |i: usize| -> BlockId { starts.binary_search(&i).unwrap_or(0) as BlockId };
    let mut jump_tables: Vec<JumpTable> = Vec::new();

    let mut blocks = Vec::with_capacity(starts.len());
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(n);
        let next = (b + 1 < starts.len()).then(|| (b + 1) as BlockId);
        let mut insts = Vec::new();
        let mut term = None;
        for (i, it) in items.iter().enumerate().take(e).skip(s) {
            match &it.p {
                ParsedInst::Op(inst) => insts.push(inst.clone()),
                ParsedInst::Control(c) => {
                    let these = targets.get(i).map_or(&[][..], |t| t.as_slice());
                    let target = these.first().map(|&t| block_of(t));
                    if matches!(c.kind, ControlKind::Brx { .. }) {
                        let mut table: Vec<(u32, BlockId)> = these
                            .iter()
                            .map(|&t| (items[t].p.pc(), block_of(t)))
                            .collect();
                        table.sort_unstable();
                        table.dedup();
                        jump_tables.push(JumpTable { targets: table });
                    }
                    let table = jump_tables.len().saturating_sub(1) as u32;
                    term = Some(terminator(c, target, table, next).ok_or_else(|| {
                        AsmError::at(
                            c.loc,
                            "internal error: control instruction without a successor",
                        )
                    })?);
                }
            }
        }
        let term = term.unwrap_or(match next {
            Some(target) => Terminator::Jump { target, pc: None },
            None => Terminator::Exit {
                cond: Cond::ALWAYS,
                next: None,
                pc: None,
            },
        });
        let pc = items
            .get(s)
            .filter(|_| s < e)
            .map(|it| it.p.pc())
            .unwrap_or(tail_pc);
        let labels = at_item.remove(&s).unwrap_or_default();
        blocks.push(Block {
            insts,
            term,
            pc,
            labels,
        });
    }
    let mut lines: Vec<(u32, SrcLoc)> = items.iter().map(|it| (it.p.pc(), it.p.loc())).collect();
    lines.sort_by_key(|l| l.0);
    Ok(Program {
        isa: Isa::Sass,
        blocks,
        registers: opts.registers,
        interface: crate::ir::Interface::default(),
        lines,
        jump_tables,
    })
}

/// The terminator of a control instruction (`table`: a BRX's index in the program's jump
/// tables); `None` if it needs a block that is missing.
fn terminator(
    c: &Control,
    target: Option<BlockId>,
    table: u32,
    next: Option<BlockId>,
) -> Option<Terminator> {
    let pc = c.pc;
    let cond = |cc| Cond { guard: c.guard, cc };
    Some(match c.kind {
        ControlKind::Brx {
            cc, reg, offset, ..
        } => {
            let cond = cond(cc);
            Terminator::Brx {
                cond,
                reg,
                offset,
                table,
                next: if cond.is_always() { None } else { Some(next?) },
                pc,
            }
        }
        ControlKind::Bra { cc, .. } => {
            let cond = cond(cc);
            if cond.is_always() {
                Terminator::Jump {
                    target: target?,
                    pc: Some(pc),
                }
            } else {
                Terminator::Branch {
                    cond,
                    taken: target?,
                    fallthrough: next?,
                    pc,
                }
            }
        }
        ControlKind::Push { region, .. } => Terminator::Push {
            region,
            target: target?,
            next: next?,
            pc,
        },
        ControlKind::Wait { region, cc } => Terminator::Wait {
            region,
            cond: cond(cc),
            next: next?,
            pc,
        },
        ControlKind::Exit { cc } => {
            let cond = cond(cc);
            Terminator::Exit {
                cond,
                next: if cond.is_always() { None } else { next },
                pc: Some(pc),
            }
        }
        ControlKind::Bar {
            id,
            red,
            count,
            arrive,
        } => Terminator::Barrier {
            id,
            cond: cond(None),
            red,
            count,
            arrive,
            next: next?,
            pc,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maxwell_slots_skip_scheduling_words() {
        let mut pc = FIRST_PC;
        let mut v = vec![pc];
        for _ in 0..7 {
            pc = next_slot(pc);
            v.push(pc);
        }
        assert_eq!(v, [0x08, 0x10, 0x18, 0x28, 0x30, 0x38, 0x48, 0x50]);
    }

    #[test]
    fn control_instructions_that_continue() {
        let c = |t: &str| match single(t, &AsmOptions::default()) {
            Ok(ParsedInst::Control(c)) => c,
            r => panic!("{r:?}"),
        };
        assert!(!needs_next(&c("BRA 0x8")));
        assert!(needs_next(&c("@P0 BRA 0x8")));
        assert!(needs_next(&c("BRA CC.EQ, 0x8")));
        assert!(!needs_next(&c("@P0 EXIT")));
        assert!(needs_next(&c("SYNC")));
        assert!(needs_next(&c("BAR.SYNC")));
    }
}
