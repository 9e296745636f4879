//! The IR builder both SASS front-ends share: instructions as a front-end reads them (a per-lane
//! [`Inst`], or a control instruction with its targets as written) in, a [`Program`] of basic
//! blocks out (docs/semantics.md §2). The listing parser ([`crate::sass`]) and the cubin decoder
//! ([`crate::maxwell`]) both hand their instructions to [`assemble`]; neither builds blocks.
//!
//! pcs come from the instructions' addresses when they have them (then every instruction must),
//! else from Maxwell's layout: a scheduling word before every three instructions, so instructions
//! sit at 0x08, 0x10, 0x18, 0x28, 0x30, 0x38, 0x48, ...
//!
//! Blocks start at the first instruction, at every label, at every branch target (a `BRX`'s
//! declared targets included) and after every control instruction. A block that does not end in
//! a control instruction falls through (`Jump { pc: None }`), or, at the end, exits (`Exit { pc:
//! None }`). When the last instruction needs a following block (a conditional BRA, SSY, SYNC,
//! BAR.SYNC) or labels follow it, an empty final block holds that implicit exit.
//!
//! How a control instruction is spelled is the front-ends' business (`sass::control` prints and
//! parses them); errors here carry a source location and say what is wrong
//! ([`BuildError`]), and each front-end turns them into its own.

use std::collections::{BTreeSet, HashMap};

use super::{
    BarRed, Block, BlockId, CcTest, Cond, Guard, Inst, Isa, JumpTable, Program, Reg, Region,
    SrcLoc, Terminator,
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

/// A branch target as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A label: `.L_1`, `` `(.L_1) ``, `loop`.
    Label(String),
    /// An absolute byte address (`BRA 0x60`).
    Addr(u32),
}

/// Which control instruction, with its operands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ControlKind {
    /// `BRA [CC.EQ|CC.NE,] target` (`.U` accepted and dropped).
    Bra {
        /// Condition-code test.
        cc: Option<CcTest>,
        /// Where to go.
        target: Target,
    },
    /// `BRX [CC.EQ|CC.NE,] Ra offset (*"BRANCH_TARGETS t1,t2,..."*)`: an indirect branch to
    /// `pc + 8 + Ra + offset` per lane, which must be one of the targets of the note (labels
    /// or addresses, as nvdisasm prints them from the cubin's `EIATTR_INDIRECT_BRANCH_TARGETS`).
    Brx {
        /// Condition-code test.
        cc: Option<CcTest>,
        /// The register holding each lane's offset.
        reg: Reg,
        /// The immediate (24-bit signed).
        offset: i32,
        /// The targets, as written (at least one).
        targets: Vec<Target>,
    },
    /// `SSY target`, `PBK target`, `PCNT target`, `CAL target` (never guarded).
    Push {
        /// Which one.
        region: Region,
        /// Where the region's lanes continue (the reconvergence point, the loop exit, the loop
        /// continue point); for `CAL`, the subroutine called.
        target: Target,
    },
    /// `SYNC`, `BRK`, `CONT`, `RET`, each `[CC.EQ|CC.NE]`.
    Wait {
        /// Which one.
        region: Region,
        /// Condition-code test.
        cc: Option<CcTest>,
    },
    /// `EXIT [CC.EQ|CC.NE]`.
    Exit {
        /// Condition-code test.
        cc: Option<CcTest>,
    },
    /// `BAR.SYNC [id[, count]]` (id 0..=15, default 0), `BAR.ARV id, count`, or
    /// `BAR.RED.POPC|AND|OR id[, count], Pp`.
    Bar {
        /// Barrier index.
        id: u8,
        /// The reduction of `BAR.RED`.
        red: Option<BarRed>,
        /// Thread count (0: every thread of the CTA).
        count: u32,
        /// `BAR.ARV`.
        arrive: bool,
    },
}

/// A parsed control instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    /// The `@P` guard.
    pub guard: Guard,
    /// The instruction.
    pub kind: ControlKind,
    /// Guest pc (byte address).
    pub pc: u32,
    /// Where the instruction's text starts.
    pub loc: SrcLoc,
}

impl Control {
    /// The branch targets of the instruction: one for BRA, SSY, PBK, PCNT and CAL, those of
    /// its note for BRX, none for the others.
    pub fn targets(&self) -> &[Target] {
        match &self.kind {
            ControlKind::Bra { target, .. } | ControlKind::Push { target, .. } => {
                std::slice::from_ref(target)
            }
            ControlKind::Brx { targets, .. } => targets,
            ControlKind::Wait { .. } | ControlKind::Exit { .. } | ControlKind::Bar { .. } => &[],
        }
    }

    /// The branch targets, to replace them in place (as [`Control::targets`]).
    pub fn targets_mut(&mut self) -> &mut [Target] {
        match &mut self.kind {
            ControlKind::Bra { target, .. } | ControlKind::Push { target, .. } => {
                std::slice::from_mut(target)
            }
            ControlKind::Brx { targets, .. } => targets,
            ControlKind::Wait { .. } | ControlKind::Exit { .. } | ControlKind::Bar { .. } => {
                &mut []
            }
        }
    }
}

/// One instruction as a front-end reads it: a per-lane op, or a control instruction (a block
/// terminator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsedInst {
    /// A per-lane instruction.
    Op(Inst),
    /// BRA, BRX, SSY, SYNC, EXIT, BAR.SYNC and the other control instructions.
    Control(Control),
}

impl ParsedInst {
    /// The guest pc (byte address).
    pub fn pc(&self) -> u32 {
        match self {
            ParsedInst::Op(i) => i.pc,
            ParsedInst::Control(c) => c.pc,
        }
    }

    /// Where the instruction's text starts.
    pub fn loc(&self) -> SrcLoc {
        match self {
            ParsedInst::Op(i) => i.loc,
            ParsedInst::Control(c) => c.loc,
        }
    }

    /// Sets the guest pc.
    pub fn set_pc(&mut self, pc: u32) {
        match self {
            ParsedInst::Op(i) => i.pc = pc,
            ParsedInst::Control(c) => c.pc = pc,
        }
    }
}

/// Why instructions do not build into a program: where (the instruction's or its target's
/// location) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// Where.
    pub loc: SrcLoc,
    /// What is wrong.
    pub message: String,
    /// The line of another instruction the error involves (the other one at the same address).
    pub other_line: Option<u32>,
}

impl BuildError {
    fn at(loc: SrcLoc, message: impl Into<String>) -> BuildError {
        BuildError {
            loc,
            message: message.into(),
            other_line: None,
        }
    }

    fn other(mut self, line: u32) -> BuildError {
        self.other_line = Some(line);
        self
    }
}

/// A target as a BRX's note names it: a label bare (`.L_x_1`), an address in hex.
struct NoteTarget<'a>(&'a Target);

impl std::fmt::Display for NoteTarget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Target::Label(l) => f.write_str(l),
            Target::Addr(a) => write!(f, "{a:#x}"),
        }
    }
}

/// One instruction, as [`assemble`] takes it.
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

/// Builds instructions and labels (from a listing's text, or from a binary's decoder) into
/// a [`Program`] of `registers` registers: pcs (from the items' addresses, all or none, else Maxwell's layout), branch
/// targets resolved to blocks, blocks split at labels, targets and control instructions.
pub fn assemble(
    mut items: Vec<Item>,
    labels: Vec<Label>,
    registers: u32,
) -> Result<Program, BuildError> {
    let n = items.len();

    // pcs.
    let commented = items.iter().filter(|i| i.addr.is_some()).count();
    if commented > 0 {
        if let Some(i) = items.iter().find(|i| i.addr.is_none()) {
            return Err(BuildError::at(
                i.p.loc(),
                "instruction without an address comment `/*addr*/`, but others in this listing have one",
            ));
        }
    }
    let mut pc = FIRST_PC;
    for it in &mut items {
        let this = it.addr.unwrap_or(pc);
        it.p.set_pc(this);
        pc = next_slot(this);
    }
    let tail_pc = pc;
    let mut at_pc: HashMap<u32, usize> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        if let Some(prev) = at_pc.insert(it.p.pc(), i) {
            let first = items.get(prev).map(|p| p.p.loc()).unwrap_or_default();
            return Err(BuildError::at(
                it.p.loc(),
                format!("two instructions at address {:#x}", it.p.pc()),
            )
            .other(first.line));
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
                    None => return Err(BuildError::at(loc, format!("undefined label `{l}`"))),
                },
                Target::Addr(a) => match at_pc.get(a) {
                    Some(&i) => i,
                    None => {
                        return Err(BuildError::at(
                            loc,
                            format!("no instruction at address {a:#x}"),
                        ))
                    }
                },
            };
            // A BRX goes to an instruction's address: a label past the last one has none.
            if brx && i == n {
                return Err(BuildError::at(
                    loc,
                    format!(
                        "BRX target `{}` is not an instruction (it follows the last one)",
                        NoteTarget(t)
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
                        BuildError::at(
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
        registers,
        interface: crate::ir::Interface::default(),
        lines,
        entry_reads: Default::default(),
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
        let p0 = Guard(crate::ir::PredSrc {
            pred: crate::ir::Pred(0),
            neg: false,
        });
        let c = |guard, kind| Control {
            guard,
            kind,
            pc: 8,
            loc: SrcLoc::default(),
        };
        let bra = |cc| ControlKind::Bra {
            cc,
            target: Target::Addr(8),
        };
        assert!(!needs_next(&c(Guard::ALWAYS, bra(None))));
        assert!(needs_next(&c(p0, bra(None))));
        assert!(needs_next(&c(Guard::ALWAYS, bra(Some(CcTest::Eq)))));
        assert!(!needs_next(&c(p0, ControlKind::Exit { cc: None })));
        let sync = ControlKind::Wait {
            region: Region::Sync,
            cc: None,
        };
        assert!(needs_next(&c(Guard::ALWAYS, sync)));
        let bar = ControlKind::Bar {
            id: 0,
            red: None,
            count: 0,
            arrive: false,
        };
        assert!(needs_next(&c(Guard::ALWAYS, bar)));
    }
}
