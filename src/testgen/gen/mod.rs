//! The program generator: a launch shape, then SASS text built from IR ops (printed with their
//! canonical `Display`) and hand-written control instructions.
//!
//! Registers: `R0..R19` are random data (`R16..R19` also address scratch, set right before the
//! memory instruction that uses them), `R20..R23` loop counters and limits (two nesting
//! levels), `R24` the global thread id, `R25` the CTA-local thread id, `R26` the linear CTA id,
//! `R27` the lane id, `R28..R31` the epilogue's.
//!
//! With [`Frame::Minimal`] the prologue fills only the registers the random code reads and the
//! epilogue stores only the registers it writes (and the predicates, CC and, if the code stores
//! to shared memory, shared memory): far less code for the JIT to compile per case. With
//! [`Frame::Bare`] the program ends right after the random code.
//!
//! This module holds the generator's state, its choices (each reads bytes from the input),
//! operands and the statement dispatch; the statements themselves are by concern: [`frame`]
//! (prologue and epilogue), [`alu`], [`control`], [`memory`], [`edges`] (segment ends) and
//! [`hostile`] (the control-flow shapes that made loading slow, small).

mod alu;
mod control;
mod convert;
mod edges;
mod float;
mod frame;
mod hostile;
mod imadsp;
mod int;
mod logic;
mod memory;
mod warp;

use super::layout::*;
use super::{Case, Frame, Profile};
use crate::ir::*;
use crate::sass::Sass;
use arbitrary::Unstructured;
use warpjit_runtime::BankMode;

/// Instructions of random code after which no new statement starts.
const MAX_INSTS: usize = 260;

/// Interesting 32-bit values (immediates are half of the time one of these).
const SPECIAL: [u32; 27] = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    0xf,
    0x10,
    0x1f,
    0x20,
    0x21,
    0x3f,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7_ffff,
    0x8_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0xfff8_0000,
    0x8000_0001,
];

/// How an immediate slot encodes its value (see `sass::validate::ImmRule`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Signed 20-bit, sign-extended.
    S20,
    /// Unsigned 16-bit (XMAD).
    U16,
    /// Any 32-bit value.
    Any32,
    /// No immediate allowed.
    None,
}

fn sext20(v: u32) -> u32 {
    (((v & 0xf_ffff) << 12) as i32 >> 12) as u32
}

pub(super) struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    profile: Profile,
    lines: Vec<String>,
    labels: u32,
    insts: usize,
    shared_bytes: u32,
    registers: u32,
    threads_per_cta: u32,
    window_segment: bool,
    odd_size: u64,
    inf_loop: bool,
    loop_depth: u8,
    ssy_depth: u32,
    /// Enclosing PBK loops (a BRK may be emitted) and PCNT iterations (a CONT may be).
    brk_depth: u32,
    cont_depth: u32,
    /// Words of constant bank 2 the switches' jump tables take so far.
    table_words: u32,
    /// Each switch's jump table: where it starts in bank 2 and its entries.
    switches: Vec<(u32, Vec<TableEntry>)>,
}

/// A jump table's word before the program's pcs are known.
enum TableEntry {
    /// The pc of the instruction at a label; with `true`, the address of the scheduling word
    /// before it when it is the first of its group (the same instruction for BRX).
    Label(String, bool),
    /// An address between two instructions: 4 past the instruction at a label.
    Between(String),
}

/// Generates a whole case.
pub(super) fn generate(u: &mut Unstructured<'_>, profile: Profile, frame: Frame) -> Case {
    let mut g = Gen {
        u,
        profile,
        lines: Vec::new(),
        labels: 0,
        insts: 0,
        shared_bytes: 0,
        registers: 255,
        threads_per_cta: 1,
        window_segment: false,
        odd_size: ODD_SIZES[0],
        inf_loop: false,
        loop_depth: 0,
        ssy_depth: 0,
        brk_depth: 0,
        cont_depth: 0,
        table_words: 0,
        switches: Vec::new(),
    };
    let block = if g.chance(50) {
        match g.below(3) {
            0 => [32 * g.range(1, 3), 1, 1],
            1 => [16, 2 * g.range(1, 3), 1],
            _ => [8, 4, 2 * g.range(1, 2)],
        }
    } else {
        [g.range(1, 80), g.range(1, 3), g.range(1, 2)]
    };
    let grid = [g.range(1, 3), g.range(1, 2), 1];
    let mode = if g.chance(30) {
        BankMode::Graphics
    } else {
        BankMode::Compute
    };
    let shared_bytes =
        [256, 1024, 4096, 64, 16, 0, 100, 1000][g.weighted(&[30, 20, 10, 10, 5, 5, 10, 10])];
    let registers = if g.chance(15) { 32 } else { 255 };
    let seed = g.u.arbitrary::<u64>().unwrap_or(0);
    let sparse = g.chance(40);
    let window_segment = g.chance(30);
    let threshold = if g.chance(20) { 2 } else { 1 };
    let odd_size = g.pick(&ODD_SIZES);
    g.odd_size = odd_size;
    let tier2 = g.chance(25);
    g.shared_bytes = shared_bytes;
    g.window_segment = window_segment;
    g.registers = registers;
    g.threads_per_cta = block.iter().product();
    g.prologue(block, grid);
    let code_start = g.lines.len();
    let n = match profile {
        Profile::Alu => g.range(4, 70),
        Profile::Control => g.range(2, 14),
        Profile::Memory => g.range(3, 30),
        Profile::Mixed => g.range(3, 24),
        Profile::Edges => g.range(2, 10),
        Profile::Hostile => g.range(2, 12),
    };
    g.stmts(n as usize, 0);
    // Drawn after the random statements, so that the bytes before give the same code as before
    // there was a choice.
    if shared_bytes >= 4 && g.chance(30) {
        g.ticket_loop();
    }
    match frame {
        Frame::Full => g.epilogue(),
        Frame::Minimal => g.minimal_frame(code_start),
        Frame::Bare => g.emit("EXIT"),
    }
    let budget = if g.inf_loop {
        [2000, 300][g.weighted(&[70, 30])]
    } else {
        [1_000_000, 2000, 300][g.weighted(&[85, 10, 5])]
    };
    let jump_tables = g.resolve_switches();
    // Drawn last, likewise.
    let quantum =
        [crate::exec::DEFAULT_QUANTUM, 3, 6, 10, 25, 64][g.weighted(&[25, 15, 15, 15, 15, 15])];
    let mut text = g.lines.join("\n");
    text.push('\n');
    Case {
        text,
        registers,
        grid,
        block,
        mode,
        shared_bytes,
        local_bytes: LOCAL_BYTES,
        budget,
        seed,
        sparse,
        window_segment,
        threshold,
        odd_size,
        tier2,
        frame,
        jump_tables,
        quantum,
    }
}

impl Gen<'_, '_> {
    /// Once the text is final: each BRX's offset (minus its next pc, so that the register
    /// holds the target, as ptxas writes it) and the words of the jump tables, as `(offset in
    /// bank 2, value)`, from the pcs the listing's layout gives every instruction and label.
    fn resolve_switches(&mut self) -> Vec<(u32, u32)> {
        use crate::ir::build::{next_slot, FIRST_PC};
        let mut labels = std::collections::HashMap::new();
        let mut pc = FIRST_PC;
        for line in &mut self.lines {
            if let Some(l) = line.strip_suffix(':') {
                labels.insert(l.to_string(), pc);
                continue;
            }
            let off = -(i64::from(pc) + 8);
            *line = line.replacen(" 0x0 (*", &format!(" -{:#x} (*", -off), 1);
            pc = next_slot(pc);
        }
        let mut words = Vec::new();
        for (base, entries) in &self.switches {
            for (i, e) in entries.iter().enumerate() {
                let at = |l: &String| labels.get(l).copied().unwrap_or(0);
                let v = match e {
                    TableEntry::Label(l, true) if at(l) % 0x20 == 8 => at(l) - 8,
                    TableEntry::Label(l, _) => at(l),
                    TableEntry::Between(l) => at(l) + 4,
                };
                words.push((base + 4 * i as u32, v));
            }
        }
        words
    }

    // ---- choices (running out of bytes gives the first / smallest / "no") -------------------

    fn below(&mut self, n: u32) -> u32 {
        if n <= 1 {
            0
        } else {
            self.u.int_in_range(0..=n - 1).unwrap_or(0)
        }
    }

    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, pct: u32) -> bool {
        self.below(100) >= 100 - pct
    }

    fn weighted(&mut self, w: &[u32]) -> usize {
        let total: u32 = w.iter().sum();
        let mut r = self.below(total);
        for (i, &x) in w.iter().enumerate() {
            if r < x {
                return i;
            }
            r -= x;
        }
        0
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u32) as usize]
    }

    fn bits32(&mut self) -> u32 {
        self.u.arbitrary::<u32>().unwrap_or(0)
    }

    // ---- text --------------------------------------------------------------------------------

    fn emit(&mut self, s: impl AsRef<str>) {
        self.lines.push(format!("        {};", s.as_ref()));
        self.insts += 1;
    }

    fn op(&mut self, g: Guard, op: impl Into<Op>) {
        let op = op.into();
        self.emit(format!("{g}{}", Sass(&op)));
    }

    fn op0(&mut self, op: impl Into<Op>) {
        self.op(Guard::ALWAYS, op);
    }

    fn new_label(&mut self) -> String {
        self.labels += 1;
        format!(".L_{}", self.labels)
    }

    fn place(&mut self, l: &str) {
        self.lines.push(format!("{l}:"));
    }

    /// A branch target as written: `` `(.L_1) `` or `.L_1`.
    fn target(&mut self, l: &str) -> String {
        if self.chance(50) {
            format!("`({l})")
        } else {
            l.to_string()
        }
    }

    // ---- operands ----------------------------------------------------------------------------

    fn dst(&mut self) -> Reg {
        if self.chance(4) {
            Reg::RZ
        } else {
            Reg(self.below(20) as u8)
        }
    }

    fn sreg(&mut self) -> Reg {
        match self.weighted(&[80, 15, 5]) {
            0 => Reg(self.below(20) as u8),
            1 => Reg(20 + self.below(8) as u8),
            _ => Reg::RZ,
        }
    }

    /// A load destination starting a group of `n` registers among `R0..R15` (the address
    /// scratch `R16..R19` would be overwritten by the next access), rarely `RZ`.
    fn load_dst(&mut self, n: u8) -> Reg {
        if self.chance(3) {
            Reg::RZ
        } else {
            Reg(self.below(16 / n as u32) as u8 * n)
        }
    }

    /// A source group of `n` registers (aligned) among `R0..R27`.
    fn src_wide(&mut self, n: u8) -> Reg {
        Reg(self.below(28 / n as u32) as u8 * n)
    }

    fn imm32(&mut self) -> u32 {
        if self.chance(50) {
            self.pick(&SPECIAL)
        } else {
            self.bits32()
        }
    }

    fn imm(&mut self, rule: Rule) -> u32 {
        let v = self.imm32();
        match rule {
            Rule::S20 => sext20(v),
            Rule::U16 => v & 0xffff,
            Rule::Any32 | Rule::None => v,
        }
    }

    /// A constant operand: mostly aligned words of the filled areas, sometimes banks the mode
    /// lacks, rarely a misaligned offset (a fault).
    fn cref(&mut self) -> ConstRef {
        let bank = match self.weighted(&[40, 30, 20, 10]) {
            0 => 0,
            1 => self.range(1, 3),
            2 => self.pick(&[7, 8, 13, 14, 17]),
            _ => self.pick(&[18, 24, 31]),
        } as u8;
        let offset = match self.weighted(&[60, 15, 10, 14, 1]) {
            0 => CONST_DATA as u32 + 4 * self.below(0xa0),
            1 => 4 * self.below(0x60),
            2 => 0xff00 + 4 * self.below(0x40),
            3 => 4 * self.below(0x4000),
            _ => self.bits32() & 0xffff,
        } as u16;
        ConstRef { bank, offset }
    }

    fn src(&mut self, rule: Rule) -> Src {
        let w_imm = if rule == Rule::None { 0 } else { 25 };
        match self.weighted(&[60, 15, w_imm]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(rule)),
        }
    }

    /// A register or constant (never an immediate).
    fn src_rc(&mut self) -> Src {
        self.src(Rule::None)
    }

    /// A shift amount: mostly small immediates, also registers and constants.
    fn amount(&mut self) -> Src {
        match self.weighted(&[50, 35, 5, 10]) {
            0 => Src::Imm(self.below(40)),
            1 => Src::Reg(self.sreg()),
            2 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::S20)),
        }
    }

    /// A BFE/BFI control: position in bits 7:0, length in 15:8.
    fn bitfield(&mut self) -> Src {
        match self.weighted(&[50, 35, 5, 10]) {
            0 => Src::Imm(self.below(40) | self.below(40) << 8),
            1 => Src::Reg(self.sreg()),
            2 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::S20)),
        }
    }

    fn pdst(&mut self) -> Pred {
        if self.chance(10) {
            Pred::PT
        } else {
            Pred(self.below(7) as u8)
        }
    }

    fn psrc(&mut self) -> PredSrc {
        let pred = if self.chance(10) {
            Pred::PT
        } else {
            Pred(self.below(7) as u8)
        };
        PredSrc {
            pred,
            neg: self.chance(30),
        }
    }

    fn guard(&mut self) -> Guard {
        if self.chance(20) {
            Guard(self.psrc())
        } else {
            Guard::ALWAYS
        }
    }

    fn half(&mut self) -> Half {
        [Half::None, Half::H0, Half::H1][self.weighted(&[70, 15, 15])]
    }

    // ---- statements --------------------------------------------------------------------------

    fn stmts(&mut self, n: usize, depth: u32) {
        for _ in 0..n {
            if self.insts > MAX_INSTS {
                break;
            }
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: u32) {
        // Alu, Chain, Mem, If, Loop, InfLoop, Exit, Barrier, Misc, Edge, Switch, Hostile
        let mut w: [u32; 12] = match self.profile {
            Profile::Alu => [80, 15, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0],
            Profile::Control => [35, 5, 6, 16, 12, 2, 6, 12, 6, 3, 8, 0],
            Profile::Memory => [25, 5, 60, 4, 3, 0, 1, 2, 0, 5, 1, 0],
            Profile::Mixed => [35, 8, 20, 10, 8, 1, 4, 6, 8, 8, 4, 0],
            Profile::Edges => [15, 3, 10, 4, 4, 0, 1, 1, 2, 60, 1, 0],
            Profile::Hostile => [25, 3, 8, 5, 5, 1, 3, 3, 3, 2, 3, 45],
        };
        if depth >= 3 {
            w[3] = 0;
            w[10] = 0;
        }
        if self.loop_depth >= 2 {
            w[4] = 0;
        }
        if depth > 0 || self.inf_loop {
            w[5] = 0;
        }
        if depth >= 3 {
            w[11] = 0;
        }
        match self.weighted(&w) {
            0 if self.chance(12) => self.convert(),
            0 => {
                let g = self.guard();
                let op = if self.chance(20) {
                    self.float()
                } else {
                    self.alu()
                };
                self.op(g, op);
            }
            1 => self.chain(),
            2 => self.mem(),
            3 => self.if_stmt(depth),
            4 => self.loop_stmt(depth),
            5 => self.inf_loop(),
            6 => self.exit_stmt(depth),
            7 => self.barrier(),
            8 => self.misc(),
            9 => self.edge(depth),
            10 => self.switch_stmt(depth),
            _ => self.hostile(depth),
        }
    }
}

/// The largest power of two at most `v` (`v` > 0).
fn floor_pow2(v: u32) -> u32 {
    1 << (31 - v.leading_zeros())
}
