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
//! to shared memory, shared memory): far less code for the JIT to compile per case.

use super::layout::*;
use super::{Case, Frame, Profile};
use crate::ir::*;
use crate::sass::{parse_program, AsmOptions, Sass};
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

/// A global-memory region the generator aims at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Region {
    Seg1,
    Edge,
    High,
    Window,
    Zero,
    Top,
}

impl Region {
    /// The `c[0x0]` offset of its 64-bit base.
    fn param(self) -> u16 {
        match self {
            Region::Seg1 => P_SEG1,
            Region::Edge => P_EDGE,
            Region::High => P_HIGH,
            Region::Window => P_WIN,
            Region::Zero => P_ZERO,
            Region::Top => P_TOP,
        }
    }
}

/// How a group of edge accesses computes its address: `c[0x0][param] + rel (+/-) (cnt << sh)`,
/// plus a per-lane term, with `offset` in the instruction.
#[derive(Clone, Copy)]
struct Walk {
    param: u16,
    wide: bool,
    sh: u8,
    down: bool,
    rel: i32,
    offset: i32,
    lane: Option<(Reg, u8)>,
}

/// An address the edge statements aim at: a segment's end or start, as an offset from a base
/// in `c[0x0]`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Target {
    /// `c[0x0]` offset of the 64-bit base.
    param: u16,
    /// The address, relative to the base.
    at: i32,
    /// Only 64-bit (`.E`) addresses reach it.
    wide: bool,
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
    };
    g.stmts(n as usize, 0);
    match frame {
        Frame::Full => g.epilogue(),
        Frame::Minimal => g.minimal_frame(code_start),
    }
    let budget = if g.inf_loop {
        [2000, 300][g.weighted(&[70, 30])]
    } else {
        [1_000_000, 2000, 300][g.weighted(&[85, 10, 5])]
    };
    let mut text = g.lines.join("\n");
    text.push('\n');
    Case {
        text,
        registers,
        grid,
        block,
        mode,
        shared_bytes,
        budget,
        seed,
        sparse,
        window_segment,
        threshold,
        odd_size,
        tier2,
        frame,
    }
}

impl Gen<'_, '_> {
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

    // ---- frame -------------------------------------------------------------------------------

    fn prologue(&mut self, block: [u32; 3], grid: [u32; 3]) {
        let [bx, by, _] = block;
        let tpc = block.iter().product::<u32>();
        self.emit("S2R R24, SR_TID.X");
        self.emit("S2R R25, SR_TID.Y");
        self.emit("S2R R26, SR_TID.Z");
        self.emit(format!("XMAD R25, R25, {bx:#x}, R24"));
        self.emit(format!("XMAD R25, R26, {:#x}, R25", bx * by));
        self.emit("S2R R26, SR_CTAID.X");
        self.emit("S2R R27, SR_CTAID.Y");
        self.emit(format!("XMAD R26, R27, {:#x}, R26", grid[0]));
        self.emit(format!("XMAD R24, R26, {tpc:#x}, R25"));
        self.emit("S2R R27, SR_LANEID");
        for r in 0..20u32 {
            let k = 0x9e37_79b9u32.wrapping_mul(r + 1);
            let line = match self.weighted(&[40, 15, 15, 10, 10, 10]) {
                0 => format!("IADD32I R{r}, R24, {k:#x}"),
                1 => format!("LOP32I.XOR R{r}, R27, {:#x}", self.imm32()),
                2 => format!(
                    "ISCADD R{r}, R25, {:#x}, {:#x}",
                    self.below(0x8_0000),
                    self.below(32)
                ),
                3 => format!("MOV32I R{r}, {:#x}", self.imm32()),
                4 => format!(
                    "LDC R{r}, c[{:#x}][{:#x}]",
                    self.below(4),
                    0x180 + 4 * self.below(0xa0)
                ),
                _ => format!("XMAD R{r}, R24, {:#x}, R27", self.below(0x1_0000)),
            };
            self.emit(line);
        }
    }

    fn epilogue(&mut self) {
        self.emit("P2R R29, CC, RZ, 0xf");
        self.emit("P2R R28, PR, RZ, 0x7f");
        self.emit(format!("LEA R30.CC, R24, c[0x0][{P_OUT:#x}], 0x8"));
        self.emit(format!(
            "LEA.HI.X R31, R24, c[0x0][{:#x}], RZ, 0x8",
            P_OUT + 4
        ));
        for q in 0..7 {
            self.emit(format!("STG.E.128 [R30+{:#x}], R{}", 16 * q, 4 * q));
        }
        self.emit("STG.E.64 [R30+0x70], R28");
        if self.shared_bytes >= 16 {
            self.emit("ISCADD R18, R25, RZ, 0x4");
            self.emit(format!(
                "ISETP.LE.U32.AND P0, PT, R18, {:#x}, PT",
                self.shared_bytes - 16
            ));
            self.emit("@P0 LDS.128 R0, [R18]");
            self.emit("@P0 STG.E.128 [R30+0x80], R0");
        }
        self.emit("EXIT");
    }

    /// [`Frame::Minimal`]: ends the program with an epilogue that stores only the 16-byte groups
    /// of the slot holding a register the random code (lines `code_start..`) writes (the P2R
    /// words always; shared memory if the code stores there), and drops the prologue's fills of
    /// registers that are neither read by the code nor stored.
    fn minimal_frame(&mut self, code_start: usize) {
        let mut text = self.lines.join("\n");
        text.push_str("\nEXIT;\n");
        let opts = AsmOptions {
            registers: self.registers,
        };
        let prog = parse_program(&text, &opts)
            .unwrap_or_else(|e| panic!("the generator wrote invalid SASS: {e}\n{text}"));
        let (mut read, mut written, mut shared) = (0u32, 0u32, false);
        for inst in prog.blocks.iter().flat_map(|b| &b.insts) {
            if (inst.loc.line as usize) <= code_start {
                continue;
            }
            inst.op.for_each_reg(&mut |u| {
                for k in 0..u.count {
                    let r = u.reg.offset(k);
                    if r.0 < 32 {
                        let bit = 1u32 << r.0;
                        if u.def {
                            written |= bit;
                        } else {
                            read |= bit;
                        }
                    }
                }
            });
            shared |= matches!(inst.op, Op::Sts(_) | Op::St(_));
        }
        // The 16-byte groups of the slot to store: those holding a written register.
        let groups: u32 = (0..8)
            .filter(|q| written >> (4 * q) & 0xf != 0)
            .fold(0, |m, q| m | 0xf << (4 * q));
        // The fills of R0..R19 are the prologue's last 20 lines: keep those of registers read
        // or stored (so a stored group holds what the full frame stores).
        let keep_fill = read | groups;
        let fills = code_start - 20..code_start;
        let mut k = 0;
        self.lines.retain(|_| {
            let keep = !fills.contains(&k) || keep_fill >> (k - fills.start) & 1 != 0;
            k += 1;
            keep
        });
        self.emit("P2R R29, CC, RZ, 0xf");
        self.emit("P2R R28, PR, RZ, 0x7f");
        self.emit(format!("LEA R30.CC, R24, c[0x0][{P_OUT:#x}], 0x8"));
        self.emit(format!(
            "LEA.HI.X R31, R24, c[0x0][{:#x}], RZ, 0x8",
            P_OUT + 4
        ));
        for q in 0..7 {
            if groups >> (4 * q) & 1 != 0 {
                self.emit(format!("STG.E.128 [R30+{:#x}], R{}", 16 * q, 4 * q));
            }
        }
        self.emit("STG.E.64 [R30+0x70], R28");
        if shared && self.shared_bytes >= 16 {
            self.emit("ISCADD R18, R25, RZ, 0x4");
            self.emit(format!(
                "ISETP.LE.U32.AND P0, PT, R18, {:#x}, PT",
                self.shared_bytes - 16
            ));
            self.emit("@P0 LDS.128 R0, [R18]");
            self.emit("@P0 STG.E.128 [R30+0x80], R0");
        }
        self.emit("EXIT");
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
        // Alu, Chain, Mem, If, Loop, InfLoop, Exit, Barrier, Misc, Edge
        let mut w: [u32; 10] = match self.profile {
            Profile::Alu => [80, 15, 0, 0, 0, 0, 0, 0, 5, 0],
            Profile::Control => [35, 5, 6, 16, 12, 2, 6, 12, 6, 3],
            Profile::Memory => [25, 5, 60, 4, 3, 0, 1, 2, 0, 5],
            Profile::Mixed => [35, 8, 20, 10, 8, 1, 4, 6, 8, 8],
            Profile::Edges => [15, 3, 10, 4, 4, 0, 1, 1, 2, 60],
        };
        if depth >= 3 {
            w[3] = 0;
        }
        if self.loop_depth >= 2 {
            w[4] = 0;
        }
        if depth > 0 || self.inf_loop {
            w[5] = 0;
        }
        match self.weighted(&w) {
            0 => {
                let g = self.guard();
                let op = self.alu();
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
            _ => self.edge(depth),
        }
    }

    /// One random ALU instruction (every ALU op of the op table).
    fn alu(&mut self) -> Op {
        let d = self.dst();
        match self.below(22) {
            0 => Mov {
                d,
                b: self.src(Rule::Any32),
            }
            .into(),
            1 => Mov32i {
                d,
                imm: self.imm32(),
            }
            .into(),
            2 => S2r {
                d,
                sr: SpecialReg::ALL[self.below(7) as usize],
            }
            .into(),
            3 => {
                let b = self.src(Rule::S20);
                Iadd {
                    d,
                    cc: self.chance(40),
                    x: self.chance(30),
                    po: self.chance(15),
                    neg_a: self.chance(25),
                    a: self.sreg(),
                    neg_b: self.chance(if matches!(b, Src::Imm(_)) { 3 } else { 25 }),
                    b,
                }
                .into()
            }
            4 => Iadd32i {
                d,
                cc: self.chance(40),
                x: self.chance(30),
                po: self.chance(15),
                neg_a: self.chance(25),
                a: self.sreg(),
                imm: self.imm32(),
            }
            .into(),
            5 => self.iadd3(d),
            6 => {
                let b = self.src(Rule::S20);
                Iscadd {
                    d,
                    cc: self.chance(40),
                    po: self.chance(15),
                    neg_a: self.chance(20),
                    a: self.sreg(),
                    neg_b: self.chance(if matches!(b, Src::Imm(_)) { 3 } else { 20 }),
                    b,
                    shift: self.below(32) as u8,
                }
                .into()
            }
            7 => self.xmad(d),
            8 => Shl {
                d,
                w: self.chance(30),
                a: self.sreg(),
                b: self.amount(),
            }
            .into(),
            9 => Shr {
                d,
                unsigned: self.chance(50),
                w: self.chance(30),
                brev: self.chance(20),
                a: self.sreg(),
                b: self.amount(),
            }
            .into(),
            10 => {
                let pout = [
                    PredOut::None,
                    PredOut::Z,
                    PredOut::Nz,
                    PredOut::T,
                    PredOut::F,
                ][self.weighted(&[40, 20, 20, 10, 10])];
                Lop {
                    func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
                    pout,
                    p: if self.chance(50) {
                        Some(self.pdst())
                    } else {
                        None
                    },
                    d,
                    not_a: self.chance(25),
                    a: self.sreg(),
                    not_b: self.chance(25),
                    b: self.src(Rule::S20),
                }
                .into()
            }
            11 => Lop32i {
                func: self.pick(&[LopFn::And, LopFn::Or, LopFn::Xor, LopFn::PassB]),
                d,
                not_a: self.chance(25),
                a: self.sreg(),
                not_b: self.chance(25),
                imm: self.imm32(),
            }
            .into(),
            12 => {
                let pout = [
                    PredOut::None,
                    PredOut::Z,
                    PredOut::Nz,
                    PredOut::T,
                    PredOut::F,
                ][self.weighted(&[40, 20, 20, 10, 10])];
                let lut = if self.chance(40) {
                    self.pick(&[0x00, 0xff, 0xf0, 0xcc, 0xaa, 0x96, 0xe8, 0x3c, 0xc0, 0xfe])
                } else {
                    self.below(256) as u8
                };
                Lop3 {
                    pout,
                    p: if self.chance(50) {
                        Some(self.pdst())
                    } else {
                        None
                    },
                    d,
                    a: self.sreg(),
                    b: self.src(Rule::Any32),
                    c: self.sreg(),
                    lut,
                }
                .into()
            }
            13 => Bfe {
                d,
                cc: self.chance(30),
                signed: self.chance(50),
                brev: self.chance(20),
                a: self.sreg(),
                b: self.bitfield(),
            }
            .into(),
            14 => Bfi {
                d,
                cc: self.chance(30),
                a: self.sreg(),
                b: self.bitfield(),
                c: self.src_rc(),
            }
            .into(),
            15 => Sel {
                d,
                a: self.sreg(),
                b: self.src(Rule::S20),
                p: self.psrc(),
            }
            .into(),
            16 => self.isetp(),
            17 => Psetp {
                bop1: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                bop2: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
                p: self.pdst(),
                q: self.pdst(),
                a: self.psrc(),
                b: self.psrc(),
                c: self.psrc(),
            }
            .into(),
            18 => {
                let mask = match self.weighted(&[40, 30, 15, 15]) {
                    0 => Src::Imm(self.pick(&[0x7f, 0xf, 0xff, 0x1, 0x3c])),
                    1 => Src::Imm(self.below(256)),
                    2 => Src::Reg(self.sreg()),
                    _ => self.src(Rule::S20),
                };
                P2r {
                    d,
                    byte: self.below(4) as u8,
                    src: if self.chance(50) {
                        P2rSrc::Cc
                    } else {
                        P2rSrc::Pr
                    },
                    a: self.sreg(),
                    mask,
                }
                .into()
            }
            19 => Imnmx {
                d,
                unsigned: self.chance(50),
                a: self.sreg(),
                b: self.src(Rule::S20),
                p: self.psrc(),
            }
            .into(),
            20 => {
                let b = match self.weighted(&[45, 35, 5, 15]) {
                    0 => Src::Imm(self.bits32() & 0xffff),
                    1 => Src::Reg(self.sreg()),
                    2 => Src::Const(self.cref()),
                    _ => Src::Imm(self.imm(Rule::S20)),
                };
                Prmt {
                    d,
                    a: self.sreg(),
                    b,
                    c: self.src_rc(),
                }
                .into()
            }
            _ => self.lea(d),
        }
    }

    fn iadd3(&mut self, d: Reg) -> Op {
        let b = self.src(Rule::S20);
        let b_imm = matches!(b, Src::Imm(_));
        Iadd3 {
            d,
            cc: self.chance(40),
            x: self.chance(30),
            shift: [Iadd3Shift::None, Iadd3Shift::Rs, Iadd3Shift::Ls][self.weighted(&[60, 20, 20])],
            a: Iadd3Src {
                neg: self.chance(25),
                src: self.sreg(),
                half: self.half(),
            },
            b: Iadd3Src {
                neg: self.chance(if b_imm { 3 } else { 25 }),
                src: b,
                half: if b_imm { Half::None } else { self.half() },
            },
            c: Iadd3Src {
                neg: self.chance(25),
                src: self.sreg(),
                half: self.half(),
            },
        }
        .into()
    }

    fn xmad(&mut self, d: Reg) -> Op {
        let b = match self.weighted(&[55, 15, 30]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::U16)),
        };
        Xmad {
            d,
            cc: self.chance(30),
            a_signed: self.chance(30),
            b_signed: self.chance(30),
            psl: self.chance(30),
            mrg: self.chance(30),
            mode: [XmadMode::None, XmadMode::Clo, XmadMode::Chi, XmadMode::Cbcc]
                [self.weighted(&[55, 15, 15, 15])],
            a: self.sreg(),
            a_h1: self.chance(40),
            b_h1: !matches!(b, Src::Imm(_)) && self.chance(40),
            b,
            c: self.src_rc(),
        }
        .into()
    }

    fn isetp(&mut self) -> Op {
        Isetp {
            cmp: Cmp::ALL[self.below(8) as usize],
            unsigned: self.chance(50),
            x: self.chance(25),
            bop: self.pick(&[BoolOp::And, BoolOp::Or, BoolOp::Xor]),
            p: self.pdst(),
            q: self.pdst(),
            a: self.sreg(),
            b: self.src(Rule::S20),
            c: self.psrc(),
        }
        .into()
    }

    fn lea(&mut self, d: Reg) -> Op {
        let hi = self.chance(50);
        let b = match self.weighted(&[55, 25, if hi { 0 } else { 20 }]) {
            0 => Src::Reg(self.sreg()),
            1 => Src::Const(self.cref()),
            _ => Src::Imm(self.imm(Rule::S20)),
        };
        let (cc, p) = match self.weighted(&[40, 30, 30]) {
            0 => (false, None),
            1 => (true, None),
            _ => (false, Some(self.pdst())),
        };
        Lea {
            hi,
            x: self.chance(35),
            cc,
            p,
            d,
            neg_a: self.chance(20),
            a: self.sreg(),
            b,
            c: if hi { self.sreg() } else { Reg::RZ },
            shift: if self.chance(70) {
                self.below(6) as u8
            } else {
                self.below(32) as u8
            },
        }
        .into()
    }

    /// Instruction sequences whose CC or partial results feed the next instruction.
    fn chain(&mut self) {
        let g = self.guard();
        match self.below(8) {
            0 => {
                // 64-bit add / subtract.
                let (lo, hi) = (self.dst(), self.dst());
                let (a, b) = (self.sreg(), self.src(Rule::S20));
                let neg = self.chance(40) && !matches!(b, Src::Imm(_));
                self.op(
                    g,
                    Iadd {
                        d: lo,
                        cc: true,
                        x: false,
                        po: false,
                        neg_a: false,
                        a,
                        neg_b: neg,
                        b,
                    },
                );
                let (a, b) = (self.sreg(), self.src(Rule::S20));
                let cc = self.chance(30);
                if self.chance(30) {
                    let imm = self.imm32();
                    self.op(
                        g,
                        Iadd32i {
                            d: hi,
                            cc,
                            x: true,
                            po: false,
                            neg_a: false,
                            a,
                            imm,
                        },
                    );
                } else {
                    self.op(
                        g,
                        Iadd {
                            d: hi,
                            cc,
                            x: true,
                            po: false,
                            neg_a: false,
                            a,
                            neg_b: neg,
                            b,
                        },
                    );
                }
            }
            1 => {
                // Wide comparison: the low words set CC, ISETP.X compares the high words.
                let (a, b) = (self.sreg(), self.sreg());
                self.op(
                    g,
                    Iadd {
                        d: Reg::RZ,
                        cc: true,
                        x: false,
                        po: false,
                        neg_a: false,
                        a,
                        neg_b: true,
                        b: Src::Reg(b),
                    },
                );
                let mut i = self.isetp();
                if let Op::Isetp(o) = &mut i {
                    o.x = true;
                }
                self.op(g, i);
            }
            2 => {
                // base + (offset << s) in 64 or more bits: LEA.LO .CC, then LEA.HI.X .CC ...
                let s = self.below(32) as u8;
                let n = self.range(1, 3);
                let neg_a = self.chance(20);
                let a = self.sreg();
                let b = self.src(Rule::S20);
                let d = self.dst();
                self.op(
                    g,
                    Lea {
                        hi: false,
                        x: false,
                        cc: true,
                        p: None,
                        d,
                        neg_a,
                        a,
                        b,
                        c: Reg::RZ,
                        shift: s,
                    },
                );
                for k in 0..n {
                    let last = k + 1 == n;
                    let (cc, p) = if last && self.chance(50) {
                        (false, Some(self.pdst()))
                    } else {
                        (!last || self.chance(30), None)
                    };
                    let b = if self.chance(70) {
                        Src::Reg(self.sreg())
                    } else {
                        Src::Const(self.cref())
                    };
                    let c = self.sreg();
                    let d = self.dst();
                    self.op(
                        g,
                        Lea {
                            hi: true,
                            x: true,
                            cc,
                            p,
                            d,
                            neg_a,
                            a,
                            b,
                            c,
                            shift: s,
                        },
                    );
                }
            }
            3 => {
                // IADD3 carry chain.
                let d = self.dst();
                let mut o = self.iadd3(d);
                if let Op::Iadd3(x) = &mut o {
                    x.cc = true;
                }
                self.op(g, o);
                let d = self.dst();
                let mut o = self.iadd3(d);
                if let Op::Iadd3(x) = &mut o {
                    x.x = true;
                }
                self.op(g, o);
            }
            4 => {
                // nvcc's 32-bit multiply idiom.
                let (x, y) = (self.sreg(), self.sreg());
                let (t0, t1, d) = (self.dst(), self.dst(), self.dst());
                self.emit(format!("{g}XMAD {t0}, {x}, {y}, RZ"));
                self.emit(format!("{g}XMAD.MRG {t1}, {x}, {y}.H1, RZ"));
                self.emit(format!("{g}XMAD.PSL.CBCC {d}, {x}.H1, {t1}.H1, {t0}"));
            }
            5 => {
                // A CC producer, then the flags as a value.
                let d = self.dst();
                let mut o = match self.below(5) {
                    0 => self.iadd3(d),
                    1 => self.xmad(d),
                    2 => self.lea(d),
                    3 => Bfe {
                        d,
                        cc: true,
                        signed: self.chance(50),
                        brev: false,
                        a: self.sreg(),
                        b: self.bitfield(),
                    }
                    .into(),
                    _ => Iscadd {
                        d,
                        cc: true,
                        po: self.chance(20),
                        neg_a: self.chance(20),
                        a: self.sreg(),
                        neg_b: false,
                        b: Src::Reg(self.sreg()),
                        shift: self.below(32) as u8,
                    }
                    .into(),
                };
                match &mut o {
                    Op::Iadd3(x) => x.cc = true,
                    Op::Xmad(x) => x.cc = true,
                    Op::Lea(x) => {
                        x.cc = true;
                        x.p = None;
                    }
                    _ => {}
                }
                self.op(g, o);
                let (d, a) = (self.dst(), self.sreg());
                let byte = self.below(4) as u8;
                self.op(
                    g,
                    P2r {
                        d,
                        byte,
                        src: P2rSrc::Cc,
                        a,
                        mask: Src::Imm(0xf),
                    },
                );
            }
            6 => {
                // Register bit-field controls and shift amounts in a sane range.
                let (t, x) = (Reg(16 + self.below(4) as u8), self.sreg());
                let m = self.pick(&[0x1f1f, 0x3f3f, 0x1f, 0x3f, 0xff]);
                self.emit(format!("LOP32I.AND {t}, {x}, {m:#x}"));
                let (d, a) = (self.dst(), self.sreg());
                let o: Op = match self.below(4) {
                    0 => Bfe {
                        d,
                        cc: self.chance(30),
                        signed: self.chance(50),
                        brev: self.chance(20),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                    1 => Bfi {
                        d,
                        cc: self.chance(30),
                        a,
                        b: Src::Reg(t),
                        c: Src::Reg(self.sreg()),
                    }
                    .into(),
                    2 => Shl {
                        d,
                        w: self.chance(30),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                    _ => Shr {
                        d,
                        unsigned: self.chance(50),
                        w: self.chance(30),
                        brev: self.chance(20),
                        a,
                        b: Src::Reg(t),
                    }
                    .into(),
                };
                self.op(g, o);
            }
            _ => {
                // PRMT with a register selector, including sign-replicate nibbles.
                let (t, x) = (Reg(16 + self.below(4) as u8), self.sreg());
                let m = self.pick(&[0xffff, 0x7777, 0x8888, 0xf0f0]);
                self.emit(format!("LOP32I.AND {t}, {x}, {m:#x}"));
                let (d, a, c) = (self.dst(), self.sreg(), self.src_rc());
                self.op(
                    g,
                    Prmt {
                        d,
                        a,
                        b: Src::Reg(t),
                        c,
                    },
                );
            }
        }
    }

    fn misc(&mut self) {
        match self.below(5) {
            0 => self.emit("NOP"),
            1 => {
                let s = self.pick(&["CTA", "GL", "SYS"]);
                self.emit(format!("MEMBAR.{s}"));
            }
            2 => self.emit("DEPBAR.LE SB0, 0x0"),
            3 if self.ssy_depth == 0 => self.emit("SYNC"),
            _ => {
                let g = self.guard();
                let op = self.alu();
                self.op(g, op);
            }
        }
    }

    // ---- control flow ------------------------------------------------------------------------

    /// Computes a predicate that varies across lanes, warps, CTAs, or not at all.
    fn cond(&mut self, p: Pred) {
        match self.weighted(&[30, 30, 20, 10, 10]) {
            0 => {
                let m = self.range(1, 31);
                self.emit(format!("LOP.AND.NZ {p}, RZ, R27, {m:#x}"));
            }
            1 => {
                let mut i = self.isetp();
                if let Op::Isetp(o) = &mut i {
                    o.p = p;
                    o.x = false;
                    o.c = PredSrc::TRUE;
                    o.bop = BoolOp::And;
                }
                self.op0(i);
            }
            2 => {
                let t = if self.chance(50) {
                    32 * self.range(1, 2)
                } else {
                    self.below(self.threads_per_cta + 1)
                };
                self.emit(format!("ISETP.LT.U32.AND {p}, PT, R25, {t:#x}, PT"));
            }
            3 => self.emit(format!("ISETP.EQ.AND {p}, PT, R26, RZ, PT")),
            _ => {
                let (a, b) = (self.psrc(), self.psrc());
                self.emit(format!("PSETP.AND.OR {p}, PT, {a}, {b}, PT"));
            }
        }
    }

    fn if_stmt(&mut self, depth: u32) {
        let ssy = self.chance(55);
        let has_else = self.chance(60);
        let p = Pred(self.below(7) as u8);
        let cc = self.chance(15);
        if cc {
            // A CC.EQ / CC.NE branch on a fresh .CC result.
            let d = self.dst();
            let o = self.iadd3(d);
            let o = match o {
                Op::Iadd3(mut x) => {
                    x.cc = true;
                    x
                }
                _ => unreachable!(),
            };
            self.op0(o);
        } else {
            self.cond(p);
        }
        let (l_else, l_end) = (self.new_label(), self.new_label());
        if ssy {
            let t = self.target(&l_end);
            self.emit(format!("SSY {t}"));
            self.ssy_depth += 1;
        }
        let t = self.target(&l_else);
        let neg = if self.chance(50) { "!" } else { "" };
        if cc {
            let test = self.pick(&["CC.EQ", "CC.NE"]);
            let guard = if self.chance(30) {
                format!("@{neg}{p} ")
            } else {
                String::new()
            };
            self.emit(format!("{guard}BRA {test}, {t}"));
        } else {
            self.emit(format!("@{neg}{p} BRA {t}"));
        }
        let n = self.range(1, 5) as usize;
        self.stmts(n, depth + 1);
        if ssy {
            self.emit("SYNC");
        } else {
            let t = self.target(&l_end);
            self.emit(format!("BRA {t}"));
        }
        self.place(&l_else);
        if has_else {
            let n = self.range(1, 4) as usize;
            self.stmts(n, depth + 1);
        }
        if ssy {
            self.emit("SYNC");
            self.ssy_depth -= 1;
        }
        self.place(&l_end);
    }

    fn loop_stmt(&mut self, depth: u32) {
        let lvl = self.loop_depth;
        let cnt = Reg(20 + 2 * lvl);
        let lim = Reg(21 + 2 * lvl);
        self.loop_depth += 1;
        let kind = self.weighted(&[40, 35, 25]);
        let (l_top, l_after) = (self.new_label(), self.new_label());
        let ssy = kind == 1 && self.chance(50);
        match kind {
            0 => self.emit(format!("MOV {cnt}, RZ")),
            1 => {
                self.emit(format!("MOV {cnt}, RZ"));
                let src = self.pick(&["R27", "R24", "R25", "R3"]);
                self.emit(format!("LOP32I.AND {lim}, {src}, 0x3"));
                self.emit(format!("IADD32I {lim}, {lim}, 0x1"));
            }
            _ => {
                let n = self.range(1, 4);
                self.emit(format!("MOV32I {cnt}, {n:#x}"));
            }
        }
        if ssy {
            let t = self.target(&l_after);
            self.emit(format!("SSY {t}"));
            self.ssy_depth += 1;
        }
        self.place(&l_top);
        let n = self.range(1, 4) as usize;
        self.stmts(n, depth + 1);
        let t = self.target(&l_top);
        let p = Pred(self.below(7) as u8);
        match kind {
            0 => {
                let n = self.range(1, 5);
                self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
                self.emit(format!("ISETP.LT.AND {p}, PT, {cnt}, {n:#x}, PT"));
                self.emit(format!("@{p} BRA {t}"));
            }
            1 => {
                self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
                self.emit(format!("ISETP.LT.U32.AND {p}, PT, {cnt}, {lim}, PT"));
                self.emit(format!("@{p} BRA {t}"));
            }
            _ => {
                self.emit(format!("IADD32I {cnt}.CC, {cnt}, -0x1"));
                self.emit(format!("BRA CC.NE, {t}"));
            }
        }
        if ssy {
            self.emit("SYNC");
            self.ssy_depth -= 1;
            self.place(&l_after);
        }
        self.loop_depth -= 1;
    }

    fn inf_loop(&mut self) {
        self.inf_loop = true;
        let l = self.new_label();
        self.place(&l);
        let n = self.range(1, 4) as usize;
        self.stmts(n, 1);
        let t = self.target(&l);
        match self.below(3) {
            0 => self.emit(format!("BRA {t}")),
            1 => self.emit(format!("@PT BRA {t}")),
            _ => {
                self.emit("IADD RZ.CC, RZ, RZ");
                self.emit(format!("BRA CC.EQ, {t}"));
            }
        }
    }

    fn exit_stmt(&mut self, depth: u32) {
        match self.weighted(&[60, 25, if depth > 0 { 15 } else { 0 }]) {
            0 => {
                let p = Pred(self.below(7) as u8);
                self.cond(p);
                let neg = if self.chance(50) { "!" } else { "" };
                self.emit(format!("@{neg}{p} EXIT"));
            }
            1 => {
                let test = self.pick(&["CC.EQ", "CC.NE"]);
                let g = self.guard();
                self.emit(format!("{g}EXIT {test}"));
            }
            _ => self.emit("EXIT"),
        }
    }

    fn barrier(&mut self) {
        let id = [0u8, 1, 15][self.weighted(&[80, 15, 5])];
        let g = if self.chance(20) {
            Guard(self.psrc())
        } else {
            Guard::ALWAYS
        };
        if self.shared_bytes >= 8 && self.chance(60) {
            // Exchange words between threads (and warps) through shared memory.
            let m = (floor_pow2(self.shared_bytes) - 1) & !3;
            self.emit("ISCADD R18, R25, RZ, 0x2");
            self.emit(format!("LOP32I.AND R18, R18, {m:#x}"));
            let v = self.sreg();
            self.emit(format!("STS [R18], {v}"));
            self.emit(format!("{g}BAR.SYNC {id:#x}"));
            let x = self.pick(&[0x80u32, 0x4, 0x100, 0x84]);
            self.emit(format!("LOP32I.XOR R19, R18, {x:#x}"));
            self.emit(format!("LOP32I.AND R19, R19, {m:#x}"));
            let d = self.dst();
            self.emit(format!("LDS {d}, [R19]"));
        } else {
            self.emit(format!("{g}BAR.SYNC {id:#x}"));
        }
    }

    // ---- segment ends ------------------------------------------------------------------------

    /// A segment end or start for the edge statements. Weighted toward segments whose size is
    /// not a multiple of 16, address 0 (below it a 64-bit address wraps to the top of the space)
    /// and the top of the space (2^64 - 12, the end of [`TOP`], and 2^64 itself, past which an
    /// address wraps to 0).
    fn edge_target(&mut self) -> Target {
        let t = |param, at: u64, wide| Target {
            param,
            at: at as i32,
            wide,
        };
        let ts = [
            t(P_SEG1, SEG1_SIZE, false),
            t(P_SEG1, SEG1_SIZE + SEG2_SIZE, false),
            t(P_ODD, self.odd_size, false),
            t(P_ODD, 0, false),
            t(P_ZERO, ZERO_SIZE, false),
            t(P_ZERO, 0, false),
            t(P_TOP, TOP_SIZE, true),
            t(P_TOP, 0x1000, true),
            t(P_HIGH, HIGH_SIZE, true),
        ];
        ts[self.weighted(&[12, 8, 20, 4, 10, 14, 14, 10, 4])]
    }

    /// Accesses of mixed sizes around a segment end or start ([`Gen::edge_target`]): a loop
    /// walking toward and off it, or one group of accesses (sometimes more than 16 in one
    /// block, so that the JIT's per-position hint slots wrap around).
    fn edge(&mut self, depth: u32) {
        let t = self.edge_target();
        if self.loop_depth < 2 && self.chance(70) {
            self.walk(t, depth);
        } else {
            let n = if self.chance(15) {
                self.range(17, 20)
            } else {
                self.range(1, 4)
            };
            let w = self.geometry(t, None);
            self.edge_part(w, None, n, None);
        }
    }

    /// A counted loop (2 to 12 iterations) whose body is 1 to 4 groups of accesses near `t`
    /// (sometimes near another target), mostly moving together with the iteration. Groups
    /// after the first often start a block of their own (skipped in some iterations or for
    /// some lanes), and their first access has another size than the previous group's: the
    /// first access of each block uses the same JIT hint slot.
    fn walk(&mut self, t: Target, depth: u32) {
        let cnt = Reg(20 + 2 * self.loop_depth);
        self.loop_depth += 1;
        let n = self.range(2, 12);
        let l_top = self.new_label();
        self.emit(format!("MOV {cnt}, RZ"));
        self.place(&l_top);
        let parts = self.range(1, 4);
        let shared = self.geometry(t, Some(n));
        let mut prev = None;
        for k in 0..parts {
            let skip = k > 0 && self.chance(75);
            let l_skip = self.new_label();
            if skip {
                let p = Pred(self.below(7) as u8);
                if self.chance(70) {
                    let m = self.below(n);
                    let cmp = self.pick(&["LT", "GE", "EQ", "NE"]);
                    self.emit(format!("ISETP.{cmp}.AND {p}, PT, {cnt}, {m:#x}, PT"));
                } else {
                    self.cond(p);
                }
                let l = self.target(&l_skip);
                self.emit(format!("@{p} BRA {l}"));
            }
            let w = match self.weighted(&[70, 15, 15]) {
                0 => shared,
                1 => self.geometry(t, Some(n)),
                _ => {
                    let t = self.edge_target();
                    self.geometry(t, Some(n))
                }
            };
            let accesses = if self.chance(8) {
                self.range(17, 20)
            } else {
                self.range(1, 3)
            };
            prev = Some(self.edge_part(w, Some(cnt), accesses, prev));
            if skip {
                self.place(&l_skip);
            }
            if self.chance(15) {
                self.stmts(1, depth + 1);
            }
        }
        let p = Pred(self.below(7) as u8);
        self.emit(format!("IADD32I {cnt}, {cnt}, 0x1"));
        self.emit(format!("ISETP.LT.AND {p}, PT, {cnt}, {n:#x}, PT"));
        let l = self.target(&l_top);
        self.emit(format!("@{p} BRA {l}"));
        self.loop_depth -= 1;
    }

    /// How a group of accesses addresses `t`: with a loop of `n` iterations the address moves
    /// by `1 << k` bytes per iteration, up or down, and crosses `t` in some iteration (or
    /// none); the lanes' addresses are the same, consecutive words (the JIT's whole-warp path),
    /// or spread by another stride.
    fn geometry(&mut self, t: Target, n: Option<u32>) -> Walk {
        let wide = t.wide || self.chance(60);
        let (sh, down, cross) = match n {
            // Down toward segment starts (below 0 wraps to the top of the space), mostly up
            // toward ends.
            Some(n) => (
                self.pick(&[0u8, 1, 2, 2, 3, 3, 4, 4]),
                self.chance(if t.at == 0 { 75 } else { 15 }),
                self.below(n + 1) as i32,
            ),
            None => (0, false, 0),
        };
        let step = 1i32 << sh;
        let d = self.below(33) as i32 - 24;
        let rel = t.at + d + if down { cross * step } else { -cross * step };
        let mut o: i32 = match self.weighted(&[60, 25, 15]) {
            0 => 0,
            1 => self.below(65) as i32 - 32,
            _ => self.below(0x8_0000) as i32 - 0x4_0000,
        };
        if !(-0x8_0000..0x8_0000).contains(&(rel - o)) {
            o = 0;
        }
        let lane = match self.weighted(&[50, 20, 12, 8, 10]) {
            0 => None,
            1 => Some((Reg(27), 2)),
            2 => Some((Reg(27), self.below(5) as u8)),
            3 => Some((Reg(27), 0)),
            _ => Some((Reg(25), 2)),
        };
        Walk {
            param: t.param,
            wide,
            sh,
            down,
            rel: rel - o,
            offset: o,
            lane,
        }
    }

    /// Sets `R16` (and `R17`) to the address `w` gives for iteration `cnt` (0 without a loop)
    /// and makes `accesses` LDG/STG/LD/ST of random sizes at small offsets from it; the first
    /// is mostly larger than `prev`. Returns the first access's size.
    fn edge_part(
        &mut self,
        w: Walk,
        cnt: Option<Reg>,
        accesses: u32,
        prev: Option<MemSize>,
    ) -> MemSize {
        let r19 = Reg(19);
        match cnt {
            Some(c) => self.op0(Iscadd {
                d: r19,
                cc: false,
                po: false,
                neg_a: w.down,
                a: c,
                neg_b: false,
                b: Src::Imm(w.rel as u32),
                shift: w.sh,
            }),
            None => self.emit(format!("MOV32I R19, {:#x}", w.rel as u32)),
        }
        if let Some((r, s)) = w.lane {
            self.emit(format!("ISCADD R19, {r}, R19, {s:#x}"));
        }
        let p = w.param;
        if w.wide {
            self.emit("SHR R18, R19, 0x1f");
            self.emit(format!("IADD R16.CC, R19, c[0x0][{p:#x}]"));
            self.emit(format!("IADD.X R17, R18, c[0x0][{:#x}]", p + 4));
        } else {
            self.emit(format!("IADD R16, R19, c[0x0][{p:#x}]"));
        }
        let mut first = MemSize::B32;
        for j in 0..accesses {
            let mut size = self.mem_size(true);
            if let (0, Some(prev)) = (j, prev) {
                // Mostly larger than the previous group's first access: a larger access
                // checked against a smaller one's bound is what goes wrong.
                if size == prev || self.chance(60) {
                    let other = self.mem_size(true);
                    if other.bytes() > size.bytes() || size == prev {
                        size = other;
                    }
                }
            }
            if j == 0 {
                first = size;
            }
            let offset = if j == 0 {
                w.offset
            } else {
                w.offset + self.below(25) as i32 - 16
            };
            let addr = Addr {
                base: Some(Reg(16)),
                offset,
            };
            let g = if self.chance(85) {
                Guard::ALWAYS
            } else {
                self.guard()
            };
            let e = w.wide;
            let op: Op = match self.weighted(&[40, 35, 15, 10]) {
                0 => Ldg {
                    d: self.load_dst(size.regs()),
                    e,
                    cop: CacheOp::Default,
                    size,
                    ps: None,
                    addr,
                }
                .into(),
                1 => Stg {
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    v: self.src_wide(size.regs()),
                }
                .into(),
                2 => Ld {
                    d: self.load_dst(size.regs()),
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    steer: PredSrc::TRUE,
                }
                .into(),
                _ => St {
                    e,
                    cop: CacheOp::Default,
                    size,
                    addr,
                    v: self.src_wide(size.regs()),
                    steer: PredSrc::TRUE,
                }
                .into(),
            };
            self.op(g, op);
        }
        first
    }

    // ---- memory ------------------------------------------------------------------------------

    fn mem(&mut self) {
        // Rarely an access meant to go wrong (out of range, misaligned LDC, wrong steering): a
        // fault ends the launch, so most programs should run to their end.
        let risky = self.chance(3);
        let w: [u32; 7] = match self.profile {
            Profile::Control => [0, 0, 0, 0, 1, 1, 0],
            _ => [20, 15, 12, 10, 10, 8, 25],
        };
        match self.weighted(&w) {
            0 => self.ldg(risky),
            1 => self.stg(risky),
            2 => self.ld(risky),
            3 => self.st(risky),
            4 => self.lds(risky),
            5 => self.sts(risky),
            _ => self.ldc(risky),
        }
    }

    fn mem_size(&mut self, u128_ok: bool) -> MemSize {
        let sizes = [
            MemSize::B32,
            MemSize::U8,
            MemSize::S8,
            MemSize::U16,
            MemSize::S16,
            MemSize::B64,
            MemSize::B128,
            MemSize::U128,
        ];
        let n = if u128_ok { 8 } else { 7 };
        sizes[self.weighted(&[30, 10, 10, 10, 10, 15, 15, 5][..n])]
    }

    /// `LOP32I.AND R18, Rx, mask`: an index below `1 << bits` from a random data register.
    fn index(&mut self, bits: u32) {
        let x = Reg(self.below(20) as u8);
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        self.emit(format!("LOP32I.AND R18, {x}, {mask:#x}"));
    }

    /// Index bits that keep `index + 0x10 + 16` inside shared memory (0: only offset 0 fits).
    fn shared_bits(&self) -> u32 {
        let usable = self.shared_bytes.saturating_sub(0x20);
        if usable < 2 {
            0
        } else {
            floor_pow2(usable).trailing_zeros()
        }
    }

    /// Sets up a global/generic address in `R16` (and `R17` with `.E`) and returns the
    /// address operand and where the access should be steered (generic accesses).
    ///
    /// Unless `risky`, the access stays inside mapped memory: SEG1, the SEG1/SEG2 boundary,
    /// HIGH (64-bit forms only), and the shared window (steered to shared memory, or global
    /// when a segment is mapped there).
    fn global_ptr(
        &mut self,
        generic: bool,
        risky: bool,
        ps: bool,
        size: u32,
    ) -> (Addr, bool, PredSrc) {
        let shared_ok = generic && self.shared_bytes >= 16;
        let win_global = self.window_segment;
        let w_win = if shared_ok || win_global { 25 } else { 0 };
        let region = match self.weighted(&[40, 20, 15, if risky { 10 } else { w_win }, 8, 8]) {
            0 => Region::Seg1,
            1 => Region::Edge,
            2 => Region::High,
            3 => Region::Window,
            4 => Region::Zero,
            _ => Region::Top,
        };
        // Window accesses go to shared memory (generic, when it has room) or to the global
        // segment mapped at the window.
        let to_shared = region == Region::Window && shared_ok && (!win_global || self.chance(60));
        let safe_bits = match region {
            Region::Seg1 => 17,
            Region::High => 16,
            Region::Edge if size == 16 => 16,
            Region::Edge => self.pick(&[8, 12, 16]),
            Region::Window if to_shared => self.shared_bits(),
            Region::Window | Region::Zero | Region::Top => 11,
        };
        let bits = if risky {
            safe_bits + self.range(1, 4)
        } else {
            safe_bits
        };
        let imm_max: i32 = if ps { 0x7_ffff } else { 0x7f_ffff };
        let offset = if risky && self.chance(50) {
            self.range(0, 2 * imm_max as u32) as i32 - imm_max
        } else {
            self.below(0x10) as i32
        };
        let plg = if generic && self.chance(70) {
            Some(Pred(self.below(7) as u8))
        } else {
            None
        };
        let forms = [
            60,
            if matches!(region, Region::High | Region::Top) && !risky {
                0
            } else {
                30
            },
            if ps || matches!(region, Region::High | Region::Window | Region::Top) {
                0
            } else {
                10
            },
            if risky { 10 } else { 0 },
        ];
        let p = region.param();
        let (addr, e, plg) = match self.weighted(&forms) {
            0 => {
                // .E: a 64-bit pointer from LEA.LO .CC and LEA.HI.X (or IADD .CC / IADD.X).
                let s = self.below(4).min(bits);
                self.index(bits.saturating_sub(s));
                if self.chance(70) {
                    self.emit(format!("LEA R16.CC, R18, c[0x0][{p:#x}], {s:#x}"));
                    let pl = plg.map(|p| format!("{p}, ")).unwrap_or_default();
                    self.emit(format!(
                        "LEA.HI.X {pl}R17, R18, c[0x0][{:#x}], RZ, {s:#x}",
                        p + 4
                    ));
                    (
                        Addr {
                            base: Some(Reg(16)),
                            offset,
                        },
                        true,
                        plg,
                    )
                } else {
                    self.emit(format!("SHL R19, R18, {s:#x}"));
                    self.emit(format!("IADD R16.CC, R19, c[0x0][{p:#x}]"));
                    self.emit(format!("IADD.X R17, RZ, c[0x0][{:#x}]", p + 4));
                    (
                        Addr {
                            base: Some(Reg(16)),
                            offset,
                        },
                        true,
                        None,
                    )
                }
            }
            1 => {
                // 32-bit address, zero-extended.
                let s = self.below(4).min(bits);
                self.index(bits.saturating_sub(s));
                if let Some(pl) = plg {
                    self.emit(format!("LEA {pl}, R16, R18, c[0x0][{p:#x}], {s:#x}"));
                } else {
                    self.emit(format!("ISCADD R16, R18, c[0x0][{p:#x}], {s:#x}"));
                }
                (
                    Addr {
                        base: Some(Reg(16)),
                        offset,
                    },
                    false,
                    plg,
                )
            }
            2 => {
                // Absolute: `[imm]` (zero-extended ImmU24).
                let a = match region {
                    Region::Edge => EDGE + self.below(0x1000) as u64,
                    Region::Zero => ZERO + self.below(0x800) as u64,
                    _ => SEG1 + self.below(0x1000) as u64,
                };
                (
                    Addr {
                        base: None,
                        offset: a as i32,
                    },
                    false,
                    None,
                )
            }
            _ => {
                // Whatever a data register (pair) holds.
                let r = Reg(2 * self.below(10) as u8);
                let e = self.chance(50);
                let offset = offset.clamp(-0x8_0000, 0x7_ffff);
                (
                    Addr {
                        base: Some(r),
                        offset,
                    },
                    e,
                    None,
                )
            }
        };
        let steer = if risky && self.chance(50) {
            self.psrc()
        } else {
            match (plg, to_shared) {
                (Some(p), _) if (region != Region::Window || to_shared) && self.chance(90) => {
                    PredSrc {
                        pred: p,
                        neg: false,
                    }
                }
                (_, true) => PredSrc {
                    pred: Pred::PT,
                    neg: true,
                },
                _ => PredSrc::TRUE,
            }
        };
        (addr, e, steer)
    }

    fn ldg(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let ps = self.chance(30);
        let (addr, e, _) = self.global_ptr(false, risky, ps, size.bytes());
        let ps = ps.then(|| self.pdst());
        let cop = self.pick(&[
            CacheOp::Default,
            CacheOp::Ca,
            CacheOp::Cg,
            CacheOp::Cs,
            CacheOp::Lu,
            CacheOp::Cv,
            CacheOp::Ci,
        ]);
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let op = Op::from(Ldg {
            d,
            e,
            cop,
            size,
            ps,
            addr,
        });
        if addr.base.is_none() && self.registers == 32 {
            // A base register at or past the register count: absolute addressing.
            let text = format!("{g}{}", Sass(&op)).replace("[0x", "[R200+0x");
            self.emit(text);
        } else {
            self.op(g, op);
        }
    }

    fn stg(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, _) = self.global_ptr(false, risky, false, size.bytes());
        let cop = self.pick(&[
            CacheOp::Default,
            CacheOp::Wb,
            CacheOp::Cg,
            CacheOp::Cs,
            CacheOp::Wt,
        ]);
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(
            g,
            Stg {
                e,
                cop,
                size,
                addr,
                v,
            },
        );
    }

    fn ld(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, steer) = self.global_ptr(true, risky, false, size.bytes());
        let d = self.load_dst(size.regs());
        let g = self.guard();
        self.op(
            g,
            Ld {
                d,
                e,
                cop: CacheOp::Default,
                size,
                addr,
                steer,
            },
        );
    }

    fn st(&mut self, risky: bool) {
        let size = self.mem_size(true);
        let (addr, e, steer) = self.global_ptr(true, risky, false, size.bytes());
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(
            g,
            St {
                e,
                cop: CacheOp::Default,
                size,
                addr,
                v,
                steer,
            },
        );
    }

    /// A shared-memory address: `[R18+imm]` with an index that keeps the access inside shared
    /// memory (unless `risky`), or an absolute `[imm]`.
    fn shared_addr(&mut self, risky: bool, size: u32) -> Addr {
        let sb = self.shared_bytes;
        let bits = self.shared_bits() + if risky { self.range(1, 3) } else { 0 };
        if bits == 0 || self.chance(20) {
            let lim = if risky {
                2 * sb + 0x10
            } else {
                sb.saturating_sub(size - 1)
            };
            return Addr {
                base: None,
                offset: self.below(lim) as i32,
            };
        }
        self.index(bits);
        let offset = if risky {
            self.range(0, 0x200) as i32 - 0x100
        } else {
            self.below(0x10) as i32
        };
        Addr {
            base: Some(Reg(18)),
            offset,
        }
    }

    fn lds(&mut self, risky: bool) {
        let size = self.mem_size(false);
        if self.shared_bytes < size.bytes() && !risky {
            return;
        }
        let addr = self.shared_addr(risky, size.bytes());
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let u = self.chance(20);
        self.op(g, Lds { d, u, size, addr });
    }

    fn sts(&mut self, risky: bool) {
        let size = self.mem_size(false);
        if self.shared_bytes < size.bytes() && !risky {
            return;
        }
        let addr = self.shared_addr(risky, size.bytes());
        let v = self.src_wide(size.regs());
        let g = self.guard();
        self.op(g, Sts { size, addr, v });
    }

    fn ldc(&mut self, risky: bool) {
        let size = [
            MemSize::B32,
            MemSize::U8,
            MemSize::S8,
            MemSize::U16,
            MemSize::S16,
            MemSize::B64,
            MemSize::B128,
        ][self.weighted(&[30, 10, 10, 10, 10, 15, 15])];
        let bytes = size.bytes();
        let align = !(bytes - 1);
        let mode = self.pick(&[LdcMode::Ia, LdcMode::Il, LdcMode::Is, LdcMode::Isl]);
        let bank = match self.weighted(&[60, 25, 15]) {
            0 => self.below(4),
            1 => self.pick(&[7, 8, 12, 13, 14, 17, 18]),
            _ => self.below(32),
        } as u8;
        let d = self.load_dst(size.regs());
        let g = self.guard();
        let (a, imm) = if self.chance(35) {
            let addr = match self.weighted(&[60, 20, 20]) {
                0 => 0x180 + 4 * self.below(0xa0),
                1 => 0xff00 + 4 * self.below(0x40),
                _ => self.bits32() & 0xffff,
            };
            let addr = if risky { addr } else { addr & align };
            (Reg::RZ, addr as i32)
        } else {
            // Index bits 16 and up select banks in IL/IS/ISL modes.
            let bank_bits = self.pick(&[0u32, 1, 3, 7, 0x1f]);
            let addr_bits = if risky { 0xffff } else { 0x3ff & align };
            let x = Reg(self.below(20) as u8);
            self.emit(format!(
                "LOP32I.AND R18, {x}, {:#x}",
                bank_bits << 16 | addr_bits
            ));
            let imm = if risky {
                self.range(0, 0xffff) as i32 - 0x8000
            } else {
                (self.range(0, 0x600) as i32 - 0x200) & align as i32
            };
            (Reg(18), imm)
        };
        self.op(
            g,
            Ldc {
                d,
                size,
                mode,
                bank,
                a,
                imm,
            },
        );
    }
}

/// The largest power of two at most `v` (`v` > 0).
fn floor_pow2(v: u32) -> u32 {
    1 << (31 - v.leading_zeros())
}
